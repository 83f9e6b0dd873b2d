// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/vseed.c - tlbgen-bench seed000 --mode virtual: seed 000's tables
 * (Nadav Amit, aa44284960) computed in virtual time on a machine model,
 * with the seed's figures beside the model's and the error per row.
 *
 * One operation of will-it-scale tlb_flush1_threads (tests/tlb_flush1.c):
 * each thread maps its own file MAP_PRIVATE and, page after page, writes
 * the page, madvise(MADV_DONTNEED)s it and reads it back. The read is a
 * read fault on the file: do_fault_around() maps the page-cache pages of
 * its aligned fault_around_bytes block (64 KiB, 16 pages) read-only. The
 * next page's write then finds a read-only PTE, and wp_page_copy() clears
 * it with ptep_clear_flush(), a one-page flush_tlb_mm_range() (IPIs to the
 * mm's CPUs that are not lazy), before it installs the private copy. So 15
 * pages in 16 flush twice: once in the write fault and once in madvise().
 * (This machine's 6.18 kernel, traced with tlb:tlb_flush: 1.98 remote
 * flushes per op for this loop, 1.00 for the same loop on anonymous memory.
 * In a thread's first pass over a sparse tmpfs file, shmem_fault() caches
 * only the faulting page, so that pass flushes about once per op.)
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tlbgen/tlbgen.h>

#include "bench.h"
#include "results.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The seed's first table: 56-core Skylake, v5.17+ against +aa44284960. */
static const struct { unsigned int threads; double base, patch; } seed_t1[] = {
	{ 1, 159960, 160202 }, { 5, 310808, 308378 }, { 10, 479110, 490728 },
	{ 15, 526771, 562528 }, { 20, 534495, 587316 }, { 25, 547462, 628296 },
	{ 30, 579616, 666313 }, { 35, 594134, 701814 }, { 40, 612288, 732967 },
	{ 45, 617517, 749727 }, { 50, 637476, 735497 }, { 55, 614363, 778913 },
};

/* Its second table (a Haswell box, PTI on): 5.18.1, +patch, "touch
 * mm->tlb_gen" (early return, tlb_gen read kept), "no mm->tlb_gen". */
static const struct { unsigned int threads; double col[4]; } seed_t2[] = {
	{ 1, { 159504, 159705, 159284, 159499 } }, { 5, { 326725, 320440, 323629, 303195 } },
	{ 10, { 489841, 497678, 498601, 442976 } }, { 15, { 552282, 576148, 570337, 503709 } },
	{ 20, { 588333, 628960, 619342, 551789 } }, { 25, { 637319, 675633, 659985, 591575 } },
	{ 30, { 643372, 691581, 670599, 613017 } }, { 35, { 677259, 706157, 689624, 646873 } },
	{ 40, { 659309, 728078, 716718, 655364 } }, { 45, { 670985, 735346, 696558, 665500 } },
};

static const char *const col_spec[4] = {
	"v5.17", "v6.0", "v6.0:mm_tlb_gen_read=always", "v6.0:mm_tlb_gen_read=never",
};
static const char *const col_label[4] = { "base", "+patch", "touch tlb_gen", "no tlb_gen" };

/* fault_around_bytes, rounddown_pow_of_two(65536), in 4 KiB pages. */
#define FAULT_AROUND_PAGES	16

/* The thread's load or store to `addr`: a TLB fill after a fault. Without
 * the oracle (the threaded side) there is no simulated TLB to fill. */
static int touch(struct tlbgen_system *sys, unsigned int cpu, unsigned long addr)
{
	int r = tlbgen_access(sys, cpu, addr);

	return r < 0 && r != -EOPNOTSUPP ? r : 0;
}

/*
 * How a mode does the kernel's work around the policy code: its events'
 * costs, and the locked RMWs on mmap_lock's count. Every fault and madvise()
 * of v5.17 and v6.0 takes mmap_lock for read (per-VMA locks came in v6.4):
 * down_read() and up_read() are one RMW each on a line all threads share.
 */
struct op_env {
	const struct tlbgen_machine *m;
	int (*charge)(struct tlbgen_system *sys, unsigned int cpu, const struct op_env *e,
		      enum tlbgen_vt_event ev);
	int (*mmap_lock_rmw)(struct tlbgen_system *sys, unsigned int cpu, const struct op_env *e);
	void *lock;		/* virtual: struct bench_vt_line; threaded: the count */
	/* mm->tlb_flush_pending: add `d` (inc_tlb_flush_pending() +1,
	 * dec_tlb_flush_pending() -1), or read it for mm_tlb_flush_nested(). */
	int (*flush_pending_add)(struct tlbgen_system *sys, unsigned int cpu,
				 const struct op_env *e, int d);
	int (*flush_pending_read)(struct tlbgen_system *sys, unsigned int cpu,
				  const struct op_env *e, int *val);
	void *pending;		/* virtual: struct vt_count; threaded: atomic_int */
	unsigned long *nested;	/* per CPU: madvise flushes tlb_finish_mmu() made
				 * full (may be NULL) */
};

/*
 * A fault on `addr` under mmap_read_trylock(): install the page and, after
 * the fault, fill the TLB. `cow`: the PTE is present and read-only, and
 * wp_page_copy() clears and flushes it before it installs the copy.
 */
static int fault(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
		 const struct op_env *e, unsigned long addr, bool cow)
{
	int err = e->mmap_lock_rmw(sys, cpu, e);

	if (!err)
		err = e->charge(sys, cpu, e, TLBGEN_VT_PAGE_FAULT);
	if (!err && cow)
		err = bench_wis_cow_flush(sys, cpu, mm, addr);
	if (!err)
		err = tlbgen_pte_change(sys, cpu, mm, addr);
	if (!err)
		err = e->mmap_lock_rmw(sys, cpu, e);
	if (!err)
		err = touch(sys, cpu, addr);
	return err;
}

/*
 * Operation `n` of a thread: page n % 16 of its own 16-page block (a block
 * per thread, so its page-table and fault-around behaviour are the file's).
 */
static int tlb_flush1_op(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			 const struct op_env *e, unsigned long n)
{
	unsigned long j = n % FAULT_AROUND_PAGES;
	unsigned long addr = ((unsigned long)cpu * FAULT_AROUND_PAGES + j) << TLBGEN_PAGE_SHIFT;
	int pending = 0;
	/* *(addr) = 1. Past a block's first page the previous read's
	 * fault-around left the PTE read-only: a COW. */
	int err = fault(sys, cpu, mm, e, addr, j != 0);

	/* madvise(MADV_DONTNEED): under mmap_read_lock(), zap_page_range()
	 * gathers (tlb_gather_mmu() raises mm->tlb_flush_pending), zaps under
	 * the PTL, and tlb_finish_mmu() flushes the page - or, when another
	 * thread's gather is in flight (mm_tlb_flush_nested()), the whole mm
	 * with freed_tables, which IPIs lazy CPUs too (7a30df49f63a) - and
	 * drops tlb_flush_pending. */
	if (!err)
		err = e->charge(sys, cpu, e, TLBGEN_VT_SYSCALL);
	if (!err)
		err = e->mmap_lock_rmw(sys, cpu, e);
	if (!err)
		err = e->flush_pending_add(sys, cpu, e, 1);
	if (!err)
		err = e->charge(sys, cpu, e, TLBGEN_VT_PTL);
	if (!err)
		err = tlbgen_pte_change(sys, cpu, mm, addr);
	if (!err)
		err = e->charge(sys, cpu, e, TLBGEN_VT_ZAP);
	if (!err)
		err = e->flush_pending_read(sys, cpu, e, &pending);
	if (!err) {
		if (e->nested)
			e->nested[cpu] += pending > 1;
		err = bench_wis_zap_flush(sys, cpu, mm, addr, pending > 1);
	}
	if (!err)
		err = e->flush_pending_add(sys, cpu, e, -1);
	if (!err)
		err = e->mmap_lock_rmw(sys, cpu, e);
	/* assert(*(addr) == 0): a read fault maps the file's page read-only
	 * (and, at a block's first page, fault-around the rest of the block). */
	if (!err)
		err = fault(sys, cpu, mm, e, addr, false);
	if (!err)
		err = e->charge(sys, cpu, e, TLBGEN_VT_USER_WORK);
	return err;
}

static int charge_virtual(struct tlbgen_system *sys, unsigned int cpu, const struct op_env *e,
			  enum tlbgen_vt_event ev)
{
	(void)e;
	return tlbgen_vtime__event(sys, cpu, ev, 1);
}

/* The count's line in the machine's MESI terms (bench_vt_line_rmw()). */
static int mmap_lock_virtual(struct tlbgen_system *sys, unsigned int cpu, const struct op_env *e)
{
	return bench_vt_line_rmw(sys, e->m, e->lock, cpu);
}

/* mm->tlb_flush_pending in virtual time: its value and its line. */
struct vt_count {
	struct bench_vt_line line;
	int val;
};

static int flush_pending_add_virtual(struct tlbgen_system *sys, unsigned int cpu,
				     const struct op_env *e, int d)
{
	struct vt_count *c = e->pending;

	c->val += d;
	return bench_vt_line_rmw(sys, e->m, &c->line, cpu);
}

static int flush_pending_read_virtual(struct tlbgen_system *sys, unsigned int cpu,
				      const struct op_env *e, int *val)
{
	struct vt_count *c = e->pending;

	*val = c->val;
	return bench_vt_line_read(sys, e->m, &c->line, cpu);
}

struct vprog {
	struct tlbgen_mm *mm;
	struct op_env env;
	struct bench_vt_line mmap_lock;	/* its count's line */
	struct vt_count flush_pending;
	unsigned int threads;
	unsigned long *ops;
	/*
	 * will-it-scale reads every task's counter once a second, and leaves
	 * its first WARMUP_ITERATIONS (5) samples out of the average (main.c).
	 * Here the counters are read twice, each time by the first program
	 * that ends an op past snap_at[]: at the warmup's end and at the run's.
	 * Other CPUs are inside an op at both reads, alike.
	 */
	uint64_t snap_at[2];
	unsigned int snaps;	/* reads taken */
	struct snap {
		uint64_t clock;			/* the reader's virtual clock */
		unsigned long *ops, *nested;	/* per CPU */
		struct tlbgen_vtime_stats st;
		uint64_t flushes[TLBGEN_STAT_NR];
	} snap[2];
};

/* Read every CPU's counters into the next snapshot. */
static void take_snap(struct tlbgen_system *sys, struct vprog *p, uint64_t now)
{
	struct snap *s = &p->snap[p->snaps++];

	s->clock = now;
	memcpy(s->ops, p->ops, p->threads * sizeof(*p->ops));
	memcpy(s->nested, p->env.nested, p->threads * sizeof(*p->env.nested));
	s->st.sz = sizeof(s->st);
	tlbgen_vtime__stats(sys, &s->st);
	tlbgen_stats__system(sys, s->flushes, TLBGEN_STAT_NR);
}

/*
 * The machine's cost of one op with nothing in its way: two faults, the
 * madvise syscall, the PTL, the zap and the user work.
 */
static uint64_t op_cycles(const struct tlbgen_machine *m)
{
	return 2 * (uint64_t)m->page_fault + m->syscall + m->ptl + m->zap + m->user_work;
}

static int tlb_flush1_thread(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct vprog *p = arg;
	int err = tlbgen_switch_mm(sys, cpu, p->mm);

	/*
	 * Thread i starts i/threads of an op late. Virtual time has no noise:
	 * threads started together with equal costs would run in lock step,
	 * each madvise() beside every other, where a real run's threads drift
	 * apart within its first milliseconds. Spread phases are that steady
	 * state; what contention then does to them is the model's.
	 */
	if (!err)
		err = tlbgen_vtime__spend(sys, cpu, op_cycles(p->env.m) * cpu / p->threads);

	while (!err && !tlbgen_cpu__should_stop(sys, cpu)) {
		uint64_t now;

		err = tlb_flush1_op(sys, cpu, p->mm, &p->env, p->ops[cpu]);
		if (!err)
			p->ops[cpu]++;
		while (!err && p->snaps < 2 && !tlbgen_vtime__now(sys, cpu, &now) &&
		       now >= p->snap_at[p->snaps])
			take_snap(sys, p, now);
	}
	return err;
}

/* What flush_tlb_func() did, per op: the outcomes aa44284960 was argued over. */
enum func_outcome { FUNC_CALLS, FUNC_EARLY, FUNC_UP_TO_DATE, FUNC_FULL, FUNC_PARTIAL, FUNC_NR };

static const struct { enum tlbgen_stat stat; const char *name; } func_stat[FUNC_NR] = {
	[FUNC_CALLS] = { TLBGEN_STAT_FLUSH_FUNC, "calls" },
	[FUNC_EARLY] = { TLBGEN_STAT_EARLY_SKIP, "early" },
	[FUNC_UP_TO_DATE] = { TLBGEN_STAT_UP_TO_DATE, "up_to_date" },
	[FUNC_FULL] = { TLBGEN_STAT_FULL_FLUSH, "full" },
	[FUNC_PARTIAL] = { TLBGEN_STAT_PARTIAL_FLUSH, "partial" },
};

struct cell {
	double ops_per_s;
	double flushes_per_op;			/* flush_tlb_mm_range() calls */
	double nested_pct;			/* madvise flushes made full by
						 * mm_tlb_flush_nested() */
	double us_per_op[TLBGEN_VT_TIME_NR];	/* CPU time of all CPUs per op, by kind */
	double xfers_per_flush[TLBGEN_LINE_NR];	/* the MESI account by line kind */
	double line_us_per_op[TLBGEN_LINE_NR];	/* CPU time per op on each kind's lines
						 * (line and line_wait) */
	double func_per_op[FUNC_NR];		/* flush_tlb_func() calls and outcomes */
	double irqs_per_op;			/* interrupts taken */
	double csds_per_op;			/* csds run from the call queues */
	long violations;
	uint64_t points;
};

/*
 * One cell: `threads` programs under `profile` for `warm_ms` of warmup and
 * then `ms` measured, both virtual milliseconds; *out is the measured part.
 */
static int run_cell(const struct tlbgen_machine *m, const char *profile, unsigned int threads,
		    double warm_ms, double ms, uint64_t seed, struct cell *out)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .mode = TLBGEN_MODE_VIRTUAL, .profile = profile,
		    .seed = seed, .machine = m, .nr_cpus = bench_machine_cpus(m));
	uint64_t warm = (uint64_t)(warm_ms * m->mhz * 1000);
	uint64_t until = warm + (uint64_t)(ms * m->mhz * 1000);
	struct tlbgen_system *sys;
	struct vprog p = { .env = { .m = m, .charge = charge_virtual,
				    .mmap_lock_rmw = mmap_lock_virtual,
				    .flush_pending_add = flush_pending_add_virtual,
				    .flush_pending_read = flush_pending_read_virtual },
			   .mmap_lock = BENCH_VT_LINE_INIT,
			   .flush_pending = { .line = BENCH_VT_LINE_INIT },
			   .threads = threads, .snap_at = { warm, until } };
	const struct snap *a = &p.snap[0], *b = &p.snap[1];
	unsigned long total = 0, nested = 0;
	bool mem = true;
	int err, ret;

	p.env.lock = &p.mmap_lock;
	p.env.pending = &p.flush_pending;
	if (threads > o.nr_cpus)
		o.nr_cpus = threads;
	err = tlbgen_system__create(&o, &sys);
	if (err)
		return err;
	p.ops = calloc(threads, sizeof(*p.ops));
	p.env.nested = calloc(threads, sizeof(*p.env.nested));
	for (unsigned int i = 0; i < 2; i++) {
		p.snap[i].ops = calloc(threads, sizeof(*p.snap[i].ops));
		p.snap[i].nested = calloc(threads, sizeof(*p.snap[i].nested));
		mem &= p.snap[i].ops && p.snap[i].nested;
	}
	err = mem && p.ops && p.env.nested
		      ? tlbgen_mm__create(sys, threads * FAULT_AROUND_PAGES, &p.mm)
		      : -ENOMEM;
	/* No warmup: the first read is the start, all zero. */
	p.snaps = !warm;
	for (unsigned int c = 0; !err && c < threads; c++)
		err = tlbgen_cpu__spawn(sys, c, tlb_flush1_thread, &p);
	if (!err)
		err = tlbgen_vtime__run(sys, until);
	for (unsigned int c = 0; c < threads; c++)
		if (!tlbgen_cpu__join(sys, c, &ret) && ret && !err)
			err = ret;
	/* Both reads come before any program stops; a program that returned
	 * early (an error) leaves them untaken. */
	if (!err && p.snaps < 2)
		err = -ERANGE;
	for (unsigned int c = 0; !err && c < threads; c++) {
		total += b->ops[c] - a->ops[c];
		nested += b->nested[c] - a->nested[c];
	}
	/* One op that ends past both reads leaves a window with nothing in
	 * it: a cell shorter than an op. */
	if (!err && (!total || b->clock <= a->clock)) {
		fprintf(stderr, "tlbgen-bench: %u threads: no op ended inside the %g ms window; "
				"raise --ms\n", threads, ms);
		err = -ERANGE;
	}
	if (!err) {
		uint64_t fl = b->flushes[TLBGEN_STAT_FLUSH_INITIATED] -
			      a->flushes[TLBGEN_STAT_FLUSH_INITIATED];
		struct tlbgen_vtime_stats st = { .sz = sizeof(st) };

		out->nested_pct = total ? 100.0 * nested / total : 0;
		/* Over the reads' own clocks: each is a little past its mark. */
		out->ops_per_s = total / ((b->clock - a->clock) / (m->mhz * 1e6));
		out->flushes_per_op = total ? (double)fl / total : 0;
		for (unsigned int k = 0; k < TLBGEN_VT_TIME_NR; k++)
			out->us_per_op[k] = total ? (b->st.time[k] - a->st.time[k]) /
							    (double)m->mhz / total
						  : 0;
		for (unsigned int l = 0; l < TLBGEN_LINE_NR; l++) {
			out->xfers_per_flush[l] =
				fl ? (double)(b->st.transfers[l] - a->st.transfers[l]) / fl : 0;
			out->line_us_per_op[l] = total ? (b->st.line_time[l] - a->st.line_time[l]) /
								 (double)m->mhz / total
						       : 0;
		}
		for (unsigned int k = 0; k < FUNC_NR; k++) {
			enum tlbgen_stat i = func_stat[k].stat;

			out->func_per_op[k] =
				total ? (double)(b->flushes[i] - a->flushes[i]) / total : 0;
		}
		out->irqs_per_op =
			total ? (double)(b->st.ipis_taken - a->st.ipis_taken) / total : 0;
		out->csds_per_op = total ? (double)(b->flushes[TLBGEN_STAT_IPI_RECEIVED] -
						    a->flushes[TLBGEN_STAT_IPI_RECEIVED]) / total
					 : 0;
		/* The oracle's verdict and the host's work cover the whole run. */
		tlbgen_vtime__stats(sys, &st);
		out->violations = tlbgen_oracle__violations(sys);
		out->points = st.sched_points;
	}
	free(p.ops);
	free(p.env.nested);
	for (unsigned int i = 0; i < 2; i++) {
		free(p.snap[i].ops);
		free(p.snap[i].nested);
	}
	tlbgen_system__destroy(sys);
	return err;
}

/* a += c * f, every average of a cell; the counts just add. */
static void cell_add(struct cell *a, const struct cell *c, double f)
{
	a->ops_per_s += c->ops_per_s * f;
	a->flushes_per_op += c->flushes_per_op * f;
	a->nested_pct += c->nested_pct * f;
	for (unsigned int t = 0; t < TLBGEN_VT_TIME_NR; t++)
		a->us_per_op[t] += c->us_per_op[t] * f;
	for (unsigned int l = 0; l < TLBGEN_LINE_NR; l++) {
		a->xfers_per_flush[l] += c->xfers_per_flush[l] * f;
		a->line_us_per_op[l] += c->line_us_per_op[l] * f;
	}
	for (unsigned int k = 0; k < FUNC_NR; k++)
		a->func_per_op[k] += c->func_per_op[k] * f;
	a->irqs_per_op += c->irqs_per_op * f;
	a->csds_per_op += c->csds_per_op * f;
	a->violations += c->violations;
	a->points += c->points;
}

/*
 * Seeds per row. Virtual time has no noise, so at a few threads a run locks
 * into one phase pattern of the flushers' IPIs, and the seed's tie-breaks
 * pick which: one seed's change at 5 threads lands anywhere in about -11..+12%
 * on skylake-56. A real run drifts between such patterns, so a row is the
 * mean over seeds, as many as it takes for the standard error of its change
 * to be at most ROW_SE_PCT points, ROW_MAX_SEEDS at most. At 10 threads the
 * patterns are rare outliers (one seed in five), which four seeds can all
 * miss, so a row starts with ROW_MIN_SEEDS or with as many as make
 * ROW_MIN_CPUS CPU-runs, whichever is more: the rows where this matters are
 * the cheap ones.
 */
#define ROW_MIN_SEEDS	4
#define ROW_MIN_CPUS	120
#define ROW_MAX_SEEDS	128
#define ROW_SE_PCT	0.5

static unsigned int row_min_seeds(unsigned int threads)
{
	unsigned int n = (ROW_MIN_CPUS + threads - 1) / threads;

	return n < ROW_MIN_SEEDS ? ROW_MIN_SEEDS : n > ROW_MAX_SEEDS ? ROW_MAX_SEEDS : n;
}

struct row {
	unsigned int seeds;	/* seeds run */
	double lo, hi;		/* lowest and highest change of a seed, % */
	double se;		/* standard error of the mean change, points;
				 * NAN for one seed */
};

/*
 * The mean of a row's cells, one per seed from `seed` on: `runs` seeds, or
 * with runs == 0 as ROW_* above. The change is column 1's against column 0.
 */
static int run_cells(const struct tlbgen_machine *m, const struct bench_policy *pol,
		     unsigned int columns, unsigned int threads, double warm_ms, double ms,
		     uint64_t seed, unsigned int runs, struct cell *out, struct row *row)
{
	double chg[ROW_MAX_SEEDS], mean, sd;
	unsigned int n;

	memset(out, 0, sizeof(*out) * columns);
	for (n = 0; runs ? n < runs : n < ROW_MAX_SEEDS; n++) {
		struct cell c[4];

		if (!runs && n >= row_min_seeds(threads) && row->se <= ROW_SE_PCT)
			break;
		for (unsigned int k = 0; k < columns; k++) {
			int err = run_cell(m, pol[k].name, threads, warm_ms, ms, seed + n, &c[k]);

			if (err)
				return err;
			cell_add(&out[k], &c[k], 1);
		}
		chg[n] = bench_pct(c[1].ops_per_s, c[0].ops_per_s);
		if (!n || chg[n] < row->lo)
			row->lo = chg[n];
		if (!n || chg[n] > row->hi)
			row->hi = chg[n];
		bench_mean_sd(chg, n + 1, &mean, &sd);
		row->se = n ? sd / sqrt(n + 1) : NAN;
	}
	row->seeds = n;
	for (unsigned int k = 0; k < columns; k++) {
		struct cell mean = { 0 };

		cell_add(&mean, &out[k], 1.0 / n);
		out[k] = mean;
	}
	return 0;
}

/* ---- the check against real cachelines: the same op in threaded mode ---------------- */

struct tprog {
	struct tlbgen_mm *mm;
	struct op_env env;
	_Alignas(64) atomic_long mmap_lock;	/* rw_semaphore.count, on its own line */
	_Alignas(64) atomic_int flush_pending;	/* mm->tlb_flush_pending, on its own */
	_Alignas(64) atomic_bool stop;
	atomic_uint done;	/* programs past their loop; none is joined before all are */
	unsigned int threads;
	struct {
		unsigned long n;
	} __attribute__((aligned(64))) ops[64];	/* per thread, a line each */
};

/* What the virtual mode charges as an event, burnt on a real CPU with IRQs
 * on, as the virtual mode takes IPIs during an event (tlbgen_vtime__spend()). */
static int charge_threaded(struct tlbgen_system *sys, unsigned int cpu, const struct op_env *e,
			   enum tlbgen_vt_event ev)
{
	const struct tlbgen_machine *m = e->m;
	uint32_t cycles = ev == TLBGEN_VT_SYSCALL	? m->syscall
			  : ev == TLBGEN_VT_PAGE_FAULT	? m->page_fault
			  : ev == TLBGEN_VT_PTL		? m->ptl
			  : ev == TLBGEN_VT_ZAP		? m->zap
							: m->user_work;

	bench_burn_ns_irqs_on(sys, cpu, (uint64_t)cycles * 1000 / m->mhz);
	return 0;
}

static int flush_pending_add_threaded(struct tlbgen_system *sys, unsigned int cpu,
				      const struct op_env *e, int d)
{
	(void)sys;
	(void)cpu;
	atomic_fetch_add((atomic_int *)e->pending, d);
	return 0;
}

static int flush_pending_read_threaded(struct tlbgen_system *sys, unsigned int cpu,
				       const struct op_env *e, int *val)
{
	(void)sys;
	(void)cpu;
	*val = atomic_load((atomic_int *)e->pending);
	return 0;
}

/* A real locked RMW on a line the threads share: the host's coherence. */
static int mmap_lock_threaded(struct tlbgen_system *sys, unsigned int cpu, const struct op_env *e)
{
	(void)sys;
	(void)cpu;
	atomic_fetch_add_explicit((atomic_long *)e->lock, 1, memory_order_acq_rel);
	return 0;
}

static int tlb_flush1_threaded(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct tprog *p = arg;
	int err = tlbgen_switch_mm(sys, cpu, p->mm);

	while (!err && !atomic_load_explicit(&p->stop, memory_order_relaxed)) {
		err = tlb_flush1_op(sys, cpu, p->mm, &p->env, p->ops[cpu].n);
		if (!err)
			p->ops[cpu].n++;
	}
	/* Stay an IRQ-enabled CPU until every program stopped flushing: a
	 * joined CPU answers no IPI, and another may be waiting for ours. */
	atomic_fetch_add(&p->done, 1);
	while (atomic_load(&p->done) < p->threads)
		if (tlbgen_poll(sys, cpu) <= 0)
			bench_relax();
	return err;
}

static int run_threaded(const struct tlbgen_machine *m, const char *profile, unsigned int threads,
			unsigned int ms, double *ops_per_s)
{
	/* Without the oracle, as tlb_flush1's timed rounds: its per-mm word is a
	 * line the kernel does not have, and virtual time does not charge it.
	 * With no simulated TLB the refill after the fault is not emulated. */
	TLBGEN_OPTS(tlbgen_system_opts, o, .mode = TLBGEN_MODE_THREADED, .profile = profile,
		    .nr_cpus = threads, .flags = TLBGEN_SYS_NO_ORACLE);
	struct timespec d = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	struct tlbgen_system *sys;
	struct tprog p = { .env = { .m = m, .charge = charge_threaded,
				    .mmap_lock_rmw = mmap_lock_threaded,
				    .flush_pending_add = flush_pending_add_threaded,
				    .flush_pending_read = flush_pending_read_threaded },
			   .threads = threads };
	unsigned int started;
	unsigned long total = 0;
	uint64_t t0, t1;
	int err, ret;

	p.env.lock = &p.mmap_lock;
	p.env.pending = &p.flush_pending;
	err = tlbgen_system__create(&o, &sys);
	if (err)
		return err;
	err = tlbgen_mm__create(sys, threads * FAULT_AROUND_PAGES, &p.mm);
	t0 = bench_now_ns();
	for (started = 0; !err && started < threads; started++)
		err = tlbgen_cpu__spawn(sys, started, tlb_flush1_threaded, &p);
	if (err)	/* count the programs that never started as done */
		atomic_fetch_add(&p.done, threads - started + 1);
	nanosleep(&d, NULL);
	atomic_store(&p.stop, true);
	for (unsigned int c = 0; c < threads; c++)
		if (!tlbgen_cpu__join(sys, c, &ret) && ret && !err)
			err = ret;
	t1 = bench_now_ns();
	for (unsigned int c = 0; c < threads; c++)
		total += p.ops[c].n;
	*ops_per_s = total / ((t1 - t0) / 1e9);
	tlbgen_system__destroy(sys);
	return err;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The one check a small machine allows: with the host's model, the virtual
 * mode's tlb_flush1 at 1 and 2 threads against the threaded mode doing the
 * same work (the model's fault, syscall and zap costs burnt as busy-waits).
 * A shared host moves its vCPUs, and a line transfer between them can cost
 * five times as much from one placement to the next, so each threaded round
 * is paired with a host model measured just before it, and the virtual cell
 * runs on that model; each side is the median of its rounds.
 */
#define HOST_ROUNDS	5

/* The median of a round's values, leaving their order as measured. */
static double median_rounds(const double *v)
{
	double s[HOST_ROUNDS];

	memcpy(s, v, sizeof(s));
	qsort(s, HOST_ROUNDS, sizeof(s[0]), cmp_double);
	return s[HOST_ROUNDS / 2];
}

static int check_host(unsigned int ms, uint64_t seed)
{
	static const char *const profiles[2] = { "v5.17", "v6.0" };
	struct tlbgen_machine m;
	char desc[512];
	int worst = 0;

	if (tlbgen_machine_lookup("host", &m))
		return 1;
	tlbgen_machine_describe(&m, desc, sizeof(desc));
	bench_meta_seed(seed);
	bench_meta_param("mode", json_string("virtual"));
	bench_meta_param("machine", json_string(desc));
	bench_meta_param("ms_per_cell", json_integer(ms));
	printf("# check against real cachelines: virtual mode on the host model vs threaded mode,\n"
	       "# same per-op work (fault, syscall, zap burnt as busy-waits); %d rounds per row,\n"
	       "# each on a host model measured just before it; each side the median of its rounds\n"
	       "# machine (first measurement) %s\n", HOST_ROUNDS, desc);
	printf("%-8s %-7s %14s %14s %8s %s\n", "profile", "threads", "virtual ops/s",
	       "threaded ops/s", "diff", "  transfer, cycles");
	for (unsigned int t = 1; t <= 2; t++) {
		for (int k = 0; k < 2; k++) {
			double virt[HOST_ROUNDS], thr[HOST_ROUNDS], v, h;
			uint32_t xfer[HOST_ROUNDS], lo = UINT32_MAX, hi = 0;
			int err = 0;

			for (int r = 0; !err && r < HOST_ROUNDS; r++) {
				struct cell c = { 0 };

				err = tlbgen_machine_lookup("host", &m);
				if (!err)
					err = run_threaded(&m, profiles[k], t, ms, &thr[r]);
				if (!err)
					err = run_cell(&m, profiles[k], t, 0, 50, seed, &c);
				virt[r] = c.ops_per_s;
				xfer[r] = m.same_socket;
				lo = xfer[r] < lo ? xfer[r] : lo;
				hi = xfer[r] > hi ? xfer[r] : hi;
			}
			if (err) {
				fprintf(stderr, "tlbgen-bench: host check: %s\n", strerror(-err));
				return 1;
			}
			v = median_rounds(virt);
			h = median_rounds(thr);
			printf("%-8s %-7u %14.0f %14.0f %+7.1f%%   %u..%u\n", profiles[k], t, v, h,
			       bench_pct(v, h), lo, hi);
			/* Each round as measured: a placement's transfer cost moves both sides. */
			printf("#   rounds, transfer cycles: virtual/threaded ops/s:");
			for (int r = 0; r < HOST_ROUNDS; r++)
				printf(" %u: %.0f/%.0f", xfer[r], virt[r], thr[r]);
			printf("\n");
			if (bench_pct(v, h) > 25 || bench_pct(v, h) < -25)
				worst = 1;
		}
	}
	printf("# within +-25%%: %s\n", worst ? "no" : "yes");
	return 0;
}


/* Where the CPUs' virtual time went, per operation (struct tlbgen_vtime_stats.time). */
static void print_time(unsigned int threads, const struct cell *c, unsigned int columns)
{
	printf("# CPU time per op at %u threads, us (every CPU's clock, by kind, over the ops):\n",
	       threads);
	for (unsigned int k = 0; k < columns; k++) {
		double sum = 0;

		printf("#   %-13s", col_label[k]);
		for (unsigned int t = 0; t < TLBGEN_VT_TIME_NR; t++) {
			printf(" %s %.2f", tlbgen_vtime_time_name(t), c[k].us_per_op[t]);
			sum += c[k].us_per_op[t];
		}
		printf(" = %.2f; tlb_gen line %.2f\n", sum, c[k].line_us_per_op[TLBGEN_LINE_MM_TLB_GEN]);
	}
}

/*
 * The MESI account of `tlbgen-bench mesi`, from the interleaved run: the
 * transfers per flush of each kind of the library's lines, and the CPU time
 * per op spent on them (mmap_lock and tlb_flush_pending are the bench's).
 */
static void print_lines(unsigned int threads, const struct cell *c, unsigned int columns)
{
	printf("# MESI at %u threads by line kind: transfers per flush (us of CPU time per op):\n",
	       threads);
	for (unsigned int k = 0; k < columns; k++) {
		printf("#   %-13s", col_label[k]);
		for (unsigned int l = 0; l < TLBGEN_LINE_NR; l++)
			printf(" %s %.2f (%.2f)", tlbgen_line_name(l), c[k].xfers_per_flush[l],
			       c[k].line_us_per_op[l]);
		printf("\n");
	}
}

/*
 * What flush_tlb_func() did per op, and how the csds came: in a shootdown
 * storm a target drains several csds per interrupt, and the first flush
 * of a batch can cover the later ones (aa44284960's early return).
 */
static void print_funcs(unsigned int threads, const struct cell *c, unsigned int columns)
{
	printf("# flush_tlb_func per op at %u threads (early: aa44284960's return; up_to_date:\n"
	       "#   local tlb_gen already mm's), and the csds and interrupts they came in:\n",
	       threads);
	for (unsigned int k = 0; k < columns; k++) {
		printf("#   %-13s", col_label[k]);
		for (unsigned int f = 0; f < FUNC_NR; f++)
			printf(" %s %.2f", func_stat[f].name, c[k].func_per_op[f]);
		printf("; %.2f csds in %.2f interrupts\n", c[k].csds_per_op, c[k].irqs_per_op);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tlbgen-bench seed000 --mode virtual [--machine SPEC] [--columns 2|4]\n"
		"                            [--ms MS] [--warmup MS] [--seed N] [--runs auto|R]\n"
		"                            [--threads N,N,...]\n"
		"  Seed 000 in virtual time: will-it-scale tlb_flush1_threads on a machine model\n"
		"  (default skylake-56, PTI off as in the seed's first run: tlbgen/machine.h,\n"
		"  docs/machines.md), the seed's figures beside the model's, and the error per\n"
		"  row. --columns 4: the seed's second table (base, +patch, touch mm->tlb_gen,\n"
		"  no mm->tlb_gen), run with PTI on: default machine skylake-56-pti. --ms:\n"
		"  virtual milliseconds measured per cell (default 5), after --warmup's (default\n"
		"  2), as will-it-scale leaves its warmup out. --runs: each row the mean over\n"
		"  seeds from --seed on; auto (default): from 4 seeds, or as many as make 120\n"
		"  CPU-runs, to 128, until the standard error of the mean per-seed change (se)\n"
		"  is at most 0.5 points (at a few threads one seed's run locks into a faster\n"
		"  or slower pattern); R: exactly R seeds. --check-host (only --seed applies):\n"
		"  the virtual mode on the host's measured model against the threaded mode doing\n"
		"  the same work, 1 and 2 threads, 5 rounds each, every round on a host model\n"
		"  measured just before it.\n");
}

int bench_vseed_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'M' }, { "machine", required_argument, NULL, 'm' },
		{ "columns", required_argument, NULL, 'c' }, { "ms", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' }, { "threads", required_argument, NULL, 't' },
		{ "check-host", no_argument, NULL, 'H' }, { "help", no_argument, NULL, 'h' },
		{ "runs", required_argument, NULL, 'r' }, { "warmup", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_policy pol[4];
	struct tlbgen_machine m;
	unsigned int columns = 2, ms = 5, warm = 2, threads[64], nt = 0, runs = 0;
	struct row row[64];
	bool host = false;
	unsigned long seed = 1;
	const char *machine = NULL;
	uint64_t points = 0;
	double t0 = (bench_now_ns() / 1e9);
	char desc[512], runs_s[16];
	int opt, bad = 0, table_opts = 0;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		table_opts += opt != 'H' && opt != 's' && opt != 'M' && opt != 'h';
		switch (opt) {
		case 'M':
			if (strcmp(optarg, "virtual")) {
				fprintf(stderr, "tlbgen-bench: --mode: only 'virtual' here\n");
				bad = 1;
			}
			break;
		case 'm': machine = optarg; break;
		case 'c':
			bad |= bench_parse_uint("--columns", optarg, 2, 4, &columns) != 0;
			if (!bad && columns != 2 && columns != 4) {
				fprintf(stderr, "tlbgen-bench: --columns: 2 or 4\n");
				bad = 1;
			}
			break;
		case 'd': bad |= bench_parse_uint("--ms", optarg, 1, 1000, &ms) != 0; break;
		case 's': bad |= bench_parse_ulong("--seed", optarg, 1, ~0UL, &seed) != 0; break;
		case 't': bad |= bench_parse_cpu_list("--threads", optarg, threads, 64, &nt) != 0; break;
		case 'r':
			if (!strcmp(optarg, "auto"))
				runs = 0;
			else if (bench_parse_uint("--runs", optarg, 1, ROW_MAX_SEEDS, &runs)) {
				fprintf(stderr, "tlbgen-bench: --runs: 'auto' or 1..%u\n",
					ROW_MAX_SEEDS);
				bad = 1;
			}
			break;
		case 'w': bad |= bench_parse_uint("--warmup", optarg, 0, 1000, &warm) != 0; break;
		case 'H': host = true; break;
		case 'h': usage(stdout); return 0;
		default: bad = 1; break;
		}
	}
	if (bad || optind != argc) {
		usage(stderr);
		return 2;
	}
	/* The host check has its own rounds and cells: only --seed applies. */
	if (host && table_opts) {
		fprintf(stderr, "tlbgen-bench: --check-host takes only --seed\n");
		return 2;
	}
	if (host)
		return check_host(300, seed);
	/* aa44284960's first table ran with PTI off, its four columns with it on. */
	if (!machine)
		machine = columns == 4 ? "skylake-56-pti" : "skylake-56";
	if (tlbgen_machine_lookup(machine, &m))
		return 2;
	if (!nt) {
		unsigned int n = columns == 4 ? ARRAY_SIZE(seed_t2) : ARRAY_SIZE(seed_t1);

		for (nt = 0; nt < n; nt++)
			threads[nt] = columns == 4 ? seed_t2[nt].threads : seed_t1[nt].threads;
	}
	for (unsigned int k = 0; k < columns; k++)
		if (bench_policy_parse(col_spec[k], &pol[k]))
			return 2;
	tlbgen_machine_describe(&m, desc, sizeof(desc));
	bench_meta_seed(seed);
	bench_meta_param("mode", json_string("virtual"));
	bench_meta_param("machine", json_string(desc));
	bench_meta_param("ms_per_cell", json_integer(ms));
	bench_meta_param("warmup_ms", json_integer(warm));
	snprintf(runs_s, sizeof(runs_s), "%u", runs);
	bench_meta_param("runs", json_string(runs ? runs_s : "auto"));
	bench_meta_param("row_se_pct", json_real(ROW_SE_PCT));
	bench_meta_param("row_min_seeds", json_integer(ROW_MIN_SEEDS));
	bench_meta_param("row_min_cpus", json_integer(ROW_MIN_CPUS));
	bench_meta_param("row_max_seeds", json_integer(ROW_MAX_SEEDS));
	printf("# seed 000: will-it-scale tlb_flush1_threads in virtual time, %u ms per cell after "
	       "a %u ms warmup, ", ms, warm);
	if (!runs)
		printf("mean over seeds %lu.. until the change's standard error is at most %.1f "
		       "points (from %u seeds or %u CPU-runs, to %u)\n", seed, ROW_SE_PCT,
		       ROW_MIN_SEEDS, ROW_MIN_CPUS, ROW_MAX_SEEDS);
	else if (runs == 1)
		printf("seed %lu\n", seed);
	else
		printf("mean of %u runs, seeds %lu..%lu\n", runs, seed, seed + runs - 1);
	printf("# machine %s\n", desc);
	printf("# model: ops/s of the model; seed: the thread's figures (%s); err: model vs seed\n",
	       columns == 4 ? "second table, a Haswell box" : "first table, 56-core Skylake");
	printf("%-7s", "threads");
	for (unsigned int k = 0; k < columns; k++)
		printf(" %14s", col_label[k]);
	printf(" %8s %5s %5s", "change", "se", "seeds");
	for (unsigned int k = 0; k < columns; k++)
		printf(" %12s", "seed");
	printf(" %8s", "seed chg");
	for (unsigned int k = 0; k < columns; k++)
		printf(" %7s", "err");
	printf(" %6s\n", "viol");

	for (unsigned int i = 0; i < nt; i++) {
		struct cell c[4] = { 0 };
		double seedv[4] = { 0 };
		long viol = 0;
		int err = 0;

		err = run_cells(&m, pol, columns, threads[i], warm, ms, seed, runs, c, &row[i]);
		for (unsigned int k = 0; k < columns && !err; k++) {
			viol += c[k].violations;
			points += c[k].points;
		}
		if (err) {
			fprintf(stderr, "tlbgen-bench: %u threads: %s\n", threads[i], strerror(-err));
			return 1;
		}
		for (size_t r = 0; r < ARRAY_SIZE(seed_t1) && columns == 2; r++)
			if (seed_t1[r].threads == threads[i])
				seedv[0] = seed_t1[r].base, seedv[1] = seed_t1[r].patch;
		for (size_t r = 0; r < ARRAY_SIZE(seed_t2) && columns == 4; r++)
			if (seed_t2[r].threads == threads[i])
				memcpy(seedv, seed_t2[r].col, sizeof(seedv));
		printf("%-7u", threads[i]);
		for (unsigned int k = 0; k < columns; k++)
			printf(" %14.0f", c[k].ops_per_s);
		printf(" %+7.1f%%", bench_pct(c[1].ops_per_s, c[0].ops_per_s));
		if (isnan(row[i].se))
			printf(" %5s", "-");
		else
			printf(" %5.2f", row[i].se);
		printf(" %5u", row[i].seeds);
		for (unsigned int k = 0; k < columns; k++)
			printf(" %12.0f", seedv[k]);
		printf(" %+7.1f%%", bench_pct(seedv[1], seedv[0]));
		for (unsigned int k = 0; k < columns; k++)
			printf(" %+6.0f%%", seedv[k] ? bench_pct(c[k].ops_per_s, seedv[k]) : 0);
		printf(" %6ld\n", viol);
		for (unsigned int k = 0; k < columns; k++) {
			json_t *pa = json_pack("{s:s,s:s,s:i,s:s}", "mode", "virtual", "machine",
					       machine, "threads", (int)threads[i], "policy",
					       col_label[k]);

			bench_metric("ops_per_sec", "ops/s of virtual time", "higher", pa,
				     c[k].ops_per_s);
			bench_metric("tlb_gen_transfers_per_flush", "cacheline transfers/flush",
				     "lower", pa, c[k].xfers_per_flush[TLBGEN_LINE_MM_TLB_GEN]);
			bench_metric("violations", "violations", "lower", pa, (double)c[k].violations);
			bench_metric("seeds", "runs averaged", NULL, pa, row[i].seeds);
			if (k == 1) {
				bench_metric("change_pct", "% against base", "higher", pa,
					     bench_pct(c[1].ops_per_s, c[0].ops_per_s));
				bench_metric("change_se_pct", "points", NULL, pa, row[i].se);
				bench_metric("change_lo_pct", "% (lowest seed)", NULL, pa, row[i].lo);
				bench_metric("change_hi_pct", "% (highest seed)", NULL, pa, row[i].hi);
			}
			bench_metric("flushes_per_op", "flush_tlb_mm_range() calls/op", NULL, pa,
				     c[k].flushes_per_op);
			bench_metric("nested_full_flush_pct", "% of madvise flushes", NULL, pa,
				     c[k].nested_pct);
			for (unsigned int t = 0; t < TLBGEN_VT_TIME_NR; t++) {
				char name[64];

				snprintf(name, sizeof(name), "cpu_us_per_op_%s", tlbgen_vtime_time_name(t));
				bench_metric(name, "us of CPU time/op", NULL, pa, c[k].us_per_op[t]);
			}
			bench_metric("cpu_us_per_op_tlb_gen_line", "us of CPU time/op", NULL, pa,
				     c[k].line_us_per_op[TLBGEN_LINE_MM_TLB_GEN]);
			for (unsigned int l = 0; l < TLBGEN_LINE_NR; l++) {
				char name[64];

				snprintf(name, sizeof(name), "transfers_per_flush_%s", tlbgen_line_name(l));
				bench_metric(name, "cacheline transfers/flush", "lower", pa,
					     c[k].xfers_per_flush[l]);
				snprintf(name, sizeof(name), "cpu_us_per_op_line_%s", tlbgen_line_name(l));
				bench_metric(name, "us of CPU time/op", NULL, pa, c[k].line_us_per_op[l]);
			}
			for (unsigned int f = 0; f < FUNC_NR; f++) {
				char name[64];

				snprintf(name, sizeof(name), "flush_tlb_func_per_op_%s",
					 func_stat[f].name);
				bench_metric(name, "flush_tlb_func calls/op", NULL, pa,
					     c[k].func_per_op[f]);
			}
			bench_metric("csds_per_op", "csds run/op", NULL, pa, c[k].csds_per_op);
			bench_metric("interrupts_per_op", "interrupts/op", NULL, pa, c[k].irqs_per_op);
			if (seedv[k]) {
				bench_metric("seed_ops_per_sec", "ops/s (the seed's table)", NULL, pa,
					     seedv[k]);
				bench_metric("model_error_pct", "%", NULL, pa,
					     bench_pct(c[k].ops_per_s, seedv[k]));
			}
			json_decref(pa);
		}
		if (i + 1 == nt) {
			printf("# MESI at %u threads, tlb_gen line transfers per flush:", threads[i]);
			for (unsigned int k = 0; k < columns; k++)
				printf(" %s %.3f", col_label[k], c[k].xfers_per_flush[TLBGEN_LINE_MM_TLB_GEN]);
			printf("\n# flushes per op (madvise's, and wp_page_copy()'s on 15 pages in 16):");
			for (unsigned int k = 0; k < columns; k++)
				printf(" %s %.3f", col_label[k], c[k].flushes_per_op);
			printf("\n# madvise flushes made full by mm_tlb_flush_nested(), %%:");
			for (unsigned int k = 0; k < columns; k++)
				printf(" %s %.1f", col_label[k], c[k].nested_pct);
			printf("\n");
			print_lines(threads[i], c, columns);
			print_time(threads[i], c, columns);
			print_funcs(threads[i], c, columns);
		}
		fflush(stdout);
	}
	if (runs != 1) {
		printf("# change per seed, lowest..highest:");
		for (unsigned int i = 0; i < nt; i++)
			printf(" %u: %+.1f..%+.1f%%", threads[i], row[i].lo, row[i].hi);
		printf("\n");
	}
	printf("# speed: %.1f M scheduling points in %.1f s: %.2f M points per host second\n",
	       points / 1e6, (bench_now_ns() / 1e9) - t0, points / 1e6 / ((bench_now_ns() / 1e9) - t0));
	return 0;
}
