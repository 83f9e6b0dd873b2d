/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/run/run-virtual.h - an op-based workload in virtual time (bench/run/run-virtual.c). */
#ifndef TLBGEN_BENCH_RUN_VIRTUAL_H
#define TLBGEN_BENCH_RUN_VIRTUAL_H

#include "driver/cell.h"

/* The flush_tlb_func() outcomes and their counters. */
extern const struct bench_func_stat bench_func_stat[BENCH_FUNC_NR];

/* Run one virtual cell: 0, or -errno (a window with no op in it: -ERANGE,
 * with a message). Thread-safe: each cell has its own system. */
int bench_vcell_run(const struct bench_vspec *s, struct bench_vcell *out);
/* a += c * f, every average of a cell; the counts just add. */
void bench_vcell_add(struct bench_vcell *a, const struct bench_vcell *c, double f);

/* The row of spec->threads (spec->profile and seed ignored): the policies
 * of `e`, -j cells at a time; the result does not depend on e->jobs. */
int bench_vrow_run(const struct bench_env *e, const struct bench_vspec *spec,
		   struct bench_vrow *row);

#endif
