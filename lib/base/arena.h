/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/base/arena.h - per-node arenas for a system's per-CPU blocks.
 *
 * The kernel's percpu allocator carves every CPU's static and dynamic
 * per-CPU data out of a few large chunks per NUMA node
 * (pcpu_embed_first_chunk()); a mapping per block instead would cost about
 * five mappings per emulated CPU, which at thousands of CPUs approaches
 * vm.max_map_count. An arena holds a few mappings per node, growing
 * geometrically; each block is zeroed, cacheline aligned and a whole
 * number of cachelines, so no two CPUs' blocks share a line. Blocks are
 * freed only with the arena. Allocation takes a lock: threaded CPUs
 * allocate their csds at their first initiating call.
 */
#ifndef TLBGEN_BASE_ARENA_H
#define TLBGEN_BASE_ARENA_H

#include <pthread.h>
#include <stddef.h>

struct tlbgen_arena_chunk;

struct tlbgen_arena {
	pthread_mutex_t lock;
	struct tlbgen_arena_chunk *chunks;	/* newest first */
	unsigned int nr_chunks;
};

void tlbgen__arena_init(struct tlbgen_arena *a);
/*
 * `size` bytes, rounded up to whole cachelines, zeroed, on NUMA node `node`
 * (-1: anywhere). NULL on failure, with the arena unchanged.
 */
void *tlbgen__arena_alloc(struct tlbgen_arena *a, int node, size_t size);
/*
 * `size` rounded up to an odd number of cachelines: the size to give blocks
 * that sit back to back, one per CPU, and are reached in any order. At a
 * stride of 2^k lines one field of every CPU falls in one cache set of 2^k
 * (k = 4: 64 CPUs overflow a 12-way L1); at an odd stride, in every set.
 */
static inline size_t tlbgen__arena_odd_lines(size_t size, size_t line)
{
	size_t lines = (size + line - 1) / line;

	return (lines | 1) * line;
}

/* Unmap every chunk (an arena that was only initialised is fine). */
void tlbgen__arena_destroy(struct tlbgen_arena *a);

#endif
