// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/report/report-stepped.c - an op-based workload in stepped mode: for each
 * task count and policy, the counters per op of one seeded run and its MESI
 * account, recorded into results.json and printed from there.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "driver/cell.h"
#include "driver/env.h"
#include "plot.h"
#include "driver/pool.h"
#include "report-stepped.h"
#include "driver/results.h"
#include "run/run-stepped.h"
#include "run/run-virtual.h"
#include "driver/threaded-opts.h"

struct sweep {
	const struct bench_env *e;
	const struct bench_ops *ops;
	bool processes;
	struct bench_scell *cells;	/* [threads][policy] */
};

static int sweep_cell(void *arg, size_t i)
{
	struct sweep *s = arg;
	const struct bench_env *e = s->e;
	struct bench_sspec spec = { .ops = s->ops, .profile = e->pol[i % e->npol].name,
				    .threads = e->threads[i / e->npol], .processes = s->processes,
				    .invlpgb = e->invlpgb, .no_pcid = e->no_pcid,
				    .ops_total = e->ops ? e->ops : 20000, .seed = e->seed };

	return bench_scell_run(&spec, &s->cells[i]);
}

static json_t *params(const char *workload, bool processes, unsigned int threads,
		      const char *policy)
{
	return json_pack("{s:s,s:s,s:s,s:i,s:s}", "workload", workload, "mode", "stepped",
			 "shape", processes ? "processes" : "threads", "threads", (int)threads,
			 "policy", policy);
}

static double per(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static void record(const struct bench_scell *c, json_t *pa)
{
	uint64_t fl = c->stats[TLBGEN_STAT_FLUSH_INITIATED], all = 0;
	char name[64];

	bench_metric("ops", "ops", NULL, pa, (double)c->ops);
	bench_metric("flushes_per_op", "flushes/op", NULL, pa, per(fl, c->ops));
	bench_metric("ipis_per_op", "IPIs/op", "lower", pa,
		     per(c->stats[TLBGEN_STAT_IPI_SENT], c->ops));
	bench_metric("csds_per_op", "csds run/op", NULL, pa,
		     per(c->stats[TLBGEN_STAT_IPI_RECEIVED], c->ops));
	bench_metric("tlb_gen_reads_per_remote_flush_func", "reads/call", "lower", pa,
		     per(c->tlb_gen_remote_reads, c->stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE]));
	for (unsigned int f = 0; f < BENCH_FUNC_NR; f++) {
		snprintf(name, sizeof(name), "flush_tlb_func_per_op_%s", bench_func_stat[f].name);
		bench_metric(name, "flush_tlb_func calls/op", NULL, pa,
			     per(c->stats[bench_func_stat[f].stat], c->ops));
	}
	bench_metric("nested_full_flush_pct", "% of ops", NULL, pa,
		     100 * per(c->wl[TLBGEN_WL_STAT_NESTED], c->ops));
	for (unsigned int l = 0; l < TLBGEN_LINE_NR; l++) {
		snprintf(name, sizeof(name), "transfers_per_flush_%s", tlbgen_line_name(l));
		bench_metric(name, "cacheline transfers/flush", "lower", pa,
			     per(c->transfers[l], fl));
		all += c->transfers[l];
	}
	bench_metric("transfers_per_flush", "cacheline transfers/flush", "lower", pa, per(all, fl));
	bench_metric("violations", "violations", "lower", pa, (double)c->violations);
	bench_metric("warns", "WARN conditions", "lower", pa, (double)c->warns);
	bench_metric_stats("", pa, c->stats);
}

static double get(const char *name, json_t *pa)
{
	double v;

	bench_metric_get(name, pa, &v);
	return v;
}

static void print_row(json_t *pa, unsigned int threads, const char *label)
{
	printf("%-7u %-28s %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %6.1f %7.2f %7.3f %5.0f %5.0f\n",
	       threads, label, get("flushes_per_op", pa), get("ipis_per_op", pa),
	       get("csds_per_op", pa), get("tlb_gen_reads_per_remote_flush_func", pa),
	       get("flush_tlb_func_per_op_early", pa), get("flush_tlb_func_per_op_full", pa),
	       get("flush_tlb_func_per_op_partial", pa), get("nested_full_flush_pct", pa),
	       get("transfers_per_flush", pa), get("transfers_per_flush_tlb_gen", pa),
	       get("violations", pa), get("warns", pa));
}

/* The sweep's plot, from results.json: the MESI account per policy and
 * task count (every shared line's transfers per flush, the tlb_gen line's),
 * and IPIs per op. */
static int plot(const struct bench_env *e, const char *workload, const struct bench_ops *ops,
		bool processes)
{
	static const struct {
		const char *metric, *title, *ylabel;
	} panels[] = {
		{ "transfers_per_flush", "MESI: cacheline transfers per flush, every shared line",
		  "transfers/flush" },
		{ "transfers_per_flush_tlb_gen", "MESI: transfers per flush of the mm's tlb_gen line",
		  "transfers/flush" },
		{ "ipis_per_op", "IPIs sent per op", "IPIs/op" },
	};
	char title[512], name[64];
	struct bench_plot *pl;
	int ret;

	snprintf(title, sizeof(title), "%s (%s) in stepped mode, %s: %llu ops per cell, seed %llu",
		 workload, ops->desc ? ops->desc : workload, processes ? "processes" : "threads",
		 (unsigned long long)(e->ops ? e->ops : 20000), (unsigned long long)e->seed);
	snprintf(name, sizeof(name), "stepped-%s", processes ? "processes" : "threads");
	pl = bench_plot_new(name, title, "threads");
	if (!pl)
		return 1;
	for (size_t i = 0; i < sizeof(panels) / sizeof(panels[0]); i++) {
		int pn = bench_plot_panel(pl, panels[i].title, panels[i].ylabel,
					  BENCH_PLOT_FROM_ZERO);

		for (unsigned int k = 0; k < e->npol; k++) {
			int sr = bench_plot_series(pl, pn, e->pol[k].label, k);

			for (unsigned int t = 0; t < e->nthreads; t++) {
				json_t *pa = params(workload, processes, e->threads[t],
						    e->pol[k].label);
				double v = NAN;

				bench_metric_get(panels[i].metric, pa, &v);
				bench_plot_point(pl, pn, sr, e->threads[t], v, NAN, NAN);
				json_decref(pa);
			}
		}
	}
	ret = bench_plot_draw(pl, NULL, NULL, 0);
	bench_plot_free(pl);
	return ret;
}

int bench_stable_run(struct bench_env *e, const char *workload, const struct bench_ops *ops,
		     bool processes)
{
	struct sweep s = { .e = e, .ops = ops, .processes = processes };
	size_t n = (size_t)e->nthreads * e->npol;
	int err, bad = 0;

	s.cells = calloc(n, sizeof(*s.cells));
	if (!s.cells)
		return 1;
	bench_meta_seed(e->seed);
	bench_meta_param("ops_per_cell", json_integer((json_int_t)(e->ops ? e->ops : 20000)));
	printf("# %s: will-it-scale %s_%s in stepped mode: %llu ops per cell, seed %llu; counts "
	       "per op,\n#   MESI transfers per flush (all lines, and the mm's tlb_gen line)\n",
	       workload, workload, processes ? "processes" : "threads",
	       (unsigned long long)(e->ops ? e->ops : 20000), (unsigned long long)e->seed);
	err = bench_pool(e->jobs, n, sweep_cell, &s);
	if (err) {
		fprintf(stderr, "tlbgen-bench: stepped %s: %s\n", workload, strerror(-err));
		free(s.cells);
		return 1;
	}
	printf("%-7s %-28s %7s %7s %7s %7s %7s %7s %7s %6s %7s %7s %5s %5s\n", "threads", "policy",
	       "fl/op", "ipi/op", "csd/op", "rd/rftf", "early", "full", "partial", "nest%",
	       "xfer/fl", "tg/fl", "viol", "warn");
	for (size_t i = 0; i < n; i++) {
		unsigned int threads = e->threads[i / e->npol];
		const char *label = e->pol[i % e->npol].label;
		json_t *pa = params(workload, processes, threads, label);

		record(&s.cells[i], pa);
		print_row(pa, threads, label);
		bad |= get("violations", pa) > 0 || get("warns", pa) > 0;
		json_decref(pa);
	}
	free(s.cells);
	if (!bench_threaded_cfg.no_plot)
		bad |= plot(e, workload, ops, processes);
	return bad;
}
