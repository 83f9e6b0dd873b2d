// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/commands.c - every tlbgen-bench command: the will-it-scale
 * workloads, the seeds' presets over them, and the tools. One line each.
 */
#include <string.h>

#include "bench.h"
#include "commands.h"

extern const struct bench_ops bench_tlb_flush1_ops, bench_tlb_flush2_ops, bench_tlb_flush3_ops,
	bench_page_fault1_ops, bench_page_fault2_ops, bench_page_fault3_ops, bench_mmap1_ops;
/* Workloads with options of their own, each in its own file. */
extern const struct bench bench_mprotect, bench_spec;
extern const struct bench bench_seed000, bench_seed001, bench_seed002, bench_seed003, bench_seed004, bench_mesi,
	bench_lazy, bench_jobs, bench_replay;
/* Tools on the one parser, each defined in its own file. */
extern const struct bench bench_transport, bench_scale, bench_soak, bench_versions, bench_sweep,
	bench_merge, bench_compare, bench_explore, bench_tlbie, bench_pagefault, bench_reclaim,
	bench_validate, bench_vtime;

#define WIS(n, what)								\
	static const struct bench bench_##n = {					\
		.name = #n, .summary = what,					\
		.shared = BENCH_O_WORKLOAD | BENCH_O_CALIBRATE,			\
		.modes = BENCH_M_ALL, .default_modes = BENCH_M_THREADS,		\
		.ops = &bench_##n##_ops,					\
		.help = "will-it-scale's " #n " (bench/workloads/wl-wis.c): one op is one iteration\n" \
			"of the test's loop, made of the library's kernel-side operations\n" \
			"(tlbgen/workload.h), in every mode: stepped (counts per op and the\n" \
			"MESI account), threads and processes (real pthreads, timed rounds\n" \
			"interleaved, the kernel's work burnt from --machine), virtual (a\n" \
			"machine model, each row a mean over seeds).\n",		\
	}

WIS(tlb_flush1, "will-it-scale tlb_flush1: write, MADV_DONTNEED 1-page flush, read back "
		"(a private file: COW flushes)");
WIS(tlb_flush2, "will-it-scale tlb_flush2: same on 1 MiB anonymous, munmap + mmap every 256 pages");
WIS(tlb_flush3, "will-it-scale tlb_flush3: same as tlb_flush1 on a shared file mapping");
WIS(page_fault1, "will-it-scale page_fault1: a write fault per page of 128 MiB anonymous, munmap at the end");
WIS(page_fault2, "will-it-scale page_fault2: a write fault per page of a private file mapping (COW)");
WIS(page_fault3, "will-it-scale page_fault3: a write fault per page of a shared file mapping");
WIS(mmap1, "will-it-scale mmap1: mmap() and munmap() of 128 MiB anonymous, untouched");

const struct bench *const bench_commands[] = {
	&bench_seed000, &bench_seed001, &bench_seed002, &bench_seed003, &bench_seed004, &bench_validate, &bench_tlb_flush1, &bench_tlb_flush2, &bench_tlb_flush3,
	&bench_page_fault1, &bench_page_fault2, &bench_page_fault3, &bench_mmap1, &bench_mprotect, &bench_spec, &bench_mesi, &bench_lazy, &bench_reclaim, &bench_pagefault,
	&bench_tlbie, &bench_transport, &bench_vtime, &bench_scale, &bench_explore, &bench_soak,
	&bench_versions, &bench_replay, &bench_jobs, &bench_compare, &bench_sweep, &bench_merge,
	NULL,
};

const struct bench *bench_find(const char *name)
{
	for (const struct bench *const *c = bench_commands; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}
