// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/lazy.c - seed 001: IPIs to CPUs that no longer run the mm.
 *
 * K CPUs run threads of mm A doing tlb_flush2 (write, zap, 1-page flush,
 * re-fault). M other CPUs once ran A and now switch among other mms, like
 * hackbench; every --revisit flushes each of them runs a task of A briefly
 * again (in will-it-scale the threads of A block and migrate), so under the
 * lazy cpumask it re-enters mm_cpumask(A) and leaves A still set in it.
 * Three cpumask policies:
 *  - clear the bit at switch-out (<= v6.13): those CPUs get no IPI;
 *  - lazy cpumask, no trim (209954cbc7d0 alone; the IPI condition then was
 *    still tlb_is_not_lazy): every CPU that left A since the last flush gets
 *    one, and clears its bit in flush_tlb_func;
 *  - lazy cpumask trimmed once per HZ (6db2526c1d69): those IPIs go out only
 *    when should_trim_cpumask() fires, at most once per HZ per mm.
 * Stepped mode with the virtual jiffy clock (tlbgen_clock_advance), so "per
 * HZ" is exact and the counts are deterministic.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "driver/common.h"
#include "driver/env.h"
#include "driver/results.h"
#include "run/run.h"

struct lz_mode {
	const char *label;
	const char *spec;
};

static const struct lz_mode default_modes[] = {
	{ "clear-on-switch (<= v6.13)", "v6.0" },
	{ "lazy, untrimmed (209954cbc7d0)",
	  "v6.0:mm_cpumask=lazy,wrong_mm=remote-clear,ipi_cond=tlb_is_not_lazy,trim_cpumask=none" },
	{ "lazy, trimmed per HZ (6db2526c1d69)", "latest" },
};

struct lz_ctx {
	struct tlbgen_system *sys;
	struct tlbgen_mm *a;
	unsigned int k, m;
	uint64_t ipis, stale, stale_total_cap;
	uint64_t **stamps;	/* per M CPU: jiffies of each stale IPI */
	size_t *nstamps, *capstamps;
	int err;
};

struct lz_result {
	uint64_t flushes, ipis, stale, trims;
	uint64_t max_per_cpu_hz;
	uint64_t stats[TLBGEN_STAT_NR];
	long violations;
	uint64_t jiffies;
};

static void lz_ipi_send(void *ctx, unsigned int from, unsigned int to)
{
	struct lz_ctx *z = ctx;
	uint64_t j = 0;

	(void)from;
	z->ipis++;
	if (tlbgen_cpu__loaded_mm_is(z->sys, to, z->a) == 1)
		return;
	z->stale++;
	if (to < z->k)
		return;
	to -= z->k;
	if (z->nstamps[to] == z->capstamps[to]) {
		size_t n = z->capstamps[to] ? 2 * z->capstamps[to] : 64;
		uint64_t *p = realloc(z->stamps[to], n * sizeof(uint64_t));

		if (!p) {
			z->err = -ENOMEM;
			return;
		}
		z->stamps[to] = p;
		z->capstamps[to] = n;
	}
	tlbgen_system__jiffies(z->sys, &j);
	z->stamps[to][z->nstamps[to]++] = j;
}

static int lz_run(const char *profile, unsigned int k, unsigned int m, unsigned int others,
		  uint64_t flushes, unsigned int per_jiffy, unsigned int revisit,
		  unsigned int switches, uint64_t seed, struct lz_result *res)
{
	TLBGEN_OPTS(tlbgen_system_opts, so, .nr_cpus = k + m, .mode = TLBGEN_MODE_STEPPED,
		    .profile = profile, .seed = seed);
	struct tlbgen_trace_ops ops = { .sz = sizeof(ops) };
	struct lz_ctx z = { .k = k, .m = m };
	struct tlbgen_mm **other = calloc(others, sizeof(*other));
	const unsigned long region = 256;	/* tlb_flush2: 1 MiB per thread */
	unsigned long *page = calloc(k, sizeof(*page));
	uint64_t rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	int hz, err;

	memset(res, 0, sizeof(*res));
	z.stamps = calloc(m ? m : 1, sizeof(*z.stamps));
	z.nstamps = calloc(m ? m : 1, sizeof(size_t));
	z.capstamps = calloc(m ? m : 1, sizeof(size_t));
	if (!other || !page || !z.stamps || !z.nstamps || !z.capstamps) {
		err = -ENOMEM;
		goto out_free;
	}
	err = tlbgen_system__create(&so, &z.sys);
	if (err)
		goto out_free;
	hz = tlbgen_system__hz(z.sys);
	err = tlbgen_mm__create(z.sys, region * k, &z.a);
	for (unsigned int i = 0; !err && i < others; i++)
		err = tlbgen_mm__create(z.sys, 16, &other[i]);
	/* Every CPU once ran A. */
	for (unsigned int c = 0; !err && c < k + m; c++)
		err = tlbgen_switch_mm(z.sys, c, z.a);
	if (err)
		goto out;
	ops.ipi_send = lz_ipi_send;
	ops.ctx = &z;
	err = tlbgen_system__set_trace(z.sys, &ops);
	if (err)
		goto out;
	tlbgen_stats__reset(z.sys);
	for (uint64_t f = 0; f < flushes && !err && !z.err; f++) {
		unsigned int c = (unsigned int)(f % k);
		unsigned long addr = (c * region + page[c]) << TLBGEN_PAGE_SHIFT;

		/* hackbench-like: the M CPUs run A briefly, then other mms. */
		if (f % revisit == 0)
			for (unsigned int i = k; !err && i < k + m; i++) {
				err = tlbgen_switch_mm(z.sys, i, z.a);
				for (unsigned int s = 0; !err && s < switches; s++)
					err = tlbgen_switch_mm(z.sys, i,
							       other[bench_xorshift(&rng) % others]);
			}
		/* One tlb_flush2 iteration on a CPU of A. */
		if (!err)
			err = tlbgen_access(z.sys, c, addr);
		if (err >= 0)
			err = tlbgen_pte_change(z.sys, c, z.a, addr);
		if (!err)
			err = tlbgen_flush_tlb_mm_range(z.sys, c, z.a, addr,
							addr + TLBGEN_PAGE_SIZE,
							TLBGEN_PAGE_SHIFT, false);
		if (!err) {
			int n = tlbgen_run_until_idle(z.sys);

			err = n < 0 ? n : 0;
		}
		if (!err)
			err = tlbgen_access(z.sys, c, addr);
		if (err > 0)
			err = 0;
		if (++page[c] == region)
			page[c] = 0;
		if ((f + 1) % per_jiffy == 0)
			tlbgen_clock_advance(z.sys, 1);
	}
	if (!err)
		err = z.err;
	if (err)
		goto out;
	tlbgen_stats__system(z.sys, res->stats, TLBGEN_STAT_NR);
	res->flushes = res->stats[TLBGEN_STAT_FLUSH_INITIATED];
	res->ipis = z.ipis;
	res->stale = z.stale;
	res->trims = res->stats[TLBGEN_STAT_TRIM_CPUMASK];
	res->violations = tlbgen_oracle__violations(z.sys);
	tlbgen_system__jiffies(z.sys, &res->jiffies);
	/* The most stale IPIs one CPU took within any window of HZ jiffies. */
	for (unsigned int i = 0; i < m; i++) {
		size_t lo = 0;

		for (size_t hi = 0; hi < z.nstamps[i]; hi++) {
			while (z.stamps[i][hi] - z.stamps[i][lo] >= (uint64_t)hz)
				lo++;
			if (hi - lo + 1 > res->max_per_cpu_hz)
				res->max_per_cpu_hz = hi - lo + 1;
		}
	}
out:
	tlbgen_system__set_trace(z.sys, NULL);
	tlbgen_system__destroy(z.sys);
out_free:
	for (unsigned int i = 0; z.stamps && i < m; i++)
		free(z.stamps[i]);
	free(z.stamps);
	free(z.nstamps);
	free(z.capstamps);
	free(other);
	free(page);
	return err;
}

static struct {
	unsigned int k, m, per_jiffy, revisit, others, switches;
	uint64_t flushes;
} o = { .k = 2, .m = 6, .per_jiffy = 1, .revisit = 1, .others = 4, .switches = 2, .flushes = 5000 };

static const struct bench_opt lazy_opts[] = {
	{ .name = "k", .key = 'k', .arg = "N", .type = BOPT_UINT, .dst = &o.k, .min = 1, .max = 4096,
	  .help = "CPUs running A's flushing threads (2)" },
	{ .name = "left", .key = 'M', .arg = "N", .type = BOPT_UINT, .dst = &o.m, .min = 0,
	  .max = 4096, .help = "CPUs that left A (6)" },
	{ .name = "flushes", .key = 'f', .arg = "N", .type = BOPT_U64, .dst = &o.flushes, .min = 1,
	  .max = 100000000, .help = "flushes (5000)" },
	{ .name = "per-jiffy", .arg = "N", .type = BOPT_UINT, .dst = &o.per_jiffy, .min = 1,
	  .max = 1000000, .help = "flushes per jiffy of the virtual clock (1; HZ=1000)" },
	{ .name = "revisit", .arg = "N", .type = BOPT_UINT, .dst = &o.revisit, .min = 1,
	  .max = 1000000, .help = "the M CPUs run A every N flushes (1)" },
	{ .name = "others", .arg = "N", .type = BOPT_UINT, .dst = &o.others, .min = 1, .max = 1024,
	  .help = "other mms the M CPUs switch among (4)" },
	{ .name = "switches", .arg = "N", .type = BOPT_UINT, .dst = &o.switches, .min = 0,
	  .max = 1024, .help = "switches among other mms per revisit (2)" },
	BENCH_OPT_END,
};

static json_t *params(const char *label, const char *policy)
{
	return json_pack("{s:s,s:s}", "mode", label, "policy", policy);
}

static void record(const struct lz_result *r, json_t *pa)
{
	bench_metric("flushes", "flushes", NULL, pa, (double)r->flushes);
	bench_metric("ipis", "IPIs", "lower", pa, (double)r->ipis);
	bench_metric("ipis_per_flush", "IPIs/flush", "lower", pa,
		     (double)r->ipis / (double)r->flushes);
	bench_metric("stale_ipis", "IPIs", "lower", pa, (double)r->stale);
	bench_metric("stale_ipis_per_flush", "IPIs/flush", "lower", pa,
		     (double)r->stale / (double)r->flushes);
	bench_metric("max_stale_ipis_per_cpu_per_hz", "IPIs/CPU/jiffy window", "lower", pa,
		     (double)r->max_per_cpu_hz);
	bench_metric("trims", "trims", NULL, pa, (double)r->trims);
	bench_metric("jiffies", "jiffies", NULL, pa, (double)r->jiffies);
	bench_metric("violations", "violations", "lower", pa, (double)r->violations);
	bench_metric_stats("", pa, r->stats);
	bench_metric("skipped_not_loaded_per_flush", "IPIs/flush", NULL, pa,
		     (double)r->stats[TLBGEN_STAT_IPI_SKIP_NOT_LOADED] / (double)r->flushes);
	bench_metric("skipped_not_trimmed_per_flush", "IPIs/flush", NULL, pa,
		     (double)r->stats[TLBGEN_STAT_IPI_SKIP_NOT_TRIMMED] / (double)r->flushes);
}

static double get(const char *name, json_t *pa)
{
	double v;

	bench_metric_get(name, pa, &v);
	return v;
}

static int lazy_run(struct bench_env *e)
{
	static const char *const specs[4] = { "v6.0",
		"v6.0:mm_cpumask=lazy,wrong_mm=remote-clear,ipi_cond=tlb_is_not_lazy,trim_cpumask=none",
		"latest", NULL };
	struct bench_progress pg = { 0 };
	int ret = 0;

	if (!bench_modes(e) || bench_env_policies(e, specs))
		return 2;
	if (o.k + o.m > TLBGEN_MAX_CPUS) {
		fprintf(stderr, "tlbgen-bench lazy: -k + -M: at most %d CPUs\n", TLBGEN_MAX_CPUS);
		return 2;
	}
	bench_meta_seed(e->seed);
	bench_meta_param("k", json_integer(o.k));
	bench_meta_param("m", json_integer(o.m));
	bench_meta_param("others", json_integer(o.others));
	bench_meta_param("revisit", json_integer(o.revisit));
	bench_meta_param("switches", json_integer(o.switches));
	bench_meta_param("flushes", json_integer((json_int_t)o.flushes));
	bench_meta_param("per_jiffy", json_integer(o.per_jiffy));
	printf("## lazy (seed 001): K=%u CPUs run threads of mm A (tlb_flush2), M=%u CPUs once "
	       "ran A and switch among %u other mms (A again every %u flush%s, %u switches); "
	       "%llu flushes, %u per jiffy, stepped mode, virtual clock\n", o.k, o.m, o.others,
	       o.revisit, o.revisit > 1 ? "es" : "", o.switches, (unsigned long long)o.flushes,
	       o.per_jiffy);
	printf("%-38s %9s %11s %12s %6s %8s %8s %5s\n", "mode", "ipi/flush", "stale/flush",
	       "max/CPU/HZ", "trims", "sk_nold", "sk_ntrm", "viol");
	for (unsigned int p = 0; p < e->npol; p++) {
		const char *label = (e->given & BENCH_O_POLICY) ? e->pol[p].label
								: default_modes[p].label;
		json_t *pa = params(label, e->pol[p].label);
		struct lz_result r;
		int err;

		bench_progress(&pg, "lazy: %s", label);
		err = lz_run(e->pol[p].name, o.k, o.m, o.others, o.flushes, o.per_jiffy, o.revisit,
			     o.switches, e->seed, &r);
		bench_progress_done(&pg);
		if (err) {
			fprintf(stderr, "tlbgen-bench lazy: %s: %s\n", label, strerror(-err));
			json_decref(pa);
			return 1;
		}
		record(&r, pa);
		printf("%-38s %9.3f %11.3f %12.0f %6.0f %8.3f %8.3f %5.0f\n", label,
		       get("ipis_per_flush", pa), get("stale_ipis_per_flush", pa),
		       get("max_stale_ipis_per_cpu_per_hz", pa), get("trims", pa),
		       get("skipped_not_loaded_per_flush", pa), get("skipped_not_trimmed_per_flush", pa),
		       get("violations", pa));
		ret |= get("violations", pa) > 0;
		json_decref(pa);
	}
	printf("  stale = IPIs to CPUs not running A when sent. Expected: 0 with clear-on-switch;\n"
	       "  about M/revisit = %.2f per flush untrimmed; at most 1 per such CPU per HZ\n"
	       "  (max/CPU/HZ <= 1) trimmed, i.e. <= M per %u flushes.\n",
	       (double)o.m / o.revisit, 1000 * o.per_jiffy);
	return ret;
}

const struct bench bench_lazy = {
	.name = "lazy",
	.summary = "seed 001: IPIs to CPUs that left the mm: clear-on-switch / lazy / lazy+trim",
	.help = "Seed 001: K CPUs run threads of mm A doing tlb_flush2; M other CPUs once ran\n"
		"A and now switch among other mms (hackbench-like), running a task of A\n"
		"briefly every --revisit flushes. Stepped mode, virtual jiffies: counts are\n"
		"exact and deterministic. Compares, by default, clear-on-switch (<= v6.13:\n"
		"v6.0), lazy untrimmed (209954cbc7d0) and lazy trimmed per HZ (6db2526c1d69:\n"
		"latest); -p replaces them. One row per policy: IPIs per flush, stale IPIs\n"
		"per flush (to CPUs whose loaded mm is not A when the IPI is sent), the most\n"
		"stale IPIs one CPU took in any HZ window, cpumask trims, IPIs skipped (not\n"
		"loaded / trim not due), oracle violations. Exit 1 on violations.\n",
	.shared = BENCH_O_POLICY | BENCH_O_MODE | BENCH_O_SEED | BENCH_O_JSON,
	.modes = BENCH_M_STEPPED,
	.modes_why = "its model is stepped with a virtual jiffy clock (seed001 runs tlb_flush2 "
		     "in virtual time)",
	.opts = lazy_opts,
	.run = lazy_run,
};
BENCH_COMMAND(bench_lazy);
