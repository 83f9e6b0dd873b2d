// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/commands.c - every tlbgen-bench command: the will-it-scale
 * workloads defined here, and every command that registered itself with
 * BENCH_COMMAND() where it is defined, in the order --help lists them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "commands.h"

extern const struct bench_ops bench_tlb_flush1_ops, bench_tlb_flush2_ops, bench_tlb_flush3_ops,
	bench_page_fault1_ops, bench_page_fault2_ops, bench_page_fault3_ops, bench_mmap1_ops;

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
	};									\
	BENCH_COMMAND(bench_##n)

WIS(tlb_flush1, "will-it-scale tlb_flush1: write, MADV_DONTNEED 1-page flush, read back "
		"(a private file: COW flushes)");
WIS(tlb_flush2, "will-it-scale tlb_flush2: same on 1 MiB anonymous, munmap + mmap every 256 pages");
WIS(tlb_flush3, "will-it-scale tlb_flush3: same as tlb_flush1 on a shared file mapping");
WIS(page_fault1, "will-it-scale page_fault1: a write fault per page of 128 MiB anonymous, munmap at the end");
WIS(page_fault2, "will-it-scale page_fault2: a write fault per page of a private file mapping (COW)");
WIS(page_fault3, "will-it-scale page_fault3: a write fault per page of a shared file mapping");
WIS(mmap1, "will-it-scale mmap1: mmap() and munmap() of 128 MiB anonymous, untouched");

/* The order --help lists them in; a command not named here comes after
 * these, by name. */
static const char *const order[] = {
	"seed000", "seed001", "seed002", "seed003", "seed004", "validate", "tlb_flush1",
	"tlb_flush2", "tlb_flush3", "page_fault1", "page_fault2", "page_fault3", "mmap1",
	"mprotect", "run", "mesi", "lazy", "reclaim", "pagefault", "tlbie", "transport", "vtime",
	"scale", "explore", "soak", "versions", "replay", "jobs", "compare", "sweep", "merge",
};

/* The linker's bounds of the section BENCH_COMMAND() fills. */
extern const struct bench *const __start_tlbgen_bench[], *const __stop_tlbgen_bench[];

static size_t rank(const struct bench *b)
{
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!strcmp(order[i], b->name))
			break;
	return i;
}

static int cmp_commands(const void *a, const void *b)
{
	const struct bench *x = *(const struct bench *const *)a, *y = *(const struct bench *const *)b;
	size_t rx = rank(x), ry = rank(y);

	return rx != ry ? (rx < ry ? -1 : 1) : strcmp(x->name, y->name);
}

const struct bench *const *bench_command_list(void)
{
	static const struct bench **list;
	size_t n = (size_t)(__stop_tlbgen_bench - __start_tlbgen_bench);

	if (!list) {
		list = calloc(n + 1, sizeof(*list));
		if (!list) {
			fprintf(stderr, "tlbgen-bench: out of memory listing %zu commands\n", n);
			exit(1);
		}
		memcpy(list, __start_tlbgen_bench, n * sizeof(*list));
		qsort(list, n, sizeof(*list), cmp_commands);
	}
	return list;
}

const struct bench *bench_find(const char *name)
{
	for (const struct bench *const *c = bench_command_list(); *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}
