/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/base/alloc.h - per-CPU memory: cacheline aligned, zeroed, and on a
 * given NUMA node when libnuma is there.
 */
#ifndef TLBGEN_BASE_ALLOC_H
#define TLBGEN_BASE_ALLOC_H

#include <stddef.h>

/*
 * Allocate `size` bytes, rounded up to whole cachelines, on NUMA node
 * `node` (-1: anywhere). Zeroed. NULL on failure.
 */
void *tlbgen__alloc_node(int node, size_t size);
/* Free what tlbgen__alloc_node() returned (NULL is fine). */
void tlbgen__free_node(void *p);

#endif
