/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/driver/results.h - the results directory of one run of tlbgen-bench.
 *
 * A run keeps what it measured in a directory (default
 * tlbgen-results/<workload>-<UTC timestamp>/ under the caller's working
 * directory, `--out DIR` elsewhere, `--no-out` for none):
 *   meta.json     tool version, host, command line, seed, date, and the full
 *                 description of every policy the run used;
 *   results.json  every figure as a metric: name, unit, parameters (policy,
 *                 tasks, ...) and a value, or the samples and the statistic
 *                 taken of them (schema: docs/results.md);
 *   plots and per-test-case CSV files, where the workload draws them.
 * `tlbgen-bench compare` reads these directories.
 *
 * Workloads record metrics during the run; tlbgen-bench.c creates the
 * directory before the workload starts (so that a path that cannot be
 * written fails before the run) and writes the two JSON files after it.
 */
#ifndef TLBGEN_BENCH_RESULTS_H
#define TLBGEN_BENCH_RESULTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "output.h"

#define BENCH_RESULTS_SCHEMA "tlbgen-bench-results"
#define BENCH_RESULTS_SCHEMA_VERSION 1
#define BENCH_META_SCHEMA "tlbgen-bench-meta"

/* Set up the run: the directory is created now unless `dir_disabled`.
 * `dir` NULL means the default name. Returns 0, or -errno after one line on
 * stderr naming the directory. */
int bench_results_begin(const char *workload, int argc, char **argv, const char *dir,
			bool dir_disabled);
/* Write meta.json and results.json (when any metric was recorded; an empty
 * directory is removed) and free everything. `status` is the workload's exit
 * status, kept in meta.json. Returns 0 or -errno (message printed). */
int bench_results_end(int status);
/* The run's directory, or NULL when none is kept. */
const char *bench_results_dir(void);
/* "DIR/name" into buf; returns false (buf "") when no directory is kept. */
bool bench_results_path(char *buf, size_t len, const char *name);

/* meta.json: the seed of the run, and every policy used (profile name as
 * given to tlbgen, label as printed). bench_policy_parse() records its
 * policies itself. */
void bench_meta_seed(uint64_t seed);
void bench_meta_policy(const char *profile, const char *label);
/* Any workload parameter ("rounds", "duration_ms", ...), owned by meta. */
void bench_meta_param(const char *key, json_t *value);
/* A parameter recorded so (borrowed), or NULL. */
json_t *bench_meta_param_get(const char *key);

/* results.json -------------------------------------------------------------
 * `params` is an object of the metric's coordinates, e.g.
 * json_pack("{s:s,s:i}", "policy", "v6.0", "tasks", 4); it is borrowed.
 * `better` is "higher", "lower" or NULL (neither). */
void bench_metric(const char *name, const char *unit, const char *better, json_t *params,
		  double value);
/* A figure measured several times: the samples and their mean. */
void bench_metric_samples(const char *name, const char *unit, const char *better,
			  json_t *params, const double *v, size_t n);
/* A mean computed by the caller (recorded as given, to the last bit) with
 * the samples it is the mean of: each seed's figure of a virtual-time row. */
void bench_metric_mean(const char *name, const char *unit, const char *better, json_t *params,
		       double mean, const double *v, size_t n);
/* The same, of samples taken in rounds: round_sizes[r] consecutive samples
 * came from round r (recorded as "round_sizes" when they add up to n), so
 * that a reader can take each round's mean as one independent sample. */
void bench_metric_round_samples(const char *name, const char *unit, const char *better,
				json_t *params, const double *v, size_t n,
				const unsigned int *round_sizes, size_t rounds);
/* Counters of a library stats array, one metric each (unit "events"). */
void bench_metric_stats(const char *prefix, json_t *params, const uint64_t *stats);

/* The value of the metric `name` with exactly these params (NAN when it
 * is null): true if recorded. What a run prints, it reads back from here. */
bool bench_metric_get(const char *name, json_t *params, double *out);
/* The samples of the metric `name` with these params into out[0..max):
 * how many there are (0 when not recorded). */
size_t bench_metric_samples_get(const char *name, json_t *params, double *out, size_t max);
/* The whole results document (borrowed), e.g. for `--json FILE`. */
json_t *bench_results_json(void);

/* The version line: "tlbgen-bench VERSION (git DESCRIBE)". */
const char *bench_version(void);

#endif
