// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/tlbgen-bench.c - the seeds' experiments, side by side.
 * Usage: tlbgen-bench [global options] [WORKLOAD [options]]   (tlbgen-bench --help)
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "results.h"

int bench_explore_main(int argc, char **argv);
int bench_soak_main(int argc, char **argv);

int bench_tlbie_main(int argc, char **argv);
int bench_pagefault_main(int argc, char **argv);
int bench_reclaim_main(int argc, char **argv);
int bench_transport_main(int argc, char **argv);
int bench_scale_main(int argc, char **argv);
int bench_vseed_main(int argc, char **argv);
int bench_vseed1_main(int argc, char **argv);
int bench_versions_main(int argc, char **argv);
int bench_replay_main(int argc, char **argv);

/* seed000 --mode virtual: the virtual-time reproduction (bench/vseed.c). */
static int seed000_main(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--mode") && !strcmp(argv[i + 1], "virtual"))
			return bench_vseed_main(argc, argv);
	return bench_seed000_main(argc, argv);
}

static const struct bench_cmd cmds[] = {
	{ "transport", "threaded runtime: IPI / 1-target flush round trips vs cacheline ping-pong", bench_transport_main },
	{ "seed000", "default (no arguments): seed 000, tlb_flush1 threads 1..nproc, v5.17 vs v6.0 + MESI", seed000_main },
	{ "seed001", "seed 001 in virtual time: tlb_flush2 threads, clear-on-switch / lazy / lazy+trim", bench_vseed1_main },
	{ "tlb_flush1", "will-it-scale tlb_flush1: write, MADV_DONTNEED 1-page flush, re-fault (policies compared)", bench_tlb_flush1_main },
	{ "tlb_flush2", "will-it-scale tlb_flush2: same, munmap every 1 MiB", bench_tlb_flush2_main },
	{ "tlb_flush3", "will-it-scale tlb_flush3: same as tlb_flush1 (shared file mapping)", bench_tlb_flush3_main },
	{ "page_fault3", "will-it-scale page_fault3: write faults, munmap flush every 128 MiB", bench_page_fault3_main },
	{ "lazy", "seed 001: IPIs to CPUs that left the mm: clear-on-switch / lazy / lazy+trim", bench_lazy_main },
	{ "mesi", "seed 000: MESI cacheline transfers per flush, Nadav Amit's four columns", bench_mesi_main },
	{ "tlbie", "seed 004: range-ceiling sweep, flush cost vs refill cost (shmat/fill/shmdt)", bench_tlbie_main },
	{ "pagefault", "seed 003: page_fault3 with retried faults, spurious flushes per variant", bench_pagefault_main },
	{ "explore", "randomized schedule explorer over stepped mode (long runs)", bench_explore_main },
	{ "soak", "threaded soak: mixed workloads, oversubscribed, oracle + watchdog (--minutes N)", bench_soak_main },
	{ "reclaim", "seed 002: MADV_PAGEOUT reclaim, batched vs unbatched unmap on x86/arm64/riscv", bench_reclaim_main },
	{ "versions", "print docs/versions.md: choices, their commits and releases, profiles per arch", bench_versions_main },
	{ "scale", "stepped mode at 64..8192 CPUs: shootdown cost per delivery style, creation", bench_scale_main },
	{ "replay", "a recorded kernel's flush decisions replayed and checked; what-if per profile", bench_replay_main },
	/* { "name", "summary", bench_name_main }, -- one line per workload */
	{ NULL, NULL, NULL },
};

/* Commands over results directories: they keep no results directory themselves. */
static const struct bench_cmd tools[] = {
	{ "compare", "compare results directories: change, 95% CI, Welch's p per metric", bench_cmp_dirs_main },
	{ "sweep", "print one tlbgen-bench command per cell (GNU parallel, Slurm array)", bench_sweep_main },
	{ "merge", "merge the results directories of a sweep into one", bench_merge_main },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tlbgen-bench [--plugin PATH]... [--out DIR | --no-out] [WORKLOAD [options]]\n"
		"       tlbgen-bench compare|sweep|merge ...\n"
		"       tlbgen-bench --version | --help\n\nworkloads:\n");
	for (const struct bench_cmd *c = cmds; c->name; c++)
		fprintf(f, "  %-12s %s\n", c->name, c->summary);
	fprintf(f, "\nresults directories:\n");
	for (const struct bench_cmd *c = tools; c->name; c++)
		fprintf(f, "  %-12s %s\n", c->name, c->summary);
	fprintf(f,
"\nglobal options (also accepted after the workload):\n"
"  --plugin PATH  load user policies from a shared object (repeatable; before\n"
"                 the workload)\n"
"  --out DIR      keep the run's results in DIR (created if missing): meta.json,\n"
"                 results.json, plots, CSV. Default: tlbgen-results/WORKLOAD-\n"
"                 YYYYMMDDTHHMMSSZ/ in the current directory\n"
"  --no-out       keep no results directory\n"
"  --version      print the version and exit\n"
"With options but no workload, the default workload (seed000) gets them.\n"
"\n'tlbgen-bench WORKLOAD --help' documents each workload.\n"
"Exit: 0 ok, 1 failed run, 2 bad arguments; workloads document more.\n");
}

/* bench/plugin.c: dlopen() PATH, which registers user policies. */
int bench_plugin_load(const char *path);

/* Take --out DIR / --out=DIR / --no-out out of argv[from..] (up to "--");
 * `once`: only argv[from] itself. */
static int take_out_options(int *argc, char **argv, int from, bool once, const char **out,
			    bool *no_out)
{
	int i = from;

	while (i < *argc && strcmp(argv[i], "--") && (!once || i == from)) {
		int used = 0;

		if (!strcmp(argv[i], "--out")) {
			if (i + 1 >= *argc) {
				fprintf(stderr, "tlbgen-bench: --out needs a directory\n");
				return -1;
			}
			*out = argv[i + 1];
			used = 2;
		} else if (!strncmp(argv[i], "--out=", 6)) {
			*out = argv[i] + 6;
			used = 1;
		} else if (!strcmp(argv[i], "--no-out")) {
			*no_out = true;
			used = 1;
		}
		if (!used) {
			i++;
			continue;
		}
		memmove(&argv[i], &argv[i + used], (size_t)(*argc - i - used + 1) * sizeof(*argv));
		*argc -= used;
		if (once)
			break;
	}
	return 0;
}

static int run_workload(const struct bench_cmd *c, int argc, char **argv, int full_argc,
			char **full_argv, const char *out, bool no_out)
{
	int ret, err;

	if (out && no_out) {
		fprintf(stderr, "tlbgen-bench: --out and --no-out exclude each other\n");
		return 2;
	}
	if (bench_results_begin(c->name, full_argc, full_argv, out, no_out))
		return 2;
	ret = c->main(argc, argv);
	fflush(stdout);
	err = bench_results_end(ret);
	return err && !ret ? 1 : ret;
}

static int bench_main(int argc, char **argv, int full_argc, char **full_argv)
{
	const char *out = NULL;
	bool no_out = false;

	/* Global options, before the workload. */
	while (argc >= 2) {
		if (!strncmp(argv[1], "--plugin", 8)) {
			const char *path = argv[1][8] == '=' ? argv[1] + 9 : argc >= 3 ? argv[2] : NULL;
			int used = argv[1][8] == '=' ? 1 : 2;

			if ((argv[1][8] && argv[1][8] != '=') || !path) {
				fprintf(stderr, "tlbgen-bench: --plugin needs a path\n");
				usage(stderr);
				return 2;
			}
			if (bench_plugin_load(path))
				return 2;
			argv[used] = argv[0];
			argv += used;
			argc -= used;
		} else if (!strcmp(argv[1], "--version")) {
			printf("%s\n", bench_version());
			return 0;
		} else if (!strcmp(argv[1], "--no-out") || !strncmp(argv[1], "--out", 5)) {
			int n = argc;

			if (take_out_options(&n, argv, 1, true, &out, &no_out))
				return 2;
			if (n == argc)	/* "--outfoo": not ours */
				break;
			argc = n;
		} else {
			break;
		}
	}
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	for (const struct bench_cmd *c = tools; argc >= 2 && c->name; c++)
		if (!strcmp(c->name, argv[1]))
			return c->main(argc - 1, argv + 1);
	if (take_out_options(&argc, argv, 1, false, &out, &no_out))
		return 2;
	if (argc < 2 || argv[1][0] == '-') {
		/* No workload: the seed-000 reproduction (README quick start),
		 * with any options given. */
		argv[0] = (char *)"seed000";
		for (const struct bench_cmd *c = cmds; c->name; c++)
			if (!strcmp(c->name, "seed000"))
				return run_workload(c, argc, argv, full_argc, full_argv, out, no_out);
	}
	for (const struct bench_cmd *c = cmds; c->name; c++)
		if (!strcmp(c->name, argv[1]))
			return run_workload(c, argc - 1, argv + 1, full_argc, full_argv, out, no_out);
	fprintf(stderr, "tlbgen-bench: unknown workload '%s' (tlbgen-bench --help lists them)\n",
		argv[1]);
	return 2;
}

int main(int argc, char **argv)
{
	/* argv as given, for meta.json: the option parsers reorder argv. */
	char **full_argv = malloc(((size_t)argc + 1) * sizeof(*argv));
	int ret;

	if (!full_argv)
		return 1;
	memcpy(full_argv, argv, ((size_t)argc + 1) * sizeof(*argv));
	ret = bench_main(argc, argv, argc, full_argv);
	free(full_argv);
	return ret;
}
