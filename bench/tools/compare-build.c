// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/tools/compare-build.c - the comparison of results directories as a JSON
 * document: metrics paired by name and params across directories, each
 * side reduced to independent samples before Welch's test.
 *
 * The sample of the test is a round (or a repetition), never a sample
 * taken inside one: will-it-scale's per-interval samples of one round share
 * that round's placement, frequency and neighbours, so they are correlated
 * and counting them as independent makes noise look significant.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "driver/common.h"
#include "compare.h"

/* The figures a workload is run for: the summary's rows when no --metric
 * is given (threaded and virtual throughput, the stepped MESI account's
 * cacheline transfers, lazy TLB's stale IPIs, seed 002's cost per page,
 * seed 004's modelled cost, the transport's round trip, scale's
 * shootdown, replay's agreement with the kernel). */
static const char *const headline_names[] = {
	"ops_per_sec", "virtual_ops_per_sec", "threaded_ops_per_sec", "transfers_per_flush",
	"stale_ipis_per_flush", "ns_per_page", "sum_us_per_iteration", "ns_per_round_trip",
	"ns_per_shootdown", "agreement", NULL,
};

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static bool round_sizes_ok(json_t *r, size_t nsamples)
{
	size_t sum = 0, i;
	json_t *v;

	if (!json_is_array(r) || !json_array_size(r))
		return false;
	json_array_foreach(r, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return false;
		sum += (size_t)json_integer_value(v);
	}
	return sum == nsamples;
}

size_t compare_units(json_t *m, double **out, const char **kind)
{
	json_t *s = json_object_get(m, "samples"), *r = json_object_get(m, "round_sizes"), *v;
	size_t n = 0, i, at = 0;

	*out = NULL;
	if (!json_is_array(s)) {
		*kind = "value";
		v = json_object_get(m, "value");
		if (json_is_number(v) && (*out = malloc(sizeof(double))))
			(*out)[n++] = json_number_value(v);
		return n;
	}
	*out = calloc(json_array_size(s) + 1, sizeof(double));
	if (!*out)
		return 0;
	if (!round_sizes_ok(r, json_array_size(s))) {
		*kind = "sample";
		json_array_foreach(s, i, v)
			if (json_is_number(v))
				(*out)[n++] = json_number_value(v);
		return n;
	}
	*kind = "round_mean";
	json_array_foreach(r, i, v) {
		size_t k = (size_t)json_integer_value(v), got = 0;
		double sum = 0;

		for (size_t j = at; j < at + k; j++) {
			json_t *x = json_array_get(s, j);

			if (json_is_number(x)) {
				sum += json_number_value(x);
				got++;
			}
		}
		at += k;
		if (got)	/* a round whose samples are all undefined is none */
			(*out)[n++] = sum / (double)got;
	}
	return n;
}

static const char *tag(size_t d, char buf[8])
{
	snprintf(buf, 8, "%c", (char)('A' + (d < 26 ? d : 25)));
	return buf;
}

static json_t *dir_json(const struct archive *a, size_t d)
{
	json_t *tt = json_object_get(json_object_get(a->meta, "params"), "threaded_timings");
	char t[8];

	return json_pack("{s:s,s:s,s:O,s:O,s:O,s:O,s:O,s:O}", "tag", tag(d, t), "path", a->dir,
			 "threaded_timings", tt ?: json_null(),
			 "workload", json_object_get(a->meta, "workload") ?: json_null(),
			 "date", json_object_get(a->meta, "date") ?: json_null(),
			 "command_line", json_object_get(a->meta, "command_line") ?: json_null(),
			 "host", json_object_get(a->meta, "host") ?: json_null(),
			 "tool", json_object_get(a->meta, "tool") ?: json_null());
}

/* One directory's side of a metric: the mean of its independent samples. */
static json_t *side_json(json_t *m, size_t d)
{
	double *u, mean, sd;
	const char *kind;
	size_t n = compare_units(m, &u, &kind);
	char t[8];

	bench_mean_sd(u, n, &mean, &sd);
	free(u);
	return json_pack("{s:s,s:o,s:o,s:i,s:s}", "tag", tag(d, t), "mean", num(n ? mean : NAN),
			 "sd", num(n > 1 ? sd : NAN), "n", (int)n, "sample", kind);
}

/* A virtual-time row is a mean over seeds, recorded as the row's "seeds"
 * metric: {params as a key: that count} of a directory. */
static json_t *seed_counts(const struct archive *a)
{
	json_t *out = json_object(), *m;
	size_t i;

	json_array_foreach(json_object_get(a->results, "metrics"), i, m) {
		char *k;

		if (strcmp(json_string_value(json_object_get(m, "name")) ?: "", "seeds") ||
		    !json_is_number(json_object_get(m, "value")))
			continue;
		k = json_dumps(json_object_get(m, "params"), JSON_SORT_KEYS | JSON_COMPACT);
		if (k)
			json_object_set(out, k, json_object_get(m, "value"));
		free(k);
	}
	return out;
}

/* How many seeds metric m of a directory is the mean of (0: not a seeds' mean). */
static int seeds_of(json_t *counts, json_t *m)
{
	char *k = json_dumps(json_object_get(m, "params"), JSON_SORT_KEYS | JSON_COMPACT);
	json_t *v = k ? json_object_get(counts, k) : NULL;

	free(k);
	return json_is_number(v) ? (int)json_number_value(v) : 0;
}

/* Directory d's change against the baseline: its mean's change in %, and
 * where both sides have two independent samples or more (of one kind),
 * Welch's 95% interval of it and the two-sided p. A single value that is
 * a mean of seeds counts its seeds, though they cannot be tested. */
static json_t *change_json(json_t *ma, json_t *mb, size_t d, int seeds_a, int seeds_b)
{
	double *a, *b, diff, lo, hi, p, mean_a, sd_a, mean_b, sd_b, base;
	const char *ka, *kb, *why = NULL;
	size_t na = compare_units(ma, &a, &ka), nb = compare_units(mb, &b, &kb);
	json_t *c;
	char t[8];

	bench_mean_sd(a, na, &mean_a, &sd_a);
	bench_mean_sd(b, nb, &mean_b, &sd_b);
	base = fabs(mean_a);
	lo = hi = p = NAN;
	if (!na || !nb)
		why = "undefined on one side";
	else if (strcmp(ka, kb))
		why = "samples of different kinds";
	else if (!strcmp(ka, "value") && (seeds_a > 1 || seeds_b > 1))
		why = "a mean of seeds whose own figures the directory does not keep";
	else if (na < 2 || nb < 2)
		why = !strcmp(ka, "value") ? "a single value" : "one round on a side";
	else if (!bench_welch(a, na, b, nb, &diff, &lo, &hi, &p))
		why = "one round on a side";
	c = json_pack("{s:s,s:o,s:o,s:o,s:o,s:i,s:i}", "tag", tag(d, t),
		      "change_pct", num(!na || !nb ? NAN : base > 0 ? 100 * (mean_b - mean_a) / base :
					mean_b == mean_a ? 0 : NAN),
		      "ci95_low_pct", num(base > 0 ? 100 * lo / base : NAN),
		      "ci95_high_pct", num(base > 0 ? 100 * hi / base : NAN),
		      "p", num(p), "n_a", !strcmp(ka, "value") && seeds_a ? seeds_a : (int)na,
		      "n_b", !strcmp(kb, "value") && seeds_b ? seeds_b : (int)nb);
	if (c && why)
		json_object_set_new(c, "no_test", json_string(why));
	free(a);
	free(b);
	return c;
}

/* {param: {its value as JSON: the value}} over every metric of a directory. */
static json_t *param_values(const struct archive *a)
{
	json_t *out = json_object(), *m, *v;
	const char *k;
	size_t i;

	json_array_foreach(json_object_get(a->results, "metrics"), i, m) {
		json_object_foreach(json_object_get(m, "params"), k, v) {
			json_t *vals = json_object_get(out, k);
			char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

			if (!vals)
				json_object_set_new(out, k, vals = json_object());
			if (s && vals)
				json_object_set(vals, s, v);
			free(s);
		}
	}
	return out;
}

/* The params both directories have but with no value in common (a
 * machine model, a mode): metrics pair by every param, so no metric of
 * theirs pairs, and the reader is told why. [{param, a: [...], b: [...]}] */
static json_t *params_differ(const struct archive *a, const struct archive *b)
{
	json_t *va = param_values(a), *vb = param_values(b), *out = json_array(), *xa, *x;
	const char *k, *s;

	json_object_foreach(va, k, xa) {
		json_t *xb = json_object_get(vb, k), *la, *lb;
		bool common = false;

		if (!xb)
			continue;
		json_object_foreach(xa, s, x)
			common |= json_object_get(xb, s) != NULL;
		if (common)
			continue;
		la = json_array();
		lb = json_array();
		json_object_foreach(xa, s, x)
			json_array_append(la, x);
		json_object_foreach(xb, s, x)
			json_array_append(lb, x);
		json_array_append_new(out, json_pack("{s:s,s:o,s:o}", "param", k, "a", la,
						     "b", lb));
	}
	json_decref(va);
	json_decref(vb);
	return out;
}

static bool listed(const char *name, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* Every metric of every directory, the baseline's order first. */
static int collect(json_t *out, json_t *index, json_t **found, const struct archive *ar,
		   size_t n, const char *const *names, size_t nnames)
{
	for (size_t d = 0; d < n; d++) {
		json_t *m;
		size_t i;

		json_array_foreach(json_object_get(ar[d].results, "metrics"), i, m) {
			const char *name = json_string_value(json_object_get(m, "name"));
			char *key = archive_key(m), t[8];
			json_t *e, *pos;

			if (!key || !name) {
				free(key);
				continue;
			}
			if (nnames && !listed(name, names, nnames)) {
				free(key);
				continue;
			}
			pos = json_object_get(index, key);
			e = pos ? json_array_get(out, (size_t)json_integer_value(pos)) : NULL;
			if (!e) {
				json_t *sides = json_array(), *src = json_array();

				for (size_t k = 0; k < n; k++) {
					json_array_append_new(sides, json_null());
					json_array_append_new(src, json_null());
				}
				e = json_pack("{s:s,s:O,s:s,s:o,s:b,s:[],s:o}", "name", name,
					      "params", json_object_get(m, "params") ?: json_null(),
					      "unit", json_string_value(json_object_get(m, "unit")) ?: "",
					      "better", json_incref(json_object_get(m, "better")) ?:
					      json_null(), "headline", false, "in", "dirs", sides);
				if (!e) {
					json_decref(src);
					free(key);
					return -ENOMEM;
				}
				json_object_set_new(index, key, json_integer((json_int_t)
								json_array_size(out)));
				found[json_array_size(out)] = src;
				json_array_append_new(out, e);
				pos = json_object_get(index, key);
			}
			if (!json_is_null(json_array_get(json_object_get(e, "dirs"), d))) {
				free(key);
				continue;	/* a duplicate key: the file's first is the one */
			}
			json_array_append_new(json_object_get(e, "in"), json_string(tag(d, t)));
			json_array_set_new(json_object_get(e, "dirs"), d, side_json(m, d));
			json_array_set(found[json_integer_value(pos)], d, m);
			free(key);
		}
	}
	return 0;
}

/* The headline: --metric's names, else the figures a workload is run for,
 * else (a workload with none of them) every figure with a direction and
 * more than one sample in the baseline, else every figure with a
 * direction. */
static void mark_headline(json_t *metrics, size_t nnames)
{
	json_t *e;
	size_t i;
	bool any = false;

	json_array_foreach(metrics, i, e) {
		bool h = nnames || listed(json_string_value(json_object_get(e, "name")),
					  headline_names, sizeof(headline_names) /
					  sizeof(headline_names[0]) - 1);
		json_t *a = json_array_get(json_object_get(e, "dirs"), 0);

		h = h && !json_is_null(a);
		json_object_set_new(e, "headline", json_boolean(h));
		any |= h;
	}
	if (any)
		return;
	json_array_foreach(metrics, i, e) {
		json_t *a = json_array_get(json_object_get(e, "dirs"), 0);

		if (json_is_string(json_object_get(e, "better")) && !json_is_null(a) &&
		    json_integer_value(json_object_get(a, "n")) > 1) {
			json_object_set_new(e, "headline", json_true());
			any = true;
		}
	}
	json_array_foreach(metrics, i, e)
		if (!any && json_is_string(json_object_get(e, "better")) &&
		    !json_is_null(json_array_get(json_object_get(e, "dirs"), 0)))
			json_object_set_new(e, "headline", json_true());
}

json_t *compare_build(const struct archive *ar, size_t n, const char *const *names,
		      size_t nnames)
{
	json_t *doc, *metrics = json_array(), *index = json_object(), *dirs = json_array();
	json_t **found = NULL, **seeds = NULL, *e;
	size_t total = 0, i, in_all = 0, tested = 0, below = 0, compared = 0;
	int err = -ENOMEM;

	for (size_t d = 0; d < n; d++)
		total += json_array_size(json_object_get(ar[d].results, "metrics"));
	found = calloc(total + 1, sizeof(*found));
	seeds = calloc(n, sizeof(*seeds));
	if (!metrics || !index || !dirs || !found || !seeds)
		goto out;
	for (size_t d = 0; d < n; d++) {
		json_t *dj = dir_json(&ar[d], d);

		if (dj && d)
			json_object_set_new(dj, "params_differ", params_differ(&ar[0], &ar[d]));
		json_array_append_new(dirs, dj);
	}
	err = collect(metrics, index, found, ar, n, names, nnames);
	if (err)
		goto out;
	err = -ENOMEM;
	for (size_t d = 0; d < n; d++)
		if (!(seeds[d] = seed_counts(&ar[d])))
			goto out;
	json_array_foreach(metrics, i, e) {
		json_t *ch = json_array(), *ma = json_array_get(found[i], 0);
		bool any = false;

		for (size_t d = 1; d < n; d++) {
			json_t *mb = json_array_get(found[i], d);
			json_t *c = ma && mb && !json_is_null(ma) && !json_is_null(mb) ?
				    change_json(ma, mb, d, seeds_of(seeds[0], ma),
						seeds_of(seeds[d], mb)) : json_null();

			any |= !json_is_null(c);
			if (json_is_number(json_object_get(c, "p"))) {
				tested++;
				below += json_number_value(json_object_get(c, "p")) < 0.01;
			}
			json_array_append_new(ch, c);
		}
		json_object_set_new(e, "changes", ch);
		compared += any;
		in_all += json_array_size(json_object_get(e, "in")) == n;
	}
	mark_headline(metrics, nnames);
	doc = json_pack("{s:s,s:i,s:{s:s,s:s,s:s,s:f},s:o,s:{s:i,s:i,s:i,s:i,s:i,s:i},s:O}",
			"schema", BENCH_COMPARE_SCHEMA, "schema_version",
			BENCH_COMPARE_SCHEMA_VERSION, "test",
			"name", "Welch's two-sided t-test and 95% interval of the difference of means",
			"sample", "a round's mean for samples taken several to a round "
			"(round_sizes); else a sample, which is a round or a repetition; a "
			"single value gets no test",
			"change", "(mean of B - mean of A) / |mean of A|, in %",
			"confidence", 0.95,
			"directories", dirs,
			"counts", "metrics", (int)json_array_size(metrics), "compared", (int)compared,
			"in_all", (int)in_all, "not_in_all", (int)(json_array_size(metrics) - in_all),
			"tested", (int)tested, "p_below_0_01", (int)below,
			"metrics", metrics);
	dirs = NULL;
	err = doc ? 0 : -ENOMEM;
out:
	for (size_t k = 0; found && k < total; k++)
		json_decref(found[k]);
	free(found);
	for (size_t d = 0; seeds && d < n; d++)
		json_decref(seeds[d]);
	free(seeds);
	json_decref(index);
	json_decref(metrics);
	json_decref(dirs);
	return err ? NULL : doc;
}
