/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/workloads/transport-floor.h - the floor tlbgen-bench transport measures the
 * library against (bench/workloads/transport-floor.c): the kernel/smp.c lines of an
 * IPI and of a 1-target flush written bare, with no library around them.
 */
#ifndef TLBGEN_BENCH_TRANSPORT_FLOOR_H
#define TLBGEN_BENCH_TRANSPORT_FLOOR_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <urcu/lfstack.h>

#include "bench.h"

/* The measurements: an emulated IPI round trip, a 1-target flush under v6.0
 * and under latest. */
enum transport_kind { K_IPI, K_FLUSH_V60, K_FLUSH_LATEST, K_NR };

/*
 * The floors: kernel/smp.c's lines with nothing else. CPU 1's
 * call_single_queue, CPU 0's csd for CPU 1, CPU 0's flush_tlb_info, the
 * mm's tlb_gen and CPU 1's local generation, each on its own line as in
 * the kernel (and in the library). As in the kernel, the target finds f
 * through the csd it found through the queue: three dependent misses.
 */
struct floor_info {
	unsigned long start, end, new_tlb_gen;
} __attribute__((aligned(64)));

struct floor_csd {
	struct cds_lfs_node node;
	atomic_uint flags;
	struct floor_info *info;	/* NULL: an empty call */
} __attribute__((aligned(64)));

struct floor {
	_Alignas(64) struct __cds_lfs_stack llist;
	struct floor_csd csd;
	struct floor_info info;
	_Alignas(64) atomic_ulong tlb_gen;
	/* CPU 1's cpu_tlbstate line: loaded_mm, and the ctxs[] generation it
	 * writes on every flush (one line in the kernel's struct tlb_state). */
	_Alignas(64) void *_Atomic loaded_mm;
	unsigned long local_tlb_gen, partial;
};

/* A spin loop's wait: a yield when both threads share one core. */
static inline void transport_relax(bool oversub)
{
	if (oversub)
		sched_yield();
	else
		bench_relax();
}

/* An empty queue, no call in flight, CPU 1 running the mm. */
void floor_init(struct floor *f);
/* CPU 1: the bare __flush_smp_call_function_queue(); true if it found the
 * queue non-empty. */
bool floor_poll(struct floor *f);
/* CPU 0: the bare smp_call_function_single() (K_IPI) or flush_tlb_mm_range()
 * with its one target, waiting for the target's ack. */
void floor_call(struct floor *f, enum transport_kind kind, bool oversub);

#endif
