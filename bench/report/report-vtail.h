/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/report/report-vtail.h - what a virtual-time table says around its rows (bench/report/report-vtail.c). */
#ifndef TLBGEN_BENCH_REPORT_VTAIL_H
#define TLBGEN_BENCH_REPORT_VTAIL_H

#include "report.h"

/* bench/report/report-vtail.c: its header, the accounts under the last row, the
 * spread of the seeds, and the speed line. */
void bench_vtable_header(const struct bench_env *e, const struct bench_vtable *t, bool processes);
void bench_vtable_tail(const struct bench_env *e, const struct bench_vtable *t,
		       const struct bench_vrow *r);
void bench_vtable_spread(const struct bench_env *e, const struct bench_vtable *t, bool processes);
void bench_vtable_speed(const struct bench_vtable *t, double points, double seconds);

#endif
