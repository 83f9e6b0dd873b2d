/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/report/report-threaded.h - what a threaded run prints (bench/report/report-threaded.c). */
#ifndef TLBGEN_BENCH_REPORT_THREADED_H
#define TLBGEN_BENCH_REPORT_THREADED_H

#include "run/threaded.h"

/* report-threaded.c: stdout sections in this order. */
void cmp_print_wis(struct cmp *c);
void cmp_print_table(struct cmp *c);
void cmp_print_counters(struct cmp *c);
/* --invlpgb: INVLPGB, TLBSYNC, IPIs and IPIs avoided per flush. */
void cmp_print_invlpgb(struct cmp *c);

/* will-it-scale CSV of policy p, as runtest.py writes it for one test case. */
void cmp_print_csv(struct cmp *c, unsigned int p, FILE *f);
/* The --csv file of policy p: FILE itself with one policy (or '-'), else
 * FILE-POLICY.csv. */
void cmp_csv_path(struct cmp *c, unsigned int p, char *path, size_t len);
/* The CSV files: --csv and one per policy in the results directory; 0 or 1. */
int cmp_write_csv(struct cmp *c);
void cmp_print_lkp(struct cmp *c);

#endif
