// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/tso/tso_exec.c - one execution of a memory-model scenario on the
 * virtual mode: a fresh system, the scenario's setup, its programs under
 * the chooser (every scheduling point and store-buffer drain a pick), the
 * oracle's verdict; and the trace of one execution in kernel terms.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tso_run.h"

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* "mm ctx N" of the library's notes as the configuration's names. */
static void name_mms(const struct txrun *r, const char *in, char *out, size_t len)
{
	char a[32], b[32];
	const char *p;
	size_t o = 0;

	snprintf(a, sizeof(a), "mm ctx %" PRIu64, tlbgen_mm__ctx_id(r->mm_a));
	snprintf(b, sizeof(b), "mm ctx %" PRIu64, tlbgen_mm__ctx_id(r->mm_b));
	while (*in && o + 1 < len) {
		if ((p = strstr(in, a)) == in || (p = strstr(in, b)) == in) {
			o += (size_t)snprintf(out + o, len - o, "%s",
					      !strncmp(in, a, strlen(a)) ? "mm A" : "mm B");
			in += strlen(!strncmp(in, a, strlen(a)) ? a : b);
			if (o >= len)
				o = len - 1;
			continue;
		}
		out[o++] = *in++;
	}
	out[o] = 0;
}

static void on_note(void *ctx, unsigned int cpu, const char *what)
{
	struct txrun *r = ctx;
	char buf[200];

	if (!r->record)
		return;
	name_mms(r, what, buf, sizeof(buf));
	tx_ev_add(r, cpu, false, buf);
	if (cpu == 0 && strstr(buf, "reads CPU1's cpu_tlbstate.loaded_mm = ")) {
		const char *v = strstr(buf, " = ") + 3;
		const char *h = strstr(buf, " still holds ");

		snprintf(r->read_loaded, sizeof(r->read_loaded), "%.*s",
			 (int)strcspn(v, " "), v);
		if (!strncmp(r->read_loaded, "mm", 2))
			snprintf(r->read_loaded, sizeof(r->read_loaded), "%.4s", v);
		snprintf(r->held, sizeof(r->held), "%s", h ? h + 13 : "");
	}
	if (strstr(buf, "sends CPU1 no IPI"))
		r->skipped = true;
	if (cpu == 0 && strstr(buf, "CPU1's cpu_tlbstate_shared.is_lazy = true from memory while"))
		r->lazy_held = true;
}

static unsigned int on_choose(void *ctx, unsigned int running, const struct tlbgen_vt_option *o,
			      unsigned int n)
{
	struct txrun *r = ctx;
	unsigned int i = r->npoints, pick = 0;
	char buf[200];

	if (i >= TX_MAX_POINTS) {
		/* Past the recorded horizon: the default, and the search says
		 * it did not cover this execution's tail. */
		r->horizon = true;
		return 0;
	}
	switch (r->plan) {
	case PLAN_PREFIX:
		pick = i < r->nprefix ? r->prefix[i] : 0;
		break;
	case PLAN_SPARSE:
		for (size_t d = 0; d < r->ndevs; d++)
			if (r->devs[d].point == i)
				pick = r->devs[d].pick;
		break;
	case PLAN_RANDOM:
		if (n > 1 && rnd(&r->rng) % 8 == 0)
			pick = 1 + (unsigned int)(rnd(&r->rng) % (n - 1));
		break;
	}
	if (pick >= n)
		pick = 0;
	r->n[i] = (uint16_t)n;
	r->c[i] = (uint16_t)pick;
	r->npoints++;
	if (pick && r->record) {
		if (o[pick].kind == TLBGEN_VT_DRAIN)
			snprintf(buf, sizeof(buf), "[pick %u:%u] CPU%u's oldest buffered store "
				 "commits now", i, pick, o[pick].cpu);
		else if (running < 2)
			snprintf(buf, sizeof(buf), "[pick %u:%u] CPU%u runs; CPU%u is preempted",
				 i, pick, o[pick].cpu, running);
		else
			snprintf(buf, sizeof(buf), "[pick %u:%u] CPU%u runs first", i, pick,
				 o[pick].cpu);
		tx_ev_add(r, o[pick].cpu, true, buf);
	}
	return pick;
}

static void on_ipi_send(void *ctx, unsigned int from, unsigned int to)
{
	struct txrun *r = ctx;
	char buf[96];

	snprintf(buf, sizeof(buf), "CPU%u sends CPU%u the flush IPI", from, to);
	tx_ev_add(r, from, false, buf);
}

static void on_line(void *ctx, unsigned int cpu, enum tlbgen_line line, uintptr_t id,
		    enum tlbgen_access_op op)
{
	struct txrun *r = ctx;

	(void)id;
	/* switch_mm_irqs_off() runs with IRQs off: no flush IPI's reads. */
	if (cpu == 1 && r->in_switch && line == TLBGEN_LINE_MM_TLB_GEN && op == TLBGEN_OP_READ)
		tx_ev_add(r, cpu, false, "CPU1 reads mm A's tlb_gen (choose_new_asid() decides on it)");
}

static void on_flush(void *ctx, unsigned int cpu, enum tlbgen_flush_kind kind,
		     unsigned long pages)
{
	struct txrun *r = ctx;
	char buf[96];

	(void)pages;
	if (kind != TLBGEN_FLUSH_KIND_SWITCH || !r->record || cpu != 1)
		return;
	snprintf(buf, sizeof(buf), "CPU%u's switch_mm() saw a newer tlb_gen: flushing CR3 write",
		 cpu);
	r->switch_flushed = true;
	tx_ev_add(r, cpu, false, buf);
}

/* ---- one execution ------------------------------------------------------------------------ */

/* The CPUs' programs (NULL: idle), until every one returned. */
static int run_programs(struct txrun *r, const tlbgen_cpu_fn *fn)
{
	unsigned int nr = r->scen->nr_cpus;
	int err = 0, ret[TX_MAX_CPUS] = { 0 };

	for (unsigned int i = 0; !err && i < nr; i++)
		if (fn[i])
			err = tlbgen_cpu__spawn(r->sys, i, fn[i], r);
	err = err ?: tlbgen_vtime__run(r->sys, UINT64_MAX);
	for (unsigned int i = 0; !err && i < nr; i++)
		if (fn[i])
			err = tlbgen_cpu__join(r->sys, i, &ret[i]);
	for (unsigned int i = 0; !err && i < nr; i++)
		err = ret[i];
	return err;
}

int tx_exec(struct txrun *r)
{
	const struct txcfg *cfg = r->cfg;
	struct tlbgen_trace_ops tops = {
		.sz = sizeof(tops), .line_access = on_line, .ipi_send = on_ipi_send,
		.flush = on_flush, .ctx = r,
	};
	struct tlbgen_vt_chooser ch = {
		.sz = sizeof(ch), .choose = on_choose, .note = on_note, .ctx = r,
	};
	struct tlbgen_system_opts o = {
		.sz = sizeof(o), .nr_cpus = r->scen->nr_cpus, .mode = TLBGEN_MODE_VIRTUAL,
		.profile = cfg->profile, .seed = cfg->seed, .invlpgb = r->scen->invlpgb,
		/* A few pages per mm: a small TLB holds them, and is quick to make. */
		.tlb_sets = 8, .tlb_ways = 4,
	};
	int err;

	r->npoints = 0;
	r->horizon = false;
	r->nev = 0;
	r->flushes_done = 0;
	r->violations = 0;
	r->msg[0] = 0;
	r->read_loaded[0] = r->held[0] = 0;
	r->skipped = r->switch_flushed = r->lazy_held = false;
	err = tlbgen_system__create(&o, &r->sys);
	if (err) {
		snprintf(r->msg, sizeof(r->msg), "cannot create a system of profile '%s': %s",
			 cfg->profile, strerror(-err));
		return err;
	}
	if (cfg->choices && (err = tlbgen_system__set_choices(r->sys, cfg->choices))) {
		snprintf(r->msg, sizeof(r->msg), "bad --choices '%s': %s", cfg->choices,
			 strerror(-err));
		goto out;
	}
	snprintf(r->barrier, sizeof(r->barrier), "%s",
		 tlbgen_system__get_choice(r->sys, "switch_mm_barrier") ?: "?");
	snprintf(r->switching, sizeof(r->switching), "%s",
		 tlbgen_system__get_choice(r->sys, "loaded_mm_switching") ?: "?");
	snprintf(r->sw_write, sizeof(r->sw_write), "%s",
		 tlbgen_system__get_choice(r->sys, "switching_write") ?: "?");
	err = tlbgen_vtime__set_memory_model(r->sys, cfg->model);
	err = err ?: tlbgen_mm__create(r->sys, 16, &r->mm_a);
	err = err ?: tlbgen_mm__create(r->sys, 16, &r->mm_b);
	err = err ?: tlbgen_tlbbatch__create(r->sys, &r->batch);
	err = err ?: run_programs(r, r->scen->setup);
	if (err) {
		snprintf(r->msg, sizeof(r->msg), "setup failed: %s", strerror(err < 0 ? -err : EIO));
		goto out;
	}
	err = tlbgen_system__set_trace(r->sys, &tops);
	err = err ?: tlbgen_vtime__set_chooser(r->sys, &ch);
	err = err ?: run_programs(r, r->scen->prog);
	if (err) {
		snprintf(r->msg, sizeof(r->msg), "an operation failed: %s",
			 strerror(err < 0 ? -err : EIO));
		goto out;
	}
	r->violations = tlbgen_oracle__violations(r->sys);
	if (r->violations > 0) {
		struct tlbgen_violation v;

		if (!tlbgen_oracle__violation(r->sys, 0, &v))
			tlbgen_oracle__format(&v, r->msg, sizeof(r->msg));
	} else if (tlbgen_system__warns(r->sys) > 0) {
		snprintf(r->msg, sizeof(r->msg), "a kernel WARN condition was hit");
		r->violations = 1;
	}
out:
	tlbgen_vtime__set_chooser(r->sys, NULL);
	tlbgen_system__set_trace(r->sys, NULL);
	if (r->batch)
		tlbgen_tlbbatch__destroy(r->batch);
	tlbgen_system__destroy(r->sys);
	r->sys = NULL;
	r->batch = NULL;
	r->mm_a = r->mm_b = NULL;
	if (err)
		return err < 0 ? err : -EIO;
	return r->violations > 0;
}

/* ---- the trace --------------------------------------------------------------------------------- */

unsigned int tx_print_trace(FILE *out, const struct txcfg *cfg, const struct txdev *devs,
			    size_t n)
{
	struct txrun *r = calloc(1, sizeof(*r));
	unsigned int k = 0;
	int ret;

	if (!r)
		return 0;
	r->cfg = cfg;
	r->scen = tx_scen_find(cfg->scenario);
	if (!r->scen) {
		fprintf(out, "no scenario '%s'\n", cfg->scenario);
		free(r);
		return 0;
	}
	r->record = true;
	r->plan = PLAN_SPARSE;
	r->devs = devs;
	r->ndevs = n;
	ret = tx_exec(r);
	fprintf(out, "scenario %s: %s\nsetup: %s\n", r->scen->name, r->scen->what,
		r->scen->setup_text);
	for (unsigned int i = 0, returned = 0; i < r->nev; i++) {
		const struct txev *e = &r->ev[i];

		/* Stores and commits once the flush returned, and those at the
		 * end of the story, explain nothing. */
		if (returned && (strstr(e->text, " reaches memory (") ||
				 strstr(e->text, ": it waits in CPU")))
			continue;
		returned |= strstr(e->text, "() returned") != NULL;
		if (strstr(e->text, "reaches memory (the CPU sleeps)") ||
		    strstr(e->text, "reaches memory (the system went idle)") ||
		    (strstr(e->text, "is_lazy = false reaches memory")))
			continue;
		fprintf(out, "%3u. %s\n", ++k, e->text);
	}
	if (ret > 0) {
		fprintf(out, "oracle: %s\n", r->msg);
		if (r->scen->explain)
			r->scen->explain(out, r);
	} else {
		fprintf(out, "no violation in this execution%s%s\n", ret < 0 ? ": " : "",
			ret < 0 ? r->msg : "");
	}
	free(r);
	return k;
}
