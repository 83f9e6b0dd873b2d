// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/reclaim.c - seed 002: batched unmap in page reclaim (MADV_PAGEOUT).
 *
 * Alexandre Ghiti's program maps 1 MiB, then repeatedly reads every page
 * (swap-in: a read fault maps a clean PTE) and pages the range out with
 * MADV_PAGEOUT: try_to_unmap_one() per page, each deferring its TLB flush
 * into the task's batch when the arch allows it, and one
 * try_to_unmap_flush() per batch (reclaim_pages() takes a PMD's worth, at
 * most 512 pages). Its threaded version parks K threads of the process on
 * the other CPUs, sleeping: their CPUs are idle and borrow the mm lazily
 * (enter_lazy_tlb), so they stay in mm_cpumask. "busy" keeps them running
 * the mm instead. The runs: bench/reclaim-run.c.
 *
 * Per policy and variant (batch_arch x86 | arm64 | riscv, batched_unmap
 * off = "none", the baseline = one flush_tlb_page() per page, or on =
 * "batched") it records, per page-out of one page:
 *  - stepped mode (deterministic counts, oracle on): flushes initiated by
 *    the reclaimer, IPIs sent, flush callbacks run on other CPUs, arm64 TLBI
 *    and DSB instructions, oracle violations;
 *  - threads mode (real threads, oracle off, variants interleaved rep by
 *    rep): the median time, and the time saved against the arch's "none".
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "driver/common.h"
#include "driver/env.h"
#include "report/plot.h"
#include "reclaim-run.h"
#include "driver/results.h"
#include "run/run.h"

#define MAX_K	64

static const char *const state_name[] = { "sleep", "busy" };
static const char *const arch_name[] = { "x86", "arm64", "riscv" };

/* Options ------------------------------------------------------------------ */

static struct {
	uint64_t pages, work_ns;
	unsigned int rounds, reps;
	bool dirty, no_plot;
	unsigned int arch[3], narch;
	int states[2], nstates;
} o = { .pages = 256, .rounds = 4, .reps = 5, .arch = { 0, 1, 2 }, .narch = 3,
	.states = { RC_SLEEP, RC_BUSY }, .nstates = 2 };

static int opt_arch(const char *opt, const char *arg)
{
	const char *s = arg;

	o.narch = 0;
	while (*s) {
		size_t l = strcspn(s, ","), i;

		for (i = 0; i < 3 && (strlen(arch_name[i]) != l || strncmp(arch_name[i], s, l)); i++)
			;
		if (i == 3 || o.narch == 3) {
			fprintf(stderr, "tlbgen-bench reclaim: %s: '%s' is not a list of x86, arm64, "
				"riscv\n", opt, arg);
			return -EINVAL;
		}
		o.arch[o.narch++] = (unsigned int)i;
		s += l + (s[l] == ',');
	}
	return o.narch ? 0 : (fprintf(stderr, "tlbgen-bench reclaim: %s: empty\n", opt), -EINVAL);
}

static int opt_state(const char *opt, const char *arg)
{
	if (!strcmp(arg, "sleep") || !strcmp(arg, "busy")) {
		o.states[0] = !strcmp(arg, "busy") ? RC_BUSY : RC_SLEEP;
		o.nstates = 1;
	} else if (!strcmp(arg, "both")) {
		o.states[0] = RC_SLEEP, o.states[1] = RC_BUSY, o.nstates = 2;
	} else {
		fprintf(stderr, "tlbgen-bench reclaim: %s: '%s' is not one of sleep, busy, both\n",
			opt, arg);
		return -EINVAL;
	}
	return 0;
}

static const struct bench_opt reclaim_opts[] = {
	{ .name = "pages", .arg = "N", .type = BOPT_U64, .dst = &o.pages, .min = 1,
	  .max = 1UL << 20, .help = "pages paged out and refaulted per round (256 = 1 MiB)" },
	{ .name = "rounds", .arg = "R", .type = BOPT_UINT, .dst = &o.rounds, .min = 1,
	  .max = 100000, .help = "rounds per run (4)" },
	{ .name = "reps", .arg = "M", .type = BOPT_UINT, .dst = &o.reps, .min = 1, .max = 1000,
	  .help = "threads: interleaved repetitions, the median reported (5)" },
	{ .name = "arch", .arg = "LIST", .type = BOPT_FN, .fn = opt_arch,
	  .help = "batch_arch values: x86,arm64,riscv (all)" },
	{ .name = "state", .arg = "S", .type = BOPT_FN, .fn = opt_state,
	  .help = "the K threads: sleep (idle, lazy in the mm), busy (running it),\n"
		  "or both (both)" },
	{ .name = "dirty", .type = BOPT_FLAG, .dst = &o.dirty,
	  .help = "dirty PTEs: flushed before pageout() queues the IO" },
	{ .name = "no-plot", .type = BOPT_FLAG, .dst = &o.no_plot, .help = "draw no plot" },
	{ .name = "work", .arg = "NS", .type = BOPT_U64, .dst = &o.work_ns, .min = 0,
	  .max = 10000000, .help = "threads, virtual: the rest of reclaim per page (swap\n"
				   "IO...), a busy wait or virtual time spent (0)" },
	BENCH_OPT_END,
};

/* Results ------------------------------------------------------------------ */

static json_t *params(unsigned int mode, const char *policy, int state, unsigned int k,
		      unsigned int arch, int b)
{
	return json_pack("{s:s,s:s,s:i,s:s,s:s,s:s}", "mode", bench_mode_name(mode), "state",
			 state_name[state], "threads", (int)k, "arch", arch_name[arch], "variant",
			 b ? "batched" : "none", "policy", policy);
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

/* One row's stepped counts per page. */
static void record_counts(json_t *pa, const struct rc_counts *k, double per)
{
	bench_metric("flushes_per_page", "flushes/page", "lower", pa, k->flushes / per);
	bench_metric("ipis_per_page", "IPIs/page", "lower", pa, k->ipis / per);
	bench_metric("remote_flushes_per_page", "flush callbacks/page", "lower", pa,
		     k->remote / per);
	bench_metric("tlbi_per_page", "TLBI/page", "lower", pa, k->tlbi / per);
	bench_metric("dsb_per_page", "DSB/page", "lower", pa, k->dsb / per);
	bench_metric("violations", "violations", "lower", pa, (double)k->violations);
}

/* One row's times: the reps, their median, and for "batched" the time saved
 * against the same arch's "none" (recorded just before). */
static void record_times(json_t *pa, json_t *none, const double *ns, unsigned int reps)
{
	double mn, med, mx, base;

	bench_metric_samples("ns_per_page", "ns/page", "lower", pa, ns, reps);
	bench_min_med_max(ns, reps, &mn, &med, &mx);
	bench_metric("median_ns_per_page", "ns/page", "lower", pa, med);
	if (none && bench_metric_get("median_ns_per_page", none, &base) && base > 0)
		bench_metric("saved_pct", "%", "higher", pa, 100.0 * (1.0 - med / base));
}

/* One line of the table, from results.json: the counts of `counts` mode
 * (stepped or virtual), the times of `times` (threads or virtual); 0: none. */
static void print_row(const char *policy, int state, unsigned int k, unsigned int arch, int b,
		      unsigned int counts, unsigned int times)
{
	json_t *pc = params(counts, policy, state, k, arch, b);
	json_t *pt = params(times, policy, state, k, arch, b);
	char ns[16] = "-", saved[16] = "-";
	double v;

	if (times) {
		snprintf(ns, sizeof(ns), "%.0f", get("median_ns_per_page", pt));
		if (bench_metric_get("saved_pct", pt, &v))
			snprintf(saved, sizeof(saved), "%.0f%%", v);
	}
	printf("%-8s %-5s %3u %-5s %-7s ", policy, state_name[state], k, arch_name[arch],
	       b ? "batched" : "none");
	if (counts)
		printf("%8.3f %8.3f %8.3f %7.3f %7.3f %5.0f", get("flushes_per_page", pc),
		       get("ipis_per_page", pc), get("remote_flushes_per_page", pc),
		       get("tlbi_per_page", pc), get("dsb_per_page", pc), get("violations", pc));
	else
		printf("%8s %8s %8s %7s %7s %5s", "-", "-", "-", "-", "-", "-");
	printf(" %10s %7s\n", ns, saved);
	json_decref(pc);
	json_decref(pt);
}

static void print_head(void)
{
	printf("%-8s %-5s %3s %-5s %-7s %8s %8s %8s %7s %7s %5s %10s %7s\n", "policy", "state",
	       "K", "arch", "variant", "flush/pg", "ipi/pg", "rflush/pg", "tlbi/pg", "dsb/pg",
	       "viol", "ns/pg", "saved");
}

/* Say which arches a profile's kernel does not batch for (their "batched" rows). */
static void note_unbatched(const char *profile, const char *label)
{
	TLBGEN_OPTS(tlbgen_system_opts, so, .nr_cpus = 2, .mode = TLBGEN_MODE_STEPPED,
		    .profile = profile);
	struct tlbgen_system *sys;

	if (tlbgen_system__create(&so, &sys))
		return;
	for (unsigned int a = 0; a < o.narch; a++) {
		char key[32];
		const char *v;

		snprintf(key, sizeof(key), "%s_batched_unmap", arch_name[o.arch[a]]);
		v = tlbgen_system__get_choice(sys, key);
		if (v && !strcmp(v, "off"))
			printf("# %s: %s=off in %s (no ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH): its "
			       "batched rows flush each page at once\n", arch_name[o.arch[a]], key,
			       label);
	}
	tlbgen_system__destroy(sys);
}

/* Run ---------------------------------------------------------------------- */

/* The variants in table order: policy, state, K, arch, none/batched. */
#define FOR_EACH_VARIANT(e, p, s, t, a, b)						\
	for (unsigned int p = 0; p < (e)->npol; p++)					\
		for (int s = 0; s < o.nstates; s++)					\
			for (unsigned int t = 0; t < (e)->nthreads; t++)			\
				for (unsigned int a = 0; a < o.narch; a++)		\
					for (int b = 0; b < 2; b++)

static struct rc_cfg cfg_of(const struct bench_env *e, unsigned int p)
{
	return (struct rc_cfg){ .pages = o.pages, .work_ns = o.work_ns, .rounds = o.rounds,
				.dirty = o.dirty, .profile = e->pol[p].name,
				.machine = &e->machine, .invlpgb = e->invlpgb,
				.no_pcid = e->no_pcid };
}

/* Threaded: every variant once per rep, so that drift hits all alike. */
static double *run_threaded(const struct bench_env *e, size_t nv)
{
	double *ns = calloc(nv * o.reps, sizeof(double));

	for (unsigned int rep = 0; ns && rep < o.reps; rep++) {
		size_t v = 0;

		FOR_EACH_VARIANT(e, p, s, t, a, b) {
			struct rc_cfg c = cfg_of(e, p);

			ns[v++ * o.reps + rep] = rc_threaded(&c, o.states[s], e->threads[t],
							    arch_name[o.arch[a]], b);
		}
	}
	return ns;
}

/* Virtual time: every variant once, each its counts and its time. */
static int run_virtual(struct bench_env *e, double per)
{
	int rc = 0;

	printf("# virtual time on %s: the same counts, and ns of virtual time per page of the\n"
	       "# reclaimer (one run; the sleepers idle lazily, the busy threads run the mm)\n",
	       e->machine.name);
	print_head();
	FOR_EACH_VARIANT(e, p, s, t, a, b) {
		const char *pol = e->pol[p].label;
		json_t *pa = params(BENCH_M_VIRTUAL, pol, o.states[s], e->threads[t], o.arch[a], b);
		json_t *none = b ? params(BENCH_M_VIRTUAL, pol, o.states[s], e->threads[t],
					  o.arch[a], 0) : NULL;
		struct rc_cfg c = cfg_of(e, p);
		struct rc_counts k;
		double ns = rc_virtual(&c, o.states[s], e->threads[t], arch_name[o.arch[a]], b, &k);

		if (k.err || k.violations || ns < 0)
			rc = 1;
		if (!k.err) {
			record_counts(pa, &k, per);
			record_times(pa, none, &ns, 1);
		}
		json_decref(pa);
		json_decref(none);
		print_row(pol, o.states[s], e->threads[t], o.arch[a], b, BENCH_M_VIRTUAL,
			  BENCH_M_VIRTUAL);
	}
	return rc;
}

/* Stepped and threads: one table, the counts and the times side by side. */
static int run_real(struct bench_env *e, double per, bool stepped, bool threaded)
{
	double *ns = NULL;
	size_t nv = (size_t)e->npol * (size_t)o.nstates * e->nthreads * o.narch * 2, v = 0;
	int rc = 0;

	if (threaded && !(ns = run_threaded(e, nv)))
		return 1;
	print_head();
	FOR_EACH_VARIANT(e, p, s, t, a, b) {
		const char *pol = e->pol[p].label;
		json_t *pc = params(BENCH_M_STEPPED, pol, o.states[s], e->threads[t], o.arch[a], b);
		json_t *pt = params(BENCH_M_THREADS, pol, o.states[s], e->threads[t], o.arch[a], b);
		json_t *none = b ? params(BENCH_M_THREADS, pol, o.states[s], e->threads[t],
					  o.arch[a], 0) : NULL;

		if (stepped) {
			struct rc_cfg c = cfg_of(e, p);
			struct rc_counts k;

			rc_stepped(&c, o.states[s], e->threads[t], arch_name[o.arch[a]], b, &k);
			if (k.err || k.violations)
				rc = 1;
			if (!k.err)
				record_counts(pc, &k, per);
		}
		if (threaded) {
			for (unsigned int r = 0; r < o.reps; r++)
				if (ns[v * o.reps + r] < 0)
					rc = 1;
			record_times(pt, none, &ns[v * o.reps], o.reps);
		}
		v++;
		json_decref(pc);
		json_decref(pt);
		json_decref(none);
		print_row(pol, o.states[s], e->threads[t], o.arch[a], b,
			  stepped ? BENCH_M_STEPPED : 0, threaded ? BENCH_M_THREADS : 0);
	}
	free(ns);
	return rc;
}

/* The plot (pageout.svg), from results.json: a panel per mode and state
 * of the K threads, a series per policy, arch and variant over K: ns per
 * page where timed (threads, virtual), IPIs per page stepped. */
static int plot(const struct bench_env *e, unsigned int modes)
{
	static const unsigned int mode[] = { BENCH_M_STEPPED, BENCH_M_THREADS, BENCH_M_VIRTUAL };
	char t[200];
	struct bench_plot *p = bench_plot_new("pageout", "seed 002: MADV_PAGEOUT reclaim, "
					      "unbatched (none) against batched unmap", "K");
	int ret;

	if (!p)
		return 1;
	for (size_t m = 0; m < 3; m++)
		for (int s = 0; (modes & mode[m]) && s < o.nstates; s++) {
			bool counts = mode[m] == BENCH_M_STEPPED;
			int pn, series = 0;

			snprintf(t, sizeof(t), "%s, K threads %s: %s", bench_mode_name(mode[m]),
				 o.states[s] == RC_SLEEP ? "asleep (lazy)" : "running the mm",
				 counts ? "IPIs per page" : mode[m] == BENCH_M_VIRTUAL ?
				 "ns of virtual time per page" : "median ns per page");
			pn = bench_plot_panel(p, t, counts ? "IPIs/page" : "ns/page",
					      BENCH_PLOT_FROM_ZERO);
			for (unsigned int q = 0; q < e->npol; q++)
				for (unsigned int a = 0; a < o.narch; a++)
					for (int b = 0; b < 2; b++, series++) {
						snprintf(t, sizeof(t), "%s%s%s %s", e->npol > 1 ?
							 e->pol[q].label : "", e->npol > 1 ? " " : "",
							 arch_name[o.arch[a]], b ? "batched" : "none");
						bench_plot_series(p, pn, t, (unsigned int)series);
						for (unsigned int k = 0; k < e->nthreads; k++) {
							json_t *pa = params(mode[m], e->pol[q].label,
									    o.states[s], e->threads[k],
									    o.arch[a], b);

							bench_plot_point(p, pn, series, e->threads[k],
									 get(counts ? "ipis_per_page" :
									     "median_ns_per_page", pa),
									 NAN, NAN);
							json_decref(pa);
						}
					}
		}
	ret = bench_plot_draw(p, NULL, NULL, 0);
	bench_plot_free(p);
	return ret;
}

static int reclaim_run(struct bench_env *e)
{
	static const char *const defs[] = { "latest", NULL };
	unsigned int modes = bench_modes(e), cpus;
	bool stepped = modes & BENCH_M_STEPPED, threaded = modes & BENCH_M_THREADS;
	double per = (double)o.rounds * (double)o.pages;
	int rc = 0;

	if (!modes || bench_env_policies(e, defs))
		return 2;
	if (e->shapes) {
		fprintf(stderr, "tlbgen-bench reclaim: --shape: the K threads are threads of the "
			"reclaimer's process, one mm (no shape to choose)\n");
		return 2;
	}
	if (e->machine_spec && !(modes & BENCH_M_VIRTUAL)) {
		fprintf(stderr, "tlbgen-bench reclaim: --machine is a model for --mode virtual "
			"(stepped counts; threads run on this host)\n");
		return 2;
	}
	if ((modes & BENCH_M_VIRTUAL) && bench_env_machine(e, "skylake-56"))
		return 2;
	cpus = modes & BENCH_M_VIRTUAL ? bench_machine_cpus(&e->machine) - 1 : MAX_K;
	if (!e->nthreads)
		e->threads[0] = 1, e->threads[1] = 4, e->nthreads = 2;
	for (unsigned int t = 0; t < e->nthreads; t++)
		if (e->threads[t] > MAX_K || e->threads[t] > cpus) {
			fprintf(stderr, "tlbgen-bench reclaim: --threads %u: at most %u threads "
				"besides the reclaimer%s\n", e->threads[t], cpus < MAX_K ? cpus : MAX_K,
				cpus < MAX_K ? " on this machine model" : "");
			return 2;
		}
	bench_meta_param("pages", json_integer((json_int_t)o.pages));
	bench_env_meta_machine(e, modes);
	bench_meta_param("rounds", json_integer(o.rounds));
	bench_meta_param("reps", json_integer(o.reps));
	bench_meta_param("dirty", json_boolean(o.dirty));
	bench_meta_param("work_ns", json_integer((json_int_t)o.work_ns));
	/* The header from meta.json, as every figure from results.json. */
	printf("# reclaim (seed 002): MADV_PAGEOUT of %.0f pages + refault, %.0f rounds%s,\n"
	       "# other reclaim work %.0f ns/page (threads, virtual);\n"
	       "# K threads of the mm on other CPUs (sleep: idle, lazy in the mm; busy: running it).\n"
	       "# per page: flushes the reclaimer initiated, IPIs, flush callbacks on other CPUs,\n"
	       "# arm64 TLBI/DSB, oracle violations (stepped); ns median of %.0f interleaved reps\n"
	       "# (threads, oracle off); saved = time saved vs the same arch unbatched.\n",
	       meta("pages"), meta("rounds"),
	       json_is_true(bench_meta_param_get("dirty")) ? ", dirty PTEs" : "", meta("work_ns"),
	       meta("reps"));
	for (unsigned int p = 0; p < e->npol; p++)
		note_unbatched(e->pol[p].name, e->pol[p].label);
	if (stepped || threaded)
		rc |= run_real(e, per, stepped, threaded);
	if (modes & BENCH_M_VIRTUAL)
		rc |= run_virtual(e, per);
	if (!o.no_plot)
		rc |= plot(e, modes);
	return rc;
}

const struct bench bench_reclaim = {
	.name = "reclaim",
	.summary = "seed 002: MADV_PAGEOUT reclaim, batched vs unbatched unmap on x86/arm64/riscv",
	.help = "Seed 002: MADV_PAGEOUT of --pages then refault, --rounds rounds, with K\n"
		"threads of the mm on other CPUs (-t: K, default 1,4), asleep (lazy) or\n"
		"busy; per batch_arch, unbatched (none) against batched unmap. stepped:\n"
		"flushes, IPIs, remote flush callbacks, TLBI and DSB per page, the oracle\n"
		"on; threads: ns per page (median of --reps interleaved repetitions) and\n"
		"the time batching saved; virtual: the counts and ns of virtual time per\n"
		"page on --machine (skylake-56), the reclaim through tlbgen_wl__pageout().\n"
		"-p: any number of policies (default latest).\n"
		"Exit 1 on an oracle violation or a failed run.\n",
	.shared = BENCH_O_POLICY | BENCH_O_MODE | BENCH_O_MACHINE | BENCH_O_THREADS | BENCH_O_JSON,
	.modes = BENCH_M_STEPPED | BENCH_M_THREADS | BENCH_M_VIRTUAL,
	.default_modes = BENCH_M_STEPPED | BENCH_M_THREADS,
	.modes_why = "the K threads are threads of the reclaimer's process: they share its mm, "
		     "there is no mm per task to give them",
	.opts = reclaim_opts,
	.run = reclaim_run,
};
BENCH_COMMAND(bench_reclaim);
