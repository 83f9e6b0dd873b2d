// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/report/report-threaded-out.c - a threaded run's MESI account (stepped,
 * bench/run/run-stepped.c) and every figure of the run into results.json.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "driver/host.h"
#include "driver/cell.h"
#include "driver/common.h"
#include "report-threaded-out.h"
#include "driver/results.h"
#include "run/threaded.h"

static uint64_t all_transfers(const struct bench_scell *r)
{
	uint64_t n = 0;

	for (unsigned int l = 0; l < TLBGEN_LINE_NR; l++)
		n += r->transfers[l];
	return n;
}

static json_t *mesi_params(struct cmp *c, unsigned int p)
{
	return json_pack("{s:s,s:s,s:s,s:i,s:I,s:I}", "workload", c->name, "account", "mesi",
			 "policy", c->mesi_pol[p].label, "emulated_cpus", (int)c->mesi_cpus, "ops",
			 (json_int_t)c->mesi_ops, "seed", (json_int_t)c->seed);
}

static double get(const char *name, json_t *pa)
{
	double v;

	bench_metric_get(name, pa, &v);
	return v;
}

void cmp_print_mesi(struct cmp *c)
{
	char name[96];

	if (!c->nmesi)
		return;
	printf("## coherence account: MESI model, stepped mode, %s_threads, %u emulated CPUs, "
	       "%llu ops, seed %llu (no PMU needed)\n", c->name, c->mesi_cpus,
	       (unsigned long long)c->mesi_ops, (unsigned long long)c->seed);
	printf("%-34s %8s %10s %10s %8s %8s %8s %8s %8s\n", "policy", "flushes", "xfer/flush",
	       "tlbgen/fl", "E/M->S", "S->M", "own->M", "rd/rftf", "viol");
	for (unsigned int p = 0; p < c->nmesi; p++) {
		json_t *pa = mesi_params(c, p);

		printf("%-34s %8.0f %10.3f %10.3f %8.3f %8.3f %8.3f %8.3f %8.0f\n",
		       c->mesi_pol[p].label, get("mesi_flushes", pa),
		       get("mesi_transfers_per_flush", pa),
		       get("mesi_transfers_per_flush_tlb_gen", pa),
		       get("mesi_tlb_gen_read_misses_per_flush", pa),
		       get("mesi_tlb_gen_upgrades_per_flush", pa),
		       get("mesi_tlb_gen_write_misses_per_flush", pa),
		       get("mesi_remote_tlb_gen_reads_per_remote_flush_tlb_func", pa),
		       get("mesi_violations", pa));
		json_decref(pa);
	}
	printf("  xfer/flush: cacheline transfers per flush, every shared line; tlbgen/fl: on\n"
	       "  the mm's tlb_gen line; E/M->S: its read misses (the IPI handler's read),\n"
	       "  S->M: upgrades by inc_mm_tlb_gen, own->M: write misses; rd/rftf: tlb_gen\n"
	       "  reads per remote flush_tlb_func. Per line kind, transfers per flush:\n");
	for (unsigned int p = 0; p < c->nmesi; p++) {
		json_t *pa = mesi_params(c, p);

		printf("  %-32s", c->mesi_pol[p].label);
		for (int k = 0; k < TLBGEN_LINE_NR; k++) {
			snprintf(name, sizeof(name), "mesi_transfers_per_flush_%s",
				 tlbgen_line_name((enum tlbgen_line)k));
			printf(" %s=%.2f", tlbgen_line_name((enum tlbgen_line)k), get(name, pa));
		}
		putchar('\n');
		json_decref(pa);
	}
	/* The reading seed 000 is about: fewer reads, same line traffic? */
	for (unsigned int p = 1; p < c->nmesi; p++) {
		json_t *a = mesi_params(c, 0), *b = mesi_params(c, p);
		double ra = get("mesi_remote_tlb_gen_reads_per_remote_flush_tlb_func", a);
		double rb = get("mesi_remote_tlb_gen_reads_per_remote_flush_tlb_func", b);
		double ta = get("mesi_transfers_per_flush_tlb_gen", a);
		double tb = get("mesi_transfers_per_flush_tlb_gen", b);

		printf("  %s vs %s: tlb_gen reads per remote flush_tlb_func %.3f -> %.3f "
		       "(%+.0f%%), tlb_gen transfers per flush %.3f -> %.3f (%+.0f%%)\n",
		       c->mesi_pol[p].label, c->mesi_pol[0].label, ra, rb,
		       ra > 0 ? 100 * (rb / ra - 1) : 0, ta, tb, ta > 0 ? 100 * (tb / ta - 1) : 0);
		json_decref(a);
		json_decref(b);
	}
	putchar('\n');
}

/* results.json ----------------------------------------------------------------- */

static void record_cell(struct cmp *c, int m, unsigned int t, unsigned int p)
{
	struct cell *x = cell(c, m, t, p);
	const uint64_t *s = x->stats;
	uint64_t fl = s[TLBGEN_STAT_FLUSH_INITIATED];
	json_t *pa = json_pack("{s:s,s:s,s:i,s:s}", "workload", c->name, "mode", mode_name(m),
			       "tasks", (int)c->tasks[t], "policy", c->pol[p].label);
	double *per_task = calloc(x->nr + 1, sizeof(double));
	double *smp = calloc(x->wis.nr_samples + 1, sizeof(double));

	bench_metric_samples("ops_per_sec", "ops/s", "higher", pa, x->ops, x->nr);
	for (unsigned int r = 0; per_task && r < x->nr; r++)
		per_task[r] = x->ops[r] / c->tasks[t];
	if (per_task)
		bench_metric_samples("ops_per_sec_per_task", "ops/s per task", "higher", pa,
				     per_task, x->nr);
	/* will-it-scale's samples: the slowest task's, the fastest's, all. */
	for (unsigned int i = 0; smp && i < x->wis.nr_samples; i++)
		smp[i] = (double)x->wis.smin[i];
	if (smp)
		bench_metric_round_samples("sample_min_ops_per_sec", "ops/s", "higher", pa,
					   smp, x->wis.nr_samples, x->round_samples, x->nr);
	for (unsigned int i = 0; smp && i < x->wis.nr_samples; i++)
		smp[i] = (double)x->wis.smax[i];
	if (smp)
		bench_metric_round_samples("sample_max_ops_per_sec", "ops/s", "higher", pa,
					   smp, x->wis.nr_samples, x->round_samples, x->nr);
	for (unsigned int i = 0; smp && i < x->wis.nr_samples; i++)
		smp[i] = (double)x->wis.stotal[i];
	if (smp)
		bench_metric_round_samples("sample_total_ops_per_sec", "ops/s", "higher", pa,
					   smp, x->wis.nr_samples, x->round_samples, x->nr);
	if (p) {
		bench_metric("change_pct", "%", "higher", pa, x->change);
		bench_metric("change_ci95_low_pct", "%", "higher", pa, x->ci_lo);
		bench_metric("change_ci95_high_pct", "%", "higher", pa, x->ci_hi);
		bench_metric("welch_p", "p-value", NULL, pa, x->p);
	}
	bench_metric("idle_pct", "%", NULL, pa, x->nr ? x->idle_sum / x->nr : NAN);
	bench_metric("violations", "violations", "lower", pa, (double)x->violations);
	if (c->invlpgb)
		bench_metric("global_asid", "ASID", NULL, pa, x->global_asid);
	bench_metric("tlb_gen_reads_per_flush", "reads/flush", "lower", pa,
		     per(s[TLBGEN_STAT_TLB_GEN_READ], fl));
	bench_metric("tlb_gen_reads_per_flush_tlb_func", "reads/call", "lower", pa,
		     per(s[TLBGEN_STAT_TLB_GEN_READ], s[TLBGEN_STAT_FLUSH_FUNC]));
	bench_metric("early_skips_per_flush", "skips/flush", NULL, pa,
		     per(s[TLBGEN_STAT_EARLY_SKIP], fl));
	bench_metric("ipis_per_flush", "IPIs/flush", "lower", pa, per(s[TLBGEN_STAT_IPI_SENT], fl));
	if (x->acct_done) {
		if (x->acct_stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE])
			bench_metric("remote_tlb_gen_reads_per_remote_flush_tlb_func", "reads/call",
				     "lower", pa,
				     per(x->remote_reads, x->acct_stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE]));
		bench_metric_stats("accounting_", pa, x->acct_stats);
	}
	bench_metric_stats("", pa, s);
	if (x->hw_ok) {
		double ops = x->mean * c->duration_ms / 1000.0 * x->nr;

		for (int i = 0; i < BENCH_HW_NR; i++) {
			char name[64], unit[64];

			snprintf(name, sizeof(name), "%s_per_op", bench_hw_names[i]);
			snprintf(unit, sizeof(unit), "%s/op", bench_hw_names[i]);
			bench_metric(name, unit, "lower", pa, ops > 0 ? (double)x->hw[i] / ops : NAN);
		}
	}
	free(per_task);
	free(smp);
	json_decref(pa);
}

static void record_mesi(struct cmp *c, unsigned int p)
{
	struct bench_scell *r = &c->mesi[p];
	uint64_t fl = r->stats[TLBGEN_STAT_FLUSH_INITIATED];
	json_t *pa = mesi_params(c, p);

	bench_metric("mesi_flushes", "flushes", NULL, pa, (double)fl);
	bench_metric("mesi_nested_full_flushes", "flushes", NULL, pa,
		     (double)r->wl[TLBGEN_WL_STAT_NESTED]);
	bench_metric("mesi_transfers_per_flush", "cacheline transfers/flush", "lower", pa,
		     per(all_transfers(r), fl));
	for (int k = 0; k < TLBGEN_LINE_NR; k++) {
		char name[96];

		snprintf(name, sizeof(name), "mesi_transfers_per_flush_%s",
			 tlbgen_line_name((enum tlbgen_line)k));
		bench_metric(name, "cacheline transfers/flush", "lower", pa,
			     per(r->transfers[k], fl));
	}
	bench_metric("mesi_tlb_gen_read_misses_per_flush", "transfers/flush", "lower", pa,
		     per(r->tlb_gen.downgrades + r->tlb_gen.shared_reads, fl));
	bench_metric("mesi_tlb_gen_upgrades_per_flush", "transfers/flush", "lower", pa,
		     per(r->tlb_gen.upgrades, fl));
	bench_metric("mesi_tlb_gen_write_misses_per_flush", "transfers/flush", "lower", pa,
		     per(r->tlb_gen.ownership, fl));
	bench_metric("mesi_remote_tlb_gen_reads_per_remote_flush_tlb_func", "reads/call", "lower",
		     pa, per(r->tlb_gen_remote_reads, r->stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE]));
	bench_metric("mesi_violations", "violations", "lower", pa, (double)r->violations);
	bench_metric_stats("mesi_", pa, r->stats);
	json_decref(pa);
}

/* More tasks than CPUs, or vCPUs a hypervisor schedules: the times measure
 * the scheduler or the hypervisor as much as the flush; the counters hold. */
static void record_timings(struct cmp *c)
{
	json_t *h = bench_host_json();
	bool hv = json_is_true(json_object_get(h, "hypervisor"));
	unsigned int maxt = 0;

	for (unsigned int t = 0; t < c->ntasks; t++)
		maxt = c->tasks[t] > maxt ? c->tasks[t] : maxt;
	bench_meta_param("threaded_timings",
			 json_pack("{s:b,s:s*,s:i,s:i,s:b}", "meaningful",
				   !hv && maxt <= (unsigned int)c->nr_cpus, "why",
				   maxt > (unsigned int)c->nr_cpus ? "more tasks than CPUs"
				   : hv ? "a hypervisor schedules the CPUs" : NULL,
				   "tasks_max", (int)maxt, "cpus", c->nr_cpus, "hypervisor", hv));
	json_decref(h);
}

void cmp_record(struct cmp *c)
{
	bench_meta_seed(c->seed);
	if (c->nmesi) {
		bench_meta_param("mesi_emulated_cpus", json_integer(c->mesi_cpus));
		bench_meta_param("mesi_ops", json_integer((json_int_t)c->mesi_ops));
	}
	for (unsigned int p = 0; p < c->nmesi; p++)
		record_mesi(c, p);
	bench_meta_param("rounds", json_integer(c->rounds));
	bench_meta_param("duration_ms", json_integer(c->duration_ms));
	bench_meta_param("sample_ms", json_integer(c->sample_ms));
	bench_meta_param("warmup_samples", json_integer(c->warmup));
	bench_meta_param("cpus_used", json_integer(c->nr_cpus));
	record_timings(c);
	bench_meta_param("baseline", json_string(c->pol[0].label));
	bench_meta_param("kernel_work", json_string(c->kwork_spec));
	if (c->kwork_on) {
		char desc[512];

		tlbgen_machine_describe(&c->kwork, desc, sizeof(desc));
		bench_meta_param("kernel_work_machine", json_string(desc));
	}
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++)
				record_cell(c, m, t, p);
}
