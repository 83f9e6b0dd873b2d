// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/report/report-threaded-plot.c - a threaded run's plot (bench/report/plot.c), from
 * results.json: ops/s per policy and task count; the change against the
 * first policy when there is more than one; the MESI account when it ran.
 */
#include <math.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "plot.h"
#include "driver/results.h"
#include "report-threaded-plot.h"

/* A cell's figures, read back from results.json (report-threaded-out.c). */
static void cell_fig(struct cmp *c, int m, unsigned int t, unsigned int p, double *mean,
		     double *min, double *max, double *chg, double *lo, double *hi)
{
	json_t *pa = json_pack("{s:s,s:s,s:i,s:s}", "workload", c->name, "mode", mode_name(m),
			       "tasks", (int)c->tasks[t], "policy", c->pol[p].label);
	double v[MAX_ROUNDS];
	size_t n = bench_metric_samples_get("ops_per_sec", pa, v, MAX_ROUNDS);

	*mean = *chg = *lo = *hi = NAN;
	bench_metric_get("ops_per_sec", pa, mean);
	*min = *max = n ? v[0] : NAN;
	for (size_t i = 1; i < n; i++) {
		*min = v[i] < *min ? v[i] : *min;
		*max = v[i] > *max ? v[i] : *max;
	}
	bench_metric_get("change_pct", pa, chg);
	bench_metric_get("change_ci95_low_pct", pa, lo);
	bench_metric_get("change_ci95_high_pct", pa, hi);
	json_decref(pa);
}

/* The plot's caption: what ran where. */
static void caption(char *buf, size_t len)
{
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;
	char date[32];

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", &tm);
	if (uname(&u))
		snprintf(u.nodename, sizeof(u.nodename), "?");
	snprintf(buf, len, "host %s, kernel %s %s, %ld CPUs; %s; %s", u.nodename, u.release,
		 u.machine, sysconf(_SC_NPROCESSORS_ONLN), bench_version(), date);
}

/* The MESI account's panel: transfers per flush per policy, at its CPUs. */
static void mesi_panel(struct cmp *c, struct bench_plot *pl)
{
	char t[256];
	int pn;

	if (!c->nmesi)
		return;
	snprintf(t, sizeof(t), "MESI account (stepped, %u emulated CPUs): cacheline transfers "
		 "per flush, every shared line", c->mesi_cpus);
	pn = bench_plot_panel(pl, t, "transfers/flush", BENCH_PLOT_FROM_ZERO);
	bench_plot_panel_xlabel(pl, pn, "emulated CPUs");
	for (unsigned int p = 0; p < c->nmesi; p++) {
		json_t *pa = json_pack("{s:s,s:s,s:s,s:i,s:I,s:I}", "workload", c->name, "account",
				       "mesi", "policy", c->mesi_pol[p].label, "emulated_cpus",
				       (int)c->mesi_cpus, "ops", (json_int_t)c->mesi_ops, "seed",
				       (json_int_t)c->seed);
		double v = NAN;

		bench_metric_get("mesi_transfers_per_flush", pa, &v);
		bench_plot_point(pl, pn, bench_plot_series(pl, pn, c->mesi_pol[p].label, 2 * c->npol + p),
				 c->mesi_cpus, v, NAN, NAN);
		json_decref(pa);
	}
}

int cmp_plot(struct cmp *c)
{
	char title[2048], cap[1024], t[256];
	struct bench_plot *pl;
	int abs_panel, chg_panel = -1, ret;

	if (c->no_plot)
		return 0;
	caption(cap, sizeof(cap));
	snprintf(title, sizeof(title), "%s (%s), %u rounds of %u ms\n%s", c->name, c->ops->desc,
		 c->rounds, c->duration_ms, cap);
	pl = bench_plot_new("throughput", title, "tasks");
	if (!pl)
		return 1;
	abs_panel = bench_plot_panel(pl, "ops/s: mean of the rounds, bars min..max", "ops/s",
				     BENCH_PLOT_LOG_IF_WIDE | BENCH_PLOT_FROM_ZERO);
	if (c->npol > 1) {
		snprintf(t, sizeof(t), "change of the mean vs %s, bars: 95%% CI (Welch)",
			 c->pol[0].label);
		chg_panel = bench_plot_panel(pl, t, "change vs baseline",
					     BENCH_PLOT_PERCENT | BENCH_PLOT_ZERO_LINE);
	}
	for (int m = 0; m < 2; m++)
		for (unsigned int p = 0; c->modes[m] && p < c->npol; p++) {
			/* One style per series, the same in both panels. */
			unsigned int style = (unsigned int)m * c->npol + p;
			int sa, sc = -1;

			snprintf(t, sizeof(t), "%s %s", c->pol[p].label, mode_name(m));
			sa = bench_plot_series(pl, abs_panel, t, style);
			if (p > 0)
				sc = bench_plot_series(pl, chg_panel, t, style);
			for (unsigned int k = 0; k < c->ntasks; k++) {
				double mean, mn, mx, chg, cl, ch;

				cell_fig(c, m, k, p, &mean, &mn, &mx, &chg, &cl, &ch);
				bench_plot_point(pl, abs_panel, sa, c->tasks[k], mean, mn, mx);
				if (sc >= 0)
					bench_plot_point(pl, chg_panel, sc, c->tasks[k], chg, cl, ch);
			}
		}
	mesi_panel(c, pl);
	ret = bench_plot_draw(pl, c->svg, c->svg_written, sizeof(c->svg_written));
	bench_plot_free(pl);
	return ret;
}
