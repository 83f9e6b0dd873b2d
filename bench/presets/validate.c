// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/presets/validate.c - `tlbgen-bench validate`: every row of the validation
 * corpus (bench/presets/corpus.h) predicted in virtual time and judged against the
 * published measurement: the absolute base rate and the change.
 *
 * A row holds when the model's base rate is within 25% of the measured
 * one and its change within max(3 points, a third of the measured
 * change). Changes are of the rate: +100% is twice as fast. Beside each
 * prediction, the calibrated one (bench/presets/validate-cal.c): the row's own
 * measured base rate fixes one per-op term for the work the model does not
 * see, and the change is predicted again under its two bounds.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "driver/cell.h"
#include "driver/common.h"
#include "corpus.h"
#include "driver/env.h"
#include "workloads/reclaim-run.h"
#include "driver/results.h"
#include "run/run-virtual.h"
#include "validate-cal.h"
#include "validate-interval.h"
#include "validate-print.h"

#define RATE_TOL_PCT	25.0
#define CHANGE_TOL_MIN	3.0

static const char *corpus_path;
static const char *only_row;
static bool interval;
static unsigned int interval_runs = 1;

static const struct bench_opt validate_opts[] = {
	{ .name = "corpus", .arg = "FILE", .type = BOPT_STR, .dst = &corpus_path,
	  .help = "a corpus of your own (JSON, as bench/presets/corpus.json; docs/validation.md)\n"
		  "instead of the one built in" },
	{ .name = "row", .arg = "ID", .type = BOPT_STR, .dst = &only_row,
	  .help = "run only the row with this id" },
	{ .name = "interval", .type = BOPT_FLAG, .dst = &interval,
	  .help = "each row's prediction also as the interval its model's stated\n"
		  "ranges put on it (docs/machines.md): every ranged figure at\n"
		  "either end, one at a time, the effects summed" },
	{ .name = "interval-runs", .arg = "R", .type = BOPT_UINT, .dst = &interval_runs,
	  .min = 1, .max = 16, .help = "seeds per rerun of --interval (1)" },
	BENCH_OPT_END,
};

/* The virtual time a will-it-scale row warms and measures: the run's,
 * lengthened to the row's own window. */
static unsigned int row_warm_ms(const struct bench_env *e, const struct corpus_row *r)
{
	return e->warmup_ms > r->warm_ms ? e->warmup_ms : r->warm_ms;
}

static unsigned int row_ms(const struct bench_env *e, const struct corpus_row *r)
{
	return e->ms > r->ms ? e->ms : r->ms;
}

/* A will-it-scale row: both kernels over e->runs seeds; per-task rates. */
static int run_wis(struct bench_env *e, const struct corpus_row *r, const struct tlbgen_machine *m,
		   double rate[2], double *se)
{
	struct bench_vspec spec = { .ops = r->wl->ops, .m = m, .threads = r->tasks,
				    .processes = r->processes,
				    .invlpgb = r->invlpgb,
				    .warm_ms = row_warm_ms(e, r), .ms = row_ms(e, r) };
	struct bench_vrow row;
	int err;

	e->pol[0] = r->pol[0];
	e->pol[1] = r->pol[1];
	e->npol = 2;
	err = bench_vrow_run(e, &spec, &row);
	if (err)
		return err;
	if (row.c[0].violations || row.c[1].violations)
		return -EPROTO;
	rate[0] = row.c[0].ops_per_s / r->tasks;
	rate[1] = row.c[1].ops_per_s / r->tasks;
	*se = row.se[1];
	return 0;
}

/* swap_bench: one task reclaiming `pages` a round; pages/s of each kernel. */
static int run_swap(const struct corpus_row *r, const struct tlbgen_machine *m, double rate[2])
{
	for (unsigned int k = 0; k < 2; k++) {
		/* every round faults and pages out the same pages alike, so the time
		 * per page does not depend on the count: 20 keeps a row short */
		struct rc_cfg c = { .pages = r->pages, .rounds = 20, .machine = m,
				    .invlpgb = r->invlpgb, .profile = r->pol[k].name };
		struct rc_counts n;
		double ns = rc_virtual(&c, RC_SLEEP, r->lazy, r->arch, true, &n);

		if (ns <= 0 || n.err)
			return -EIO;
		if (n.violations)
			return -EPROTO;
		rate[k] = 1e9 / ns;
	}
	return 0;
}

static void record_row(const struct corpus_row *r, const double rate[2], double se)
{
	json_t *pa = validate_params(r->id);
	double chg = bench_pct(rate[1], rate[0]);
	double rerr = bench_pct(rate[0], r->base_rate);
	double cerr = chg - r->change_pct;
	double tol = fmax(CHANGE_TOL_MIN, fabs(r->change_pct) / 3);
	bool hr = fabs(rerr) <= RATE_TOL_PCT, hc = fabs(cerr) <= tol;
	const char *u = r->wl->unit;

	bench_metric("model_base_rate", u, NULL, pa, rate[0]);
	bench_metric("model_patch_rate", u, NULL, pa, rate[1]);
	bench_metric("measured_base_rate", u, NULL, pa, r->base_rate);
	bench_metric("rate_error_pct", "% of the measured rate", NULL, pa, rerr);
	bench_metric("model_change_pct", "% of the base rate", NULL, pa, chg);
	bench_metric("model_change_se", "points", NULL, pa, se);
	bench_metric("measured_change_pct", "% of the base rate", NULL, pa, r->change_pct);
	bench_metric("change_error_points", "points", NULL, pa, cerr);
	bench_metric("change_tolerance_points", "points", NULL, pa, tol);
	bench_metric("holds_rate", "1 holds, 0 misses", "higher", pa, hr);
	bench_metric("holds_change", "1 holds, 0 misses", "higher", pa, hc);
	bench_metric("holds", "1 holds, 0 misses", "higher", pa, hr && hc);
	if (r->has_entry) {
		bench_metric("entry_base_rate", u, NULL, pa, r->entry_rate);
		bench_metric("entry_change_pct", "% of the base rate", NULL, pa,
			     r->entry_change_pct);
	}
	validate_calibrate(r, rate, tol, pa);
	json_decref(pa);
}

/* --interval's reruns: a will-it-scale row over interval_runs seeds. */
static int wis_rates(void *ctx, const struct corpus_row *r, const struct tlbgen_machine *m,
		     double rate[2])
{
	double se;

	return run_wis(ctx, r, m, rate, &se);
}

static int swap_rates(void *ctx, const struct corpus_row *r, const struct tlbgen_machine *m,
		      double rate[2])
{
	(void)ctx;
	return run_swap(r, m, rate);
}

static int row_interval(const struct bench_env *e, const struct corpus_row *r,
			const double rate[2])
{
	struct bench_env *ie = malloc(sizeof(*ie));
	json_t *pa = validate_params(r->id);
	int err = ie ? 0 : -ENOMEM;

	if (!err) {
		*ie = *e;
		ie->runs = interval_runs;
		err = validate_interval(r, r->wl->kind == CORPUS_WIS ? wis_rates : swap_rates, ie,
					rate, pa);
	}
	json_decref(pa);
	free(ie);
	return err;
}

static int run_row(struct bench_env *e, const struct corpus_row *r)
{
	struct tlbgen_machine m;
	double rate[2], se = 0;
	int err;

	if (tlbgen_machine_lookup(r->model, &m))
		return -EINVAL;
	err = r->wl->kind == CORPUS_WIS ? run_wis(e, r, &m, rate, &se) : run_swap(r, &m, rate);
	if (err) {
		fprintf(stderr, "tlbgen-bench: validate: row '%s': %s\n", r->id,
			err == -EPROTO ? "the oracle saw a stale translation" : strerror(-err));
		return err;
	}
	record_row(r, rate, se);
	if (r->wl->kind == CORPUS_WIS) {
		json_t *pa = validate_params(r->id);

		bench_metric("window_warmup_ms", "ms of virtual time, not counted", NULL, pa,
			     row_warm_ms(e, r));
		bench_metric("window_ms", "ms of virtual time measured", NULL, pa, row_ms(e, r));
		json_decref(pa);
	}
	if (interval && (err = row_interval(e, r, rate))) {
		fprintf(stderr, "tlbgen-bench: validate: row '%s': --interval: %s\n", r->id,
			strerror(-err));
		return err;
	}
	return 0;
}

static void record_summary(const struct corpus *c, unsigned int ran)
{
	unsigned int held = 0, cal = 0, rate = 0, chg = 0;
	json_t *pa = validate_params(NULL);

	for (unsigned int i = 0; i < c->nrows; i++) {
		if (only_row && strcmp(only_row, c->rows[i].id))
			continue;
		held += validate_get("holds", c->rows[i].id) > 0;
		rate += validate_get("holds_rate", c->rows[i].id) > 0;
		chg += validate_get("holds_change", c->rows[i].id) > 0;
		cal += validate_get("calibrated_holds_change", c->rows[i].id) > 0;
	}
	bench_metric("rows", "rows", NULL, pa, ran);
	bench_metric("rows_held", "rows", "higher", pa, held);
	bench_metric("rows_held_rate", "rows", "higher", pa, rate);
	bench_metric("rows_held_change", "rows", "higher", pa, chg);
	bench_metric("rows_held_calibrated_change", "rows", "higher", pa, cal);
	bench_metric("held_pct", "% of rows", "higher", pa, ran ? 100.0 * held / ran : 0);
	json_decref(pa);
}

static int load(struct corpus *c)
{
	int err = corpus_path ? corpus_load_file(corpus_path, c)
			      : corpus_load(bench_corpus_json, "the built-in corpus", c);

	if (!err && only_row) {
		for (unsigned int i = 0; i < c->nrows; i++)
			if (!strcmp(c->rows[i].id, only_row))
				return 0;
		fprintf(stderr, "tlbgen-bench: validate: --row '%s': no such row\n", only_row);
		corpus_free(c);
		err = -ENOENT;
	}
	return err;
}

static int validate_run(struct bench_env *e)
{
	struct corpus c;
	unsigned int ran = 0;
	int ret = 0;

	if (load(&c))
		return 2;
	if (!(e->given & BENCH_O_RUNS))
		e->runs = 4;
	if (!e->jobs)
		e->jobs = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	validate_print_header(e, c.nrows);
	for (unsigned int i = 0; i < c.nrows && !ret; i++) {
		const struct corpus_row *r = &c.rows[i];

		if (only_row && strcmp(only_row, r->id))
			continue;
		if (run_row(e, r)) {
			ret = 1;
			break;
		}
		ran++;
		validate_print_row(r);
		fflush(stdout);
	}
	if (!ret) {
		record_summary(&c, ran);
		validate_print_summary();
	}
	corpus_free(&c);
	return ret;
}

const struct bench bench_validate = {
	.name = "validate",
	.summary = "the validation corpus: published measurements predicted in virtual time",
	.help = "Every row of the validation corpus (bench/presets/corpus.json, docs/validation.md):\n"
		"a published measurement of a kernel change on a named machine, predicted\n"
		"by the machine model that stands in for that machine. Per row: the base\n"
		"kernel's absolute rate and the change, model against measurement, and\n"
		"whether the row holds (rate within 25%, change within max(3 points, a third\n"
		"of the measured change)); then the change again after calibrating on the\n"
		"row's measured base rate (one per-op term for unseen work, its parallel\n"
		"and serial bounds). Defaults: --runs 4, --ms 5, --warmup 2; a row whose\n"
		"workload acts once per long period (page_fault3's munmap()) states a\n"
		"longer window of its own, which these only lengthen.\n",
	.shared = BENCH_O_SEED | BENCH_O_RUNS | BENCH_O_TIME | BENCH_O_JSON | BENCH_O_JOBS,
	.modes = BENCH_M_VIRTUAL,
	.default_modes = BENCH_M_VIRTUAL,
	.modes_why = "its figures are the machine models'",
	.opts = validate_opts,
	.run = validate_run,
};
BENCH_COMMAND(bench_validate);
