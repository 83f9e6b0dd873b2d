// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/pagefault.c - seed 003: will-it-scale page_fault3 ("Separate file
 * shared mapping page fault") on the threaded runtime, with the retried
 * write fault of 89b15332af7c: each task maps its region, writes every page
 * (a write fault that installs the PTE; with probability --retry-pct the
 * first attempt drops the lock for balance_dirty_pages() and returns
 * VM_FAULT_RETRY, and the arch handler retries with FAULT_FLAG_TRIED), then
 * munmaps it (a full flush).
 *   process mode: one mm per task (separate processes): flushes stay local;
 *   thread mode:  one mm for all tasks: a generic spurious-fault flush is a
 *                 flush_tlb_page() that IPIs every other CPU running the mm.
 * Variants: flush_tlb_fix_spurious_fault = generic | local | noop, each
 * before and after b7333b58f358 (spurious_skip_tried off/on). Rounds are
 * interleaved; ops/s is the median over rounds, the ratio is against
 * noop/after in the same mode (the last variant).
 * --arch arm64 runs arm64's fault path (fault_arch): its hook is the
 * profile's (a no-op from v5.10, a local TLBI+DSB from cb1fa2e99955), so
 * there is one hook row per mode, and the oracle is off (arm64's broadcast
 * TLBIs edit remote simulated TLBs only in stepped mode).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common.h"
#include "results.h"

int bench_pagefault_main(int argc, char **argv);

struct pf_cfg {
	unsigned int cpus, loops, retry_pct, rounds;
	unsigned long pages;
	const char *profile;
	const char *arch;	/* fault_arch */
	bool spend;
};

struct pf_run {
	const struct pf_cfg *c;
	struct tlbgen_system *sys;
	struct tlbgen_mm **mms;		/* one per task (process) or one (thread) */
	bool thread;
	bool oracle;
	atomic_uint ready, done;
	atomic_int err;
	uint64_t t0, t1;
};

struct pf_task {
	struct pf_run *run;
	unsigned int cpu;
	uint64_t ops;
	pthread_t th;
};

#define WR (TLBGEN_FAULT_FLAG_WRITE | TLBGEN_FAULT_FLAG_ALLOW_RETRY | TLBGEN_FAULT_FLAG_USER | \
	    TLBGEN_FAULT_FLAG_KILLABLE)

static void *task(void *arg)
{
	struct pf_task *t = arg;
	struct pf_run *r = t->run;
	const struct pf_cfg *c = r->c;
	struct tlbgen_mm *mm = r->thread ? r->mms[0] : r->mms[t->cpu];
	unsigned long base = r->thread ? t->cpu * c->pages : 0;
	uint64_t rng = 0x9E3779B97F4A7C15ULL * (t->cpu + 1);
	int err;

	if ((err = tlbgen_cpu__attach(r->sys, t->cpu)) ||
	    (err = tlbgen_switch_mm(r->sys, t->cpu, mm))) {
		atomic_store(&r->err, err);
		atomic_fetch_add(&r->ready, 1);
		atomic_fetch_add(&r->done, 1);
		return NULL;
	}
	atomic_fetch_add(&r->ready, 1);
	while (atomic_load(&r->ready) < c->cpus)
		tlbgen_poll(r->sys, t->cpu);
	for (unsigned int l = 0; l < c->loops && !atomic_load(&r->err); l++) {
		for (unsigned long p = base; p < base + c->pages; p++) {
			unsigned long addr = p * TLBGEN_PAGE_SIZE;
			unsigned int flags = WR;

			rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
			if (rng % 100 < c->retry_pct)
				flags |= TLBGEN_FAULT_MODEL_THROTTLE;
			err = tlbgen_handle_mm_fault(r->sys, t->cpu, mm, addr, flags);
			if (err == (int)TLBGEN_VM_FAULT_RETRY)
				err = tlbgen_handle_mm_fault(r->sys, t->cpu, mm, addr,
							     flags | TLBGEN_FAULT_FLAG_TRIED);
			/* c[i] = 0 reads the new translation (no simulated TLB without the oracle). */
			if (err >= 0 && r->oracle && tlbgen_access(r->sys, t->cpu, addr) < 0)
				err = -EIO;
			if (err < 0) {
				atomic_store(&r->err, err);
				break;
			}
			t->ops++;		/* c[i] = 0; (*iterations)++ */
			tlbgen_poll(r->sys, t->cpu);
		}
		/* munmap(c, MEMSIZE): zap, then one flush of the whole region. */
		for (unsigned long p = base; p < base + c->pages; p++)
			tlbgen_pte_set(r->sys, t->cpu, mm, p * TLBGEN_PAGE_SIZE, TLBGEN_PTEF_NONE);
		tlbgen_flush_tlb_mm_range(r->sys, t->cpu, mm, base * TLBGEN_PAGE_SIZE,
					  (base + c->pages) * TLBGEN_PAGE_SIZE, TLBGEN_PAGE_SHIFT, true);
	}
	atomic_fetch_add(&r->done, 1);
	while (atomic_load(&r->done) < c->cpus)	/* keep taking IPIs until all are done */
		tlbgen_poll(r->sys, t->cpu);
	tlbgen_cpu__detach(r->sys, t->cpu);
	return NULL;
}

struct pf_result {
	double ops_per_sec[16];
	uint64_t ops;
	uint64_t st[TLBGEN_STAT_NR], fst[TLBGEN_FAULT_STAT_NR];
	long violations;
};

static int run_once(const struct pf_cfg *c, bool thread, const char *hook, bool after,
		    unsigned int round, struct pf_result *res)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = c->cpus, .mode = TLBGEN_MODE_THREADED,
		    .profile = c->profile, .seed = 3,
		    .flags = !strcmp(c->arch, "arm64") ? TLBGEN_SYS_NO_ORACLE : 0);
	struct pf_run r = { .c = c, .thread = thread, .oracle = !(o.flags & TLBGEN_SYS_NO_ORACLE) };
	struct pf_task *tasks = calloc(c->cpus, sizeof(*tasks));
	struct tlbgen_mm *mms[256] = { 0 };
	unsigned int nmm = thread ? 1 : c->cpus;
	unsigned long npages = thread ? c->pages * c->cpus : c->pages;
	uint64_t t0;
	int err;

	if (!tasks)
		return -ENOMEM;
	err = tlbgen_system__create(&o, &r.sys);
	if (err) {
		free(tasks);
		return err;
	}
	if ((err = tlbgen_system__set_choice(r.sys, "fault_arch", c->arch)) ||
	    (hook && (err = tlbgen_system__set_choice(r.sys, "flush_tlb_fix_spurious_fault", hook))) ||
	    (err = tlbgen_system__set_choice(r.sys, "spurious_skip_tried", after ? "on" : "off")))
		goto out;
	if (c->spend) {
		struct tlbgen_cost_model m;

		tlbgen_cost_model_default(&m);
		m.spend = true;
		if ((err = tlbgen_system__set_cost_model(r.sys, &m)))
			goto out;
	}
	for (unsigned int i = 0; i < nmm; i++) {
		if ((err = tlbgen_mm__create(r.sys, npages, &mms[i])))
			goto out;
		for (unsigned long p = 0; p < npages; p++)	/* a fresh mapping: pte_none */
			tlbgen_pte_set(r.sys, 0, mms[i], p * TLBGEN_PAGE_SIZE, TLBGEN_PTEF_NONE);
	}
	r.mms = mms;
	t0 = bench_now_ns();
	for (unsigned int i = 0; i < c->cpus; i++) {
		tasks[i].run = &r;
		tasks[i].cpu = i;
		if (pthread_create(&tasks[i].th, NULL, task, &tasks[i])) {
			err = -EAGAIN;
			atomic_store(&r.err, err);
			for (unsigned int j = 0; j < i; j++)
				pthread_join(tasks[j].th, NULL);
			goto out;
		}
	}
	for (unsigned int i = 0; i < c->cpus; i++)
		pthread_join(tasks[i].th, NULL);
	err = atomic_load(&r.err);
	if (err)
		goto out;
	res->ops = 0;
	for (unsigned int i = 0; i < c->cpus; i++)
		res->ops += tasks[i].ops;
	res->ops_per_sec[round] = (double)res->ops / ((double)(bench_now_ns() - t0) / 1e9);
	tlbgen_stats__system(r.sys, res->st, TLBGEN_STAT_NR);
	tlbgen_fault_stats__system(r.sys, res->fst, TLBGEN_FAULT_STAT_NR);
	res->violations = o.flags & TLBGEN_SYS_NO_ORACLE ? 0 : tlbgen_oracle__violations(r.sys);
out:
	tlbgen_system__destroy(r.sys);
	free(tasks);
	return err;
}

/* results.json: per (mode, hook, b7333b58f358) the rounds' ops/s and the
 * last round's counters per op. */
static void pf_record(const struct pf_cfg *c, struct pf_result res[2][3][2], const char *mode)
{
	static const char *const hooks[] = { "generic", "local", "noop" };

	bench_meta_policy(c->profile, c->profile);
	bench_meta_param("rounds", json_integer(c->rounds));
	bench_meta_param("retry_pct", json_integer(c->retry_pct));
	for (int m = 0; m < 2; m++) {
		if ((m == 0 && !strcmp(mode, "thread")) || (m == 1 && !strcmp(mode, "process")))
			continue;
		for (int h = 0; h < 3; h++)
			for (int a = 0; a < 2; a++) {
				const struct pf_result *x = &res[m][h][a];
				double ops = (double)x->ops;
				json_t *pa = json_pack("{s:s,s:s,s:s,s:s}", "mode",
						       m ? "thread" : "process", "hook", hooks[h],
						       "b7333b58f358", a ? "after" : "before",
						       "profile", c->profile);

				bench_metric_samples("ops_per_sec", "ops/s", "higher", pa,
						     x->ops_per_sec, c->rounds);
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
				bench_metric("flushes_per_op", "flushes/op", "lower", pa,
					     x->st[TLBGEN_STAT_FLUSH_INITIATED] / ops);
				bench_metric("violations", "violations", "lower", pa,
					     (double)x->violations);
				json_decref(pa);
			}
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tlbgen-bench pagefault [options]\n"
		"  seed 003: page_fault3 with retried write faults; spurious flushes and IPIs per\n"
		"  fault and ops/s for flush_tlb_fix_spurious_fault = generic|local|noop, each\n"
		"  before/after b7333b58f358, in process and thread mode (threaded runtime).\n"
		"  --cpus N        tasks = emulated CPUs (4)\n"
		"  --pages N       pages per task mapping (1024; will-it-scale maps 128 MiB = 32768)\n"
		"  --loops N       map/write/munmap loops per task (4)\n"
		"  --retry-pct P   first write attempts returning VM_FAULT_RETRY (100, as 89b15332af7c)\n"
		"  --rounds N      interleaved rounds, median ops/s (3)\n"
		"  --mode M        process|thread|both (both)\n"
		"  --profile NAME  kernel profile (latest)\n"
		"  --arch A        fault path: x86|arm64|generic (x86); arm64 runs the\n"
		"                  profile's own hook, with the oracle off\n"
		"  --spend         burn the cost model's cycles as busy-waits (off)\n");
}

int bench_pagefault_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "cpus", 1, NULL, 'c' }, { "pages", 1, NULL, 'p' }, { "loops", 1, NULL, 'l' },
		{ "retry-pct", 1, NULL, 'r' }, { "rounds", 1, NULL, 'R' }, { "mode", 1, NULL, 'm' },
		{ "profile", 1, NULL, 'P' }, { "spend", 0, NULL, 's' }, { "help", 0, NULL, 'h' },
		{ "arch", 1, NULL, 'a' },
		{ 0 },
	};
	static const char *hooks[] = { "generic", "local", "noop" };
	struct pf_cfg c = { .cpus = 4, .pages = 1024, .loops = 4, .retry_pct = 100, .rounds = 3,
			    .profile = "latest", .arch = "x86" };
	const char *labels[3] = { "generic", "local", "noop" };
	int nh = 3;
	const char *mode = "both";
	struct pf_result res[2][3][2];
	int opt, bad = 0, err = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case 'c':
			err = bench_parse_uint("--cpus", optarg, 1, 256, &c.cpus);
			break;
		case 'p':
			err = bench_parse_ulong("--pages", optarg, 1, 1UL << 24, &c.pages);
			break;
		case 'l':
			err = bench_parse_uint("--loops", optarg, 1, UINT_MAX, &c.loops);
			break;
		case 'r':
			err = bench_parse_uint("--retry-pct", optarg, 0, 100, &c.retry_pct);
			break;
		case 'R':
			err = bench_parse_uint("--rounds", optarg, 1, 16, &c.rounds);
			break;
		case 'm': mode = optarg; break;
		case 'P': c.profile = optarg; break;
		case 'a': c.arch = optarg; break;
		case 's': c.spend = true; break;
		case 'h': usage(stdout); return 0;
		default: bad = 1;
		}
		if (err) {
			usage(stderr);
			return 2;
		}
	}
	if (bad || optind != argc || c.cpus < 1 || c.cpus > 256 || !c.pages ||
	    c.pages * c.cpus > (1UL << 24) || !c.loops || c.retry_pct > 100 || !c.rounds ||
	    c.rounds > 16 || (strcmp(mode, "both") && strcmp(mode, "process") &&
			      strcmp(mode, "thread")) ||
	    (strcmp(c.arch, "x86") && strcmp(c.arch, "arm64") && strcmp(c.arch, "generic"))) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(c.arch, "arm64")) {
		/* One row: arm64's own hook, as the profile's kernel has it. */
		TLBGEN_OPTS(tlbgen_system_opts, po, .nr_cpus = 1, .mode = TLBGEN_MODE_STEPPED,
			    .profile = c.profile);
		struct tlbgen_system *ps;
		const char *v;

		if (tlbgen_system__create(&po, &ps)) {
			fprintf(stderr, "pagefault: unknown profile '%s'\n", c.profile);
			return 2;
		}
		v = tlbgen_system__get_choice(ps, "arm64_fault_flush");
		labels[0] = v && !strcmp(v, "local") ? "local" : "noop";
		tlbgen_system__destroy(ps);
		hooks[0] = NULL;
		nh = 1;
	}
	memset(res, 0, sizeof(res));
	printf("# pagefault (seed 003, page_fault3): %u tasks x %u loops x %lu pages, "
	       "%u%% first write attempts return VM_FAULT_RETRY, profile %s, %u rounds\n",
	       c.cpus, c.loops, c.pages, c.retry_pct, c.profile, c.rounds);
	printf("# cost busy-waits: %s\n", c.spend ? "on (cost model cycles spent per TLB op)" : "off");
	printf("# fault path: %s%s\n", c.arch, nh == 1 ? " (the profile's hook; oracle off)" : "");
	for (unsigned int round = 0; round < c.rounds; round++)
		for (int m = 0; m < 2; m++) {
			if ((m == 0 && !strcmp(mode, "thread")) || (m == 1 && !strcmp(mode, "process")))
				continue;
			for (int h = 0; h < nh; h++)
				for (int a = 0; a < 2; a++) {
					int err = run_once(&c, m == 1, hooks[h], a, round, &res[m][h][a]);

					if (err) {
						fprintf(stderr, "pagefault: run failed: %s\n",
							strerror(-err));
						return 1;
					}
				}
		}
	printf("%-8s %-8s %-13s %9s %10s %11s %13s %9s %11s %8s %8s %12s %7s\n", "mode", "hook",
	       "b7333b58f358", "faults/op", "retries/op", "spurious/op", "spur_flush/op",
	       "ipis/op", "flushes/op", "tlbi/op", "dsb/op", "ops/s(med)", "ratio");
	for (int m = 0; m < 2; m++) {
		double base_min, base_med, base_max;

		if ((m == 0 && !strcmp(mode, "thread")) || (m == 1 && !strcmp(mode, "process")))
			continue;
		bench_min_med_max(res[m][nh - 1][1].ops_per_sec, c.rounds, &base_min, &base_med,
				  &base_max);
		for (int h = 0; h < nh; h++)
			for (int a = 0; a < 2; a++) {
				const struct pf_result *x = &res[m][h][a];
				double ops = (double)x->ops, mn, med, mx;

				bench_min_med_max(x->ops_per_sec, c.rounds, &mn, &med, &mx);
				printf("%-8s %-8s %-13s %9.3f %10.3f %11.3f %13.3f %9.3f %11.4f %8.3f %8.3f %12.0f %7.2f%s\n",
				       m ? "thread" : "process", labels[h], a ? "after" : "before",
				       x->fst[TLBGEN_FAULT_STAT_FAULTS] / ops,
				       x->fst[TLBGEN_FAULT_STAT_RETURN_RETRY] / ops,
				       x->fst[TLBGEN_FAULT_STAT_SPURIOUS] / ops,
				       x->fst[TLBGEN_FAULT_STAT_SPURIOUS_FLUSH] / ops,
				       x->st[TLBGEN_STAT_IPI_SENT] / ops,
				       x->st[TLBGEN_STAT_FLUSH_INITIATED] / ops,
				       x->st[TLBGEN_STAT_TLBI] / ops, x->st[TLBGEN_STAT_DSB] / ops, med,
				       base_med > 0 ? med / base_med : 0,
				       x->violations ? "  ORACLE VIOLATIONS" : "");
			}
	}
	printf("# ratio: median ops/s against the last hook's after row in the same mode; counters from the last round\n");
	pf_record(&c, res, mode);
	return 0;
}
