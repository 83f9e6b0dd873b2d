// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/run/run-virtual.c - an op-based workload in virtual time: one cell is
 * every task's program on its own emulated CPU of a machine model, measured
 * over a window after a warm-up; a row is the mean of cells over seeds.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "driver/cell.h"
#include "driver/common.h"
#include "driver/env.h"
#include "driver/pool.h"
#include "run-virtual.h"

const struct bench_func_stat bench_func_stat[BENCH_FUNC_NR] = {
	[BENCH_FUNC_CALLS] = { TLBGEN_STAT_FLUSH_FUNC, "calls" },
	[BENCH_FUNC_EARLY] = { TLBGEN_STAT_EARLY_SKIP, "early" },
	[BENCH_FUNC_UP_TO_DATE] = { TLBGEN_STAT_UP_TO_DATE, "up_to_date" },
	[BENCH_FUNC_FULL] = { TLBGEN_STAT_FULL_FLUSH, "full" },
	[BENCH_FUNC_PARTIAL] = { TLBGEN_STAT_PARTIAL_FLUSH, "partial" },
};

struct vprog {
	const struct bench_vspec *s;
	struct bench_task *task;
	struct tlbgen_wl *wl;
	/*
	 * will-it-scale reads every task's counter once a second, and leaves
	 * its first WARMUP_ITERATIONS (5) samples out of the average (main.c).
	 * Here the counters are read twice, each time by the first program
	 * that ends an op past snap_at[]: at the warmup's end and at the run's.
	 * Other CPUs are inside an op at both reads, alike. Without a warmup
	 * the run is the window: read at its start and, by the host, at its end.
	 */
	uint64_t snap_at[2];
	unsigned int snaps;
	uint64_t stale;			/* IPIs to CPUs that ran another mm */
	struct snap {
		uint64_t clock;			/* the reader's virtual clock */
		uint64_t ops, nested, sleep, c6, stale;	/* every task's */
		struct tlbgen_vtime_stats st;
		uint64_t stats[TLBGEN_STAT_NR];
	} snap[2];
};

static void take_snap(struct tlbgen_system *sys, struct vprog *p, uint64_t now)
{
	struct snap *s = &p->snap[p->snaps++];
	uint64_t wl[TLBGEN_WL_STAT_NR];

	s->clock = now;
	s->ops = 0;
	for (unsigned int c = 0; c < p->s->threads; c++)
		s->ops += p->task[c].n;
	tlbgen_wl__stats(p->wl, -1, wl, TLBGEN_WL_STAT_NR);
	s->nested = wl[TLBGEN_WL_STAT_NESTED];
	s->sleep = wl[TLBGEN_WL_STAT_SLEEP_CYCLES];
	s->c6 = wl[TLBGEN_WL_STAT_C6];
	s->stale = p->stale;
	s->st.sz = sizeof(s->st);
	tlbgen_vtime__stats(sys, &s->st);
	tlbgen_stats__system(sys, s->stats, TLBGEN_STAT_NR);
}

static int vprog(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct vprog *p = arg;
	struct bench_task *t = &p->task[cpu];
	const struct bench_ops *ops = p->s->ops;
	int err = tlbgen_switch_mm(sys, cpu, t->mm);

	/*
	 * Task i starts i/tasks of an op late. Virtual time has no noise:
	 * tasks started together with equal costs would run in lock step,
	 * each madvise() beside every other, where a real run's drift apart
	 * within its first milliseconds. Spread phases are that steady state.
	 */
	if (!err && ops->op_cycles)
		err = tlbgen_vtime__spend(sys, cpu, ops->op_cycles(p->s->m) * cpu / p->s->threads);
	if (!err && ops->start)
		err = ops->start(t);
	while (!err && !tlbgen_cpu__should_stop(sys, cpu)) {
		uint64_t now;

		err = ops->op(t);
		if (err > 0)	/* the run ended while the task slept */
			return 0;
		if (!err)
			t->n++;
		while (!err && p->snaps < 2 && !tlbgen_vtime__now(sys, cpu, &now) &&
		       now >= p->snap_at[p->snaps])
			take_snap(sys, p, now);
	}
	return err;
}

/* The measured window's figures, per op and per flush. */
static void window(const struct vprog *p, const struct tlbgen_machine *m, struct bench_vcell *out)
{
	const struct snap *a = &p->snap[0], *b = &p->snap[1];
	uint64_t total = b->ops - a->ops;
	uint64_t fl = b->stats[TLBGEN_STAT_FLUSH_INITIATED] - a->stats[TLBGEN_STAT_FLUSH_INITIATED];

	out->nested_pct = total ? 100.0 * (b->nested - a->nested) / total : 0;
	/* Over the reads' own clocks: each is a little past its mark. */
	out->ops_per_s = total / ((b->clock - a->clock) / (m->mhz * 1e6));
	out->flushes_per_op = total ? (double)fl / total : 0;
	for (unsigned int k = 0; k < TLBGEN_VT_TIME_NR; k++)
		out->us_per_op[k] = total ? (b->st.time[k] - a->st.time[k]) / (double)m->mhz / total
					  : 0;
	for (unsigned int l = 0; l < TLBGEN_LINE_NR; l++) {
		out->xfers_per_flush[l] =
			fl ? (double)(b->st.transfers[l] - a->st.transfers[l]) / fl : 0;
		out->line_us_per_op[l] = total ? (b->st.line_time[l] - a->st.line_time[l]) /
							 (double)m->mhz / total
					       : 0;
	}
	for (unsigned int k = 0; k < BENCH_FUNC_NR; k++) {
		enum tlbgen_stat i = bench_func_stat[k].stat;

		out->func_per_op[k] = total ? (double)(b->stats[i] - a->stats[i]) / total : 0;
	}
	out->irqs_per_op = total ? (double)(b->st.ipis_taken - a->st.ipis_taken) / total : 0;
	out->ipis_per_flush = fl ? (double)(b->stats[TLBGEN_STAT_IPI_SENT] -
					    a->stats[TLBGEN_STAT_IPI_SENT]) / fl : 0;
	out->queued_per_flush = fl ? (double)(b->stats[TLBGEN_STAT_CALL_QUEUED] -
					      a->stats[TLBGEN_STAT_CALL_QUEUED]) / fl : 0;
	out->stale_ipis_per_flush = fl ? (double)(b->stale - a->stale) / fl : 0;
	out->asleep_pct = 100.0 * (b->sleep - a->sleep) /
			  ((double)(b->clock - a->clock) * p->s->threads);
	out->c6_per_op = total ? (double)(b->c6 - a->c6) / total : 0;
	out->csds_per_op = total ? (double)(b->stats[TLBGEN_STAT_IPI_RECEIVED] -
					    a->stats[TLBGEN_STAT_IPI_RECEIVED]) / total
				 : 0;
}

/* The ipi_send hook: an IPI to a CPU that runs another mm than its task's
 * (init_mm, after it went idle) is one a lazy mm_cpumask causes. */
static void on_ipi_send(void *ctx, unsigned int from, unsigned int to)
{
	struct vprog *p = ctx;

	(void)from;
	if (to < p->s->threads &&
	    tlbgen_cpu__loaded_mm_is(p->task[to].sys, to, p->task[to].mm) != 1)
		p->stale++;
}

/* The tasks' mms: one shared (threads) or one each (processes). */
static int make_tasks(struct tlbgen_system *sys, struct tlbgen_wl *wl, const struct bench_ops *ops,
		      unsigned int threads, bool processes, enum tlbgen_mode mode,
		      struct bench_task *task)
{
	struct tlbgen_mm *shared = NULL;
	int err = 0;

	if (!processes)
		err = tlbgen_mm__create(sys, ops->region_pages * threads, &shared);
	for (unsigned int c = 0; !err && c < threads; c++) {
		struct bench_task *t = &task[c];

		*t = (struct bench_task){ .sys = sys, .wl = wl, .ops = ops, .cpu = c,
					  .tasks = threads, .mode = mode, .mm = shared,
					  .processes = processes,
					  .base = processes ? 0 : c * ops->region_pages };
		if (processes)
			err = tlbgen_mm__create(sys, ops->region_pages, &t->mm);
	}
	return err;
}

int bench_vcell_run(const struct bench_vspec *s, struct bench_vcell *out)
{
	const struct tlbgen_machine *m = s->m;
	TLBGEN_OPTS(tlbgen_system_opts, o, .mode = TLBGEN_MODE_VIRTUAL, .profile = s->profile,
		    .seed = s->seed, .machine = m, .nr_cpus = bench_machine_cpus(m),
		    .invlpgb = s->invlpgb, .no_pcid = s->no_pcid);
	TLBGEN_OPTS(tlbgen_wl_opts, wo);
	struct tlbgen_trace_ops hooks = { .sz = sizeof(hooks), .ipi_send = on_ipi_send };
	uint64_t warm = (uint64_t)(s->warm_ms * m->mhz * 1000);
	uint64_t until = warm + (uint64_t)(s->ms * m->mhz * 1000);
	struct vprog p = { .s = s, .snap_at = { warm, until } };
	struct tlbgen_system *sys;
	int err, ret;

	memset(out, 0, sizeof(*out));
	if (s->threads > o.nr_cpus)
		o.nr_cpus = s->threads;
	err = tlbgen_system__create(&o, &sys);
	if (err)
		return err;
	p.task = calloc(s->threads, sizeof(*p.task));
	err = p.task ? tlbgen_wl__create(sys, &wo, &p.wl) : -ENOMEM;
	if (!err)
		err = make_tasks(sys, p.wl, s->ops, s->threads, s->processes, TLBGEN_MODE_VIRTUAL,
				 p.task);
	hooks.ctx = &p;
	if (!err)
		err = tlbgen_system__set_trace(sys, &hooks);
	/*
	 * No warmup: the first read is the start, all zero, and the second is
	 * the host's once every program has stopped - the whole run, every
	 * op any task finished, over the run's length.
	 */
	p.snaps = !warm;
	if (!warm)
		p.snap_at[1] = UINT64_MAX;
	for (unsigned int c = 0; !err && c < s->threads; c++)
		err = tlbgen_cpu__spawn(sys, c, vprog, &p);
	if (!err)
		err = tlbgen_vtime__run(sys, until);
	for (unsigned int c = 0; p.task && c < s->threads; c++)
		if (!tlbgen_cpu__join(sys, c, &ret) && ret && !err)
			err = ret;
	if (!err && !warm)
		take_snap(sys, &p, until);
	/*
	 * After a warmup both reads come before any program stops, unless no
	 * program ended an op past the end: every task was asleep on a lock
	 * at the deadline, or went to sleep after it (each op then returns 1
	 * unfinished). The host reads then, at the deadline: the ops finished
	 * are all counted.
	 */
	if (!err && p.snaps == 1)
		take_snap(sys, &p, until);
	if (!err && p.snaps < 2) {
		fprintf(stderr, "tlbgen-bench: %u threads: the warmup's read was never taken: no "
				"op ended past %g ms\n", s->threads, s->warm_ms);
		err = -ERANGE;
	}
	/* One op that ends past both reads leaves a window with nothing in it:
	 * a cell shorter than an op. */
	if (!err && (p.snap[1].ops == p.snap[0].ops || p.snap[1].clock <= p.snap[0].clock)) {
		fprintf(stderr, "tlbgen-bench: %u threads: no op ended inside the %g ms window; "
				"raise --ms\n", s->threads, s->ms);
		err = -ERANGE;
	}
	if (!err) {
		struct tlbgen_vtime_stats st = { .sz = sizeof(st) };

		window(&p, m, out);
		/* The oracle's verdict and the host's work cover the whole run. */
		tlbgen_vtime__stats(sys, &st);
		out->violations = tlbgen_oracle__violations(sys);
		out->points = st.sched_points;
		out->switches = st.switches;
		out->lines = st.lines;
	}
	free(p.task);
	tlbgen_wl__destroy(p.wl);
	tlbgen_system__destroy(sys);
	return err;
}

void bench_vcell_add(struct bench_vcell *a, const struct bench_vcell *c, double f)
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
	for (unsigned int k = 0; k < BENCH_FUNC_NR; k++)
		a->func_per_op[k] += c->func_per_op[k] * f;
	a->irqs_per_op += c->irqs_per_op * f;
	a->csds_per_op += c->csds_per_op * f;
	a->ipis_per_flush += c->ipis_per_flush * f;
	a->queued_per_flush += c->queued_per_flush * f;
	a->stale_ipis_per_flush += c->stale_ipis_per_flush * f;
	a->asleep_pct += c->asleep_pct * f;
	a->c6_per_op += c->c6_per_op * f;
	a->violations += c->violations;
	a->points += c->points;
	a->switches += c->switches;
	if (c->lines > a->lines)
		a->lines = c->lines;
}

/*
 * Seeds per row. Virtual time has no noise, so at a few threads a run
 * locks into one phase pattern of the flushers' IPIs, and the seed's
 * tie-breaks pick which: one seed's change at 5 threads of seed 000 lands
 * anywhere in about -11..+12% on skylake-56. A real run drifts between
 * such patterns, so a row is the mean over seeds, as many as it takes for
 * the standard error of its change to be at most BENCH_ROW_SE_PCT points.
 * The patterns can be rare (one seed in five at 10 threads), so a row
 * starts with BENCH_ROW_MIN_SEEDS or as many as make BENCH_ROW_MIN_CPUS
 * CPU-runs, whichever is more: the rows where this matters are the cheap
 * ones.
 */
static unsigned int row_min_seeds(unsigned int threads)
{
	unsigned int n = (BENCH_ROW_MIN_CPUS + threads - 1) / threads;

	return n < BENCH_ROW_MIN_SEEDS ? BENCH_ROW_MIN_SEEDS
	       : n > BENCH_ROW_MAX_SEEDS ? BENCH_ROW_MAX_SEEDS : n;
}

struct batch {
	const struct bench_env *e;
	struct bench_vspec spec;
	unsigned int first;		/* seed offset of cells[0] */
	struct bench_vcell *cells;	/* [seed][policy] */
};

static int batch_cell(void *arg, size_t i)
{
	struct batch *b = arg;
	struct bench_vspec s = b->spec;
	unsigned int npol = b->e->npol;

	s.profile = b->e->pol[i % npol].name;
	s.seed = b->e->seed + b->first + i / npol;
	return bench_vcell_run(&s, &b->cells[i]);
}

/* Seed n's cells into the row's sums; the changes' statistics so far. */
static void add_seed(struct bench_vrow *row, const struct bench_vcell *c, unsigned int npol,
		     double chg[][BENCH_ROW_MAX_SEEDS], unsigned int n)
{
	double mean, sd;

	for (unsigned int k = 0; k < npol; k++) {
		bench_vcell_add(&row->c[k], &c[k], 1);
		row->seed_ops[k][n] = c[k].ops_per_s;
		if (!k)
			continue;
		chg[k][n] = bench_pct(c[k].ops_per_s, c[0].ops_per_s);
		if (!n || chg[k][n] < row->lo[k])
			row->lo[k] = chg[k][n];
		if (!n || chg[k][n] > row->hi[k])
			row->hi[k] = chg[k][n];
		bench_mean_sd(chg[k], n + 1, &mean, &sd);
		row->se[k] = n ? sd / sqrt(n + 1) : NAN;
	}
}

int bench_vrow_run(const struct bench_env *e, const struct bench_vspec *spec,
		   struct bench_vrow *row)
{
	static __thread double chg[BENCH_MAX_POLICIES][BENCH_ROW_MAX_SEEDS];
	unsigned int npol = e->npol, jobs = e->jobs ? e->jobs : 1, n = 0, min;
	struct batch b = { .e = e, .spec = *spec };
	bool done = false;
	int err = 0;

	memset(row, 0, sizeof(*row));
	row->threads = spec->threads;
	row->processes = spec->processes;
	min = e->runs ? e->runs : row_min_seeds(spec->threads);
	b.cells = calloc((size_t)(min > jobs ? min : jobs) * npol, sizeof(*b.cells));
	if (!b.cells)
		return -ENOMEM;
	/*
	 * Seeds in batches, -j cells at a time; the rule runs over the seeds
	 * in order, so it stops at the same seed whatever -j is, and a batch's
	 * cells past that seed are dropped.
	 */
	while (!done && !err) {
		unsigned int want = n < min ? min - n : jobs;

		if (!e->runs && n + want > BENCH_ROW_MAX_SEEDS)
			want = BENCH_ROW_MAX_SEEDS - n;
		b.first = n;
		err = bench_pool(e->jobs, (size_t)want * npol, batch_cell, &b);
		for (unsigned int i = 0; !err && i < want && !done; i++) {
			add_seed(row, &b.cells[(size_t)i * npol], npol, chg, n);
			n++;
			done = e->runs ? n >= e->runs
				       : n >= BENCH_ROW_MAX_SEEDS ||
					 (n >= min && npol > 1 && row->se[1] <= BENCH_ROW_SE_PCT) ||
					 (n >= min && npol < 2);
		}
	}
	free(b.cells);
	if (err)
		return err;
	row->seeds = n;
	for (unsigned int k = 0; k < npol; k++) {
		struct bench_vcell mean = { 0 };

		bench_vcell_add(&mean, &row->c[k], 1.0 / n);
		row->c[k] = mean;
	}
	return 0;
}
