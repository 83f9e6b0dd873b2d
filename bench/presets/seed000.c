// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/presets/seed000.c - seed 000 (Nadav Amit, aa44284960: avoid reading
 * mm->tlb_gen in flush_tlb_func()) as a preset over tlb_flush1: v5.17
 * against v6.0, and in virtual time the seed's two tables beside the
 * model's; `mesi` is its stepped coherence account of the four columns.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "driver/common.h"
#include "driver/env.h"
#include "report/report-stepped.h"
#include "report/report-virtual.h"
#include "report/report.h"
#include "run/run.h"
#include "driver/threaded-opts.h"
#include "run/threaded-run.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

extern const struct bench_ops bench_tlb_flush1_ops;
int bench_seed000_check_host(uint64_t seed);

/* The seed's first table: 56-core Skylake, v5.17+ against +aa44284960. */
static const struct { unsigned int threads; double base, patch; } seed_t1[] = {
	{ 1, 159960, 160202 }, { 5, 310808, 308378 }, { 10, 479110, 490728 },
	{ 15, 526771, 562528 }, { 20, 534495, 587316 }, { 25, 547462, 628296 },
	{ 30, 579616, 666313 }, { 35, 594134, 701814 }, { 40, 612288, 732967 },
	{ 45, 617517, 749727 }, { 50, 637476, 735497 }, { 55, 614363, 778913 },
};

/* Its second table (a Haswell box, PTI on): 5.18.1, +patch, "touch
 * mm->tlb_gen" (early return, tlb_gen read kept), "no mm->tlb_gen". */
static const struct { unsigned int threads; double col[4]; } seed_t2[] = {
	{ 1, { 159504, 159705, 159284, 159499 } }, { 5, { 326725, 320440, 323629, 303195 } },
	{ 10, { 489841, 497678, 498601, 442976 } }, { 15, { 552282, 576148, 570337, 503709 } },
	{ 20, { 588333, 628960, 619342, 551789 } }, { 25, { 637319, 675633, 659985, 591575 } },
	{ 30, { 643372, 691581, 670599, 613017 } }, { 35, { 677259, 706157, 689624, 646873 } },
	{ 40, { 659309, 728078, 716718, 655364 } }, { 45, { 670985, 735346, 696558, 665500 } },
};

static const char *const col_spec[5] = {
	"v5.17", "v6.0", "v6.0:mm_tlb_gen_read=always", "v6.0:mm_tlb_gen_read=never", NULL,
};
static const char *const col_label[4] = { "base", "+patch", "touch tlb_gen", "no tlb_gen" };

static unsigned int columns = 2;
static bool check_host, interval;
static unsigned int interval_runs = 2;

static double ref_t1(bool processes, unsigned int threads, unsigned int k)
{
	(void)processes;
	for (size_t r = 0; r < ARRAY_SIZE(seed_t1); r++)
		if (seed_t1[r].threads == threads)
			return k == 0 ? seed_t1[r].base : k == 1 ? seed_t1[r].patch : 0;
	return 0;
}

static double ref_t2(bool processes, unsigned int threads, unsigned int k)
{
	(void)processes;
	for (size_t r = 0; r < ARRAY_SIZE(seed_t2); r++)
		if (seed_t2[r].threads == threads)
			return k < 4 ? seed_t2[r].col[k] : 0;
	return 0;
}

static int opt_columns(const char *opt, const char *arg)
{
	if (bench_parse_uint(opt, arg, 2, 4, &columns) || columns == 3) {
		fprintf(stderr, "tlbgen-bench: %s: 2 or 4\n", opt);
		return -EINVAL;
	}
	return 0;
}

static const struct bench_opt seed000_opts[] = {
	{ .name = "columns", .arg = "2|4", .type = BOPT_FN, .fn = opt_columns,
	  .help = "virtual: 2, the seed's first table (v5.17, v6.0; machine\n"
		  "skylake-56, PTI off as that run); 4, its second (base, +patch,\n"
		  "touch mm->tlb_gen, no mm->tlb_gen; skylake-56-pti)" },
	{ .name = "interval", .type = BOPT_FLAG, .dst = &interval,
	  .help = "virtual: after the table, each row again with every figure of the\n"
		  "machine that has a stated range (docs/machines.md) at its low and its\n"
		  "high end, one at a time; prints and records each row's interval\n"
		  "(ops_per_sec_interval_low/high) and which figures widen it most" },
	{ .name = "interval-runs", .arg = "N", .type = BOPT_UINT, .dst = &interval_runs,
	  .min = 1, .max = BENCH_ROW_MAX_SEEDS,
	  .help = "virtual --interval: seeds per rerun (default 2)" },
	{ .name = "check-host", .type = BOPT_FLAG, .dst = &check_host,
	  .help = "virtual on the host's measured model against the threaded mode\n"
		  "doing the same work, 1 and 2 threads, 5 rounds (only --seed)" },
	BENCH_OPT_END,
};

/* Virtual time: the seed's table beside the model's. */
static int seed000_virtual(struct bench_env *e)
{
	bool user = e->npol > 0 && (e->given & BENCH_O_POLICY);
	struct bench_vtable t = {
		.workload = "seed000", .ops = &bench_tlb_flush1_ops,
		.title = "seed 000: will-it-scale tlb_flush1_threads",
		.machine = e->machine_spec ? e->machine_spec
			   : columns == 4 ? "skylake-56-pti" : "skylake-56",
		.label = user ? NULL : col_label,
		.ref = user ? NULL : columns == 4 ? ref_t2 : ref_t1,
		.model_line = user ? NULL
			      : columns == 4 ? "the seed's table: the thread's second (a Haswell "
					       "box); model - seed: the model's error, %"
					     : "the seed's table: the thread's first (56-core "
					       "Skylake); model - seed: the model's error, %",
		.flushes_note = bench_tlb_flush1_ops.flushes_note,
		.interval_runs = interval ? interval_runs : 0,
	};

	/* aa44284960's first table ran with PTI off, its four columns with it on. */
	if (bench_env_machine(e, t.machine))
		return 2;
	if (!e->nthreads) {
		size_t n = columns == 4 ? ARRAY_SIZE(seed_t2) : ARRAY_SIZE(seed_t1);

		for (size_t i = 0; i < n; i++)
			e->threads[e->nthreads++] = columns == 4 ? seed_t2[i].threads
								 : seed_t1[i].threads;
	}
	if (bench_check_threads(e))
		return 2;
	return bench_vtable_run(e, &t, false);
}

static int seed000_run(struct bench_env *e)
{
	unsigned int modes = bench_modes(e);
	int ret = 0;

	if (check_host) {
		if (e->given & ~(BENCH_O_SEED | BENCH_O_MODE)) {
			fprintf(stderr, "tlbgen-bench seed000: --check-host takes only --seed\n");
			return 2;
		}
		return bench_seed000_check_host(e->seed);
	}
	if (!modes)
		return 2;
	if (interval && !(modes & BENCH_M_VIRTUAL)) {
		fprintf(stderr, "tlbgen-bench seed000: --interval is the virtual tables' (--mode "
			"virtual)\n");
		return 2;
	}
	if (columns == 4 && !(modes & BENCH_M_VIRTUAL)) {
		fprintf(stderr, "tlbgen-bench seed000: --columns is the virtual tables' (--mode "
			"virtual)\n");
		return 2;
	}
	if (bench_env_policies(e, (modes & BENCH_M_VIRTUAL) && columns == 4 ? col_spec
		: (modes & BENCH_M_STEPPED) ? col_spec : (const char *const[]){ "v5.17", "v6.0",
										NULL }))
		return 2;
	if (!e->jobs)
		e->jobs = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	/* The headline: the MESI account of Nadav Amit's four columns. */
	if (!(e->given & BENCH_O_POLICY))
		bench_threaded_mesi_cols = col_spec;
	if (modes & BENCH_M_STEPPED)
		ret |= bench_stable_run(e, "tlb_flush1", &bench_tlb_flush1_ops, false);
	if (modes & BENCH_M_THREADED)
		ret |= bench_threaded_run(e, "tlb_flush1", &bench_tlb_flush1_ops,
					  modes & BENCH_M_THREADED);
	if (modes & BENCH_M_VIRTUAL)
		ret |= seed000_virtual(e);
	else if (!ret)
		printf("# seed 000's 56-core tables, on a machine model (on any host): "
		       "tlbgen-bench seed000 --mode virtual\n");
	return ret;
}

const struct bench bench_seed000 = {
	.name = "seed000",
	.summary = "default (no arguments): seed 000, tlb_flush1 v5.17 vs v6.0; --mode virtual: "
		   "the seed's 56-core tables",
	.help = "Seed 000 (Nadav Amit, aa44284960: flush_tlb_func() returns before reading\n"
		"mm->tlb_gen when the flush's generation is already done). The default is\n"
		"the threaded headline: will-it-scale tlb_flush1 threads 1..nproc, v5.17\n"
		"against v6.0, and the MESI account of the seed's four columns. --mode\n"
		"virtual: the seed's tables computed on a machine model beside the seed's\n"
		"figures, each row a mean over seeds (--runs), with the error per row.\n",
	.shared = BENCH_O_WORKLOAD,
	.modes = BENCH_M_ALL,
	.default_modes = BENCH_M_THREADS,
	.opts = seed000_opts,
	.ops = &bench_tlb_flush1_ops,
	.run = seed000_run,
};
BENCH_COMMAND(bench_seed000);

/* mesi: the stepped coherence account of the seed's four columns. */
static int mesi_run(struct bench_env *e)
{
	if (!bench_modes(e) || bench_env_policies(e, col_spec))
		return 2;
	if (!e->nthreads)
		e->threads[e->nthreads++] = 8;
	if (!e->jobs)
		e->jobs = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	return bench_stable_run(e, "tlb_flush1", &bench_tlb_flush1_ops, false);
}

const struct bench bench_mesi = {
	.name = "mesi",
	.summary = "seed 000: MESI cacheline transfers per flush, Nadav Amit's four columns "
		   "(stepped)",
	.help = "Seed 000's coherence account: tlb_flush1 in stepped mode under the seed's\n"
		"four columns (v5.17, v6.0, v6.0 touching mm->tlb_gen, v6.0 never reading\n"
		"it), the MESI model fed by the trace hooks (no PMU needed): transfers per\n"
		"flush, on every line and on the tlb_gen line; tlb_gen reads per remote\n"
		"flush_tlb_func(). Default: 8 CPUs, 20000 ops.\n",
	.shared = BENCH_O_POLICY | BENCH_O_MODE | BENCH_O_THREADS | BENCH_O_SEED | BENCH_O_TIME |
		  BENCH_O_JSON | BENCH_O_JOBS,
	.modes = BENCH_M_STEPPED,
	.modes_why = "it is the stepped account (tlb_flush1 runs in every mode)",
	.run = mesi_run,
};
BENCH_COMMAND(bench_mesi);
