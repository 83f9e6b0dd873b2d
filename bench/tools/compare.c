// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/tools/compare.c - `tlbgen-bench compare DIR_A DIR_B [DIR_C...]`: saved
 * results directories side by side, the first as the baseline, in the
 * spirit of mmtests' compare-kernels. compare-build.c makes the comparison
 * (a JSON document, what --json writes), compare-text.c prints it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "compare.h"
#include "compare-text.h"
#include "driver/output.h"

#define MAX_NAMES	64

static const char *names[MAX_NAMES];
static size_t nnames;
static bool all;
static const char *json_path;

static int opt_metric(const char *opt, const char *arg)
{
	if (nnames >= MAX_NAMES) {
		fprintf(stderr, "tlbgen-bench compare: %s: at most %d of them\n", opt, MAX_NAMES);
		return -EINVAL;
	}
	if (!*arg) {
		fprintf(stderr, "tlbgen-bench compare: %s needs a metric name\n", opt);
		return -EINVAL;
	}
	names[nnames++] = arg;
	return 0;
}

static const struct bench_opt compare_opts[] = {
	{ .name = "metric", .arg = "NAME", .type = BOPT_FN, .fn = opt_metric,
	  .help = "only metrics of this name, and they are the summary (repeatable)" },
	{ .name = "all", .type = BOPT_FLAG, .dst = &all,
	  .help = "after the summary, every metric in one table, and every metric\n"
		  "at p < 0.01 or missing from a directory listed" },
	{ .name = "json", .arg = "FILE", .type = BOPT_STR, .dst = &json_path,
	  .help = "the comparison as JSON there (docs/results.md); '-': stdout,\n"
		  "and the text goes to stderr" },
	BENCH_OPT_END,
};

static int compare_cmd(struct bench_env *e)
{
	struct archive *ar;
	FILE *text = stdout;
	json_t *doc = NULL;
	int ret = 0;

	if (e->nargs < 2) {
		fprintf(stderr, "tlbgen-bench compare: needs at least two results directories, "
			"got %d; usage: tlbgen-bench compare [--metric NAME]... [--all] "
			"[--json FILE] DIR_A DIR_B [DIR...]\n", e->nargs);
		return 2;
	}
	if (json_path && !*json_path) {
		fprintf(stderr, "tlbgen-bench compare: --json needs a file name or '-'\n");
		return 2;
	}
	ar = calloc((size_t)e->nargs, sizeof(*ar));
	if (!ar)
		return 1;
	/* A directory that does not exist is a bad argument; one that is no results directory, 1. */
	for (int d = 0; d < e->nargs; d++) {
		int err = archive_load(&ar[d], e->args[d]);

		if (err)
			ret = err == -ENOENT || ret == 2 ? 2 : 1;
	}
	if (!ret) {
		doc = compare_build(ar, (size_t)e->nargs, names, nnames);
		if (!doc) {
			fprintf(stderr, "tlbgen-bench compare: out of memory\n");
			ret = 1;
		}
	}
	if (doc && !json_integer_value(json_object_get(json_object_get(doc, "counts"),
						       "compared"))) {
		fprintf(stderr, "tlbgen-bench compare: no metric%s of %s is in the other "
			"directories\n", nnames ? " of those names" : "", ar[0].dir);
		ret = 3;
	}
	if (doc) {
		if (json_path && !strcmp(json_path, "-"))
			text = stderr;
		compare_print(text, doc, all);
		fflush(text);
		if (json_path && bench_json_dump(doc, json_path))
			ret = ret ? ret : 1;
	}
	json_decref(doc);
	for (int d = 0; d < e->nargs; d++)
		archive_free(&ar[d]);
	free(ar);
	return ret;
}

const struct bench bench_compare = {
	.name = "compare",
	.summary = "compare results directories: the change of each metric, its 95% CI and "
		   "Welch's p",
	.help = "usage: tlbgen-bench compare [options] DIR_A DIR_B [DIR_C...]\n"
		"Compares results directories (tlbgen-bench --out DIR, or merge), from one\n"
		"machine or several. DIR_A is the baseline. Metrics pair across directories\n"
		"by name and params. Each side's figure is the mean of its independent\n"
		"samples: a round's mean for samples taken several to a round (will-it-scale's\n"
		"per-interval samples are correlated inside a round), else each round or\n"
		"repetition; the change against DIR_A, Welch's 95% interval of it and the\n"
		"two-sided p are taken on those. A single value, or one round, gets a change\n"
		"and no CI or p.\n"
		"First a summary: the headline metrics (ops_per_sec and the like, or\n"
		"--metric's) per policy and task count, the metrics at p < 0.01 and those\n"
		"missing from a directory; --all adds every metric. docs/results.md.\n"
		"Exit: 0 compared; 1 a directory is not a readable results directory;\n"
		"2 bad arguments (a directory that does not exist); 3 no metric in common\n"
		"between DIR_A and the others.\n",
	.opts = compare_opts,
	.tool = true,
	.args = true,
	.run = compare_cmd,
};
BENCH_COMMAND(bench_compare);
