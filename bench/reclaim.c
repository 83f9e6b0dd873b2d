// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/reclaim.c - seed 002: batched unmap in page reclaim (MADV_PAGEOUT).
 *
 * Alexandre Ghiti's program maps 1 MiB, then repeatedly reads every page
 * (swap-in: a read fault maps a clean PTE) and pages the range out with
 * MADV_PAGEOUT: try_to_unmap_one() per page, each deferring its TLB flush
 * into the task's batch when the arch allows it, and one
 * try_to_unmap_flush() per batch (reclaim_pages() takes a PMD's worth, at
 * most 512 pages). Its threaded version parks K threads of the process on
 * the other CPUs, sleeping: their CPUs are idle and borrow the mm lazily
 * (enter_lazy_tlb), so they stay in mm_cpumask. "busy" keeps them running
 * the mm instead.
 *
 * Per variant (batch_arch x86 | arm64 | riscv, batched_unmap off = "none",
 * the baseline = one flush_tlb_page() per page, or on = "batched") it prints
 * per page-out of one page:
 *  - stepped mode (deterministic counts, oracle on): flushes initiated by
 *    the reclaimer, IPIs sent, flush callbacks run on other CPUs, arm64 TLBI
 *    and DSB instructions, oracle violations;
 *  - threaded mode (real threads, oracle off, variants interleaved rep by
 *    rep): the median time, and the time saved against the arch's "none".
 * Threaded mode spawns the K CPUs pinned (tlbgen_cpu__spawn): a sleeping
 * one idles in the runtime (futex sleep until an IPI wakes it), a busy one
 * polls for IPIs and yields. The reclaimer is the calling thread, CPU 0.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common.h"
#include "results.h"

#define PG(i) ((unsigned long)(i) << TLBGEN_PAGE_SHIFT)
#define RECLAIM_BATCH 512	/* pages per reclaim_pages() call: one PMD */
#define MAX_LIST 16

enum rc_state { RC_SLEEP, RC_BUSY };
static const char *const state_name[] = { "sleep", "busy" };

struct rc_cfg {
	unsigned int threads[MAX_LIST], nthreads;
	const char *arch[3];
	unsigned int narch;
	int states[2], nstates;
	unsigned long pages;
	unsigned int rounds, reps;
	bool stepped, threaded, dirty;
	unsigned long work_ns;
	const char *profile;
};

struct rc_counts {
	uint64_t flushes, ipis, remote, tlbi, dsb;
	long violations;
	int err;
};

/* results.json: one row of the table. */
static void rc_record(const struct rc_cfg *c, int s, unsigned int t, unsigned int a, int b,
		      const struct rc_counts *k, const double *ns)
{
	double per = (double)c->rounds * (double)c->pages;
	json_t *pa = json_pack("{s:s,s:i,s:s,s:s,s:s}", "state", state_name[c->states[s]],
			       "threads", (int)c->threads[t], "arch", c->arch[a], "variant",
			       b ? "batched" : "none", "profile", c->profile);

	bench_meta_policy(c->profile, c->profile);
	if (c->stepped) {
		bench_metric("flushes_per_page", "flushes/page", "lower", pa, k->flushes / per);
		bench_metric("ipis_per_page", "IPIs/page", "lower", pa, k->ipis / per);
		bench_metric("remote_flushes_per_page", "flush callbacks/page", "lower", pa,
			     k->remote / per);
		bench_metric("tlbi_per_page", "TLBI/page", "lower", pa, k->tlbi / per);
		bench_metric("dsb_per_page", "DSB/page", "lower", pa, k->dsb / per);
		bench_metric("violations", "violations", "lower", pa, (double)k->violations);
	}
	if (c->threaded)
		bench_metric_samples("ns_per_page", "ns/page", "lower", pa, ns, c->reps);
	json_decref(pa);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tlbgen-bench reclaim [--threads LIST] [--pages N] [--rounds R] [--reps M]\n"
		"                            [--mode stepped|threaded|both] [--arch LIST]\n"
		"                            [--state sleep|busy|both] [--profile P] [--dirty]\n"
		"  seed 002: MADV_PAGEOUT of N pages then refault, R rounds, with K threads of the\n"
		"  mm on other CPUs; unbatched (none) vs batched unmap for each arch.\n"
		"  --threads  comma list of K (default 1,4)      --pages    N (default 256 = 1 MiB)\n"
		"  --rounds   rounds per run (default 4)         --reps     threaded reps (default 5)\n"
		"  --arch     x86,arm64,riscv (default all)      --state    default both\n"
		"  --profile  kernel profile (default latest)    --dirty    dirty PTEs: flush before IO\n"
		"  --work NS  threaded: the rest of reclaim per page (swap IO...), a busy wait (default 0)\n");
}

static int parse_list(const char *s, unsigned int *out, unsigned int max)
{
	unsigned int n = 0;
	char *end;

	while (*s) {
		long v = strtol(s, &end, 10);

		if (end == s || v < 1 || v > 64 || n == max)
			return -1;
		out[n++] = (unsigned int)v;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return (int)n;
}

static int parse_arch(const char *s, struct rc_cfg *c)
{
	static const char *const known[] = { "x86", "arm64", "riscv" };
	char buf[64];

	c->narch = 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
		size_t i;

		for (i = 0; i < 3 && strcmp(known[i], t); i++)
			;
		if (i == 3 || c->narch == 3)
			return -1;
		c->arch[c->narch++] = known[i];
	}
	return c->narch ? 0 : -1;
}

static struct tlbgen_system *rc_system(const struct rc_cfg *c, unsigned int ncpu,
				       enum tlbgen_mode mode, const char *arch, bool batched)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = ncpu, .mode = mode, .profile = c->profile,
		    .seed = 2, .flags = mode == TLBGEN_MODE_THREADED ? TLBGEN_SYS_NO_ORACLE : 0);
	struct tlbgen_system *sys;
	char ch[96];

	if (tlbgen_system__create(&o, &sys))
		return NULL;
	snprintf(ch, sizeof(ch), "batch_arch=%s,batched_unmap=%s", arch, batched ? "on" : "off");
	if (tlbgen_system__set_choices(sys, ch)) {
		tlbgen_system__destroy(sys);
		return NULL;
	}
	return sys;
}

/*
 * One round on the reclaimer (CPU 0): refault every page, then page them
 * all out. In stepped mode `drive` delivers the IPIs after each flush.
 */
static void rc_work(unsigned long ns)
{
	uint64_t until;

	if (!ns)
		return;
	until = bench_now_ns() + ns;
	while (bench_now_ns() < until)
		;
}

static int rc_round(struct tlbgen_system *sys, struct tlbgen_mm *mm,
		    struct tlbgen_unmap_batch *u, unsigned long pages, bool dirty, bool drive,
		    unsigned long work_ns)
{
	unsigned int pf = TLBGEN_PTE_ACCESSIBLE | (dirty ? TLBGEN_PTE_DIRTY : 0);
	int r;

	/* swap-in: the read fault maps the page, the access fills the TLB */
	for (unsigned long p = 0; p < pages; p++) {
		if (tlbgen_pte_change(sys, 0, mm, PG(p)))
			return -1;
		if (drive && tlbgen_access(sys, 0, PG(p)) < 0)
			return -1;
	}
	/* MADV_PAGEOUT -> reclaim_pages() -> shrink_folio_list() */
	for (unsigned long p = 0; p < pages; p++) {
		r = tlbgen_try_to_unmap_one(sys, 0, u, mm, PG(p), TLBGEN_TTU_BATCH_FLUSH, pf);
		if (r < 0)
			return -1;
		if (drive && r == 0)
			tlbgen_run_until_idle(sys);
		rc_work(work_ns);
		/* a dirty folio is flushed before pageout() queues its IO */
		r = tlbgen_try_to_unmap_flush_dirty(sys, 0, u);
		if (r < 0)
			return -1;
		if (drive && r)
			tlbgen_run_until_idle(sys);
		if ((p + 1) % RECLAIM_BATCH == 0 || p + 1 == pages) {
			if (tlbgen_try_to_unmap_flush(sys, 0, u) < 0)
				return -1;
			if (drive)
				tlbgen_run_until_idle(sys);
		}
	}
	return 0;
}

static void rc_stepped(const struct rc_cfg *c, int state, unsigned int k, const char *arch,
		       bool batched, struct rc_counts *out)
{
	struct tlbgen_system *sys = rc_system(c, k + 1, TLBGEN_MODE_STEPPED, arch, batched);
	struct tlbgen_mm *mm = NULL;
	struct tlbgen_unmap_batch *u = NULL;
	uint64_t st[TLBGEN_STAT_NR];

	memset(out, 0, sizeof(*out));
	out->err = 1;
	if (!sys)
		return;
	if (tlbgen_mm__create(sys, c->pages, &mm) || tlbgen_unmap_batch__create(sys, &u))
		goto out;
	for (unsigned int cpu = 0; cpu <= k; cpu++)
		if (tlbgen_switch_mm(sys, cpu, mm))
			goto out;
	for (unsigned int cpu = 1; cpu <= k; cpu++)
		if (state == RC_SLEEP && tlbgen_enter_lazy_tlb(sys, cpu))
			goto out;
	tlbgen_stats__reset(sys);
	for (unsigned int r = 0; r < c->rounds; r++) {
		if (rc_round(sys, mm, u, c->pages, c->dirty, true, 0))
			goto out;
		/* busy threads use the memory too (their TLBs must be flushed) */
		if (state == RC_BUSY)
			for (unsigned int cpu = 1; cpu <= k; cpu++)
				for (unsigned long p = 0; p < c->pages; p += 8)
					tlbgen_access(sys, cpu, PG(p));
	}
	tlbgen_stats__cpu(sys, 0, st, TLBGEN_STAT_NR);
	out->flushes = st[TLBGEN_STAT_FLUSH_INITIATED];
	tlbgen_stats__system(sys, st, TLBGEN_STAT_NR);
	out->ipis = st[TLBGEN_STAT_IPI_SENT];
	out->remote = st[TLBGEN_STAT_FLUSH_FUNC_REMOTE];
	out->tlbi = st[TLBGEN_STAT_TLBI];
	out->dsb = st[TLBGEN_STAT_DSB];
	out->violations = tlbgen_oracle__violations(sys);
	out->err = 0;
out:
	if (u)
		tlbgen_unmap_batch__destroy(u);
	tlbgen_system__destroy(sys);	/* frees the mm too */
}

/* ---- threaded mode --------------------------------------------------------- */

struct rc_thr {
	struct tlbgen_mm *mm;
	atomic_int *ready;
	int state;
};

/*
 * A thread of the mm on a spawned, pinned CPU. sleep: load the mm, go idle
 * (enter_lazy_tlb) and return to the runtime's idle loop, which sleeps until
 * an IPI wakes it, as the seed's sleep(1) threads do. busy: keep running the
 * mm, taking IPIs at each poll.
 */
static int rc_thread(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct rc_thr *t = arg;

	if (tlbgen_switch_mm(sys, cpu, t->mm) ||
	    (t->state == RC_SLEEP && tlbgen_enter_lazy_tlb(sys, cpu)))
		return -1;
	atomic_fetch_add(t->ready, 1);
	if (t->state == RC_SLEEP)
		return 0;
	while (!tlbgen_cpu__should_stop(sys, cpu)) {
		tlbgen_poll(sys, cpu);
		sched_yield();
	}
	return 0;
}

/* ns per paged-out page, or a negative value on error. */
static double rc_threaded(const struct rc_cfg *c, int state, unsigned int k, const char *arch,
			  bool batched)
{
	struct tlbgen_system *sys = rc_system(c, k + 1, TLBGEN_MODE_THREADED, arch, batched);
	struct tlbgen_mm *mm = NULL;
	struct tlbgen_unmap_batch *u = NULL;
	atomic_int ready = 0;
	struct rc_thr thr;
	unsigned int started = 0;
	double ns = -1;
	uint64_t t0;
	int ret;

	if (!sys)
		return -1;
	if (tlbgen_mm__create(sys, c->pages, &mm) || tlbgen_unmap_batch__create(sys, &u))
		goto out;
	thr = (struct rc_thr){ mm, &ready, state };
	for (unsigned int i = 1; i <= k; i++, started++)
		if (tlbgen_cpu__spawn(sys, i, rc_thread, &thr))
			goto join;
	while ((unsigned int)atomic_load(&ready) < k)
		sched_yield();
	if (tlbgen_cpu__attach(sys, 0))
		goto join;
	if (!tlbgen_switch_mm(sys, 0, mm)) {
		t0 = bench_now_ns();
		ns = (double)c->rounds * (double)c->pages;
		for (unsigned int r = 0; r < c->rounds && ns > 0; r++)
			if (rc_round(sys, mm, u, c->pages, c->dirty, false, c->work_ns))
				ns = -1;
		if (ns > 0)
			ns = (double)(bench_now_ns() - t0) / ns;
		tlbgen_switch_mm(sys, 0, NULL);
	}
	tlbgen_cpu__detach(sys, 0);
join:
	for (unsigned int i = 1; i <= started; i++)
		if (tlbgen_cpu__join(sys, i, &ret) || ret)
			ns = -1;
out:
	if (u)
		tlbgen_unmap_batch__destroy(u);
	tlbgen_system__destroy(sys);
	return ns;
}

/* Say which arches the profile's kernel does not batch for (their "batched" rows). */
static void rc_note_unbatched(const struct rc_cfg *c)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_STEPPED,
		    .profile = c->profile);
	struct tlbgen_system *sys;

	if (tlbgen_system__create(&o, &sys))
		return;
	for (unsigned int a = 0; a < c->narch; a++) {
		char key[32];
		const char *v;

		snprintf(key, sizeof(key), "%s_batched_unmap", c->arch[a]);
		v = tlbgen_system__get_choice(sys, key);
		if (v && !strcmp(v, "off"))
			printf("# %s: %s=off in profile %s (no ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH):"
			       " its batched rows flush each page at once\n", c->arch[a], key,
			       c->profile);
	}
	tlbgen_system__destroy(sys);
}

int bench_reclaim_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "threads", required_argument, NULL, 't' }, { "pages", required_argument, NULL, 'p' },
		{ "rounds", required_argument, NULL, 'r' }, { "reps", required_argument, NULL, 'R' },
		{ "mode", required_argument, NULL, 'm' }, { "arch", required_argument, NULL, 'a' },
		{ "state", required_argument, NULL, 's' }, { "profile", required_argument, NULL, 'P' },
		{ "dirty", no_argument, NULL, 'd' }, { "help", no_argument, NULL, 'h' },
		{ "work", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	struct rc_cfg c = {
		.threads = { 1, 4 }, .nthreads = 2, .arch = { "x86", "arm64", "riscv" }, .narch = 3,
		.states = { RC_SLEEP, RC_BUSY }, .nstates = 2, .pages = 256, .rounds = 4,
		.reps = 5, .stepped = true, .threaded = true, .profile = "latest",
	};
	unsigned int nv, row = 0;
	double *samples;
	int opt, n, rc = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case 't':
			n = parse_list(optarg, c.threads, MAX_LIST);
			if (n <= 0) {
				fprintf(stderr, "tlbgen-bench: --threads: '%s' is not a list of 1..64\n",
					optarg);
				goto bad;
			}
			c.nthreads = (unsigned int)n;
			break;
		case 'p':
			if (bench_parse_ulong("--pages", optarg, 1, 1UL << 20, &c.pages))
				goto bad;
			break;
		case 'r':
			if (bench_parse_uint("--rounds", optarg, 1, 100000, &c.rounds))
				goto bad;
			break;
		case 'R':
			if (bench_parse_uint("--reps", optarg, 1, 1000, &c.reps))
				goto bad;
			break;
		case 'm':
			c.stepped = !strcmp(optarg, "stepped") || !strcmp(optarg, "both");
			c.threaded = !strcmp(optarg, "threaded") || !strcmp(optarg, "both");
			if (!c.stepped && !c.threaded)
				goto bad;
			break;
		case 'a':
			if (parse_arch(optarg, &c))
				goto bad;
			break;
		case 's':
			if (!strcmp(optarg, "sleep"))
				c.states[0] = RC_SLEEP, c.nstates = 1;
			else if (!strcmp(optarg, "busy"))
				c.states[0] = RC_BUSY, c.nstates = 1;
			else if (strcmp(optarg, "both"))
				goto bad;
			break;
		case 'P':
			c.profile = optarg;
			break;
		case 'd':
			c.dirty = true;
			break;
		case 'w':
			if (bench_parse_ulong("--work", optarg, 0, 10000000, &c.work_ns))
				goto bad;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;

	tlbgen_set_print(NULL);
	{	/* an unknown profile: say so once, with the valid names */
		struct tlbgen_system *probe = rc_system(&c, 1, TLBGEN_MODE_STEPPED, "x86", true);

		if (!probe) {
			fprintf(stderr, "reclaim: unknown profile '%s'\n", c.profile);
			goto bad;
		}
		tlbgen_system__destroy(probe);
	}

	nv = (unsigned int)c.nstates * c.nthreads * c.narch * 2;
	samples = calloc((size_t)nv * c.reps, sizeof(double));
	if (!samples)
		return 1;
	if (c.threaded) {
		/* Interleaved: every variant once per rep, so drift hits all alike. */
		for (unsigned int rep = 0; rep < c.reps; rep++) {
			unsigned int v = 0;

			for (int s = 0; s < c.nstates; s++)
				for (unsigned int t = 0; t < c.nthreads; t++)
					for (unsigned int a = 0; a < c.narch; a++)
						for (int b = 0; b < 2; b++, v++)
							samples[(size_t)v * c.reps + rep] =
								rc_threaded(&c, c.states[s], c.threads[t],
									    c.arch[a], b);
		}
	}

	printf("# reclaim (seed 002): MADV_PAGEOUT of %lu pages + refault, %u rounds, profile %s%s,\n"
	       "# other reclaim work %lu ns/page (threaded);\n"
	       "# K threads of the mm on other CPUs (sleep: idle, lazy in the mm; busy: running it).\n"
	       "# per page: flushes the reclaimer initiated, IPIs, flush callbacks on other CPUs,\n"
	       "# arm64 TLBI/DSB, oracle violations (stepped); ns median of %u interleaved reps\n"
	       "# (threaded, oracle off); saved = time saved vs the same arch unbatched.\n",
	       c.pages, c.rounds, c.profile, c.dirty ? ", dirty PTEs" : "", c.work_ns, c.reps);
	rc_note_unbatched(&c);
	printf("%-5s %3s %-5s %-7s %8s %8s %8s %7s %7s %5s %10s %7s\n", "state", "K", "arch",
	       "variant", "flush/pg", "ipi/pg", "rflush/pg", "tlbi/pg", "dsb/pg", "viol",
	       "ns/pg", "saved");
	for (int s = 0; s < c.nstates; s++) {
		for (unsigned int t = 0; t < c.nthreads; t++) {
			for (unsigned int a = 0; a < c.narch; a++) {
				double med[2] = { 0, 0 };

				for (int b = 0; b < 2; b++, row++) {
					struct rc_counts k = { 0 };
					double per = (double)c.rounds * (double)c.pages, mn, mx;
					char ns[16] = "-", saved[16] = "-";

					if (c.stepped) {
						rc_stepped(&c, c.states[s], c.threads[t], c.arch[a], b, &k);
						if (k.err || k.violations)
							rc = 1;
					}
					if (c.threaded) {
						bench_min_med_max(&samples[(size_t)row * c.reps], c.reps,
								  &mn, &med[b], &mx);
						if (mn < 0)
							rc = 1;
						snprintf(ns, sizeof(ns), "%.0f", med[b]);
						if (b && med[0] > 0)
							snprintf(saved, sizeof(saved), "%.0f%%",
								 100.0 * (1.0 - med[1] / med[0]));
					}
					if (c.stepped)
						printf("%-5s %3u %-5s %-7s %8.3f %8.3f %8.3f %7.3f %7.3f %5ld %10s %7s\n",
						       state_name[c.states[s]], c.threads[t], c.arch[a],
						       b ? "batched" : "none", k.flushes / per, k.ipis / per,
						       k.remote / per, k.tlbi / per, k.dsb / per,
						       k.violations, ns, saved);
					else
						printf("%-5s %3u %-5s %-7s %8s %8s %8s %7s %7s %5s %10s %7s\n",
						       state_name[c.states[s]], c.threads[t], c.arch[a],
						       b ? "batched" : "none", "-", "-", "-", "-", "-", "-",
						       ns, saved);
					rc_record(&c, s, t, a, b, &k, &samples[(size_t)row * c.reps]);
				}
			}
		}
	}
	free(samples);
	return rc;
bad:
	usage(stderr);
	return 2;
}
