// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/tlbgen-bench.c - the seeds' experiments, side by side.
 * Usage: tlbgen-bench [WORKLOAD [options]]   (tlbgen-bench --help)
 */
#include <string.h>

#include "bench.h"

int bench_explore_main(int argc, char **argv);
int bench_soak_main(int argc, char **argv);

int bench_tlbie_main(int argc, char **argv);
int bench_pagefault_main(int argc, char **argv);
int bench_reclaim_main(int argc, char **argv);
int bench_transport_main(int argc, char **argv);
int bench_scale_main(int argc, char **argv);

static const struct bench_cmd cmds[] = {
	{ "transport", "threaded runtime: IPI / 1-target flush round trips vs cacheline ping-pong", bench_transport_main },
	{ "seed000", "default (no arguments): seed 000, tlb_flush1 threads 1..nproc, v5.17 vs v6.0 + MESI", bench_seed000_main },
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
	{ "scale", "stepped mode at 64..8192 CPUs: shootdown cost per delivery style, creation", bench_scale_main },
	/* { "name", "summary", bench_name_main }, -- one line per workload */
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tlbgen-bench [--plugin PATH]... [WORKLOAD [options]]\n\nworkloads:\n");
	for (const struct bench_cmd *c = cmds; c->name; c++)
		fprintf(f, "  %-12s %s\n", c->name, c->summary);
	fprintf(f, "\n'tlbgen-bench WORKLOAD --help' documents each workload.\n");
}

/* bench/plugin.c: dlopen() PATH, which registers user policies. */
int bench_plugin_load(const char *path);

int main(int argc, char **argv)
{
	/* Global options, before the workload: --plugin PATH (repeatable). */
	while (argc >= 2 && !strncmp(argv[1], "--plugin", 8)) {
		const char *path = argv[1][8] == '=' ? argv[1] + 9 : argc >= 3 ? argv[2] : NULL;
		int used = argv[1][8] == '=' ? 1 : 2;

		if ((argv[1][8] && argv[1][8] != '=') || !path) {
			usage(stderr);
			return 2;
		}
		if (bench_plugin_load(path))
			return 2;
		argv[used] = argv[0];
		argv += used;
		argc -= used;
	}
	if (argc < 2) {
		/* No workload: the seed-000 reproduction (README quick start). */
		for (const struct bench_cmd *c = cmds; c->name; c++)
			if (!strcmp(c->name, "seed000"))
				return c->main(1, (char *[]){ (char *)c->name, NULL });
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	for (const struct bench_cmd *c = cmds; c->name; c++)
		if (!strcmp(c->name, argv[1]))
			return c->main(argc - 1, argv + 1);
	fprintf(stderr, "tlbgen-bench: unknown workload '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
