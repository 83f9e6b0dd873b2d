/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/report.h - how an op-based workload's sweeps are presented: the
 * generic tables of each mode, and what a preset (a seed's reproduction)
 * adds to them: its column labels and its reference figures.
 */
#ifndef TLBGEN_BENCH_REPORT_H
#define TLBGEN_BENCH_REPORT_H

#include "run.h"

struct bench_vtable {
	const char *workload;		/* the command (results' "workload" param) */
	const struct bench_ops *ops;
	const char *title;		/* the first header line's subject */
	const char *machine;		/* the model as given (results' "machine" param) */
	const char *model_line;		/* the third header line (NULL: generic) */
	const char *const *label;	/* column labels per policy (NULL: the -p specs) */
	/* The reference figure of column k at `threads` (0: none), e.g. a seed's. */
	double (*ref)(unsigned int threads, unsigned int k);
	const char *flushes_note;	/* what the flushes per op are */
};

/* bench/report-virtual.c: the whole sweep over e->threads; 0 or 1. */
int bench_vtable_run(struct bench_env *e, const struct bench_vtable *t, bool processes);
/* bench/report-vtail.c: its header, the accounts under the last row, the
 * spread of the seeds, and the speed line. */
void bench_vtable_header(const struct bench_env *e, const struct bench_vtable *t, bool processes);
void bench_vtable_tail(const struct bench_env *e, const struct bench_vtable *t,
		       const struct bench_vrow *r);
void bench_vtable_spread(const struct bench_env *e, const struct bench_vtable *t, bool processes);
/* Every figure of a row into results.json (report-virtual.c). */
void bench_vtable_record(const struct bench_env *e, const struct bench_vtable *t,
			 const struct bench_vrow *r);
void bench_vtable_speed(const struct bench_vtable *t, double points, double seconds);

/* bench/report-stepped.c: the stepped sweep (counts per op); 0 or 1. */
int bench_stable_run(struct bench_env *e, const char *workload, const struct bench_ops *ops,
		     bool processes);

#endif
