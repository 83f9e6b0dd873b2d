/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/report/report-interval.h - a virtual-time table's interval over the machine
 * model's stated ranges (bench/report/report-interval.c). */
#ifndef TLBGEN_BENCH_REPORT_INTERVAL_H
#define TLBGEN_BENCH_REPORT_INTERVAL_H

#include "report.h"

/*
 * The stated ranges (tlbgen_machine_ranges()) of the model `spec` names
 * that apply to it: low below high, a field the spec does not set itself,
 * and invlpgb/tlbsync only if invlpgb_figures (a machine with INVLPGB, or
 * arm64's broadcast TLBI). The count (at most max) or -ENOENT.
 */
int bench_interval_ranges(const char *spec, bool invlpgb_figures, struct tlbgen_machine_range *r,
			  int max);
/* `spec` with `field` set to v, into buf. */
void bench_interval_spec_with(char *buf, size_t len, const char *spec, const char *field,
			      unsigned long v);

/* 0 when t's machine has stated ranges (tlbgen_machine_ranges()), else a
 * message and -EINVAL: check before the table runs. */
int bench_vtable_interval_check(const struct bench_vtable *t);

/*
 * Every row of `rows` rerun with each ranged figure of t's machine at its
 * low and at its high end, one at a time, over t->interval_runs seeds (the
 * row's first ones), and once at the point values over the same seeds; a
 * figure's effect is its rerun against that point rerun. Records per row
 * and policy ops_per_sec_interval_low/high (the point plus the sum of every
 * figure's effects below / above it), change_interval_low/high_pct, and
 * per figure its own swing; then prints them from results.json. 0 or 1.
 */
int bench_vtable_interval(const struct bench_env *e, const struct bench_vtable *t,
			  const struct bench_vspec *base, const struct bench_vrow *rows);

#endif
