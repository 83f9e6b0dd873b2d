/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/run/threaded-run.h - an op-based workload on real threads (bench/run/threaded.c). */
#ifndef TLBGEN_BENCH_THREADED_RUN_H
#define TLBGEN_BENCH_THREADED_RUN_H

#include "bench.h"

/* threaded.c: the sweep over e's policies and task counts in `modes`
 * (BENCH_M_THREADS and/or BENCH_M_PROCESSES); 0 ok, 1 failed run.
 * `mesi_cols`, if not NULL, names the policies of the MESI account
 * (NULL-terminated; default: the run's). */
int bench_threaded_run(struct bench_env *e, const char *workload, const struct bench_ops *ops,
		       unsigned int modes);

#endif
