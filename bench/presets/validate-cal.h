/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/presets/validate-cal.h - a corpus row calibrated on its measured base rate
 * (bench/presets/validate-cal.c). */
#ifndef TLBGEN_BENCH_VALIDATE_CAL_H
#define TLBGEN_BENCH_VALIDATE_CAL_H

#include <jansson.h>

#include "corpus.h"

/*
 * Calibrate row r on its measured base rate and predict its change again:
 * rate[0..1] the model's per-task base and patched rates, tol the row's
 * change tolerance. Records calibrated_work_ns (the per-op term),
 * calibrated_serial_work_ns, calibrated_change_parallel_pct / _serial_pct
 * and calibrated_holds_change under params pa.
 */
void validate_calibrate(const struct corpus_row *r, const double rate[2], double tol,
			json_t *pa);

#endif
