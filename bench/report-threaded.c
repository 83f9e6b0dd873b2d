// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/compare-report.c - what a comparison run prints: will-it-scale
 * text, the comparison table, counters, CSV, LKP lines, the MESI account,
 * and the JSON and SVG files.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "results.h"

void cmp_print_wis(struct cmp *c)
{
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);

				printf("## will-it-scale: %s_%s, %u task%s, policy %s\n", c->wl->name,
				       mode_name(m), c->tasks[t], c->tasks[t] > 1 ? "s" : "",
				       c->pol[p].label);
				if (!c->quiet)
					for (unsigned int s = 0; s < x->wis.nr_samples; s++)
						printf("min:%llu max:%llu total:%llu\n",
						       (unsigned long long)x->wis.smin[s],
						       (unsigned long long)x->wis.smax[s],
						       (unsigned long long)x->wis.stotal[s]);
				printf("average:%llu\n", (unsigned long long)llround(x->mean));
			}
	putchar('\n');
}

void cmp_print_table(struct cmp *c)
{
	printf("## ops/s over %u interleaved rounds of %u ms (change: mean vs %s, with its 95%% "
	       "CI; p: Welch's t-test)\n", c->rounds, c->duration_ms, c->pol[0].label);
	printf("%-9s %5s  %-32s %12s %12s %12s %9s %19s %8s\n", "mode", "tasks", "policy", "min",
	       "mean", "max", "change", "95% CI", "p");
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);
				char ch[32] = "", ci[48] = "", pv[32] = "";

				if (p) {
					snprintf(ch, sizeof(ch), "%+.1f%%", x->change);
					if (isnan(x->ci_lo))
						snprintf(ci, sizeof(ci), "n/a");
					else
						snprintf(ci, sizeof(ci), "[%+.1f%%, %+.1f%%]", x->ci_lo,
							 x->ci_hi);
					if (isnan(x->p))
						snprintf(pv, sizeof(pv), "n/a");
					else
						snprintf(pv, sizeof(pv), "%.3f%s", x->p,
							 x->p < 0.01 ? " **" : x->p < 0.05 ? " *" : "");
				}
				printf("%-9s %5u  %-32s %12.0f %12.0f %12.0f %9s %19s %8s\n",
				       mode_name(m), c->tasks[t], c->pol[p].label, x->min, x->mean,
				       x->max, ch, ci, pv);
			}
	putchar('\n');
}

void cmp_print_invlpgb(struct cmp *c)
{
	printf("## INVLPGB per flush (timed rounds; threads mode with 4+ tasks counts from the\n"
	       "## moment every CPU runs the mm on its global ASID)\n");
	printf("%-9s %5s  %-32s %9s %8s %8s %8s %8s %8s %6s\n", "mode", "tasks", "policy",
	       "flushes", "invlpgb", "tlbsync", "ipi", "avoided", "ftf", "asid");
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);
				const uint64_t *s = x->stats;
				uint64_t fl = s[TLBGEN_STAT_FLUSH_INITIATED];

				printf("%-9s %5u  %-32s %9llu %8.3f %8.3f %8.3f %8.3f %8.3f %6d\n",
				       mode_name(m), c->tasks[t], c->pol[p].label,
				       (unsigned long long)fl, per(s[TLBGEN_STAT_INVLPGB], fl),
				       per(s[TLBGEN_STAT_TLBSYNC], fl), per(s[TLBGEN_STAT_IPI_SENT], fl),
				       per(s[TLBGEN_STAT_IPI_AVOIDED], fl),
				       per(s[TLBGEN_STAT_FLUSH_FUNC], fl), x->global_asid);
			}
	printf("  invlpgb/tlbsync: instructions issued per flush; ipi: IPIs sent; avoided: CPUs\n"
	       "  besides the initiator in mm_cpumask at a broadcast; ftf: flush_tlb_func calls;\n"
	       "  asid: the threads' mm's global ASID at the end of the last round (0: none).\n\n");
}

void cmp_print_counters(struct cmp *c)
{
	printf("## counters per flush (timed rounds, no oracle; rd/rftf and viol from the traced\n"
	       "## accounting pass, which runs with the oracle)\n");
	printf("%-9s %5s  %-32s %9s %8s %8s %8s %8s %8s %8s %8s %8s %7s %7s %5s\n", "mode",
	       "tasks", "policy", "flushes", "rd/fl", "rd/ftf", "rd/rftf", "skip/fl", "ipi/fl",
	       "sk_lazy", "sk_nold", "sk_ntrm", "full", "part", "viol");
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);
				const uint64_t *s = x->stats;
				uint64_t fl = s[TLBGEN_STAT_FLUSH_INITIATED];
				char rr[32] = "-";

				if (x->acct_done && x->acct_stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE])
					snprintf(rr, sizeof(rr), "%.3f",
						 per(x->remote_reads,
						     x->acct_stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE]));
				printf("%-9s %5u  %-32s %9llu %8.3f %8.3f %8s %8.3f %8.3f %8.3f %8.3f "
				       "%8.3f %7.3f %7.3f %5ld\n",
				       mode_name(m), c->tasks[t], c->pol[p].label,
				       (unsigned long long)fl, per(s[TLBGEN_STAT_TLB_GEN_READ], fl),
				       per(s[TLBGEN_STAT_TLB_GEN_READ], s[TLBGEN_STAT_FLUSH_FUNC]), rr,
				       per(s[TLBGEN_STAT_EARLY_SKIP], fl),
				       per(s[TLBGEN_STAT_IPI_SENT], fl),
				       per(s[TLBGEN_STAT_IPI_SKIP_LAZY], fl),
				       per(s[TLBGEN_STAT_IPI_SKIP_NOT_LOADED], fl),
				       per(s[TLBGEN_STAT_IPI_SKIP_NOT_TRIMMED], fl),
				       per(s[TLBGEN_STAT_FULL_FLUSH], fl),
				       per(s[TLBGEN_STAT_PARTIAL_FLUSH], fl), x->violations);
			}
	printf("  rd/fl: mm tlb_gen reads per flush; rd/ftf: per flush_tlb_func; rd/rftf: per\n"
	       "  remote flush_tlb_func; skip/fl: early skips (aa44284960); ipi/fl: IPIs sent;\n"
	       "  sk_*: IPIs skipped (lazy, mm not loaded, trim not due); full/part: flushes\n"
	       "  done by flush_tlb_func; viol: stale-TLB oracle violations (accounting pass).\n");
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);
				uint64_t ops;

				if (!x->hw_ok)
					continue;
				ops = (uint64_t)(x->mean * c->duration_ms / 1000.0 * x->nr);
				printf("  hw %s %u %s: cycles/op %.0f instructions/op %.0f "
				       "cache-misses/op %.2f\n", mode_name(m), c->tasks[t],
				       c->pol[p].label, per(x->hw[0], ops), per(x->hw[1], ops),
				       per(x->hw[2], ops));
			}
	putchar('\n');
}

void cmp_print_csv(struct cmp *c, unsigned int p, FILE *f)
{
	double lin1 = 0;

	/* runtest.py: the header, a zero row, then one row per task count;
	 * linear is the larger 1-task figure of the two modes times tasks. */
	fprintf(f, "tasks,processes,processes_idle,threads,threads_idle,linear\n");
	fprintf(f, "0,0,100,0,100,0\n");
	for (int m = 0; m < 2; m++)
		if (c->modes[m] && cell(c, m, 0, p)->mean / c->tasks[0] > lin1)
			lin1 = cell(c, m, 0, p)->mean / c->tasks[0];
	for (unsigned int t = 0; t < c->ntasks; t++) {
		struct cell *th = cell(c, 0, t, p), *pr = cell(c, 1, t, p);

		fprintf(f, "%u,%.0f,%.2f,%.0f,%.2f,%.0f\n", c->tasks[t],
			c->modes[1] ? pr->mean : 0,
			c->modes[1] && pr->nr ? pr->idle_sum / pr->nr : 100,
			c->modes[0] ? th->mean : 0,
			c->modes[0] && th->nr ? th->idle_sum / th->nr : 100,
			lin1 * c->tasks[t]);
	}
}

/* A label as one component of a file name or an LKP key: [A-Za-z0-9_-]. */
static void safe_label(char *dst, size_t len, const char *s)
{
	size_t i = 0;

	for (; *s && i + 1 < len; s++, i++)
		dst[i] = (*s == '-' || *s == '_' || (*s >= '0' && *s <= '9') ||
			  (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')) ? *s : '_';
	dst[i] = 0;
}

static int write_csv_file(struct cmp *c, unsigned int p, const char *path)
{
	FILE *f = bench_open_output(path);

	if (!f) {
		fprintf(stderr, "tlbgen-bench: %s: %s\n", path, strerror(errno));
		return 1;
	}
	cmp_print_csv(c, p, f);
	if (f != stdout && (ferror(f) || fclose(f))) {
		fprintf(stderr, "tlbgen-bench: %s: write failed\n", path);
		return 1;
	}
	if (f == stdout)
		fflush(f);
	else
		printf("csv: %s\n", path);
	return 0;
}

void cmp_csv_path(struct cmp *c, unsigned int p, char *path, size_t len)
{
	char pol[200];
	size_t n = strlen(c->csv);
	bool ext = n > 4 && !strcmp(c->csv + n - 4, ".csv");

	safe_label(pol, sizeof(pol), c->pol[p].label);
	if (c->npol == 1 || !strcmp(c->csv, "-"))
		snprintf(path, len, "%s", c->csv);
	else
		snprintf(path, len, "%.*s-%s.csv", (int)(ext ? n - 4 : n), c->csv, pol);
}

int cmp_write_csv(struct cmp *c)
{
	char path[4096 + 256], name[256], pol[200];
	int ret = 0;

	for (unsigned int p = 0; p < c->npol; p++) {
		safe_label(pol, sizeof(pol), c->pol[p].label);
		snprintf(name, sizeof(name), "%s-%s.csv", c->wl->name, pol);
		if (bench_results_path(path, sizeof(path), name))
			ret |= write_csv_file(c, p, path);
		if (!c->csv)
			continue;
		cmp_csv_path(c, p, path, sizeof(path));
		ret |= write_csv_file(c, p, path);
	}
	return ret;
}

void cmp_print_lkp(struct cmp *c)
{
	printf("## LKP-style\n");
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);
				const uint64_t *s = x->stats;
				uint64_t fl = s[TLBGEN_STAT_FLUSH_INITIATED];
				char k[256], pol[200];

				/* One key component per coordinate: a dot inside a
				 * policy ("v5.17") would make the key ambiguous. */
				safe_label(pol, sizeof(pol), c->pol[p].label);
				snprintf(k, sizeof(k), "%s.%s.%s.%u", c->wl->name, pol,
					 mode_name(m), c->tasks[t]);
				printf("%s.workload: %.0f\n", k, x->mean);
				printf("%s.per_%s_ops: %.0f\n", k, m ? "process" : "thread",
				       x->mean / c->tasks[t]);
				printf("%s.change_pct: %.2f\n", k, x->change);
				printf("%s.tlb_gen_reads_per_flush: %.4f\n", k,
				       per(s[TLBGEN_STAT_TLB_GEN_READ], fl));
				printf("%s.ipi_sent_per_flush: %.4f\n", k,
				       per(s[TLBGEN_STAT_IPI_SENT], fl));
			}
	putchar('\n');
}

void cmp_print_mesi(struct cmp *c)
{
	if (!c->nmesi)
		return;
	printf("## coherence account: MESI model, stepped mode, %s_threads, %u emulated CPUs, "
	       "%llu ops, seed %llu (no PMU needed)\n", c->wl->name, c->mesi_cpus,
	       (unsigned long long)c->mesi_ops, (unsigned long long)c->seed);
	printf("%-34s %8s %10s %10s %8s %8s %8s %8s %8s\n", "policy", "flushes", "xfer/flush",
	       "tlbgen/fl", "E/M->S", "S->M", "own->M", "rd/rftf", "viol");
	for (unsigned int p = 0; p < c->nmesi; p++) {
		struct bench_mesi_result *r = &c->mesi[p];

		printf("%-34s %8llu %10.3f %10.3f %8.3f %8.3f %8.3f %8.3f %8ld\n",
		       c->mesi_pol[p].label, (unsigned long long)r->flushes,
		       per(r->transfers, r->flushes),
		       per(r->line_transfers[TLBGEN_LINE_MM_TLB_GEN], r->flushes),
		       per(r->tlb_gen.downgrades + r->tlb_gen.shared_reads, r->flushes),
		       per(r->tlb_gen.upgrades, r->flushes), per(r->tlb_gen.ownership, r->flushes),
		       per(r->remote_reads, r->stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE]),
		       r->violations);
	}
	printf("  xfer/flush: cacheline transfers per flush, every shared line; tlbgen/fl: on\n"
	       "  the mm's tlb_gen line; E/M->S: its read misses (the IPI handler's read),\n"
	       "  S->M: upgrades by inc_mm_tlb_gen, own->M: write misses; rd/rftf: tlb_gen\n"
	       "  reads per remote flush_tlb_func. Per line kind, transfers per flush:\n");
	for (unsigned int p = 0; p < c->nmesi; p++) {
		printf("  %-32s", c->mesi_pol[p].label);
		for (int k = 0; k < TLBGEN_LINE_NR; k++)
			printf(" %s=%.2f", tlbgen_line_name((enum tlbgen_line)k),
			       per(c->mesi[p].line_transfers[k], c->mesi[p].flushes));
		putchar('\n');
	}
	/* The reading seed 000 is about: fewer reads, same line traffic? */
	for (unsigned int p = 1; p < c->nmesi; p++) {
		struct bench_mesi_result *a = &c->mesi[0], *b = &c->mesi[p];
		double ra = per(a->remote_reads, a->stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE]);
		double rb = per(b->remote_reads, b->stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE]);
		double ta = per(a->line_transfers[TLBGEN_LINE_MM_TLB_GEN], a->flushes);
		double tb = per(b->line_transfers[TLBGEN_LINE_MM_TLB_GEN], b->flushes);

		printf("  %s vs %s: tlb_gen reads per remote flush_tlb_func %.3f -> %.3f "
		       "(%+.0f%%), tlb_gen transfers per flush %.3f -> %.3f (%+.0f%%)\n",
		       c->mesi_pol[p].label, c->mesi_pol[0].label, ra, rb,
		       ra > 0 ? 100 * (rb / ra - 1) : 0, ta, tb, ta > 0 ? 100 * (tb / ta - 1) : 0);
	}
	putchar('\n');
}


/* results.json ----------------------------------------------------------------- */

static void record_cell(struct cmp *c, int m, unsigned int t, unsigned int p)
{
	struct cell *x = cell(c, m, t, p);
	const uint64_t *s = x->stats;
	uint64_t fl = s[TLBGEN_STAT_FLUSH_INITIATED];
	json_t *pa = json_pack("{s:s,s:s,s:i,s:s}", "workload", c->wl->name, "mode", mode_name(m),
			       "tasks", (int)c->tasks[t], "policy", c->pol[p].label);
	double *per_task = calloc(x->nr + 1, sizeof(double));
	double *smp = calloc(x->wis.nr_samples + 1, sizeof(double));

	bench_metric_samples("ops_per_sec", "ops/s", "higher", pa, x->ops, x->nr);
	for (unsigned int r = 0; per_task && r < x->nr; r++)
		per_task[r] = x->ops[r] / c->tasks[t];
	if (per_task)
		bench_metric_samples("ops_per_sec_per_task", "ops/s per task", "higher", pa,
				     per_task, x->nr);
	for (unsigned int i = 0; smp && i < x->wis.nr_samples; i++)
		smp[i] = (double)x->wis.stotal[i];
	if (smp)
		bench_metric_samples("sample_total_ops_per_sec", "ops/s", "higher", pa, smp,
				     x->wis.nr_samples);
	if (p) {
		bench_metric("change_pct", "%", "higher", pa, x->change);
		bench_metric("change_ci95_low_pct", "%", "higher", pa, x->ci_lo);
		bench_metric("change_ci95_high_pct", "%", "higher", pa, x->ci_hi);
		bench_metric("welch_p", "p-value", NULL, pa, x->p);
	}
	bench_metric("idle_pct", "%", NULL, pa, x->nr ? x->idle_sum / x->nr : NAN);
	bench_metric("violations", "violations", "lower", pa, (double)x->violations);
	bench_metric("tlb_gen_reads_per_flush", "reads/flush", "lower", pa,
		     per(s[TLBGEN_STAT_TLB_GEN_READ], fl));
	bench_metric("tlb_gen_reads_per_flush_tlb_func", "reads/call", "lower", pa,
		     per(s[TLBGEN_STAT_TLB_GEN_READ], s[TLBGEN_STAT_FLUSH_FUNC]));
	bench_metric("early_skips_per_flush", "skips/flush", NULL, pa,
		     per(s[TLBGEN_STAT_EARLY_SKIP], fl));
	bench_metric("ipis_per_flush", "IPIs/flush", "lower", pa, per(s[TLBGEN_STAT_IPI_SENT], fl));
	if (x->acct_done) {
		bench_metric("remote_tlb_gen_reads_per_remote_flush_tlb_func", "reads/call", "lower",
			     pa, per(x->remote_reads, x->acct_stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE]));
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
	struct bench_mesi_result *r = &c->mesi[p];
	json_t *pa = json_pack("{s:s,s:s,s:s,s:i,s:I,s:I}", "workload", c->wl->name, "account",
			       "mesi", "policy", c->mesi_pol[p].label, "emulated_cpus",
			       (int)c->mesi_cpus, "ops", (json_int_t)c->mesi_ops, "seed",
			       (json_int_t)c->seed);

	bench_metric("mesi_flushes", "flushes", NULL, pa, (double)r->flushes);
	bench_metric("mesi_nested_full_flushes", "flushes", NULL, pa, (double)r->nested_flushes);
	bench_metric("mesi_transfers_per_flush", "cacheline transfers/flush", "lower", pa,
		     per(r->transfers, r->flushes));
	for (int k = 0; k < TLBGEN_LINE_NR; k++) {
		char name[96];

		snprintf(name, sizeof(name), "mesi_transfers_per_flush_%s",
			 tlbgen_line_name((enum tlbgen_line)k));
		bench_metric(name, "cacheline transfers/flush", "lower", pa,
			     per(r->line_transfers[k], r->flushes));
	}
	bench_metric("mesi_tlb_gen_read_misses_per_flush", "transfers/flush", "lower", pa,
		     per(r->tlb_gen.downgrades + r->tlb_gen.shared_reads, r->flushes));
	bench_metric("mesi_tlb_gen_upgrades_per_flush", "transfers/flush", "lower", pa,
		     per(r->tlb_gen.upgrades, r->flushes));
	bench_metric("mesi_tlb_gen_write_misses_per_flush", "transfers/flush", "lower", pa,
		     per(r->tlb_gen.ownership, r->flushes));
	bench_metric("mesi_remote_tlb_gen_reads_per_remote_flush_tlb_func", "reads/call", "lower",
		     pa, per(r->remote_reads, r->stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE]));
	bench_metric("mesi_violations", "violations", "lower", pa, (double)r->violations);
	bench_metric_stats("mesi_", pa, r->stats);
	json_decref(pa);
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
	if (c->mesi_only)
		return;
	bench_meta_param("rounds", json_integer(c->rounds));
	bench_meta_param("duration_ms", json_integer(c->duration_ms));
	bench_meta_param("sample_ms", json_integer(c->sample_ms));
	bench_meta_param("warmup_samples", json_integer(c->warmup));
	bench_meta_param("cpus_used", json_integer(c->nr_cpus));
	bench_meta_param("baseline", json_string(c->pol[0].label));
	bench_meta_param("kernel_work", json_string(c->kwork_spec));
	if (c->kwork_on) {
		bench_meta_param("kernel_work_fault_ns", json_integer((json_int_t)c->kw_fault_ns));
		bench_meta_param("kernel_work_syscall_ns",
				 json_integer((json_int_t)c->kw_syscall_ns));
		bench_meta_param("kernel_work_zap_ns", json_integer((json_int_t)c->kw_zap_ns));
		bench_meta_param("kernel_work_user_ns", json_integer((json_int_t)c->kw_user_ns));
	}
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++)
				record_cell(c, m, t, p);
}

int cmp_write_json(struct cmp *c)
{
	if (!c->json)
		return 0;
	if (bench_json_dump(bench_results_json(), c->json))
		return 1;
	if (strcmp(c->json, "-"))
		printf("json: %s\n", c->json);
	return 0;
}

/* Plot -------------------------------------------------------------------------- */

static bool have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* A gnuplot double-quoted string: any label or path is safe in it. */
static void gp_str(FILE *g, const char *s)
{
	fputc('"', g);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', g);
		if (*s == '\n')
			fputs("\\n", g);
		else
			fputc(*s, g);
	}
	fputc('"', g);
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "r"), *out = in ? fopen(to, "w") : NULL;
	char buf[65536];
	size_t n;
	int err = 0;

	if (!in || !out)
		err = -errno;
	while (!err && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			err = -EIO;
	if (in)
		fclose(in);
	if (out && fclose(out) && !err)
		err = -EIO;
	return err;
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

/* The gnuplot script: absolute ops/s (log axis when the range is wide) with
 * min..max bars, and below it the change against the baseline policy with
 * its 95% confidence interval. */
static void plot_script(struct cmp *c, FILE *g, const char *svg_tmp)
{
	double lo = INFINITY, hi = 0;
	char cap[1024];
	bool first = true;

	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);

				lo = x->min > 0 && x->min < lo ? x->min : lo;
				hi = x->max > hi ? x->max : hi;
			}
	caption(cap, sizeof(cap));
	fprintf(g, "set terminal svg size 900,900 dynamic enhanced font 'sans,12'\nset output ");
	gp_str(g, svg_tmp);
	fprintf(g, "\nset multiplot layout 2,1 title ");
	{
		char title[2048];

		snprintf(title, sizeof(title), "%s (%s), %u rounds of %u ms\n%s", c->wl->name,
			 c->wl->desc, c->rounds, c->duration_ms, cap);
		gp_str(g, title);
	}
	fprintf(g, " noenhanced\nset grid\nset key outside below center horizontal noenhanced\n"
		"set xtics 1\n"
		"set offsets graph 0.03, graph 0.03\nset xlabel 'tasks'\n");
	/* Panel 1: absolute. */
	fprintf(g, "set title 'ops/s: mean of the rounds, bars min..max%s'\n",
		hi > 10 * lo ? ", log axis" : "");
	if (hi > 10 * lo)
		fprintf(g, "set logscale y\nset format y '%%.0s%%c'\n");
	else
		fprintf(g, "set yrange [0:*]\nset format y '%%.1s%%c'\n");
	fprintf(g, "set ylabel 'ops/s'\nplot ");
	for (int m = 0; m < 2; m++)
		for (unsigned int p = 0; c->modes[m] && p < c->npol; p++) {
			/* One line type per series, the same in both panels. */
			fprintf(g, "%s'-' using 1:2:3:4 with yerrorlines lw 2 lt %u title ",
				first ? "" : ", ", m * c->npol + p + 1);
			{
				char t[256];

				snprintf(t, sizeof(t), "%s %s", c->pol[p].label, mode_name(m));
				gp_str(g, t);
			}
			first = false;
		}
	fputc('\n', g);
	for (int m = 0; m < 2; m++)
		for (unsigned int p = 0; c->modes[m] && p < c->npol; p++) {
			for (unsigned int t = 0; t < c->ntasks; t++) {
				struct cell *x = cell(c, m, t, p);

				fprintf(g, "%u %.1f %.1f %.1f\n", c->tasks[t], x->mean, x->min, x->max);
			}
			fprintf(g, "e\n");
		}
	/* Panel 2: relative to the baseline. */
	fprintf(g, "unset logscale y\nset yrange [*:*]\nset format y '%%+.0f%%%%'\n"
		"set ylabel 'change vs baseline'\nset title ");
	{
		char t[256];

		snprintf(t, sizeof(t), "change of the mean vs %s, bars: 95%% CI (Welch)",
			 c->pol[0].label);
		gp_str(g, t);
	}
	fprintf(g, " noenhanced\nplot 0 with lines lc 'black' notitle");
	for (int m = 0; m < 2; m++)
		for (unsigned int p = 1; c->modes[m] && p < c->npol; p++) {
			char t[256];

			snprintf(t, sizeof(t), "%s %s", c->pol[p].label, mode_name(m));
			fprintf(g, ", '-' using 1:2:3:4 with yerrorlines lw 2 lt %u title ",
				m * c->npol + p + 1);
			gp_str(g, t);
		}
	fputc('\n', g);
	for (int m = 0; m < 2; m++)
		for (unsigned int p = 1; c->modes[m] && p < c->npol; p++) {
			for (unsigned int t = 0; t < c->ntasks; t++) {
				struct cell *x = cell(c, m, t, p);

				fprintf(g, "%u %.3f %.3f %.3f\n", c->tasks[t], x->change,
					isnan(x->ci_lo) ? x->change : x->ci_lo,
					isnan(x->ci_hi) ? x->change : x->ci_hi);
			}
			fprintf(g, "e\n");
		}
	fprintf(g, "unset multiplot\n");
}

int cmp_plot(struct cmp *c)
{
	char gp[64], svg[64], cmd[256];
	int fd_gp, fd_svg, rc, ret = 0;
	FILE *g;

	if (c->no_plot || !c->svg)
		return 0;
	if (!have_gnuplot()) {
		printf("plot: skipped, gnuplot not found (Debian: apt-get install gnuplot-nox)\n");
		return 0;
	}
	/* gnuplot sees only these names, of our making; the output name,
	 * whatever its characters, is written by us. */
	snprintf(gp, sizeof(gp), "/tmp/tlbgen-plot-XXXXXX");
	snprintf(svg, sizeof(svg), "/tmp/tlbgen-svg-XXXXXX");
	fd_gp = mkstemp(gp);
	fd_svg = fd_gp >= 0 ? mkstemp(svg) : -1;
	if (fd_gp < 0 || fd_svg < 0 || !(g = fdopen(fd_gp, "w"))) {
		fprintf(stderr, "tlbgen-bench: plot: cannot create a temporary file: %s\n",
			strerror(errno));
		if (fd_gp >= 0) {
			close(fd_gp);
			unlink(gp);
		}
		return 1;
	}
	close(fd_svg);
	plot_script(c, g, svg);
	fclose(g);
	snprintf(cmd, sizeof(cmd), "gnuplot %s", gp);
	rc = system(cmd);
	if (rc != 0) {
		fprintf(stderr, "tlbgen-bench: plot: gnuplot failed (status %d); no plot written\n",
			rc);
		ret = 1;
	} else if ((rc = copy_file(svg, c->svg))) {
		fprintf(stderr, "tlbgen-bench: plot: %s: %s\n", c->svg, strerror(-rc));
		ret = 1;
	} else {
		snprintf(c->svg_written, sizeof(c->svg_written), "%s", c->svg);
		printf("plot: %s\n", c->svg);
	}
	unlink(gp);
	unlink(svg);
	return ret;
}
