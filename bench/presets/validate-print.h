/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/presets/validate-print.h - the validation corpus's figures read back from
 * results.json, and its table (bench/presets/validate-print.c). */
#ifndef TLBGEN_BENCH_VALIDATE_PRINT_H
#define TLBGEN_BENCH_VALIDATE_PRINT_H

#include <jansson.h>

#include "bench.h"
#include "corpus.h"

/* results.json params of a row's metrics, or of the summary (row NULL). */
json_t *validate_params(const char *row);
/* A recorded figure of a row (or of the summary): NAN when there is none. */
double validate_get(const char *name, const char *row);

/* The table, each line read back from results.json. */
void validate_print_header(const struct bench_env *e, unsigned int nrows);
void validate_print_row(const struct corpus_row *r);
void validate_print_summary(void);

#endif
