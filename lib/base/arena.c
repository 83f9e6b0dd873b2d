// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/base/arena.c - per-node arenas of per-CPU blocks (arena.h).
 *
 * A chunk is one anonymous mapping, bound to its node with libnuma when
 * there is one; its first line is its header. Fresh anonymous memory is
 * zero, and pages never touched are never resident, so a chunk is sized
 * generously: the first of a node 1 MiB, each next one twice the last,
 * up to 256 MiB (or one block's size if larger).
 */
#include <stdint.h>
#include <sys/mman.h>

#include "tlbgen_config.h"
#if HAVE_LIBNUMA
#include <numa.h>
#endif

#include "arena.h"
#include "compiler.h"

#define ARENA_FIRST_CHUNK	(1UL << 20)
#define ARENA_MAX_CHUNK		(256UL << 20)

struct tlbgen_arena_chunk {
	struct tlbgen_arena_chunk *next;
	size_t size;			/* of the mapping, header included */
	size_t used;			/* bytes handed out, header included */
	int node;
	int numa;			/* from numa_alloc_onnode() */
} __cacheline_aligned;

void tlbgen__arena_init(struct tlbgen_arena *a)
{
	pthread_mutex_init(&a->lock, NULL);
	a->chunks = NULL;
	a->nr_chunks = 0;
}

static struct tlbgen_arena_chunk *arena_map(int node, size_t size)
{
	struct tlbgen_arena_chunk *ch = NULL;
	int numa = 0;

#if HAVE_LIBNUMA
	if (node >= 0) {
		ch = numa_alloc_onnode(size, node);
		numa = ch != NULL;
	}
#endif
	if (!ch) {
		void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED)
			return NULL;
		ch = p;
	}
	ch->size = size;
	ch->used = sizeof(*ch);
	ch->node = node;
	ch->numa = numa;
	return ch;
}

static void arena_unmap(struct tlbgen_arena_chunk *ch)
{
#if HAVE_LIBNUMA
	if (ch->numa) {
		numa_free(ch, ch->size);
		return;
	}
#endif
	munmap(ch, ch->size);
}

void *tlbgen__arena_alloc(struct tlbgen_arena *a, int node, size_t size)
{
	struct tlbgen_arena_chunk *ch, *last = NULL;
	void *p = NULL;

	if (size > SIZE_MAX / 2)
		return NULL;
	size = (size + TLBGEN_CACHELINE - 1) & ~(size_t)(TLBGEN_CACHELINE - 1);
	pthread_mutex_lock(&a->lock);
	/* Only the newest chunk of a node has room left. */
	for (ch = a->chunks; ch; ch = ch->next) {
		if (ch->node == node) {
			last = ch;
			break;
		}
	}
	if (!last || last->size - last->used < size) {
		size_t want = last ? last->size * 2 : ARENA_FIRST_CHUNK;

		if (want > ARENA_MAX_CHUNK)
			want = ARENA_MAX_CHUNK;
		if (want < size + sizeof(*ch))
			want = size + sizeof(*ch);
		ch = arena_map(node, want);
		if (!ch)
			goto out;
		ch->next = a->chunks;
		a->chunks = ch;
		a->nr_chunks++;
		last = ch;
	}
	p = (char *)last + last->used;
	last->used += size;
out:
	pthread_mutex_unlock(&a->lock);
	return p;
}

void tlbgen__arena_destroy(struct tlbgen_arena *a)
{
	while (a->chunks) {
		struct tlbgen_arena_chunk *ch = a->chunks;

		a->chunks = ch->next;
		arena_unmap(ch);
	}
	a->nr_chunks = 0;
	pthread_mutex_destroy(&a->lock);
}
