// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/presets/validate-print.c - the validation corpus's table, every figure
 * read back from results.json (bench/presets/validate.c records them first).
 */
#include <math.h>
#include <stdio.h>

#include "driver/results.h"
#include "validate-print.h"

json_t *validate_params(const char *row)
{
	return row ? json_pack("{s:s,s:s}", "workload", "validate", "row", row)
		   : json_pack("{s:s}", "workload", "validate");
}

double validate_get(const char *name, const char *row)
{
	json_t *pa = validate_params(row);
	double v = NAN;

	bench_metric_get(name, pa, &v);
	json_decref(pa);
	return v;
}

void validate_print_header(const struct bench_env *e, unsigned int nrows)
{
	printf("# validation corpus: %u published measurements, predicted in virtual time "
	       "(%u seeds of %u ms after %u ms each)\n", nrows, e->runs, e->ms, e->warmup_ms);
	printf("# rate: the base kernel's, per task (ops/s; swap_bench: pages/s); change: of "
	       "the rate, patch against base\n# holds: rate within 25%% and change within "
	       "max(3 points, a third of the measured change)\n# calibrated: the change after "
	       "fixing unseen per-op work on the measured base rate,\n# that work parallel .. "
	       "serial\n");
	printf("%-34s %-7s %-20s %10s %10s %6s %8s %8s %6s %5s %17s %5s\n", "row", "arch",
	       "workload x tasks", "measured", "model", "err", "measured", "model", "err",
	       "holds", "calibrated", "holds");
	printf("%-34s %-7s %-20s %10s %10s %6s %8s %8s %6s %5s %17s %5s\n", "", "", "",
	       "rate", "rate", "%", "change", "change", "points", "", "change", "");
}

static const char *yes(double v)
{
	return isnan(v) ? "-" : v > 0 ? "yes" : "no";
}

void validate_print_row(const struct corpus_row *r)
{
	char wl[40], cal[40];
	const char *id = r->id;
	double cp = validate_get("calibrated_change_parallel_pct", id);
	double cs = validate_get("calibrated_change_serial_pct", id);

	snprintf(wl, sizeof(wl), "%s %c x %u", r->wl->name, r->processes ? 'p' : 't', r->tasks);
	snprintf(cal, sizeof(cal), "%+.1f..%+.1f%%", fmin(cp, cs), fmax(cp, cs));
	printf("%-34s %-7s %-20s %10.0f %10.0f %+5.0f%% %+7.1f%% %+7.1f%% %+6.1f %5s %17s %5s\n",
	       id, r->arch, wl, validate_get("measured_base_rate", id),
	       validate_get("model_base_rate", id), validate_get("rate_error_pct", id),
	       validate_get("measured_change_pct", id), validate_get("model_change_pct", id),
	       validate_get("change_error_points", id), yes(validate_get("holds", id)), cal,
	       yes(validate_get("calibrated_holds_change", id)));
	if (isnan(validate_get("model_change_interval_low_pct", id)))
		return;
	printf("#   interval over %.0f ranged figures: rate %.0f..%.0f (measured %s), change "
	       "%+.1f..%+.1f%% (measured %s)\n", validate_get("interval_figures", id),
	       validate_get("model_rate_interval_low", id),
	       validate_get("model_rate_interval_high", id),
	       validate_get("measured_in_rate_interval", id) > 0 ? "inside" : "outside",
	       validate_get("model_change_interval_low_pct", id),
	       validate_get("model_change_interval_high_pct", id),
	       validate_get("measured_in_change_interval", id) > 0 ? "inside" : "outside");
}

void validate_print_summary(void)
{
	double n = validate_get("rows", NULL);

	printf("# held: %.0f of %.0f rows (%.0f%%); rate within 25%%: %.0f; change within its "
	       "tolerance: %.0f; calibrated change: %.0f\n", validate_get("rows_held", NULL), n,
	       validate_get("held_pct", NULL), validate_get("rows_held_rate", NULL),
	       validate_get("rows_held_change", NULL),
	       validate_get("rows_held_calibrated_change", NULL));
}
