/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/report/report-threaded-plot.h - a threaded run's plot (bench/report/report-threaded-plot.c). */
#ifndef TLBGEN_BENCH_REPORT_THREADED_PLOT_H
#define TLBGEN_BENCH_REPORT_THREADED_PLOT_H

#include "run/threaded.h"

/* The SVG plot; 0, or 1 when gnuplot was there and failed. */
int cmp_plot(struct cmp *c);

#endif
