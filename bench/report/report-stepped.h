/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/report/report-stepped.h - an op-based workload's stepped table (bench/report/report-stepped.c). */
#ifndef TLBGEN_BENCH_REPORT_STEPPED_H
#define TLBGEN_BENCH_REPORT_STEPPED_H

#include "driver/cell.h"

/* bench/report/report-stepped.c: the stepped sweep (counts per op); 0 or 1. */
int bench_stable_run(struct bench_env *e, const char *workload, const struct bench_ops *ops,
		     bool processes);

#endif
