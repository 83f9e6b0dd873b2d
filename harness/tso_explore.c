// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/tso_explore.c - schedule and store-buffer exploration of the
 * switch_mm_irqs_off() / flush_tlb_mm_range() race on the virtual mode
 * (see tso_explore.h for the configuration and the search).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tso_explore.h"

#define TX_PAGE		(5UL << TLBGEN_PAGE_SHIFT)	/* page P */
#define TX_WAIT		1000000				/* CPU 1's wait for the flush, cycles */
#define TX_MAX_EVENTS	96

enum txplan_kind { PLAN_PREFIX, PLAN_SPARSE, PLAN_RANDOM };

struct txev {
	unsigned int cpu;
	bool deviation;
	char text[200];
};

/* One execution: how picks are made, and what was picked. */
struct txrun {
	const struct txcfg *cfg;
	enum txplan_kind plan;
	const uint16_t *prefix;		/* PLAN_PREFIX */
	size_t nprefix;
	const struct txdev *devs;	/* PLAN_SPARSE */
	size_t ndevs;
	uint64_t rng;			/* PLAN_RANDOM */

	unsigned int npoints;
	uint16_t n[TX_MAX_POINTS], c[TX_MAX_POINTS];

	bool record;			/* keep events for a trace */
	unsigned int nev;
	struct txev ev[TX_MAX_EVENTS];

	struct tlbgen_system *sys;
	struct tlbgen_mm *mm_a, *mm_b;
	bool flush_done, in_switch;
	long violations;
	char msg[512];

	/* For the explanation: the policy's choices, what the flusher read. */
	char barrier[16], switching[16], sw_write[16];
	char read_loaded[48], held[48];	/* CPU1's loaded_mm as CPU0 read it; buffered */
	bool skipped;			/* should_flush_tlb() skipped CPU1 */
	bool switch_flushed;		/* CPU1's switch_mm() flushed */
};

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void ev_add(struct txrun *r, unsigned int cpu, bool dev, const char *text)
{
	struct txev *e;

	if (!r->record || r->nev == TX_MAX_EVENTS)
		return;
	e = &r->ev[r->nev++];
	e->cpu = cpu;
	e->deviation = dev;
	snprintf(e->text, sizeof(e->text), "%s", text);
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
	ev_add(r, cpu, false, buf);
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
}

static unsigned int on_choose(void *ctx, unsigned int running, const struct tlbgen_vt_option *o,
			      unsigned int n)
{
	struct txrun *r = ctx;
	unsigned int i = r->npoints, pick = 0;
	char buf[200];

	if (i >= TX_MAX_POINTS)
		return 0;	/* past the recorded horizon: default picks */
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
		ev_add(r, o[pick].cpu, true, buf);
	}
	return pick;
}

static void on_ipi_send(void *ctx, unsigned int from, unsigned int to)
{
	struct txrun *r = ctx;
	char buf[96];

	snprintf(buf, sizeof(buf), "CPU%u sends CPU%u the flush IPI", from, to);
	ev_add(r, from, false, buf);
}

static void on_line(void *ctx, unsigned int cpu, enum tlbgen_line line, uintptr_t id,
		    enum tlbgen_access_op op)
{
	struct txrun *r = ctx;

	(void)id;
	/* switch_mm_irqs_off() runs with IRQs off: no flush IPI's reads. */
	if (cpu == 1 && r->in_switch && line == TLBGEN_LINE_MM_TLB_GEN && op == TLBGEN_OP_READ)
		ev_add(r, cpu, false, "CPU1 reads mm A's tlb_gen (choose_new_asid() decides on it)");
}

static void on_flush(void *ctx, unsigned int cpu, enum tlbgen_flush_kind kind,
		     unsigned long pages)
{
	struct txrun *r = ctx;
	char buf[96];

	(void)pages;
	if (kind != TLBGEN_FLUSH_KIND_SWITCH || !r->record)
		return;
	snprintf(buf, sizeof(buf), "CPU%u's switch_mm() saw a newer tlb_gen: flushing CR3 write",
		 cpu);
	r->switch_flushed = true;
	ev_add(r, cpu, false, buf);
}

/* ---- the programs ------------------------------------------------------------------------ */

static int setup_cpu0(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;

	return tlbgen_switch_mm(sys, cpu, r->mm_a);
}

static int setup_cpu1(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm_a);

	err = err ?: (tlbgen_access(sys, cpu, TX_PAGE) < 0);
	return err ?: tlbgen_switch_mm(sys, cpu, r->mm_b);
}

static int flusher(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;
	int err;

	ev_add(r, cpu, false, "CPU0 changes P's PTE and calls flush_tlb_page(mm A, P)");
	err = tlbgen_pte_change(sys, cpu, r->mm_a, TX_PAGE);
	err = err ?: tlbgen_flush_tlb_page(sys, cpu, r->mm_a, TX_PAGE);
	ev_add(r, cpu, false, "CPU0's flush_tlb_page() returns");
	r->flush_done = true;
	return err;
}

static int switcher(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;
	int err, ret;

	ev_add(r, cpu, false, "CPU1 calls switch_mm(mm A) (its bit in A's mm_cpumask is set)");
	r->in_switch = true;
	err = tlbgen_switch_mm(sys, cpu, r->mm_a);
	r->in_switch = false;
	/* Until CPU 0's flush returned: any later use of P must be fresh. */
	for (int i = 0; !err && !r->flush_done && i < 4; i++)
		err = tlbgen_vtime__spend(sys, cpu, TX_WAIT);
	if (err)
		return err;
	ret = tlbgen_access(sys, cpu, TX_PAGE);
	ev_add(r, cpu, false, ret == 1 ? "CPU1 touches P: TLB hit" : "CPU1 touches P: TLB miss");
	return ret < 0 ? ret : 0;
}

static int run_programs(struct txrun *r, tlbgen_cpu_fn f0, tlbgen_cpu_fn f1)
{
	int err, ret0 = 0, ret1 = 0;

	err = tlbgen_cpu__spawn(r->sys, 0, f0, r);
	err = err ?: tlbgen_cpu__spawn(r->sys, 1, f1, r);
	err = err ?: tlbgen_vtime__run(r->sys, UINT64_MAX);
	err = err ?: tlbgen_cpu__join(r->sys, 0, &ret0);
	err = err ?: tlbgen_cpu__join(r->sys, 1, &ret1);
	return err ?: ret0 ?: ret1;
}

/* One execution from scratch. 1: it failed, 0: it passed, < 0: setup error. */
static int tx_exec(struct txrun *r)
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
		.sz = sizeof(o), .nr_cpus = 2, .mode = TLBGEN_MODE_VIRTUAL,
		.profile = cfg->profile, .seed = cfg->seed,
	};
	int err;

	r->npoints = 0;
	r->nev = 0;
	r->flush_done = false;
	r->violations = 0;
	r->msg[0] = 0;
	r->read_loaded[0] = r->held[0] = 0;
	r->skipped = r->switch_flushed = false;
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
	err = err ?: run_programs(r, setup_cpu0, setup_cpu1);
	if (err) {
		snprintf(r->msg, sizeof(r->msg), "setup failed: %s", strerror(err < 0 ? -err : EIO));
		goto out;
	}
	err = tlbgen_system__set_trace(r->sys, &tops);
	err = err ?: tlbgen_vtime__set_chooser(r->sys, &ch);
	err = err ?: run_programs(r, flusher, switcher);
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
	tlbgen_system__destroy(r->sys);
	r->sys = NULL;
	r->mm_a = r->mm_b = NULL;
	if (err)
		return err < 0 ? err : -EIO;
	return r->violations > 0;
}

/* ---- searches ------------------------------------------------------------------------------ */

static struct txrun *run_new(const struct txcfg *cfg)
{
	struct txrun *r = calloc(1, sizeof(*r));

	if (r)
		r->cfg = cfg;
	return r;
}

static void keep_devs(const struct txrun *r, struct txresult *res)
{
	res->ndevs = 0;
	for (unsigned int i = 0; i < r->npoints && res->ndevs < TX_MAX_DEVS; i++)
		if (r->c[i])
			res->devs[res->ndevs++] = (struct txdev){ i, r->c[i] };
	snprintf(res->msg, sizeof(res->msg), "%s", r->msg);
}

static int account(struct txrun *r, int ret, struct txresult *res)
{
	if (ret < 0) {
		snprintf(res->msg, sizeof(res->msg), "%s", r->msg);
		return ret;
	}
	res->executions++;
	if (r->npoints > res->max_points)
		res->max_points = r->npoints;
	if (ret > 0) {
		res->failed = true;
		keep_devs(r, res);
	}
	return 0;
}

int tx_exhaustive(const struct txcfg *cfg, unsigned int bound, struct txresult *res)
{
	struct txrun *r = run_new(cfg);
	uint16_t *prefix = calloc(TX_MAX_POINTS, sizeof(*prefix));
	size_t np = 0;
	int err = 0;

	memset(res, 0, sizeof(*res));
	if (!r || !prefix) {
		free(r);
		free(prefix);
		return -ENOMEM;
	}
	for (;;) {
		unsigned int used = 0;
		long back = -1;

		r->plan = PLAN_PREFIX;
		r->prefix = prefix;
		r->nprefix = np;
		err = account(r, tx_exec(r), res);
		if (err || res->failed)
			break;
		/* Deepest point that can take its next option within the bound. */
		for (unsigned int i = 0; i < r->npoints; i++) {
			if (r->c[i] + 1 < r->n[i] && used + 1 <= bound)
				back = i;
			used += r->c[i] != 0;
		}
		if (back < 0) {
			res->exhausted = r->npoints < TX_MAX_POINTS;
			break;
		}
		memcpy(prefix, r->c, (size_t)back * sizeof(*prefix));
		prefix[back] = r->c[back] + 1;
		np = (size_t)back + 1;
	}
	free(prefix);
	free(r);
	return err;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int tx_random(const struct txcfg *cfg, uint64_t first, uint64_t seeds, uint64_t seconds,
	      struct txresult *res)
{
	struct txcfg c = *cfg;
	struct txrun *r = run_new(&c);
	double t0 = now_s();
	int err = 0;

	memset(res, 0, sizeof(*res));
	if (!r)
		return -ENOMEM;
	for (uint64_t s = first; s - first < seeds; s++) {
		if (seconds && now_s() - t0 > (double)seconds)
			break;
		c.seed = s;
		r->plan = PLAN_RANDOM;
		r->rng = s;
		err = account(r, tx_exec(r), res);
		if (err)
			break;
		if (res->failed) {
			res->seed = s;
			break;
		}
	}
	free(r);
	return err;
}

int tx_replay(const struct txcfg *cfg, const struct txdev *devs, size_t n, struct txresult *res)
{
	struct txrun *r = run_new(cfg);
	int err;

	memset(res, 0, sizeof(*res));
	if (!r)
		return -ENOMEM;
	r->plan = PLAN_SPARSE;
	r->devs = devs;
	r->ndevs = n;
	err = account(r, tx_exec(r), res);
	free(r);
	return err;
}

/* Without devs[i .. i + k): does it still fail? If so, keep it that way. */
static bool try_drop(const struct txcfg *cfg, struct txdev *devs, size_t *n, size_t i, size_t k)
{
	struct txdev *t = malloc(*n * sizeof(*t));
	struct txresult res;
	bool ok;

	if (!t)
		return false;
	memcpy(t, devs, i * sizeof(*t));
	memcpy(t + i, devs + i + k, (*n - i - k) * sizeof(*t));
	ok = !tx_replay(cfg, t, *n - k, &res) && res.failed;
	if (ok) {
		memcpy(devs, t, (*n - k) * sizeof(*t));
		*n -= k;
	}
	free(t);
	return ok;
}

size_t tx_minimise(const struct txcfg *cfg, struct txdev *devs, size_t n)
{
	bool changed = true;

	/* Single deviations, last first (the earlier points stay put), then
	 * adjacent pairs (a preemption and the switch back), until stable. */
	while (changed) {
		changed = false;
		for (size_t i = n; i-- > 0;)
			changed |= try_drop(cfg, devs, &n, i, 1);
		for (size_t i = n > 1 ? n - 1 : 0; i-- > 0;)
			if (i + 2 <= n)
				changed |= try_drop(cfg, devs, &n, i, 2);
	}
	return n;
}

int tx_parse_devs(const char *s, struct txdev *devs, size_t max, size_t *n)
{
	*n = 0;
	while (s && *s) {
		char *end;
		unsigned long p, k;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		p = strtoul(s, &end, 10);
		if (*end != ':' || end[1] < '0' || end[1] > '9' || p >= TX_MAX_POINTS)
			return -EINVAL;
		k = strtoul(end + 1, &end, 10);
		if ((*end && *end != ',') || !k || k > 64 || *n == max)
			return -EINVAL;
		devs[(*n)++] = (struct txdev){ (uint32_t)p, (uint16_t)k };
		s = *end ? end + 1 : end;
	}
	return 0;
}

/* ---- the explanation ------------------------------------------------------------------------ */

static void explain(FILE *out, const struct txrun *r)
{
	bool lacks_83 = !strcmp(r->barrier, "off");
	bool no_switching = !strcmp(r->switching, "off"), late = !strcmp(r->sw_write, "late");
	bool lacks_fea = no_switching || late;
	bool tso = r->cfg->model == TLBGEN_MEMORY_TSO;

	fprintf(out, "what happened: ");
	if (r->skipped)
		fprintf(out, "CPU0's should_flush_tlb() read CPU1's loaded_mm = %s%s%s%s and sent "
			"no IPI; ", r->read_loaded[0] ? r->read_loaded : "?",
			r->held[0] ? " from memory while CPU1's store buffer still held " : "",
			r->held, r->held[0] ? "" : "");
	if (!r->switch_flushed)
		fprintf(out, "CPU1's switch_mm() read mm A's tlb_gen before CPU0's "
			"inc_mm_tlb_gen() and did not flush; ");
	fprintf(out, "so CPU1 kept P's old translation past the flush.\n");

	if (lacks_fea) {
		fprintf(out, "window: fea4e317f9e7 (%s%s%s): CPU1 was between its tlb_gen read "
			"and its CR3 write, and ", no_switching ? "loaded_mm_switching=off" : "",
			no_switching && late ? ", " : "", late ? "switching_write=late" : "");
		if (late)
			fprintf(out, "LOADED_MM_SWITCHING is stored only after that read, so the "
				"flusher could still see the previous mm%s", no_switching ? "; " : "");
		if (no_switching)
			fprintf(out, "should_flush_tlb() does not IPI a CPU whose loaded_mm is "
				"LOADED_MM_SWITCHING");
		fprintf(out, "; no store buffer is needed (sc fails too).\n");
	}
	if (lacks_83 && !lacks_fea)
		fprintf(out, "window: 83b0177a6c48 (CVE-2025-40174, switch_mm_barrier=off): "
			"CPU1's bit in mm_cpumask(A) was already set, so no locked RMW and no "
			"smp_mb() orders its LOADED_MM_SWITCHING store before its tlb_gen load; "
			"%s\n", tso ? "x86's store buffer let the load pass the store (the "
			"store-buffering pattern), so both CPUs read old values." :
			"(under sc this cannot happen).");
	else if (lacks_83)
		fprintf(out, "also open in this profile: 83b0177a6c48 (CVE-2025-40174, "
			"switch_mm_barrier=off): with fea4e317f9e7 alone, the LOADED_MM_SWITCHING "
			"store can still sit in CPU1's store buffer past its tlb_gen load when "
			"its mm_cpumask bit is already set; both fixes are needed under tso.\n");
	if (!lacks_83 && !lacks_fea)
		fprintf(out, "window: none of the two known ones (the profile has 83b0177a6c48 "
			"and fea4e317f9e7): a new ordering bug in this policy.\n");
}

unsigned int tx_print_trace(FILE *out, const struct txcfg *cfg, const struct txdev *devs,
			    size_t n)
{
	struct txrun *r = run_new(cfg);
	unsigned int k = 0;
	int ret;

	if (!r)
		return 0;
	r->record = true;
	r->plan = PLAN_SPARSE;
	r->devs = devs;
	r->ndevs = n;
	ret = tx_exec(r);
	fprintf(out, "setup: CPU0 runs mm A; CPU1 ran mm A, touched page P (its TLB holds P), "
		"switched to mm B and stays in mm_cpumask(A)\n");
	for (unsigned int i = 0, returned = 0; i < r->nev; i++) {
		const struct txev *e = &r->ev[i];

		/* Stores and commits once the flush returned, and those at the
		 * end of the story, explain nothing. */
		if (returned && (strstr(e->text, " reaches memory (") ||
				 strstr(e->text, ": it waits in CPU")))
			continue;
		returned |= strstr(e->text, "flush_tlb_page() returns") != NULL;
		if (strstr(e->text, "reaches memory (the CPU sleeps)") ||
		    strstr(e->text, "reaches memory (the system went idle)") ||
		    (strstr(e->text, "is_lazy = false") && !strstr(e->text, "still holds")))
			continue;
		fprintf(out, "%3u. %s\n", ++k, e->text);
	}
	if (ret > 0) {
		fprintf(out, "oracle: %s\n", r->msg);
		explain(out, r);
	} else {
		fprintf(out, "no violation in this execution%s%s\n", ret < 0 ? ": " : "",
			ret < 0 ? r->msg : "");
	}
	free(r);
	return k;
}
