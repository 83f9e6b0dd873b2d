// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/tools/sweep.c - sweeps beyond one process:
 *   tlbgen-bench sweep --emit ...   one command line per cell, for GNU
 *                                   parallel (--sshloginfile) or a Slurm array;
 *   tlbgen-bench merge --out DIR SRC...   the cells' results directories
 *                                   into one that `compare` reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "archive.h"
#include "driver/common.h"
#include "driver/env.h"
#include "driver/output.h"
#include "driver/results.h"
#include "run/run.h"

/* sweep ---------------------------------------------------------------------- */

/* bench/driver/plugin.c: dlopen() PATH, which registers user policies. */
int bench_plugin_load(const char *path);

static struct {
	bool emit;
	const char *wls[16];
	unsigned int nwl;
	const char *base, *bench;
} sw = { .base = "tlbgen-sweep", .bench = "tlbgen-bench" };

/* An op-based workload of the registry (the generic runners run it), from
 * the driver's table: the registry is above the commands it lists. */
static const struct bench *find_workload(const char *name)
{
	for (const struct bench *const *c = bench_env()->commands; c && *c; c++)
		if ((*c)->ops && !strcmp((*c)->name, name))
			return *c;
	return NULL;
}

static int opt_workload(const char *opt, const char *arg)
{
	const struct bench *w = find_workload(arg);

	if (sw.nwl >= 16) {
		fprintf(stderr, "tlbgen-bench sweep: %s: at most 16 workloads\n", opt);
		return -EINVAL;
	}
	if (!w) {
		fprintf(stderr, "tlbgen-bench sweep: %s: '%s' is not a workload; the workloads:",
			opt, arg);
		for (const struct bench *const *c = bench_env()->commands; c && *c; c++)
			if ((*c)->ops)
				fprintf(stderr, " %s", (*c)->name);
		fputc('\n', stderr);
		return -EINVAL;
	}
	sw.wls[sw.nwl++] = w->name;
	return 0;
}

static const struct bench_opt sweep_opts[] = {
	{ .name = "emit", .type = BOPT_FLAG, .dst = &sw.emit,
	  .help = "print the commands (the only action so far)" },
	{ .name = "workload", .key = 'w', .arg = "W", .type = BOPT_FN, .fn = opt_workload,
	  .help = "tlb_flush1 (default), tlb_flush2, tlb_flush3, page_fault3\n(repeatable)" },
	{ .name = "out-base", .arg = "DIR", .type = BOPT_STR, .dst = &sw.base,
	  .help = "where the cells' directories go (default tlbgen-sweep)" },
	{ .name = "bench", .arg = "PATH", .type = BOPT_STR, .dst = &sw.bench,
	  .help = "the tlbgen-bench to run (default tlbgen-bench)" },
	BENCH_OPT_END,
};

/* A shell word: single-quoted, with ' as '\''. */
static void shell_word(const char *s)
{
	bool plain = *s != 0;

	for (const char *p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+",
			    *p))
			plain = false;
	if (plain) {
		fputs(s, stdout);
		return;
	}
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	}
	putchar('\'');
}

/* The policy in a directory name: [A-Za-z0-9._-] kept, the rest '_'. */
static void safe_name(char *dst, size_t len, const char *s)
{
	size_t i = 0;

	for (; *s && i + 1 < len; s++, i++)
		dst[i] = (strchr("._-", *s) || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
			  (*s >= 'A' && *s <= 'Z')) ? *s : '_';
	dst[i] = 0;
}

/* The cells' own --plugin PATH (after '--'): loaded here too, so that their
 * policies are checked before any cell runs. */
static int load_cell_plugins(const struct bench_env *e)
{
	for (int i = 0; i < e->nargs; i++) {
		const char *a = e->args[i];

		if (!strcmp(a, "--plugin") && i + 1 < e->nargs) {
			if (bench_plugin_load(e->args[++i]))
				return -EINVAL;
		} else if (!strncmp(a, "--plugin=", 9) && bench_plugin_load(a + 9)) {
			return -EINVAL;
		}
	}
	return 0;
}

/* Every workload runs in every mode asked for, or it is refused by name. */
static int check_modes(unsigned int modes)
{
	for (unsigned int w = 0; w < sw.nwl; w++) {
		const struct bench *c = find_workload(sw.wls[w]);

		for (unsigned int m = BENCH_M_STEPPED; m <= BENCH_M_VIRTUAL; m <<= 1)
			if ((modes & m) && !(c->modes & m)) {
				fprintf(stderr, "tlbgen-bench sweep: --mode %s: %s does not run "
					"in it\n", bench_mode_name(m), c->name);
				return -EINVAL;
			}
	}
	return 0;
}

static void emit(const struct bench_env *e, const char *wl, const struct bench_policy *pol,
		 unsigned int mode, unsigned int tasks)
{
	char pname[160], dir[4096];

	safe_name(pname, sizeof(pname), pol->label);
	snprintf(dir, sizeof(dir), "%s/%s-%s-%s-t%u", sw.base, wl, pname, bench_mode_name(mode),
		 tasks);
	shell_word(sw.bench);
	fputs(" --out ", stdout);
	shell_word(dir);
	printf(" %s -p ", wl);
	shell_word(pol->label);
	printf(" --mode %s -t %u", bench_mode_name(mode), tasks);
	if (e->shapes)
		printf(" --shape %s", e->shapes == BENCH_M_THREADED ? "both"
							     : bench_mode_name(e->shapes));
	for (int i = 0; i < e->nargs; i++) {
		putchar(' ');
		shell_word(e->args[i]);
	}
	putchar('\n');
}

static int sweep_run(struct bench_env *e)
{
	static const char *const defs[] = { "v5.17", "v6.0", NULL };
	unsigned int modes;

	if (!sw.emit) {
		fprintf(stderr, "tlbgen-bench sweep: --emit is required (it prints the commands)\n");
		return 2;
	}
	if (!sw.nwl && opt_workload("--workload", "tlb_flush1"))
		return 2;
	modes = bench_modes(e);
	if (!modes || check_modes(modes) || load_cell_plugins(e) || bench_env_policies(e, defs))
		return 2;
	if (!e->nthreads)
		e->threads[e->nthreads++] = 1;
	for (unsigned int w = 0; w < sw.nwl; w++)
		for (unsigned int p = 0; p < e->npol; p++)
			for (unsigned int m = BENCH_M_STEPPED; m <= BENCH_M_VIRTUAL; m <<= 1)
				for (unsigned int t = 0; (modes & m) && t < e->nthreads; t++)
					emit(e, sw.wls[w], &e->pol[p], m, e->threads[t]);
	return 0;
}

const struct bench bench_sweep = {
	.name = "sweep",
	.summary = "print one tlbgen-bench command per cell (GNU parallel, Slurm array)",
	.help = "With --emit, one tlbgen-bench command per cell of workload x policy x mode\n"
		"x tasks, each keeping its results in its own directory under --out-base,\n"
		"for GNU parallel (locally, or on several machines with --sshloginfile) or a\n"
		"Slurm array (line $SLURM_ARRAY_TASK_ID). Then `tlbgen-bench merge` the\n"
		"cells' directories into one and `tlbgen-bench compare` it. Run the same list\n"
		"on each machine model to compare machines: meta.json keeps every host.\n"
		"-p (default v5.17 and v6.0), -t (default 1) and --mode (default threads;\n"
		"a cell per mode) are the cells' own, checked here; --shape goes to every\n"
		"cell. Arguments after '--' are passed to every cell (e.g. -- -r 3 -d 200);\n"
		"a plugin the cells need goes there (-- --plugin PATH), and is loaded here\n"
		"too to check its policies. Exit: 0 printed, 2 bad arguments.\n",
	.shared = BENCH_O_POLICY | BENCH_O_MODE | BENCH_O_THREADS,
	.modes = BENCH_M_ALL,
	.default_modes = BENCH_M_THREADS,
	.opts = sweep_opts,
	.run = sweep_run,
	.tool = true,
	.args = true,
};
BENCH_COMMAND(bench_sweep);

/* merge ----------------------------------------------------------------------- */

static const char *merge_out;

static const struct bench_opt merge_opts[] = {
	{ .name = "out", .key = 'o', .arg = "DIR", .type = BOPT_STR, .dst = &merge_out,
	  .help = "the merged directory (created, or an existing one: its meta.json\n"
		  "and results.json are replaced)" },
	BENCH_OPT_END,
};

/* The rounds of metric m's n samples: its round_sizes, or one sample each
 * (a sample is a round unless the metric says otherwise). */
static void append_rounds(json_t *to, json_t *m, size_t n)
{
	json_t *r = json_object_get(m, "round_sizes"), *v;
	size_t i;

	if (json_is_array(r))
		json_array_foreach(r, i, v)
			json_array_append(to, v);
	else
		for (i = 0; i < n; i++)
			json_array_append_new(to, json_integer(1));
}

/* Add metric m (a copy) to `metrics`, or its samples to the metric of the same key. */
static void merge_metric(json_t *metrics, json_t *index, json_t *m)
{
	char *key = archive_key(m);
	json_t *have = key ? json_object_get(index, key) : NULL;

	if (!key)
		return;
	if (!have) {
		json_t *c = json_deep_copy(m);

		json_array_append_new(metrics, c);
		json_object_set(index, key, c);
	} else {
		double *a, *b;
		size_t na = archive_samples(have, &a), nb = archive_samples(m, &b);
		double *all = malloc((na + nb + 1) * sizeof(double));
		json_t *s = json_array();
		double mean, sd;

		if (all) {
			memcpy(all, a, na * sizeof(double));
			memcpy(all + na, b, nb * sizeof(double));
			for (size_t i = 0; i < na + nb; i++)
				json_array_append_new(s, json_real(all[i]));
			bench_mean_sd(all, na + nb, &mean, &sd);
			json_object_set_new(have, "statistic", json_string("mean"));
			json_object_set_new(have, "value", json_real(mean));
			json_object_set_new(have, "sd", na + nb > 1 ? json_real(sd) : json_null());
			json_object_set_new(have, "samples", s);
			if (json_object_get(have, "round_sizes") || json_object_get(m, "round_sizes")) {
				json_t *r = json_array();

				append_rounds(r, have, na);
				append_rounds(r, m, nb);
				json_object_set_new(have, "round_sizes", r);
			}
		} else {
			json_decref(s);
		}
		free(all);
		free(a);
		free(b);
	}
	free(key);
}

static int write_doc(json_t *doc, const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return bench_json_dump(doc, path);
}

static int merge_run(struct bench_env *e)
{
	const char *out = merge_out;
	char workload[64] = "";
	json_t *metrics, *index, *sources, *pols, *meta, *results;
	int ret = 0;

	if (!out || !e->nargs) {
		fprintf(stderr, "tlbgen-bench merge: needs --out DIR and at least one source "
			"directory; usage: tlbgen-bench merge --out DIR SRC_DIR...\n");
		return 2;
	}
	if (mkdir(out, 0777) && errno != EEXIST) {
		fprintf(stderr, "tlbgen-bench merge: --out: %s: %s\n", out, strerror(errno));
		return 1;
	}
	metrics = json_array();
	index = json_object();
	sources = json_array();
	pols = json_array();
	meta = NULL;
	for (int i = 0; i < e->nargs; i++) {
		struct archive a;
		json_t *m, *p;
		size_t k;

		if (archive_load(&a, e->args[i])) {
			ret = 1;
			continue;
		}
		json_array_foreach(json_object_get(a.results, "metrics"), k, m)
			merge_metric(metrics, index, m);
		json_array_append_new(sources, json_pack("{s:s,s:O,s:O,s:O,s:O}", "dir", e->args[i],
						 "host", json_object_get(a.meta, "host"),
						 "date", json_object_get(a.meta, "date"),
						 "command_line",
						 json_object_get(a.meta, "command_line"),
						 "tool", json_object_get(a.meta, "tool")));
		json_array_foreach(json_object_get(a.meta, "policies"), k, p) {
			bool dup = false;
			json_t *q;
			size_t j;

			json_array_foreach(pols, j, q)
				dup = dup || json_equal(q, p);
			if (!dup)
				json_array_append(pols, p);
		}
		const char *w = json_string_value(json_object_get(a.meta, "workload"));

		if (!meta) {
			snprintf(workload, sizeof(workload), "%s", w ? w : "");
			meta = json_deep_copy(a.meta);
		} else if (strcmp(workload, w ? w : "")) {
			snprintf(workload, sizeof(workload), "merged");
		}
		archive_free(&a);
	}
	if (!ret && meta) {
		json_object_set_new(meta, "workload", json_string(workload));
		json_object_set_new(meta, "policies", pols);
		json_object_set_new(meta, "sources", sources);
		json_object_set_new(meta, "merged", json_true());
		results = json_pack("{s:s,s:i,s:s,s:O}", "schema", BENCH_RESULTS_SCHEMA,
				    "schema_version", BENCH_RESULTS_SCHEMA_VERSION, "workload",
				    workload, "metrics", metrics);
		if (write_doc(meta, out, "meta.json") || write_doc(results, out, "results.json"))
			ret = 1;
		else
			printf("merged %d directories, %zu metrics: %s/\n", e->nargs,
			       json_array_size(metrics), out);
		json_decref(results);
	} else {
		json_decref(pols);
		json_decref(sources);
		if (!ret)
			ret = 1;
	}
	json_decref(meta);
	json_decref(metrics);
	json_decref(index);
	return ret;
}

const struct bench bench_merge = {
	.name = "merge",
	.summary = "merge the results directories of a sweep into one",
	.help = "tlbgen-bench merge --out DIR SRC_DIR... merges results directories (the\n"
		"cells of a sweep, or repeated runs) into DIR: results.json holds every\n"
		"metric of every source; a metric present in several sources (same name and\n"
		"parameters) gets all their samples, its statistic the mean of them.\n"
		"meta.json keeps each source's host, date and command line, and the union\n"
		"of the policies. Exit: 0 merged; 1 a source is not a readable results\n"
		"directory or DIR cannot be written; 2 bad arguments.\n",
	.opts = merge_opts,
	.run = merge_run,
	.tool = true,
	.args = true,
};
BENCH_COMMAND(bench_merge);
