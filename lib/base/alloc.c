// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/base/alloc.c - per-CPU memory on the CPU's node.
 *
 * A one-line header before the object remembers how it was allocated, so
 * tlbgen__free_node() needs no size and no system.
 */
#include <stdlib.h>
#include <string.h>

#include "tlbgen_config.h"
#if HAVE_LIBNUMA
#include <numa.h>
#endif

#include "alloc.h"
#include "compiler.h"

struct alloc_hdr {
	size_t total;
	int numa;
} __cacheline_aligned;

void *tlbgen__alloc_node(int node, size_t size)
{
	struct alloc_hdr *h = NULL;
	size_t total;

	size = (size + TLBGEN_CACHELINE - 1) & ~(size_t)(TLBGEN_CACHELINE - 1);
	total = size + sizeof(*h);
#if HAVE_LIBNUMA
	if (node >= 0) {
		h = numa_alloc_onnode(total, node);
		if (h) {
			memset(h, 0, total);
			h->numa = 1;
		}
	}
#else
	(void)node;
#endif
	if (!h) {
		h = aligned_alloc(TLBGEN_CACHELINE, total);
		if (!h)
			return NULL;
		memset(h, 0, total);
	}
	h->total = total;
	return h + 1;
}

void tlbgen__free_node(void *p)
{
	struct alloc_hdr *h;

	if (!p)
		return;
	h = (struct alloc_hdr *)p - 1;
#if HAVE_LIBNUMA
	if (h->numa) {
		numa_free(h, h->total);
		return;
	}
#endif
	free(h);
}
