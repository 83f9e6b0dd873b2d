/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/lineid.h - the ids trace hooks see for shared cachelines: the
 * n-th distinct line a system touches is n * TLBGEN_CACHELINE, so a stepped
 * run's trace is the same bytes in every process whatever the heap layout
 * (tlbgen_system__set_line_ids() in tlbgen/trace.h).
 */
#ifndef TLBGEN_CORE_LINEID_H
#define TLBGEN_CORE_LINEID_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tlbgen_line_idmap {
	pthread_mutex_t lock;	/* taken when `shared` */
	bool shared;		/* threaded mode: hooks run on every CPU thread */
	uintptr_t *keys;	/* line addresses, 0: free slot */
	uintptr_t *vals;	/* their ids */
	size_t cap, nr;		/* cap: a power of two, or 0 */
	uintptr_t last;		/* ordinal of the last id handed out */
	bool addresses;		/* TLBGEN_LINE_IDS_ADDRESS: report the address */
};

void tlbgen__line_ids_init(struct tlbgen_line_idmap *t);
void tlbgen__line_ids_destroy(struct tlbgen_line_idmap *t);
/* The id of the line at `addr` (cacheline-aligned). */
uintptr_t tlbgen__line_id(struct tlbgen_line_idmap *t, uintptr_t addr);
/* [p, p + size) is being freed: a new object there gets new ids. */
void tlbgen__line_ids_forget(struct tlbgen_line_idmap *t, const void *p, size_t size);

#endif
