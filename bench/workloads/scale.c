// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/scale.c - tlbgen-bench scale: stepped mode at 64..8192 CPUs (the
 * measurements: bench/workloads/scale-measure.c). Per CPU count the medians of the
 * repetitions are recorded and printed, with the ratio to the 64-CPU row
 * (and to the 128-CPU row for 8192): linear scaling is the ratio of the CPU
 * counts.
 */
#include <errno.h>
#include <string.h>

#include "driver/env.h"
#include "driver/results.h"
#include "run/run.h"
#include "scale-measure.h"

static const unsigned int scale_cpus[] = { 64, 128, 256, 1024, 4096, 8192 };
#define NR_ROWS (sizeof(scale_cpus) / sizeof(scale_cpus[0]))

/* Each style's "delivery" in results.json. */
static const char *const style_name[SCALE_STYLES] = { "run_until_idle", "deliver",
						      "deliver_shuffled" };

/* 15 repetitions, about 3 s: on a shared host a burst of another tenant's
 * load spoils one repetition's large rows, and the median of 5 moved by up
 * to 10% from run to run. */
static struct scale_cfg o = { .reps = 15, .targets = 200000, .max_cpus = 8192 };

static const struct bench_opt scale_opts[] = {
	{ .name = "reps", .arg = "N", .type = BOPT_UINT, .dst = &o.reps, .min = 1,
	  .max = SCALE_MAX_REPS, .help = "repetitions; medians are printed (15)" },
	{ .name = "targets", .arg = "N", .type = BOPT_U64, .dst = &o.targets, .min = 1,
	  .max = 100000000, .help = "flush_tlb_func calls per style per repetition (200000)" },
	{ .name = "max-cpus", .arg = "N", .type = BOPT_UINT, .dst = &o.max_cpus, .min = 64,
	  .max = 8192, .help = "skip the rows above N CPUs (8192)" },
	{ .name = "wall", .type = BOPT_FLAG, .dst = &o.wall,
	  .help = "wall time (default: CPU time of the benchmark thread)" },
	BENCH_OPT_END,
};

/* Results ------------------------------------------------------------------ */

static json_t *at(unsigned int cpus, int style)
{
	return style < 0 ? json_pack("{s:i}", "cpus", cpus)
			 : json_pack("{s:i,s:s}", "cpus", cpus, "delivery", style_name[style]);
}

static json_t *against(unsigned int cpus, int style, unsigned int ref_cpus)
{
	return json_pack("{s:i,s:s,s:i}", "cpus", cpus, "delivery", style_name[style],
			 "reference_cpus", ref_cpus);
}

/* Every figure of a row into results.json, one metric per cell. */
static void record(const struct scale_row *r)
{
	json_t *cr = at(r->cpus, -1);

	for (int k = 0; k < SCALE_STYLES; k++) {
		json_t *pa = at(r->cpus, k);

		bench_metric("ns_per_shootdown", "ns", "lower", pa, r->ns[k]);
		bench_metric("ns_per_target", "ns", "lower", pa, r->ns[k] / r->func[k]);
		if (k != BY_HOST_SHUFFLED)
			bench_metric("flush_func_per_sec", "calls/s", "higher", pa,
				     r->func[k] / r->ns[k] * 1e9);
		json_decref(pa);
		/* Against the reference row of the same repetition. */
		if (!r->ref_cpus)
			continue;
		pa = against(r->cpus, k, r->ref_cpus);
		bench_metric("shootdown_ratio", "x", "lower", pa, r->ratio[k]);
		bench_metric("shootdown_ratio_lowest_rep", "x", "lower", pa, r->ratio_lo[k]);
		bench_metric("shootdown_ratio_highest_rep", "x", "lower", pa, r->ratio_hi[k]);
		json_decref(pa);
	}
	bench_metric("create_ms", "ms", "lower", cr, r->create_ms[0]);
	bench_metric("resident_bytes_per_cpu", "bytes", "lower", cr, r->rss_per_cpu[0]);
	bench_metric("create_ms_with_tlb", "ms", "lower", cr, r->create_ms[1]);
	bench_metric("resident_bytes_per_cpu_with_tlb", "bytes", "lower", cr, r->rss_per_cpu[1]);
	json_decref(cr);
}

/* A metric of results.json (a row's coordinates in pa, consumed). */
static double get(const char *name, json_t *pa)
{
	double v = 0;

	bench_metric_get(name, pa, &v);
	json_decref(pa);
	return v;
}

/* The median ratio per style, with the lowest and highest repetition's. */
static void print_ratios(const char *what, const struct scale_row *r)
{
	static const char *const style[SCALE_STYLES] = { "run_until_idle", "deliver",
							 "shuffled" };

	printf("%s:", what);
	for (int k = 0; k < SCALE_STYLES; k++)
		printf(" %s %.1fx (%.1f..%.1f)%s", style[k],
		       get("shootdown_ratio", against(r->cpus, k, r->ref_cpus)),
		       get("shootdown_ratio_lowest_rep", against(r->cpus, k, r->ref_cpus)),
		       get("shootdown_ratio_highest_rep", against(r->cpus, k, r->ref_cpus)),
		       k < 2 ? "," : "");
	printf(" (linear 64x; median and range over the repetitions)\n");
}

/* A style's columns of a row: us per shootdown, ns per target, ratio, Mfunc/s. */
static void print_style(const struct scale_row *r, int k)
{
	char ratio[16] = "-";

	if (r->ref_cpus)
		snprintf(ratio, sizeof(ratio), "%s%.1f", r->ref_cpus == 128 ? "/128 " : "",
			 get("shootdown_ratio", against(r->cpus, k, r->ref_cpus)));
	printf(" %11.2f %7.1f %7s %8.1f |", get("ns_per_shootdown", at(r->cpus, k)) / 1e3,
	       get("ns_per_target", at(r->cpus, k)), ratio,
	       get("flush_func_per_sec", at(r->cpus, k)) / 1e6);
}

/* The table, read back from results.json. */
static void print_table(const char *label, const struct scale_row *rows, unsigned int n)
{
	const struct scale_row *r4096 = scale_find_row(rows, n, 4096);
	const struct scale_row *r8192 = scale_find_row(rows, n, 8192);

	printf("scale: %s, stepped, oracle off, one mm on every CPU, one-page flushes from CPU 0\n"
	       "  %s, medians of %u repetitions; ns/tgt = ns per flush_tlb_func call;\n"
	       "  ratio = cost of a shootdown relative to the 64-CPU row (linear: cpus/64),\n"
	       "  /128 = relative to the 128-CPU row, each the median over repetitions of\n"
	       "  the two rows measured in the same repetition; create and KiB/cpu (resident growth) with\n"
	       "  TLBGEN_SYS_NO_ORACLE, +tlb with the oracle and its simulated TLB\n",
	       label, o.wall ? "wall time" : "thread CPU time", o.reps);
	printf("%5s | %11s %7s %7s %8s | %11s %7s %7s %8s | %9s %9s | %9s %9s\n", "cpus",
	       "idle us/sd", "ns/tgt", "ratio", "Mfunc/s", "deliver us", "ns/tgt", "ratio",
	       "Mfunc/s", "create ms", "KiB/cpu", "+tlb ms", "KiB/cpu");
	for (unsigned int i = 0; i < n; i++) {
		const struct scale_row *r = &rows[i];

		printf("%5u |", r->cpus);
		print_style(r, BY_SCHEDULER);
		print_style(r, BY_HOST);
		printf(" %9.1f %9.1f | %9.1f %9.1f\n", get("create_ms", at(r->cpus, -1)),
		       get("resident_bytes_per_cpu", at(r->cpus, -1)) / 1024,
		       get("create_ms_with_tlb", at(r->cpus, -1)),
		       get("resident_bytes_per_cpu_with_tlb", at(r->cpus, -1)) / 1024);
	}
	/* The 64-CPU row is always there (--max-cpus is at least 64). */
	printf("shuffled: tlbgen_deliver() over the targets in a shuffled order, no scheduler,"
	       " ns/tgt:");
	for (unsigned int i = 0; i < n; i++)
		printf(" %u:%.1f", rows[i].cpus,
		       get("ns_per_target", at(rows[i].cpus, BY_HOST_SHUFFLED)));
	printf("\n");
	if (r4096)
		print_ratios("4096 vs 64", r4096);
	if (r8192 && r8192->ref_cpus == 128)
		print_ratios("8192 vs 128", r8192);
}

/* Run ---------------------------------------------------------------------- */

static int measure(struct scale_row *rows, unsigned int n)
{
	unsigned int failed = 0;
	int err = 0;

	/* Creation first, while this process has freed nothing a child could reuse. */
	for (unsigned int i = 0; i < n; i++) {
		err = scale_create(&o, &rows[i]);
		if (err) {
			fprintf(stderr, "tlbgen-bench scale: creating %u CPUs: %s\n", rows[i].cpus,
				strerror(-err));
			return err;
		}
	}
	/* Every row's system first; then each repetition runs every row. */
	for (unsigned int i = 0; i < n && !err; i++) {
		err = scale_setup_row(&o, &rows[i]);
		failed = i;
	}
	for (unsigned int rep = 0; rep < o.reps && !err; rep++)
		for (unsigned int i = 0; i < n && !err; i++) {
			err = scale_rep_row(&o, &rows[i], rep);
			failed = i;
		}
	for (unsigned int i = 0; i < n; i++)
		scale_teardown_row(&rows[i]);
	if (err)
		fprintf(stderr, "tlbgen-bench scale: %u CPUs: %s\n", rows[failed].cpus,
			strerror(-err));
	return err;
}

static int scale_run(struct bench_env *e)
{
	static const char *const defs[] = { "v6.0", NULL };
	struct scale_row rows[NR_ROWS];
	unsigned int n = 0;

	if (!bench_modes(e) || bench_env_policies(e, defs))
		return 2;
	if (e->npol != 1) {
		fprintf(stderr, "tlbgen-bench scale: -p %s: one policy only, %s given (scale "
			"measures the machine's size, not a change)\n", e->pol[1].label,
			e->pol[0].label);
		return 2;
	}
	if (e->shapes & BENCH_M_PROCESSES) {
		fprintf(stderr, "tlbgen-bench scale: --shape processes: scale loads one mm on "
			"every CPU (threads)\n");
		return 2;
	}
	o.profile = e->pol[0].name;
	o.seed = e->seed;
	for (unsigned int i = 0; i < NR_ROWS; i++) {
		if (scale_cpus[i] > o.max_cpus)
			continue;
		memset(&rows[n], 0, sizeof(rows[n]));
		rows[n++].cpus = scale_cpus[i];
	}
	if (measure(rows, n))
		return 1;
	scale_summarise(&o, rows, n);
	bench_meta_seed(o.seed);
	bench_meta_param("clock", json_string(o.wall ? "wall" : "thread_cpu"));
	bench_meta_param("reps", json_integer(o.reps));
	bench_meta_param("targets", json_integer((json_int_t)o.targets));
	for (unsigned int i = 0; i < n; i++)
		record(&rows[i]);
	print_table(e->pol[0].label, rows, n);
	return 0;
}

const struct bench bench_scale = {
	.name = "scale",
	.summary = "stepped mode at 64..8192 CPUs: shootdown cost per delivery style, creation",
	.help = "Stepped mode at 64..8192 CPUs: one mm on every CPU, one-page flushes from\n"
		"CPU 0, delivered by tlbgen_run_until_idle, by tlbgen_deliver(cpu) in a loop,\n"
		"and by tlbgen_deliver() over the targets in a shuffled order (a random\n"
		"order's cost without a scheduler); creation time and resident memory per\n"
		"CPU. The oracle is off for the shootdowns. One policy (-p, default v6.0);\n"
		"--seed seeds the scheduler and the shuffle.\n",
	.shared = BENCH_O_POLICY | BENCH_O_MODE | BENCH_O_SEED | BENCH_O_JSON,
	.modes = BENCH_M_STEPPED,
	.modes_why = "it measures the stepped mode's own cost as the machine grows (transport "
		     "times the threaded runtime)",
	.opts = scale_opts,
	.run = scale_run,
};
BENCH_COMMAND(bench_scale);
