// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/report/report-virtual.c - an op-based workload's virtual-time sweep: one
 * row per task count, every policy a column, each the mean over seeds;
 * every figure is recorded into results.json first and the table printed
 * from there. A preset (a seed's reproduction) adds its reference figures.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "driver/calibrate-file.h"
#include "driver/calibrate.h"
#include "driver/cell.h"
#include "driver/common.h"
#include "driver/env.h"
#include "plot.h"
#include "report-interval.h"
#include "report-virtual.h"
#include "report-vtail.h"
#include "report.h"
#include "driver/results.h"
#include "run/run-virtual.h"
#include "driver/threaded-opts.h"

static const char *col(const struct bench_env *e, const struct bench_vtable *t, unsigned int k)
{
	return t->label ? t->label[k] : e->pol[k].label;
}

/* A column is as wide as its label, 14 at least. */
static int width(const struct bench_env *e, const struct bench_vtable *t, unsigned int k)
{
	size_t l = strlen(col(e, t, k));

	return l > 14 ? (int)l : 14;
}

static json_t *params(const struct bench_env *e, const struct bench_vtable *t,
		      const struct bench_vrow *r, unsigned int k)
{
	return json_pack("{s:s,s:s,s:s,s:s,s:i,s:s}", "workload", t->workload, "mode", "virtual",
			 "machine", t->machine, "shape", r->processes ? "processes" : "threads",
			 "threads", (int)r->threads, "policy", col(e, t, k));
}

static double ref(const struct bench_vtable *t, const struct bench_vrow *r, unsigned int k)
{
	return t->ref ? t->ref(r->processes, r->threads, k) : 0;
}

static double get(const char *name, json_t *pa)
{
	double v;

	bench_metric_get(name, pa, &v);
	return v;
}

/* ops_per_sec: the row's mean, with each seed's figure as its samples, so
 * that compare can test two runs' rows seed against seed. */
static void record_cell(const struct bench_vcell *c, const double *seed_ops,
			unsigned int seeds, json_t *pa)
{
	char name[64];

	bench_metric_mean("ops_per_sec", "ops/s of virtual time", "higher", pa, c->ops_per_s,
			  seed_ops, seeds);
	bench_metric("tlb_gen_transfers_per_flush", "cacheline transfers/flush", "lower", pa,
		     c->xfers_per_flush[TLBGEN_LINE_MM_TLB_GEN]);
	bench_metric("violations", "violations", "lower", pa, (double)c->violations);
	bench_metric("flushes_per_op", "flush_tlb_mm_range() calls/op", NULL, pa,
		     c->flushes_per_op);
	bench_metric("nested_full_flush_pct", "% of ops", NULL, pa, c->nested_pct);
	for (unsigned int k = 0; k < TLBGEN_VT_TIME_NR; k++) {
		snprintf(name, sizeof(name), "cpu_us_per_op_%s", tlbgen_vtime_time_name(k));
		bench_metric(name, "us of CPU time/op", NULL, pa, c->us_per_op[k]);
	}
	bench_metric("cpu_us_per_op_tlb_gen_line", "us of CPU time/op", NULL, pa,
		     c->line_us_per_op[TLBGEN_LINE_MM_TLB_GEN]);
	for (unsigned int l = 0; l < TLBGEN_LINE_NR; l++) {
		snprintf(name, sizeof(name), "transfers_per_flush_%s", tlbgen_line_name(l));
		bench_metric(name, "cacheline transfers/flush", "lower", pa, c->xfers_per_flush[l]);
		snprintf(name, sizeof(name), "cpu_us_per_op_line_%s", tlbgen_line_name(l));
		bench_metric(name, "us of CPU time/op", NULL, pa, c->line_us_per_op[l]);
	}
	for (unsigned int f = 0; f < BENCH_FUNC_NR; f++) {
		snprintf(name, sizeof(name), "flush_tlb_func_per_op_%s", bench_func_stat[f].name);
		bench_metric(name, "flush_tlb_func calls/op", NULL, pa, c->func_per_op[f]);
	}
	bench_metric("csds_per_op", "csds run/op", NULL, pa, c->csds_per_op);
	bench_metric("interrupts_per_op", "interrupts/op", NULL, pa, c->irqs_per_op);
	bench_metric("ipis_per_flush", "IPIs/flush", "lower", pa, c->ipis_per_flush);
	bench_metric("queued_per_flush", "csds queued/flush", NULL, pa, c->queued_per_flush);
	bench_metric("stale_ipis_per_flush", "IPIs/flush", "lower", pa, c->stale_ipis_per_flush);
	bench_metric("asleep_pct", "% of the tasks' time", NULL, pa, c->asleep_pct);
	bench_metric("c6_per_op", "C6 sleeps/op", NULL, pa, c->c6_per_op);
	bench_metric("sched_points", "scheduling points", NULL, pa, (double)c->points);
}

void bench_vtable_record(const struct bench_env *e, const struct bench_vtable *t,
			 const struct bench_vrow *r)
{
	for (unsigned int k = 0; k < e->npol; k++) {
		json_t *pa = params(e, t, r, k);
		double s = ref(t, r, k);

		record_cell(&r->c[k], r->seed_ops[k], r->seeds, pa);
		bench_metric("seeds", "runs averaged", NULL, pa, r->seeds);
		if (k) {
			bench_metric("change_pct", "% against the first policy", "higher", pa,
				     bench_pct(r->c[k].ops_per_s, r->c[0].ops_per_s));
			bench_metric("change_se_pct", "points", NULL, pa, r->se[k]);
			bench_metric("change_lo_pct", "% (lowest seed)", NULL, pa, r->lo[k]);
			bench_metric("change_hi_pct", "% (highest seed)", NULL, pa, r->hi[k]);
		}
		if (s) {
			bench_metric("seed_ops_per_sec", "ops/s (the seed's table)", NULL, pa, s);
			bench_metric("model_error_pct", "%", NULL, pa,
				     bench_pct(r->c[k].ops_per_s, s));
			if (k)
				bench_metric("seed_change_pct", "% (the seed's table)", NULL, pa,
					     bench_pct(s, ref(t, r, 0)));
		}
		json_decref(pa);
	}
}

/* `what` right-aligned over a span of `w` columns (and its leading blank). */
static void span(const char *what, int w)
{
	printf(" %*.*s", w - 1, w - 1, what);
}

/*
 * Two lines: what each group of columns is, then each column's policy;
 * the change columns are against the first policy, in points of %, with
 * their standard error over the seeds (±se).
 */
static void print_head(const struct bench_env *e, const struct bench_vtable *t)
{
	char vs[200];
	int w = 0;

	for (unsigned int k = 0; k < e->npol; k++)
		w += width(e, t, k) + 1;
	printf("%-7s", "");
	span("model, ops/s", w);
	snprintf(vs, sizeof(vs), "change vs %s", col(e, t, 0));
	span(vs, 15 * (int)(e->npol - 1) + 6);
	if (t->ref) {
		span("the seed's table, ops/s", 13 * (int)e->npol + 9);
		span("model - seed", 8 * (int)e->npol);
	}
	printf("\n%-7s", "threads");
	for (unsigned int k = 0; k < e->npol; k++)
		printf(" %*s", width(e, t, k), col(e, t, k));
	for (unsigned int k = 1; k < e->npol; k++)
		printf(" %8.8s %6s", col(e, t, k), "±se");	/* ± is two bytes */
	printf(" %5s", "seeds");
	if (t->ref) {
		for (unsigned int k = 0; k < e->npol; k++)
			printf(" %12.12s", col(e, t, k));
		printf(" %8s", "change");
		for (unsigned int k = 0; k < e->npol; k++)
			printf(" %7.7s", col(e, t, k));
	}
	printf(" %6s\n", "viol");
}

/* The row, read back from what was recorded. */
static void print_row(const struct bench_env *e, const struct bench_vtable *t,
		      const struct bench_vrow *r)
{
	json_t *pa[BENCH_MAX_POLICIES];
	double viol = 0;

	for (unsigned int k = 0; k < e->npol; k++) {
		pa[k] = params(e, t, r, k);
		viol += get("violations", pa[k]);
	}
	printf("%-7u", r->threads);
	for (unsigned int k = 0; k < e->npol; k++)
		printf(" %*.0f", width(e, t, k), get("ops_per_sec", pa[k]));
	for (unsigned int k = 1; k < e->npol; k++) {
		double se = get("change_se_pct", pa[k]);

		printf(" %+7.1f%%", get("change_pct", pa[k]));
		if (isnan(se))
			printf(" %5s", "-");
		else
			printf(" %5.2f", se);
	}
	printf(" %5.0f", get("seeds", pa[0]));
	if (t->ref) {
		double s[BENCH_MAX_POLICIES];

		/* A column without a reference figure (a preset's own) shows "-". */
		for (unsigned int k = 0; k < e->npol; k++) {
			bench_metric_get("seed_ops_per_sec", pa[k], &s[k]);
			if (isnan(s[k]))
				printf(" %12s", "-");
			else
				printf(" %12.0f", s[k]);
		}
		if (isnan(s[0]) || isnan(s[1]))
			printf(" %8s", "-");
		else
			printf(" %+7.1f%%", get("seed_change_pct", pa[1]));
		for (unsigned int k = 0; k < e->npol; k++) {
			if (isnan(s[k]))
				printf(" %7s", "-");
			else
				printf(" %+6.0f%%", get("model_error_pct", pa[k]));
		}
	}
	printf(" %6.0f\n", viol);
	for (unsigned int k = 0; k < e->npol; k++)
		json_decref(pa[k]);
}

/*
 * --calibrate: the user's base rate fixes one per-op term w on the row of
 * their task count, and every other policy's change is predicted again
 * under w's two bounds (bench/driver/calibrate.c); recorded, then printed from
 * what was recorded.
 */
static void calibrate_row(const struct bench_env *e, const struct bench_vtable *t,
			  const struct bench_vrow *r)
{
	const struct bench_cal_file *f = t->cal;
	double n = r->threads;

	for (unsigned int k = 1; k < e->npol; k++) {
		json_t *pa = params(e, t, r, k);
		struct bench_cal c;

		bench_calibrate(n, r->c[0].ops_per_s / n, r->c[k].ops_per_s / n, f->per_task_ops,
				&c);
		bench_metric("measured_base_per_task_ops", "ops/s per task (--calibrate)", NULL, pa,
			     f->per_task_ops);
		bench_metric("calibrated_work_ns", "ns/op", NULL, pa, c.work_ns);
		bench_metric("calibrated_serial_work_ns", "ns/op", NULL, pa, c.serial_work_ns);
		bench_metric("calibrated_change_parallel_pct", "% of the measured base rate", NULL,
			     pa, c.change_parallel_pct);
		bench_metric("calibrated_change_serial_pct", "% of the measured base rate", NULL,
			     pa, c.change_serial_pct);
		json_decref(pa);
	}
}

static void print_calibrated(const struct bench_env *e, const struct bench_vtable *t,
			     const struct bench_vrow *r)
{
	printf("# calibrated on %.0f ops/s per task at %u %s (--calibrate): one per-op term w\n"
	       "# for the work the model does not see, run beside each task (parallel) or\n"
	       "# holding one resource all share (serial); the changes against %s:\n",
	       t->cal->per_task_ops, r->threads, r->processes ? "processes" : "threads",
	       col(e, t, 0));
	printf("# %-*s %12s %12s %14s %14s\n", width(e, t, 1), "policy", "model change",
	       "w (ns/op)", "w parallel", "w serial");
	for (unsigned int k = 1; k < e->npol; k++) {
		json_t *pa = params(e, t, r, k);

		double cp = get("calibrated_change_parallel_pct", pa);
		double cs = get("calibrated_change_serial_pct", pa);

		/* w below -T: this policy's calibrated rate has no bound (unrecorded) */
		printf("# %-*s %+11.1f%% %12.0f", width(e, t, 1), col(e, t, k),
		       get("change_pct", pa), get("calibrated_work_ns", pa));
		if (isnan(cp) || isnan(cs))
			printf(" %14s %14s\n", "unbounded", "unbounded");
		else
			printf(" %+13.1f%% %+13.1f%%\n", cp, cs);
		json_decref(pa);
	}
}

/*
 * The sweep's plot, from results.json: ops/s of virtual time per policy
 * (and the seed's table, for a preset), and the change against the first
 * policy, bars from the lowest to the highest seed's.
 */
static int plot(const struct bench_env *e, const struct bench_vtable *t, bool processes)
{
	char title[512], name[64], label[200];
	struct bench_plot *pl;
	int pa_abs, pa_chg = -1, ret;

	snprintf(title, sizeof(title), "%s%s%s in virtual time on %s, %s\nmean over seeds of %u ms "
		 "measured after %u ms", t->title ? t->title : t->workload,
		 t->ops->desc ? ": " : "", t->ops->desc ? t->ops->desc : "", t->machine,
		 processes ? "processes" : "threads", e->ms, e->warmup_ms);
	snprintf(name, sizeof(name), "virtual-%s", processes ? "processes" : "threads");
	pl = bench_plot_new(name, title, "threads");
	if (!pl)
		return 1;
	pa_abs = bench_plot_panel(pl, "ops/s of virtual time", "ops/s",
				  BENCH_PLOT_LOG_IF_WIDE | BENCH_PLOT_FROM_ZERO);
	if (e->npol > 1) {
		snprintf(label, sizeof(label), "change vs %s, bars: lowest..highest seed",
			 col(e, t, 0));
		pa_chg = bench_plot_panel(pl, label, "change", BENCH_PLOT_PERCENT |
					  BENCH_PLOT_ZERO_LINE);
	}
	for (unsigned int k = 0; k < e->npol; k++) {
		int s = bench_plot_series(pl, pa_abs, col(e, t, k), k), sr = -1, sc = -1;

		if (t->ref) {
			snprintf(label, sizeof(label), "%s (the seed's table)", col(e, t, k));
			sr = bench_plot_series(pl, pa_abs, label, e->npol + k);
		}
		if (k)
			sc = bench_plot_series(pl, pa_chg, col(e, t, k), k);
		for (unsigned int i = 0; i < e->nthreads; i++) {
			struct bench_vrow r = { .threads = e->threads[i], .processes = processes };
			json_t *pa = params(e, t, &r, k);
			double v = NAN, lo = NAN, hi = NAN;

			bench_metric_get("ops_per_sec", pa, &v);
			bench_plot_point(pl, pa_abs, s, r.threads, v, NAN, NAN);
			v = NAN;
			if (sr >= 0 && bench_metric_get("seed_ops_per_sec", pa, &v) && v > 0)
				bench_plot_point(pl, pa_abs, sr, r.threads, v, NAN, NAN);
			v = NAN;
			if (sc >= 0 && bench_metric_get("change_pct", pa, &v)) {
				bench_metric_get("change_lo_pct", pa, &lo);
				bench_metric_get("change_hi_pct", pa, &hi);
				bench_plot_point(pl, pa_chg, sc, r.threads, v, lo, hi);
			}
			json_decref(pa);
		}
	}
	ret = bench_plot_draw(pl, NULL, NULL, 0);
	bench_plot_free(pl);
	return ret;
}

int bench_vtable_run(struct bench_env *e, const struct bench_vtable *t, bool processes)
{
	const struct bench_ops *ops = t->ops;
	struct bench_vspec spec = { .ops = ops, .m = &e->machine, .processes = processes,
				    .invlpgb = e->invlpgb, .no_pcid = e->no_pcid,
				    .warm_ms = e->warmup_ms, .ms = e->ms };
	struct bench_vrow *rows = calloc(e->nthreads, sizeof(*rows));
	double t0 = bench_now_ns() / 1e9, points = 0;
	int err = rows ? 0 : -ENOMEM;

	if (!err && t->interval_runs && bench_vtable_interval_check(t))
		err = -EINVAL;
	if (err) {
		free(rows);
		return err == -EINVAL ? 2 : 1;
	}
	bench_vtable_header(e, t, processes);
	print_head(e, t);
	for (unsigned int i = 0; !err && i < e->nthreads; i++) {
		spec.threads = e->threads[i];
		err = bench_vrow_run(e, &spec, &rows[i]);
		if (err) {
			fprintf(stderr, "tlbgen-bench: %u threads: %s\n", e->threads[i],
				strerror(-err));
			break;
		}
		bench_vtable_record(e, t, &rows[i]);
		if (t->cal && rows[i].threads == t->cal->tasks && processes == t->cal->processes)
			calibrate_row(e, t, &rows[i]);
		print_row(e, t, &rows[i]);
		for (unsigned int k = 0; k < e->npol; k++)
			points += rows[i].c[k].points;
		if (i + 1 == e->nthreads)
			bench_vtable_tail(e, t, &rows[i]);
		fflush(stdout);
	}
	for (unsigned int i = 0; !err && t->cal && i < e->nthreads; i++)
		if (rows[i].threads == t->cal->tasks && processes == t->cal->processes)
			print_calibrated(e, t, &rows[i]);
	if (!err) {
		bench_vtable_spread(e, t, processes);
		if (t->interval_runs)
			err = bench_vtable_interval(e, t, &spec, rows) ? -EIO : 0;
		bench_vtable_speed(t, points, bench_now_ns() / 1e9 - t0);
	}
	free(rows);
	if (!err && !bench_threaded_cfg.no_plot)
		err = plot(e, t, processes) ? -EIO : 0;
	return err ? 1 : 0;
}
