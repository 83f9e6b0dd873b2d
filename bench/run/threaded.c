// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/run/threaded.c - an op-based workload on real threads, its policies
 * compared in one run.
 *
 * Rounds are interleaved (for each round: for each task count: policy A,
 * B, A, B ...) so that machine noise (on this class of VM cross-core latency
 * jumps fivefold mid-run) hits every policy alike. Per policy and task count:
 * ops/s min/mean/max over the rounds, % change of the mean against the
 * first policy with its 95% confidence interval and Welch's t-test (all
 * three about the mean), with the counters that explain it; then the
 * stepped MESI account (run-stepped.c), and will-it-scale / CSV / LKP /
 * JSON / SVG output.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "driver/cell.h"
#include "driver/common.h"
#include "driver/env.h"
#include "driver/output.h"
#include "report/report-threaded-out.h"
#include "report/report-threaded-plot.h"
#include "report/report-threaded.h"
#include "driver/results.h"
#include "round.h"
#include "run-stepped.h"
#include "driver/threaded-opts.h"
#include "threaded-run.h"
#include "threaded.h"

static unsigned long long ns(uint32_t cycles)
{
	const struct tlbgen_machine *m = &bench_env()->machine;

	return m->mhz ? (unsigned long long)cycles * 1000 / m->mhz : 0;
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
		x->round_samples[x->nr] = r->nr_samples;
	}
	x->ops[x->nr++] = r->ops_per_sec;
	x->global_asid = r->global_asid;
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
						.ops = c->ops, .profile = c->pol[p].name,
						.tasks = c->tasks[t], .processes = m,
						.duration_ms = c->duration_ms,
						.sample_ms = c->sample_ms, .cpus = c->cpus,
						.nr_cpus = c->nr_cpus, .hw = &c->hw_probe,
						.warmup_samples = c->warmup,
						.invlpgb = c->invlpgb, .no_pcid = c->no_pcid,
						.kwork = c->kwork_on ? &c->kwork : NULL,
					};
					struct bench_round_result r;
					int err;

					bench_progress(&c->pg,
						       "[%3u%%] round %u/%u %s %s tasks=%u %s (%.0f s)",
						       100 * done / total, round + 1, c->rounds,
						       c->name, mode_name(m), c->tasks[t],
						       c->pol[p].label,
						       (double)(bench_now_ns() - t0) / 1e9);
					err = bench_round_run(&o, &r);
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
					.ops = c->ops, .profile = c->pol[p].name,
					.tasks = c->tasks[t], .processes = m,
					.duration_ms = d, .sample_ms = d, .cpus = c->cpus,
					.nr_cpus = c->nr_cpus, .trace_reads = true,
					.invlpgb = c->invlpgb, .no_pcid = c->no_pcid,
				};
				struct bench_round_result r;
				struct cell *x = cell(c, m, t, p);
				int err;

				bench_progress(&c->pg, "accounting pass %s tasks=%u %s",
					       mode_name(m), c->tasks[t], c->pol[p].label);
				err = bench_round_run(&o, &r);
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

/* The stepped MESI account: the workload's ops under each column's policy. */
static int run_mesi(struct cmp *c)
{
	for (unsigned int p = 0; p < c->nmesi; p++) {
		struct bench_sspec s = { .ops = c->ops, .profile = c->mesi_pol[p].name,
					 .threads = c->mesi_cpus, .ops_total = c->mesi_ops,
					 .seed = c->seed, .invlpgb = c->invlpgb,
					 .no_pcid = c->no_pcid };
		int err;

		bench_progress(&c->pg, "MESI account %s (%u emulated CPUs, %llu ops)",
			       c->mesi_pol[p].label, c->mesi_cpus, (unsigned long long)c->mesi_ops);
		err = bench_scell_run(&s, &c->mesi[p]);
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

				double d, lo, hi;

				bench_min_med_max(x->ops, x->nr, &x->min, &x->med, &x->max);
				bench_mean_sd(x->ops, x->nr, &x->mean, &x->sd);
				x->change = p && b->mean > 0 ? 100 * (x->mean / b->mean - 1) : 0;
				x->p = x->ci_lo = x->ci_hi = NAN;
				if (p && bench_welch(b->ops, b->nr, x->ops, x->nr, &d, &lo, &hi,
						     &x->p) && b->mean > 0) {
					/* The interval of the difference of means, relative
					 * to the baseline's mean like `change`. */
					x->ci_lo = 100 * lo / b->mean;
					x->ci_hi = 100 * hi / b->mean;
				}
			}
}

static void free_cmp(struct cmp *c)
{
	size_t n = (size_t)2 * c->ntasks * c->npol;

	for (size_t i = 0; c->cells && i < n; i++) {
		free(c->cells[i].ops);
		free(c->cells[i].round_samples);
		bench_round_result_free(&c->cells[i].wis);
	}
	free(c->cells);
}

static int alloc_cells(struct cmp *c)
{
	size_t n = (size_t)2 * c->ntasks * c->npol;

	c->cells = calloc(n, sizeof(*c->cells));
	if (!c->cells)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!(c->cells[i].ops = calloc(c->rounds, sizeof(double))) ||
		    !(c->cells[i].round_samples = calloc(c->rounds, sizeof(unsigned int))))
			return -ENOMEM;
	return 0;
}

static void print_header(struct cmp *c)
{
	printf("# tlbgen-bench %s: %s (%s), %s, tasks", c->prog, c->name, c->ops->desc,
	       c->modes[0] && c->modes[1] ? "threads+processes" : mode_name(c->modes[1]));
	for (unsigned int i = 0; i < c->ntasks; i++)
		printf("%s%u", i ? "," : " ", c->tasks[i]);
	printf("; %u rounds x %u ms interleaved (after %u warm-up sample%s of %u ms); policies:",
	       c->rounds, c->duration_ms, c->warmup, c->warmup == 1 ? "" : "s", c->sample_ms);
	for (unsigned int p = 0; p < c->npol; p++)
		printf(" %s", c->pol[p].label);
	printf("\n# %d real CPUs allowed; one emulated CPU (pinned pthread) per task\n",
	       c->nr_cpus);
	if (c->kwork_on) {
		const struct tlbgen_machine *m = &c->kwork;
		char desc[512];

		tlbgen_machine_describe(&c->kwork, desc, sizeof(desc));
		printf("# kernel work per event (--machine %s; off: the flush path alone), burnt "
		       "as busy-waits with IRQs on in the timed rounds:\n#   fault %llu ns, syscall "
		       "%llu ns, PTL %llu ns, zap %llu ns, user %llu ns; machine %s\n",
		       c->kwork_spec, ns(m->page_fault), ns(m->syscall), ns(m->ptl), ns(m->zap),
		       ns(m->user_work), desc);
	} else {
		printf("# kernel work per op: off (the emulated flush path alone)\n");
	}
}

/* 0, or 1 when an output file could not be written. */
static int report(struct cmp *c)
{
	int ret = 0;

	/* Every figure into results.json first: what follows reads it back. */
	cmp_record(c);
	cmp_print_wis(c);
	cmp_print_table(c);
	cmp_print_counters(c);
	if (c->invlpgb)
		cmp_print_invlpgb(c);
	printf("## will-it-scale CSV\n");
	for (unsigned int p = 0; p < c->npol; p++) {
		printf("# %s, policy %s\n", c->name, c->pol[p].label);
		cmp_print_csv(c, p, stdout);
	}
	putchar('\n');
	ret |= cmp_write_csv(c);
	cmp_print_lkp(c);
	cmp_print_mesi(c);
	ret |= cmp_plot(c);
	return ret;
}

static int run_all(struct cmp *c)
{
	int err, ret;

	err = run_rounds(c);
	if (!err && !c->no_acct)
		err = run_acct(c);
	if (!err && c->nmesi)
		err = run_mesi(c);
	if (err)
		return 1;
	analyse(c);
	ret = report(c);
	for (unsigned int p = 0; p < c->nmesi; p++)
		ret |= c->mesi[p].violations > 0;
	for (size_t i = 0; i < (size_t)2 * c->ntasks * c->npol; i++)
		if (c->cells[i].violations)
			ret = 1;
	if (ret)
		printf("FAILED: stale-TLB oracle violations (see 'viol' columns)\n");
	return ret;
}

/* "0,2,4-7": real CPU numbers (unlike task counts, 0 is one). */
static int parse_cpus(struct cmp *c, const char *arg)
{
	const char *s = arg;
	char *end;

	c->nr_cpus = 0;
	while (*s) {
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0 || a > 4095)
			goto bad;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b > 4095)
				goto bad;
		}
		for (long i = a; i <= b; i++) {
			if (c->nr_cpus >= 1024)
				goto bad;
			c->cpus[c->nr_cpus++] = (int)i;
		}
		if (*end && *end != ',')
			goto bad;
		s = end + (*end == ',');
	}
	if (c->nr_cpus)
		return 0;
bad:
	fprintf(stderr, "tlbgen-bench: --cpus: '%s' is not a list of CPUs (e.g. 0,2 or 0-3)\n",
		arg);
	return -EINVAL;
}

/* What was not given: from the other options and the machine. */
static int fill_defaults(struct cmp *c)
{
	struct bench_env *e = c->e;

	c->rounds = bench_threaded_cfg.rounds;
	c->warmup = e->warmup_given ? e->warmup_ms : 1;
	c->mesi_cpus = bench_threaded_cfg.mesi_cpus;
	c->mesi_ops = bench_threaded_cfg.mesi_ops;
	c->csv = bench_threaded_cfg.csv;
	c->svg = bench_threaded_cfg.svg;
	c->no_plot = bench_threaded_cfg.no_plot;
	c->no_acct = bench_threaded_cfg.no_acct;
	c->no_mesi = bench_threaded_cfg.no_mesi || !c->ops->flushes;
	c->quiet = e->quiet;
	c->verbose = e->verbose;
	c->seed = e->seed;
	c->invlpgb = e->invlpgb;
	c->no_pcid = e->no_pcid;
	c->nr_cpus = bench_allowed_cpus(c->cpus, 1024);
	if (bench_threaded_cfg.cpus && parse_cpus(c, bench_threaded_cfg.cpus))
		return -EINVAL;
	c->duration_ms = bench_threaded_cfg.duration_ms;
	if (!c->duration_ms) {
		unsigned int n = c->npol * c->ntasks * c->rounds * (c->modes[0] + c->modes[1]);

		c->duration_ms = 20000 / n;
		c->duration_ms = c->duration_ms < 200 ? 200 : c->duration_ms > 1000 ? 1000 :
				 c->duration_ms;
	}
	c->sample_ms = bench_threaded_cfg.sample_ms;
	if (!c->sample_ms)
		c->sample_ms = c->duration_ms / 4 > 1000 ? 1000 : c->duration_ms / 4;
	if (c->sample_ms > c->duration_ms)
		c->sample_ms = c->duration_ms;
	if (!c->svg && bench_results_path(c->svg_default, sizeof(c->svg_default), "throughput.svg"))
		c->svg = c->svg_default;
	/* Before the run: a path that cannot be written is a bad argument. */
	if (c->svg && !c->no_plot && bench_check_output("--svg", c->svg))
		return -EINVAL;
	for (unsigned int p = 0; c->csv && p < c->npol; p++) {
		char path[4096 + 256];

		cmp_csv_path(c, p, path, sizeof(path));
		if (bench_check_output("--csv", path))
			return -EINVAL;
	}
	/* --machine: the costs the timed rounds burn as kernel work (host: this
	 * kernel's, measured now; off: the emulated flush path alone). */
	c->kwork_spec = e->machine_spec ? e->machine_spec : "host";
	if (bench_env_machine(e, "host"))
		return -EINVAL;
	c->kwork = e->machine;
	c->kwork_on = c->kwork.mhz != 0;
	/* The MESI account: a preset's columns, else the run's policies. */
	if (c->no_mesi)
		return 0;
	for (const char *const *s = bench_threaded_mesi_cols; s && *s; s++)
		if (bench_policy_parse(*s, &c->mesi_pol[c->nmesi++]))
			return -EINVAL;
	if (!c->nmesi) {
		memcpy(c->mesi_pol, c->pol, sizeof(*c->pol) * c->npol);
		c->nmesi = c->npol;
	}
	return 0;
}

int bench_threaded_run(struct bench_env *e, const char *workload, const struct bench_ops *ops,
		       unsigned int modes)
{
	struct cmp *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return 1;
	*c = (struct cmp){ .name = workload, .ops = ops, .prog = e->cmd->name, .e = e,
			   .pol = e->pol, .npol = e->npol, .tasks = e->threads };
	if (!e->nthreads) {
		long nproc = bench_allowed_cpus(c->cpus, 1024);

		for (long i = 1; i <= nproc && e->nthreads < MAX_TASKS; i++)
			e->threads[e->nthreads++] = (unsigned int)i;
	}
	c->ntasks = e->nthreads;
	c->modes[0] = modes & BENCH_M_THREADS;
	c->modes[1] = modes & BENCH_M_PROCESSES;
	if (fill_defaults(c)) {
		free(c);
		return 2;
	}
	if (alloc_cells(c)) {
		ret = 1;
	} else {
		print_header(c);
		fflush(stdout);
		ret = run_all(c);
	}
	free_cmp(c);
	free(c);
	return ret;
}
