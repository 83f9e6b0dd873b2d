// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/report-threaded.c - what a threaded run prints: will-it-scale's
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
#include "output.h"
#include "report-threaded.h"
#include "results.h"
#include "threaded.h"

void cmp_print_wis(struct cmp *c)
{
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);

				printf("## will-it-scale: %s_%s, %u task%s, policy %s\n", c->name,
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
				struct cell *x = cell(c, m, t, p);
				const uint64_t *s = x->stats;
				uint64_t fl = s[TLBGEN_STAT_FLUSH_INITIATED];
				char k[256], pol[200];

				/* One key component per coordinate: a dot inside a
				 * policy ("v5.17") would make the key ambiguous. */
				safe_label(pol, sizeof(pol), c->pol[p].label);
				snprintf(k, sizeof(k), "%s.%s.%s.%u", c->name, pol,
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
