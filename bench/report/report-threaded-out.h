/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/report/report-threaded-out.h - a threaded run's MESI account and results.json (bench/report/report-threaded-out.c). */
#ifndef TLBGEN_BENCH_REPORT_THREADED_OUT_H
#define TLBGEN_BENCH_REPORT_THREADED_OUT_H

#include "run/threaded.h"

void cmp_print_mesi(struct cmp *c);
/* Every figure into results.json (bench/driver/results.h). */
void cmp_record(struct cmp *c);

#endif
