/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/report/report-virtual.h - an op-based workload's virtual-time table (bench/report/report-virtual.c). */
#ifndef TLBGEN_BENCH_REPORT_VIRTUAL_H
#define TLBGEN_BENCH_REPORT_VIRTUAL_H

#include "report.h"

/* bench/report/report-virtual.c: the whole sweep over e->threads; 0 or 1. */
int bench_vtable_run(struct bench_env *e, const struct bench_vtable *t, bool processes);

/* Every figure of a row into results.json (report-virtual.c). */
void bench_vtable_record(const struct bench_env *e, const struct bench_vtable *t,
			 const struct bench_vrow *r);

#endif
