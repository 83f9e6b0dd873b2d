// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The cross-CPU call engine (kernel/smp.c) in
 * stepped mode: one IPI per empty->non-empty queue transition, FIFO drain,
 * initiators waiting on their csds, the condition evaluated late (per target,
 * at enqueue time: d39268ad24c0 reverted the early pre-pass of 6035152d8eeb).
 */
#include "tlbgen-test.h"

enum { A = 0, B = 1, C = 2, D = 3 };

struct watch {
	struct tlbgen_system *sys;
	int seen;
	int waiting_a[2], waiting_b[2];
	int from[2];
};

/* At each callback arrival on C, who is still waiting? */
static void watch_hook(struct t_rec *r, const struct t_event *e)
{
	struct watch *w = r->priv;

	if (e->kind != EV_IPI_RECV || e->a != C || w->seen >= 2)
		return;
	w->from[w->seen] = e->b;
	w->waiting_a[w->seen] = tlbgen_cpu__is_waiting(w->sys, A);
	w->waiting_b[w->seen] = tlbgen_cpu__is_waiting(w->sys, B);
	w->seen++;
}

/* Only C runs mm; A and B flush it. */
static struct tlbgen_system *c_only(const char *profile, struct tlbgen_mm **mm)
{
	struct tlbgen_system *sys = t_sys(profile, 4, 1);

	*mm = t_mm(sys, 64);
	assert_int_equal(tlbgen_switch_mm(sys, C, *mm), 0);
	assert_int_equal(tlbgen_mm__cpumask_weight(*mm), 1);
	return sys;
}

/*
 * Two initiators target C before it drains: exactly one IPI (the second
 * enqueue finds the queue non-empty), two callbacks run in enqueue order,
 * and each initiator stays waiting until its own callback has run.
 */
static void test_two_initiators_one_ipi(void **state)
{
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = c_only(*state, &mm);
	struct watch w = { .sys = sys };
	struct t_rec rec = { .hook = watch_hook, .priv = &w };
	long ra, rb, fa;

	t_rec_install(sys, &rec, false);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, A, mm, PG(1)), 0);
	assert_int_equal(tlbgen_cpu__ipi_pending(sys, C), 1);
	assert_int_equal(tlbgen_flush_tlb_page(sys, B, mm, PG(2)), 0);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, C), 2);
	assert_int_equal(t_cpu_stat(sys, A, TLBGEN_STAT_IPI_SENT), 1);
	assert_int_equal(t_cpu_stat(sys, B, TLBGEN_STAT_IPI_SENT), 0);
	assert_int_equal(t_cpu_stat(sys, B, TLBGEN_STAT_CALL_QUEUED), 1);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 1);
	assert_int_equal(t_rec_find(&rec, 0, EV_IPI_SEND, -1, -1, B, -1), -1);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, A), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, B), 1);
	/* Waiting initiators can start nothing new. */
	assert_int_equal(tlbgen_flush_tlb_page(sys, A, mm, PG(3)), -EBUSY);
	assert_int_equal(tlbgen_switch_mm(sys, B, mm), -EBUSY);

	assert_int_equal(tlbgen_deliver(sys, C), 2);
	assert_int_equal(w.seen, 2);
	assert_int_equal(w.from[0], A);
	assert_int_equal(w.from[1], B);
	assert_int_equal(w.waiting_a[0], 1);	/* A's callback about to run */
	assert_int_equal(w.waiting_b[0], 1);
	assert_int_equal(w.waiting_a[1], 0);	/* A's callback done, B's next */
	assert_int_equal(w.waiting_b[1], 1);
	/* C flushed for A between the two arrivals. */
	ra = t_rec_find(&rec, 0, EV_IPI_RECV, -1, -1, C, A);
	rb = t_rec_find(&rec, 0, EV_IPI_RECV, -1, -1, C, B);
	fa = t_rec_find(&rec, (size_t)ra, EV_FLUSH, -1, -1, C, -1);
	assert_true(ra >= 0 && ra < fa && fa < rb);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, A), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, B), 0);
	assert_int_equal(tlbgen_cpu__ipi_pending(sys, C), 0);
	assert_int_equal(t_cpu_stat(sys, C, TLBGEN_STAT_IPI_RECEIVED), 2);
	assert_int_equal(t_local_gen(sys, C), 2);

	/* The queue is empty again: the next enqueue raises a new IPI. */
	assert_int_equal(tlbgen_flush_tlb_page(sys, B, mm, PG(2)), 0);
	assert_int_equal(t_cpu_stat(sys, B, TLBGEN_STAT_IPI_SENT), 1);
	t_idle(sys);
	assert_int_equal(tlbgen_system__set_trace(sys, NULL), 0);
	t_rec_free(&rec);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Out of order (tlbgen_deliver_from): B is released first, A keeps waiting. */
static void test_each_initiator_waits_for_its_own_callback(void **state)
{
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = c_only(*state, &mm);

	assert_int_equal(tlbgen_flush_tlb_page(sys, A, mm, PG(1)), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, B, mm, PG(2)), 0);
	assert_int_equal(tlbgen_deliver_from(sys, C, B), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, B), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, A), 1);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, C), 1);
	assert_int_equal(tlbgen_cpu__ipi_pending(sys, C), 1);
	assert_int_equal(tlbgen_deliver_from(sys, C, B), -ENOENT);
	assert_int_equal(tlbgen_deliver_from(sys, C, A), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, A), 0);
	assert_int_equal(tlbgen_cpu__ipi_pending(sys, C), 0);
	assert_int_equal(tlbgen_step(sys), -ENOENT);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

struct order {
	int from[4];
	int n;
};

static void order_hook(struct t_rec *r, const struct t_event *e)
{
	struct order *o = r->priv;

	if (e->kind == EV_IPI_RECV && e->a == C && o->n < 4)
		o->from[o->n++] = e->b;
}

/* Taking one call out of the queue keeps the others in FIFO order. */
static void test_deliver_from_keeps_fifo(void **state)
{
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = c_only(*state, &mm);
	struct order o = { .n = 0 };
	struct t_rec rec = { .hook = order_hook, .priv = &o };

	t_rec_install(sys, &rec, false);
	assert_int_equal(tlbgen_flush_tlb_page(sys, B, mm, PG(1)), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, A, mm, PG(2)), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, D, mm, PG(3)), 0);
	assert_int_equal(tlbgen_deliver_from(sys, C, A), 1);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, C), 2);
	assert_int_equal(tlbgen_deliver(sys, C), 2);
	assert_int_equal(o.n, 3);
	assert_int_equal(o.from[0], A);
	assert_int_equal(o.from[1], B);
	assert_int_equal(o.from[2], D);
	for (unsigned int c = 0; c < 4; c++)
		assert_int_equal(tlbgen_cpu__is_waiting(sys, c), 0);
	assert_int_equal(tlbgen_system__set_trace(sys, NULL), 0);
	t_rec_free(&rec);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Mutual flushes: a waiting CPU still services its own queue (csd_lock_wait with IRQs on). */
static void test_waiting_cpu_takes_ipis(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 2, 1);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	t_switch_all(sys, 0, 1, mm);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, PG(1)), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 1, mm, PG(2)), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 1), 1);
	assert_int_equal(tlbgen_deliver(sys, 0), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 1), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 1);
	assert_int_equal(tlbgen_run_until_idle(sys), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* ---- late evaluation --------------------------------------------------------- */

struct late {
	struct tlbgen_system *sys;
	bool fired;
	int rc;
};

/*
 * While the initiator is enqueueing on B (the first target of its loop), D
 * goes idle and lazy. A pre-pass (6035152d8eeb) would already have decided
 * to IPI D; the per-target condition evaluated at enqueue time sees is_lazy.
 */
static void late_hook(struct t_rec *r, const struct t_event *e)
{
	struct late *l = r->priv;

	if (l->fired || e->kind != EV_LINE || e->a != A || e->sub != TLBGEN_LINE_CALL_QUEUE)
		return;
	l->fired = true;
	l->rc = tlbgen_enter_lazy_tlb(l->sys, D);
}

static void test_condition_evaluated_late(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 4, 1);
	struct tlbgen_mm *mm = t_mm(sys, 64);
	struct late l = { .sys = sys };
	struct t_rec rec = { .hook = late_hook, .priv = &l };
	long q, lazy_reads = 0, d_read = -1;

	t_switch_all(sys, A, D, mm);
	assert_false(t_state(sys, D).is_lazy);
	t_rec_install(sys, &rec, true);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, A, mm, PG(1)), 0);
	assert_true(l.fired);
	assert_int_equal(l.rc, 0);
	assert_true(t_state(sys, D).is_lazy);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, B), 1);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, C), 1);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, D), 0);
	assert_int_equal(tlbgen_cpu__ipi_pending(sys, D), 0);
	assert_int_equal(t_cpu_stat(sys, A, TLBGEN_STAT_IPI_SKIP_LAZY), 1);
	assert_int_equal(t_cpu_stat(sys, A, TLBGEN_STAT_IPI_SENT), 2);
	/* D's is_lazy was read after the first enqueue (targets B, C, D in order). */
	q = t_rec_find(&rec, 0, EV_LINE, TLBGEN_LINE_CALL_QUEUE, TLBGEN_OP_RMW, A, -1);
	for (size_t i = 0; i < rec.nr; i++) {
		const struct t_event *e = &rec.ev[i];

		if (e->kind == EV_LINE && e->a == A && e->sub == TLBGEN_LINE_TLBSTATE_SHARED &&
		    e->op == TLBGEN_OP_READ && ++lazy_reads == 3)
			d_read = (long)i;
	}
	assert_true(q >= 0 && d_read > q);
	t_idle(sys);
	assert_int_equal(t_cpu_stat(sys, D, TLBGEN_STAT_FLUSH_FUNC), 0);
	/* D catches up when it comes back. */
	assert_int_equal(tlbgen_switch_mm(sys, D, mm), 0);
	assert_int_equal(t_cpu_stat(sys, D, TLBGEN_STAT_SWITCH_MM_FLUSH), 1);
	assert_int_equal(tlbgen_system__set_trace(sys, NULL), 0);
	t_rec_free(&rec);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* The seeded scheduler only picks CPUs with pending IPIs and drains them whole. */
static void test_step_picks_pending(void **state)
{
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = c_only(*state, &mm);
	int cpu;

	assert_int_equal(tlbgen_step(sys), -ENOENT);
	assert_int_equal(tlbgen_run_until_idle(sys), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, A, mm, PG(1)), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, B, mm, PG(1)), 0);
	cpu = tlbgen_step(sys);
	assert_int_equal(cpu, C);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, C), 0);
	assert_int_equal(tlbgen_step(sys), -ENOENT);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* ---- tlbgen_smp_call_function_single(): the user's own calls ---------------- */

struct calls {
	struct tlbgen_system *sys;
	int ran[4];		/* callbacks run, per CPU */
	void *info[4];		/* the info each saw */
	int nested_rc;		/* a call started from inside a callback */
	int flush_rc, switch_rc;	/* a flush, a switch_mm from inside it */
	struct tlbgen_mm *mm;
	int waiting_src;	/* was the initiator still waiting at the first arrival? */
	unsigned int src;
};

static void record_call(struct tlbgen_system *sys, unsigned int cpu, void *info)
{
	struct calls *k = info;

	assert_ptr_equal(sys, k->sys);
	k->ran[cpu]++;
	k->info[cpu] = info;
	if (k->ran[cpu] == 1)	/* at the first arrival */
		k->waiting_src = tlbgen_cpu__is_waiting(sys, k->src);
	/* IRQs are off in a callback: starting another call must refuse. */
	k->nested_rc = tlbgen_smp_call_function_single(sys, cpu, k->src, record_call, info);
	k->flush_rc = tlbgen_flush_tlb_mm(sys, cpu, k->mm);
	k->switch_rc = tlbgen_switch_mm(sys, cpu, k->mm);
}

/*
 * A user call travels the flush path: csd, queue, one IPI for the empty
 * queue, the initiator waiting until the target has run it.
 */
static void test_user_call_single(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 4, 1);
	struct calls k = { .sys = sys, .src = A, .nested_rc = 1, .mm = t_mm(sys, 16) };
	uint64_t gen0 = t_mm_gen(k.mm);

	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_smp_call_function_single(sys, A, C, record_call, &k), 0);
	assert_int_equal(k.ran[C], 0);				/* nothing runs until delivered */
	assert_int_equal(tlbgen_cpu__is_waiting(sys, A), 1);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, C), 1);
	assert_int_equal(tlbgen_cpu__ipi_pending(sys, C), 1);
	assert_int_equal(t_cpu_stat(sys, A, TLBGEN_STAT_IPI_SENT), 1);
	assert_int_equal(t_cpu_stat(sys, A, TLBGEN_STAT_CALL_QUEUED), 1);
	/* A waiting initiator starts nothing new. */
	assert_int_equal(tlbgen_smp_call_function_single(sys, A, B, record_call, &k), -EBUSY);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, B), 0);

	/* A second initiator finds C's queue non-empty: no second IPI. */
	assert_int_equal(tlbgen_smp_call_function_single(sys, D, C, record_call, &k), 0);
	assert_int_equal(t_cpu_stat(sys, D, TLBGEN_STAT_CALL_QUEUED), 1);
	assert_int_equal(t_cpu_stat(sys, D, TLBGEN_STAT_IPI_SENT), 0);

	assert_int_equal(tlbgen_deliver(sys, C), 2);
	assert_int_equal(k.ran[C], 2);
	assert_ptr_equal(k.info[C], &k);
	assert_int_equal(k.waiting_src, 1);			/* A waited for its callback */
	assert_int_equal(k.nested_rc, -EDEADLK);
	assert_int_equal(k.flush_rc, -EDEADLK);		/* no flush from IRQs-off context */
	assert_int_equal(k.switch_rc, -EDEADLK);
	assert_int_equal(tlbgen_mm__cpumask_weight(k.mm), 0);
	assert_int_equal(t_mm_gen(k.mm), gen0);		/* no tlb_gen bump either */
	assert_int_equal(tlbgen_cpu__is_waiting(sys, A), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, D), 0);
	assert_int_equal(t_cpu_stat(sys, C, TLBGEN_STAT_IPI_RECEIVED), 2);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, A), 0);	/* nested call queued nothing */
	assert_int_equal(k.ran[A] + k.ran[B] + k.ran[D], 0);

	/* To itself: runs at once, IRQs off, no IPI, no wait. */
	k.src = B;
	assert_int_equal(tlbgen_smp_call_function_single(sys, B, B, record_call, &k), 0);
	assert_int_equal(k.ran[B], 1);
	assert_int_equal(k.nested_rc, -EDEADLK);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, B), 0);
	assert_int_equal(t_cpu_stat(sys, B, TLBGEN_STAT_IPI_SENT), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_user_call_bad_input(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 4, 1);
	struct calls k = { .sys = sys };

	assert_int_equal(tlbgen_smp_call_function_single(NULL, A, C, record_call, &k), -EINVAL);
	assert_int_equal(tlbgen_smp_call_function_single(sys, 4, C, record_call, &k), -EINVAL);
	assert_int_equal(tlbgen_smp_call_function_single(sys, A, 4, record_call, &k), -EINVAL);
	assert_int_equal(tlbgen_smp_call_function_single(sys, A, C, NULL, &k), -EINVAL);
	for (unsigned int c = 0; c < 4; c++) {
		assert_int_equal(tlbgen_cpu__pending_calls(sys, c), 0);
		assert_int_equal(tlbgen_cpu__is_waiting(sys, c), 0);
		assert_int_equal(k.ran[c], 0);
	}
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_CALL_QUEUED), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_EACH(test_two_initiators_one_ipi),
		T_EACH(test_each_initiator_waits_for_its_own_callback),
		T_EACH(test_deliver_from_keeps_fifo),
		T_EACH(test_waiting_cpu_takes_ipis),
		T_EACH(test_condition_evaluated_late),
		T_EACH(test_step_picks_pending),
		T_PRE(test_user_call_single, "latest"),
		T_PRE(test_user_call_bad_input, "latest"),
	};

	return cmocka_run_group_tests_name("smp_engine", tests, NULL, NULL);
}
