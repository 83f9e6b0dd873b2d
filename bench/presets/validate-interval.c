// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/presets/validate-interval.c - what the machine model's stated ranges
 * (docs/machines.md) put on a corpus row's prediction: each ranged figure
 * at either end of its range, one at a time, against the points on the
 * same seeds; the effects below and above summed (as --interval does for a
 * table, bench/report/report-interval.c). A row whose measured figures fall
 * outside the interval misses for a reason no stated range covers.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "driver/common.h"
#include "report/report-interval.h"
#include "driver/results.h"
#include "validate-interval.h"

#define MAX_RANGES	64

/* fn on `spec`: the base rate and the change. */
static int rates(const struct corpus_row *r, validate_rates_fn fn, void *ctx, const char *spec,
		 double *base, double *chg)
{
	struct tlbgen_machine m;
	double rate[2];
	int err = tlbgen_machine_lookup(spec, &m);

	if (!err)
		err = fn(ctx, r, &m, rate);
	if (!err) {
		*base = rate[0];
		*chg = bench_pct(rate[1], rate[0]);
	}
	return err;
}

int validate_interval(const struct corpus_row *r, validate_rates_fn fn, void *ctx,
		      const double rate[2], json_t *pa)
{
	struct tlbgen_machine_range rg[MAX_RANGES];
	/* arm64's TLBI ...IS and DSB ISH are priced by the invlpgb/tlbsync figures */
	int n = bench_interval_ranges(r->model, r->invlpgb || !strcmp(r->arch, "arm64"), rg,
				      MAX_RANGES);
	double pb, pc, lo_b = 0, hi_b = 0, lo_c = 0, hi_c = 0, c = bench_pct(rate[1], rate[0]);
	char spec[512];
	int err;

	if (n < 0)
		return n;
	err = rates(r, fn, ctx, r->model, &pb, &pc);
	for (int f = 0; !err && f < n; f++) {
		double b[2], ch[2];
		json_t *fa;

		for (int end = 0; !err && end < 2; end++) {
			bench_interval_spec_with(spec, sizeof(spec), r->model, rg[f].field,
						 end ? rg[f].high : rg[f].low);
			err = rates(r, fn, ctx, spec, &b[end], &ch[end]);
		}
		if (err)
			break;
		lo_b += fmin(0, fmin(b[0], b[1]) - pb);
		hi_b += fmax(0, fmax(b[0], b[1]) - pb);
		lo_c += fmin(0, fmin(ch[0], ch[1]) - pc);
		hi_c += fmax(0, fmax(ch[0], ch[1]) - pc);
		fa = json_deep_copy(pa);
		json_object_set_new(fa, "figure", json_string(rg[f].field));
		bench_metric("figure_swing_change_pct", "points of the change", NULL, fa,
			     fmax(0, fmax(ch[0], ch[1]) - pc) - fmin(0, fmin(ch[0], ch[1]) - pc));
		json_decref(fa);
	}
	if (err)
		return err;
	bench_metric("interval_figures", "figures with a stated range", NULL, pa, n);
	/* The summed effects are a linear bound: no rate below zero, no change below -100%. */
	bench_metric("model_rate_interval_low", r->wl->unit, NULL, pa, fmax(0, rate[0] + lo_b));
	bench_metric("model_rate_interval_high", r->wl->unit, NULL, pa, rate[0] + hi_b);
	bench_metric("model_change_interval_low_pct", "% of the base rate", NULL, pa,
		     fmax(-100, c + lo_c));
	bench_metric("model_change_interval_high_pct", "% of the base rate", NULL, pa, c + hi_c);
	bench_metric("measured_in_rate_interval", "1 inside, 0 outside", NULL, pa,
		     r->base_rate >= rate[0] + lo_b && r->base_rate <= rate[0] + hi_b);
	bench_metric("measured_in_change_interval", "1 inside, 0 outside", NULL, pa,
		     r->change_pct >= fmax(-100, c + lo_c) && r->change_pct <= c + hi_c);
	return 0;
}
