// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/run/run-stepped.c - an op-based workload in stepped mode: every task a
 * program of the stepped scheduler (tlbgen_stepped__run()), whole kernel
 * functions interleaved at the top of each op and wherever one waits; the
 * counters per op, and the MESI account of every shared line the policy
 * touches (tlbgen/coherence.h, fed by the trace hooks).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "driver/cell.h"
#include "run-stepped.h"

struct sprog {
	const struct bench_sspec *s;
	struct bench_task *task;
	struct tlbgen_coherence *mesi;
	uint64_t ops;			/* every task's, so far */
	uint64_t begun;			/* ops begun: the cell runs exactly ops_total */
	bool *in_remote;		/* per CPU: inside a remote flush_tlb_func() */
	uint64_t remote_reads;
};

/* tlb_gen reads inside a remote callback: between its delivery and the
 * write that unlocks its csd (a SYNC csd is unlocked after it returns). */
static void on_line(void *ctx, unsigned int cpu, enum tlbgen_line line, uintptr_t id,
		    enum tlbgen_access_op op)
{
	struct sprog *p = ctx;

	tlbgen_coherence__line_access(p->mesi, cpu, line, id, op);
	if (line == TLBGEN_LINE_MM_TLB_GEN && op == TLBGEN_OP_READ && p->in_remote[cpu])
		p->remote_reads++;
	else if (line == TLBGEN_LINE_CSD && op == TLBGEN_OP_WRITE)
		p->in_remote[cpu] = false;
}

static void on_receive(void *ctx, unsigned int cpu, unsigned int from)
{
	struct sprog *p = ctx;

	(void)from;
	p->in_remote[cpu] = true;
}

static int sprog(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct sprog *p = arg;
	struct bench_task *t = &p->task[cpu];
	int err = tlbgen_switch_mm(sys, cpu, t->mm);

	if (!err && p->s->ops->start)
		err = p->s->ops->start(t);
	while (!err && !tlbgen_cpu__should_stop(sys, cpu) && p->begun < p->s->ops_total) {
		p->begun++;
		err = p->s->ops->op(t);
		if (err > 0)
			return 0;
		if (!err) {
			t->n++;
			p->ops++;
		}
	}
	return err;
}

int bench_scell_run(const struct bench_sspec *s, struct bench_scell *out)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .mode = TLBGEN_MODE_STEPPED, .profile = s->profile,
		    .seed = s->seed, .nr_cpus = s->threads, .invlpgb = s->invlpgb,
		    .no_pcid = s->no_pcid);
	TLBGEN_OPTS(tlbgen_wl_opts, wo);
	struct tlbgen_trace_ops hooks;
	struct sprog p = { .s = s };
	struct tlbgen_system *sys;
	struct tlbgen_mm *shared = NULL;
	struct tlbgen_wl *wl = NULL;
	int err, ret;

	memset(out, 0, sizeof(*out));
	err = tlbgen_system__create(&o, &sys);
	if (err)
		return err;
	p.task = calloc(s->threads, sizeof(*p.task));
	p.in_remote = calloc(s->threads, sizeof(*p.in_remote));
	err = p.task && p.in_remote ? tlbgen_coherence__create(s->threads, &p.mesi) : -ENOMEM;
	if (!err)
		err = tlbgen_coherence__trace_ops(p.mesi, &hooks);
	hooks.line_access = on_line;
	hooks.ipi_receive = on_receive;
	hooks.ctx = &p;
	if (!err)
		err = tlbgen_system__set_trace(sys, &hooks);
	if (!err)
		err = tlbgen_wl__create(sys, &wo, &wl);
	if (!err && !s->processes)
		err = tlbgen_mm__create(sys, s->ops->region_pages * s->threads, &shared);
	for (unsigned int c = 0; !err && c < s->threads; c++) {
		p.task[c] = (struct bench_task){ .sys = sys, .wl = wl, .ops = s->ops, .cpu = c,
						 .tasks = s->threads, .mode = TLBGEN_MODE_STEPPED,
						 .processes = s->processes,
						 .mm = shared,
						 .base = s->processes ? 0 : c * s->ops->region_pages };
		if (s->processes)
			err = tlbgen_mm__create(sys, s->ops->region_pages, &p.task[c].mm);
	}
	for (unsigned int c = 0; !err && c < s->threads; c++)
		err = tlbgen_cpu__spawn(sys, c, sprog, &p);
	if (!err)
		err = tlbgen_stepped__run(sys, UINT64_MAX);
	for (unsigned int c = 0; p.task && c < s->threads; c++)
		if (!tlbgen_cpu__join(sys, c, &ret) && ret && !err)
			err = ret;
	if (!err) {
		out->ops = p.ops;
		tlbgen_stats__system(sys, out->stats, TLBGEN_STAT_NR);
		tlbgen_wl__stats(wl, -1, out->wl, TLBGEN_WL_STAT_NR);
		for (unsigned int l = 0; l < TLBGEN_LINE_NR; l++)
			out->transfers[l] = tlbgen_coherence__transfers(p.mesi, l, -1);
		out->tlb_gen_remote_reads = p.remote_reads;
		tlbgen_coherence__counts(p.mesi, TLBGEN_LINE_MM_TLB_GEN, -1, &out->tlb_gen);
		out->violations = tlbgen_oracle__violations(sys);
		out->warns = tlbgen_system__warns(sys);
	}
	tlbgen_system__set_trace(sys, NULL);
	tlbgen_wl__destroy(wl);
	tlbgen_system__destroy(sys);
	tlbgen_coherence__destroy(p.mesi);
	free(p.task);
	free(p.in_remote);
	return err;
}
