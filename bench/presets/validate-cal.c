// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/presets/validate-cal.c - a corpus row calibrated on its measured base
 * rate (bench/driver/calibrate.c), and its change judged again.
 */
#include <math.h>

#include "driver/calibrate.h"
#include "driver/results.h"
#include "validate-cal.h"

void validate_calibrate(const struct corpus_row *r, const double rate[2], double tol,
			json_t *pa)
{
	double n = r->wl->kind == CORPUS_WIS ? r->tasks : 1;
	struct bench_cal c;

	bench_calibrate(n, rate[0], rate[1], r->base_rate, &c);
	bench_metric("calibrated_work_ns", "ns/op", NULL, pa, c.work_ns);
	bench_metric("calibrated_serial_work_ns", "ns/op", NULL, pa, c.serial_work_ns);
	bench_metric("calibrated_change_parallel_pct", "% of the base rate", NULL, pa,
		     c.change_parallel_pct);
	bench_metric("calibrated_change_serial_pct", "% of the base rate", NULL, pa,
		     c.change_serial_pct);
	bench_metric("calibrated_holds_change", "1 holds, 0 misses", "higher", pa,
		     r->change_pct >= fmin(c.change_parallel_pct, c.change_serial_pct) - tol &&
		     r->change_pct <= fmax(c.change_parallel_pct, c.change_serial_pct) + tol);
}
