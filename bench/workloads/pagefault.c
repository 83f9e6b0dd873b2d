// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/pagefault.c - seed 003: will-it-scale page_fault3 ("Separate file
 * shared mapping page fault") with the retried write fault of 89b15332af7c
 * (the loop: bench/workloads/pagefault-run.c), timed on the threaded runtime
 * (threads, processes), counted stepped, or timed in virtual time.
 *   processes: one mm per task (separate processes): flushes stay local;
 *   threads:   one mm for all tasks: a generic spurious-fault flush is a
 *              flush_tlb_page() that IPIs every other CPU running the mm.
 * Variants: flush_tlb_fix_spurious_fault = generic | local | noop, each
 * before and after b7333b58f358 (spurious_skip_tried off/on). Timed rounds
 * are interleaved; ops/s is the median over rounds, the ratio is against
 * noop/after in the same mode and task count (the last variant).
 * --arch arm64 runs arm64's fault path (fault_arch): its hook is the
 * profile's (a no-op from v5.10, a local TLBI+DSB from cb1fa2e99955), so
 * there is one hook row per mode; timed, the oracle is off (arm64's
 * broadcast TLBIs edit remote simulated TLBs only in stepped mode).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "driver/common.h"
#include "driver/env.h"
#include "report/plot.h"
#include "pagefault-run.h"
#include "driver/results.h"
#include "run/run.h"

/* Options ------------------------------------------------------------------ */

static bool no_plot;
static struct pf_cfg o = { .pages = 1024, .loops = 4, .retry_pct = 100, .rounds = 3,
			   .arch = "x86" };

static int opt_arch(const char *opt, const char *arg)
{
	if (strcmp(arg, "x86") && strcmp(arg, "arm64") && strcmp(arg, "generic")) {
		fprintf(stderr, "tlbgen-bench pagefault: %s: '%s' is not one of x86, arm64, "
			"generic\n", opt, arg);
		return -EINVAL;
	}
	o.arch = arg;
	return 0;
}

static const struct bench_opt pagefault_opts[] = {
	{ .name = "pages", .arg = "N", .type = BOPT_U64, .dst = &o.pages, .min = 1,
	  .max = 1UL << 24, .help = "pages per task mapping (1024; will-it-scale maps\n"
				     "128 MiB = 32768)" },
	{ .name = "loops", .arg = "N", .type = BOPT_UINT, .dst = &o.loops, .min = 1,
	  .max = UINT_MAX, .help = "map/write/munmap loops per task (4)" },
	{ .name = "retry-pct", .arg = "P", .type = BOPT_UINT, .dst = &o.retry_pct, .min = 0,
	  .max = 100, .help = "first write attempts returning VM_FAULT_RETRY (100, as\n"
			      "89b15332af7c)" },
	{ .name = "rounds", .arg = "N", .type = BOPT_UINT, .dst = &o.rounds, .min = 1,
	  .max = PF_MAX_ROUNDS, .help = "threads/processes: interleaved rounds, median ops/s (3)" },
	{ .name = "arch", .arg = "A", .type = BOPT_FN, .fn = opt_arch,
	  .help = "fault path: x86|arm64|generic (x86); arm64 runs the profile's\n"
		  "own hook (timed: with the oracle off)" },
	{ .name = "no-plot", .type = BOPT_FLAG, .dst = &no_plot, .help = "draw no plot" },
	{ .name = "spend", .type = BOPT_FLAG, .dst = &o.spend,
	  .help = "threads/processes: burn the cost model's cycles as busy-waits" },
	BENCH_OPT_END,
};

/* Rows: a mode, its mm shape and a task count; each of the variants. */
struct pf_row {
	unsigned int mode;		/* BENCH_M_STEPPED, _THREADS, _PROCESSES or _VIRTUAL */
	bool shared_mm;
	unsigned int tasks;
};

struct pf_plan {
	struct pf_row row[6 * BENCH_MAX_THREADS];
	unsigned int nrow;
	const char *hooks[3], *labels[3];
	int nh;
	const char *policy;		/* its label */
	struct pf_result (*res)[3][2];
};

static json_t *params(const struct pf_plan *pl, const struct pf_row *r, int h, int a)
{
	return json_pack("{s:s,s:s,s:i,s:s,s:s,s:s}", "mode", bench_mode_name(r->mode), "shape",
			 r->shared_mm ? "threads" : "processes", "tasks", (int)r->tasks, "hook",
			 pl->labels[h], "b7333b58f358", a ? "after" : "before", "policy",
			 pl->policy);
}

static double get(const char *name, json_t *pa)
{
	double v = 0;

	return bench_metric_get(name, pa, &v) ? v : 0;
}

static double meta(const char *key)
{
	return json_number_value(bench_meta_param_get(key));
}

/* results.json: a row's variants, counters per op of the last run; timed,
 * the rounds' ops/s, their median and its ratio to the last variant's. */
static void record_row(const struct pf_plan *pl, unsigned int i, unsigned int rounds)
{
	const struct pf_row *r = &pl->row[i];
	double base = 0;

	for (int h = pl->nh - 1; h >= 0; h--)
		for (int a = 1; a >= 0; a--) {
			const struct pf_result *x = &pl->res[i][h][a];
			double ops = x->ops ? (double)x->ops : 1, mn, med, mx;
			json_t *pa = params(pl, r, h, a);

			bench_metric("faults_per_op", "faults/op", NULL, pa,
				     x->fst[TLBGEN_FAULT_STAT_FAULTS] / ops);
			bench_metric("retries_per_op", "retries/op", NULL, pa,
				     x->fst[TLBGEN_FAULT_STAT_RETURN_RETRY] / ops);
			bench_metric("spurious_faults_per_op", "faults/op", "lower", pa,
				     x->fst[TLBGEN_FAULT_STAT_SPURIOUS] / ops);
			bench_metric("spurious_flushes_per_op", "flushes/op", "lower", pa,
				     x->fst[TLBGEN_FAULT_STAT_SPURIOUS_FLUSH] / ops);
			bench_metric("ipis_per_op", "IPIs/op", "lower", pa,
				     x->st[TLBGEN_STAT_IPI_SENT] / ops);
			/* csds queued: an IPI is raised only for the first of a queue. */
			bench_metric("csds_per_op", "csds/op", "lower", pa,
				     x->st[TLBGEN_STAT_CALL_QUEUED] / ops);
			bench_metric("flushes_per_op", "flushes/op", "lower", pa,
				     x->st[TLBGEN_STAT_FLUSH_INITIATED] / ops);
			bench_metric("tlbi_per_op", "TLBI/op", "lower", pa, x->st[TLBGEN_STAT_TLBI] / ops);
			bench_metric("dsb_per_op", "DSB/op", "lower", pa, x->st[TLBGEN_STAT_DSB] / ops);
			bench_metric("violations", "violations", "lower", pa, (double)x->violations);
			if (r->mode != BENCH_M_STEPPED) {
				/* Virtual time is one deterministic run. */
				unsigned int n = r->mode == BENCH_M_VIRTUAL ? 1 : rounds;

				bench_metric_samples("ops_per_sec", "ops/s", "higher", pa, x->ops_per_sec,
						     n);
				bench_min_med_max(x->ops_per_sec, n, &mn, &med, &mx);
				bench_metric("median_ops_per_sec", "ops/s", "higher", pa, med);
				if (h == pl->nh - 1 && a == 1)
					base = med;
				bench_metric("ops_per_sec_ratio", "ratio", "higher", pa,
					     base > 0 ? med / base : 0);
			}
			json_decref(pa);
		}
}

/* A row's lines, from results.json. */
static void print_row(const struct pf_plan *pl, unsigned int i)
{
	const struct pf_row *r = &pl->row[i];
	char ops[24], ratio[16];

	for (int h = 0; h < pl->nh; h++)
		for (int a = 0; a < 2; a++) {
			json_t *pa = params(pl, r, h, a);

			snprintf(ops, sizeof(ops), "-");
			snprintf(ratio, sizeof(ratio), "-");
			if (r->mode != BENCH_M_STEPPED) {
				snprintf(ops, sizeof(ops), "%.0f", get("median_ops_per_sec", pa));
				snprintf(ratio, sizeof(ratio), "%.2f", get("ops_per_sec_ratio", pa));
			}
			printf("%-9s %-9s %5d %-8s %-13s %9.3f %10.3f %11.3f %13.3f %9.3f %11.4f "
			       "%8.3f %8.3f %12s %7s%s\n", bench_mode_name(r->mode),
			       r->shared_mm ? "threads" : "processes", (int)r->tasks, pl->labels[h],
			       a ? "after" : "before", get("faults_per_op", pa),
			       get("retries_per_op", pa), get("spurious_faults_per_op", pa),
			       get("spurious_flushes_per_op", pa), get("ipis_per_op", pa),
			       get("flushes_per_op", pa), get("tlbi_per_op", pa),
			       get("dsb_per_op", pa), ops, ratio,
			       get("violations", pa) ? "  ORACLE VIOLATIONS" : "");
			json_decref(pa);
		}
}

/* The plot (variants.svg), from results.json: a panel per mode and mm
 * shape, a series per variant over the task counts: the median ops/s where
 * timed, IPIs per op stepped. */
static int plot(const struct pf_plan *pl)
{
	char title[256], t[96];
	struct bench_plot *p;
	int panel[4][2], ret;

	snprintf(title, sizeof(title), "seed 003: page_fault3 with retried faults, policy %s, "
		 "fault path %s", pl->policy, o.arch);
	p = bench_plot_new("variants", title, "tasks");
	if (!p)
		return 1;
	for (unsigned int m = 0; m < 4; m++)
		panel[m][0] = panel[m][1] = -1;
	for (unsigned int i = 0; i < pl->nrow; i++) {
		const struct pf_row *r = &pl->row[i];
		unsigned int m = r->mode == BENCH_M_STEPPED ? 0 : r->mode == BENCH_M_THREADS ? 1 :
				 r->mode == BENCH_M_PROCESSES ? 2 : 3;
		int *pn = &panel[m][r->shared_mm];

		if (*pn < 0) {
			snprintf(t, sizeof(t), "%s, %s: %s", bench_mode_name(r->mode),
				 r->shared_mm ? "one mm" : "an mm per task",
				 m ? "median ops/s" : "IPIs per op");
			*pn = bench_plot_panel(p, t, m ? "ops/s" : "IPIs/op", BENCH_PLOT_FROM_ZERO);
			for (int h = 0; h < pl->nh; h++)
				for (int a = 0; a < 2; a++) {
					snprintf(t, sizeof(t), "%s %s b7333b58f358", pl->labels[h],
						 a ? "after" : "before");
					bench_plot_series(p, *pn, t, (unsigned int)(2 * h + a));
				}
		}
		for (int h = 0; h < pl->nh; h++)
			for (int a = 0; a < 2; a++) {
				json_t *pa = params(pl, r, h, a);

				bench_plot_point(p, *pn, 2 * h + a, r->tasks,
						 get(m ? "median_ops_per_sec" : "ipis_per_op", pa), NAN, NAN);
				json_decref(pa);
			}
	}
	ret = bench_plot_draw(p, NULL, NULL, 0);
	bench_plot_free(p);
	return ret;
}

/* The rows of the modes and task counts asked for: 0 or -EINVAL. */
static int plan_rows(struct bench_env *e, unsigned int modes, struct pf_plan *pl)
{
	unsigned int shapes = e->shapes ? e->shapes : BENCH_M_THREADS;

	for (unsigned int t = 0; t < e->nthreads; t++) {
		if (e->threads[t] < 1 || e->threads[t] > 256 ||
		    o.pages * e->threads[t] > (1UL << 24)) {
			fprintf(stderr, "tlbgen-bench pagefault: --threads %u with --pages %lu: want "
				"1..256 tasks of at most %lu pages in all\n", e->threads[t],
				o.pages, 1UL << 24);
			return -EINVAL;
		}
	}
	if ((e->given & BENCH_O_MODE) && e->shapes &&
	    !(modes & (BENCH_M_STEPPED | BENCH_M_VIRTUAL))) {
		fprintf(stderr, "tlbgen-bench pagefault: --shape is for the stepped and virtual "
			"modes (threads and processes are modes of their own)\n");
		return -EINVAL;
	}
	for (unsigned int t = 0; t < e->nthreads; t++) {
		for (unsigned int m = BENCH_M_STEPPED; m <= BENCH_M_VIRTUAL; m <<= 3) {
			if ((modes & m) && (shapes & BENCH_M_PROCESSES))
				pl->row[pl->nrow++] = (struct pf_row){ m, false, e->threads[t] };
			if ((modes & m) && (shapes & BENCH_M_THREADS))
				pl->row[pl->nrow++] = (struct pf_row){ m, true, e->threads[t] };
		}
		if (modes & BENCH_M_PROCESSES)
			pl->row[pl->nrow++] = (struct pf_row){ BENCH_M_PROCESSES, false, e->threads[t] };
		if (modes & BENCH_M_THREADS)
			pl->row[pl->nrow++] = (struct pf_row){ BENCH_M_THREADS, true, e->threads[t] };
	}
	return 0;
}

/* --arch arm64: one hook, arm64's own as the profile's kernel has it. */
static void plan_hooks(struct pf_plan *pl, const char *profile)
{
	static const char *const hooks[] = { "generic", "local", "noop" };
	TLBGEN_OPTS(tlbgen_system_opts, po, .nr_cpus = 1, .mode = TLBGEN_MODE_STEPPED,
		    .profile = profile);
	struct tlbgen_system *ps;
	const char *v = NULL;

	for (int h = 0; h < 3; h++)
		pl->hooks[h] = pl->labels[h] = hooks[h];
	pl->nh = 3;
	if (strcmp(o.arch, "arm64"))
		return;
	if (!tlbgen_system__create(&po, &ps)) {
		v = tlbgen_system__get_choice(ps, "arm64_fault_flush");
		pl->labels[0] = v && !strcmp(v, "local") ? "local" : "noop";
		tlbgen_system__destroy(ps);
	}
	pl->hooks[0] = NULL;
	pl->nh = 1;
}

static int pagefault_run(struct bench_env *e)
{
	static const char *const defs[] = { "latest", NULL };
	unsigned int modes = bench_modes(e);
	struct pf_plan *pl;
	int status = 0;

	if (!modes || bench_env_policies(e, defs))
		return 2;
	if (e->npol != 1) {
		fprintf(stderr, "tlbgen-bench pagefault: -p %s: one policy only, %s given (the "
			"variants are the spurious-fault hook and b7333b58f358)\n", e->pol[1].label,
			e->pol[0].label);
		return 2;
	}
	if (e->machine_spec && !(modes & BENCH_M_VIRTUAL)) {
		fprintf(stderr, "tlbgen-bench pagefault: --machine is a model for --mode virtual\n");
		return 2;
	}
	if (!e->nthreads)
		e->threads[e->nthreads++] = 4;
	if ((modes & BENCH_M_VIRTUAL) && (bench_env_machine(e, "skylake-56") || bench_check_threads(e)))
		return 2;
	o.machine = &e->machine;
	o.invlpgb = e->invlpgb;
	o.no_pcid = e->no_pcid;
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return 1;
	if (plan_rows(e, modes, pl)) {
		free(pl);
		return 2;
	}
	pl->res = calloc(pl->nrow, sizeof(*pl->res));
	if (!pl->res) {
		free(pl);
		return 1;
	}
	o.profile = e->pol[0].name;
	pl->policy = e->pol[0].label;
	plan_hooks(pl, o.profile);
	bench_meta_param("rounds", json_integer(o.rounds));
	bench_env_meta_machine(e, modes);
	bench_meta_param("retry_pct", json_integer(o.retry_pct));
	bench_meta_param("loops", json_integer(o.loops));
	bench_meta_param("pages", json_integer((json_int_t)o.pages));
	bench_meta_param("fault_arch", json_string(o.arch));
	bench_meta_param("spend", json_boolean(o.spend));
	/* The header from meta.json, as every figure from results.json. */
	printf("# pagefault (seed 003, page_fault3): tasks x %.0f loops x %.0f pages, %.0f%% "
	       "first write attempts return VM_FAULT_RETRY, profile %s, %.0f timed rounds\n",
	       meta("loops"), meta("pages"), meta("retry_pct"), pl->policy, meta("rounds"));
	printf("# cost busy-waits: %s\n", json_is_true(bench_meta_param_get("spend")) ?
	       "on (cost model cycles spent per TLB op)" : "off");
	printf("# fault path: %s%s\n", json_string_value(bench_meta_param_get("fault_arch")),
	       pl->nh == 1 ? " (the profile's hook; timed: oracle off)" : "");
	for (unsigned int round = 0; round < o.rounds && !status; round++)
		for (unsigned int i = 0; i < pl->nrow && !status; i++) {
			struct pf_cfg c = o;

			unsigned int m = pl->row[i].mode;

			if ((m == BENCH_M_STEPPED || m == BENCH_M_VIRTUAL) && round)
				continue;	/* deterministic: one run is the figure */
			c.cpus = pl->row[i].tasks;
			for (int h = 0; h < pl->nh && !status; h++)
				for (int a = 0; a < 2 && !status; a++) {
					int err = pf_run_once(&c, m == BENCH_M_STEPPED ? PF_STEPPED :
								    m == BENCH_M_VIRTUAL ? PF_VIRTUAL :
								    PF_THREADED, pl->row[i].shared_mm,
							      pl->hooks[h], a, round,
							      &pl->res[i][h][a]);

					if (err) {
						fprintf(stderr, "tlbgen-bench pagefault: run failed: "
							"%s\n", strerror(-err));
						status = 1;
					}
				}
		}
	if (!status) {
		printf("%-9s %-9s %5s %-8s %-13s %9s %10s %11s %13s %9s %11s %8s %8s %12s %7s\n",
		       "mode", "mm", "tasks", "hook", "b7333b58f358", "faults/op", "retries/op",
		       "spurious/op", "spur_flush/op", "ipis/op", "flushes/op", "tlbi/op", "dsb/op",
		       "ops/s(med)", "ratio");
		for (unsigned int i = 0; i < pl->nrow; i++) {
			record_row(pl, i, o.rounds);
			print_row(pl, i);
		}
		printf("# ratio: median ops/s against the last hook's after row in the same mode "
		       "and task count; counters from the last round\n");
		if (!no_plot)
			status = plot(pl);
	}
	free(pl->res);
	free(pl);
	return status;
}

const struct bench bench_pagefault = {
	.name = "pagefault",
	.summary = "seed 003: page_fault3 with retried faults, spurious flushes per variant",
	.help = "Seed 003: page_fault3 with retried write faults (89b15332af7c): each task\n"
		"maps --pages, writes each (--retry-pct of first attempts return\n"
		"VM_FAULT_RETRY, retried with FAULT_FLAG_TRIED) and munmaps them. Per\n"
		"flush_tlb_fix_spurious_fault = generic|local|noop, each before/after\n"
		"b7333b58f358: faults, retries, spurious faults and flushes, IPIs, flushes,\n"
		"TLBI and DSB per op. threads (one mm) and processes (an mm per task) time\n"
		"it on real pthreads, rounds interleaved (ops/s and the ratio to the last\n"
		"variant); stepped counts it exactly and virtual times it on --machine\n"
		"(skylake-56), one run each, the oracle on, --shape threads|processes.\n"
		"-t sets the task counts (4); one policy (-p, default latest).\n",
	.shared = BENCH_O_POLICY | BENCH_O_MODE | BENCH_O_MACHINE | BENCH_O_THREADS | BENCH_O_JSON,
	.modes = BENCH_M_ALL,
	.default_modes = BENCH_M_THREADS | BENCH_M_PROCESSES,
	.opts = pagefault_opts,
	.run = pagefault_run,
};
BENCH_COMMAND(bench_pagefault);
