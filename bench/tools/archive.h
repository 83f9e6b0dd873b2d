/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/tools/archive.h - reading results directories (compare, merge). */
#ifndef TLBGEN_BENCH_ARCHIVE_H
#define TLBGEN_BENCH_ARCHIVE_H

#include <stddef.h>

#include "driver/results.h"

struct archive {
	const char *dir;
	json_t *meta, *results;
};

/* Load DIR/meta.json and DIR/results.json, checking their schema and version.
 * 0, -ENOENT when DIR is no directory, or -EINVAL; each after one line on
 * stderr naming the directory or file. */
int archive_load(struct archive *a, const char *dir);
void archive_free(struct archive *a);
/* "name {params}" (params with sorted keys): what pairs metrics across runs. */
char *archive_key(json_t *metric);
json_t *archive_find(struct archive *a, const char *key);
/* A metric's samples, or its value alone; malloc'ed into *out. */
size_t archive_samples(json_t *metric, double **out);

#endif
