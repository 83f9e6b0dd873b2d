// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/core/lineid.c - stable trace line ids: an address -> ordinal table,
 * open addressing, filled in the order lines are first traced.
 */
#include <stdlib.h>
#include <string.h>

#include "../base/compiler.h"
#include "lineid.h"

void tlbgen__line_ids_init(struct tlbgen_line_idmap *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
}

void tlbgen__line_ids_destroy(struct tlbgen_line_idmap *t)
{
	free(t->keys);
	free(t->vals);
	pthread_mutex_destroy(&t->lock);
}

static size_t slot_of(uintptr_t addr, size_t cap)
{
	uint64_t x = (uint64_t)addr / TLBGEN_CACHELINE;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

static void put(uintptr_t *keys, uintptr_t *vals, size_t cap, uintptr_t key, uintptr_t val)
{
	size_t i = slot_of(key, cap);

	while (keys[i] && keys[i] != key)
		i = (i + 1) & (cap - 1);
	keys[i] = key;
	vals[i] = val;
}

/* Rehash into `cap` slots, leaving out keys in [lo, hi). 0 or -1 (ENOMEM). */
static int rebuild(struct tlbgen_line_idmap *t, size_t cap, uintptr_t lo, uintptr_t hi)
{
	uintptr_t *keys = calloc(cap, sizeof(*keys)), *vals = calloc(cap, sizeof(*vals));
	size_t nr = 0;

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (size_t i = 0; i < t->cap; i++)
		if (t->keys[i] && (t->keys[i] < lo || t->keys[i] >= hi)) {
			put(keys, vals, cap, t->keys[i], t->vals[i]);
			nr++;
		}
	free(t->keys);
	free(t->vals);
	t->keys = keys;
	t->vals = vals;
	t->cap = cap;
	t->nr = nr;
	return 0;
}

uintptr_t tlbgen__line_id(struct tlbgen_line_idmap *t, uintptr_t addr)
{
	uintptr_t id = addr;
	size_t i;

	if (t->addresses || !addr)
		return addr;
	if (t->shared)
		pthread_mutex_lock(&t->lock);
	/* At most half full: probes stay short. */
	if ((t->nr + 1) * 2 > t->cap && rebuild(t, t->cap ? t->cap * 2 : 256, 0, 0))
		goto out;	/* no memory: the address (still one id per line) */
	i = slot_of(addr, t->cap);
	while (t->keys[i] && t->keys[i] != addr)
		i = (i + 1) & (t->cap - 1);
	if (!t->keys[i]) {
		t->keys[i] = addr;
		t->vals[i] = ++t->last * TLBGEN_CACHELINE;
		t->nr++;
	}
	id = t->vals[i];
out:
	if (t->shared)
		pthread_mutex_unlock(&t->lock);
	return id;
}

void tlbgen__line_ids_forget(struct tlbgen_line_idmap *t, const void *p, size_t size)
{
	uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(TLBGEN_CACHELINE - 1);
	uintptr_t hi = (uintptr_t)p + size;
	size_t i = 0;

	if (t->shared)
		pthread_mutex_lock(&t->lock);
	while (i < t->cap && !(t->keys[i] && t->keys[i] >= lo && t->keys[i] < hi))
		i++;
	/* Same size: cannot fail for want of room, only of memory; then the
	 * stale entries stay, and a new object there reuses their ids. */
	if (i < t->cap)
		(void)rebuild(t, t->cap, lo, hi);
	if (t->shared)
		pthread_mutex_unlock(&t->lock);
}
