// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay.c - drive a rebuilt run through the library under a
 * profile and a machine, and match the model's decisions against the
 * recorded ones, step by step (replay.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay-internal.h"

/* Ranges past the ceiling (33 strides) trace as TLB_FLUSH_ALL; 1024 pages
 * hold one 2 MiB stride and a page, the largest partial range seen. */
#define MM_PAGES	1024

/* The newest built-in "vX.Y" profile at or below the kernel's version. */
static void pick_profile(struct replay_info *in)
{
	const char *names[256];
	int n = tlbgen_profile_names(names, 256);
	unsigned int best[2] = { 0, 0 };

	snprintf(in->profile, sizeof(in->profile), "latest");
	for (int i = 0; i < n && i < 256; i++) {
		unsigned int maj, min;
		int end = 0;

		if (sscanf(names[i], "v%u.%u%n", &maj, &min, &end) != 2 || names[i][end])
			continue;
		if (maj > in->version[0] || (maj == in->version[0] && min > in->version[1]))
			continue;
		if (maj > best[0] || (maj == best[0] && min >= best[1])) {
			best[0] = maj;
			best[1] = min;
			snprintf(in->profile, sizeof(in->profile), "%s", names[i]);
		}
	}
}

int replay_trace_open(const char *path, struct replay_trace **out, char *err, size_t errlen)
{
	struct replay_trace *t;
	int ret;

	if (!path || !out || !err || !errlen)
		return -EINVAL;
	err[0] = 0;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	ret = replay__read(t, path, err, errlen);
	if (!ret)
		ret = replay__infer_groups(t);
	if (!ret)
		ret = replay__build(t, err, errlen);
	if (!ret)
		replay__infer_machine(t);
	if (ret) {
		replay_trace_free(t);
		return ret;
	}
	pick_profile(&t->info);
	*out = t;
	return 0;
}

void replay_trace_free(struct replay_trace *t)
{
	if (!t)
		return;
	free(t->ev);
	free(t->st);
	free(t->dec);
	free(t->mm);
	free(t->seed);
	free(t->snap);
	free(t->comm);
	free(t);
}

const struct replay_info *replay_trace_info(const struct replay_trace *t)
{
	return t ? &t->info : NULL;
}

/* ---- a run ---------------------------------------------------------------------------- */

struct run {
	const struct replay_trace *t;
	struct tlbgen_system *sys;
	struct tlbgen_mm **mm;		/* [nr_mm], NULL until used or after destruction */
	struct tlbgen_tlbbatch *batch;	/* arch_tlbbatch_flush() requests */
	uint8_t *dead;			/* [nr_mm] exit_mmap() done: destroy when free */
	uint32_t *cur;			/* [nr_cpus] step each CPU is at */
	struct pdec *pd;
	size_t nr_pd, cap_pd;
	uint64_t now_ns;		/* stepped: the trace time, for jiffies */
	unsigned int hz;
	uint64_t flushes;
	int err;
	bool kvm;			/* pv_flush_tlb_multi kvm: preempted vCPUs are flagged */
	unsigned int deliver_cpu;	/* stepped: the CPU an IPI is delivered to, ~0 none */
	uint32_t deliver_step;		/* ... for this step's flush */
	double mhz;
	struct replay_model_timing timing;	/* virtual mode */
};

static void on_decision(void *ctx, const struct tlbgen_flush_decision *d)
{
	struct run *r = ctx;
	uint32_t step = r->cur[d->initiator];
	struct pdec *p;

	if (replay__grow((void **)&r->pd, &r->cap_pd, r->nr_pd, sizeof(*r->pd))) {
		r->err = -ENOMEM;
		return;
	}
	p = &r->pd[r->nr_pd];
	/* A lazy target's switch to init_mm in flush_tlb_func() is its own
	 * decision, made for the flush it was delivered. */
	if (d->cpu == r->deliver_cpu && d->initiator == d->cpu)
		step = r->deliver_step;
	*p = (struct pdec){ .step = step, .seq = (uint32_t)r->nr_pd,
			    .cpu = (uint16_t)d->cpu, .reason = (uint8_t)d->reason,
			    .pages = d->pages == TLBGEN_TLB_FLUSH_ALL ? -1 : (long)d->pages };
	r->nr_pd++;
	replay__timing_decision(&r->timing, d);
}

static uint64_t replay_jiffies(void *ctx)
{
	const struct run *r = ctx;

	return r->now_ns / 1000000000ULL * r->hz + r->now_ns % 1000000000ULL * r->hz / 1000000000ULL;
}

static struct tlbgen_mm *get_mm(struct run *r, int32_t id)
{
	if (id < 0)
		return NULL;
	if (!r->mm[id] && tlbgen_mm__create(r->sys, MM_PAGES, &r->mm[id]))
		r->err = -ENOMEM;
	return r->mm[id];
}

/* Destroy the dead mms no CPU holds any more (their bits may linger). */
static void reap(struct run *r)
{
	for (size_t i = 0; i < r->t->nr_mm; i++)
		if (r->dead[i] && r->mm[i] && !tlbgen_mm__destroy(r->mm[i])) {
			r->mm[i] = NULL;
			r->dead[i] = 0;
		}
}

static void do_step(struct run *r, const struct step *s)
{
	struct tlbgen_mm *mm;
	unsigned int c = s->cpu;

	switch (s->kind) {
	case ST_SWITCH:
		mm = get_mm(r, s->mm);
		if (mm || s->mm < 0)
			tlbgen_switch_mm(r->sys, c, mm);
		break;
	case ST_LAZY:
		tlbgen_enter_lazy_tlb(r->sys, c);
		break;
	case ST_LEAVE:
		tlbgen_leave_mm(r->sys, c);
		break;
	case ST_FLUSH:
		mm = get_mm(r, s->mm);
		if (!mm)
			break;
		r->flushes++;
		if (s->batch) {
			/* Reclaim batched it earlier (arch_tlbbatch_add_pending(),
			 * untraced): add the mm now and flush the batch. */
			if (!r->batch && tlbgen_tlbbatch__create(r->sys, &r->batch))
				r->err = -ENOMEM;
			else if (!tlbgen_arch_tlbbatch_add_pending(r->sys, c, r->batch, mm, 0,
								   TLBGEN_PAGE_SIZE))
				tlbgen_arch_tlbbatch_flush(r->sys, c, r->batch);
		} else if (s->pages < 0 || s->pages > MM_PAGES) {
			tlbgen_flush_tlb_mm_range(r->sys, c, mm, 0, TLBGEN_TLB_FLUSH_ALL,
						  TLBGEN_PAGE_SHIFT, s->freed);
		} else {
			tlbgen_flush_tlb_mm_range(r->sys, c, mm, 0,
						  (unsigned long)s->pages << TLBGEN_PAGE_SHIFT,
						  s->stride, s->freed);
		}
		break;
	case ST_MM_DEAD:
		if (s->mm >= 0)
			r->dead[s->mm] = 1;
		break;
	default:
		break;
	}
	if (s->kind == ST_SWITCH || s->kind == ST_LAZY || s->kind == ST_LEAVE ||
	    s->kind == ST_MM_DEAD)
		reap(r);
}

static int seed(struct run *r)
{
	const struct replay_trace *t = r->t;
	unsigned int n = t->info.nr_cpus;
	uint64_t *all = calloc((n + 63) / 64, sizeof(uint64_t));
	int ret = 0;

	if (!all)
		return -ENOMEM;
	for (unsigned int c = 0; c < n; c++)
		all[c / 64] |= 1ULL << (c % 64);
	/* Every pre-existing mm at generation 1; one flushed to other CPUs
	 * first was in every CPU's mask (none is trimmed remotely here). */
	for (size_t i = 0; i < t->nr_mm && !ret; i++) {
		bool in_seed = false;

		for (unsigned int c = 0; c < n; c++)
			in_seed |= t->seed[c].mm == (int32_t)i;
		if (!t->mm[i].preexisting || (!in_seed && t->mm[i].first_remote != 2))
			continue;
		TLBGEN_OPTS(tlbgen_mm_seed_opts, o, .tlb_gen = 1,
			    .cpumask = t->mm[i].first_remote == 2 ? all : NULL,
			    .nr_bits = t->mm[i].first_remote == 2 ? n : 0);
		ret = get_mm(r, (int32_t)i) ? tlbgen_mm__seed(r->mm[i], &o) : -ENOMEM;
	}
	for (unsigned int c = 0; c < n && !ret; c++) {
		TLBGEN_OPTS(tlbgen_cpu_seed_opts, o, .loaded_mm = get_mm(r, t->seed[c].mm),
			    .is_lazy = t->seed[c].lazy, .tlb_gen = t->seed[c].mm >= 0 ? 1 : 0);
		ret = tlbgen_cpu__seed(r->sys, c, &o);
	}
	free(all);
	return ret;
}

/*
 * Each IPI reaches its target when the trace shows the target taking it
 * (replay-deliver.c); one the trace never shows taken, right after its
 * flush. An initiator still waiting has its calls delivered before its
 * next operation: the kernel's returned only once they were taken. A CPU
 * about to flush takes the calls queued on it first: the kernel's takes
 * them at the latest when IRQs are on between its sends and its local
 * call, a point a stepped flush, run whole, has no room for. Each delivery
 * runs one initiator's call only (tlbgen_deliver_from()), and what the
 * target decides there is dated to that initiator's flush.
 */
static void deliver(struct run *r, unsigned int cpu, unsigned int src, uint32_t step)
{
	if (cpu == src)
		return;
	r->deliver_cpu = cpu;
	r->deliver_step = step;
	(void)tlbgen_deliver_from(r->sys, cpu, src);	/* -ENOENT: the model queued none */
	r->deliver_cpu = ~0u;
}

static void deliver_all_from(struct run *r, unsigned int src)
{
	for (unsigned int c = 0; c < r->t->info.nr_cpus; c++)
		deliver(r, c, src, r->cur[src]);
}

static void deliver_all_to(struct run *r, unsigned int cpu)
{
	for (unsigned int src = 0; src < r->t->info.nr_cpus; src++)
		deliver(r, cpu, src, r->cur[src]);
}

static int run_stepped(struct run *r)
{
	const struct replay_trace *t = r->t;
	struct replay_delivery *dl = NULL;
	size_t nr_dl = 0, next = 0;
	int ret = replay__deliveries(t, &dl, &nr_dl);

	for (size_t i = 0; i < t->nr_st && !ret && !r->err; i++) {
		const struct step *s = &t->st[i];
		uint64_t flagged;

		/* Dated deliveries up to now; one dated before its own flush
		 * (clocks of two CPUs a little apart) waits for that flush. */
		for (; next < nr_dl && dl[next].ts <= s->ts && dl[next].step < i; next++)
			deliver(r, dl[next].cpu, t->st[dl[next].step].cpu, dl[next].step);
		if (tlbgen_cpu__is_waiting(r->sys, s->cpu) == 1)
			deliver_all_from(r, s->cpu);
		if (tlbgen_cpu__is_waiting(r->sys, s->cpu) == 1)
			tlbgen_run_until_idle(r->sys);
		if (s->kind == ST_FLUSH && tlbgen_cpu__ipi_pending(r->sys, s->cpu) == 1)
			deliver_all_to(r, s->cpu);
		r->cur[s->cpu] = (uint32_t)i;
		r->now_ns = s->ts;
		flagged = r->kvm ? replay__preempt_unqueued(r->sys, t, s) : 0;
		do_step(r, s);
		replay__resume_flagged(r->sys, flagged);
		if (s->kind == ST_FLUSH)
			for (unsigned int c = 0; c < t->info.nr_cpus; c++)
				if (!replay__delivery_recorded(t, (uint32_t)i, c))
					deliver(r, c, s->cpu, (uint32_t)i);
	}
	if (!ret)
		tlbgen_run_until_idle(r->sys);
	free(dl);
	return ret ? ret : r->err;
}

/* Virtual mode: each CPU replays its own steps at their recorded times. */
static int cpu_program(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct run *r = arg;
	const struct replay_trace *t = r->t;

	for (size_t i = 0; i < t->nr_st && !r->err; i++) {
		const struct step *s = &t->st[i];
		uint64_t now, at = (uint64_t)((double)s->ts * r->mhz / 1000.0);

		if (s->cpu != cpu)
			continue;
		if (!tlbgen_vtime__now(sys, cpu, &now) && now < at)
			tlbgen_vtime__spend(sys, cpu, at - now);
		r->cur[cpu] = (uint32_t)i;
		do_step(r, s);
	}
	return 0;
}

static int run_virtual(struct run *r)
{
	for (unsigned int c = 0; c < r->t->info.nr_cpus; c++)
		if (tlbgen_cpu__spawn(r->sys, c, cpu_program, r))
			return -EINVAL;
	if (tlbgen_vtime__run(r->sys, UINT64_MAX))
		return -EDEADLK;
	return r->err;
}

static int make_system(struct run *r, const struct replay_opts *o, const struct replay_machine *m,
		       const char *profile, struct tlbgen_clock *clk, struct tlbgen_machine *vm)
{
	int ret;

	if (o->mode == TLBGEN_MODE_VIRTUAL) {
		ret = tlbgen_machine_lookup(m->cost, vm);
		if (ret)
			return ret;
		r->mhz = vm->mhz;
	}
	TLBGEN_OPTS(tlbgen_system_opts, so, .nr_cpus = r->t->info.nr_cpus, .mode = o->mode,
		    .profile = profile, .seed = 1, .flags = TLBGEN_SYS_NO_ORACLE,
		    .clock = o->mode == TLBGEN_MODE_STEPPED ? clk : NULL,
		    .machine = o->mode == TLBGEN_MODE_VIRTUAL ? vm : NULL,
		    .invlpgb = m->invlpgb, .no_pcid = !m->pcid);
	ret = tlbgen_system__create(&so, &r->sys);
	if (ret)
		return ret;
	r->kvm = !strcmp(m->pv, "kvm");
	return tlbgen_system__set_choice(r->sys, "pv_flush_tlb_multi", m->pv);
}

/* The recorded remote flushes' durations and, in virtual mode, the model's. */
static int timing(const struct replay_trace *t, struct replay_model_timing *mt,
		  struct replay_result *res)
{
	double *ns;
	size_t n;
	int err = replay__timing_recorded(t, &ns, &n);

	if (err)
		return err;
	replay__timing_summary(ns, n, &res->recorded_remote);
	free(ns);
	replay__timing_summary(mt->ns, mt->n, &res->model_remote);
	return 0;
}

static void fill_costs(struct run *r, struct replay_result *res, enum tlbgen_mode mode)
{
	uint64_t st[TLBGEN_STAT_NR];

	tlbgen_stats__system(r->sys, st, TLBGEN_STAT_NR);
	res->flush_requests = r->flushes;
	res->ipis = st[TLBGEN_STAT_IPI_SENT];
	res->hypercall_targets = st[TLBGEN_STAT_IPI_AVOIDED];
	res->pv_flagged = st[TLBGEN_STAT_PV_FLUSH_DEFERRED];
	res->switch_flushes = st[TLBGEN_STAT_SWITCH_MM_FLUSH];
	res->full_flushes = st[TLBGEN_STAT_FULL_FLUSH];
	res->partial_flushes = st[TLBGEN_STAT_PARTIAL_FLUSH];
	res->remote_flush_funcs = st[TLBGEN_STAT_FLUSH_FUNC_REMOTE];
	res->warns = (uint64_t)tlbgen_system__warns(r->sys);
	if (mode == TLBGEN_MODE_VIRTUAL) {
		struct tlbgen_vtime_stats vs = { .sz = sizeof(vs) };
		uint64_t cyc = 0;

		tlbgen_vtime__stats(r->sys, &vs);
		for (int k = 0; k < TLBGEN_VT_TIME_NR; k++)
			if (k != TLBGEN_VT_TIME_WORK && k != TLBGEN_VT_TIME_IDLE)
				cyc += vs.time[k];
		res->flush_cpu_us = (double)cyc / r->mhz;
	}
}

int replay_run(const struct replay_trace *t, const struct replay_opts *o,
	       struct replay_result **out)
{
	struct run r = { .t = t, .deliver_cpu = ~0u, .hz = t && t->info.hz ? t->info.hz : 250 };
	struct tlbgen_clock clk = { .jiffies = replay_jiffies, .ctx = &r, .hz = r.hz };
	struct tlbgen_machine vm;
	struct replay_result *res;
	struct replay_machine m;
	struct timespec t0, t1;
	const char *profile;
	int ret;

	if (!t || !o || !out || o->sz < sizeof(size_t) || o->sz > sizeof(*o) ||
	    (o->mode != TLBGEN_MODE_STEPPED && o->mode != TLBGEN_MODE_VIRTUAL))
		return -EINVAL;
	ret = replay__parse_machine(&t->info, o->machine, o->mode, &m);
	if (ret)
		return ret;
	profile = o->profile ? o->profile : t->info.profile;
	res = calloc(1, sizeof(*res));
	r.mm = calloc(t->nr_mm + 1, sizeof(*r.mm));
	r.dead = calloc(t->nr_mm + 1, 1);
	r.cur = calloc(t->info.nr_cpus, sizeof(*r.cur));
	if (!res || !r.mm || !r.dead || !r.cur) {
		ret = -ENOMEM;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = make_system(&r, o, &m, profile, &clk, &vm);
	if (ret)
		goto out;
	TLBGEN_OPTS(tlbgen_decision_ops, ops, .decision = on_decision, .ctx = &r);
	ret = seed(&r);
	if (!ret)
		ret = tlbgen_system__set_decision_hook(r.sys, &ops);
	TLBGEN_OPTS(tlbgen_trace_ops, hooks, .ipi_receive = replay__timing_receive, .ctx = &r.timing);
	if (!ret && o->mode == TLBGEN_MODE_VIRTUAL)
		ret = replay__timing_init(&r.timing, r.sys, t->info.nr_cpus, r.mhz) ?:
		      tlbgen_system__set_flush_done(r.sys, replay__timing_done, &r.timing) ?:
		      tlbgen_system__set_trace(r.sys, &hooks);
	if (!ret)
		ret = o->mode == TLBGEN_MODE_VIRTUAL ? run_virtual(&r) : run_stepped(&r);
	if (!ret)
		ret = r.timing.err ?: timing(t, &r.timing, res);
	if (ret)
		goto out;
	snprintf(res->profile, sizeof(res->profile), "%s", profile);
	snprintf(res->machine, sizeof(res->machine), "%s", m.desc);
	res->nr_cpus = t->info.nr_cpus;
	if (o->mode == TLBGEN_MODE_VIRTUAL) {
		res->model_ipi_send_ns = vm.ipi_send * 1e3 / vm.mhz;
		res->model_ipi_latency_ns = vm.ipi_latency * 1e3 / vm.mhz;
	}
	fill_costs(&r, res, o->mode);
	ret = replay__match(t, r.pd, r.nr_pd, o, res);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
out:
	if (r.batch)
		tlbgen_tlbbatch__destroy(r.batch);
	if (r.sys) {
		tlbgen_system__set_decision_hook(r.sys, NULL);
		tlbgen_system__destroy(r.sys);
	}
	free(r.mm);
	free(r.dead);
	free(r.cur);
	free(r.pd);
	replay__timing_free(&r.timing);
	if (ret) {
		if (ret == -ENOENT || ret == -EINVAL)
			fprintf(stderr, "replay: cannot replay under profile '%s', machine '%s' (%s)\n",
				profile, o->machine ? o->machine : "recorded", strerror(-ret));
		replay_result_free(res);
		return ret;
	}
	*out = res;
	return 0;
}

void replay_result_free(struct replay_result *r)
{
	if (!r)
		return;
	free(r->per_cpu);
	free(r->mismatches);
	free(r->classes);
	free(r);
}
