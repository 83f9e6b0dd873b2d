/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/driver/pool.h - independent cells over the host's cores (bench/driver/pool.c). */
#ifndef TLBGEN_BENCH_POOL_H
#define TLBGEN_BENCH_POOL_H

#include <stddef.h>

/* fn(arg, i) for i in [0, n), `jobs` at a time: the first error (lowest i)
 * or 0. Each fn(arg, i) must touch only its own result. */
int bench_pool(unsigned int jobs, size_t n, int (*fn)(void *arg, size_t i), void *arg);

#endif
