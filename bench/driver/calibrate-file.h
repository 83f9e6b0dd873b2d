/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/driver/calibrate-file.h - a user's measured base rate for --calibrate
 * (bench/driver/calibrate-file.c). */
#ifndef TLBGEN_BENCH_CALIBRATE_FILE_H
#define TLBGEN_BENCH_CALIBRATE_FILE_H

#include <stdbool.h>

#include "bench.h"

/* What the user measured on their box, under the run's first policy. */
struct bench_cal_file {
	char machine[256];		/* the machine model spec it stands for */
	bool processes;			/* shape */
	unsigned int tasks;
	double per_task_ops;		/* ops/s per task (will-it-scale's per_thread_ops) */
};

/*
 * Read e's --calibrate file and check it against the run about to start:
 * the command `workload`, the machine spec (`machine`: the run's, default
 * resolved), the shapes and task counts of e. 0, or 2 with a message on
 * stderr naming the file and the field that is wrong; *out untouched then.
 */
int bench_cal_file_load(const struct bench_env *e, const char *workload, const char *machine,
			struct bench_cal_file *out);

#endif
