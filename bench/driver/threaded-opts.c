// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/driver/threaded-opts.c - the options of the threads and processes modes,
 * which every op-based workload takes (bench/driver/opt.c adds these rows), and
 * where they land for bench/threaded.c.
 */

#include "bench.h"
#include "threaded-opts.h"

struct bench_threaded_cfg bench_threaded_cfg = { .rounds = 5, .mesi_cpus = 8, .mesi_ops = 20000 };

const char *const *bench_threaded_mesi_cols;

static int opt_cpus(const char *opt, const char *arg);

const struct bench_opt bench_threaded_opts[] = {
	{ .name = "rounds", .key = 'r', .arg = "N", .type = BOPT_UINT, .dst = &bench_threaded_cfg.rounds, .min = 1,
	  .max = BENCH_MAX_ROUNDS, .help = "threads/processes: interleaved rounds per policy and task\n"
				     "count (5)" },
	{ .name = "duration", .key = 'd', .arg = "MS", .type = BOPT_UINT, .dst = &bench_threaded_cfg.duration_ms,
	  .min = 10, .max = 3600000,
	  .help = "threads/processes: one round (default ~20 s in all, 200..1000)" },
	{ .name = "sample-ms", .key = 's', .arg = "MS", .type = BOPT_UINT, .dst = &bench_threaded_cfg.sample_ms,
	  .min = 10, .max = 3600000,
	  .help = "threads/processes: will-it-scale's sample interval\n(default min(1000, d/4))" },
	{ .name = "cpus", .arg = "LIST", .type = BOPT_FN, .fn = opt_cpus,
	  .help = "threads/processes: real CPUs to pin task i to (cpus[i % n]);\n"
		  "default: every CPU this process may use" },
	{ .name = "csv", .arg = "FILE", .type = BOPT_STR, .dst = &bench_threaded_cfg.csv,
	  .help = "threads/processes: the will-it-scale CSV there too ('-': stdout;\n"
		  "with several policies FILE-POLICY.csv each)" },
	{ .name = "svg", .arg = "FILE", .type = BOPT_STR, .dst = &bench_threaded_cfg.svg,
	  .help = "threads/processes: the plot there (default: the results\n"
		  "directory's throughput.svg), drawn with gnuplot if present" },
	{ .name = "no-plot", .type = BOPT_FLAG, .dst = &bench_threaded_cfg.no_plot, .help = "draw no plot" },
	{ .name = "no-acct", .type = BOPT_FLAG, .dst = &bench_threaded_cfg.no_acct,
	  .help = "threads/processes: skip the traced accounting pass (remote\n"
		  "tlb_gen reads, and the oracle: timed rounds run without it)" },
	{ .name = "no-mesi", .type = BOPT_FLAG, .dst = &bench_threaded_cfg.no_mesi,
	  .help = "threads/processes: skip the stepped MESI account" },
	{ .name = "mesi-cpus", .arg = "N", .type = BOPT_UINT, .dst = &bench_threaded_cfg.mesi_cpus, .min = 1,
	  .max = 1024, .help = "threads/processes: CPUs of the MESI account (8)" },
	{ .name = "mesi-ops", .arg = "N", .type = BOPT_U64, .dst = &bench_threaded_cfg.mesi_ops, .min = 1,
	  .max = 100000000, .help = "threads/processes: ops of the MESI account (20000)" },
	BENCH_OPT_END,
};

static int opt_cpus(const char *opt, const char *arg)
{
	bench_threaded_cfg.cpus = arg;
	(void)opt;
	return 0;
}
