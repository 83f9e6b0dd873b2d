/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/tools/compare-text.h - `tlbgen-bench compare`'s text, read from its JSON document. */
#ifndef TLBGEN_BENCH_COMPARE_TEXT_H
#define TLBGEN_BENCH_COMPARE_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

/*
 * Print a comparison document (compare_build()) to f: the directories'
 * hosts, how the statistics were taken, the summary (the headline metrics
 * per policy and task count, each directory against the first), the
 * counts, the metrics missing from some directory; with `all`, then every
 * metric in one table. Reads the document only.
 */
void compare_print(FILE *f, json_t *doc, bool all);

#endif
