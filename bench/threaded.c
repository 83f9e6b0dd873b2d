// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/compare.c - policies compared in one run.
 *
 * Rounds are interleaved (for each round: for each task count: policy A,
 * B, A, B ...) so that machine noise (on this class of VM cross-core latency
 * jumps fivefold mid-run) hits every policy alike. Per policy and task count:
 * ops/s min/mean/max over the rounds, % change of the mean against the
 * first policy with its 95% confidence interval and Welch's t-test (all
 * three about the mean), with the counters that explain it; then a
 * stepped MESI coherence account, and will-it-scale / CSV / LKP / JSON / SVG
 * output.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

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
						.wl = c->wl, .profile = c->pol[p].name,
						.tasks = c->tasks[t], .processes = m,
						.duration_ms = c->duration_ms,
						.sample_ms = c->sample_ms, .cpus = c->cpus,
						.nr_cpus = c->nr_cpus, .hw = &c->hw_probe,
						.warmup_samples = c->warmup,
						.invlpgb = c->invlpgb,
						.kw_fault_ns = c->kw_fault_ns,
						.kw_syscall_ns = c->kw_syscall_ns,
						.kw_zap_ns = c->kw_zap_ns,
						.kw_user_ns = c->kw_user_ns,
					};
					struct bench_round_result r;
					int err;

					bench_progress(&c->pg,
						       "[%3u%%] round %u/%u %s %s tasks=%u %s (%.0f s)",
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
					.invlpgb = c->invlpgb,
				};
				struct bench_round_result r;
				struct cell *x = cell(c, m, t, p);
				int err;

				bench_progress(&c->pg, "accounting pass %s tasks=%u %s",
					       mode_name(m), c->tasks[t], c->pol[p].label);
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

		bench_progress(&c->pg, "MESI account %s (%u emulated CPUs, %llu ops)",
			       c->mesi_pol[p].label, c->mesi_cpus, (unsigned long long)c->mesi_ops);
		err = bench_wis_mesi(c->wl, c->mesi_pol[p].name, c->mesi_cpus, c->mesi_ops, c->seed,
				     c->invlpgb, &c->mesi[p]);
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

static int alloc_cells(struct cmp *c)
{
	size_t n = (size_t)2 * c->ntasks * c->npol;

	c->cells = calloc(n, sizeof(*c->cells));
	if (!c->cells)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!(c->cells[i].ops = calloc(c->rounds, sizeof(double))))
			return -ENOMEM;
	return 0;
}

static void print_header(struct cmp *c)
{
	unsigned int maxt = 0;

	for (unsigned int i = 0; i < c->ntasks; i++)
		maxt = c->tasks[i] > maxt ? c->tasks[i] : maxt;
	printf("# tlbgen-bench %s: %s (%s), %s, tasks", c->prog, c->wl->name, c->wl->desc,
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
		char desc[512];

		tlbgen_machine_describe(&c->kwork, desc, sizeof(desc));
		printf("# kernel work per op (--kernel-work %s; off: the flush path alone), burnt "
		       "as busy-waits in the timed rounds:\n#   fault %llu ns, madvise syscall+PTL "
		       "%llu ns, zap %llu ns, user %llu ns; machine %s\n",
		       c->kwork_spec, (unsigned long long)c->kw_fault_ns,
		       (unsigned long long)c->kw_syscall_ns, (unsigned long long)c->kw_zap_ns,
		       (unsigned long long)c->kw_user_ns, desc);
	} else {
		printf("# kernel work per op: off (the emulated flush path alone)\n");
	}
	if (maxt > (unsigned int)c->nr_cpus)
		printf("# notice: %u emulated CPUs on %d real CPUs: oversubscribed, only counts, "
		       "not times, are meaningful\n", maxt, c->nr_cpus);
}

/* 1 if the MESI account saw oracle violations. */
static int mesi_status(const struct cmp *c)
{
	for (unsigned int p = 0; p < c->nmesi; p++)
		if (c->mesi[p].violations > 0)
			return 1;
	return 0;
}

/* `tlbgen-bench mesi`: the stepped coherence account alone. */
static int run_mesi_only(struct cmp *c)
{
	int ret;

	if (!c->nmesi || run_mesi(c))
		return 1;
	cmp_print_mesi(c);
	cmp_record(c);
	ret = cmp_write_json(c);
	return mesi_status(c) | ret;
}

/* 0, or 1 when an output file could not be written. */
static int report(struct cmp *c)
{
	int ret = 0;

	cmp_print_wis(c);
	cmp_print_table(c);
	cmp_print_counters(c);
	if (c->invlpgb)
		cmp_print_invlpgb(c);
	printf("## will-it-scale CSV\n");
	for (unsigned int p = 0; p < c->npol; p++) {
		printf("# %s, policy %s\n", c->wl->name, c->pol[p].label);
		cmp_print_csv(c, p, stdout);
	}
	putchar('\n');
	ret |= cmp_write_csv(c);
	cmp_print_lkp(c);
	cmp_print_mesi(c);
	ret |= cmp_plot(c);
	cmp_record(c);
	ret |= cmp_write_json(c);
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
	ret |= mesi_status(c);
	for (size_t i = 0; i < (size_t)2 * c->ntasks * c->npol; i++)
		if (c->cells[i].violations)
			ret = 1;
	if (ret)
		printf("FAILED: stale-TLB oracle violations (see 'viol' columns)\n");
	return ret;
}

int bench_compare_main(const char *wl_name, int argc, char **argv, bool seed000, bool mesi_only)
{
	struct cmp *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return 1;
	ret = cmp_parse_args(c, wl_name, seed000, mesi_only, argc, argv);
	if (ret) {
		ret = ret > 0 ? 0 : 2;
	} else if (alloc_cells(c)) {
		ret = 1;
	} else {
		if (!c->mesi_only)
			print_header(c);
		fflush(stdout);
		ret = c->mesi_only ? run_mesi_only(c) : run_all(c);
	}
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
