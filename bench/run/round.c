// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/run/round.c - one timed round of an op-based workload on real threads:
 * a pinned pthread per task runs the workload's op in a loop (the library's
 * kernel-side operations, their kernel work burnt with IRQs on from the
 * machine model), and the main thread takes will-it-scale's samples.
 * Threads mode shares one mm (IPIs), processes mode gives each task its own.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "driver/common.h"
#include "round.h"
#include "threaded.h"

/* will-it-scale keeps each task's counter in its own 256-byte slot. */
struct task_slot {
	_Atomic uint64_t ops;
	char pad[256 - sizeof(uint64_t)];
};

/* Per-CPU tlb_gen read classification for the accounting pass. */
struct read_acct {
	bool in_remote;
	uint64_t remote_reads, local_reads;
} __attribute__((aligned(64)));

struct round {
	const struct bench_round_opts *o;
	struct tlbgen_system *sys;
	struct tlbgen_mm **mms;
	struct tlbgen_wl *wl;
	struct task_slot *slots;
	_Atomic int ready, start, stop, done, err;
	struct read_acct *acct;
};

struct task_arg {
	struct round *r;
	unsigned int i;
};

static void acct_line(void *ctx, unsigned int cpu, enum tlbgen_line line, uintptr_t id,
		      enum tlbgen_access_op op)
{
	struct round *r = ctx;
	struct read_acct *a = &r->acct[cpu];

	(void)id;
	if (line == TLBGEN_LINE_MM_TLB_GEN && op == TLBGEN_OP_READ) {
		if (a->in_remote)
			a->remote_reads++;
		else
			a->local_reads++;
	} else if (line == TLBGEN_LINE_CSD && op == TLBGEN_OP_WRITE && a->in_remote) {
		/* A SYNC csd is unlocked after its callback returned. */
		a->in_remote = false;
	}
}

static void acct_receive(void *ctx, unsigned int cpu, unsigned int from)
{
	struct round *r = ctx;

	(void)from;
	r->acct[cpu].in_remote = true;
}

static int install_acct(struct round *r, unsigned int nr_cpus)
{
	struct tlbgen_trace_ops ops = { .sz = sizeof(ops) };

	r->acct = aligned_alloc(64, sizeof(*r->acct) * nr_cpus);
	if (!r->acct)
		return -ENOMEM;
	memset(r->acct, 0, sizeof(*r->acct) * nr_cpus);
	ops.line_access = acct_line;
	ops.ipi_receive = acct_receive;
	ops.ctx = r;
	return tlbgen_system__set_trace(r->sys, &ops);
}

static void sum_acct(struct round *r, unsigned int nr_cpus, uint64_t *remote, uint64_t *local)
{
	*remote = *local = 0;
	for (unsigned int i = 0; r->acct && i < nr_cpus; i++) {
		*remote += r->acct[i].remote_reads;
		*local += r->acct[i].local_reads;
	}
}

static void *task_main(void *p)
{
	struct task_arg *a = p;
	struct round *r = a->r;
	const struct bench_round_opts *o = r->o;
	struct tlbgen_system *sys = r->sys;
	unsigned int cpu = a->i;
	struct bench_task t = { .sys = sys, .wl = r->wl, .ops = o->ops, .cpu = cpu,
				.tasks = o->tasks, .mode = TLBGEN_MODE_THREADED,
				.processes = o->processes,
				.mm = o->processes ? r->mms[cpu] : r->mms[0],
				.base = o->processes ? 0 : cpu * o->ops->region_pages };
	_Atomic uint64_t *ops = &r->slots[cpu].ops;
	int err;

	if (o->nr_cpus > 0)
		bench_pin_self(o->cpus[cpu % (unsigned int)o->nr_cpus]);
	err = tlbgen_cpu__attach(sys, cpu);
	if (!err)
		err = tlbgen_switch_mm(sys, cpu, t.mm);
	if (!err && o->ops->start)
		err = o->ops->start(&t);
	if (err) {
		atomic_store(&r->err, err);
		atomic_store(&r->stop, 1);
	}
	atomic_fetch_add(&r->ready, 1);
	while (!atomic_load_explicit(&r->start, memory_order_acquire))
		if (!err)
			tlbgen_poll(sys, cpu);

	while (!err && !atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		err = o->ops->op(&t);
		if (err)
			break;
		atomic_store_explicit(ops, ++t.n, memory_order_relaxed);
		/* IRQs are on between iterations: take pending IPIs. */
		tlbgen_poll(sys, cpu);
	}
	if (err < 0) {
		atomic_store(&r->err, err);
		atomic_store(&r->stop, 1);
	}
	/* Stay an IRQ-enabled CPU until every task stopped flushing. */
	atomic_fetch_add(&r->done, 1);
	while (atomic_load(&r->done) < (int)o->tasks) {
		if (tlbgen_poll(sys, cpu) <= 0)
			bench_relax();
	}
	tlbgen_cpu__detach(sys, cpu);
	return NULL;
}

static void sleep_until(uint64_t t)
{
	uint64_t now = bench_now_ns();
	struct timespec ts;

	if (now >= t)
		return;
	ts.tv_sec = (time_t)((t - now) / 1000000000ULL);
	ts.tv_nsec = (long)((t - now) % 1000000000ULL);
	nanosleep(&ts, NULL);
}

/*
 * --invlpgb, threads mode: the tasks' mm gets its global ASID when a flush
 * of CPU 0's task (pid 0) meets jiffies % 32 == 0, and the transition ends
 * a broadcast later. Wait for both (at most 2 s), then take the counters
 * as they are: the timed period counts from there.
 */
static void invlpgb_settle(struct round *r, uint64_t *base)
{
	uint64_t until = bench_now_ns() + 2000000000ULL;
	bool tr = true;

	while (bench_now_ns() < until && !atomic_load(&r->stop) &&
	       (tlbgen_mm__global_asid(r->mms[0], &tr) <= 0 || tr))
		sched_yield();
	tlbgen_stats__system(r->sys, base, TLBGEN_STAT_NR);
}

/* The main thread's side of a round: the tasks' threads and the counts
 * each sample is taken against. */
struct round_main {
	struct round *r;
	pthread_t *th;
	struct task_arg *args;
	uint64_t *last;		/* each task's ops at the previous sample */
	uint64_t base_ops;	/* the ops of the warm-up, not counted */
	unsigned int started, max_samples;
};

/* Everything but the system: 0 or -errno, round_teardown() frees it all. */
static int round_alloc(struct round_main *m, const struct tlbgen_wl_opts *wo,
		       struct bench_round_result *res)
{
	struct round *r = m->r;
	const struct bench_round_opts *o = r->o;
	unsigned int nmm = o->processes ? o->tasks : 1;
	int err;

	r->mms = calloc(nmm, sizeof(*r->mms));
	err = tlbgen_wl__create(r->sys, wo, &r->wl);
	r->slots = aligned_alloc(256, sizeof(*r->slots) * o->tasks);
	m->th = calloc(o->tasks, sizeof(*m->th));
	m->args = calloc(o->tasks, sizeof(*m->args));
	m->last = calloc(o->tasks, sizeof(*m->last));
	res->smin = calloc(m->max_samples, sizeof(uint64_t));
	res->smax = calloc(m->max_samples, sizeof(uint64_t));
	res->stotal = calloc(m->max_samples, sizeof(uint64_t));
	if (err || !r->mms || !r->slots || !m->th || !m->args || !m->last || !res->smin ||
	    !res->smax || !res->stotal)
		return err ? err : -ENOMEM;
	memset(r->slots, 0, sizeof(*r->slots) * o->tasks);
	for (unsigned int i = 0; i < nmm; i++) {
		err = tlbgen_mm__create(r->sys, o->processes ? o->ops->region_pages :
					o->ops->region_pages * o->tasks, &r->mms[i]);
		if (err)
			return err;
	}
	if (o->trace_reads)
		return install_acct(r, o->tasks);
	return 0;
}

/*
 * A thread per task, then the start once every started task is ready:
 * 0, or -EAGAIN when a thread could not be created (the round is then
 * stopped, and m->started says how many run).
 */
static int round_start_tasks(struct round_main *m)
{
	struct round *r = m->r;
	unsigned int tasks = r->o->tasks;
	int err = 0;

	for (; m->started < tasks; m->started++) {
		m->args[m->started] = (struct task_arg){ r, m->started };
		if (pthread_create(&m->th[m->started], NULL, task_main, &m->args[m->started])) {
			err = -EAGAIN;
			atomic_store(&r->stop, 1);
			/* Let the started tasks finish: count the missing ones done. */
			atomic_fetch_add(&r->done, (int)(tasks - m->started));
			break;
		}
	}
	while (atomic_load(&r->ready) < (int)m->started)
		sched_yield();
	atomic_store_explicit(&r->start, 1, memory_order_release);
	return err;
}

/* Warm-up (will-it-scale discards its first iterations): caches, TLBs and
 * the tasks' placement settle; nothing of it is counted but the library's
 * event counters. */
static void round_warmup(struct round_main *m)
{
	const struct bench_round_opts *o = m->r->o;

	sleep_until(bench_now_ns() + (uint64_t)o->warmup_samples *
		    (o->sample_ms ? o->sample_ms : o->duration_ms) * 1000000ULL);
	for (unsigned int i = 0; i < o->tasks; i++) {
		m->last[i] = atomic_load_explicit(&m->r->slots[i].ops, memory_order_relaxed);
		m->base_ops += m->last[i];
	}
}

/* One sample: the slowest and the fastest task's ops since the previous
 * one, and all tasks' total, scaled to a second. */
static void round_take_sample(struct round_main *m, struct bench_round_result *res,
			      double scale)
{
	uint64_t mn = UINT64_MAX, mx = 0, tot = 0;

	for (unsigned int i = 0; i < m->r->o->tasks; i++) {
		uint64_t v = atomic_load_explicit(&m->r->slots[i].ops, memory_order_relaxed);
		uint64_t d = v - m->last[i];

		m->last[i] = v;
		mn = d < mn ? d : mn;
		mx = d > mx ? d : mx;
		tot += d;
	}
	res->smin[res->nr_samples] = (uint64_t)((double)mn * scale);
	res->smax[res->nr_samples] = (uint64_t)((double)mx * scale);
	res->stotal[res->nr_samples] = (uint64_t)((double)tot * scale);
	res->nr_samples++;
}

/* The timed period from t0: a sample every sample_ms until the duration
 * is over or a task stopped the round. */
static void round_sample(struct round_main *m, struct bench_round_result *res, uint64_t t0)
{
	const struct bench_round_opts *o = m->r->o;
	uint64_t next = t0;

	while (!atomic_load(&m->r->stop)) {
		uint64_t end = t0 + (uint64_t)o->duration_ms * 1000000ULL, now;
		double scale;

		next += (uint64_t)(o->sample_ms ? o->sample_ms : o->duration_ms) * 1000000ULL;
		if (next > end)
			next = end;
		sleep_until(next);
		now = bench_now_ns();
		scale = 1e9 / (double)(now - (next - (uint64_t)(o->sample_ms ? o->sample_ms :
					o->duration_ms) * 1000000ULL));
		if (res->nr_samples < m->max_samples)
			round_take_sample(m, res, scale);
		if (now >= end)
			break;
	}
}

/* The round's totals once every task is joined: its ops past the warm-up
 * and the library's counters past base_stats. */
static void round_collect(struct round_main *m, struct bench_round_result *res,
			  const uint64_t *base_stats)
{
	struct round *r = m->r;
	const struct bench_round_opts *o = r->o;

	for (unsigned int i = 0; i < o->tasks; i++)
		res->ops += atomic_load(&r->slots[i].ops);
	res->ops -= m->base_ops;
	res->ops_per_sec = res->seconds > 0 ? (double)res->ops / res->seconds : 0;
	tlbgen_stats__system(r->sys, res->stats, TLBGEN_STAT_NR);
	for (int i = 0; i < TLBGEN_STAT_NR; i++)
		res->stats[i] -= base_stats[i];
	if (o->invlpgb && !o->processes)
		res->global_asid = tlbgen_mm__global_asid(r->mms[0], NULL);
	res->violations = o->trace_reads ? tlbgen_oracle__violations(r->sys) : 0;
	sum_acct(r, o->tasks, &res->remote_reads, &res->local_reads);
}

static void round_teardown(struct round_main *m)
{
	struct round *r = m->r;

	if (r->sys) {
		tlbgen_system__set_trace(r->sys, NULL);
		tlbgen_system__destroy(r->sys);
	}
	tlbgen_wl__destroy(r->wl);
	free(r->acct);
	free(r->mms);
	free(r->slots);
	free(m->th);
	free(m->args);
	free(m->last);
}

int bench_round_run(const struct bench_round_opts *o, struct bench_round_result *res)
{
	/*
	 * Timed rounds run without the oracle: its per-mm sequence word is a
	 * line the kernel does not have, RMW'd by every PTE change and read by
	 * every flush, and it blurred the very tlb_gen traffic being compared.
	 * The accounting pass keeps it and reports the violations. With no
	 * oracle there is no simulated TLB, so the tasks skip their accesses.
	 */
	TLBGEN_OPTS(tlbgen_system_opts, so, .nr_cpus = o->tasks, .mode = TLBGEN_MODE_THREADED,
		    .profile = o->profile, .invlpgb = o->invlpgb, .no_pcid = o->no_pcid,
		    .flags = o->trace_reads ? 0 : TLBGEN_SYS_NO_ORACLE);
	TLBGEN_OPTS(tlbgen_wl_opts, wo, .kwork = o->trace_reads ? NULL : o->kwork);
	uint64_t base_stats[TLBGEN_STAT_NR] = { 0 };
	struct round r = { .o = o };
	struct round_main m = {
		.r = &r, .max_samples = o->sample_ms ? o->duration_ms / o->sample_ms + 2 : 1,
	};
	uint64_t idle0, tot0, idle1, tot1, t0, t1;
	int err;

	memset(res, 0, sizeof(*res));
	err = tlbgen_system__create(&so, &r.sys);
	if (err)
		return err;
	err = round_alloc(&m, &wo, res);
	if (err)
		goto out;
	if (o->hw)
		bench_hw_start(o->hw, &res->hw);
	err = round_start_tasks(&m);
	if (o->warmup_samples)
		round_warmup(&m);
	if (o->invlpgb && !o->processes && o->tasks >= 4 &&
	    strcmp(tlbgen_system__get_choice(r.sys, "invlpgb"), "off"))
		invlpgb_settle(&r, base_stats);
	bench_proc_stat(&idle0, &tot0);
	t0 = bench_now_ns();
	round_sample(&m, res, t0);
	atomic_store(&r.stop, 1);
	t1 = bench_now_ns();
	bench_proc_stat(&idle1, &tot1);
	for (unsigned int i = 0; i < m.started; i++)
		pthread_join(m.th[i], NULL);
	if (o->hw)
		bench_hw_stop(&res->hw);
	if (!err)
		err = atomic_load(&r.err);
	res->seconds = (double)(t1 - t0) / 1e9;
	res->idle_pct = tot1 > tot0 ? 100.0 * (double)(idle1 - idle0) / (double)(tot1 - tot0) : 0;
	round_collect(&m, res, base_stats);
out:
	round_teardown(&m);
	if (err)
		bench_round_result_free(res);
	return err;
}

void bench_round_result_free(struct bench_round_result *r)
{
	free(r->smin);
	free(r->smax);
	free(r->stotal);
	r->smin = r->smax = r->stotal = NULL;
	r->nr_samples = 0;
}
