// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/driver/calibrate.c - the model calibrated on a measured base rate, as a
 * user with the box would, and a change predicted again.
 *
 * The model misses work it does not see (the rest of the syscall, the page
 * allocator, the LRU, ...). One per-op term w stands for it, fixed so that
 * the base kernel's rate equals the measured one, and kept for the other
 * kernel. Where that work runs decides what it does to a change, so both
 * bounds are given, from the asymptotic bounds of a closed system of N
 * tasks (every op: the model's time T, then w):
 *   parallel  w runs on each task's CPU beside the others: X = N / (T + w);
 *   serial    w holds one resource all tasks share (a lock, a line):
 *             X = min(N / (T + w), 1 / w).
 * w below zero (the model is slower than the box) can only be parallel:
 * both bounds are then that one.
 */
#include <math.h>

#include "calibrate.h"
#include "common.h"

/* Throughput, ops/s of all tasks, of per-task op time t with extra work w. */
static double x_parallel(double n, double t, double w)
{
	return t + w > 0 ? n / (t + w) : INFINITY;
}

static double x_serial(double n, double t, double w)
{
	return fmin(x_parallel(n, t, w), 1 / w);
}

void bench_calibrate(double n, double base, double rate, double measured, struct bench_cal *out)
{
	double tb = 1 / base, tp = 1 / rate, xm = n * measured;
	double wp = 1 / measured - tb, ws = wp, cp, cs;

	cp = bench_pct(x_parallel(n, tp, wp), xm);
	cs = cp;
	if (wp > 0) {
		/* The server binds at the measured rate when N / (T + 1/X) >= X. */
		double w1 = 1 / xm;

		ws = x_parallel(n, tb, w1) >= xm ? w1 : wp;
		cs = bench_pct(x_serial(n, tp, ws), xm);
	}
	*out = (struct bench_cal){ .work_ns = wp * 1e9, .serial_work_ns = ws * 1e9,
				   .change_parallel_pct = cp, .change_serial_pct = cs };
}
