/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/driver/output.h - the files a run writes besides its results directory
 * (bench/driver/output.c): checked before the run, "-" meaning standard output.
 */
#ifndef TLBGEN_BENCH_OUTPUT_H
#define TLBGEN_BENCH_OUTPUT_H

#include <jansson.h>
#include <stdio.h>

/* Output paths ------------------------------------------------------------
 * Check, before the run, that `path` (the value of option `opt`) can be
 * written: "-" always can; otherwise its directory must exist and be
 * writable and the file, if it exists, writable. 0, or -errno after one line
 * on stderr naming the option and the path. */
int bench_check_output(const char *opt, const char *path);
/* Where "-" writes from now on (NULL: stdout): --json - keeps the real
 * stdout for the JSON and sends the text report to stderr. */
void bench_set_stdout(FILE *f);
/* fopen(path, "w"), "-" meaning stdout. */
FILE *bench_open_output(const char *path);
void bench_close_output(FILE *f);

/* Dump `doc` to `path`, "-" meaning stdout. 0 or -errno (message printed). */
int bench_json_dump(json_t *doc, const char *path);

#endif
