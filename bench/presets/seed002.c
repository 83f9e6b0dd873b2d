// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/presets/seed002.c - seed 002 (Alexandre Ghiti's "riscv: Add support for
 * BATCHED_UNMAP_TLB_FLUSH", 54d7431af73e, Jan 2024) as a preset in virtual
 * time on the unmatched model: the two programs of his runs on a HiFive
 * Unmatched, before (v6.7) and after (v6.8) riscv batches its unmap, beside
 * the seed's seconds.
 *
 * The programs (43b3dfdd0455's benchmark and his threaded variant): 1 MiB
 * MAP_SHARED|MAP_ANONYMOUS, 10000 times: read every page (a swap-in fault),
 * then MADV_PAGEOUT the whole (one reclaim_pages() batch of 256 pages).
 * 10000 is the count of 43b3dfdd0455's program, which the seed's single
 * figure names; the threaded program as posted loops to 500 with 10000 in
 * a comment beside it, and Nam Cao's run of its v2 (the same U74 core)
 * uses 10000, as do the seed's seconds (27.4 s at 500 rounds would be 214 us a page, 27 times
 * the single program's). The model runs fewer rounds (--rounds) and
 * scales its seconds to 10000: every round is the same work.
 * The threaded one first starts four threads pinned one per core, each
 * asleep in sleep(1): their harts idle lazily in the mm, so riscv (which
 * clears a hart's mm_cpumask bit only when it switches to another mm)
 * keeps the 3 harts other than the main thread's in the mask, and every
 * flush is a remote fence to them. The single program's mask holds the
 * harts its task ran on and left idle: unknown, an estimate (--single-lazy,
 * 1 of 0..3; the table also prints 0..3). v6.7/v6.8 reach the other harts
 * by SBI on this board (riscv_rfence=sbi, docs/machines.md "unmatched").
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "driver/env.h"
#include "workloads/reclaim-run.h"
#include "driver/results.h"
#include "run/run.h"

#define PAGES	256	/* 1 MiB */
#define SEED_ROUNDS	10000	/* the programs' own count */

static const char *const kernel[] = { "v6.7:riscv_rfence=sbi", "v6.8:riscv_rfence=sbi", NULL };
static const char *const kernel_label[] = { "v6.7", "v6.8 (54d7431af73e)" };
static const char *const prog[] = { "single", "threaded" };

/* The seed's seconds ("4 runs" each, as posted), for 10000 rounds: [program][kernel]. */
static const double seed_s[2][2] = { { 20.3, 17.9 }, { 27.4, 18.1 } };

static unsigned int rounds = 500;
static unsigned int single_lazy = 1;
static bool interval;

static const struct bench_opt seed002_opts[] = {
	{ .name = "rounds", .arg = "N", .type = BOPT_UINT, .dst = &rounds, .min = 1, .max = 500,
	  .help = "rounds run (500); seconds are scaled to the programs' 10000" },
	{ .name = "single-lazy", .arg = "K", .type = BOPT_UINT, .dst = &single_lazy, .min = 0,
	  .max = 3, .help = "harts the single program's task left lazily in mm_cpumask (1)" },
	{ .name = "interval", .type = BOPT_FLAG, .dst = &interval,
	  .help = "after the table, each figure of the machine with a stated range\n"
		  "(docs/machines.md) at its low and its high end, one at a time:\n"
		  "each program's change as an interval, and the widest figures" },
	BENCH_OPT_END,
};

static json_t *params(const char *machine, const char *program, const char *kern,
		      unsigned int lazy)
{
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:i}", "workload", "seed002", "mode", "virtual",
			 "machine", machine, "program", program, "kernel", kern, "lazy_harts",
			 (int)lazy);
}

static double get(const char *name, json_t *pa)
{
	double v = NAN;

	bench_metric_get(name, pa, &v);
	return v;
}

/* One program under one kernel: seconds for the programs' 10000 rounds, and its counts. */
static int run_one(struct bench_env *e, const char *machine, unsigned int p, unsigned int k,
		   unsigned int lazy)
{
	struct rc_cfg c = { .pages = PAGES, .rounds = rounds, .profile = e->pol[k].name,
			    .machine = &e->machine };
	double per = (double)rounds * PAGES, ns;
	json_t *pa = params(machine, prog[p], kernel_label[k], lazy);
	struct rc_counts n;

	ns = rc_virtual(&c, RC_SLEEP, lazy, "riscv", true, &n);
	if (ns < 0 || n.err) {
		fprintf(stderr, "tlbgen-bench seed002: the %s program under %s failed\n", prog[p],
			kernel_label[k]);
		json_decref(pa);
		return 1;
	}
	bench_metric("seconds", "s (10000 rounds)", "lower", pa, ns * PAGES * SEED_ROUNDS / 1e9);
	bench_metric("ns_per_page", "ns/page", "lower", pa, ns);
	bench_metric("flushes_per_page", "flushes/page", "lower", pa, (double)n.flushes / per);
	bench_metric("ipis_per_page", "IPIs/page", "lower", pa, (double)n.ipis / per);
	bench_metric("remote_flushes_per_page", "flush callbacks/page", "lower", pa,
		     (double)n.remote / per);
	bench_metric("violations", "violations", "lower", pa, (double)n.violations);
	json_decref(pa);
	return n.violations ? 1 : 0;
}

/* The change and the errors of one program, from what run_one() recorded. */
static void record_change(const char *machine, unsigned int p, unsigned int lazy, bool seed)
{
	json_t *b = params(machine, prog[p], kernel_label[0], lazy);
	json_t *a = params(machine, prog[p], kernel_label[1], lazy);
	double sb = get("seconds", b), sa = get("seconds", a);

	bench_metric("change_pct", "%", "lower", a, 100.0 * (sa / sb - 1));
	if (seed) {
		bench_metric("seed_seconds", "s", NULL, b, seed_s[p][0]);
		bench_metric("seed_seconds", "s", NULL, a, seed_s[p][1]);
		bench_metric("err_pct", "%", NULL, b, 100.0 * (sb / seed_s[p][0] - 1));
		bench_metric("err_pct", "%", NULL, a, 100.0 * (sa / seed_s[p][1] - 1));
		bench_metric("seed_change_pct", "%", NULL, a,
			     100.0 * (seed_s[p][1] / seed_s[p][0] - 1));
	}
	json_decref(a);
	json_decref(b);
}

/* The table, read back from results.json's metrics. */
static void print_table(const char *machine)
{
	printf("%37s%29s %16s\n", "", "seconds; model - seed, %", "change vs none, %");
	printf("program   kernel                  lazy     model      seed mdl-seed  model     seed"
	       "  flush/pg  ipi/pg  viol\n");
	for (unsigned int p = 0; p < 2; p++) {
		unsigned int lazy = p ? 3 : single_lazy;

		for (unsigned int k = 0; k < 2; k++) {
			json_t *pa = params(machine, prog[p], kernel_label[k], lazy);

			printf("%-9s %-22s %5u %8.2f s %7.1f s %+6.0f%%", prog[p], kernel_label[k],
			       lazy, get("seconds", pa), get("seed_seconds", pa), get("err_pct", pa));
			if (k)
				printf(" %+7.1f%% %+8.1f%%", get("change_pct", pa),
				       get("seed_change_pct", pa));
			else
				printf(" %8s %9s", "", "");
			printf("  %8.3f %7.3f %5.0f\n", get("flushes_per_page", pa),
			       get("ipis_per_page", pa), get("violations", pa));
			json_decref(pa);
		}
	}
	printf("# the single program's change by the harts its task left lazily in mm_cpumask:");
	for (unsigned int lazy = 0; lazy <= 3; lazy++) {
		json_t *pa = params(machine, prog[0], kernel_label[1], lazy);

		printf(" %u: %+.1f%%", lazy, get("change_pct", pa));
		json_decref(pa);
	}
	printf("\n");
}

/* One program's change v6.7 -> v6.8 on machine m (NAN on a failed run). */
static double change_on(struct bench_env *e, const struct tlbgen_machine *m, unsigned int lazy)
{
	double ns[2];

	for (unsigned int k = 0; k < 2; k++) {
		struct rc_cfg c = { .pages = PAGES, .rounds = rounds, .profile = e->pol[k].name,
				    .machine = m };
		struct rc_counts n;

		ns[k] = rc_virtual(&c, RC_SLEEP, lazy, "riscv", true, &n);
		if (ns[k] < 0 || n.err || n.violations)
			return NAN;
	}
	return 100.0 * (ns[1] / ns[0] - 1);
}

/* Whether the --machine spec sets `field` itself (then it is the user's, not varied). */
static bool spec_sets(const char *spec, const char *field)
{
	const char *s = strchr(spec, ':');
	size_t n = strlen(field);

	for (s = s ? s + 1 : NULL; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
		if (!strncmp(s, field, n) && s[n] == '=')
			return true;
	return false;
}

/*
 * --interval: each figure with a stated range at its low and its high end,
 * the others at their points (as seed000's --interval; one run each, the
 * runs are deterministic; a field the spec sets is not varied): the change's
 * interval is the point plus the effects below it and above it, summed (a
 * linear bound, not a confidence interval).
 */
static int run_interval(struct bench_env *e, const char *machine)
{
	struct tlbgen_machine_range r[64];
	int nr = tlbgen_machine_ranges(e->machine.name, r, 64);

	if (nr <= 0) {
		fprintf(stderr, "tlbgen-bench seed002: --interval: machine '%s' has no stated "
			"ranges\n", e->machine.name);
		return 2;
	}
	for (unsigned int p = 0; p < 2; p++) {
		unsigned int lazy = p ? 3 : single_lazy;
		json_t *pa = params(machine, prog[p], kernel_label[1], lazy);
		double pt = get("change_pct", pa), lo = 0, hi = 0;

		for (int i = 0; i < nr && i < 64; i++) {
			double ch[2];

			if (spec_sets(machine, r[i].field))
				continue;

			for (int end = 0; end < 2; end++) {
				struct tlbgen_machine m;
				char spec[256];

				snprintf(spec, sizeof(spec), "%s%s%s=%lu", machine,
					 strchr(machine, ':') ? "," : ":", r[i].field,
					 end ? r[i].high : r[i].low);
				if (tlbgen_machine_lookup(spec, &m))
					return 2;
				ch[end] = change_on(e, &m, lazy);
				if (isnan(ch[end]))
					return 1;
			}
			json_t *pf = json_deep_copy(pa);

			json_object_set_new(pf, "figure", json_string(r[i].field));
			bench_metric("figure_low_change_pct", "%", NULL, pf, ch[0]);
			bench_metric("figure_high_change_pct", "%", NULL, pf, ch[1]);
			bench_metric("figure_swing_change_pct", "points", NULL, pf, fabs(ch[1] - ch[0]));
			json_decref(pf);
			for (int end = 0; end < 2; end++) {
				lo += fmin(ch[end] - pt, 0);
				hi += fmax(ch[end] - pt, 0);
			}
		}
		bench_metric("change_interval_low_pct", "%", NULL, pa, pt + lo);
		bench_metric("change_interval_high_pct", "%", NULL, pa, pt + hi);
		json_decref(pa);
	}
	return 0;
}

/* The interval block, from results.json: each program's interval, then its
 * figures by swing, widest first. */
static void print_interval(const char *machine, const char *model)
{
	struct tlbgen_machine_range r[64];
	int nr = tlbgen_machine_ranges(model, r, 64);

	printf("# interval: each figure with a stated range (docs/machines.md) at its low and "
	       "high end,\n#   one at a time; the effects below and above the point summed\n");
	for (unsigned int p = 0; p < 2; p++) {
		unsigned int lazy = p ? 3 : single_lazy;
		json_t *pa = params(machine, prog[p], kernel_label[1], lazy);
		bool used[64] = { false };

		printf("%-9s change %+.1f%%, interval %+.1f..%+.1f%%; widest:", prog[p],
		       get("change_pct", pa), get("change_interval_low_pct", pa),
		       get("change_interval_high_pct", pa));
		for (int n = 0; n < 5 && n < nr; n++) {
			int best = -1;
			double bw = -1;

			for (int i = 0; i < nr && i < 64; i++) {
				json_t *pf = json_deep_copy(pa);
				double w;

				json_object_set_new(pf, "figure", json_string(r[i].field));
				w = get("figure_swing_change_pct", pf);
				json_decref(pf);
				if (!used[i] && w > bw)
					bw = w, best = i;
			}
			if (best < 0)
				break;
			used[best] = true;
			printf(" %s %.1f", r[best].field, bw);
		}
		printf("\n");
		json_decref(pa);
	}
}

static int seed002_run(struct bench_env *e)
{
	const char *machine = e->machine_spec ? e->machine_spec : "unmatched";
	int rc = 0;

	if (e->given & BENCH_O_POLICY) {
		fprintf(stderr, "tlbgen-bench seed002: its columns are the seed's kernels (v6.7, "
			"v6.8, riscv_rfence=sbi); -p is not taken\n");
		return 2;
	}
	if (!bench_modes(e) || bench_env_policies(e, kernel) || bench_env_machine(e, machine))
		return 2;
	if (e->machine.sockets * e->machine.cores_per_socket < 4) {
		fprintf(stderr, "tlbgen-bench seed002: --machine %s: the programs need 4 CPUs\n",
			machine);
		return 2;
	}
	bench_meta_param("rounds", json_integer(rounds));
	bench_meta_param("pages", json_integer(PAGES));
	bench_meta_param("single_lazy", json_integer(single_lazy));
	bench_env_meta_machine(e, BENCH_M_VIRTUAL);
	/* The threaded program: 3 other harts; the single one: 0..3, its point first. */
	for (unsigned int k = 0; k < 2 && !rc; k++)
		rc |= run_one(e, machine, 1, k, 3);
	for (unsigned int lazy = 0; lazy <= 3 && !rc; lazy++)
		for (unsigned int k = 0; k < 2 && !rc; k++)
			rc |= run_one(e, machine, 0, k, lazy);
	if (rc)
		return 1;
	record_change(machine, 1, 3, true);
	for (unsigned int lazy = 0; lazy <= 3; lazy++)
		record_change(machine, 0, lazy, lazy == single_lazy);
	printf("# seed 002: 1 MiB MAP_SHARED|MAP_ANONYMOUS, %u rounds of read every page + "
	       "MADV_PAGEOUT, on %s\n# (seconds scaled to the programs' 10000 rounds); remote "
	       "sfence.vma by SBI; lazy: other harts\n# in mm_cpumask (threaded: the 3 sleeping "
	       "threads' harts; single: an estimate, 0..3)\n", rounds, machine);
	print_table(machine);
	if (!interval)
		return 0;
	rc = run_interval(e, machine);
	if (!rc)
		print_interval(machine, e->machine.name);
	return rc;
}

const struct bench bench_seed002 = {
	.name = "seed002",
	.summary = "seed 002: riscv batched unmap (54d7431af73e), MADV_PAGEOUT on the HiFive "
		   "Unmatched (virtual)",
	.help = "Seed 002 (Alexandre Ghiti, 2024: riscv selects\n"
		"ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH). 43b3dfdd0455's benchmark (1 MiB\n"
		"MAP_SHARED|MAP_ANONYMOUS, 10000 x read every page then MADV_PAGEOUT) and its\n"
		"variant with a sleeping thread pinned per core, under v6.7 and v6.8 on the\n"
		"unmatched model (remote sfence.vma by SBI): seconds beside the seed's\n"
		"20.3 -> 17.9 s and 27.4 -> 18.1 s.\n",
	.shared = BENCH_O_MODE | BENCH_O_MACHINE | BENCH_O_JSON,
	.modes = BENCH_M_VIRTUAL,
	.default_modes = BENCH_M_VIRTUAL,
	.opts = seed002_opts,
	.modes_why = "it is a machine model's table (the SBI call is only costed in virtual "
		     "time)",
	.run = seed002_run,
};
BENCH_COMMAND(bench_seed002);
