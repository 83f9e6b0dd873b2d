// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/report/report-interval.c - the interval a machine model's stated ranges
 * put on a virtual-time table (docs/machines.md, "Intervals"): one figure
 * at a time at each end of its range, the other figures at their points,
 * on the same seeds as a rerun at the points; the effects are summed, each
 * figure's own swing is kept so the figures that widen a row most can be
 * named. Everything is recorded into results.json first, then printed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "driver/cell.h"
#include "driver/common.h"
#include "report-interval.h"
#include "driver/results.h"
#include "run/run-virtual.h"

#define MAX_RANGES	64

static const char *col(const struct bench_env *e, const struct bench_vtable *t, unsigned int k)
{
	return t->label ? t->label[k] : e->pol[k].label;
}

static json_t *params(const struct bench_env *e, const struct bench_vtable *t, unsigned int threads,
		      bool processes, unsigned int k, const char *figure)
{
	json_t *pa = json_pack("{s:s,s:s,s:s,s:s,s:i,s:s}", "workload", t->workload, "mode",
			       "virtual", "machine", t->machine, "shape",
			       processes ? "processes" : "threads", "threads", (int)threads,
			       "policy", col(e, t, k));

	if (figure)
		json_object_set_new(pa, "figure", json_string(figure));
	return pa;
}

static double get(const char *name, json_t *pa)
{
	double v;

	bench_metric_get(name, pa, &v);
	json_decref(pa);
	return v;
}

/* The model's name: the spec up to its overrides. */
static void base_name(const char *spec, char *buf, size_t len)
{
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);

	snprintf(buf, len, "%.*s", (int)n, spec);
}

/* A field the spec sets itself is the user's value: no range. */
static bool overridden(const char *spec, const char *field)
{
	const char *s = strchr(spec, ':');
	size_t fl = strlen(field);

	while (s && *++s) {
		if (!strncmp(s, field, fl) && s[fl] == '=')
			return true;
		s = strchr(s, ',');
	}
	return false;
}

int bench_interval_ranges(const char *spec, bool invlpgb_figures, struct tlbgen_machine_range *r,
			  int max)
{
	char name[64];
	int n, k = 0;

	base_name(spec, name, sizeof(name));
	n = tlbgen_machine_ranges(name, r, (size_t)max);
	for (int i = 0; i < n && i < max; i++) {
		bool ib = !strcmp(r[i].field, "invlpgb") || !strcmp(r[i].field, "tlbsync");

		if (r[i].low < r[i].high && !overridden(spec, r[i].field) && (!ib || invlpgb_figures))
			r[k++] = r[i];
	}
	return n < 0 ? n : k;
}

/* The ranges that apply: INVLPGB's only on a machine that has it, or
 * whose broadcast TLBI uses those figures. */
static int ranges(const struct bench_env *e, const struct bench_vtable *t,
		  struct tlbgen_machine_range *r)
{
	return bench_interval_ranges(t->machine, (e && e->invlpgb) || t->broadcast_tlbi, r,
				     MAX_RANGES);
}

int bench_vtable_interval_check(const struct bench_vtable *t)
{
	struct tlbgen_machine_range r[MAX_RANGES];
	char name[64];

	base_name(t->machine, name, sizeof(name));
	if (ranges(NULL, t, r) < 0) {
		fprintf(stderr, "tlbgen-bench: --interval: machine '%s' has no stated ranges (a "
				"built-in model's figures have them: docs/machines.md)\n", name);
		return -EINVAL;
	}
	return 0;
}

/* A row again on `spec`'s model over the same first seeds (e->runs of them). */
static int rerun(const struct bench_env *e, const struct bench_vspec *base,
		 const struct bench_vrow *row, const char *spec, double *ops, double *chg)
{
	struct tlbgen_machine m;
	struct bench_vspec s = *base;
	struct bench_vrow *r = malloc(sizeof(*r));
	int err = r ? tlbgen_machine_lookup(spec, &m) : -ENOMEM;

	s.m = &m;
	s.threads = row->threads;
	s.processes = row->processes;
	if (!err)
		err = bench_vrow_run(e, &s, r);
	for (unsigned int k = 0; !err && k < e->npol; k++) {
		ops[k] = r->c[k].ops_per_s;
		chg[k] = k ? bench_pct(r->c[k].ops_per_s, r->c[0].ops_per_s) : 0;
	}
	free(r);
	return err;
}

void bench_interval_spec_with(char *buf, size_t len, const char *spec, const char *field,
			      unsigned long v)
{
	snprintf(buf, len, "%s%s%s=%lu", spec, strchr(spec, ':') ? "," : ":", field, v);
}

/* One row: the point rerun, each figure at both ends; recorded. */
static int row_interval(const struct bench_env *e, const struct bench_vtable *t,
			const struct bench_vspec *base, const struct bench_vrow *row,
			const struct tlbgen_machine_range *r, int n)
{
	double p_ops[BENCH_MAX_POLICIES], p_chg[BENCH_MAX_POLICIES];
	double lo_ops[BENCH_MAX_POLICIES] = { 0 }, hi_ops[BENCH_MAX_POLICIES] = { 0 };
	double lo_chg[BENCH_MAX_POLICIES] = { 0 }, hi_chg[BENCH_MAX_POLICIES] = { 0 };
	char spec[512];
	int err = rerun(e, base, row, t->machine, p_ops, p_chg);

	for (int f = 0; !err && f < n; f++) {
		double ops[2][BENCH_MAX_POLICIES], chg[2][BENCH_MAX_POLICIES];

		for (int end = 0; !err && end < 2; end++) {
			bench_interval_spec_with(spec, sizeof(spec), t->machine, r[f].field,
						 end ? r[f].high : r[f].low);
			err = rerun(e, base, row, spec, ops[end], chg[end]);
		}
		for (unsigned int k = 0; !err && k < e->npol; k++) {
			json_t *pa = params(e, t, row->threads, row->processes, k, r[f].field);
			double dl = ops[0][k] - p_ops[k], dh = ops[1][k] - p_ops[k];
			double cl = chg[0][k] - p_chg[k], ch = chg[1][k] - p_chg[k];

			lo_ops[k] += fmin(0, fmin(dl, dh));
			hi_ops[k] += fmax(0, fmax(dl, dh));
			lo_chg[k] += fmin(0, fmin(cl, ch));
			hi_chg[k] += fmax(0, fmax(cl, ch));
			bench_metric("figure_low_ops_per_sec", "ops/s (this figure at its low end)",
				     NULL, pa, ops[0][k]);
			bench_metric("figure_high_ops_per_sec", "ops/s (this figure at its high end)",
				     NULL, pa, ops[1][k]);
			bench_metric("figure_swing_ops_pct", "% of the point rerun's ops/s", NULL, pa,
				     100.0 * (fmax(0, fmax(dl, dh)) - fmin(0, fmin(dl, dh))) /
					     p_ops[k]);
			if (k)
				bench_metric("figure_swing_change_pct", "points of the change", NULL,
					     pa, fmax(0, fmax(cl, ch)) - fmin(0, fmin(cl, ch)));
			json_decref(pa);
		}
	}
	for (unsigned int k = 0; !err && k < e->npol; k++) {
		json_t *pa = params(e, t, row->threads, row->processes, k, NULL);
		double x = row->c[k].ops_per_s;

		bench_metric("interval_point_ops_per_sec", "ops/s (points, the interval's seeds)",
			     NULL, pa, p_ops[k]);
		/* The summed effects are a linear bound: no rate below zero. */
		bench_metric("ops_per_sec_interval_low", "ops/s", NULL, pa, fmax(0, x + lo_ops[k]));
		bench_metric("ops_per_sec_interval_high", "ops/s", NULL, pa, x + hi_ops[k]);
		if (k) {
			double c = bench_pct(row->c[k].ops_per_s, row->c[0].ops_per_s);

			bench_metric("change_interval_low_pct", "%", NULL, pa, fmax(-100, c + lo_chg[k]));
			bench_metric("change_interval_high_pct", "%", NULL, pa, c + hi_chg[k]);
		}
		json_decref(pa);
	}
	return err;
}

/* The figures by their swing of the change (or of ops/s with one policy)
 * at `threads`, widest first, as recorded. */
static void print_widest(const struct bench_env *e, const struct bench_vtable *t,
			 unsigned int threads, bool processes,
			 const struct tlbgen_machine_range *r, int n)
{
	double sw[MAX_RANGES];
	int order[MAX_RANGES];
	unsigned int k = e->npol > 1 ? 1 : 0;
	const char *m = k ? "figure_swing_change_pct" : "figure_swing_ops_pct";

	for (int f = 0; f < n; f++) {
		sw[f] = get(m, params(e, t, threads, processes, k, r[f].field));
		order[f] = f;
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && sw[order[j]] > sw[order[j - 1]]; j--) {
			int x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	printf("# widest at %u threads (swing of %s over the figure's range, %s):", threads,
	       k ? "the change" : "ops/s", k ? "points" : "%");
	for (int i = 0; i < n; i++)
		printf(" %s %.1f", r[order[i]].field, sw[order[i]]);
	printf("\n");
}

int bench_vtable_interval(const struct bench_env *e, const struct bench_vtable *t,
			  const struct bench_vspec *base, const struct bench_vrow *rows)
{
	struct tlbgen_machine_range r[MAX_RANGES];
	struct bench_env *ie = malloc(sizeof(*ie));
	int n = ranges(e, t, r), err = ie ? 0 : -ENOMEM;

	if (n < 0 || err) {
		free(ie);
		return 1;
	}
	*ie = *e;
	ie->runs = t->interval_runs;
	bench_meta_param("interval", json_string("one figure at a time at each end of its "
						 "stated range, effects summed"));
	bench_meta_param("interval_runs", json_integer(t->interval_runs));
	printf("# interval: each of %d figures of %s at its low and its high end (docs/machines.md),"
	       "\n#   one at a time over seeds %llu..%llu against the points on those seeds; the "
	       "effects\n#   below and above the point summed onto the table's figure\n", n,
	       t->machine, (unsigned long long)e->seed,
	       (unsigned long long)(e->seed + t->interval_runs - 1));
	printf("%-7s", "threads");
	for (unsigned int k = 0; k < e->npol; k++)
		printf(" %23s", col(e, t, k));
	for (unsigned int k = 1; k < e->npol; k++)
		printf(" %17s", e->npol == 2 ? "change" : col(e, t, k));
	printf("\n");
	for (unsigned int i = 0; !err && i < e->nthreads; i++) {
		const struct bench_vrow *row = &rows[i];

		err = row_interval(ie, t, base, row, r, n);
		if (err) {
			fprintf(stderr, "tlbgen-bench: --interval: %u threads: %s\n", row->threads,
				strerror(-err));
			break;
		}
		printf("%-7u", row->threads);
		for (unsigned int k = 0; k < e->npol; k++) {
			double lo = get("ops_per_sec_interval_low",
					params(e, t, row->threads, row->processes, k, NULL));
			double hi = get("ops_per_sec_interval_high",
					params(e, t, row->threads, row->processes, k, NULL));

			printf(" %11.0f..%-10.0f", lo, hi);
		}
		for (unsigned int k = 1; k < e->npol; k++) {
			double lo = get("change_interval_low_pct",
					params(e, t, row->threads, row->processes, k, NULL));
			double hi = get("change_interval_high_pct",
					params(e, t, row->threads, row->processes, k, NULL));

			printf("  %+6.1f..%+6.1f%%", lo, hi);
		}
		printf("\n");
		fflush(stdout);
	}
	if (!err && e->nthreads)
		print_widest(e, t, rows[e->nthreads - 1].threads, rows[0].processes, r, n);
	free(ie);
	return err ? 1 : 0;
}
