/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/run/run-stepped.h - an op-based workload in stepped mode (bench/run/run-stepped.c). */
#ifndef TLBGEN_BENCH_RUN_STEPPED_H
#define TLBGEN_BENCH_RUN_STEPPED_H

#include "driver/cell.h"

/* Run one stepped cell: 0 or -errno. Thread-safe: each cell has its own system. */
int bench_scell_run(const struct bench_sspec *s, struct bench_scell *out);

#endif
