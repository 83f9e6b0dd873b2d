// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/tlbie.c - seed 004: "What does refilling the TLB after the full
 * flush cost?" (Michael Ellerman, on Aneesh Kumar K.V.'s RFC moving the
 * powerpc radix global tlbie ceiling from 33 ">" to 32 ">=").
 *
 * Workload (stepped mode, 2 emulated CPUs sharing one mm, so every flush is
 * a global tlbie flush):
 *   for each iteration:
 *     shmat + fillshm: CPU 0 installs and touches every page of the range;
 *     shmdt: the range is zapped one page table at a time (zap_pte_range()
 *       forces a flush under the PTL for shared dirty pages, 1cf35d47712d):
 *       one __radix__flush_tlb_range() per chunk (PMD_SIZE = 2 MiB);
 *     meanwhile CPU 1 keeps chasing pointers through its working set: after
 *       each flush it touches every page of it again, so a PID flush costs
 *       it one refill per page, a ranged flush nothing.
 * Unit choice: one model page stands for one 64 KiB radix page, so 256 MB is
 * 4096 pages and a 2 MiB chunk is 32 pages (the RFC's boundary). Use
 * --page-kb 4 for 65536 4 KiB pages and 512-page chunks.
 * For every (comparison, ceiling) point the cost model gives the flush
 * cycles paid by CPU 0 and the refill cycles paid by CPU 1; the best point
 * minimises their sum.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "driver/common.h"
#include "driver/env.h"
#include "report/plot.h"
#include "driver/results.h"
#include "run/run.h"
#include "tlbie-run.h"

#define NOT_GIVEN	UINT64_MAX

/* Options ------------------------------------------------------------------ */

static struct {
	uint64_t shm_mb, chunk_kb, ws_pages, mixed, inv, full, refill;
	unsigned int page_kb, iters, sets, ways;
	bool chase_per_iter, no_plot;
	const char *costs;
	long ceilings[MAX_CEILINGS];
	unsigned int nr_ceilings;
} o = { .shm_mb = 256, .chunk_kb = 2048, .ws_pages = 512, .inv = NOT_GIVEN, .full = NOT_GIVEN,
	.refill = NOT_GIVEN, .page_kb = 64, .iters = 4, .sets = 128, .ways = 8, .costs = "x86",
	.ceilings = { 0, 8, 16, 24, 30, 31, 32, 33, 34, 40, 48, 51, 52, 64, 128, 256 },
	.nr_ceilings = 16 };

static int opt_ceilings(const char *opt, const char *arg)
{
	const char *s = arg;
	char *end;

	o.nr_ceilings = 0;
	while (*s) {
		long v = strtol(s, &end, 10);

		if (end == s || v < 0 || *s == '-' || *s == '+' || o.nr_ceilings == MAX_CEILINGS ||
		    (*end && *end != ','))
			goto bad;
		o.ceilings[o.nr_ceilings++] = v;
		s = *end == ',' ? end + 1 : end;
	}
	if (o.nr_ceilings)
		return 0;
bad:
	fprintf(stderr, "tlbgen-bench tlbie: %s: '%s' is not a list of ceilings (numbers >= 0, "
		"comma-separated, at most %d)\n", opt, arg, MAX_CEILINGS);
	return -EINVAL;
}

static int opt_costs(const char *opt, const char *arg)
{
	if (strcmp(arg, "x86") && strcmp(arg, "seed004")) {
		fprintf(stderr, "tlbgen-bench tlbie: %s: '%s' is not one of x86, seed004\n", opt,
			arg);
		return -EINVAL;
	}
	o.costs = arg;
	return 0;
}

static const struct bench_opt tlbie_opts[] = {
	{ .name = "shm-mb", .arg = "N", .type = BOPT_U64, .dst = &o.shm_mb, .min = 1,
	  .max = 1UL << 20, .help = "shared range attached/filled/detached per iteration (256)" },
	{ .name = "page-kb", .arg = "N", .type = BOPT_UINT, .dst = &o.page_kb, .min = 1,
	  .max = 1U << 20, .help = "page size one model page stands for, a power of two\n"
				    "(64: radix; 4)" },
	{ .name = "chunk-kb", .arg = "N", .type = BOPT_U64, .dst = &o.chunk_kb, .min = 1,
	  .max = 1UL << 30, .help = "flush granularity of shmdt, >= --page-kb (2048: PMD_SIZE)" },
	{ .name = "ws-pages", .arg = "N", .type = BOPT_U64, .dst = &o.ws_pages, .min = 1,
	  .max = 1UL << 24, .help = "working set CPU 1 chases (512)" },
	{ .name = "chase-per-iter", .type = BOPT_FLAG, .dst = &o.chase_per_iter,
	  .help = "CPU 1 chases once per iteration, not after every flush" },
	{ .name = "mixed", .arg = "N", .type = BOPT_U64, .dst = &o.mixed, .min = 0,
	  .max = 100000, .help = "each iteration also unmaps 1, 2, ..., N pages (one flush each)" },
	{ .name = "iters", .arg = "N", .type = BOPT_UINT, .dst = &o.iters, .min = 1,
	  .max = 1000000, .help = "iterations per point (4)" },
	{ .name = "ceilings", .arg = "A,B,...", .type = BOPT_FN, .fn = opt_ceilings,
	  .help = "ceilings to sweep\n(0,8,16,24,30,31,32,33,34,40,48,51,52,64,128,256)" },
	{ .name = "costs", .arg = "x86|seed004", .type = BOPT_FN, .fn = opt_costs,
	  .help = "default cycle figures (x86: INVLPG 260, CR3 96, walk 26;\n"
		  "seed004: tlbie va 2439, tlbie pid 2698, walk 26)" },
	{ .name = "inv-cycles", .arg = "N", .type = BOPT_U64, .dst = &o.inv, .min = 0,
	  .max = LONG_MAX, .help = "override the per-page invalidation's cycles" },
	{ .name = "full-cycles", .arg = "N", .type = BOPT_U64, .dst = &o.full, .min = 0,
	  .max = LONG_MAX, .help = "override the full flush's cycles" },
	{ .name = "refill-cycles", .arg = "N", .type = BOPT_U64, .dst = &o.refill, .min = 0,
	  .max = LONG_MAX, .help = "override a TLB refill's cycles" },
	{ .name = "tlb-sets", .arg = "N", .type = BOPT_UINT, .dst = &o.sets, .min = 1,
	  .max = 65536, .help = "simulated TLB sets per CPU (128)" },
	{ .name = "no-plot", .type = BOPT_FLAG, .dst = &o.no_plot, .help = "draw no plot" },
	{ .name = "tlb-ways", .arg = "N", .type = BOPT_UINT, .dst = &o.ways, .min = 1, .max = 64,
	  .help = "simulated TLB ways per CPU (8)" },
	BENCH_OPT_END,
};

/* The options into *c: 0, or -EINVAL after a message naming the option. */
static int make_cfg(struct tlbie_cfg *c, const char *profile)
{
	memset(c, 0, sizeof(*c));
	c->profile = profile;
	c->page_kb = o.page_kb, c->iters = o.iters, c->sets = o.sets, c->ways = o.ways;
	c->chase_per_iter = o.chase_per_iter;
	c->mixed = o.mixed;
	c->costs = o.costs;
	c->ws_pages = o.ws_pages;
	memcpy(c->ceilings, o.ceilings, sizeof(c->ceilings));
	c->nr_ceilings = o.nr_ceilings;
	if (o.page_kb & (o.page_kb - 1)) {
		fprintf(stderr, "tlbgen-bench tlbie: --page-kb %u: not a power of two\n", o.page_kb);
		return -EINVAL;
	}
	if (o.chunk_kb < o.page_kb) {
		fprintf(stderr, "tlbgen-bench tlbie: --chunk-kb %llu: below --page-kb %u\n",
			(unsigned long long)o.chunk_kb, o.page_kb);
		return -EINVAL;
	}
	c->shm_pages = o.shm_mb * 1024 / o.page_kb;
	c->chunk_pages = o.chunk_kb / o.page_kb;
	if (!c->shm_pages || c->shm_pages + c->ws_pages + c->mixed > (1UL << 24)) {
		fprintf(stderr, "tlbgen-bench tlbie: --shm-mb %llu of %u KiB pages, --ws-pages %lu "
			"and --mixed %lu: %lu pages, want 1..%lu\n", (unsigned long long)o.shm_mb,
			o.page_kb, c->ws_pages, c->mixed, c->shm_pages + c->ws_pages + c->mixed,
			1UL << 24);
		return -EINVAL;
	}
	tlbgen_cost_model_default(&c->cost);
	if (!strcmp(c->costs, "seed004")) {
		/* Derived from seed 004's perf output, assuming one "work" unit is one
		 * shmat/fill/shmdt of 256 MB = 128 flushes of 32 x 64 KiB pages:
		 * before: PM_EXEC_STALL_TLBIE ~1.798e9/s at ~180 units/s over 4096
		 * tlbie va -> ~2439 cycles each; after (32 >=): ~1.110e8/s at ~321.5
		 * units/s over 128 tlbie pid -> ~2698 cycles each. */
		c->cost.inv_page_cycles = 2439;
		c->cost.full_flush_cycles = 2698;
	}
	if (o.inv != NOT_GIVEN)
		c->cost.inv_page_cycles = o.inv;
	if (o.full != NOT_GIVEN)
		c->cost.full_flush_cycles = o.full;
	if (o.refill != NOT_GIVEN)
		c->cost.refill_cycles = o.refill;
	return 0;
}

static const char *cmp_name(int cmp)
{
	return cmp == TLBGEN_CEILING_GT ? ">" : ">=";
}

static json_t *point_params(const struct tlbie_cfg *c, int cmp, long ceiling)
{
	return json_pack("{s:s,s:I,s:s}", "comparison", cmp_name(cmp), "ceiling",
			 (json_int_t)ceiling, "policy", c->label);
}

/* A metric of results.json (coordinates in pa, borrowed; 0 if absent), a
 * parameter of meta.json. */
static double get(const char *name, json_t *pa)
{
	double v = 0;

	return bench_metric_get(name, pa, &v) ? v : 0;
}

static double param(const char *key)
{
	return json_number_value(bench_meta_param_get(key));
}

/* results.json: one set of metrics per (comparison, ceiling). */
static void record_point(const struct tlbie_cfg *c, const struct tlbie_point *pt)
{
	json_t *pa = point_params(c, pt->cmp, pt->ceiling);
	uint64_t sum = pt->flush_cycles + pt->refill_cycles;

	bench_metric("flushes", "flushes", NULL, pa, (double)pt->flushes);
	bench_metric("ranged_flushes", "flushes", NULL, pa, (double)pt->ranged);
	bench_metric("full_flushes", "flushes", NULL, pa, (double)pt->full);
	bench_metric("tlbie_ops", "tlbie instructions", "lower", pa, (double)pt->ops);
	bench_metric("flush_cycles", "modelled cycles", "lower", pa, (double)pt->flush_cycles);
	bench_metric("refill_cycles", "modelled cycles", "lower", pa, (double)pt->refill_cycles);
	bench_metric("sum_cycles", "modelled cycles", "lower", pa, (double)sum);
	bench_metric("sum_us_per_iteration", "modelled us/iteration", "lower", pa,
		     (double)sum / c->iters / c->cost.mhz);
	bench_metric("violations", "violations", "lower", pa, (double)pt->violations);
	json_decref(pa);
}

/* One row of the table, from results.json. */
static void print_point(const struct tlbie_cfg *c, int cmp, long ceiling)
{
	json_t *pa = point_params(c, cmp, ceiling);

	printf("%-3s %8ld %8.0f %7.0f %6.0f %10.0f %14.0f %14.0f %14.0f %12.1f%s\n",
	       cmp_name(cmp), ceiling, get("flushes", pa), get("ranged_flushes", pa),
	       get("full_flushes", pa), get("tlbie_ops", pa), get("flush_cycles", pa),
	       get("refill_cycles", pa), get("sum_cycles", pa), get("sum_us_per_iteration", pa),
	       get("violations", pa) ? "  ORACLE VIOLATIONS" : "");
	json_decref(pa);
}

static void record_meta(const struct tlbie_cfg *c)
{
	bench_meta_seed(4);
	bench_meta_param("iterations", json_integer(c->iters));
	bench_meta_param("shm_mb", json_integer((json_int_t)o.shm_mb));
	bench_meta_param("shm_pages", json_integer((json_int_t)c->shm_pages));
	bench_meta_param("page_kb", json_integer(c->page_kb));
	bench_meta_param("chunk_pages", json_integer((json_int_t)c->chunk_pages));
	bench_meta_param("chunk_kb", json_integer((json_int_t)o.chunk_kb));
	bench_meta_param("ws_pages", json_integer((json_int_t)c->ws_pages));
	bench_meta_param("chase_per_iter", json_boolean(c->chase_per_iter));
	bench_meta_param("mixed", json_integer((json_int_t)c->mixed));
	bench_meta_param("tlb_sets", json_integer(c->sets));
	bench_meta_param("tlb_ways", json_integer(c->ways));
	bench_meta_param("costs", json_string(c->costs));
	bench_meta_param("inv_page_cycles", json_integer((json_int_t)c->cost.inv_page_cycles));
	bench_meta_param("full_flush_cycles", json_integer((json_int_t)c->cost.full_flush_cycles));
	bench_meta_param("refill_cycles", json_integer((json_int_t)c->cost.refill_cycles));
	bench_meta_param("mhz", json_integer(c->cost.mhz));
}

/* The header, from meta.json. */
static void print_header(const struct tlbie_cfg *c)
{
	printf("# tlbie (seed 004): %.0f iterations of shmat/fill/shmdt of %.0f MB = %.0f pages "
	       "of %.0f KiB,\n#   shmdt flushes every %.0f pages (%.0f KiB); CPU 1 chases %.0f "
	       "pages %s; profile %s\n", param("iterations"), param("shm_mb"), param("shm_pages"),
	       param("page_kb"), param("chunk_pages"), param("chunk_kb"), param("ws_pages"),
	       json_is_true(bench_meta_param_get("chase_per_iter")) ? "once per iteration"
								   : "after every flush",
	       c->label);
	if (param("mixed"))
		printf("#   plus, per iteration, munmap()s of 1..%.0f pages, one flush each\n",
		       param("mixed"));
	printf("# flush type: global (tlbie: CPU 1 is in mm_cpumask); TLB %.0f sets x %.0f ways "
	       "per CPU\n", param("tlb_sets"), param("tlb_ways"));
	printf("# cost model (%s): inv_page %.0f, full_flush %.0f, refill %.0f cycles; %.0f MHz\n",
	       json_string_value(bench_meta_param_get("costs")), param("inv_page_cycles"),
	       param("full_flush_cycles"), param("refill_cycles"), param("mhz"));
	printf("%-3s %8s %8s %7s %6s %10s %14s %14s %14s %12s\n", "cmp", "ceiling", "flushes",
	       "ranged", "full", "tlbie_ops", "flush_cycles", "refill_cycles", "sum_cycles",
	       "sum_us/iter");
}

/* The best point and the two the RFC compares, from results.json. */
static void print_summary(const struct tlbie_cfg *c)
{
	double best = -1, v;
	json_t *pa;
	int bcmp = 0;
	long bceil = 0;

	for (int cmp = TLBGEN_CEILING_GT; cmp <= TLBGEN_CEILING_GE; cmp++)
		for (unsigned int i = 0; i < c->nr_ceilings; i++) {
			pa = point_params(c, cmp, c->ceilings[i]);
			v = get("sum_cycles", pa);
			json_decref(pa);
			if (best < 0 || v < best)
				best = v, bcmp = cmp, bceil = c->ceilings[i];
		}
	printf("best: ceiling %ld with '%s' (sum %.0f cycles); equal sums at:", bceil,
	       cmp_name(bcmp), best);
	for (int cmp = TLBGEN_CEILING_GT; cmp <= TLBGEN_CEILING_GE; cmp++)
		for (unsigned int i = 0; i < c->nr_ceilings; i++) {
			pa = point_params(c, cmp, c->ceilings[i]);
			if (get("sum_cycles", pa) == best)
				printf(" %s%ld", cmp_name(cmp), c->ceilings[i]);
			json_decref(pa);
		}
	printf("\n");
	for (int cmp = TLBGEN_CEILING_GT; cmp <= TLBGEN_CEILING_GE; cmp++) {
		long ceil = cmp == TLBGEN_CEILING_GT ? 33 : 32;

		pa = point_params(c, cmp, ceil);
		if (bench_metric_get("sum_cycles", pa, &v))
			printf("%s: %s%ld sum %.0f cycles (flush %.0f + refill %.0f)\n",
			       cmp == TLBGEN_CEILING_GT ? "mainline" : "RFC     ", cmp_name(cmp),
			       ceil, v, get("flush_cycles", pa), get("refill_cycles", pa));
		json_decref(pa);
	}
	pa = json_object();
	bench_metric("break_even_cycles_per_flush", "modelled cycles", NULL, pa,
		     (double)(c->cost.full_flush_cycles +
			      (c->chase_per_iter ? 0 : c->ws_pages * c->cost.refill_cycles)));
	printf("# break-even per flush of n pages: n * inv_page = full_flush + refills of the "
	       "working set (%.0f cycles here)\n", get("break_even_cycles_per_flush", pa));
	json_decref(pa);
}

/* The sweep's plot (ceilings.svg), from results.json: the sum per
 * comparison, and its two parts, against the ceiling. */
static int plot(const struct tlbie_cfg *c)
{
	static const char *const part[] = { "flush_cycles", "refill_cycles" };
	char title[256], t[64];
	struct bench_plot *pl;
	int sum, parts, ret;

	snprintf(title, sizeof(title), "seed 004: powerpc radix global ceiling, %s, %s costs, "
		 "%u iterations", c->label, c->costs, c->iters);
	pl = bench_plot_new("ceilings", title, "ceiling (pages)");
	if (!pl)
		return 1;
	sum = bench_plot_panel(pl, "modelled cycles: flushes (CPU 0) + refills (CPU 1)", "cycles",
			       BENCH_PLOT_FROM_ZERO | BENCH_PLOT_X_AUTO);
	parts = bench_plot_panel(pl, "its parts", "cycles", BENCH_PLOT_FROM_ZERO |
				 BENCH_PLOT_X_AUTO);
	for (int cmp = TLBGEN_CEILING_GT; cmp <= TLBGEN_CEILING_GE; cmp++) {
		int ss, sp[2];

		snprintf(t, sizeof(t), "'%s'", cmp_name(cmp));
		ss = bench_plot_series(pl, sum, t, (unsigned int)cmp);
		for (int k = 0; k < 2; k++) {
			snprintf(t, sizeof(t), "%s '%s'", part[k], cmp_name(cmp));
			sp[k] = bench_plot_series(pl, parts, t, 2 + 2 * (unsigned int)cmp + k);
		}
		for (unsigned int i = 0; i < c->nr_ceilings; i++) {
			json_t *pa = point_params(c, cmp, c->ceilings[i]);

			bench_plot_point(pl, sum, ss, c->ceilings[i], get("sum_cycles", pa), NAN, NAN);
			for (int k = 0; k < 2; k++)
				bench_plot_point(pl, parts, sp[k], c->ceilings[i], get(part[k], pa),
						 NAN, NAN);
			json_decref(pa);
		}
	}
	ret = bench_plot_draw(pl, NULL, NULL, 0);
	bench_plot_free(pl);
	return ret;
}

static int tlbie_run(struct bench_env *e)
{
	static const char *const defs[] = { "latest", NULL };
	struct tlbie_cfg c;
	uint64_t t0;
	json_t *pa;
	int status = 0;

	if (!bench_modes(e) || bench_env_policies(e, defs))
		return 2;
	if (e->shapes) {
		fprintf(stderr, "tlbgen-bench tlbie: --shape: its 2 CPUs share one mm (every flush "
			"a global tlbie; no shape to choose)\n");
		return 2;
	}
	if (e->npol != 1) {
		fprintf(stderr, "tlbgen-bench tlbie: -p %s: one policy only, %s given (the sweep "
			"varies the ceiling and its comparison, which -p does not choose)\n",
			e->pol[1].label, e->pol[0].label);
		return 2;
	}
	if (make_cfg(&c, e->pol[0].name))
		return 2;
	c.label = e->pol[0].label;
	record_meta(&c);
	print_header(&c);
	t0 = bench_now_ns();
	for (int cmp = TLBGEN_CEILING_GT; cmp <= TLBGEN_CEILING_GE && !status; cmp++) {
		for (unsigned int i = 0; i < c.nr_ceilings && !status; i++) {
			struct tlbie_point pt;
			int err = tlbie_run_point(&c, cmp, c.ceilings[i], &pt);

			if (err) {
				fprintf(stderr, "tlbgen-bench tlbie: run failed: %s\n", strerror(-err));
				return 1;
			}
			record_point(&c, &pt);
			print_point(&c, cmp, c.ceilings[i]);
			status = pt.violations ? 1 : 0;
		}
	}
	if (!status)
		print_summary(&c);
	if (!status && !o.no_plot)
		status = plot(&c);
	pa = json_object();
	bench_metric("host_seconds", "s", NULL, pa, (double)(bench_now_ns() - t0) / 1e9);
	printf("# wall %.2f s\n", get("host_seconds", pa));
	json_decref(pa);
	return status;
}

const struct bench bench_tlbie = {
	.name = "tlbie",
	.summary = "seed 004: range-ceiling sweep, flush cost vs refill cost (shmat/fill/shmdt)",
	.help = "Seed 004: sweep the powerpc radix global tlbie ceiling and its comparison\n"
		"(mainline 33 '>', the RFC 32 '>='): 2 emulated CPUs share one mm; CPU 0\n"
		"fills and detaches --shm-mb per iteration, flushing each page table's worth\n"
		"(--chunk-kb) with __radix__flush_tlb_range(); CPU 1 chases --ws-pages after\n"
		"every flush. The cost model gives the flush cycles paid by CPU 0 and the\n"
		"refill cycles paid by CPU 1; the best point minimises their sum. One policy\n"
		"(-p, default latest). Exit 1 on an oracle violation.\n",
	.shared = BENCH_O_POLICY | BENCH_O_MODE | BENCH_O_JSON,
	.modes = BENCH_M_STEPPED,
	.modes_why = "its figures are the cost model's cycles counted step by step on 2 CPUs "
		     "(flushes paid by one, refills by the other); no thread or machine model "
		     "times a powerpc tlbie",
	.opts = tlbie_opts,
	.run = tlbie_run,
};
BENCH_COMMAND(bench_tlbie);
