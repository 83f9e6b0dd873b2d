// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/soak.c - `tlbgen-bench soak --minutes N`: threaded mode, N minutes of
 * mixed workloads on oversubscribed emulated CPUs (8 by default, whatever
 * the host has), the oracle on and the csd-lock watchdog armed.
 *
 * Rounds of --round seconds rotate the correct profiles (v5.17, v6.0,
 * latest) and the IPI backends (poll, signal). Each emulated CPU loops over
 * switch_mm / enter_lazy_tlb / accesses / PTE change + covering flush
 * (range, page, full, or batched) / kernel-range flushes / polls, and times
 * every flush call: in threaded mode it returns only after every target
 * acknowledged, so that is the IPI wait.
 *
 * Exit status: 0 clean; 1 oracle violation, kernel WARN, watchdog report or
 * unexpected errno; 3 a CPU made no progress for --hang-seconds (hang);
 * 2 bad arguments.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "common.h"
#include "results.h"
#include "explore_engine.h"
#include "explore_engine.h"

#include "explore_engine.h"

#include "explore_engine.h"

#define SOAK_MAX_CPUS	64
#define SOAK_MMS	3
#define SOAK_PAGES	256UL

struct soak_cpu {
	struct soak_round *r;
	uint64_t rng;
	_Atomic uint64_t ops;		/* progress, read by the hang monitor */
	uint64_t flushes;
	uint64_t max_wait_ns;
	uint64_t errors;
	char err[160];
};

struct soak_round {
	struct tlbgen_mm *mm[SOAK_MMS];
	/* Stop in two phases: every CPU leaves its loop (still servicing IPIs
	 * in the runtime's idle loop) before any is joined; a CPU joined while
	 * others still flush would leave their IPIs to it unacknowledged. */
	atomic_bool stop;
	atomic_uint done;
	struct soak_cpu cpu[SOAK_MAX_CPUS];
};

static void note_err(struct soak_cpu *c, const char *what, int ret)
{
	if (!c->errors++)
		snprintf(c->err, sizeof(c->err), "%s returned %d", what, ret);
}

/* Time a flush call: in threaded mode it returns after every ack. */
#define TIMED(c, what, call)                                                     \
	do {                                                                     \
		uint64_t _t = bench_now_ns();                                    \
		int _r = (call);                                                 \
		uint64_t _d = bench_now_ns() - _t;                               \
		if (_r)                                                          \
			note_err(c, what, _r);                                   \
		(c)->flushes++;                                                  \
		if (_d > (c)->max_wait_ns)                                       \
			(c)->max_wait_ns = _d;                                   \
	} while (0)

static int soak_cpu_fn(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct soak_cpu *c = arg;
	struct soak_round *r = c->r;
	struct tlbgen_tlbbatch *batch = NULL;
	bool batch_pending = false;
	int ret = tlbgen_tlbbatch__create(sys, &batch);

	if (ret) {
		note_err(c, "tlbbatch__create", ret);
		return ret;
	}
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed) &&
	       !tlbgen_cpu__should_stop(sys, cpu)) {
		unsigned int k = explore_rn(&c->rng, 100), m = explore_rn(&c->rng, SOAK_MMS);
		/* A few hot pages per mm so that fills, changes and flushes meet. */
		unsigned long page = explore_rn(&c->rng, 4) ? explore_rn(&c->rng, 16) : explore_rn(&c->rng, SOAK_PAGES - 4);
		unsigned long addr = page << TLBGEN_PAGE_SHIFT;

		if (k < 10) {
			ret = tlbgen_switch_mm(sys, cpu, explore_rn(&c->rng, SOAK_MMS + 1) ?
							 r->mm[m] : NULL);
			if (ret)
				note_err(c, "switch_mm", ret);
		} else if (k < 14) {
			ret = tlbgen_enter_lazy_tlb(sys, cpu);
			if (ret)
				note_err(c, "enter_lazy_tlb", ret);
		} else if (k < 55) {
			for (int i = 0; i < 4; i++) {
				ret = tlbgen_access(sys, cpu, addr + ((unsigned long)i << TLBGEN_PAGE_SHIFT));
				if (ret < 0 && ret != -ESRCH)
					note_err(c, "access", ret);
			}
		} else if (k < 85) {
			/* The kernel's rule: change the PTE, then flush what covers it. */
			ret = tlbgen_pte_change(sys, cpu, r->mm[m], addr);
			if (ret)
				note_err(c, "pte_change", ret);
			switch (explore_rn(&c->rng, 6)) {
			case 0:
				TIMED(c, "flush_tlb_page", tlbgen_flush_tlb_page(sys, cpu, r->mm[m], addr));
				break;
			case 1:
				TIMED(c, "flush_tlb_mm", tlbgen_flush_tlb_mm(sys, cpu, r->mm[m]));
				break;
			case 2: case 3: {
				unsigned long end = addr + (1UL + explore_rn(&c->rng, 48)) * TLBGEN_PAGE_SIZE;

				if (end > SOAK_PAGES << TLBGEN_PAGE_SHIFT)
					end = SOAK_PAGES << TLBGEN_PAGE_SHIFT;
				TIMED(c, "flush_tlb_mm_range",
				      tlbgen_flush_tlb_mm_range(sys, cpu, r->mm[m], addr, end,
								TLBGEN_PAGE_SHIFT, explore_rn(&c->rng, 4) == 0));
				break;
			}
			default:
				ret = tlbgen_arch_tlbbatch_add_pending(sys, cpu, batch, r->mm[m], addr,
								       addr + TLBGEN_PAGE_SIZE);
				if (ret)
					note_err(c, "arch_tlbbatch_add_pending", ret);
				batch_pending = true;
				break;
			}
		} else if (k < 92) {
			if (batch_pending) {
				TIMED(c, "arch_tlbbatch_flush", tlbgen_arch_tlbbatch_flush(sys, cpu, batch));
				batch_pending = false;
			}
		} else if (k < 94) {
			TIMED(c, "flush_tlb_kernel_range",
			      tlbgen_flush_tlb_kernel_range(sys, cpu, addr, addr + TLBGEN_PAGE_SIZE));
		} else {
			ret = tlbgen_poll(sys, cpu);
			if (ret < 0)
				note_err(c, "poll", ret);
		}
		atomic_fetch_add_explicit(&c->ops, 1, memory_order_relaxed);
	}
	if (batch_pending)
		TIMED(c, "arch_tlbbatch_flush", tlbgen_arch_tlbbatch_flush(sys, cpu, batch));
	/* Every flush that completed has been through this CPU: nothing it
	 * covered may be left in our TLB. */
	ret = tlbgen_oracle__audit_cpu(sys, cpu);
	if (ret < 0)
		note_err(c, "oracle__audit_cpu", ret);
	tlbgen_tlbbatch__destroy(batch);
	atomic_fetch_add(&r->done, 1);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tlbgen-bench soak [options]\n"
		"  --minutes N        total duration (default 1)\n"
		"  --seconds N        total duration in seconds (overrides --minutes)\n"
		"  --round S          seconds per round (default 20)\n"
		"  --cpus N           emulated CPUs (default 8, oversubscribed on small hosts)\n"
		"  --profile NAME     only this profile (default: rotate v5.17, v6.0, latest)\n"
		"  --watchdog-ms MS   csd-lock watchdog (default 2000); any report fails the run\n"
		"  --hang-seconds S   a CPU without progress this long is a hang (default 60)\n"
		"  --seed S           workload seed (default 1)\n");
}

int bench_soak_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "minutes", required_argument, NULL, 'm' },
		{ "seconds", required_argument, NULL, 's' },
		{ "round", required_argument, NULL, 'r' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "profile", required_argument, NULL, 'p' },
		{ "watchdog-ms", required_argument, NULL, 'w' },
		{ "hang-seconds", required_argument, NULL, 'H' },
		{ "seed", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const profiles[] = { "v5.17", "v6.0", "latest" };
	unsigned long minutes = 1, seconds = 0, round_s = 20, ncpus = 8, wd = 2000, hang_s = 60;
	unsigned long long seed = 1;
	const char *profile = NULL;
	int opt, err = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'm':
			err = bench_parse_ulong("--minutes", optarg, 0, ULONG_MAX, &minutes);
			break;
		case 's':
			err = bench_parse_ulong("--seconds", optarg, 0, ULONG_MAX, &seconds);
			break;
		case 'r':
			err = bench_parse_ulong("--round", optarg, 1, ULONG_MAX, &round_s);
			break;
		case 'c':
			err = bench_parse_ulong("--cpus", optarg, 2, SOAK_MAX_CPUS, &ncpus);
			break;
		case 'w':
			err = bench_parse_ulong("--watchdog-ms", optarg, 1, UINT_MAX, &wd);
			break;
		case 'H':
			err = bench_parse_ulong("--hang-seconds", optarg, 1, ULONG_MAX, &hang_s);
			break;
		case 'S':
			err = bench_parse_ull("--seed", optarg, 0, ULLONG_MAX, &seed);
			break;
		case 'p':
			profile = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		if (err) {
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || ncpus < 2 || ncpus > SOAK_MAX_CPUS || !round_s || !wd || !hang_s) {
		usage(stderr);
		return 2;
	}
	if (!seconds)
		seconds = minutes * 60;

	struct soak_round *r = calloc(1, sizeof(*r));
	uint64_t t_start = bench_now_ns(), total_ops = 0, total_flushes = 0, max_wait = 0;
	long total_viol = 0, total_warns = 0;
	uint64_t total_wd = 0, total_err = 0;
	unsigned int round = 0;
	int status = 0;

	if (!r)
		return 1;
	printf("soak: %lu s, %lu emulated CPUs on %ld host CPUs, rounds of %lu s, watchdog %lu ms\n",
	       seconds, ncpus, sysconf(_SC_NPROCESSORS_ONLN), round_s, wd);
	while (status == 0 && bench_now_ns() - t_start < seconds * 1000000000ULL) {
		const char *prof = profile ? profile : profiles[round % 3];
		enum tlbgen_ipi_backend be = (round / 3) % 2 ? TLBGEN_IPI_SIGNAL : TLBGEN_IPI_POLL;
		TLBGEN_OPTS(tlbgen_runtime_opts, ro, .backend = be, .watchdog_ms = (unsigned int)wd);
		TLBGEN_OPTS(tlbgen_system_opts, so, .nr_cpus = (unsigned int)ncpus,
			    .mode = TLBGEN_MODE_THREADED, .profile = prof, .runtime = &ro);
		struct tlbgen_runtime_stats rs = { .sz = sizeof(rs) };
		struct tlbgen_system *sys;
		uint64_t left = seconds * 1000000000ULL - (bench_now_ns() - t_start);
		uint64_t dur = round_s * 1000000000ULL < left ? round_s * 1000000000ULL : left;
		uint64_t t0, last[SOAK_MAX_CPUS], last_t[SOAK_MAX_CPUS], r_ops = 0, r_wait = 0;
		int ret;

		memset(r, 0, sizeof(*r));
		ret = tlbgen_system__create(&so, &sys);
		for (int i = 0; !ret && i < SOAK_MMS; i++)
			ret = tlbgen_mm__create(sys, SOAK_PAGES, &r->mm[i]);
		for (unsigned int c = 0; !ret && c < ncpus; c++) {
			r->cpu[c].r = r;
			r->cpu[c].rng = seed * 1000003ULL + round * 131ULL + c;
			ret = tlbgen_cpu__spawn(sys, c, soak_cpu_fn, &r->cpu[c]);
		}
		if (ret) {
			fprintf(stderr, "soak: setup failed: %d\n", ret);
			return 1;
		}
		t0 = bench_now_ns();
		for (unsigned int c = 0; c < ncpus; c++)
			last[c] = 0, last_t[c] = t0;
		/* Hang monitor: every CPU must keep making progress, and then
		 * leave its loop once asked. */
		for (;;) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };
			uint64_t now;
			bool stopping;

			nanosleep(&ts, NULL);
			now = bench_now_ns();
			stopping = now - t0 >= dur;
			if (stopping && !atomic_load(&r->stop)) {
				atomic_store(&r->stop, true);
				for (unsigned int c = 0; c < ncpus; c++)
					last_t[c] = now;
			}
			if (stopping && atomic_load(&r->done) == ncpus)
				break;
			for (unsigned int c = 0; c < ncpus; c++) {
				uint64_t o = atomic_load(&r->cpu[c].ops);

				if (o != last[c]) {
					last[c] = o;
					last_t[c] = now;
				} else if (now - last_t[c] > hang_s * 1000000000ULL) {
					printf("soak: HANG: cpu %u made no progress for %lu s (round %u, "
					       "profile %s, backend %s%s)\n", c, hang_s, round, prof,
					       be == TLBGEN_IPI_SIGNAL ? "signal" : "poll",
					       stopping ? ", stopping" : "");
					fflush(stdout);
					_exit(3);
				}
			}
		}
		for (unsigned int c = 0; c < ncpus; c++) {
			int cret = 0;

			ret = tlbgen_cpu__join(sys, c, &cret);
			if (ret || cret)
				r->cpu[c].errors++;
		}
		long viol = tlbgen_oracle__violations(sys), warns = tlbgen_system__warns(sys);

		tlbgen_runtime__stats(sys, &rs);
		for (unsigned int c = 0; c < ncpus; c++) {
			struct soak_cpu *sc = &r->cpu[c];

			r_ops += sc->ops;
			total_flushes += sc->flushes;
			if (sc->max_wait_ns > r_wait)
				r_wait = sc->max_wait_ns;
			if (sc->errors) {
				total_err += sc->errors;
				printf("soak: cpu %u: %" PRIu64 " errors, first: %s\n", c, sc->errors,
				       sc->err[0] ? sc->err : "join/attach failed");
			}
		}
		if (viol > 0) {
			struct tlbgen_violation v;
			char buf[400];

			if (!tlbgen_oracle__violation(sys, 0, &v)) {
				tlbgen_oracle__format(&v, buf, sizeof(buf));
				printf("soak: violation: %s\n", buf);
			}
		}
		printf("round %3u profile=%-6s backend=%-6s ops=%" PRIu64 " violations=%ld warns=%ld "
		       "watchdog=%" PRIu64 " longest_ipi_wait=%.3f ms futex_sleeps=%" PRIu64 "\n",
		       round, prof, be == TLBGEN_IPI_SIGNAL ? "signal" : "poll", r_ops, viol, warns,
		       rs.watchdog_reports, (double)r_wait / 1e6, rs.futex_sleeps);
		fflush(stdout);
		{
			json_t *pa = json_pack("{s:i,s:s,s:s}", "round", (int)round, "profile", prof,
					       "backend", be == TLBGEN_IPI_SIGNAL ? "signal" : "poll");

			bench_meta_policy(prof, prof);
			bench_metric("ops", "ops", NULL, pa, (double)r_ops);
			bench_metric("violations", "violations", "lower", pa, (double)viol);
			bench_metric("warns", "WARNs", "lower", pa, (double)warns);
			bench_metric("watchdog_reports", "reports", "lower", pa,
				     (double)rs.watchdog_reports);
			bench_metric("longest_ipi_wait", "ms", "lower", pa, (double)r_wait / 1e6);
			bench_metric("futex_sleeps", "sleeps", NULL, pa, (double)rs.futex_sleeps);
			json_decref(pa);
		}
		total_ops += r_ops;
		total_viol += viol;
		total_warns += warns;
		total_wd += rs.watchdog_reports;
		if (r_wait > max_wait)
			max_wait = r_wait;
		tlbgen_system__destroy(sys);
		if (viol || warns || rs.watchdog_reports || total_err)
			status = 1;
		round++;
	}
	printf("soak total: %.0f s, %u rounds, ops=%" PRIu64 " flushes=%" PRIu64
	       " violations=%ld warns=%ld watchdog_reports=%" PRIu64 " errors=%" PRIu64
	       " longest_ipi_wait=%.3f ms => %s\n",
	       (double)(bench_now_ns() - t_start) / 1e9, round, total_ops, total_flushes,
	       total_viol, total_warns, total_wd, total_err, (double)max_wait / 1e6,
	       status ? "FAIL" : "ok");
	{
		json_t *pa = json_pack("{s:s}", "round", "total");

		bench_meta_seed(seed);
		bench_metric("seconds", "s", NULL, pa, (double)(bench_now_ns() - t_start) / 1e9);
		bench_metric("ops", "ops", NULL, pa, (double)total_ops);
		bench_metric("flushes", "flushes", NULL, pa, (double)total_flushes);
		bench_metric("violations", "violations", "lower", pa, (double)total_viol);
		bench_metric("warns", "WARNs", "lower", pa, (double)total_warns);
		bench_metric("watchdog_reports", "reports", "lower", pa, (double)total_wd);
		bench_metric("errors", "errors", "lower", pa, (double)total_err);
		bench_metric("longest_ipi_wait", "ms", "lower", pa, (double)max_wait / 1e6);
		json_decref(pa);
	}
	free(r);
	return status;
}
