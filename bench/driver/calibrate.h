/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/driver/calibrate.h - the model calibrated on a measured base rate
 * (bench/driver/calibrate.c). */
#ifndef TLBGEN_BENCH_CALIBRATE_H
#define TLBGEN_BENCH_CALIBRATE_H

/* One calibration: the per-op term and a policy's change under both bounds. */
struct bench_cal {
	double work_ns;			/* w, parallel: N/(T+w) equals the measured rate */
	double serial_work_ns;		/* w, serial (the same where it cannot bind) */
	double change_parallel_pct;	/* the policy's change, w parallel */
	double change_serial_pct;	/* the policy's change, w serial */
};

/*
 * Calibrate on `measured` (per-task rate of the base kernel, N tasks) the
 * model's per-task rates `base` and `rate`, and give rate's change against
 * the measured base under both bounds. All rates positive.
 */
void bench_calibrate(double n, double base, double rate, double measured, struct bench_cal *out);

#endif
