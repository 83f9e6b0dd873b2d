/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/report/report.h - how an op-based workload's sweeps are presented: the
 * generic tables of each mode, and what a preset (a seed's reproduction)
 * adds to them: its column labels and its reference figures.
 */
#ifndef TLBGEN_BENCH_REPORT_H
#define TLBGEN_BENCH_REPORT_H

#include "driver/cell.h"

struct bench_cal_file;

struct bench_vtable {
	const char *workload;		/* the command (results' "workload" param) */
	const struct bench_ops *ops;
	const char *title;		/* the first header line's subject */
	const char *machine;		/* the model as given (results' "machine" param) */
	const char *model_line;		/* the third header line (NULL: generic) */
	const char *const *label;	/* column labels per policy (NULL: the -p specs) */
	/* The reference figure of column k at `threads` tasks of that shape
	 * (0: none), e.g. a seed's. */
	double (*ref)(bool processes, unsigned int threads, unsigned int k);
	const char *flushes_note;	/* what the flushes per op are */
	/* Seeds per rerun of the interval over the machine's stated ranges
	 * (bench/report/report-interval.c); 0: no interval. */
	unsigned int interval_runs;
	/* Not an x86 IPI workload: the last row's accounts of tlb_gen, csds and
	 * flush_tlb_func() (all zero) are left out; its flushes per op stay. */
	bool no_ipi_accounts;
	/* arm64: the machine's invlpgb and tlbsync figures cost its TLBI ...IS and
	 * DSB ISH, so --interval varies them without --invlpgb. */
	bool broadcast_tlbi;
	/* --calibrate: the user's measured base rate (NULL: none). */
	const struct bench_cal_file *cal;
};



#endif
