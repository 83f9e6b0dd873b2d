// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/checks/soak.c - `tlbgen-bench soak --minutes N`: threaded mode, N minutes of
 * mixed workloads on oversubscribed emulated CPUs (8 by default, whatever
 * the host has), the oracle on and the csd-lock watchdog armed.
 *
 * Rounds of --round seconds rotate the policies (-p; by default the correct
 * profiles v5.17, v6.0, latest) and the IPI backends (poll, signal). Each emulated CPU loops over
 * switch_mm / enter_lazy_tlb / accesses / PTE change + covering flush
 * (range, page, full, or batched) / kernel-range flushes / polls, and times
 * every flush call: in threaded mode it returns only after every target
 * acknowledged, so that is the IPI wait.
 *
 * Exit status: 0 clean; 1 oracle violation, kernel WARN, watchdog report or
 * unexpected errno; 3 a CPU made no progress for --hang-seconds (hang);
 * 2 bad arguments.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "driver/common.h"
#include "driver/env.h"
#include "../../harness/explore/explore_engine.h"
#include "driver/output.h"
#include "driver/results.h"
#include "run/run.h"

#define SOAK_MAX_CPUS	64
#define SOAK_MMS	3
#define SOAK_PAGES	256UL

struct soak_cpu {
	struct soak_round *r;
	uint64_t rng;
	_Atomic uint64_t ops;		/* progress, read by the hang monitor */
	uint64_t flushes;
	uint64_t max_wait_ns;
	uint64_t errors;
	char err[160];
};

struct soak_round {
	struct tlbgen_mm *mm[SOAK_MMS];
	/* Stop in two phases: every CPU leaves its loop (still servicing IPIs
	 * in the runtime's idle loop) before any is joined; a CPU joined while
	 * others still flush would leave their IPIs to it unacknowledged. */
	atomic_bool stop;
	atomic_uint done;
	struct soak_cpu cpu[SOAK_MAX_CPUS];
};

static void note_err(struct soak_cpu *c, const char *what, int ret)
{
	if (!c->errors++)
		snprintf(c->err, sizeof(c->err), "%s returned %d", what, ret);
}

/* Time a flush call: in threaded mode it returns after every ack. */
#define TIMED(c, what, call)                                                     \
	do {                                                                     \
		uint64_t _t = bench_now_ns();                                    \
		int _r = (call);                                                 \
		uint64_t _d = bench_now_ns() - _t;                               \
		if (_r)                                                          \
			note_err(c, what, _r);                                   \
		(c)->flushes++;                                                  \
		if (_d > (c)->max_wait_ns)                                       \
			(c)->max_wait_ns = _d;                                   \
	} while (0)

static int soak_cpu_fn(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct soak_cpu *c = arg;
	struct soak_round *r = c->r;
	struct tlbgen_tlbbatch *batch = NULL;
	bool batch_pending = false;
	int ret = tlbgen_tlbbatch__create(sys, &batch);

	if (ret) {
		note_err(c, "tlbbatch__create", ret);
		return ret;
	}
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed) &&
	       !tlbgen_cpu__should_stop(sys, cpu)) {
		unsigned int k = explore_rn(&c->rng, 100), m = explore_rn(&c->rng, SOAK_MMS);
		/* A few hot pages per mm so that fills, changes and flushes meet. */
		unsigned long page = explore_rn(&c->rng, 4) ? explore_rn(&c->rng, 16) : explore_rn(&c->rng, SOAK_PAGES - 4);
		unsigned long addr = page << TLBGEN_PAGE_SHIFT;

		if (k < 10) {
			ret = tlbgen_switch_mm(sys, cpu, explore_rn(&c->rng, SOAK_MMS + 1) ?
							 r->mm[m] : NULL);
			if (ret)
				note_err(c, "switch_mm", ret);
		} else if (k < 14) {
			ret = tlbgen_enter_lazy_tlb(sys, cpu);
			if (ret)
				note_err(c, "enter_lazy_tlb", ret);
		} else if (k < 55) {
			for (int i = 0; i < 4; i++) {
				ret = tlbgen_access(sys, cpu, addr + ((unsigned long)i << TLBGEN_PAGE_SHIFT));
				if (ret < 0 && ret != -ESRCH)
					note_err(c, "access", ret);
			}
		} else if (k < 85) {
			/* The kernel's rule: change the PTE, then flush what covers it. */
			ret = tlbgen_pte_change(sys, cpu, r->mm[m], addr);
			if (ret)
				note_err(c, "pte_change", ret);
			switch (explore_rn(&c->rng, 6)) {
			case 0:
				TIMED(c, "flush_tlb_page", tlbgen_flush_tlb_page(sys, cpu, r->mm[m], addr));
				break;
			case 1:
				TIMED(c, "flush_tlb_mm", tlbgen_flush_tlb_mm(sys, cpu, r->mm[m]));
				break;
			case 2: case 3: {
				unsigned long end = addr + (1UL + explore_rn(&c->rng, 48)) * TLBGEN_PAGE_SIZE;

				if (end > SOAK_PAGES << TLBGEN_PAGE_SHIFT)
					end = SOAK_PAGES << TLBGEN_PAGE_SHIFT;
				TIMED(c, "flush_tlb_mm_range",
				      tlbgen_flush_tlb_mm_range(sys, cpu, r->mm[m], addr, end,
								TLBGEN_PAGE_SHIFT, explore_rn(&c->rng, 4) == 0));
				break;
			}
			default:
				ret = tlbgen_arch_tlbbatch_add_pending(sys, cpu, batch, r->mm[m], addr,
								       addr + TLBGEN_PAGE_SIZE);
				if (ret)
					note_err(c, "arch_tlbbatch_add_pending", ret);
				batch_pending = true;
				break;
			}
		} else if (k < 92) {
			if (batch_pending) {
				TIMED(c, "arch_tlbbatch_flush", tlbgen_arch_tlbbatch_flush(sys, cpu, batch));
				batch_pending = false;
			}
		} else if (k < 94) {
			TIMED(c, "flush_tlb_kernel_range",
			      tlbgen_flush_tlb_kernel_range(sys, cpu, addr, addr + TLBGEN_PAGE_SIZE));
		} else {
			ret = tlbgen_poll(sys, cpu);
			if (ret < 0)
				note_err(c, "poll", ret);
		}
		atomic_fetch_add_explicit(&c->ops, 1, memory_order_relaxed);
	}
	if (batch_pending)
		TIMED(c, "arch_tlbbatch_flush", tlbgen_arch_tlbbatch_flush(sys, cpu, batch));
	/* Every flush that completed has been through this CPU: nothing it
	 * covered may be left in our TLB. */
	ret = tlbgen_oracle__audit_cpu(sys, cpu);
	if (ret < 0)
		note_err(c, "oracle__audit_cpu", ret);
	tlbgen_tlbbatch__destroy(batch);
	atomic_fetch_add(&r->done, 1);
	return 0;
}

/* Options ------------------------------------------------------------------ */

static struct {
	uint64_t minutes, seconds, round_s, hang_s;
	unsigned int ncpus, wd;
} o = { .minutes = 1, .round_s = 20, .ncpus = 8, .wd = 2000, .hang_s = 60 };

/* Durations to 10^8 s: their nanoseconds fit in 64 bits. */
static const struct bench_opt soak_opts[] = {
	{ .name = "minutes", .arg = "N", .type = BOPT_U64, .dst = &o.minutes, .min = 0,
	  .max = 1000000, .help = "total duration (1)" },
	{ .name = "seconds", .arg = "N", .type = BOPT_U64, .dst = &o.seconds, .min = 0,
	  .max = 100000000, .help = "total duration in seconds (overrides --minutes)" },
	{ .name = "round", .arg = "S", .type = BOPT_U64, .dst = &o.round_s, .min = 1,
	  .max = 100000000, .help = "seconds per round (20)" },
	{ .name = "cpus", .arg = "N", .type = BOPT_UINT, .dst = &o.ncpus, .min = 2,
	  .max = SOAK_MAX_CPUS, .help = "emulated CPUs (8, oversubscribed on small hosts)" },
	{ .name = "watchdog-ms", .arg = "MS", .type = BOPT_UINT, .dst = &o.wd, .min = 1,
	  .max = UINT_MAX, .help = "csd-lock watchdog (2000); any report fails the run" },
	{ .name = "hang-seconds", .arg = "S", .type = BOPT_U64, .dst = &o.hang_s, .min = 1,
	  .max = 100000000, .help = "a CPU without progress this long is a hang (60)" },
	BENCH_OPT_END,
};

/* Run ---------------------------------------------------------------------- */

struct soak_total {
	unsigned int rounds;
	uint64_t ops, flushes, max_wait, wd, errors;
	long viol, warns;
};

static const char *backend_name(enum tlbgen_ipi_backend be)
{
	return be == TLBGEN_IPI_SIGNAL ? "signal" : "poll";
}

/* A metric of results.json (its coordinates in pa, consumed). */
static double get(const char *name, json_t *pa)
{
	double v = 0;

	bench_metric_get(name, pa, &v);
	json_decref(pa);
	return v;
}

static json_t *round_params(unsigned int round, const char *policy,
			    enum tlbgen_ipi_backend be, int cpu)
{
	json_t *pa = json_pack("{s:i,s:s,s:s}", "round", (int)round, "policy", policy, "backend",
			       backend_name(be));

	if (cpu >= 0)
		json_object_set_new(pa, "cpu", json_integer(cpu));
	return pa;
}

/* A CPU made no progress: recorded, the results kept, exit 3 (its thread
 * cannot be joined). */
static void hang(struct bench_env *e, unsigned int round, const char *policy,
		 enum tlbgen_ipi_backend be, unsigned int cpu, double seconds, bool stopping)
{
	json_t *pa = round_params(round, policy, be, (int)cpu);

	bench_metric("seconds_without_progress", "s", "lower", pa, seconds);
	printf("soak: HANG: cpu %u made no progress for %.1f s (round %u, profile %s, backend "
	       "%s%s)\n", cpu, get("seconds_without_progress", pa), round, policy,
	       backend_name(be), stopping ? ", stopping" : "");
	fflush(stdout);
	if (e->json)
		bench_json_dump(bench_results_json(), e->json);
	bench_results_end(3);
	_exit(3);
}

/* Every CPU must keep making progress, and then leave its loop once asked. */
static void watch(struct bench_env *e, struct soak_round *r, uint64_t dur, unsigned int round,
		  const char *policy, enum tlbgen_ipi_backend be)
{
	uint64_t t0 = bench_now_ns(), last[SOAK_MAX_CPUS], last_t[SOAK_MAX_CPUS];

	for (unsigned int c = 0; c < o.ncpus; c++)
		last[c] = 0, last_t[c] = t0;
	for (;;) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		uint64_t now;
		bool stopping;

		nanosleep(&ts, NULL);
		now = bench_now_ns();
		stopping = now - t0 >= dur;
		if (stopping && !atomic_load(&r->stop)) {
			atomic_store(&r->stop, true);
			for (unsigned int c = 0; c < o.ncpus; c++)
				last_t[c] = now;
		}
		if (stopping && atomic_load(&r->done) == o.ncpus)
			return;
		for (unsigned int c = 0; c < o.ncpus; c++) {
			uint64_t ops = atomic_load(&r->cpu[c].ops);

			if (ops != last[c]) {
				last[c] = ops;
				last_t[c] = now;
			} else if (now - last_t[c] > o.hang_s * 1000000000ULL) {
				hang(e, round, policy, be, c, (double)(now - last_t[c]) / 1e9,
				     stopping);
			}
		}
	}
}

/* One round of `dur` ns: recorded, printed; 0 clean, 1 a failure, -1 a
 * round that could not start. */
static int soak_round(struct bench_env *e, struct soak_round *r, unsigned int round,
		      uint64_t dur, struct soak_total *t)
{
	const struct bench_policy *pol = &e->pol[round % e->npol];
	/* Each policy meets both backends within 2 * npol rounds. */
	enum tlbgen_ipi_backend be = (round / e->npol) % 2 ? TLBGEN_IPI_SIGNAL : TLBGEN_IPI_POLL;
	TLBGEN_OPTS(tlbgen_runtime_opts, ro, .backend = be, .watchdog_ms = o.wd);
	TLBGEN_OPTS(tlbgen_system_opts, so, .nr_cpus = o.ncpus, .mode = TLBGEN_MODE_THREADED,
		    .profile = pol->name, .runtime = &ro);
	struct tlbgen_runtime_stats rs = { .sz = sizeof(rs) };
	struct tlbgen_system *sys;
	uint64_t r_ops = 0, r_wait = 0, r_err = 0;
	long viol, warns;
	json_t *pa;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = tlbgen_system__create(&so, &sys);
	for (int i = 0; !ret && i < SOAK_MMS; i++)
		ret = tlbgen_mm__create(sys, SOAK_PAGES, &r->mm[i]);
	for (unsigned int c = 0; !ret && c < o.ncpus; c++) {
		r->cpu[c].r = r;
		r->cpu[c].rng = e->seed * 1000003ULL + round * 131ULL + c;
		ret = tlbgen_cpu__spawn(sys, c, soak_cpu_fn, &r->cpu[c]);
	}
	if (ret) {
		fprintf(stderr, "soak: setup failed: %d\n", ret);
		return -1;
	}
	watch(e, r, dur, round, pol->label, be);
	for (unsigned int c = 0; c < o.ncpus; c++) {
		int cret = 0;

		ret = tlbgen_cpu__join(sys, c, &cret);
		if (ret || cret)
			r->cpu[c].errors++;
	}
	viol = tlbgen_oracle__violations(sys);
	warns = tlbgen_system__warns(sys);
	tlbgen_runtime__stats(sys, &rs);
	for (unsigned int c = 0; c < o.ncpus; c++) {
		struct soak_cpu *sc = &r->cpu[c];

		r_ops += sc->ops;
		t->flushes += sc->flushes;
		if (sc->max_wait_ns > r_wait)
			r_wait = sc->max_wait_ns;
		if (sc->errors) {
			pa = round_params(round, pol->label, be, (int)c);
			bench_metric("errors", "errors", "lower", pa, (double)sc->errors);
			printf("soak: cpu %u: %.0f errors, first: %s\n", c, get("errors", pa),
			       sc->err[0] ? sc->err : "join/attach failed");
			r_err += sc->errors;
		}
	}
	if (viol > 0) {
		struct tlbgen_violation v;
		char buf[400];

		if (!tlbgen_oracle__violation(sys, 0, &v)) {
			tlbgen_oracle__format(&v, buf, sizeof(buf));
			printf("soak: violation: %s\n", buf);
		}
	}
	pa = round_params(round, pol->label, be, -1);
	bench_metric("ops", "ops", NULL, pa, (double)r_ops);
	bench_metric("violations", "violations", "lower", pa, (double)viol);
	bench_metric("warns", "WARNs", "lower", pa, (double)warns);
	bench_metric("watchdog_reports", "reports", "lower", pa, (double)rs.watchdog_reports);
	bench_metric("longest_ipi_wait", "ms", "lower", pa, (double)r_wait / 1e6);
	bench_metric("futex_sleeps", "sleeps", NULL, pa, (double)rs.futex_sleeps);
	printf("round %3u profile=%-6s backend=%-6s ops=%.0f violations=%.0f warns=%.0f "
	       "watchdog=%.0f longest_ipi_wait=%.3f ms futex_sleeps=%.0f\n", round, pol->label,
	       backend_name(be), get("ops", json_incref(pa)), get("violations", json_incref(pa)),
	       get("warns", json_incref(pa)), get("watchdog_reports", json_incref(pa)),
	       get("longest_ipi_wait", json_incref(pa)), get("futex_sleeps", json_incref(pa)));
	json_decref(pa);
	fflush(stdout);
	t->rounds++;
	t->ops += r_ops;
	t->viol += viol;
	t->warns += warns;
	t->wd += rs.watchdog_reports;
	t->errors += r_err;
	if (r_wait > t->max_wait)
		t->max_wait = r_wait;
	tlbgen_system__destroy(sys);
	return viol || warns || rs.watchdog_reports || t->errors ? 1 : 0;
}

static int soak_run(struct bench_env *e)
{
	static const char *const defs[] = { "v5.17", "v6.0", "latest", NULL };
	uint64_t seconds = o.seconds ? o.seconds : o.minutes * 60, t_start = bench_now_ns();
	struct soak_round *r;
	struct soak_total t = { 0 };
	int status = 0;
	json_t *pa;

	if (!bench_modes(e) || bench_env_policies(e, defs))
		return 2;
	r = calloc(1, sizeof(*r));
	if (!r)
		return 1;
	bench_meta_seed(e->seed);
	bench_meta_param("seconds", json_integer((json_int_t)seconds));
	bench_meta_param("round_seconds", json_integer((json_int_t)o.round_s));
	bench_meta_param("cpus", json_integer(o.ncpus));
	bench_meta_param("watchdog_ms", json_integer(o.wd));
	bench_meta_param("hang_seconds", json_integer((json_int_t)o.hang_s));
	printf("soak: %" PRIu64 " s, %u emulated CPUs on %ld host CPUs, rounds of %" PRIu64
	       " s, watchdog %u ms\n", seconds, o.ncpus, sysconf(_SC_NPROCESSORS_ONLN),
	       o.round_s, o.wd);
	while (status == 0 && bench_now_ns() - t_start < seconds * 1000000000ULL) {
		uint64_t left = seconds * 1000000000ULL - (bench_now_ns() - t_start);
		uint64_t dur = o.round_s * 1000000000ULL < left ? o.round_s * 1000000000ULL : left;

		status = soak_round(e, r, t.rounds, dur, &t);
		if (status < 0) {
			free(r);
			return 1;
		}
	}
	free(r);
	pa = json_pack("{s:s}", "round", "total");
	bench_metric("seconds", "s", NULL, pa, (double)(bench_now_ns() - t_start) / 1e9);
	bench_metric("rounds", "rounds", NULL, pa, t.rounds);
	bench_metric("ops", "ops", NULL, pa, (double)t.ops);
	bench_metric("flushes", "flushes", NULL, pa, (double)t.flushes);
	bench_metric("violations", "violations", "lower", pa, (double)t.viol);
	bench_metric("warns", "WARNs", "lower", pa, (double)t.warns);
	bench_metric("watchdog_reports", "reports", "lower", pa, (double)t.wd);
	bench_metric("errors", "errors", "lower", pa, (double)t.errors);
	bench_metric("longest_ipi_wait", "ms", "lower", pa, (double)t.max_wait / 1e6);
	printf("soak total: %.0f s, %.0f rounds, ops=%.0f flushes=%.0f violations=%.0f warns=%.0f "
	       "watchdog_reports=%.0f errors=%.0f longest_ipi_wait=%.3f ms => %s\n",
	       get("seconds", json_incref(pa)), get("rounds", json_incref(pa)),
	       get("ops", json_incref(pa)), get("flushes", json_incref(pa)),
	       get("violations", json_incref(pa)), get("warns", json_incref(pa)),
	       get("watchdog_reports", json_incref(pa)), get("errors", json_incref(pa)),
	       get("longest_ipi_wait", json_incref(pa)), status ? "FAIL" : "ok");
	json_decref(pa);
	return status;
}

const struct bench bench_soak = {
	.name = "soak",
	.summary = "threaded soak: mixed workloads, oversubscribed, oracle + watchdog",
	.help = "Threaded mode: rounds of --round seconds of mixed workloads (switch_mm, lazy\n"
		"TLB, accesses, PTE changes with their page/range/full/batched flushes,\n"
		"kernel-range flushes, polls) on oversubscribed emulated CPUs, the oracle on\n"
		"and the csd-lock watchdog armed. The rounds rotate the policies (-p, any\n"
		"number; default v5.17, v6.0, latest) and the IPI backends (poll, signal);\n"
		"--seed seeds the workload. Per round: ops, violations, WARNs, watchdog\n"
		"reports, longest IPI wait, futex sleeps. Exit 1 on a violation, WARN,\n"
		"watchdog report or unexpected errno; 3 when a CPU made no progress for\n"
		"--hang-seconds (a hang).\n",
	.shared = BENCH_O_POLICY | BENCH_O_MODE | BENCH_O_SEED | BENCH_O_JSON,
	.modes = BENCH_M_THREADS,
	.modes_why = "it soaks the threaded runtime (real pthreads, IPIs, the watchdog); explore "
		     "searches stepped and virtual schedules",
	.opts = soak_opts,
	.run = soak_run,
};
BENCH_COMMAND(bench_soak);
