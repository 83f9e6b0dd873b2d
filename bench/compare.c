// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/compare.c - policies compared in one run.
 *
 * Rounds are interleaved (for each round: for each task count: policy A,
 * B, A, B ...) so that machine noise (on this class of VM cross-core latency
 * jumps fivefold mid-run) hits every policy alike. Per policy and task count:
 * ops/s min/median/max over the rounds, % change of the mean against the
 * first policy and Welch's t-test, with the counters that explain it; then a
 * stepped MESI coherence account, and will-it-scale / CSV / LKP / JSON / SVG
 * output.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define MAX_POLICIES 16
#define MAX_TASKS 256
#define MAX_ROUNDS 1000

struct cell {			/* one (mode, tasks, policy) */
	double *ops;		/* per round ops/s */
	unsigned int nr;
	struct bench_round_result wis;	/* samples of every round concatenated */
	uint64_t stats[TLBGEN_STAT_NR];	/* summed over the timed rounds */
	double idle_sum;
	uint64_t hw[BENCH_HW_NR];
	bool hw_ok;
	long violations;
	/* accounting pass */
	uint64_t acct_stats[TLBGEN_STAT_NR];
	uint64_t remote_reads, local_reads;
	bool acct_done;
	double min, med, max, mean, sd, change, p;
};

struct cmp {
	const struct bench_wis_workload *wl;
	bool mesi_only;
	struct bench_policy pol[MAX_POLICIES];
	unsigned int npol;
	unsigned int tasks[MAX_TASKS];
	unsigned int ntasks;
	bool modes[2];		/* [0] threads, [1] processes */
	unsigned int rounds, duration_ms, sample_ms;
	const char *json, *csv, *svg;
	bool no_plot, quiet, no_mesi, no_acct, seed000;
	unsigned int mesi_cpus;
	uint64_t mesi_ops, seed;
	int cpus[1024];
	int nr_cpus;
	struct cell *cells;	/* [mode][tasks][policy] */
	struct bench_policy mesi_pol[MAX_POLICIES];
	unsigned int nmesi;
	struct bench_mesi_result mesi[MAX_POLICIES];
	char svg_written[4096];
	struct bench_progress pg;
	struct bench_hw_probe hw_probe;
};

static struct cell *cell(struct cmp *c, int mode, unsigned int t, unsigned int p)
{
	return &c->cells[((size_t)mode * c->ntasks + t) * c->npol + p];
}

static const char *mode_name(int m)
{
	return m ? "processes" : "threads";
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
"usage: tlbgen-bench %s [options]\n"
"\n"
"Runs a will-it-scale shaped workload over the emulated runtime (threaded\n"
"mode: one pinned pthread per emulated CPU) under several policies, rounds\n"
"interleaved A B A B, and compares them.\n"
"\n"
"workloads (will-it-scale, reference section 7), one operation =\n"
"  tlb_flush1   write, MADV_DONTNEED (PTE zap + 1-page flush_tlb_mm_range),\n"
"               re-fault; munmap (full flush, freed_tables) every 32768 pages\n"
"  tlb_flush2   same, munmap every 256 pages (1 MiB anonymous mapping)\n"
"  tlb_flush3   same as tlb_flush1 (shared file mapping; page cache not modelled)\n"
"  page_fault3  write fault on a shared file page (PTE change, no flush);\n"
"               munmap every 32768 pages\n"
"  seed000      (no arguments) tlb_flush1, threads, tasks 1..nproc,\n"
"               v5.17 vs v6.0, plus the MESI account of Nadav Amit's four columns\n"
"\n"
"options:\n"
"  -p, --policy SPEC    a policy: PROFILE or PROFILE:choice=value[,...]\n"
"                       (repeatable; the first is the baseline). Profiles:\n"
"                       v5.17 v6.0-aa44284960 v6.0 v6.14 latest. Example:\n"
"                       -p v5.17 -p v6.0 -p 'v6.0:mm_tlb_gen_read=never'\n"
"                       default: v5.17 and v6.0\n"
"  -t, --tasks LIST     task counts, e.g. 1,2,4 or 1-8 (default 1..nproc).\n"
"                       More tasks than CPUs is allowed: then only counts,\n"
"                       not times, are meaningful\n"
"  -m, --mode MODE      threads (one shared mm, default), processes (one mm\n"
"                       per task: local flushes only) or both\n"
"  -r, --rounds N       interleaved rounds per policy and task count (default 5)\n"
"  -d, --duration MS    length of one round (default: ~20 s in total, 200..1000)\n"
"  -s, --sample-ms MS   will-it-scale sample interval (default min(1000, d/4));\n"
"                       samples are scaled to ops per second\n"
"      --cpus LIST      real CPUs to pin task i to (cpus[i %% n]); default: all\n"
"                       CPUs this process may use\n"
"      --json FILE      write every figure and counter as JSON\n"
"      --csv FILE       write the will-it-scale CSV there too\n"
"      --svg FILE       plot path (default <workload>.svg; seed000:\n"
"                       tlbgen-bench-seed000.svg), drawn with gnuplot if present\n"
"      --no-plot        do not draw the plot\n"
"      --no-acct        skip the traced accounting pass (remote tlb_gen reads, and\n"
"                       the oracle: timed rounds run without it)\n"
"      --no-mesi        skip the stepped MESI coherence account\n"
"      --mesi-cpus N    emulated CPUs of the MESI account (default 8)\n"
"      --mesi-ops N     operations of the MESI account (default 20000)\n"
"      --seed N         seed of the MESI account's scheduler (default 1)\n"
"  -q, --quiet          no will-it-scale per-sample lines\n"
"  -h, --help           this text\n"
"\n"
"output (stdout), in this order:\n"
"  1. will-it-scale text per policy and task count: 'min:N max:N total:N' per\n"
"     sample (ops/s of the slowest task, the fastest, all), then 'average:N'\n"
"  2. comparison table: ops/s min/median/max over rounds, change of the mean\n"
"     vs the first policy, Welch's t-test p ('*' p<0.05, '**' p<0.01)\n"
"  3. counters per flush: mm tlb_gen reads per flush and per remote\n"
"     flush_tlb_func (accounting pass), early skips, IPIs sent and skipped\n"
"     by reason (lazy, not loaded, trim not due), full and partial flushes,\n"
"     oracle violations; hardware counters per op where a PMU exists\n"
"  4. will-it-scale CSV per policy: tasks,processes,processes_idle,threads,\n"
"     threads_idle,linear (idle %% from /proc/stat)\n"
"  5. LKP-style 'key: value' lines\n"
"  6. MESI coherence account (stepped mode, no PMU needed): cacheline\n"
"     transfers per flush overall and on the mm's tlb_gen line\n"
"  7. plot path. Progress goes to stderr.\n"
"Exit: 0 ok, 1 failed run (errors, oracle violations), 2 bad arguments.\n",
		prog);
}

static int parse_list(const char *s, unsigned int *out, unsigned int max, unsigned int *n)
{
	char *end;

	*n = 0;
	while (*s) {
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 1 || a > 100000)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b > 100000)
				return -EINVAL;
		}
		for (long i = a; i <= b; i++) {
			if (*n >= max)
				return -EINVAL;
			out[(*n)++] = (unsigned int)i;
		}
		if (*end == ',')
			end++;
		else if (*end)
			return -EINVAL;
		s = end;
	}
	return *n ? 0 : -EINVAL;
}

static void bad_list(const char *opt, const char *arg)
{
	fprintf(stderr, "tlbgen-bench: %s: '%s' is not a list of numbers (e.g. 1,2,4 or 1-8)\n",
		opt, arg);
}

static int add_policy(struct bench_policy *arr, unsigned int *n, const char *spec)
{
	if (*n >= MAX_POLICIES) {
		fprintf(stderr, "tlbgen-bench: at most %d policies\n", MAX_POLICIES);
		return -EINVAL;
	}
	if (bench_policy_parse(spec, &arr[*n])) {
		fprintf(stderr, "tlbgen-bench: bad policy '%s'\n", spec);
		return -EINVAL;
	}
	(*n)++;
	return 0;
}

static double per(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

/* Run ------------------------------------------------------------------------ */

static void merge_round(struct cell *x, struct bench_round_result *r)
{
	unsigned int n = x->wis.nr_samples + r->nr_samples;

	x->wis.smin = realloc(x->wis.smin, n * sizeof(uint64_t));
	x->wis.smax = realloc(x->wis.smax, n * sizeof(uint64_t));
	x->wis.stotal = realloc(x->wis.stotal, n * sizeof(uint64_t));
	if (x->wis.smin && x->wis.smax && x->wis.stotal) {
		memcpy(x->wis.smin + x->wis.nr_samples, r->smin, r->nr_samples * sizeof(uint64_t));
		memcpy(x->wis.smax + x->wis.nr_samples, r->smax, r->nr_samples * sizeof(uint64_t));
		memcpy(x->wis.stotal + x->wis.nr_samples, r->stotal,
		       r->nr_samples * sizeof(uint64_t));
		x->wis.nr_samples = n;
	}
	x->ops[x->nr++] = r->ops_per_sec;
	for (int i = 0; i < TLBGEN_STAT_NR; i++)
		x->stats[i] += r->stats[i];
	x->idle_sum += r->idle_pct;
	x->violations += r->violations > 0 ? r->violations : 0;
	x->hw_ok = r->hw.ok;
	for (int i = 0; i < BENCH_HW_NR; i++)
		x->hw[i] += r->hw.val[i];
}

static int run_rounds(struct cmp *c)
{
	unsigned int total = c->rounds * c->ntasks * c->npol * (c->modes[0] + c->modes[1]), done = 0;
	uint64_t t0 = bench_now_ns();

	for (unsigned int round = 0; round < c->rounds; round++)
		for (int m = 0; m < 2; m++) {
			if (!c->modes[m])
				continue;
			for (unsigned int t = 0; t < c->ntasks; t++)
				for (unsigned int p = 0; p < c->npol; p++) {
					struct bench_round_opts o = {
						.wl = c->wl, .profile = c->pol[p].name,
						.tasks = c->tasks[t], .processes = m,
						.duration_ms = c->duration_ms,
						.sample_ms = c->sample_ms, .cpus = c->cpus,
						.nr_cpus = c->nr_cpus, .hw = &c->hw_probe,
					};
					struct bench_round_result r;
					int err;

					bench_progress(&c->pg, "[%3u%%] round %u/%u %s %s tasks=%u %s (%.0f s)",
						       100 * done / total, round + 1, c->rounds,
						       c->wl->name, mode_name(m), c->tasks[t],
						       c->pol[p].label,
						       (double)(bench_now_ns() - t0) / 1e9);
					err = bench_wis_round(&o, &r);
					if (err) {
						bench_progress_done(&c->pg);
						fprintf(stderr, "tlbgen-bench: round failed: %s\n",
							strerror(-err));
						return err;
					}
					merge_round(cell(c, m, t, p), &r);
					bench_round_result_free(&r);
					done++;
				}
		}
	bench_progress_done(&c->pg);
	return 0;
}

static int run_acct(struct cmp *c)
{
	for (int m = 0; m < 2; m++) {
		if (!c->modes[m])
			continue;
		for (unsigned int t = 0; t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				unsigned int d = c->duration_ms / 4 < 100 ? 100 : c->duration_ms / 4;
				struct bench_round_opts o = {
					.wl = c->wl, .profile = c->pol[p].name,
					.tasks = c->tasks[t], .processes = m,
					.duration_ms = d, .sample_ms = d, .cpus = c->cpus,
					.nr_cpus = c->nr_cpus, .trace_reads = true,
				};
				struct bench_round_result r;
				struct cell *x = cell(c, m, t, p);
				int err;

				bench_progress(&c->pg, "accounting pass %s tasks=%u %s", mode_name(m),
					       c->tasks[t], c->pol[p].label);
				err = bench_wis_round(&o, &r);
				if (err) {
					bench_progress_done(&c->pg);
					fprintf(stderr, "tlbgen-bench: accounting failed: %s\n",
						strerror(-err));
					return err;
				}
				memcpy(x->acct_stats, r.stats, sizeof(r.stats));
				x->remote_reads = r.remote_reads;
				x->local_reads = r.local_reads;
				x->acct_done = true;
				x->violations += r.violations > 0 ? r.violations : 0;
				bench_round_result_free(&r);
			}
	}
	bench_progress_done(&c->pg);
	return 0;
}

static int run_mesi(struct cmp *c)
{
	for (unsigned int p = 0; p < c->nmesi; p++) {
		int err;

		bench_progress(&c->pg, "MESI account %s (%u emulated CPUs, %llu ops)", c->mesi_pol[p].label,
			       c->mesi_cpus, (unsigned long long)c->mesi_ops);
		err = bench_wis_mesi(c->wl, c->mesi_pol[p].name, c->mesi_cpus, c->mesi_ops, c->seed,
				     &c->mesi[p]);
		if (err) {
			bench_progress_done(&c->pg);
			fprintf(stderr, "tlbgen-bench: MESI account failed: %s\n", strerror(-err));
			return err;
		}
	}
	bench_progress_done(&c->pg);
	return 0;
}

static void analyse(struct cmp *c)
{
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p), *b = cell(c, m, t, 0);

				bench_min_med_max(x->ops, x->nr, &x->min, &x->med, &x->max);
				bench_mean_sd(x->ops, x->nr, &x->mean, &x->sd);
				x->change = p && b->mean > 0 ? 100 * (x->mean / b->mean - 1) : 0;
				x->p = p ? bench_welch_p(x->ops, x->nr, b->ops, b->nr) : NAN;
			}
}

/* Output --------------------------------------------------------------------- */

static void print_wis(struct cmp *c)
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

static void print_table(struct cmp *c)
{
	printf("## ops/s over %u interleaved rounds of %u ms (change: mean vs %s; p: Welch's t-test)\n",
	       c->rounds, c->duration_ms, c->pol[0].label);
	printf("%-9s %5s  %-32s %12s %12s %12s %9s %8s\n", "mode", "tasks", "policy", "min",
	       "median", "max", "change", "p");
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);
				char ch[32] = "", pv[32] = "";

				if (p) {
					snprintf(ch, sizeof(ch), "%+.1f%%", x->change);
					if (isnan(x->p))
						snprintf(pv, sizeof(pv), "n/a");
					else
						snprintf(pv, sizeof(pv), "%.3f%s", x->p,
							 x->p < 0.01 ? " **" : x->p < 0.05 ? " *" : "");
				}
				printf("%-9s %5u  %-32s %12.0f %12.0f %12.0f %9s %8s\n",
				       mode_name(m), c->tasks[t], c->pol[p].label, x->min, x->med,
				       x->max, ch, pv);
			}
	putchar('\n');
}

static void print_counters(struct cmp *c)
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

static void print_csv(struct cmp *c, FILE *f)
{
	for (unsigned int p = 0; p < c->npol; p++) {
		double lin1 = 0;

		fprintf(f, "# %s, policy %s\n", c->wl->name, c->pol[p].label);
		fprintf(f, "tasks,processes,processes_idle,threads,threads_idle,linear\n");
		for (int m = 0; m < 2; m++)
			if (c->modes[m] && cell(c, m, 0, p)->mean > lin1)
				lin1 = cell(c, m, 0, p)->mean / c->tasks[0];
		for (unsigned int t = 0; t < c->ntasks; t++) {
			struct cell *th = cell(c, 0, t, p), *pr = cell(c, 1, t, p);

			fprintf(f, "%u,%.0f,%.2f,%.0f,%.2f,%.0f\n", c->tasks[t],
				c->modes[1] ? pr->mean : 0,
				c->modes[1] && pr->nr ? pr->idle_sum / pr->nr : 0,
				c->modes[0] ? th->mean : 0,
				c->modes[0] && th->nr ? th->idle_sum / th->nr : 0,
				lin1 * c->tasks[t]);
		}
	}
}

static void print_lkp(struct cmp *c)
{
	printf("## LKP-style\n");
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);
				const uint64_t *s = x->stats;
				uint64_t fl = s[TLBGEN_STAT_FLUSH_INITIATED];
				char k[256];

				snprintf(k, sizeof(k), "%s.%s.%s.%u", c->wl->name, c->pol[p].label,
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

static void print_mesi(struct cmp *c)
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

static void write_json(struct cmp *c)
{
	FILE *f = fopen(c->json, "w");

	if (!f) {
		fprintf(stderr, "tlbgen-bench: %s: %s\n", c->json, strerror(errno));
		return;
	}
	fprintf(f, "{\n  \"workload\": ");
	bench_json_str(f, c->wl->name);
	fprintf(f, ",\n  \"description\": ");
	bench_json_str(f, c->wl->desc);
	fprintf(f, ",\n  \"rounds\": %u, \"duration_ms\": %u, \"sample_ms\": %u, "
		"\"cpus_allowed\": %d,\n  \"policies\": [", c->rounds, c->duration_ms,
		c->sample_ms, c->nr_cpus);
	for (unsigned int p = 0; p < c->npol; p++) {
		fprintf(f, "%s", p ? ", " : "");
		bench_json_str(f, c->pol[p].label);
	}
	fprintf(f, "],\n  \"results\": [");
	bool first = true;

	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);

				fprintf(f, "%s\n    {\"mode\": \"%s\", \"tasks\": %u, \"policy\": ",
					first ? "" : ",", mode_name(m), c->tasks[t]);
				first = false;
				bench_json_str(f, c->pol[p].label);
				fprintf(f, ",\n     \"ops_per_sec\": [");
				for (unsigned int r = 0; r < x->nr; r++)
					fprintf(f, "%s%.1f", r ? ", " : "", x->ops[r]);
				fprintf(f, "],\n     \"min\": %.1f, \"median\": %.1f, \"max\": %.1f, "
					"\"mean\": %.1f, \"sd\": %.1f, \"change_pct\": %.3f, ",
					x->min, x->med, x->max, x->mean, x->sd, x->change);
				if (isnan(x->p))
					fprintf(f, "\"welch_p\": null, ");
				else
					fprintf(f, "\"welch_p\": %.6g, ", x->p);
				fprintf(f, "\"idle_pct\": %.2f, \"violations\": %ld,\n     \"samples\": [",
					x->nr ? x->idle_sum / x->nr : 0, x->violations);
				for (unsigned int s = 0; s < x->wis.nr_samples; s++)
					fprintf(f, "%s{\"min\": %llu, \"max\": %llu, \"total\": %llu}",
						s ? ", " : "", (unsigned long long)x->wis.smin[s],
						(unsigned long long)x->wis.smax[s],
						(unsigned long long)x->wis.stotal[s]);
				fprintf(f, "],\n     \"counters\": {");
				for (int i = 0; i < TLBGEN_STAT_NR; i++)
					fprintf(f, "%s\"%s\": %llu", i ? ", " : "",
						tlbgen_stat_name((enum tlbgen_stat)i),
						(unsigned long long)x->stats[i]);
				fprintf(f, "},\n     \"accounting\": {\"done\": %s, \"remote_tlb_gen_reads\": "
					"%llu, \"local_tlb_gen_reads\": %llu, \"counters\": {",
					x->acct_done ? "true" : "false",
					(unsigned long long)x->remote_reads,
					(unsigned long long)x->local_reads);
				for (int i = 0; i < TLBGEN_STAT_NR; i++)
					fprintf(f, "%s\"%s\": %llu", i ? ", " : "",
						tlbgen_stat_name((enum tlbgen_stat)i),
						(unsigned long long)x->acct_stats[i]);
				fprintf(f, "}},\n     \"hw\": ");
				if (x->hw_ok) {
					fprintf(f, "{");
					for (int i = 0; i < BENCH_HW_NR; i++)
						fprintf(f, "%s\"%s\": %llu", i ? ", " : "",
							bench_hw_names[i],
							(unsigned long long)x->hw[i]);
					fprintf(f, "}");
				} else {
					fprintf(f, "null");
				}
				fprintf(f, "}");
			}
	fprintf(f, "\n  ],\n  \"mesi\": {\"emulated_cpus\": %u, \"ops\": %llu, \"seed\": %llu, "
		"\"columns\": [", c->mesi_cpus, (unsigned long long)c->mesi_ops,
		(unsigned long long)c->seed);
	for (unsigned int p = 0; p < c->nmesi; p++) {
		struct bench_mesi_result *r = &c->mesi[p];

		fprintf(f, "%s\n    {\"policy\": ", p ? "," : "");
		bench_json_str(f, c->mesi_pol[p].label);
		fprintf(f, ", \"ops\": %llu, \"flushes\": %llu, \"transfers\": %llu, "
			"\"remote_tlb_gen_reads\": %llu, \"local_tlb_gen_reads\": %llu, "
			"\"violations\": %ld,\n     \"transfers_per_line\": {",
			(unsigned long long)r->ops, (unsigned long long)r->flushes,
			(unsigned long long)r->transfers, (unsigned long long)r->remote_reads,
			(unsigned long long)r->local_reads, r->violations);
		for (int k = 0; k < TLBGEN_LINE_NR; k++)
			fprintf(f, "%s\"%s\": %llu", k ? ", " : "",
				tlbgen_line_name((enum tlbgen_line)k),
				(unsigned long long)r->line_transfers[k]);
		fprintf(f, "},\n     \"tlb_gen_line\": {\"accesses\": %llu, \"transfers\": %llu, "
			"\"downgrades\": %llu, \"shared_reads\": %llu, \"upgrades\": %llu, "
			"\"ownership\": %llu, \"invalidations\": %llu, \"cold_misses\": %llu},\n"
			"     \"counters\": {",
			(unsigned long long)r->tlb_gen.accesses,
			(unsigned long long)r->tlb_gen.transfers,
			(unsigned long long)r->tlb_gen.downgrades,
			(unsigned long long)r->tlb_gen.shared_reads,
			(unsigned long long)r->tlb_gen.upgrades,
			(unsigned long long)r->tlb_gen.ownership,
			(unsigned long long)r->tlb_gen.invalidations,
			(unsigned long long)r->tlb_gen.cold_misses);
		for (int i = 0; i < TLBGEN_STAT_NR; i++)
			fprintf(f, "%s\"%s\": %llu", i ? ", " : "",
				tlbgen_stat_name((enum tlbgen_stat)i),
				(unsigned long long)r->stats[i]);
		fprintf(f, "}}");
	}
	fprintf(f, "\n  ]},\n  \"plot\": ");
	if (c->svg_written[0])
		bench_json_str(f, c->svg_written);
	else
		fprintf(f, "null");
	fprintf(f, "\n}\n");
	fclose(f);
	printf("json: %s\n", c->json);
}

static bool have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

static void plot(struct cmp *c)
{
	FILE *g;
	bool first = true;

	if (c->no_plot)
		return;
	if (!have_gnuplot()) {
		printf("plot: skipped, gnuplot not found (Debian: apt-get install gnuplot-nox)\n");
		return;
	}
	g = popen("gnuplot", "w");
	if (!g) {
		printf("plot: skipped, cannot run gnuplot\n");
		return;
	}
	fprintf(g, "set terminal svg size 900,560 dynamic enhanced font 'sans,12'\n");
	fprintf(g, "set output '%s'\n", c->svg);
	fprintf(g, "set title \"%s (%s): ops/s vs tasks, median of %u rounds, bars min..max\" "
		"noenhanced\n", c->wl->name, c->wl->desc, c->rounds);
	fprintf(g, "set xlabel 'tasks'\nset ylabel 'ops/s'\nset grid\nset key top left "
		"noenhanced\nset yrange [0:*]\nset xtics 1\nset format y '%%.1s%%c'\nset offsets graph 0.03, graph 0.03\n");
	fprintf(g, "plot ");
	for (int m = 0; m < 2; m++)
		for (unsigned int p = 0; c->modes[m] && p < c->npol; p++) {
			fprintf(g, "%s'-' using 1:2:3:4 with yerrorlines lw 2 title '%s %s'",
				first ? "" : ", ", c->pol[p].label, mode_name(m));
			first = false;
		}
	fputc('\n', g);
	for (int m = 0; m < 2; m++)
		for (unsigned int p = 0; c->modes[m] && p < c->npol; p++) {
			for (unsigned int t = 0; t < c->ntasks; t++) {
				struct cell *x = cell(c, m, t, p);

				fprintf(g, "%u %.1f %.1f %.1f\n", c->tasks[t], x->med, x->min, x->max);
			}
			fprintf(g, "e\n");
		}
	if (pclose(g) == 0 && access(c->svg, R_OK) == 0) {
		snprintf(c->svg_written, sizeof(c->svg_written), "%s", c->svg);
		printf("plot: %s\n", c->svg);
	} else {
		printf("plot: gnuplot failed, no plot written\n");
	}
}

/* Main ----------------------------------------------------------------------- */

static void free_cmp(struct cmp *c)
{
	size_t n = (size_t)2 * c->ntasks * c->npol;

	for (size_t i = 0; c->cells && i < n; i++) {
		free(c->cells[i].ops);
		bench_round_result_free(&c->cells[i].wis);
	}
	free(c->cells);
}

int bench_compare_main(const char *wl_name, int argc, char **argv, bool seed000, bool mesi_only)
{
	enum { O_JSON = 256, O_CSV, O_SVG, O_NOPLOT, O_NOMESI, O_NOACCT, O_MESI_CPUS, O_MESI_OPS,
	       O_SEED, O_CPUS };
	static const struct option lo[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "tasks", required_argument, NULL, 't' },
		{ "mode", required_argument, NULL, 'm' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "duration", required_argument, NULL, 'd' },
		{ "sample-ms", required_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "json", required_argument, NULL, O_JSON },
		{ "csv", required_argument, NULL, O_CSV },
		{ "svg", required_argument, NULL, O_SVG },
		{ "no-plot", no_argument, NULL, O_NOPLOT },
		{ "no-mesi", no_argument, NULL, O_NOMESI },
		{ "no-acct", no_argument, NULL, O_NOACCT },
		{ "mesi-cpus", required_argument, NULL, O_MESI_CPUS },
		{ "mesi-ops", required_argument, NULL, O_MESI_OPS },
		{ "seed", required_argument, NULL, O_SEED },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ NULL, 0, NULL, 0 },
	};
	struct cmp *c = calloc(1, sizeof(*c));
	const char *prog = seed000 ? "seed000" : wl_name;
	char svgbuf[256];
	unsigned long long v;
	bool user_pol;
	int opt, ret = 2, err;

	if (!c)
		return 1;
	c->wl = bench_wis_find(wl_name);
	c->rounds = 5;
	c->mesi_cpus = 8;
	c->mesi_ops = 20000;
	c->seed = 1;
	c->seed000 = seed000;
	c->mesi_only = mesi_only;
	if (mesi_only)
		prog = "mesi";
	c->nr_cpus = bench_allowed_cpus(c->cpus, 1024);
	optind = 1;
	opterr = 1;
	while ((opt = getopt_long(argc, argv, "p:t:m:r:d:s:qh", lo, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (add_policy(c->pol, &c->npol, optarg))
				goto bad;
			break;
		case 't':
			if (parse_list(optarg, c->tasks, MAX_TASKS, &c->ntasks)) {
				bad_list("--tasks", optarg);
				goto bad;
			}
			for (unsigned int i = 0; i < c->ntasks; i++)
				if (c->tasks[i] > TLBGEN_MAX_CPUS)
					goto bad;
			break;
		case 'm':
			c->modes[0] = !strcmp(optarg, "threads") || !strcmp(optarg, "both");
			c->modes[1] = !strcmp(optarg, "processes") || !strcmp(optarg, "both");
			if (!c->modes[0] && !c->modes[1])
				goto bad;
			break;
		case 'r':
			if (bench_parse_ull("--rounds", optarg, 1, MAX_ROUNDS, &v))
				goto bad;
			c->rounds = (unsigned int)v;
			break;
		case 'd':
			if (bench_parse_ull("--duration", optarg, 10, 3600000, &v))
				goto bad;
			c->duration_ms = (unsigned int)v;
			break;
		case 's':
			if (bench_parse_ull("--sample-ms", optarg, 10, 3600000, &v))
				goto bad;
			c->sample_ms = (unsigned int)v;
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'h':
			usage(stdout, prog);
			ret = 0;
			goto out;
		case O_JSON:
			c->json = optarg;
			break;
		case O_CSV:
			c->csv = optarg;
			break;
		case O_SVG:
			c->svg = optarg;
			break;
		case O_NOPLOT:
			c->no_plot = true;
			break;
		case O_NOMESI:
			c->no_mesi = true;
			break;
		case O_NOACCT:
			c->no_acct = true;
			break;
		case O_MESI_CPUS:
			if (bench_parse_ull("--mesi-cpus", optarg, 1, 1024, &v))
				goto bad;
			c->mesi_cpus = (unsigned int)v;
			break;
		case O_MESI_OPS:
			if (bench_parse_ull("--mesi-ops", optarg, 1, 100000000, &v))
				goto bad;
			c->mesi_ops = v;
			break;
		case O_SEED:
			if (bench_parse_ull("--seed", optarg, 0, UINT64_MAX, &v))
				goto bad;
			c->seed = v;
			break;
		case O_CPUS: {
			unsigned int l[1024], n;

			if (parse_list(optarg, l, 1024, &n) && !(optarg[0] == '0' && !optarg[1])) {
				bad_list("--cpus", optarg);
				goto bad;
			}
			if (optarg[0] == '0' && !optarg[1]) {
				l[0] = 0;
				n = 1;
			}
			for (unsigned int i = 0; i < n; i++)
				c->cpus[i] = (int)l[i];
			c->nr_cpus = (int)n;
			break;
		}
		default:
			goto bad;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tlbgen-bench: unexpected argument '%s'\n", argv[optind]);
		goto bad;
	}
	user_pol = c->npol > 0;
	if (!c->npol && (add_policy(c->pol, &c->npol, "v5.17") ||
			 add_policy(c->pol, &c->npol, "v6.0")))
		goto bad;
	if (!c->ntasks) {
		c->ntasks = (unsigned int)(c->nr_cpus < MAX_TASKS ? c->nr_cpus : MAX_TASKS);
		for (unsigned int i = 0; i < c->ntasks; i++)
			c->tasks[i] = i + 1;
	}
	if (!c->modes[0] && !c->modes[1])
		c->modes[0] = true;
	if (!c->duration_ms) {
		unsigned int n = c->npol * c->ntasks * c->rounds * (c->modes[0] + c->modes[1]);

		c->duration_ms = 20000 / n;
		c->duration_ms = c->duration_ms < 200 ? 200 : c->duration_ms > 1000 ? 1000 :
				 c->duration_ms;
	}
	if (!c->sample_ms)
		c->sample_ms = c->duration_ms / 4 > 1000 ? 1000 : c->duration_ms / 4;
	if (c->sample_ms > c->duration_ms)
		c->sample_ms = c->duration_ms;
	if (!c->svg) {
		snprintf(svgbuf, sizeof(svgbuf), "%s.svg",
			 seed000 ? "tlbgen-bench-seed000" : c->wl->name);
		c->svg = svgbuf;
	}
	/* The MESI account: Nadav Amit's four columns for seed 000, else the policies. */
	if (!c->no_mesi && c->wl->flush_per_op) {
		if (seed000 && !(mesi_only && user_pol)) {
			const char *cols[] = { "v5.17", "v6.0", "v6.0:mm_tlb_gen_read=always",
					       "v6.0:mm_tlb_gen_read=never" };

			for (unsigned int i = 0; i < 4; i++)
				if (add_policy(c->mesi_pol, &c->nmesi, cols[i]))
					goto bad;
		} else {
			memcpy(c->mesi_pol, c->pol, sizeof(c->pol));
			c->nmesi = c->npol;
		}
	}
	c->cells = calloc((size_t)2 * c->ntasks * c->npol, sizeof(*c->cells));
	if (!c->cells)
		goto fail;
	for (size_t i = 0; i < (size_t)2 * c->ntasks * c->npol; i++)
		if (!(c->cells[i].ops = calloc(c->rounds, sizeof(double))))
			goto fail;

	unsigned int maxt = 0;

	for (unsigned int i = 0; i < c->ntasks; i++)
		maxt = c->tasks[i] > maxt ? c->tasks[i] : maxt;
	if (c->mesi_only)
		goto skip_header;
	printf("# tlbgen-bench %s: %s (%s), %s, tasks", prog, c->wl->name, c->wl->desc,
	       c->modes[0] && c->modes[1] ? "threads+processes" : mode_name(c->modes[1]));
	for (unsigned int i = 0; i < c->ntasks; i++)
		printf("%s%u", i ? "," : " ", c->tasks[i]);
	printf("; %u rounds x %u ms interleaved; policies:", c->rounds, c->duration_ms);
	for (unsigned int p = 0; p < c->npol; p++)
		printf(" %s", c->pol[p].label);
	printf("\n# %d real CPUs allowed; one emulated CPU (pinned pthread) per task\n",
	       c->nr_cpus);
	if (maxt > (unsigned int)c->nr_cpus)
		printf("# notice: %u emulated CPUs on %d real CPUs: oversubscribed, only counts, "
		       "not times, are meaningful\n", maxt, c->nr_cpus);
skip_header:
	fflush(stdout);

	if (c->mesi_only) {
		if (!c->nmesi || run_mesi(c))
			goto fail;
		print_mesi(c);
		if (c->json)
			write_json(c);
		ret = 0;
		for (unsigned int p = 0; p < c->nmesi; p++)
			if (c->mesi[p].violations > 0)
				ret = 1;
		goto out;
	}
	err = run_rounds(c);
	if (!err && !c->no_acct)
		err = run_acct(c);
	if (!err && c->nmesi)
		err = run_mesi(c);
	if (err)
		goto fail;
	analyse(c);
	print_wis(c);
	print_table(c);
	print_counters(c);
	printf("## will-it-scale CSV\n");
	print_csv(c, stdout);
	putchar('\n');
	if (c->csv) {
		FILE *f = fopen(c->csv, "w");

		if (f) {
			print_csv(c, f);
			fclose(f);
			printf("csv: %s\n", c->csv);
		} else {
			fprintf(stderr, "tlbgen-bench: %s: %s\n", c->csv, strerror(errno));
		}
	}
	print_lkp(c);
	print_mesi(c);
	plot(c);
	if (c->json)
		write_json(c);
	ret = 0;
	for (size_t i = 0; i < (size_t)2 * c->ntasks * c->npol; i++)
		if (c->cells[i].violations)
			ret = 1;
	for (unsigned int p = 0; p < c->nmesi; p++)
		if (c->mesi[p].violations > 0)
			ret = 1;
	if (ret)
		printf("FAILED: stale-TLB oracle violations (see 'viol' columns)\n");
	goto out;
bad:
	usage(stderr, prog);
	ret = 2;
	goto out;
fail:
	ret = 1;
out:
	free_cmp(c);
	free(c);
	return ret;
}

/* Entry points ---------------------------------------------------------------- */

int bench_seed000_main(int argc, char **argv)
{
	return bench_compare_main("tlb_flush1", argc, argv, true, false);
}

int bench_tlb_flush1_main(int argc, char **argv)
{
	return bench_compare_main("tlb_flush1", argc, argv, false, false);
}

int bench_tlb_flush2_main(int argc, char **argv)
{
	return bench_compare_main("tlb_flush2", argc, argv, false, false);
}

int bench_tlb_flush3_main(int argc, char **argv)
{
	return bench_compare_main("tlb_flush3", argc, argv, false, false);
}

int bench_page_fault3_main(int argc, char **argv)
{
	return bench_compare_main("page_fault3", argc, argv, false, false);
}

/* mesi: only the stepped coherence account (Nadav Amit's four columns). */
int bench_mesi_main(int argc, char **argv)
{
	return bench_compare_main("tlb_flush1", argc, argv, true, true);
}
