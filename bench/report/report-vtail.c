// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/report/report-vtail.c - what a virtual-time table says around its rows:
 * how it was run, the accounts of the last row (the MESI account by line
 * kind, where every CPU's time went, what flush_tlb_func() did), the spread
 * of the seeds and the host's speed. Printed from results.json's figures.
 */
#include <math.h>
#include <string.h>

#include "bench.h"
#include "driver/cell.h"
#include "driver/env.h"
#include "report-vtail.h"
#include "report.h"
#include "driver/results.h"
#include "run/run-virtual.h"

static const char *col(const struct bench_env *e, const struct bench_vtable *t, unsigned int k)
{
	return t->label ? t->label[k] : e->pol[k].label;
}

static json_t *params(const struct bench_env *e, const struct bench_vtable *t,
		      const struct bench_vrow *r, unsigned int k)
{
	return json_pack("{s:s,s:s,s:s,s:s,s:i,s:s}", "workload", t->workload, "mode", "virtual",
			 "machine", t->machine, "shape", r->processes ? "processes" : "threads",
			 "threads", (int)r->threads, "policy", col(e, t, k));
}

static double get(const char *name, json_t *pa)
{
	double v;

	bench_metric_get(name, pa, &v);
	return v;
}

void bench_vtable_header(const struct bench_env *e, const struct bench_vtable *t, bool processes)
{
	char desc[512], runs[16];

	tlbgen_machine_describe(&e->machine, desc, sizeof(desc));
	bench_meta_seed(e->seed);
	bench_meta_param("mode", json_string("virtual"));
	bench_meta_param("machine", json_string(desc));
	bench_meta_param("ms_per_cell", json_integer(e->ms));
	bench_meta_param("warmup_ms", json_integer(e->warmup_ms));
	snprintf(runs, sizeof(runs), "%u", e->runs);
	bench_meta_param("runs", json_string(e->runs ? runs : "auto"));
	bench_meta_param("row_se_pct", json_real(BENCH_ROW_SE_PCT));
	bench_meta_param("row_min_seeds", json_integer(BENCH_ROW_MIN_SEEDS));
	bench_meta_param("row_min_cpus", json_integer(BENCH_ROW_MIN_CPUS));
	bench_meta_param("row_max_seeds", json_integer(BENCH_ROW_MAX_SEEDS));
	if (t->title)
		printf("# %s in virtual time, ", t->title);
	else
		printf("# %s: will-it-scale %s_%s in virtual time, ", t->workload, t->workload,
		       processes ? "processes" : "threads");
	printf("%u ms per cell after a %u ms warmup, ", e->ms, e->warmup_ms);
	if (!e->runs)
		printf("mean over seeds %llu.. until the change's standard error is at most %.1f "
		       "points (from %u seeds or %u CPU-runs, to %u)\n",
		       (unsigned long long)e->seed, BENCH_ROW_SE_PCT, BENCH_ROW_MIN_SEEDS,
		       BENCH_ROW_MIN_CPUS, BENCH_ROW_MAX_SEEDS);
	else if (e->runs == 1)
		printf("seed %llu\n", (unsigned long long)e->seed);
	else
		printf("mean of %u runs, seeds %llu..%llu\n", e->runs, (unsigned long long)e->seed,
		       (unsigned long long)(e->seed + e->runs - 1));
	printf("# machine %s\n", desc);
	if (t->model_line)
		printf("# %s\n", t->model_line);
	else
		printf("# ops/s of virtual time per policy; change: against the first, ±se: its "
		       "standard error over the seeds, in points\n");
}

/* Where the CPUs' virtual time went, per operation. */
static void print_time(const struct bench_env *e, const struct bench_vtable *t,
		       const struct bench_vrow *r, json_t **pa)
{
	char name[64];

	printf("# CPU time per op at %u threads, us (every CPU's clock, by kind, over the ops):\n",
	       r->threads);
	for (unsigned int k = 0; k < e->npol; k++) {
		double sum = 0;

		printf("#   %-13s", col(e, t, k));
		for (unsigned int i = 0; i < TLBGEN_VT_TIME_NR; i++) {
			double v;

			snprintf(name, sizeof(name), "cpu_us_per_op_%s", tlbgen_vtime_time_name(i));
			v = get(name, pa[k]);
			printf(" %s %.2f", tlbgen_vtime_time_name(i), v);
			sum += v;
		}
		printf(" = %.2f; tlb_gen line %.2f\n", sum, get("cpu_us_per_op_tlb_gen_line", pa[k]));
	}
}

/* The MESI account of `tlbgen-bench mesi`, from this run: transfers per
 * flush of each kind of the library's lines, and the CPU time per op on them. */
static void print_lines(const struct bench_env *e, const struct bench_vtable *t,
			const struct bench_vrow *r, json_t **pa)
{
	char xn[64], un[64];

	printf("# MESI at %u threads by line kind: transfers per flush (us of CPU time per op):\n",
	       r->threads);
	for (unsigned int k = 0; k < e->npol; k++) {
		printf("#   %-13s", col(e, t, k));
		for (unsigned int l = 0; l < TLBGEN_LINE_NR; l++) {
			snprintf(xn, sizeof(xn), "transfers_per_flush_%s", tlbgen_line_name(l));
			snprintf(un, sizeof(un), "cpu_us_per_op_line_%s", tlbgen_line_name(l));
			printf(" %s %.2f (%.2f)", tlbgen_line_name(l), get(xn, pa[k]), get(un, pa[k]));
		}
		printf("\n");
	}
}

/* What flush_tlb_func() did per op: in a shootdown storm a target drains
 * several csds per interrupt, and the first flush of a batch can cover
 * the later ones (aa44284960's early return). */
static void print_funcs(const struct bench_env *e, const struct bench_vtable *t,
			const struct bench_vrow *r, json_t **pa)
{
	char name[64];

	printf("# flush_tlb_func per op at %u threads (early: aa44284960's return; up_to_date:\n"
	       "#   local tlb_gen already mm's), and the csds and interrupts they came in:\n",
	       r->threads);
	for (unsigned int k = 0; k < e->npol; k++) {
		printf("#   %-13s", col(e, t, k));
		for (unsigned int f = 0; f < BENCH_FUNC_NR; f++) {
			snprintf(name, sizeof(name), "flush_tlb_func_per_op_%s",
				 bench_func_stat[f].name);
			printf(" %s %.2f", bench_func_stat[f].name, get(name, pa[k]));
		}
		printf("; %.2f csds in %.2f interrupts\n", get("csds_per_op", pa[k]),
		       get("interrupts_per_op", pa[k]));
	}
}

void bench_vtable_tail(const struct bench_env *e, const struct bench_vtable *t,
		       const struct bench_vrow *r)
{
	json_t *pa[BENCH_MAX_POLICIES];

	for (unsigned int k = 0; k < e->npol; k++)
		pa[k] = params(e, t, r, k);
	if (!t->no_ipi_accounts) {
		printf("# MESI at %u threads, tlb_gen line transfers per flush:", r->threads);
		for (unsigned int k = 0; k < e->npol; k++)
			printf(" %s %.3f", col(e, t, k),
			       get("tlb_gen_transfers_per_flush", pa[k]));
		printf("\n");
	}
	printf("# flushes per op%s%s%s:", t->flushes_note ? " (" : "",
	       t->flushes_note ? t->flushes_note : "", t->flushes_note ? ")" : "");
	for (unsigned int k = 0; k < e->npol; k++)
		printf(" %s %.3f", col(e, t, k), get("flushes_per_op", pa[k]));
	printf("\n");
	if (!t->no_ipi_accounts) {
		printf("# madvise flushes made full by mm_tlb_flush_nested(), %%:");
		for (unsigned int k = 0; k < e->npol; k++)
			printf(" %s %.1f", col(e, t, k), get("nested_full_flush_pct", pa[k]));
		printf("\n");
		print_lines(e, t, r, pa);
	}
	print_time(e, t, r, pa);
	if (!t->no_ipi_accounts)
		print_funcs(e, t, r, pa);
	for (unsigned int k = 0; k < e->npol; k++)
		json_decref(pa[k]);
}

void bench_vtable_spread(const struct bench_env *e, const struct bench_vtable *t, bool processes)
{
	if (e->runs == 1)
		return;
	for (unsigned int k = 1; k < e->npol; k++) {
		if (e->npol == 2)
			printf("# change per seed, lowest..highest:");
		else
			printf("# change per seed of %s, lowest..highest:", col(e, t, k));
		for (unsigned int i = 0; i < e->nthreads; i++) {
			struct bench_vrow r = { .threads = e->threads[i], .processes = processes };
			json_t *pa = params(e, t, &r, k);

			printf(" %u: %+.1f..%+.1f%%", e->threads[i], get("change_lo_pct", pa),
			       get("change_hi_pct", pa));
			json_decref(pa);
		}
		printf("\n");
	}
}

void bench_vtable_speed(const struct bench_vtable *t, double points, double seconds)
{
	json_t *pa = json_pack("{s:s,s:s}", "workload", t->workload, "mode", "virtual");

	bench_metric("sched_points_total", "scheduling points", NULL, pa, points);
	bench_metric("host_seconds", "s", "lower", pa, seconds);
	printf("# speed: %.1f M scheduling points in %.1f s: %.2f M points per host second\n",
	       get("sched_points_total", pa) / 1e6, get("host_seconds", pa),
	       get("sched_points_total", pa) / 1e6 / get("host_seconds", pa));
	json_decref(pa);
}
