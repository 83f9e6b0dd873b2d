// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/embed/test_flush_done.c - what a simulator's event loop relies on
 * (tlbgen_system__set_flush_done(), tlbgen/trace.h): the completion callback
 * fires exactly once per flush, for the right initiator, at the moment it
 * stops waiting; in stepped mode, in virtual time, and (with `--threaded`)
 * on real CPU threads, there with stable line ids asked for.
 */
#include "tlbgen-test.h"

#define NR 6

/* ---- flush completion ---------------------------------------------------------- */

struct done_rec {
	struct tlbgen_system *sys;
	unsigned int calls[NR];
	unsigned int total;
	unsigned int last;
	unsigned int still_waiting;	/* callbacks that saw their CPU still waiting */
};

static void on_done(void *ctx, unsigned int initiator)
{
	struct done_rec *d = ctx;

	assert_true(initiator < NR);
	d->calls[initiator]++;
	d->total++;
	d->last = initiator;
	if (tlbgen_cpu__is_waiting(d->sys, initiator) != 0)
		d->still_waiting++;
}

static void test_flush_done_once(void **state)
{
	struct tlbgen_system *sys = t_sys("v6.0", NR, 7);
	struct tlbgen_mm *mm = t_mm(sys, 64), *solo = t_mm(sys, 64);
	struct done_rec d = { .sys = sys };

	(void)state;
	assert_int_equal(tlbgen_system__set_flush_done(sys, on_done, &d), 0);
	t_switch_all(sys, 0, 3, mm);		/* CPUs 0-3 run mm */
	tlbgen_switch_mm(sys, 4, solo);		/* only CPU 4 runs solo */

	/* CPU 2 flushes: it waits for 0, 1 and 3; the callback waits with it. */
	assert_int_equal(tlbgen_flush_tlb_page(sys, 2, mm, PG(1)), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 2), 1);
	assert_int_equal(tlbgen_deliver(sys, 0), 1);
	assert_int_equal(tlbgen_deliver(sys, 3), 1);
	assert_int_equal(d.total, 0);
	assert_int_equal(tlbgen_deliver(sys, 1), 1);	/* the last target */
	assert_int_equal(d.total, 1);
	assert_int_equal(d.calls[2], 1);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 2), 0);

	/* Nobody else runs solo: complete within the call, before it returns. */
	assert_int_equal(tlbgen_flush_tlb_page(sys, 4, solo, PG(2)), 0);
	assert_int_equal(d.total, 2);
	assert_int_equal(d.calls[4], 1);

	/* Two initiators in flight at once: each completes once, as itself. */
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, PG(3)), 0);
	assert_int_equal(tlbgen_deliver(sys, 1), 1);
	assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 1, mm, 0, PG(8), TLBGEN_PAGE_SHIFT,
						   false), 0);
	assert_int_equal(d.total, 2);
	t_idle(sys);
	assert_int_equal(d.total, 4);
	assert_int_equal(d.calls[0], 1);
	assert_int_equal(d.calls[1], 1);

	/* A kernel-range flush interrupts every CPU; completes once. */
	assert_int_equal(tlbgen_flush_tlb_kernel_range(sys, 5, 0, PG(4)), 0);
	assert_int_equal(d.calls[5], 0);
	t_idle(sys);
	assert_int_equal(d.calls[5], 1);
	assert_int_equal(d.total, 5);
	assert_int_equal(d.still_waiting, 0);

	/* Not while a flush is in flight; removed, it is not called. */
	assert_int_equal(tlbgen_flush_tlb_page(sys, 3, mm, PG(5)), 0);
	assert_int_equal(tlbgen_system__set_flush_done(sys, NULL, NULL), -EBUSY);
	t_idle(sys);
	assert_int_equal(d.total, 6);
	assert_int_equal(tlbgen_system__set_flush_done(sys, NULL, NULL), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 3, mm, PG(5)), 0);
	t_idle(sys);
	assert_int_equal(d.total, 6);
	assert_int_equal(tlbgen_system__set_flush_done(NULL, on_done, &d), -EINVAL);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/*
 * A callback that starts operations: each is refused with -EDEADLK, on the
 * initiator and (stepped, virtual time) on another CPU, and nothing it
 * tried is in flight afterwards. It tries only its first few times, so a
 * library that accepted the flush would not loop here forever.
 */
struct nest_rec {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	unsigned int calls, accepted, other;	/* other: a CPU besides the initiator */
	int rc_self, rc_other, rc_switch;
};

static void on_done_nest(void *ctx, unsigned int initiator)
{
	struct nest_rec *n = ctx;
	unsigned int other = (initiator + 1) % NR;

	if (n->calls++ >= 3)
		return;
	n->rc_self = tlbgen_flush_tlb_page(n->sys, initiator, n->mm, PG(9));
	n->rc_switch = tlbgen_switch_mm(n->sys, initiator, n->mm);
	n->accepted += n->rc_self == 0;
	if (n->other) {
		n->rc_other = tlbgen_flush_tlb_page(n->sys, other, n->mm, PG(9));
		n->accepted += n->rc_other == 0;
	}
}

static void test_flush_done_nested(void **state)
{
	struct tlbgen_system *sys = t_sys("v6.0", NR, 5);
	struct nest_rec n = { .sys = sys, .other = 1 };

	(void)state;
	n.mm = t_mm(sys, 64);
	assert_int_equal(tlbgen_system__set_flush_done(sys, on_done_nest, &n), 0);
	t_switch_all(sys, 0, 3, n.mm);
	/* Completes in a deliver: the callback runs inside tlbgen_deliver(). */
	assert_int_equal(tlbgen_flush_tlb_page(sys, 2, n.mm, PG(1)), 0);
	t_idle(sys);
	assert_int_equal(n.calls, 1);
	assert_int_equal(n.rc_self, -EDEADLK);
	assert_int_equal(n.rc_other, -EDEADLK);
	assert_int_equal(n.rc_switch, -EDEADLK);
	/* Completes inside the flush call (no one else runs the mm). */
	t_switch_all(sys, 0, NR - 1, t_mm(sys, 64));
	assert_int_equal(tlbgen_switch_mm(sys, 4, n.mm), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 4, n.mm, PG(2)), 0);
	assert_int_equal(n.calls, 2);
	assert_int_equal(n.accepted, 0);
	for (unsigned int c = 0; c < NR; c++)
		assert_int_equal(tlbgen_cpu__is_waiting(sys, c), 0);
	/* Outside the callback the same operations are accepted again. */
	assert_int_equal(tlbgen_flush_tlb_page(sys, 5, n.mm, PG(3)), 0);
	t_idle(sys);
	assert_int_equal(n.calls, 3);
	assert_int_equal(n.accepted, 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* splitmix64 */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/*
 * An event loop that never polls: it counts flushes started per CPU and
 * completions reported; the library's own waiting state must agree at every
 * step, and every flush started must be reported exactly once.
 */
static void test_flush_done_event_loop(void **state)
{
	struct tlbgen_system *sys = t_sys("latest", NR, 11);
	struct tlbgen_mm *mm[2] = { t_mm(sys, 64), t_mm(sys, 64) };
	struct tlbgen_tlbbatch *batch[NR];
	struct done_rec d = { .sys = sys };
	unsigned int started[NR] = { 0 }, nr_started = 0;
	uint64_t s = 3;

	(void)state;
	for (unsigned int c = 0; c < NR; c++)
		assert_int_equal(tlbgen_tlbbatch__create(sys, &batch[c]), 0);
	assert_int_equal(tlbgen_system__set_flush_done(sys, on_done, &d), 0);
	for (unsigned int c = 0; c < NR; c++)
		tlbgen_switch_mm(sys, c, mm[c % 2]);
	for (int i = 0; i < 4000; i++) {
		uint64_t r = rnd(&s);
		unsigned int cpu = (unsigned int)(r % NR), k = (unsigned int)((r >> 8) % 10);
		struct tlbgen_mm *m = mm[(r >> 16) % 2];
		int err;

		if (started[cpu] != d.calls[cpu])	/* waiting, by our books */
			k = 9;
		if (k < 3) {
			err = tlbgen_flush_tlb_page(sys, cpu, m, PG((r >> 20) % 64));
		} else if (k == 3) {
			err = tlbgen_flush_tlb_kernel_range(sys, cpu, 0, PG(2));
		} else if (k == 4) {
			tlbgen_pte_change(sys, cpu, m, PG(3));
			err = tlbgen_arch_tlbbatch_add_pending(sys, cpu, batch[cpu], m, PG(3), PG(4));
			assert_int_equal(err, 0);
			err = tlbgen_arch_tlbbatch_flush(sys, cpu, batch[cpu]);
		} else if (k < 7) {
			assert_true(tlbgen_switch_mm(sys, cpu, m) >= 0);
			continue;
		} else {
			err = tlbgen_step(sys);
			assert_true(err >= 0 || err == -ENOENT);
			goto check;
		}
		/* Not waiting by our books, so the library accepts the flush. */
		assert_int_equal(err, 0);
		started[cpu]++;
		nr_started++;
check:
		for (unsigned int c = 0; c < NR; c++)
			assert_int_equal(tlbgen_cpu__is_waiting(sys, c), started[c] != d.calls[c]);
	}
	t_idle(sys);
	assert_true(nr_started > 500);
	assert_int_equal(d.total, nr_started);
	for (unsigned int c = 0; c < NR; c++)
		assert_int_equal(d.calls[c], started[c]);
	assert_int_equal(d.still_waiting, 0);
	for (unsigned int c = 0; c < NR; c++)
		tlbgen_tlbbatch__destroy(batch[c]);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/*
 * Virtual time: every CPU is a will-it-scale tlb_flush1 thread; each op ends
 * in one flush_tlb_page(), and each completes on its initiator.
 */
struct vt_wis {
	struct tlbgen_mm *mm;
	unsigned int flushes[NR];
};

static int vt_wis_thread(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct vt_wis *w = arg;
	int err = tlbgen_switch_mm(sys, cpu, w->mm);

	while (!err && !tlbgen_cpu__should_stop(sys, cpu)) {
		err = t_vt_tlb_flush1_op(sys, cpu, w->mm, PG(cpu));
		if (!err)
			w->flushes[cpu]++;
	}
	return err;
}

/* An NR-CPU virtual system on skylake-56 under v6.0, seed 3. */
static struct tlbgen_system *vt_sys(void)
{
	struct tlbgen_machine m;
	struct tlbgen_system *sys = NULL;

	assert_int_equal(tlbgen_machine_lookup("skylake-56", &m), 0);
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = NR, .mode = TLBGEN_MODE_VIRTUAL,
		    .profile = "v6.0", .seed = 3, .machine = &m);
	assert_int_equal(tlbgen_system__create(&o, &sys), 0);
	return sys;
}

static void test_flush_done_virtual(void **state)
{
	struct tlbgen_system *sys;
	struct vt_wis w = { 0 };
	struct done_rec d = { 0 };
	unsigned int total = 0;
	int ret;

	(void)state;
	sys = vt_sys();
	d.sys = sys;
	assert_int_equal(tlbgen_system__set_flush_done(sys, on_done, &d), 0);
	w.mm = t_mm(sys, NR);
	for (unsigned int c = 0; c < NR; c++)
		assert_int_equal(tlbgen_cpu__spawn(sys, c, vt_wis_thread, &w), 0);
	assert_int_equal(tlbgen_vtime__run(sys, 500 * 1000), 0);
	for (unsigned int c = 0; c < NR; c++) {
		assert_int_equal(tlbgen_cpu__join(sys, c, &ret), 0);
		assert_int_equal(ret, 0);
		assert_true(w.flushes[c] > 0);
		assert_int_equal(d.calls[c], w.flushes[c]);
		total += w.flushes[c];
	}
	assert_int_equal(d.total, total);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Virtual time: a flush started from the callback is refused on the
 * initiator's virtual CPU (-EDEADLK) and on another (-EPERM: not its
 * program), and the run goes on. */
static void test_flush_done_virtual_nested(void **state)
{
	struct tlbgen_system *sys;
	struct vt_wis w = { 0 };
	struct nest_rec n = { .other = 1 };
	int ret;

	(void)state;
	sys = vt_sys();
	n.sys = sys;
	w.mm = n.mm = t_mm(sys, NR);
	assert_int_equal(tlbgen_system__set_flush_done(sys, on_done_nest, &n), 0);
	for (unsigned int c = 0; c < NR; c++)
		assert_int_equal(tlbgen_cpu__spawn(sys, c, vt_wis_thread, &w), 0);
	assert_int_equal(tlbgen_vtime__run(sys, 200 * 1000), 0);
	for (unsigned int c = 0; c < NR; c++) {
		assert_int_equal(tlbgen_cpu__join(sys, c, &ret), 0);
		assert_int_equal(ret, 0);
	}
	assert_true(n.calls > 3);
	assert_int_equal(n.accepted, 0);
	assert_int_equal(n.rc_self, -EDEADLK);
	assert_int_equal(n.rc_switch, -EDEADLK);
	assert_int_equal(n.rc_other, -EPERM);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/*
 * Threaded mode, stable ids asked for: two CPU threads flush a fixed number
 * of times each; every flush completes once on its own thread, and the ids
 * the hooks see from both threads are ordinals from the one locked table.
 */
#define THR_FLUSHES 300

struct thr {
	struct tlbgen_mm *mm;
	atomic_uint done_calls[2], finished;
	atomic_uint line_events;
	atomic_bool bad_id, nested_accepted;
	struct tlbgen_system *sys;
	atomic_uintptr_t max_id;
};

static void thr_done(void *ctx, unsigned int initiator)
{
	struct thr *t = ctx;

	/* Its own flush from inside its completion: refused, not a loop. */
	if (atomic_fetch_add(&t->done_calls[initiator], 1) < 3 &&
	    tlbgen_flush_tlb_page(t->sys, initiator, t->mm, PG(7)) != -EDEADLK)
		atomic_store(&t->nested_accepted, true);
}

static void thr_line(void *ctx, unsigned int cpu, enum tlbgen_line line, uintptr_t id,
		     enum tlbgen_access_op op)
{
	struct thr *t = ctx;
	uintptr_t m = atomic_load(&t->max_id);

	(void)cpu;
	(void)line;
	(void)op;
	atomic_fetch_add(&t->line_events, 1);
	if (!id || id % 64)
		atomic_store(&t->bad_id, true);
	while (id > m && !atomic_compare_exchange_weak(&t->max_id, &m, id))
		;
}

static int thr_fn(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct thr *t = arg;
	int err = tlbgen_switch_mm(sys, cpu, t->mm);

	for (int i = 0; !err && i < THR_FLUSHES; i++)
		err = tlbgen_flush_tlb_page(sys, cpu, t->mm, PG(cpu));
	atomic_fetch_add(&t->finished, 1);
	return err;
}

static void test_threaded(void **state)
{
	struct tlbgen_system *sys = t_sys_mode(2, TLBGEN_MODE_THREADED, "latest", NULL);
	static struct thr t;
	TLBGEN_OPTS(tlbgen_trace_ops, ops, .line_access = thr_line, .ctx = &t);
	int ret;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.sys = sys;
	t.mm = t_mm(sys, 4);
	assert_int_equal(tlbgen_system__set_line_ids(sys, TLBGEN_LINE_IDS_STABLE), 0);
	assert_int_equal(tlbgen_system__set_trace(sys, &ops), 0);
	assert_int_equal(tlbgen_system__set_flush_done(sys, thr_done, &t), 0);
	for (unsigned int c = 0; c < 2; c++)
		assert_int_equal(tlbgen_cpu__spawn(sys, c, thr_fn, &t), 0);
	/* Both loops done before either CPU stops answering IPIs. */
	while (atomic_load(&t.finished) < 2)
		sched_yield();
	for (unsigned int c = 0; c < 2; c++) {
		assert_int_equal(tlbgen_cpu__join(sys, c, &ret), 0);
		assert_int_equal(ret, 0);
		assert_int_equal(atomic_load(&t.done_calls[c]), THR_FLUSHES);
	}
	assert_false(atomic_load(&t.bad_id));
	assert_false(atomic_load(&t.nested_accepted));
	assert_true(atomic_load(&t.line_events) > 2 * THR_FLUSHES);
	/* A handful of lines (tlb_gen, cpumask, two CPUs' blocks, csds). */
	assert_true(atomic_load(&t.max_id) / 64 < 64);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flush_done_once),
		cmocka_unit_test(test_flush_done_event_loop),
		cmocka_unit_test(test_flush_done_virtual),
		cmocka_unit_test(test_flush_done_nested),
		cmocka_unit_test(test_flush_done_virtual_nested),
	};
	const struct CMUnitTest thr[] = { cmocka_unit_test(test_threaded) };

	if (argc == 2 && !strcmp(argv[1], "--threaded"))
		return cmocka_run_group_tests(thr, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
