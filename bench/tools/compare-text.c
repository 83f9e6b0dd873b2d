// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/tools/compare-text.c - `tlbgen-bench compare`'s text: a short summary
 * first (the headline metric per policy and task count, the count of
 * metrics at p < 0.01, what is missing where), the full table behind
 * --all. Everything printed is read from the comparison document.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare-text.h"

#define MAX_KEYS	32
#define LIST_MAX	10	/* names listed in the summary before "--all" */

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "?";
}

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void print_host(FILE *f, json_t *d)
{
	json_t *h = json_object_get(d, "host"), *t = json_object_get(d, "tool");

	fprintf(f, "# %s: %s\n#    host %s, kernel %s, %s, %lld CPUs (%lld allowed)%s\n"
		"#    %s %s (git %s), %s, %s\n", str(d, "tag"), str(d, "path"),
		str(h, "hostname"), str(h, "kernel"), str(h, "cpu_model"),
		(long long)json_integer_value(json_object_get(h, "cpus_online")),
		(long long)json_integer_value(json_object_get(h, "cpus_allowed")),
		json_is_true(json_object_get(h, "hypervisor")) ? ", under a hypervisor" : "",
		str(t, "name"), str(t, "version"), str(t, "git_describe"), str(d, "workload"),
		str(d, "date"));
	t = json_object_get(d, "threaded_timings");
	if (json_is_false(json_object_get(t, "meaningful")))
		fprintf(f, "#    its threaded timings are not meaningful: %s\n", str(t, "why"));
}

/* A figure in few columns: large ones without decimals. */
static void fig(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1e5)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 100)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void param_value(char *buf, size_t len, json_t *x)
{
	if (json_is_string(x))
		snprintf(buf, len, "%s", json_string_value(x));
	else if (json_is_integer(x))
		snprintf(buf, len, "%lld", (long long)json_integer_value(x));
	else if (json_is_number(x))
		snprintf(buf, len, "%g", json_number_value(x));
	else
		snprintf(buf, len, "?");
}

/* "k=v,k=v" of params sorted by key, leaving out the keys in `skip`. */
static void params_label(char *buf, size_t len, json_t *params, json_t *skip)
{
	const char *keys[MAX_KEYS], *k;
	size_t n = 0, off = 0;
	json_t *v;

	buf[0] = '\0';
	json_object_foreach(params, k, v)
		if (n < MAX_KEYS && !json_object_get(skip, k))
			keys[n++] = k;
	qsort(keys, n, sizeof(keys[0]), cmp_str);
	for (size_t i = 0; i < n && off < len; i++) {
		char val[96];

		param_value(val, sizeof(val), json_object_get(params, keys[i]));
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", i ? "," : "", keys[i], val);
	}
}

static void metric_label(char *buf, size_t len, json_t *m)
{
	char p[400];

	params_label(p, sizeof(p), json_object_get(m, "params"), NULL);
	snprintf(buf, len, "%s%s%s", str(m, "name"), *p ? " " : "", p);
}

/* change, CI and p of one change entry, in fixed columns. */
static void print_change(FILE *f, json_t *c)
{
	char ci[48] = "-", pv[16] = "-", chg[16] = "-";
	double ch = num(c, "change_pct"), lo = num(c, "ci95_low_pct"), hi = num(c, "ci95_high_pct");
	double p = num(c, "p");

	if (isfinite(ch))
		snprintf(chg, sizeof(chg), "%+.2f%%", ch);
	if (isfinite(lo) && isfinite(hi))
		snprintf(ci, sizeof(ci), "[%+.2f%%, %+.2f%%]", lo, hi);
	if (isfinite(p))
		snprintf(pv, sizeof(pv), p < 0.001 ? "%.1e" : "%.3f", p);
	fprintf(f, " %9s %22s %8s %7lld/%lld", chg, ci, pv,
		(long long)json_integer_value(json_object_get(c, "n_a")),
		(long long)json_integer_value(json_object_get(c, "n_b")));
}

static json_t *side(json_t *m, size_t d)
{
	json_t *s = json_array_get(json_object_get(m, "dirs"), d);

	return json_is_null(s) ? NULL : s;
}

/* The params every headline row of metric `name` shares: printed once. */
static json_t *shared_params(json_t *metrics, const char *name)
{
	json_t *same = NULL, *m;
	size_t i;

	json_array_foreach(metrics, i, m) {
		json_t *p = json_object_get(m, "params"), *v;
		const char *k;
		void *tmp;

		if (!json_is_true(json_object_get(m, "headline")) || strcmp(str(m, "name"), name))
			continue;
		if (!same) {
			same = json_deep_copy(p);
			continue;
		}
		json_object_foreach_safe(same, tmp, k, v)
			if (!json_equal(v, json_object_get(p, k)))
				json_object_del(same, k);
	}
	return same ? same : json_object();
}

#define LABEL_MIN	20
#define LABEL_MAX	48	/* a longer label gets a line of its own */

static bool in_group(json_t *x, const char *name)
{
	return json_is_true(json_object_get(x, "headline")) && !strcmp(str(x, "name"), name);
}

/* The rows of one headline metric, directory d against A. */
static size_t print_group(FILE *f, json_t *metrics, json_t *m, json_t *dir, size_t d)
{
	const char *name = str(m, "name"), *better = json_string_value(json_object_get(m, "better"));
	json_t *shared = shared_params(metrics, name), *x;
	int width = LABEL_MIN;
	char lab[400], n_ab[16];
	size_t j, rows = 0;

	json_array_foreach(metrics, j, x) {
		if (!in_group(x, name))
			continue;
		params_label(lab, sizeof(lab), json_object_get(x, "params"), shared);
		if ((int)strlen(lab) > width)
			width = strlen(lab) > LABEL_MAX ? LABEL_MAX : (int)strlen(lab);
	}
	params_label(lab, sizeof(lab), shared, NULL);
	snprintf(n_ab, sizeof(n_ab), "n A/%s", str(dir, "tag"));
	fprintf(f, "\n%s (%s%s%s%s)%s%s\n", name, str(m, "unit"), better ? ", " : "",
		better ? better : "", better ? " is better" : "", *lab ? ", " : "", lab);
	fprintf(f, "  %-*s %12s %12s %9s %22s %8s %11s\n", width, "", "A", str(dir, "tag"),
		"change", "95% CI", "p", n_ab);
	json_array_foreach(metrics, j, x) {
		json_t *c = json_array_get(json_object_get(x, "changes"), d - 1);
		char a[32], b[32];

		if (!in_group(x, name))
			continue;
		params_label(lab, sizeof(lab), json_object_get(x, "params"), shared);
		fig(a, sizeof(a), side(x, 0) ? num(side(x, 0), "mean") : NAN);
		fig(b, sizeof(b), side(x, d) ? num(side(x, d), "mean") : NAN);
		if ((int)strlen(lab) > width)
			fprintf(f, "  %s\n  %-*s %12s %12s", lab, width, "", a, b);
		else
			fprintf(f, "  %-*s %12s %12s", width, *lab ? lab : "-", a, b);
		if (!c || json_is_null(c))
			fprintf(f, " %9s\n", side(x, d) ? "-" : "(not in this directory)");
		else {
			print_change(f, c);
			fputc('\n', f);
		}
		rows++;
	}
	json_decref(shared);
	return rows;
}

/* Params A and this directory both have, with no value in common: no
 * metric of theirs pairs, and this says why. */
static void print_differ(FILE *f, json_t *dir)
{
	json_t *x, *v;
	size_t i, k;
	char val[64];

	json_array_foreach(json_object_get(dir, "params_differ"), i, x) {
		fprintf(f, "  %s differs: A has", str(x, "param"));
		json_array_foreach(json_object_get(x, "a"), k, v) {
			param_value(val, sizeof(val), v);
			fprintf(f, "%s%s", k ? ", " : " ", val);
		}
		fprintf(f, "; %s has", str(dir, "tag"));
		json_array_foreach(json_object_get(x, "b"), k, v) {
			param_value(val, sizeof(val), v);
			fprintf(f, "%s%s", k ? ", " : " ", val);
		}
		fprintf(f, ": metrics pair only where every param is the same\n");
	}
}

/* The headline rows of each metric name, directory d against A. */
static void print_summary(FILE *f, json_t *doc, size_t d)
{
	json_t *metrics = json_object_get(doc, "metrics"), *m, *done = json_object();
	json_t *dir = json_array_get(json_object_get(doc, "directories"), d);
	size_t i, rows = 0;

	fprintf(f, "\nsummary: %s against A\n", str(dir, "tag"));
	print_differ(f, dir);
	json_array_foreach(metrics, i, m) {
		if (!json_is_true(json_object_get(m, "headline")) ||
		    json_object_get(done, str(m, "name")))
			continue;
		json_object_set_new(done, str(m, "name"), json_true());
		rows += print_group(f, metrics, m, dir, d);
	}
	if (!rows)
		fprintf(f, "  no headline metric (--metric NAME picks one; --all shows all)\n");
	json_decref(done);
}

/* Metrics at p < 0.01, and metrics not in every directory: listed. */
static void print_lists(FILE *f, json_t *doc, bool all)
{
	json_t *metrics = json_object_get(doc, "metrics"), *cnt = json_object_get(doc, "counts");
	size_t ndirs = json_array_size(json_object_get(doc, "directories")), i, shown = 0;
	json_t *m;
	char lab[512];

	fprintf(f, "\n%lld metrics: %lld compared with A, %lld tested (two or more samples a "
		"side), %lld at p < 0.01\n", (long long)json_integer_value(json_object_get(cnt,
		"metrics")), (long long)json_integer_value(json_object_get(cnt, "compared")),
		(long long)json_integer_value(json_object_get(cnt, "tested")),
		(long long)json_integer_value(json_object_get(cnt, "p_below_0_01")));
	json_array_foreach(metrics, i, m) {
		json_t *c;
		size_t d;

		json_array_foreach(json_object_get(m, "changes"), d, c) {
			if (!(num(c, "p") < 0.01))
				continue;
			if (all || shown < LIST_MAX) {
				metric_label(lab, sizeof(lab), m);
				fprintf(f, "  p < 0.01: %s: %s %+.2f%%, p %.1e\n", lab,
					str(c, "tag"), num(c, "change_pct"), num(c, "p"));
			}
			shown++;
		}
	}
	if (shown > LIST_MAX && !all)
		fprintf(f, "  ... %zu more (--all)\n", shown - LIST_MAX);
	shown = 0;
	fprintf(f, "%lld metrics are not in every directory%s\n",
		(long long)json_integer_value(json_object_get(cnt, "not_in_all")),
		json_integer_value(json_object_get(cnt, "not_in_all")) ? ":" : "");
	json_array_foreach(metrics, i, m) {
		json_t *in = json_object_get(m, "in"), *t;
		size_t k;

		if (json_array_size(in) == ndirs)
			continue;
		if (all || shown < LIST_MAX) {
			metric_label(lab, sizeof(lab), m);
			fprintf(f, "  only in");
			json_array_foreach(in, k, t)
				fprintf(f, "%s%s", k ? "," : " ", json_string_value(t));
			fprintf(f, ": %s\n", lab);
		}
		shown++;
	}
	if (shown > LIST_MAX && !all)
		fprintf(f, "  ... %zu more (--all)\n", shown - LIST_MAX);
}

/* Every metric, one row each, every directory against A. */
static void print_all(FILE *f, json_t *doc)
{
	json_t *metrics = json_object_get(doc, "metrics"), *m;
	size_t ndirs = json_array_size(json_object_get(doc, "directories")), i;
	int width = 6;
	char lab[512], a[32];

	json_array_foreach(metrics, i, m) {
		metric_label(lab, sizeof(lab), m);
		width = (int)strlen(lab) > width ? (int)strlen(lab) : width;
	}
	fprintf(f, "\nall metrics:\n%-*s %12s", width, "metric", "A");
	for (size_t d = 1; d < ndirs; d++)
		fprintf(f, " | %12c %9s %22s %8s %9s/%c", (char)('A' + (d < 26 ? d : 25)), "change",
			"95% CI", "p", "n A", (char)('A' + (d < 26 ? d : 25)));
	fprintf(f, " | unit\n");
	json_array_foreach(metrics, i, m) {
		metric_label(lab, sizeof(lab), m);
		fig(a, sizeof(a), side(m, 0) ? num(side(m, 0), "mean") : NAN);
		fprintf(f, "%-*s %12s", width, lab, side(m, 0) ? a : "(none)");
		for (size_t d = 1; d < ndirs; d++) {
			json_t *c = json_array_get(json_object_get(m, "changes"), d - 1);

			fig(a, sizeof(a), side(m, d) ? num(side(m, d), "mean") : NAN);
			fprintf(f, " | %12s", side(m, d) ? a : "(none)");
			if (json_is_null(c) || !c)
				fprintf(f, " %9s %22s %8s %11s", "", "", "", "");
			else
				print_change(f, c);
		}
		fprintf(f, " | %s\n", str(m, "unit"));
	}
}

void compare_print(FILE *f, json_t *doc, bool all)
{
	json_t *dirs = json_object_get(doc, "directories"), *d;
	size_t i;

	fprintf(f, "# tlbgen-bench compare\n");
	json_array_foreach(dirs, i, d)
		print_host(f, d);
	fprintf(f, "# Each side's figure is the mean of its independent samples: a round's mean\n"
		"# where a round gave several samples (samples inside a round are correlated),\n"
		"# else each round or repetition. change: against A; 95%% CI and p: Welch's\n"
		"# t-test on those samples; n A/B: samples a side (a virtual-time row's: its\n"
		"# seeds). A single value or one round: no CI, no p. p weighs a change against\n"
		"# the spread of rounds within a run: if the machine changed between two runs,\n"
		"# that shows as a change.\n");
	for (i = 1; i < json_array_size(dirs); i++)
		print_summary(f, doc, i);
	print_lists(f, doc, all);
	if (all)
		print_all(f, doc);
	else
		fprintf(f, "every metric: --all\n");
}
