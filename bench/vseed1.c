// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/vseed1.c - tlbgen-bench seed001 --mode virtual: seed 001 (Rik van
 * Riel, 6db2526c1d69 "x86,mm: only trim the mm_cpumask once a second") in
 * virtual time: will-it-scale tlb_flush2_threads under three mm_cpumask
 * policies, with the seed's figures beside the model's.
 *
 * The workload, from will-it-scale's tests/tlb_flush2.c: each thread maps a
 * private anonymous 1 MiB region; for each of its 256 pages it writes the
 * page (a fault allocates it), madvise(MADV_DONTNEED)s that one page (zap
 * and a one-page flush on every CPU of mm_cpumask) and reads it back (a
 * second fault maps the zero page); one operation per page. After the 256th
 * page it munmap()s the region (zapping the 256 zero-page PTEs: a full
 * flush, 256 pages being over the 33-page ceiling) and mmap()s a new one.
 *
 * Why CPUs leave the mm: madvise() takes mmap_lock for read, munmap() and
 * mmap() take it for write, so while a writer holds or waits for the lock
 * the readers that arrive sleep on the rwsem, and their CPUs go idle
 * (threads are pinned: will-it-scale's default, which the kernel test robot
 * kept: "python3 ./runtest.py tlb_flush2 295 thread 0 0 104", the first 0
 * keeping affinity). The switch to the idle task makes the CPU lazy; a
 * flush IPI sent before that and taken in idle finds it lazy, and
 * flush_tlb_func() then switches it to init_mm; so does the idle driver
 * before a C-state that loses the TLB (CPUIDLE_FLAG_TLB_FLUSHED,
 * cpuidle_enter_state() calls leave_mm()). Before 209954cbc7d0 that switch
 * cleared the CPU from mm_cpumask; with it the CPU stays, is not lazy on
 * init_mm, and takes the next flush of the mm in idle (tlb_is_not_lazy()
 * is true), waking up to clear itself - the report's profile shows
 * flush_tlb_func from cpuidle_enter_state going from 1.9% to 11.2% of
 * cycles. should_flush_tlb() (6db2526c1d69) skips such a CPU unless the
 * once-per-HZ trim is due.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tlbgen/tlbgen.h>

#include "bench.h"
#include "results.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* tests/tlb_flush2.c: MEMORYSIZE 1 MiB of 4 KiB pages. */
#define REGION_PAGES	256

/*
 * The three policies, each one kernel commit apart, on the base of the
 * report (7e33001b8b, v6.13's "Put cpumask_test_cpu() check in
 * switch_mm_irqs_off() under CONFIG_DEBUG_VM"): v6.8's choices are that
 * tree's for everything else (tlbgen-bench versions).
 */
static const struct { const char *label, *spec; } pol_def[3] = {
	{ "clear-on-switch (7e33001b8b)", "v6.8:same_mm_cpumask_check=debug_vm" },
	{ "lazy, untrimmed (209954cbc7d0)",
	  "v6.8:same_mm_cpumask_check=debug_vm,mm_cpumask=lazy,wrong_mm=remote-clear" },
	{ "lazy, trimmed per HZ (6db2526c1d69)",
	  "v6.8:same_mm_cpumask_check=debug_vm,mm_cpumask=lazy,wrong_mm=remote-clear,"
	  "ipi_cond=should_flush_tlb,trim_cpumask=per-hz" },
};
static const char *const pol_short[3] = { "clear", "lazy", "trim" };

/*
 * The seed's figures. The kernel test robot (202411282207.6bd28eae-lkp):
 * 104 threads on lkp-skl-fpga01 (2 sockets, 104 CPUs), per_thread_ops 7276
 * at 7e33001b8b, 6315 (-13.2%) at 209954cbc7d0: nr_task=100%, so the row
 * for as many threads as the machine has CPUs. Rik van Riel (seed 001): his
 * patch over lazy untrimmed is 3.6% faster in total runtime of
 * "tlbflush2 -t 40" on a 2 x 20-core, 80-CPU box: the 40-thread row.
 */
#define SEED_LAZY_CHG	(-13.2)
#define SEED_TRIM_CHG	(+3.6)

/*
 * The idle states of a Skylake-SP (intel_idle.c, skx_cstates[]): exit
 * latency and target residency in us; C6 has CPUIDLE_FLAG_TLB_FLUSHED.
 */
static const struct { const char *name; unsigned int exit_us, residency_us; bool tlb_flushed; }
	cstate[3] = {
	{ "C1", 2, 2, false }, { "C1E", 10, 20, false }, { "C6", 133, 600, true },
};

/* mmap_lock: a FIFO-fair rwsem of the program's own (not the library's). */
struct rwsem {
	unsigned int readers;	/* read holders */
	int writer;		/* the CPU holding it for write, or -1 */
	unsigned int *q;	/* waiting CPUs, a ring of nr_cpus */
	bool *q_write;		/* per ring slot: waits for write */
	unsigned int head, n, cap;
	struct bench_vt_line line;	/* the count's */
};

struct v1 {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	const struct tlbgen_machine *m;
	unsigned int threads;
	struct rwsem sem;
	bool *granted;		/* per CPU: the lock was handed to it */
	unsigned int *woken;	/* scratch: the readers one release wakes */
	uint64_t *last_idle;	/* per CPU: its previous blocked period, cycles */
	unsigned long *ops;
	uint64_t c6, idle_periods, idle_cycles;
	uint64_t stale_ipis;	/* IPIs raised to CPUs that had another mm loaded */
};

/* A locked RMW on the rwsem's count: one transfer of its line. */
static int sem_line(struct v1 *v, unsigned int cpu)
{
	return bench_vt_line_rmw(v->sys, v->m, &v->sem.line, cpu);
}

static void sem_enqueue(struct rwsem *s, unsigned int cpu, bool write)
{
	unsigned int slot = (s->head + s->n++) % s->cap;

	s->q[slot] = cpu;
	s->q_write[slot] = write;
}

/*
 * Sleep until the lock is handed over: schedule() to the idle task
 * (enter_lazy_tlb), the governor's idle state (leave_mm() before one that
 * loses the TLB), the wait, and the switch back to the thread's mm.
 * 1 when the run's deadline came first.
 */
static int sem_sleep(struct v1 *v, unsigned int cpu)
{
	const struct tlbgen_machine *m = v->m;
	unsigned int k = 0;
	int r = 0, err;

	/*
	 * The governor: the deepest state whose target residency the CPU's
	 * previous blocked period covered. The menu governor predicts from
	 * the recent idle periods; one period is the simplest such predictor.
	 */
	for (unsigned int i = 0; i < ARRAY_SIZE(cstate); i++)
		if (v->last_idle[cpu] >= (uint64_t)cstate[i].residency_us * m->mhz)
			k = i;
	err = tlbgen_enter_lazy_tlb(v->sys, cpu);
	if (!err && cstate[k].tlb_flushed) {
		v->c6++;
		err = tlbgen_leave_mm(v->sys, cpu);
	}
	while (!err && !v->granted[cpu] && r != 1) {
		uint64_t slept = 0;

		r = tlbgen_vtime__block(v->sys, cpu, UINT64_MAX,
					(uint64_t)cstate[k].exit_us * m->mhz, &slept);
		if (r < 0)
			err = r;
		v->last_idle[cpu] = slept;
		v->idle_periods++;
		v->idle_cycles += slept;
	}
	if (!err)
		err = tlbgen_switch_mm(v->sys, cpu, v->mm);
	return err ? err : (v->granted[cpu] ? 0 : 1);
}

static int down_read(struct v1 *v, unsigned int cpu)
{
	struct rwsem *s = &v->sem;
	int err = sem_line(v, cpu);

	if (err)
		return err;
	if (s->writer < 0 && !s->n) {
		s->readers++;
		return 0;
	}
	v->granted[cpu] = false;
	sem_enqueue(s, cpu, false);
	return sem_sleep(v, cpu);
}

static int down_write(struct v1 *v, unsigned int cpu)
{
	struct rwsem *s = &v->sem;
	int err = sem_line(v, cpu);

	if (err)
		return err;
	if (s->writer < 0 && !s->readers && !s->n) {
		s->writer = (int)cpu;
		return 0;
	}
	v->granted[cpu] = false;
	sem_enqueue(s, cpu, true);
	return sem_sleep(v, cpu);
}

/*
 * Hand the lock to the waiters at the head: one writer, or every waiting
 * reader (rwsem_mark_wake() wakes all readers in the queue since
 * 4f23dbc1e657), each woken by the releaser.
 */
static int sem_handoff(struct v1 *v, unsigned int cpu)
{
	struct rwsem *s = &v->sem;
	unsigned int keep = 0, n = s->n, nw = 0;
	int err = 0;

	if (!n)
		return 0;
	if (s->q_write[s->head]) {
		unsigned int w = s->q[s->head];

		s->head = (s->head + 1) % s->cap;
		s->n--;
		s->writer = (int)w;
		v->granted[w] = true;
		return tlbgen_vtime__wake(v->sys, cpu, w);
	}
	/* Readers leave the ring; writers keep their order. */
	for (unsigned int i = 0; i < n; i++) {
		unsigned int slot = (s->head + i) % s->cap, c = s->q[slot];

		if (s->q_write[slot]) {
			unsigned int to = (s->head + keep++) % s->cap;

			s->q[to] = c;
			s->q_write[to] = true;
			continue;
		}
		s->readers++;
		v->granted[c] = true;
		v->woken[nw++] = c;
	}
	s->n = keep;
	for (unsigned int i = 0; !err && i < nw; i++)
		err = tlbgen_vtime__wake(v->sys, cpu, v->woken[i]);
	return err;
}

static int up_read(struct v1 *v, unsigned int cpu)
{
	struct rwsem *s = &v->sem;
	int err = sem_line(v, cpu);

	if (err)
		return err;
	/* Readers only wait behind a writer: the last reader out hands over. */
	return --s->readers ? 0 : sem_handoff(v, cpu);
}

static int up_write(struct v1 *v, unsigned int cpu)
{
	int err = sem_line(v, cpu);

	if (err)
		return err;
	v->sem.writer = -1;
	return sem_handoff(v, cpu);
}

/* The fault of a store or a load to a missing page: install it, refill. */
static int fault(struct v1 *v, unsigned int cpu, unsigned long addr)
{
	int err = tlbgen_vtime__event(v->sys, cpu, TLBGEN_VT_PAGE_FAULT, 1);

	if (!err)
		err = tlbgen_pte_change(v->sys, cpu, v->mm, addr);
	if (!err)
		err = tlbgen_access(v->sys, cpu, addr) < 0;
	return err;
}

/*
 * munmap() of the region, then mmap() of the next, each under the write
 * lock. munmap zaps the 256 zero-page PTEs the reads left and flushes the
 * range: over the ceiling, a full flush. No page table is freed: the
 * regions of the other threads are its neighbours (free_pgtables() frees
 * the PTE page only when nothing else maps its 2 MiB), so freed_tables is
 * false. The VMA work has no measured cost here: munmap is charged one zap,
 * mmap one fault's worth (estimates, as the machine's zap and page_fault).
 */
static int remap(struct v1 *v, unsigned int cpu, unsigned long base)
{
	int err = tlbgen_vtime__event(v->sys, cpu, TLBGEN_VT_SYSCALL, 1);
	int r;

	r = err ? err : down_write(v, cpu);
	if (r)
		return r;
	err = tlbgen_vtime__event(v->sys, cpu, TLBGEN_VT_ZAP, 1);
	for (unsigned long p = 0; !err && p < REGION_PAGES; p++)
		err = tlbgen_pte_change(v->sys, cpu, v->mm, base + (p << TLBGEN_PAGE_SHIFT));
	if (!err)
		err = tlbgen_flush_tlb_mm_range(v->sys, cpu, v->mm, base,
						base + ((unsigned long)REGION_PAGES << TLBGEN_PAGE_SHIFT),
						TLBGEN_PAGE_SHIFT, false);
	if (!err)
		err = up_write(v, cpu);
	if (!err)
		err = tlbgen_vtime__event(v->sys, cpu, TLBGEN_VT_SYSCALL, 1);
	r = err ? err : down_write(v, cpu);
	if (r)
		return r;
	err = tlbgen_vtime__event(v->sys, cpu, TLBGEN_VT_PAGE_FAULT, 1);
	return err ? err : up_write(v, cpu);
}

/*
 * One thread of tlb_flush2_threads on CPU `cpu` (thread i on CPU i, as
 * will-it-scale pins them in hwloc's order, which fills a socket first).
 * Threads start at page i * 256 / threads of their region: in the steady
 * state of a 295 s run the threads' munmap phases are spread, not aligned.
 */
static int tlb_flush2_thread(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct v1 *v = arg;
	unsigned long base = (unsigned long)cpu * REGION_PAGES << TLBGEN_PAGE_SHIFT;
	unsigned int page = cpu * REGION_PAGES / v->threads;
	int err = tlbgen_switch_mm(sys, cpu, v->mm), r = 0;

	while (!err && !tlbgen_cpu__should_stop(sys, cpu)) {
		unsigned long addr = base + ((unsigned long)page << TLBGEN_PAGE_SHIFT);

		/* *(addr) = 1: an anonymous fault under the per-VMA lock
		 * (lock_vma_under_rcu() in the report's profile): no mmap_lock. */
		err = tlbgen_vtime__event(sys, cpu, TLBGEN_VT_USER_WORK, 1);
		if (!err)
			err = fault(v, cpu, addr);
		/* madvise(addr, 4096, MADV_DONTNEED) under mmap_lock for read. */
		if (!err)
			err = tlbgen_vtime__event(sys, cpu, TLBGEN_VT_SYSCALL, 1);
		r = err ? err : down_read(v, cpu);
		if (r)
			break;
		err = tlbgen_vtime__event(sys, cpu, TLBGEN_VT_PTL, 1);
		if (!err)
			err = tlbgen_pte_change(sys, cpu, v->mm, addr);
		if (!err)
			err = tlbgen_vtime__event(sys, cpu, TLBGEN_VT_ZAP, 1);
		if (!err)
			err = tlbgen_flush_tlb_page(sys, cpu, v->mm, addr);
		if (!err)
			err = up_read(v, cpu);
		/* assert(*(addr) == 0): a read fault maps the zero page. */
		if (!err)
			err = fault(v, cpu, addr);
		if (err)
			break;
		v->ops[cpu]++;
		if (++page == REGION_PAGES) {
			page = 0;
			r = remap(v, cpu, base);
			if (r)
				break;
		}
	}
	/* 1: the deadline came while the thread slept on mmap_lock. */
	return err ? err : (r < 0 ? r : 0);
}

/* The ipi_send hook: an IPI to a CPU that runs another mm (init_mm, after
 * it went idle) is one the lazy cpumask causes. */
static void v1_ipi_send(void *ctx, unsigned int from, unsigned int to)
{
	struct v1 *v = ctx;

	(void)from;
	if (tlbgen_cpu__loaded_mm_is(v->sys, to, v->mm) != 1)
		v->stale_ipis++;
}

struct cell {
	double ops_per_thread;		/* per second of virtual time */
	double queued_per_flush;	/* flush_tlb_func requests sent per flush */
	double ipis_per_flush;		/* IPIs raised per flush */
	double stale_per_flush;		/* requests that found another mm loaded */
	double idle_ipis_per_flush;	/* interrupts taken by sleeping CPUs */
	double stale_ipis_per_flush;	/* IPIs raised to CPUs running another mm */
	double idle_pct;		/* share of the threads' time asleep on mmap_lock */
	double c6_per_op;
	uint64_t stats[TLBGEN_STAT_NR];
	long violations;
	uint64_t points;
	double xfer[TLBGEN_LINE_NR];
	double us_per_op[TLBGEN_VT_TIME_NR];	/* every CPU's clock per op, by kind */
	double line_us_per_op[TLBGEN_LINE_NR];	/* ... of the line kinds, per line */
};

static int run_cell(const struct tlbgen_machine *m, const char *profile, unsigned int threads,
		    double ms, uint64_t seed, struct cell *out)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .mode = TLBGEN_MODE_VIRTUAL, .profile = profile,
		    .seed = seed, .machine = m, .nr_cpus = bench_machine_cpus(m));
	struct tlbgen_vtime_stats st = { .sz = sizeof(st) };
	struct tlbgen_trace_ops hooks = { .sz = sizeof(hooks), .ipi_send = v1_ipi_send };
	uint64_t until = (uint64_t)(ms * m->mhz * 1000);
	struct v1 v = { .m = m, .threads = threads, .sem = { .writer = -1, .line = BENCH_VT_LINE_INIT } };
	unsigned long total = 0;
	uint64_t flushes;
	int err, ret;

	if (threads > o.nr_cpus)
		o.nr_cpus = threads;
	err = tlbgen_system__create(&o, &v.sys);
	if (err)
		return err;
	v.sem.cap = o.nr_cpus;
	v.sem.q = calloc(o.nr_cpus, sizeof(*v.sem.q));
	v.sem.q_write = calloc(o.nr_cpus, sizeof(*v.sem.q_write));
	v.granted = calloc(o.nr_cpus, sizeof(*v.granted));
	v.woken = calloc(o.nr_cpus, sizeof(*v.woken));
	v.last_idle = calloc(o.nr_cpus, sizeof(*v.last_idle));
	v.ops = calloc(o.nr_cpus, sizeof(*v.ops));
	err = v.sem.q && v.sem.q_write && v.granted && v.woken && v.last_idle && v.ops
		      ? tlbgen_mm__create(v.sys, (unsigned long)threads * REGION_PAGES, &v.mm)
		      : -ENOMEM;
	hooks.ctx = &v;
	if (!err)
		err = tlbgen_system__set_trace(v.sys, &hooks);
	for (unsigned int c = 0; !err && c < threads; c++)
		err = tlbgen_cpu__spawn(v.sys, c, tlb_flush2_thread, &v);
	if (!err)
		err = tlbgen_vtime__run(v.sys, until);
	for (unsigned int c = 0; c < threads; c++) {
		if (!tlbgen_cpu__join(v.sys, c, &ret) && ret && !err)
			err = ret;
		total += v.ops ? v.ops[c] : 0;
	}
	if (!err) {
		tlbgen_vtime__stats(v.sys, &st);
		tlbgen_stats__system(v.sys, out->stats, TLBGEN_STAT_NR);
		flushes = out->stats[TLBGEN_STAT_FLUSH_INITIATED] ? out->stats[TLBGEN_STAT_FLUSH_INITIATED]
								  : 1;
		out->ops_per_thread = total / (ms / 1000.0) / threads;
		out->queued_per_flush = (double)out->stats[TLBGEN_STAT_CALL_QUEUED] / flushes;
		out->ipis_per_flush = (double)out->stats[TLBGEN_STAT_IPI_SENT] / flushes;
		out->stale_per_flush = (double)(out->stats[TLBGEN_STAT_FLUSH_FUNC_WRONG_MM] +
						out->stats[TLBGEN_STAT_FLUSH_FUNC_INIT_MM]) /
				       flushes;
		out->idle_ipis_per_flush = (double)st.idle_ipis / flushes;
		out->stale_ipis_per_flush = (double)v.stale_ipis / flushes;
		out->idle_pct = 100.0 * v.idle_cycles / ((double)until * threads);
		out->c6_per_op = total ? (double)v.c6 / total : 0;
		out->violations = tlbgen_oracle__violations(v.sys);
		out->points = st.sched_points;
		for (int l = 0; l < TLBGEN_LINE_NR; l++) {
			out->xfer[l] = (double)st.transfers[l] / flushes;
			out->line_us_per_op[l] = total ? st.line_time[l] / (double)m->mhz / total : 0;
		}
		for (int k = 0; k < TLBGEN_VT_TIME_NR; k++)
			out->us_per_op[k] = total ? st.time[k] / (double)m->mhz / total : 0;
	}
	free(v.sem.q);
	free(v.sem.q_write);
	free(v.granted);
	free(v.woken);
	free(v.last_idle);
	free(v.ops);
	tlbgen_system__destroy(v.sys);
	return err;
}

/* acc += c, every figure; acc /= n by cell_div(). */
static void cell_add(struct cell *acc, const struct cell *c)
{
	acc->ops_per_thread += c->ops_per_thread;
	acc->queued_per_flush += c->queued_per_flush;
	acc->ipis_per_flush += c->ipis_per_flush;
	acc->stale_per_flush += c->stale_per_flush;
	acc->idle_ipis_per_flush += c->idle_ipis_per_flush;
	acc->stale_ipis_per_flush += c->stale_ipis_per_flush;
	acc->idle_pct += c->idle_pct;
	acc->c6_per_op += c->c6_per_op;
	for (int l = 0; l < TLBGEN_LINE_NR; l++) {
		acc->xfer[l] += c->xfer[l];
		acc->line_us_per_op[l] += c->line_us_per_op[l];
	}
	for (int k = 0; k < TLBGEN_VT_TIME_NR; k++)
		acc->us_per_op[k] += c->us_per_op[k];
	for (int i = 0; i < TLBGEN_STAT_NR; i++)
		acc->stats[i] += c->stats[i];
	acc->violations += c->violations;
	acc->points += c->points;
}

static void cell_div(struct cell *acc, unsigned int n)
{
	acc->ops_per_thread /= n;
	acc->queued_per_flush /= n;
	acc->ipis_per_flush /= n;
	acc->stale_per_flush /= n;
	acc->idle_ipis_per_flush /= n;
	acc->stale_ipis_per_flush /= n;
	acc->idle_pct /= n;
	acc->c6_per_op /= n;
	for (int l = 0; l < TLBGEN_LINE_NR; l++) {
		acc->xfer[l] /= n;
		acc->line_us_per_op[l] /= n;
	}
	for (int k = 0; k < TLBGEN_VT_TIME_NR; k++)
		acc->us_per_op[k] /= n;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tlbgen-bench seed001 --mode virtual [--machine SPEC] [--ms MS] [--seed N]\n"
		"                            [--runs N] [--threads N,N,...]\n"
		"  Seed 001 in virtual time: will-it-scale tlb_flush2_threads on a machine model\n"
		"  (default skx-2s-80: tlbgen/machine.h, docs/machines.md) under three mm_cpumask\n"
		"  policies: clear-on-switch (7e33001b8b), lazy untrimmed (209954cbc7d0), lazy\n"
		"  trimmed once per HZ (6db2526c1d69). Per-thread ops/s, the change of each\n"
		"  against clear-on-switch, the seed's figures (-13.2%% lazy at nr_task=100%%,\n"
		"  +3.6%% trimmed over lazy at 40 threads) and the error. --ms: virtual\n"
		"  milliseconds per run (default 20). --runs: runs per cell, seeds N, N+1, ...\n"
		"  (default 3), averaged. --threads: default 40 and the machine's CPU count.\n");
}

int bench_vseed1_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'M' }, { "machine", required_argument, NULL, 'm' },
		{ "ms", required_argument, NULL, 'd' }, { "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' }, { "runs", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_policy pol[3];
	struct cell last[3] = { 0 };	/* the last row's cells, for the MESI line */
	struct tlbgen_machine m;
	unsigned int runs = 3, ms = 20, threads[64], nt = 0, ncpu;
	unsigned long seed = 1;
	const char *machine = "skx-2s-80";
	uint64_t points = 0;
	double t0 = (bench_now_ns() / 1e9), lazy_chg_full = 0, trim_vs_lazy_40 = 0;
	bool have_full = false, have_40 = false;
	char desc[512];
	int opt, bad = 0, ret = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'M':
			if (strcmp(optarg, "virtual")) {
				fprintf(stderr, "tlbgen-bench: --mode: only 'virtual' here\n");
				bad = 1;
			}
			break;
		case 'm': machine = optarg; break;
		case 'd': bad |= bench_parse_uint("--ms", optarg, 1, 1000, &ms) != 0; break;
		case 's': bad |= bench_parse_ulong("--seed", optarg, 1, ~0UL, &seed) != 0; break;
		case 't': bad |= bench_parse_cpu_list("--threads", optarg, threads, 64, &nt) != 0; break;
		case 'r': bad |= bench_parse_uint("--runs", optarg, 1, 100, &runs) != 0; break;
		case 'h': usage(stdout); return 0;
		default: bad = 1; break;
		}
	}
	if (bad || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (tlbgen_machine_lookup(machine, &m))
		return 2;
	ncpu = bench_machine_cpus(&m);
	if (!nt) {
		threads[nt++] = ncpu >= 40 ? 40 : ncpu;
		if (ncpu != threads[0])
			threads[nt++] = ncpu;
	}
	for (unsigned int i = 0; i < nt; i++)
		if (threads[i] > ncpu) {
			fprintf(stderr, "tlbgen-bench: --threads: %u threads on %u CPUs (one per CPU)\n",
				threads[i], ncpu);
			return 2;
		}
	for (unsigned int k = 0; k < 3; k++)
		if (bench_policy_parse(pol_def[k].spec, &pol[k]))
			return 2;
	tlbgen_machine_describe(&m, desc, sizeof(desc));
	bench_meta_seed(seed);
	bench_meta_param("mode", json_string("virtual"));
	bench_meta_param("machine", json_string(desc));
	bench_meta_param("ms_per_cell", json_integer(ms));
	bench_meta_param("runs", json_integer(runs));
	printf("# seed 001: will-it-scale tlb_flush2_threads in virtual time, %u ms per cell, "
	       "mean of %u runs, seeds %lu..%lu\n", ms, runs, seed, seed + runs - 1);
	printf("# machine %s\n", desc);
	for (unsigned int k = 0; k < 3; k++)
		printf("# %-5s %s: %s\n", pol_short[k], pol_def[k].label, pol_def[k].spec);
	printf("# ops/s per thread; chg: against clear; seed: the robot's -13.2%% (lazy, nr_task=100%%)\n"
	       "# and Rik van Riel's +3.6%% (trim over lazy, 40 threads); err: model - seed, points\n");
	printf("%-7s %9s %9s %9s %8s %8s %8s %8s %8s %7s %20s %7s %14s %s\n", "threads", "clear", "lazy",
	       "trim", "lazy chg", "seed", "err", "trim chg", "trim/lzy", "seed",
	       "stale IPIs/flush", "asleep", "lazy chg range", "trim/lzy range");
	for (unsigned int i = 0; i < nt; i++) {
		struct cell c[3];
		double lz, tr, tl, seed_l = 0, seed_t = 0, lo, hi, tlo, thi;
		long viol = 0;
		int err = 0;

		memset(c, 0, sizeof(c));
		lo = tlo = 1e9;
		hi = thi = -1e9;
		for (unsigned int r = 0; r < runs && !err; r++) {
			struct cell one[3];

			memset(one, 0, sizeof(one));
			for (unsigned int k = 0; k < 3 && !err; k++) {
				err = run_cell(&m, pol[k].name, threads[i], ms, seed + r, &one[k]);
				cell_add(&c[k], &one[k]);
			}
			lz = bench_pct(one[1].ops_per_thread, one[0].ops_per_thread);
			lo = lz < lo ? lz : lo;
			hi = lz > hi ? lz : hi;
			tl = bench_pct(one[2].ops_per_thread, one[1].ops_per_thread);
			tlo = tl < tlo ? tl : tlo;
			thi = tl > thi ? tl : thi;
		}
		for (unsigned int k = 0; k < 3; k++) {
			cell_div(&c[k], runs);
			viol += c[k].violations;
			points += c[k].points;
		}
		if (err) {
			fprintf(stderr, "tlbgen-bench: %u threads: %s\n", threads[i], strerror(-err));
			return 1;
		}
		lz = bench_pct(c[1].ops_per_thread, c[0].ops_per_thread);
		tr = bench_pct(c[2].ops_per_thread, c[0].ops_per_thread);
		tl = bench_pct(c[2].ops_per_thread, c[1].ops_per_thread);
		if (threads[i] == ncpu) {
			seed_l = SEED_LAZY_CHG;
			have_full = true;
			lazy_chg_full = lz;
		}
		if (threads[i] == 40) {
			seed_t = SEED_TRIM_CHG;
			have_40 = true;
			trim_vs_lazy_40 = tl;
		}
		printf("%-7u %9.0f %9.0f %9.0f %+7.1f%% ", threads[i], c[0].ops_per_thread,
		       c[1].ops_per_thread, c[2].ops_per_thread, lz);
		if (seed_l)
			printf("%+7.1f%% %+8.1f ", seed_l, lz - seed_l);
		else
			printf("%8s %8s ", "-", "-");
		printf("%+7.1f%% %+7.1f%% ", tr, tl);
		if (seed_t)
			printf("%+6.1f%% ", seed_t);
		else
			printf("%7s ", "-");
		printf("%6.4f/%6.4f/%6.4f %6.1f%% %+5.1f..%+.1f%% %+5.1f..%+.1f%%\n",
		       c[0].stale_ipis_per_flush, c[1].stale_ipis_per_flush, c[2].stale_ipis_per_flush,
		       c[1].idle_pct, lo, hi, tlo, thi);
		if (viol) {
			fprintf(stderr, "tlbgen-bench: %u threads: %ld oracle violations\n", threads[i],
				viol);
			ret = 1;
		}
		for (unsigned int k = 0; k < 3; k++) {
			json_t *pa = json_pack("{s:s,s:s,s:i,s:s}", "mode", "virtual", "machine",
					       machine, "threads", (int)threads[i], "policy",
					       pol_short[k]);

			bench_metric("ops_per_thread_per_sec", "ops/s of virtual time", "higher", pa,
				     c[k].ops_per_thread);
			bench_metric("flush_requests_per_flush", "csds/flush", "lower", pa,
				     c[k].queued_per_flush);
			bench_metric("ipis_per_flush", "IPIs/flush", "lower", pa, c[k].ipis_per_flush);
			bench_metric("stale_requests_per_flush", "csds/flush", "lower", pa,
				     c[k].stale_per_flush);
			bench_metric("stale_ipis_per_flush", "IPIs/flush", "lower", pa,
				     c[k].stale_ipis_per_flush);
			bench_metric("idle_interrupts_per_flush", "interrupts/flush", "lower", pa,
				     c[k].idle_ipis_per_flush);
			bench_metric("asleep_pct", "%", NULL, pa, c[k].idle_pct);
			bench_metric("cpu_tlbstate_transfers_per_flush", "cacheline transfers/flush",
				     "lower", pa, c[k].xfer[TLBGEN_LINE_TLBSTATE]);
			bench_metric("mm_cpumask_transfers_per_flush", "cacheline transfers/flush",
				     "lower", pa, c[k].xfer[TLBGEN_LINE_MM_CPUMASK]);
			bench_metric("c6_entries_per_op", "entries/op", NULL, pa, c[k].c6_per_op);
			bench_metric("violations", "violations", "lower", pa, (double)c[k].violations);
			if (k)
				bench_metric("change_vs_clear_pct", "%", "higher", pa,
					     k == 1 ? lz : tr);
			if (k == 1 && seed_l) {
				bench_metric("seed_change_vs_clear_pct", "%", NULL, pa, seed_l);
				bench_metric("model_error_points", "points", NULL, pa, lz - seed_l);
			}
			if (k == 2) {
				bench_metric("change_vs_lazy_pct", "%", "higher", pa, tl);
				if (seed_t) {
					bench_metric("seed_change_vs_lazy_pct", "%", NULL, pa, seed_t);
					bench_metric("model_error_points", "points", NULL, pa,
						     tl - seed_t);
				}
			}
			json_decref(pa);
		}
		memcpy(last, c, sizeof(last));
		fflush(stdout);
	}
	printf("# stale IPIs/flush: IPIs raised to CPUs that had another mm (init_mm) loaded, per\n"
	       "# flush, clear/lazy/trim; asleep: the share of the threads' time they slept on\n"
	       "# mmap_lock (lazy); ranges: lazy chg and trim/lzy over the %u runs (seeds %lu..%lu)\n",
	       runs, seed, seed + runs - 1);
	if (nt)
		printf("# MESI at %u threads, transfers per flush clear/lazy/trim: cpu_tlbstate "
		       "%.2f/%.2f/%.2f, mm_cpumask %.2f/%.2f/%.2f\n",
		       threads[nt - 1], last[0].xfer[TLBGEN_LINE_TLBSTATE],
		       last[1].xfer[TLBGEN_LINE_TLBSTATE], last[2].xfer[TLBGEN_LINE_TLBSTATE],
		       last[0].xfer[TLBGEN_LINE_MM_CPUMASK], last[1].xfer[TLBGEN_LINE_MM_CPUMASK],
		       last[2].xfer[TLBGEN_LINE_MM_CPUMASK]);
	if (nt) {
		printf("# CPU time per op at %u threads, us (every CPU's clock, by kind, over the ops):\n",
		       threads[nt - 1]);
		for (int k = 0; k < 3; k++) {
			double sum = 0;

			printf("#   %-5s", pol_short[k]);
			for (unsigned int t = 0; t < TLBGEN_VT_TIME_NR; t++) {
				printf(" %s %.2f", tlbgen_vtime_time_name(t), last[k].us_per_op[t]);
				sum += last[k].us_per_op[t];
			}
			printf(" = %.2f; cpu_tlbstate line %.2f, mm_cpumask line %.2f\n", sum,
			       last[k].line_us_per_op[TLBGEN_LINE_TLBSTATE],
			       last[k].line_us_per_op[TLBGEN_LINE_MM_CPUMASK]);
		}
	}
	/* Seed 001's two figures: the robot's regression at nr_task=100%, and
	 * Rik van Riel's gain at "tlbflush2 -t 40". */
	if (have_full)
		printf("# done-when: lazy at %u threads %+.1f%% (band -25%%..-5%%): %s\n", ncpu,
		       lazy_chg_full, lazy_chg_full <= -5 && lazy_chg_full >= -25 ? "yes" : "no");
	if (have_40)
		printf("# done-when: trim over lazy at 40 threads %+.1f%% (seed %+.1f%%), a gain: %s\n",
		       trim_vs_lazy_40, SEED_TRIM_CHG, trim_vs_lazy_40 > 0 ? "yes" : "no");
	printf("# speed: %.1f M scheduling points in %.1f s: %.2f M points per host second\n",
	       points / 1e6, (bench_now_ns() / 1e9) - t0, points / 1e6 / ((bench_now_ns() / 1e9) - t0));
	return ret;
}
