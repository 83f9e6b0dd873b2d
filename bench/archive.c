// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/archive.c - `tlbgen-bench compare DIR_A DIR_B [DIR_C...]`: saved
 * results directories side by side, in the layout of mmtests'
 * compare-kernels: one row per metric, the first directory as the
 * baseline, each other column its value and its change against it.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "archive.h"
#include "common.h"
#include "results.h"

/* Loading ----------------------------------------------------------------- */

static json_t *load(const char *dir, const char *name, const char *schema)
{
	char path[4096];
	json_error_t e;
	json_t *doc, *v;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	doc = json_load_file(path, 0, &e);
	if (!doc) {
		fprintf(stderr, "tlbgen-bench: %s: %s (line %d)\n", path, e.text, e.line);
		return NULL;
	}
	v = json_object_get(doc, "schema");
	if (!json_is_string(v) || strcmp(json_string_value(v), schema) ||
	    json_integer_value(json_object_get(doc, "schema_version")) !=
	    BENCH_RESULTS_SCHEMA_VERSION) {
		fprintf(stderr, "tlbgen-bench: %s: not a %s document of schema version %d\n",
			path, schema, BENCH_RESULTS_SCHEMA_VERSION);
		json_decref(doc);
		return NULL;
	}
	return doc;
}

int archive_load(struct archive *a, const char *dir)
{
	memset(a, 0, sizeof(*a));
	a->dir = dir;
	a->meta = load(dir, "meta.json", BENCH_META_SCHEMA);
	a->results = a->meta ? load(dir, "results.json", BENCH_RESULTS_SCHEMA) : NULL;
	if (!a->results) {
		archive_free(a);
		return -EINVAL;
	}
	if (!json_is_array(json_object_get(a->results, "metrics"))) {
		fprintf(stderr, "tlbgen-bench: %s/results.json: no \"metrics\" array\n", dir);
		archive_free(a);
		return -EINVAL;
	}
	return 0;
}

void archive_free(struct archive *a)
{
	json_decref(a->meta);
	json_decref(a->results);
	a->meta = a->results = NULL;
}

char *archive_key(json_t *metric)
{
	char *params = json_dumps(json_object_get(metric, "params"),
				  JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
	const char *name = json_string_value(json_object_get(metric, "name"));
	char *key = NULL;

	if (params && name && asprintf(&key, "%s %s", name, params) < 0)
		key = NULL;
	free(params);
	return key;
}

json_t *archive_find(struct archive *a, const char *key)
{
	json_t *metrics = json_object_get(a->results, "metrics"), *m;
	size_t i;

	json_array_foreach(metrics, i, m) {
		char *k = archive_key(m);
		bool hit = k && !strcmp(k, key);

		free(k);
		if (hit)
			return m;
	}
	return NULL;
}

/* The samples of a metric (its value alone when it has none). */
size_t archive_samples(json_t *m, double **out)
{
	json_t *s = json_object_get(m, "samples"), *v;
	size_t n = 0, i;

	*out = NULL;
	if (json_is_array(s)) {
		*out = calloc(json_array_size(s) + 1, sizeof(double));
		json_array_foreach(s, i, v)
			if (*out && json_is_number(v))
				(*out)[n++] = json_number_value(v);
	} else if (json_is_number(json_object_get(m, "value"))) {
		*out = malloc(sizeof(double));
		if (*out)
			(*out)[n++] = json_number_value(json_object_get(m, "value"));
	}
	return n;
}

/* Printing ------------------------------------------------------------------ */

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "?";
}

static void print_host(const char *tag, const struct archive *a)
{
	json_t *h = json_object_get(a->meta, "host"), *t = json_object_get(a->meta, "tool");

	printf("# %s: %s\n#    host %s, kernel %s, %s, %lld CPUs (%lld allowed), %lld NUMA "
	       "node%s%s\n#    %s %s (git %s), %s, %s\n", tag, a->dir, str(h, "hostname"),
	       str(h, "kernel"), str(h, "cpu_model"),
	       (long long)json_integer_value(json_object_get(h, "cpus_online")),
	       (long long)json_integer_value(json_object_get(h, "cpus_allowed")),
	       (long long)json_integer_value(json_object_get(h, "numa_nodes")),
	       json_integer_value(json_object_get(h, "numa_nodes")) == 1 ? "" : "s",
	       json_is_true(json_object_get(h, "hypervisor")) ? ", under a hypervisor" : "",
	       str(t, "name"), str(t, "version"), str(t, "git_describe"),
	       str(a->meta, "workload"), str(a->meta, "date"));
}

/* "name param=v,param=v" for the row label; params sorted by key. */
static void row_label(json_t *m, char *buf, size_t len)
{
	json_t *params = json_object_get(m, "params"), *v;
	const char *keys[32], *k;
	size_t n = 0, off;

	off = (size_t)snprintf(buf, len, "%s", str(m, "name"));
	json_object_foreach(params, k, v)
		if (n < 32)
			keys[n++] = k;
	for (size_t i = 1; i < n; i++)	/* insertion sort: a handful of keys */
		for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
			const char *t = keys[j];

			keys[j] = keys[j - 1];
			keys[j - 1] = t;
		}
	for (size_t i = 0; i < n && off < len; i++) {
		json_t *x = json_object_get(params, keys[i]);
		char val[96];

		if (json_is_string(x))
			snprintf(val, sizeof(val), "%s", json_string_value(x));
		else if (json_is_integer(x))
			snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(x));
		else
			snprintf(val, sizeof(val), "%g", json_number_value(x));
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", i ? "," : " ", keys[i],
					val);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: tlbgen-bench compare [options] DIR_A DIR_B [DIR_C...]\n"
"\n"
"Compares results directories (tlbgen-bench --out, or tlbgen-bench merge),\n"
"from one machine or several, in the layout of mmtests' compare-kernels:\n"
"DIR_A is the baseline; for each metric present in DIR_A and in another\n"
"directory, the row shows the statistic of each (Amean: the mean of the\n"
"samples, e.g. the rounds; Value: a single figure), the change against\n"
"DIR_A in %%, the 95%% confidence interval of that change (Welch's interval\n"
"of the difference of means, relative to DIR_A's mean) and Welch's\n"
"two-sided p. Single figures have no interval and no p ('-').\n"
"The header shows every directory's host, kernel, CPU and tool version.\n"
"\n"
"options:\n"
"  --metric NAME   only metrics of this name (repeatable)\n"
"  -h, --help      this text\n"
"\n"
"Exit: 0 compared; 1 a directory is not a readable results directory;\n"
"2 bad arguments; 3 no metric in common between DIR_A and the others.\n");
}

static bool wanted(json_t *m, char **names, int nnames)
{
	if (!nnames)
		return true;
	for (int i = 0; i < nnames; i++)
		if (!strcmp(names[i], str(m, "name")))
			return true;
	return false;
}

/* One cell of a non-baseline column. */
static void print_change(json_t *ma, json_t *mb)
{
	double *a, *b, d, lo, hi, p, base;
	size_t na = archive_samples(ma, &a), nb = archive_samples(mb, &b);
	char ci[48] = "-", pv[24] = "-";

	if (!na || !nb) {
		printf("  %14s %10s %19s %8s", "n/a", "", "", "");
		free(a);
		free(b);
		return;
	}
	double mean_a, sd_a, mean_b, sd_b;

	bench_mean_sd(a, na, &mean_a, &sd_a);
	bench_mean_sd(b, nb, &mean_b, &sd_b);
	base = mean_a;
	if (bench_welch(a, na, b, nb, &d, &lo, &hi, &p)) {
		if (base != 0)
			snprintf(ci, sizeof(ci), "[%+7.2f%%,%+7.2f%%]", 100 * lo / fabs(base),
				 100 * hi / fabs(base));
		snprintf(pv, sizeof(pv), "%.3f", p);
	}
	if (base != 0)
		printf("  %14.2f (%+7.2f%%) %19s %8s", mean_b, 100 * (mean_b - base) / fabs(base), ci,
		       pv);
	else
		printf("  %14.2f (%8s) %19s %8s", mean_b, mean_b == 0 ? "+0.00%" : "inf", ci, pv);
	free(a);
	free(b);
}

int bench_cmp_dirs_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *names[64];
	int nnames = 0, opt, ndirs, ret = 0, width = 6;
	struct archive *ar;
	size_t rows = 0, i;
	json_t *m;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case 'm':
			if (nnames >= 64) {
				fprintf(stderr, "tlbgen-bench compare: at most 64 --metric\n");
				return 2;
			}
			names[nnames++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "tlbgen-bench compare: see tlbgen-bench compare --help\n");
			return 2;
		}
	}
	ndirs = argc - optind;
	if (ndirs < 2) {
		fprintf(stderr, "tlbgen-bench compare: needs at least two results directories; "
			"usage: tlbgen-bench compare [--metric NAME]... DIR_A DIR_B [DIR...]\n");
		return 2;
	}
	ar = calloc((size_t)ndirs, sizeof(*ar));
	if (!ar)
		return 1;
	for (int d = 0; d < ndirs; d++)
		if (archive_load(&ar[d], argv[optind + d]))
			ret = 1;
	if (ret)
		goto out;
	printf("# tlbgen-bench compare\n");
	for (int d = 0; d < ndirs; d++) {
		char tag[8];

		snprintf(tag, sizeof(tag), "%c", 'A' + (d < 26 ? d : 25));
		print_host(tag, &ar[d]);
	}
	printf("# Amean: mean of the samples (rounds); Value: one figure. (change) against A;\n"
	       "# [CI]: 95%% confidence interval of the change (Welch); p: Welch's t-test.\n\n");
	/* The metric column as wide as its longest label. */
	json_array_foreach(json_object_get(ar[0].results, "metrics"), i, m) {
		char label[512];

		if (!wanted(m, names, nnames))
			continue;
		row_label(m, label, sizeof(label));
		width = (int)strlen(label) > width ? (int)strlen(label) : width;
	}
	printf("%-6s %-*s %14s", "", width, "metric", "A");
	for (int d = 1; d < ndirs; d++)
		printf("  %14c %10s %19s %8s", 'A' + (d < 26 ? d : 25), "(change)", "95% CI", "p");
	putchar('\n');
	json_array_foreach(json_object_get(ar[0].results, "metrics"), i, m) {
		char *key = archive_key(m), label[512];
		double *a, ma, sa;
		size_t na;
		bool any = false;

		if (!key || !wanted(m, names, nnames)) {
			free(key);
			continue;
		}
		for (int d = 1; d < ndirs && !any; d++)
			any = archive_find(&ar[d], key) != NULL;
		if (!any) {
			free(key);
			continue;
		}
		na = archive_samples(m, &a);
		bench_mean_sd(a, na, &ma, &sa);
		row_label(m, label, sizeof(label));
		printf("%-6s %-*s ", json_object_get(m, "samples") ? "Amean" : "Value", width, label);
		if (na)
			printf("%14.2f", ma);
		else
			printf("%14s", "n/a");
		for (int d = 1; d < ndirs; d++) {
			json_t *mb = archive_find(&ar[d], key);

			if (mb)
				print_change(m, mb);
			else
				printf("  %14s %10s %19s %8s", "-", "", "", "");
		}
		printf("  %s\n", str(m, "unit"));
		free(a);
		free(key);
		rows++;
	}
	if (!rows) {
		fprintf(stderr, "tlbgen-bench compare: no metric of %s is in the other directories\n",
			ar[0].dir);
		ret = 3;
	}
out:
	for (int d = 0; d < ndirs; d++)
		archive_free(&ar[d]);
	free(ar);
	return ret;
}
