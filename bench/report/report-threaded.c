// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/report/report-threaded.c - what a threaded run prints: will-it-scale's
 * text, the comparison table, the counters, the CSV files and LKP lines.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "driver/output.h"
#include "report-threaded.h"
#include "driver/results.h"
#include "driver/threaded-opts.h"
#include "run/threaded.h"

/* What a cell recorded (report-threaded-out.c): the figures printed here. */
static json_t *params(struct cmp *c, int m, unsigned int t, unsigned int p)
{
	return json_pack("{s:s,s:s,s:i,s:s}", "workload", c->name, "mode", mode_name(m), "tasks",
			 (int)c->tasks[t], "policy", c->pol[p].label);
}

static double get(const char *name, json_t *pa)
{
	double v;

	bench_metric_get(name, pa, &v);
	return v;
}

/* A counter per flush, from the recorded counters. */
static double per_fl(const char *stat, json_t *pa)
{
	double fl = get("flush_initiated", pa);

	return fl > 0 ? get(stat, pa) / fl : 0;
}

/* min and max of a recorded metric's samples. */
static void sample_range(const char *name, json_t *pa, double *min, double *max)
{
	double v[MAX_ROUNDS];
	size_t n = bench_metric_samples_get(name, pa, v, MAX_ROUNDS);

	*min = *max = n ? v[0] : NAN;
	for (size_t i = 1; i < n; i++) {
		*min = v[i] < *min ? v[i] : *min;
		*max = v[i] > *max ? v[i] : *max;
	}
}

void cmp_print_wis(struct cmp *c)
{
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				json_t *pa = params(c, m, t, p);
				double mn[4096], mx[4096], tot[4096];
				size_t n = bench_metric_samples_get("sample_total_ops_per_sec", pa, tot,
								    4096);

				bench_metric_samples_get("sample_min_ops_per_sec", pa, mn, 4096);
				bench_metric_samples_get("sample_max_ops_per_sec", pa, mx, 4096);
				printf("## will-it-scale: %s_%s, %u task%s, policy %s\n", c->name,
				       mode_name(m), c->tasks[t], c->tasks[t] > 1 ? "s" : "",
				       c->pol[p].label);
				/* The raw samples only when asked: a screen of them
				 * before the table hid it (results.json keeps them). */
				for (size_t i = 0; c->verbose && !c->quiet && i < n; i++)
					printf("min:%.0f max:%.0f total:%.0f\n", mn[i], mx[i], tot[i]);
				printf("average:%.0f\n", get("ops_per_sec", pa));
				json_decref(pa);
			}
	putchar('\n');
}

/* What the times below can and cannot show, and where the figures that
 * hold on this host are (recorded by cmp_record()). */
static void print_host_note(struct cmp *c)
{
	json_t *t = bench_meta_param_get("threaded_timings");
	int maxt = (int)json_integer_value(json_object_get(t, "tasks_max"));

	if (!t || json_is_true(json_object_get(t, "meaningful")))
		return;
	printf("# note: %d task%s on %d CPU%s%s: ops/s here time the %s, not the flush; "
	       "a change whose CI holds 0 is noise. What holds on this host: the counters "
	       "(rd/rftf)%s; a many-core table: --mode virtual\n", maxt, maxt == 1 ? "" : "s",
	       c->nr_cpus, c->nr_cpus == 1 ? "" : "s",
	       json_is_true(json_object_get(t, "hypervisor")) ? " under a hypervisor" : "",
	       maxt > c->nr_cpus ? "scheduler" : "hypervisor's vCPUs",
	       bench_threaded_mesi_cols ? " and the MESI account below" : "");
}

void cmp_print_table(struct cmp *c)
{
	print_host_note(c);
	printf("## ops/s over %u interleaved rounds of %u ms (change: mean vs %s, with its 95%% "
	       "CI; p: Welch's t-test)\n", c->rounds, c->duration_ms, c->pol[0].label);
	printf("%-9s %5s  %-32s %12s %12s %12s %9s %19s %8s\n", "mode", "tasks", "policy", "min",
	       "mean", "max", "change", "95% CI", "p");
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				json_t *pa = params(c, m, t, p);
				char ch[32] = "", ci[48] = "", pv[32] = "";
				double lo = get("change_ci95_low_pct", pa), pval = get("welch_p", pa);
				double mn, mx;

				sample_range("ops_per_sec", pa, &mn, &mx);
				if (p) {
					snprintf(ch, sizeof(ch), "%+.1f%%", get("change_pct", pa));
					if (isnan(lo))
						snprintf(ci, sizeof(ci), "n/a");
					else
						snprintf(ci, sizeof(ci), "[%+.1f%%, %+.1f%%]", lo,
							 get("change_ci95_high_pct", pa));
					if (isnan(pval))
						snprintf(pv, sizeof(pv), "n/a");
					else
						snprintf(pv, sizeof(pv), "%.3f%s", pval,
							 pval < 0.01 ? " **" : pval < 0.05 ? " *" : "");
				}
				printf("%-9s %5u  %-32s %12.0f %12.0f %12.0f %9s %19s %8s\n",
				       mode_name(m), c->tasks[t], c->pol[p].label, mn,
				       get("ops_per_sec", pa), mx, ch, ci, pv);
				json_decref(pa);
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
				json_t *pa = params(c, m, t, p);

				printf("%-9s %5u  %-32s %9.0f %8.3f %8.3f %8.3f %8.3f %8.3f %6.0f\n",
				       mode_name(m), c->tasks[t], c->pol[p].label,
				       get("flush_initiated", pa), per_fl("invlpgb", pa),
				       per_fl("tlbsync", pa), per_fl("ipi_sent", pa),
				       per_fl("ipi_avoided", pa), per_fl("flush_tlb_func", pa),
				       get("global_asid", pa));
				json_decref(pa);
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
				json_t *pa = params(c, m, t, p);
				double rd = get("remote_tlb_gen_reads_per_remote_flush_tlb_func", pa);
				double ftf = get("flush_tlb_func", pa);
				char rr[32] = "-";

				if (!isnan(rd))
					snprintf(rr, sizeof(rr), "%.3f", rd);
				printf("%-9s %5u  %-32s %9.0f %8.3f %8.3f %8s %8.3f %8.3f %8.3f %8.3f "
				       "%8.3f %7.3f %7.3f %5.0f\n",
				       mode_name(m), c->tasks[t], c->pol[p].label,
				       get("flush_initiated", pa), per_fl("tlb_gen_read", pa),
				       ftf > 0 ? get("tlb_gen_read", pa) / ftf : 0, rr,
				       per_fl("early_skip", pa), per_fl("ipi_sent", pa),
				       per_fl("ipi_skip_lazy", pa), per_fl("ipi_skip_not_loaded", pa),
				       per_fl("ipi_skip_not_trimmed", pa), per_fl("full_flush", pa),
				       per_fl("partial_flush", pa), get("violations", pa));
				json_decref(pa);
			}
	printf("  rd/fl: mm tlb_gen reads per flush; rd/ftf: per flush_tlb_func; rd/rftf: per\n"
	       "  remote flush_tlb_func; skip/fl: early skips (aa44284960); ipi/fl: IPIs sent;\n"
	       "  sk_*: IPIs skipped (lazy, mm not loaded, trim not due); full/part: flushes\n"
	       "  done by flush_tlb_func; viol: stale-TLB oracle violations (accounting pass).\n");
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				json_t *pa = params(c, m, t, p);
				double cyc = get("cycles_per_op", pa);

				if (!isnan(cyc))
					printf("  hw %s %u %s: cycles/op %.0f instructions/op %.0f "
					       "cache-misses/op %.2f\n", mode_name(m), c->tasks[t],
					       c->pol[p].label, cyc, get("instructions_per_op", pa),
					       get("cache_misses_per_op", pa));
				json_decref(pa);
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
	for (int m = 0; m < 2; m++) {
		json_t *pa = params(c, m, 0, p);

		if (c->modes[m] && get("ops_per_sec", pa) / c->tasks[0] > lin1)
			lin1 = get("ops_per_sec", pa) / c->tasks[0];
		json_decref(pa);
	}
	for (unsigned int t = 0; t < c->ntasks; t++) {
		json_t *th = params(c, 0, t, p), *pr = params(c, 1, t, p);

		fprintf(f, "%u,%.0f,%.2f,%.0f,%.2f,%.0f\n", c->tasks[t],
			c->modes[1] ? get("ops_per_sec", pr) : 0,
			c->modes[1] ? get("idle_pct", pr) : 100,
			c->modes[0] ? get("ops_per_sec", th) : 0,
			c->modes[0] ? get("idle_pct", th) : 100, lin1 * c->tasks[t]);
		json_decref(th);
		json_decref(pr);
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
		snprintf(name, sizeof(name), "%s-%s.csv", c->name, pol);
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
				json_t *pa = params(c, m, t, p);
				char k[256], pol[200];

				/* One key component per coordinate: a dot inside a
				 * policy ("v5.17") would make the key ambiguous. */
				safe_label(pol, sizeof(pol), c->pol[p].label);
				snprintf(k, sizeof(k), "%s.%s.%s.%u", c->name, pol,
					 mode_name(m), c->tasks[t]);
				printf("%s.workload: %.0f\n", k, get("ops_per_sec", pa));
				printf("%s.per_%s_ops: %.0f\n", k, m ? "process" : "thread",
				       get("ops_per_sec", pa) / c->tasks[t]);
				printf("%s.change_pct: %.2f\n", k, p ? get("change_pct", pa) : 0);
				printf("%s.tlb_gen_reads_per_flush: %.4f\n", k,
				       per_fl("tlb_gen_read", pa));
				printf("%s.ipi_sent_per_flush: %.4f\n", k, per_fl("ipi_sent", pa));
				json_decref(pa);
			}
	putchar('\n');
}
