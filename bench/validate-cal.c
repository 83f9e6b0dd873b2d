// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/validate-cal.c - calibrate a corpus row on its measured base rate,
 * as a user with the box would, and predict the change again.
 *
 * The model misses work it does not see (the rest of the syscall, the page
 * allocator, the LRU, ...). One per-op term w stands for it, fixed so that
 * the base kernel's rate equals the measured one, and kept for the patched
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

#include "common.h"
#include "results.h"
#include "validate-cal.h"

/* Throughput, ops/s of all tasks, of per-task op time t with extra work w. */
static double x_parallel(double n, double t, double w)
{
	return t + w > 0 ? n / (t + w) : INFINITY;
}

static double x_serial(double n, double t, double w)
{
	return fmin(x_parallel(n, t, w), 1 / w);
}

void validate_calibrate(const struct corpus_row *r, const double rate[2], double tol,
			json_t *pa)
{
	double n = r->wl->kind == CORPUS_WIS ? r->tasks : 1;
	double tb = 1 / rate[0], tp = 1 / rate[1], xm = n * r->base_rate;
	double wp = 1 / r->base_rate - tb, ws = wp, cp, cs, lo, hi;

	cp = bench_pct(x_parallel(n, tp, wp), xm);
	cs = cp;
	if (wp > 0) {
		/* The server binds at the measured rate when N / (T + 1/X) >= X. */
		double w1 = 1 / xm;

		ws = x_parallel(n, tb, w1) >= xm ? w1 : wp;
		cs = bench_pct(x_serial(n, tp, ws), xm);
	}
	lo = fmin(cp, cs);
	hi = fmax(cp, cs);
	bench_metric("calibrated_work_ns", "ns/op", NULL, pa, wp * 1e9);
	bench_metric("calibrated_serial_work_ns", "ns/op", NULL, pa, ws * 1e9);
	bench_metric("calibrated_change_parallel_pct", "% of the base rate", NULL, pa, cp);
	bench_metric("calibrated_change_serial_pct", "% of the base rate", NULL, pa, cs);
	bench_metric("calibrated_holds_change", "1 holds, 0 misses", "higher", pa,
		     r->change_pct >= lo - tol && r->change_pct <= hi + tol);
}
