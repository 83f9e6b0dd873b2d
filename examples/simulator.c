// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * examples/simulator.c - embedding libtlbgen in a simulator's event loop.
 *
 * The simulator owns time and costs; libtlbgen owns the TLB-shootdown
 * protocol. The library runs in stepped mode (no threads): the simulator
 * decides which emulated CPU acts next, delivers IPIs when its own IPI
 * latency says they arrive, and supplies the clock (struct tlbgen_clock), so
 * should_trim_cpumask()'s once-per-HZ decision follows simulated time.
 * Costs come from the trace hooks (tlbgen/trace.h):
 *  - line_access: a tiny MESI-like directory (one owner or a set of
 *    sharers per cacheline) charges a cache-to-cache transfer when the line
 *    is held elsewhere, a hit otherwise;
 *  - ipi_send / ipi_receive: interrupt send and entry costs, arrival time;
 *  - flush: INVLPG per page, or a full flush;
 *  - flush done (tlbgen_system__set_flush_done()): an initiator resumes
 *    after its last target's ack, learnt without polling every CPU.
 * TLB misses (tlbgen_access() returning 0) cost a page walk.
 *
 * It runs the same seeded program under two profiles and prints simulated
 * time and line transfers side by side. As a self-check it verifies that
 * the hooks saw exactly the events the library counted (and a completion
 * for every flush started), that the oracle stayed quiet, and that cpumask
 * trimming followed the injected clock.
 *
 * Usage: simulator [--seed N] [--ops N] [PROFILE_A [PROFILE_B]]
 * Exit: 0 on success, 1 when a self-check fails, 2 on bad arguments.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tlbgen/tlbgen.h>

#define NR_CPUS 8
#define NR_MMS 3
#define NR_PAGES 64UL
#define HZ 250
#define CPU_HZ 2000000000ULL		/* 2 GHz: cycles per simulated second */

/* Costs in cycles: the simulator's model, not the library's. */
enum {
	COST_OP = 50,			/* any library operation */
	COST_L1_HIT = 4,
	COST_C2C = 120,			/* cacheline from another core */
	COST_MEM = 250,			/* first touch: from memory */
	COST_RMW = 20,			/* extra for a locked instruction */
	COST_IPI_SEND = 400,
	COST_IPI_LATENCY = 1500,	/* send -> target interrupt */
	COST_IRQ_ENTRY = 600,
	COST_CALLBACK = 150,
	COST_ACK = 200,			/* last csd unlock seen by the waiter */
	COST_INVLPG = 120,
	COST_FULL_FLUSH = 600,
	COST_PAGE_WALK = 200,
	THINK_MAX = 1500000,		/* user work between operations */
};

/* ---- a MESI-like directory: who holds each line --------------------------- */

struct line {
	uintptr_t id;			/* 0: free slot */
	enum tlbgen_line kind;
	int owner;			/* -1: no exclusive owner */
	uint64_t sharers;		/* bit per CPU (NR_CPUS <= 64) */
};

#define NR_LINES 4096
struct sim {
	struct tlbgen_system *sys;
	uint64_t t[NR_CPUS];		/* per-CPU simulated cycles */
	uint64_t arrival[NR_CPUS];	/* when the pending IPI reaches the CPU */
	uint64_t now;			/* global simulated time, for the clock */
	unsigned int cur;		/* the CPU whose actions are being charged */
	struct line lines[NR_LINES];
	/* What the hooks saw. */
	uint64_t transfers[TLBGEN_LINE_NR], accesses[TLBGEN_LINE_NR];
	uint64_t gen_reads, gen_rmws, ipis_sent, ipis_received;
	uint64_t flushes[4], pages;
	/* Flushes each CPU started and saw complete (tlbgen_system__set_flush_done()):
	 * a CPU is waiting while they differ, no polling of the library needed. */
	uint64_t flush_started[NR_CPUS], flush_done[NR_CPUS];
	bool delivering;		/* inside tlbgen_deliver() on `cur` */
};

static struct line *line_get(struct sim *s, uintptr_t id, enum tlbgen_line kind)
{
	size_t h = (size_t)((id >> 6) * 0x9E3779B97F4A7C15ULL) % NR_LINES;

	for (size_t i = 0; i < NR_LINES; i++, h = (h + 1) % NR_LINES) {
		if (s->lines[h].id == id)
			return &s->lines[h];
		if (!s->lines[h].id) {
			s->lines[h] = (struct line){ .id = id, .kind = kind, .owner = -1 };
			return &s->lines[h];
		}
	}
	abort();	/* more distinct lines than the table holds */
}

static void hook_line_access(void *ctx, unsigned int cpu, enum tlbgen_line kind, uintptr_t id,
			     enum tlbgen_access_op op)
{
	struct sim *s = ctx;
	struct line *l = line_get(s, id, kind);
	uint64_t me = 1ULL << cpu, cost;
	bool first = l->owner < 0 && !l->sharers;

	s->accesses[kind]++;
	if (kind == TLBGEN_LINE_MM_TLB_GEN)
		op == TLBGEN_OP_READ ? s->gen_reads++ : s->gen_rmws++;
	if (op == TLBGEN_OP_READ) {
		if (l->owner == (int)cpu || (l->owner < 0 && (l->sharers & me))) {
			cost = COST_L1_HIT;
		} else {
			cost = first ? COST_MEM : COST_C2C;
			if (!first)
				s->transfers[kind]++;
			if (l->owner >= 0)	/* M -> S on the old owner */
				l->sharers = 1ULL << l->owner;
			l->owner = -1;
			l->sharers |= me;
		}
	} else {
		if (l->owner == (int)cpu) {
			cost = COST_L1_HIT;
		} else {
			/* Read-for-ownership: invalidate every other copy. */
			bool elsewhere = l->owner >= 0 || (l->sharers & ~me);

			cost = first ? COST_MEM : elsewhere ? COST_C2C : COST_L1_HIT;
			if (elsewhere)
				s->transfers[kind]++;
			l->owner = (int)cpu;
			l->sharers = 0;
		}
		if (op == TLBGEN_OP_RMW)
			cost += COST_RMW;
	}
	/* Charged to the CPU doing the access: the library tells us which. */
	s->t[cpu] += cost;
}

static void hook_ipi_send(void *ctx, unsigned int from, unsigned int to)
{
	struct sim *s = ctx;

	s->ipis_sent++;
	s->t[from] += COST_IPI_SEND;
	s->arrival[to] = s->t[from] + COST_IPI_LATENCY;
}

static void hook_ipi_receive(void *ctx, unsigned int cpu, unsigned int from)
{
	struct sim *s = ctx;

	(void)from;
	s->ipis_received++;
	s->t[cpu] += COST_CALLBACK;
}

static void hook_flush(void *ctx, unsigned int cpu, enum tlbgen_flush_kind kind,
		       unsigned long pages)
{
	struct sim *s = ctx;

	if ((unsigned int)kind < 4)
		s->flushes[kind]++;
	s->pages += pages;
	s->t[cpu] += kind == TLBGEN_FLUSH_KIND_PARTIAL || kind == TLBGEN_FLUSH_KIND_KERNEL
			     ? pages * COST_INVLPG
			     : COST_FULL_FLUSH;
}

/* The injected clock: jiffies of simulated time. */
static uint64_t sim_jiffies(void *ctx)
{
	const struct sim *s = ctx;

	return s->now / (CPU_HZ / HZ);
}

/* ---- the event loop ------------------------------------------------------- */

static uint64_t rnd(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

struct run_result {
	uint64_t cycles_max, cycles_sum, stats[TLBGEN_STAT_NR];
	uint64_t transfers[TLBGEN_LINE_NR], jiffies;
	long violations;
	int checks_failed;
};

/* An initiator's last ack came in: it resumes after it (completion inside
 * its own flush call, with nothing to wait for, costs no ack). */
static void on_flush_done(void *ctx, unsigned int initiator)
{
	struct sim *s = ctx;

	s->flush_done[initiator]++;
	if (s->delivering && s->t[initiator] < s->t[s->cur] + COST_ACK)
		s->t[initiator] = s->t[s->cur] + COST_ACK;
}

static int check(struct run_result *r, const char *what, uint64_t hook, uint64_t lib)
{
	if (hook == lib)
		return 0;
	fprintf(stderr, "self-check: %s: hooks saw %" PRIu64 ", library counted %" PRIu64 "\n",
		what, hook, lib);
	r->checks_failed++;
	return 1;
}

/* Next event: the earliest IPI arrival or runnable CPU, at the time returned;
 * *cpu is -1 when there is none, *deliver set for an IPI delivery. */
static uint64_t sim_next_event(const struct sim *s, bool ops_left, int *cpu, int *deliver)
{
	uint64_t best = UINT64_MAX;

	*cpu = -1;
	*deliver = 0;
	for (unsigned int c = 0; c < NR_CPUS; c++) {
		uint64_t ev;

		if (tlbgen_cpu__ipi_pending(s->sys, c) == 1) {
			ev = s->t[c] > s->arrival[c] ? s->t[c] : s->arrival[c];
			if (ev < best)
				best = ev, *cpu = (int)c, *deliver = 1;
		} else if (ops_left && s->flush_started[c] == s->flush_done[c] &&
			   s->t[c] < best) {
			best = s->t[c], *cpu = (int)c, *deliver = 0;
		}
	}
	return best;
}

/* One operation of CPU `cpu`'s program: *kind is what was drawn, *flush set
 * when it is a flush (completion reported); returns the library's answer. */
static int sim_op(struct sim *s, unsigned int cpu, struct tlbgen_mm **mm,
		  struct tlbgen_tlbbatch **batch, uint64_t *rng, unsigned int *kind, bool *flush)
{
	uint64_t r0 = rnd(rng), r1 = rnd(rng);
	struct tlbgen_mm *m = mm[(r0 >> 8) % NR_MMS];
	unsigned long addr = ((r1 % NR_PAGES) << TLBGEN_PAGE_SHIFT);
	unsigned long end = addr + ((1 + (r1 >> 32) % 4) << TLBGEN_PAGE_SHIFT);
	int ret = 0;

	*kind = (unsigned int)(r0 % 100);
	*flush = true;
	if (end > NR_PAGES << TLBGEN_PAGE_SHIFT)
		end = NR_PAGES << TLBGEN_PAGE_SHIFT;
	s->t[cpu] += COST_OP + (r1 >> 16) % THINK_MAX;
	if (*kind < 15) {
		*flush = false;
		ret = tlbgen_switch_mm(s->sys, cpu, (r0 >> 20) % 8 ? m : NULL);
	} else if (*kind < 22) {
		*flush = false;
		ret = tlbgen_enter_lazy_tlb(s->sys, cpu);
	} else if (*kind < 70) {
		*flush = false;
		for (unsigned int k = 0; k < 8; k++) {
			unsigned long a = ((addr >> TLBGEN_PAGE_SHIFT) + k) % NR_PAGES;

			ret = tlbgen_access(s->sys, cpu, a << TLBGEN_PAGE_SHIFT);
			if (ret == 0)
				s->t[cpu] += COST_PAGE_WALK;
		}
	} else if (*kind < 90) {
		for (unsigned long a = addr; a < end; a += TLBGEN_PAGE_SIZE)
			tlbgen_pte_change(s->sys, cpu, m, a);
		ret = tlbgen_flush_tlb_mm_range(s->sys, cpu, m, addr, end, TLBGEN_PAGE_SHIFT,
						false);
	} else if (*kind < 98) {
		tlbgen_pte_change(s->sys, cpu, m, addr);
		tlbgen_arch_tlbbatch_add_pending(s->sys, cpu, batch[cpu], m, addr,
						 addr + TLBGEN_PAGE_SIZE);
		*flush = (r0 >> 40) % 4 == 0;
		if (*flush)
			ret = tlbgen_arch_tlbbatch_flush(s->sys, cpu, batch[cpu]);
	} else {
		ret = tlbgen_flush_tlb_kernel_range(s->sys, cpu, 0, 2 * TLBGEN_PAGE_SIZE);
	}
	return ret;
}

/* The event loop: `ops` operations, then every IPI they left pending. */
static int sim_loop(struct sim *s, struct tlbgen_mm **mm, struct tlbgen_tlbbatch **batch,
		    uint64_t seed, unsigned int ops)
{
	uint64_t rng = seed;
	unsigned int done = 0;

	for (;;) {
		int cpu, deliver, ret;
		uint64_t best = sim_next_event(s, done < ops, &cpu, &deliver);
		unsigned int kind;
		bool flush;

		if (cpu < 0)
			break;	/* nothing pending, every op issued */
		if (best > s->now)
			s->now = best;
		s->cur = (unsigned int)cpu;
		s->t[cpu] = best;

		if (deliver) {
			s->t[cpu] += COST_IRQ_ENTRY;
			s->delivering = true;	/* completions now: on_flush_done() */
			tlbgen_deliver(s->sys, (unsigned int)cpu);
			s->delivering = false;
			continue;
		}

		done++;
		ret = sim_op(s, (unsigned int)cpu, mm, batch, &rng, &kind, &flush);
		/* Refusals the program may meet: no user mm (access while lazy or on
		 * init_mm). Anything else is a bug in this loop. */
		if (ret < 0 && ret != -ESRCH) {
			fprintf(stderr, "simulator: cpu %d op %u: %s\n", cpu, kind, strerror(-ret));
			return ret;
		}
		if (flush && ret == 0)
			s->flush_started[cpu]++;
	}
	return 0;
}

/* Fill *r with what the run cost and what the library counted, then check
 * the two agree: the hooks are the same trace the counters come from. */
static void sim_report(struct sim *s, struct run_result *r, const char *profile)
{
	uint64_t jf;

	tlbgen_stats__system(s->sys, r->stats, TLBGEN_STAT_NR);
	r->violations = tlbgen_oracle__violations(s->sys);
	tlbgen_system__jiffies(s->sys, &jf);
	r->jiffies = jf;
	for (unsigned int c = 0; c < NR_CPUS; c++) {
		r->cycles_sum += s->t[c];
		if (s->t[c] > r->cycles_max)
			r->cycles_max = s->t[c];
	}
	memcpy(r->transfers, s->transfers, sizeof(r->transfers));

	check(r, "ipi_send", s->ipis_sent, r->stats[TLBGEN_STAT_IPI_SENT]);
	for (unsigned int c = 0; c < NR_CPUS; c++) {
		check(r, "flush completions", s->flush_done[c], s->flush_started[c]);
		check(r, "waiting at the end", (uint64_t)tlbgen_cpu__is_waiting(s->sys, c), 0);
	}
	check(r, "ipi_receive", s->ipis_received, r->stats[TLBGEN_STAT_IPI_RECEIVED]);
	check(r, "tlb_gen reads", s->gen_reads, r->stats[TLBGEN_STAT_TLB_GEN_READ]);
	check(r, "tlb_gen RMWs", s->gen_rmws, r->stats[TLBGEN_STAT_TLB_GEN_RMW]);
	check(r, "partial flushes", s->flushes[TLBGEN_FLUSH_KIND_PARTIAL],
	      r->stats[TLBGEN_STAT_PARTIAL_FLUSH]);
	check(r, "switch_mm flushes", s->flushes[TLBGEN_FLUSH_KIND_SWITCH],
	      r->stats[TLBGEN_STAT_SWITCH_MM_FLUSH]);
	check(r, "kernel flushes", s->flushes[TLBGEN_FLUSH_KIND_KERNEL],
	      r->stats[TLBGEN_STAT_KERNEL_FLUSH]);
	check(r, "injected clock", jf, sim_jiffies(s));
	if (r->violations) {
		fprintf(stderr, "self-check: %s: %ld oracle violations\n", profile, r->violations);
		r->checks_failed++;
	}
	/* should_trim_cpumask() fires at most once per HZ per mm, by our clock. */
	if (r->stats[TLBGEN_STAT_TRIM_CPUMASK] > NR_MMS * (jf / HZ + 1)) {
		fprintf(stderr, "self-check: %" PRIu64 " trims in %" PRIu64 " jiffies\n",
			r->stats[TLBGEN_STAT_TRIM_CPUMASK], jf);
		r->checks_failed++;
	}
}

static int run(const char *profile, uint64_t seed, unsigned int ops, struct run_result *r)
{
	static struct sim s;
	struct tlbgen_clock clock = { .jiffies = sim_jiffies, .ctx = &s, .hz = HZ };
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = NR_CPUS, .mode = TLBGEN_MODE_STEPPED,
		    .profile = profile, .seed = seed, .clock = &clock);
	TLBGEN_OPTS(tlbgen_trace_ops, hooks, .line_access = hook_line_access,
		    .ipi_send = hook_ipi_send, .ipi_receive = hook_ipi_receive,
		    .flush = hook_flush, .ctx = &s);
	struct tlbgen_mm *mm[NR_MMS];
	struct tlbgen_tlbbatch *batch[NR_CPUS];
	int err;

	memset(&s, 0, sizeof(s));
	memset(r, 0, sizeof(*r));
	if ((err = tlbgen_system__create(&o, &s.sys)))
		return err;
	if ((err = tlbgen_system__set_trace(s.sys, &hooks)) ||
	    (err = tlbgen_system__set_flush_done(s.sys, on_flush_done, &s)))
		goto out;
	for (unsigned int i = 0; i < NR_MMS; i++)
		if ((err = tlbgen_mm__create(s.sys, NR_PAGES, &mm[i])))
			goto out;
	for (unsigned int c = 0; c < NR_CPUS; c++) {
		if ((err = tlbgen_tlbbatch__create(s.sys, &batch[c])))
			goto out;
		tlbgen_switch_mm(s.sys, c, mm[c % NR_MMS]);
	}
	if ((err = sim_loop(&s, mm, batch, seed, ops)))
		goto out;

	sim_report(&s, r, profile);
	err = 0;
	for (unsigned int c = 0; c < NR_CPUS; c++)
		tlbgen_tlbbatch__destroy(batch[c]);
out:
	tlbgen_system__destroy(s.sys);
	return err;
}

int main(int argc, char **argv)
{
	const char *prof[2] = { "v5.17", "latest" };
	uint64_t seed = 1;
	unsigned int ops = 40000, np = 0;
	static struct run_result r[2];
	int failed = 0;

	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--seed") || !strcmp(argv[i], "--ops")) && i + 1 < argc) {
			char *end;
			unsigned long long v = strtoull(argv[i + 1], &end, 0);

			if (*end || !*argv[i + 1])
				goto usage;
			if (argv[i][2] == 's')
				seed = v;
			else
				ops = (unsigned int)v;
			i++;
		} else if (argv[i][0] != '-' && np < 2) {
			prof[np++] = argv[i];
		} else {
			goto usage;
		}
	}

	for (int k = 0; k < 2; k++) {
		int err = run(prof[k], seed, ops, &r[k]);

		if (err) {
			fprintf(stderr, "simulator: %s: %s\n", prof[k], strerror(-err));
			return err == -ENOENT || err == -EINVAL ? 2 : 1;
		}
		failed += r[k].checks_failed;
	}

	printf("%u CPUs, %u operations, seed %" PRIu64 ", %d-cycle cache-to-cache transfer\n\n",
	       NR_CPUS, ops, seed, COST_C2C);
	printf("%-28s %14s %14s\n", "", prof[0], prof[1]);
	printf("%-28s %14.3f %14.3f\n", "simulated seconds (max CPU)",
	       (double)r[0].cycles_max / CPU_HZ, (double)r[1].cycles_max / CPU_HZ);
	printf("%-28s %14" PRIu64 " %14" PRIu64 "\n", "jiffies (injected clock)", r[0].jiffies,
	       r[1].jiffies);
	for (int l = 0; l < TLBGEN_LINE_NR; l++) {
		static const char *const names[TLBGEN_LINE_NR] = {
			"mm tlb_gen", "mm_cpumask", "mm next_trim", "cpu_tlbstate",
			"cpu_tlbstate_shared", "flush_tlb_info", "call_single_queue", "csd",
		};
		char label[64];

		snprintf(label, sizeof(label), "transfers: %s", names[l]);
		printf("%-28s %14" PRIu64 " %14" PRIu64 "\n", label, r[0].transfers[l],
		       r[1].transfers[l]);
	}
	for (int st = 0; st < TLBGEN_STAT_NR; st++) {
		static const enum tlbgen_stat show[] = {
			TLBGEN_STAT_IPI_SENT, TLBGEN_STAT_TLB_GEN_READ, TLBGEN_STAT_FULL_FLUSH,
			TLBGEN_STAT_PARTIAL_FLUSH, TLBGEN_STAT_TRIM_CPUMASK,
		};

		for (size_t k = 0; k < sizeof(show) / sizeof(show[0]); k++)
			if (show[k] == (enum tlbgen_stat)st)
				printf("%-28s %14" PRIu64 " %14" PRIu64 "\n",
				       tlbgen_stat_name((enum tlbgen_stat)st), r[0].stats[st],
				       r[1].stats[st]);
	}
	printf("%-28s %14ld %14ld\n", "oracle violations", r[0].violations, r[1].violations);
	printf("\nself-checks: %s\n", failed ? "FAILED" : "hooks == counters, clock followed");
	return failed ? 1 : 0;

usage:
	fprintf(stderr, "usage: simulator [--seed N] [--ops N] [PROFILE_A [PROFILE_B]]\n");
	return 2;
}
