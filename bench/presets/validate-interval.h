/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/presets/validate-interval.h - a corpus row's prediction as an interval over
 * its machine model's stated ranges (bench/presets/validate-interval.c). */
#ifndef TLBGEN_BENCH_VALIDATE_INTERVAL_H
#define TLBGEN_BENCH_VALIDATE_INTERVAL_H

#include <jansson.h>

#include "corpus.h"

/* The row's base and patched rates on machine m: 0 or -errno. */
typedef int (*validate_rates_fn)(void *ctx, const struct corpus_row *r,
				 const struct tlbgen_machine *m, double rate[2]);

/*
 * Rerun row r with each stated range of its model at its low and its high
 * end, one at a time (fn, on the interval's seeds), against a rerun at the
 * points; the effects below and above the point summed onto `rate` (the
 * row's prediction). Records model_rate_interval_low/high,
 * model_change_interval_low/high_pct and the interval's figure count under
 * pa, whether the measured rate and change lie inside, and each figure's
 * swing of the change under pa plus "figure".
 * 0 or -errno.
 */
int validate_interval(const struct corpus_row *r, validate_rates_fn fn, void *ctx,
		      const double rate[2], json_t *pa);

#endif
