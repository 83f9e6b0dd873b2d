// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/tlbie.c - seed 004: "What does refilling the TLB after the full
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
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common.h"
#include "results.h"

int bench_tlbie_main(int argc, char **argv);

struct cfg {
	unsigned long shm_pages, chunk_pages, ws_pages;
	unsigned int page_kb, iters, sets, ways;
	bool chase_per_iter;
	unsigned long mixed;		/* also munmap 1..mixed pages, one of each size */
	struct tlbgen_cost_model cost;
	const char *costs;
	long ceilings[64];
	unsigned int nr_ceilings;
};

struct point {
	int cmp;
	long ceiling;
	uint64_t flushes, ranged, full, ops;
	uint64_t flush_cycles, refill_cycles, refills;
	long violations;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tlbgen-bench tlbie [options]\n"
		"  seed 004: sweep the powerpc radix global ceiling and its comparison;\n"
		"  print flush cost, refill cost and their sum; name the best ceiling.\n"
		"  --shm-mb N          shared range attached/filled/detached per iteration (256)\n"
		"  --page-kb N         page size one model page stands for (64: radix; 4)\n"
		"  --chunk-kb N        flush granularity of shmdt (2048: PMD_SIZE)\n"
		"  --ws-pages N        working set CPU 1 chases (512)\n"
		"  --chase-per-iter    CPU 1 chases once per iteration, not after every flush\n"
		"  --mixed N           each iteration also unmaps 1, 2, ..., N pages (one flush each)\n"
		"  --iters N           iterations per point (4)\n"
		"  --ceilings A,B,...  ceilings to sweep (0,8,16,24,30,31,32,33,34,40,48,51,52,64,128,256)\n"
		"  --costs x86|seed004 default cycle figures (x86: INVLPG 260, CR3 96, walk 26;\n"
		"                      seed004: tlbie va 2439, tlbie pid 2698, walk 26)\n"
		"  --inv-cycles N --full-cycles N --refill-cycles N   override one figure\n"
		"  --tlb-sets N --tlb-ways N   simulated TLB per CPU (128 x 8)\n");
}

static int parse_list(const char *s, struct cfg *c)
{
	char *end;

	c->nr_ceilings = 0;
	while (*s && c->nr_ceilings < 64) {
		long v = strtol(s, &end, 0);

		if (end == s || v < 0)
			return -EINVAL;
		c->ceilings[c->nr_ceilings++] = v;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -EINVAL;
	}
	return c->nr_ceilings ? 0 : -EINVAL;
}

/* A cycle figure overriding the --costs default; *out stays -1 when not given. */
static int parse_cycles(const char *opt, const char *arg, long *out)
{
	unsigned long v;
	int err = bench_parse_ulong(opt, arg, 0, LONG_MAX, &v);

	if (!err)
		*out = (long)v;
	return err;
}

static int run_point(const struct cfg *c, int cmp, long ceiling, struct point *pt)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_STEPPED,
		    .profile = "latest", .tlb_sets = c->sets, .tlb_ways = c->ways, .seed = 4);
	unsigned long ws0 = c->shm_pages, mx0 = c->shm_pages + c->ws_pages;
	unsigned long npages = mx0 + c->mixed;
	struct tlbgen_system *sys;
	struct tlbgen_cost_account a0, a1;
	struct tlbgen_range_flush d;
	struct tlbgen_mm *mm;
	int err;

	memset(pt, 0, sizeof(*pt));
	pt->cmp = cmp;
	pt->ceiling = ceiling;
	err = tlbgen_system__create(&o, &sys);
	if (err)
		return err;
	if ((err = tlbgen_system__set_cost_model(sys, &c->cost)) ||
	    (err = tlbgen_ceiling__set(sys, TLBGEN_ARCH_PPC_RADIX_GLOBAL, ceiling)) ||
	    (err = tlbgen_ceiling__set_cmp(sys, TLBGEN_ARCH_PPC_RADIX_GLOBAL,
					   (enum tlbgen_ceiling_cmp)cmp)) ||
	    (err = tlbgen_mm__create(sys, npages, &mm)) ||
	    (err = tlbgen_switch_mm(sys, 0, mm)) || (err = tlbgen_switch_mm(sys, 1, mm)))
		goto out;
	for (unsigned long p = 0; p < c->shm_pages; p++)
		tlbgen_pte_set(sys, 0, mm, p * TLBGEN_PAGE_SIZE, TLBGEN_PTEF_NONE);
	for (unsigned long p = ws0; p < mx0; p++)	/* warm CPU 1's working set */
		tlbgen_access(sys, 1, p * TLBGEN_PAGE_SIZE);
	tlbgen_cost__reset(sys);

	for (unsigned int it = 0; it < c->iters; it++) {
		/* shmat + fillshm */
		for (unsigned long p = 0; p < c->shm_pages; p++) {
			tlbgen_pte_set(sys, 0, mm, p * TLBGEN_PAGE_SIZE,
				       TLBGEN_PTEF_WRITE | TLBGEN_PTEF_DIRTY | TLBGEN_PTEF_YOUNG);
			tlbgen_access(sys, 0, p * TLBGEN_PAGE_SIZE);
		}
		/* shmdt: one forced flush per page table */
		for (unsigned long s = 0; s < c->shm_pages; s += c->chunk_pages) {
			unsigned long e = s + c->chunk_pages < c->shm_pages ? s + c->chunk_pages
									     : c->shm_pages;

			for (unsigned long p = s; p < e; p++)
				tlbgen_pte_set(sys, 0, mm, p * TLBGEN_PAGE_SIZE, TLBGEN_PTEF_NONE);
			err = tlbgen_ppc_radix_flush_tlb_range(sys, 0, mm, s * TLBGEN_PAGE_SIZE,
							       e * TLBGEN_PAGE_SIZE,
							       TLBGEN_PAGE_SHIFT, &d);
			if (err < 0)
				goto out;
			pt->flushes++;
			if (d.full)
				pt->full++;
			else
				pt->ranged++;
			pt->ops += d.ops;
			if (!c->chase_per_iter)
				for (unsigned long p = ws0; p < mx0; p++)
					tlbgen_access(sys, 1, p * TLBGEN_PAGE_SIZE);
		}
		/* --mixed: munmap()s of every size 1..N, each its own flush. */
		for (unsigned long n = 1; n <= c->mixed; n++) {
			for (unsigned long p = mx0; p < mx0 + n; p++) {
				tlbgen_pte_set(sys, 0, mm, p * TLBGEN_PAGE_SIZE,
					       TLBGEN_PTEF_WRITE | TLBGEN_PTEF_DIRTY | TLBGEN_PTEF_YOUNG);
				tlbgen_access(sys, 0, p * TLBGEN_PAGE_SIZE);
			}
			for (unsigned long p = mx0; p < mx0 + n; p++)
				tlbgen_pte_set(sys, 0, mm, p * TLBGEN_PAGE_SIZE, TLBGEN_PTEF_NONE);
			err = tlbgen_ppc_radix_flush_tlb_range(sys, 0, mm, mx0 * TLBGEN_PAGE_SIZE,
							       (mx0 + n) * TLBGEN_PAGE_SIZE,
							       TLBGEN_PAGE_SHIFT, &d);
			if (err < 0)
				goto out;
			pt->flushes++;
			pt->full += d.full;
			pt->ranged += !d.full;
			pt->ops += d.ops;
			if (!c->chase_per_iter)
				for (unsigned long p = ws0; p < mx0; p++)
					tlbgen_access(sys, 1, p * TLBGEN_PAGE_SIZE);
		}
		if (c->chase_per_iter)
			for (unsigned long p = ws0; p < mx0; p++)
				tlbgen_access(sys, 1, p * TLBGEN_PAGE_SIZE);
	}
	tlbgen_cost__cpu(sys, 0, &a0);
	tlbgen_cost__cpu(sys, 1, &a1);
	pt->flush_cycles = a0.inv_cycles + a0.full_cycles + a1.inv_cycles + a1.full_cycles;
	pt->refill_cycles = a1.refill_cycles;
	pt->refills = a1.refills;
	pt->violations = tlbgen_oracle__violations(sys);
	err = 0;
out:
	tlbgen_system__destroy(sys);
	return err;
}

/* results.json: one set of metrics per (comparison, ceiling). */
static void record_point(const struct cfg *c, const struct point *pt)
{
	json_t *pa = json_pack("{s:s,s:I}", "comparison", pt->cmp == TLBGEN_CEILING_GT ? ">" : ">=",
			       "ceiling", (json_int_t)pt->ceiling);
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

int bench_tlbie_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "shm-mb", 1, NULL, 's' }, { "page-kb", 1, NULL, 'p' }, { "chunk-kb", 1, NULL, 'k' },
		{ "ws-pages", 1, NULL, 'w' }, { "iters", 1, NULL, 'i' }, { "ceilings", 1, NULL, 'c' },
		{ "costs", 1, NULL, 'C' }, { "inv-cycles", 1, NULL, 'I' },
		{ "full-cycles", 1, NULL, 'F' }, { "refill-cycles", 1, NULL, 'R' },
		{ "tlb-sets", 1, NULL, 'S' }, { "tlb-ways", 1, NULL, 'W' },
		{ "chase-per-iter", 0, NULL, 'P' }, { "mixed", 1, NULL, 'M' }, { "help", 0, NULL, 'h' }, { 0 },
	};
	unsigned long shm_mb = 256, chunk_kb = 2048;
	long inv = -1, full = -1, refill = -1;
	struct cfg c = { .page_kb = 64, .ws_pages = 512, .iters = 4, .sets = 128, .ways = 8,
			 .costs = "x86" };
	struct point *pts, *best = NULL;
	unsigned int npts = 0;
	uint64_t t0;
	int opt, bad = 0, err = 0;

	parse_list("0,8,16,24,30,31,32,33,34,40,48,51,52,64,128,256", &c);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case 's':
			err = bench_parse_ulong("--shm-mb", optarg, 1, ULONG_MAX / 1024, &shm_mb);
			break;
		case 'p':
			err = bench_parse_uint("--page-kb", optarg, 1, UINT_MAX, &c.page_kb);
			break;
		case 'k':
			err = bench_parse_ulong("--chunk-kb", optarg, 0, ULONG_MAX, &chunk_kb);
			break;
		case 'w':
			err = bench_parse_ulong("--ws-pages", optarg, 1, 1UL << 24, &c.ws_pages);
			break;
		case 'i':
			err = bench_parse_uint("--iters", optarg, 1, UINT_MAX, &c.iters);
			break;
		case 'c':
			err = parse_list(optarg, &c);
			if (err)
				fprintf(stderr, "tlbgen-bench: --ceilings: '%s' is not a list of "
					"numbers\n", optarg);
			break;
		case 'C': c.costs = optarg; break;
		case 'I':
			err = parse_cycles("--inv-cycles", optarg, &inv);
			break;
		case 'F':
			err = parse_cycles("--full-cycles", optarg, &full);
			break;
		case 'R':
			err = parse_cycles("--refill-cycles", optarg, &refill);
			break;
		case 'S':
			err = bench_parse_uint("--tlb-sets", optarg, 1, 65536, &c.sets);
			break;
		case 'W':
			err = bench_parse_uint("--tlb-ways", optarg, 1, 64, &c.ways);
			break;
		case 'P': c.chase_per_iter = true; break;
		case 'M':
			err = bench_parse_ulong("--mixed", optarg, 0, 100000, &c.mixed);
			break;
		case 'h': usage(stdout); return 0;
		default: bad = 1;
		}
		if (err) {
			usage(stderr);
			return 2;
		}
	}
	tlbgen_cost_model_default(&c.cost);
	if (!strcmp(c.costs, "seed004")) {
		/* Derived from seed 004's perf output, assuming one "work" unit is one
		 * shmat/fill/shmdt of 256 MB = 128 flushes of 32 x 64 KiB pages:
		 * before: PM_EXEC_STALL_TLBIE ~1.798e9/s at ~180 units/s over 4096
		 * tlbie va -> ~2439 cycles each; after (32 >=): ~1.110e8/s at ~321.5
		 * units/s over 128 tlbie pid -> ~2698 cycles each. */
		c.cost.inv_page_cycles = 2439;
		c.cost.full_flush_cycles = 2698;
	} else if (strcmp(c.costs, "x86")) {
		bad = 1;
	}
	if (inv >= 0)
		c.cost.inv_page_cycles = (uint64_t)inv;
	if (full >= 0)
		c.cost.full_flush_cycles = (uint64_t)full;
	if (refill >= 0)
		c.cost.refill_cycles = (uint64_t)refill;
	if (bad || optind != argc || !c.page_kb || (c.page_kb & (c.page_kb - 1)) || !c.iters ||
	    !shm_mb || chunk_kb < c.page_kb || !c.ws_pages || !c.sets || !c.ways ||
	    c.ways > 64 || c.sets > 65536) {
		usage(stderr);
		return 2;
	}
	c.shm_pages = shm_mb * 1024 / c.page_kb;
	c.chunk_pages = chunk_kb / c.page_kb;
	if (c.shm_pages + c.ws_pages + c.mixed > (1UL << 24) || c.mixed > 100000) {
		usage(stderr);
		return 2;
	}

	printf("# tlbie (seed 004): %u iterations of shmat/fill/shmdt of %lu MB = %lu pages of %u KiB,\n"
	       "#   shmdt flushes every %lu pages (%lu KiB); CPU 1 chases %lu pages %s\n",
	       c.iters, shm_mb, c.shm_pages, c.page_kb, c.chunk_pages, chunk_kb, c.ws_pages,
	       c.chase_per_iter ? "once per iteration" : "after every flush");
	if (c.mixed)
		printf("#   plus, per iteration, munmap()s of 1..%lu pages, one flush each\n", c.mixed);
	printf("# flush type: global (tlbie: CPU 1 is in mm_cpumask); TLB %u sets x %u ways per CPU\n",
	       c.sets, c.ways);
	printf("# cost model (%s): inv_page %llu, full_flush %llu, refill %llu cycles; %u MHz\n",
	       c.costs, (unsigned long long)c.cost.inv_page_cycles,
	       (unsigned long long)c.cost.full_flush_cycles,
	       (unsigned long long)c.cost.refill_cycles, c.cost.mhz);
	printf("%-3s %8s %8s %7s %6s %10s %14s %14s %14s %12s\n", "cmp", "ceiling", "flushes",
	       "ranged", "full", "tlbie_ops", "flush_cycles", "refill_cycles", "sum_cycles",
	       "sum_us/iter");
	pts = calloc(2 * c.nr_ceilings, sizeof(*pts));
	if (!pts)
		return 1;
	bench_meta_policy("latest", "latest");
	bench_meta_seed(4);
	bench_meta_param("iterations", json_integer(c.iters));
	bench_meta_param("costs", json_string(c.costs));
	bench_meta_param("mixed", json_integer((json_int_t)c.mixed));
	t0 = bench_now_ns();
	for (int cmp = TLBGEN_CEILING_GT; cmp <= TLBGEN_CEILING_GE; cmp++) {
		for (unsigned int i = 0; i < c.nr_ceilings; i++) {
			struct point *pt = &pts[npts++];
			int err = run_point(&c, cmp, c.ceilings[i], pt);
			uint64_t sum;

			if (err) {
				fprintf(stderr, "tlbie: run failed: %s\n", strerror(-err));
				free(pts);
				return 1;
			}
			sum = pt->flush_cycles + pt->refill_cycles;
			printf("%-3s %8ld %8llu %7llu %6llu %10llu %14llu %14llu %14llu %12.1f%s\n",
			       cmp == TLBGEN_CEILING_GT ? ">" : ">=", pt->ceiling,
			       (unsigned long long)pt->flushes, (unsigned long long)pt->ranged,
			       (unsigned long long)pt->full, (unsigned long long)pt->ops,
			       (unsigned long long)pt->flush_cycles,
			       (unsigned long long)pt->refill_cycles, (unsigned long long)sum,
			       (double)sum / c.iters / c.cost.mhz,
			       pt->violations ? "  ORACLE VIOLATIONS" : "");
			record_point(&c, pt);
			if (!best || sum < best->flush_cycles + best->refill_cycles)
				best = pt;
			if (pt->violations) {
				free(pts);
				return 1;
			}
		}
	}
	printf("best: ceiling %ld with '%s' (sum %llu cycles); equal sums at:",
	       best->ceiling, best->cmp == TLBGEN_CEILING_GT ? ">" : ">=",
	       (unsigned long long)(best->flush_cycles + best->refill_cycles));
	for (unsigned int i = 0; i < npts; i++)
		if (pts[i].flush_cycles + pts[i].refill_cycles ==
		    best->flush_cycles + best->refill_cycles)
			printf(" %s%ld", pts[i].cmp == TLBGEN_CEILING_GT ? ">" : ">=", pts[i].ceiling);
	printf("\n");
	for (unsigned int i = 0; i < npts; i++)
		if ((pts[i].cmp == TLBGEN_CEILING_GT && pts[i].ceiling == 33) ||
		    (pts[i].cmp == TLBGEN_CEILING_GE && pts[i].ceiling == 32))
			printf("%s: %s%ld sum %llu cycles (flush %llu + refill %llu)\n",
			       pts[i].cmp == TLBGEN_CEILING_GT ? "mainline" : "RFC     ",
			       pts[i].cmp == TLBGEN_CEILING_GT ? ">" : ">=", pts[i].ceiling,
			       (unsigned long long)(pts[i].flush_cycles + pts[i].refill_cycles),
			       (unsigned long long)pts[i].flush_cycles,
			       (unsigned long long)pts[i].refill_cycles);
	printf("# break-even per flush of n pages: n * inv_page = full_flush + refills of the "
	       "working set (%llu cycles here)\n",
	       (unsigned long long)(c.cost.full_flush_cycles +
				    (c.chase_per_iter ? 0 : c.ws_pages * c.cost.refill_cycles)));
	printf("# wall %.2f s\n", (double)(bench_now_ns() - t0) / 1e9);
	free(pts);
	return 0;
}
