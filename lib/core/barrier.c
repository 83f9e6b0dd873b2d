// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/core/barrier.c - the registry of barrier sites (core/barrier.h): a
 * fixed table filled as sites first run, and the switch that drops one.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "../base/compiler.h"
#include "barrier.h"

#define MAX_SITES	32

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct tlbgen__barrier_site *sites[MAX_SITES];
static unsigned int nr_sites;

bool tlbgen__barrier_slow(struct tlbgen__barrier_site *s)
{
	pthread_mutex_lock(&lock);
	if (!atomic_load_explicit(&s->registered, memory_order_relaxed)) {
		/* A table too small loses the site for mutation, not the barrier. */
		if (nr_sites < MAX_SITES)
			sites[nr_sites++] = s;
		atomic_store_explicit(&s->registered, true, memory_order_release);
	}
	pthread_mutex_unlock(&lock);
	return !atomic_load_explicit(&s->dropped, memory_order_relaxed);
}

TLBGEN_API int tlbgen_barrier_sites(struct tlbgen_barrier_info *out, size_t n)
{
	unsigned int nr;

	if (!out && n)
		return -EINVAL;
	pthread_mutex_lock(&lock);
	nr = nr_sites;
	for (unsigned int i = 0; i < nr && i < n; i++) {
		out[i].site = sites[i]->site;
		out[i].kind = sites[i]->kind;
		out[i].dropped = atomic_load(&sites[i]->dropped);
	}
	pthread_mutex_unlock(&lock);
	return (int)nr;
}

TLBGEN_API int tlbgen_barrier_drop(const char *site, bool drop)
{
	int err = -ENOENT;

	if (!site)
		return -EINVAL;
	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < nr_sites; i++)
		if (!strcmp(sites[i]->site, site)) {
			atomic_store(&sites[i]->dropped, drop);
			err = 0;
		}
	pthread_mutex_unlock(&lock);
	return err;
}
