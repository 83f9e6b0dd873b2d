/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/run/run.h - an op-based workload through the generic runners (bench/run/run.c). */
#ifndef TLBGEN_BENCH_RUN_H
#define TLBGEN_BENCH_RUN_H

#include "bench.h"

/* The generic runners over every mode the command has meaning in: 0 ok,
 * 1 failed run, 2 bad arguments. */
int bench_run_ops(struct bench_env *e);

/* The modes of e that its command runs: the given ones it has meaning in (a
 * mode it has none in is refused by name, 0 returned), else its default. */
unsigned int bench_modes(const struct bench_env *e);
/* A model runs at most one task per CPU: 0, or -EINVAL after a message. */
int bench_check_threads(const struct bench_env *e);

#endif
