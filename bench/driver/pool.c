// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/driver/pool.c - independent cells over the host's cores: each cell owns
 * its system (distinct systems share nothing in libtlbgen), so workers
 * take the next index and write only their own result.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "bench.h"
#include "pool.h"

struct pool {
	int (*fn)(void *arg, size_t i);
	void *arg;
	size_t n;
	atomic_size_t next;
	int *err;
};

static void *worker(void *p)
{
	struct pool *pl = p;
	size_t i;

	while ((i = atomic_fetch_add(&pl->next, 1)) < pl->n)
		pl->err[i] = pl->fn(pl->arg, i);
	return NULL;
}

int bench_pool(unsigned int jobs, size_t n, int (*fn)(void *arg, size_t i), void *arg)
{
	struct pool pl = { .fn = fn, .arg = arg, .n = n };
	pthread_t th[64];
	unsigned int nt = jobs < 64 ? jobs : 64, started = 0;
	int err = 0;

	if (nt > n)
		nt = (unsigned int)n;
	if (nt <= 1) {
		for (size_t i = 0; !err && i < n; i++)
			err = fn(arg, i);
		return err;
	}
	pl.err = calloc(n, sizeof(*pl.err));
	if (!pl.err)
		return -ENOMEM;
	for (; started < nt; started++)
		if (pthread_create(&th[started], NULL, worker, &pl))
			break;
	if (!started)
		worker(&pl);
	for (unsigned int t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	for (size_t i = 0; !err && i < n; i++)
		err = pl.err[i];
	free(pl.err);
	return err;
}
