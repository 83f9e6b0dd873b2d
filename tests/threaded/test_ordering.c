// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/threaded/test_ordering.c - real-hardware ordering windows between
 * switch_mm_irqs_off() and flush_tlb_mm_range(), on two pinned threads.
 *
 * 83b0177a6c48 (CVE-2025-40174), store buffering (SB):
 *
 *   CPU 1: switch_mm_irqs_off(B -> A)        CPU 0: flush_tlb_mm_range(A)
 *     W cpu_tlbstate.loaded_mm = SWITCHING     (PTE of A changed before)
 *     (bit already set in mm_cpumask(A):       RMW A->context.tlb_gen++  (locked: full mb)
 *      no locked RMW, so no barrier unless     R mm_cpumask(A), then CPU 1's
 *      the fix's smp_mb())                       loaded_mm in should_flush_tlb()
 *     R A->context.tlb_gen
 *
 * At least one side must see the other's write: CPU 1 the new tlb_gen (and
 * flush in switch_mm), or CPU 0 SWITCHING (and send the IPI). Without the
 * smp_mb() x86's store buffer lets CPU 1's load pass its own store, both
 * read old values, and CPU 1 keeps the stale translation after CPU 0's
 * flush has returned: the oracle sees it. The lazy mm_cpumask (209954cbc7d0)
 * is what leaves the bit set and removes the locked RMW.
 *
 * fea4e317f9e7 (LOADED_MM_SWITCHING): before it, should_flush_tlb() did not
 * treat SWITCHING as "may hold either mm", so a flush whose tlb_gen bump
 * comes after CPU 1's tlb_gen read, and whose loaded_mm read comes before
 * CPU 1's final loaded_mm = A, skips CPU 1: a plain interleaving window.
 *
 * Timing is shaped as litmus tests do, without touching the library: CPU 0
 * reads CPU 1's cpu_tlbstate line and a few more lines, which CPU 1 then
 * writes right before switching. Its stores queue behind those RFO misses
 * in the (in-order) store buffer, so its loaded_mm store stays invisible
 * while its tlb_gen load, an L1 hit, has long completed; the two sides are
 * also skewed by a sweeping delay.
 *
 * That window is far shorter than the flusher's path from its tlb_gen bump
 * to its loaded_mm read, so it is shown by forcing the interleaving at model
 * points with the public trace hooks: CPU 1, in the racing switch, after it
 * read tlb_gen and before its next cpu_tlbstate write, holds until CPU 0 has
 * evaluated the IPI condition for it (CPU 0 starts its flush only once CPU 1
 * is there). With fea4e317f9e7 the SWITCHING store precedes the tlb_gen read,
 * CPU 0 sees it and IPIs; without it CPU 0 sees the old mm and skips.
 *
 * The verdict: the buggy choice runs until its first violation, at most N
 * iterations; the fixed profile runs all N iterations and must find none.
 * The forced switching window must be found. The SB window is timing on
 * real hardware (tens to a few hundred iterations on a 2-vCPU VM, yet none
 * in 300000 once, when the two vCPUs were not truly running at once), so
 * here it is reported, not required: tests/virtual/test_tso.c finds it
 * deterministically under the TSO model. Under sanitizers N is capped.
 *
 * Usage: test_ordering sb|switching [N]
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "tlbgen-test.h"

static const char *window = "sb";
static unsigned long max_iters = 20000;

#define POLLUTE_LINES	48

struct ord {
	/* Lines CPU 0 reads and CPU 1 then writes just before its switch: */
	struct { _Atomic unsigned long v; char pad[56]; } pollute[POLLUTE_LINES];
	struct tlbgen_system *sys;
	struct tlbgen_mm *a, *b;
	struct thr_barrier bar;
	unsigned long iters;
	bool stop_at_first;
	atomic_bool stop;
	unsigned long done;		/* iterations run (CPU 1) */
	/* switching window: forced interleaving through the trace hooks */
	bool forced;
	atomic_bool racing, in_window, cpu0_decided;
	bool gen_read, held;		/* CPU 1 only */
	long found;			/* violations audited on CPU 1 */
	atomic_int errors;
};

static void hook(void *ctx, unsigned int cpu, enum tlbgen_line line, uintptr_t addr,
		 enum tlbgen_access_op op)
{
	struct ord *o = ctx;

	(void)addr;
	if (!atomic_load_explicit(&o->racing, memory_order_acquire))
		return;
	if (cpu == 0) {
		if (line == TLBGEN_LINE_TLBSTATE && op == TLBGEN_OP_READ)
			atomic_store_explicit(&o->cpu0_decided, true, memory_order_release);
		return;
	}
	if (line == TLBGEN_LINE_MM_TLB_GEN && op == TLBGEN_OP_READ) {
		o->gen_read = true;
	} else if (line == TLBGEN_LINE_TLBSTATE && op == TLBGEN_OP_WRITE && o->gen_read &&
		   !o->held) {
		unsigned long spins = 0;

		o->held = true;
		atomic_store_explicit(&o->in_window, true, memory_order_release);
		/* Bounded: a CPU 0 that never looks at us must not hang the test. */
		while (!atomic_load_explicit(&o->cpu0_decided, memory_order_acquire) &&
		       ++spins < (1ul << 24))
			if (spins % 256 == 0)
				sched_yield();
	}
}

/* Skew the two sides by -64..+63 delay units so their windows overlap. */
static void delay(unsigned int n)
{
	for (volatile unsigned int i = 0; i < n; i++)
		;
}

static int switcher(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct ord *o = arg;
	int n = 0, n_prev;

	for (unsigned long i = 0; i < o->iters; i++) {
		int off = (int)((i * 7) % 128) - 64;

		n_prev = n;
		/*
		 * Setup: A running with page 0 cached, then B; A's bit stays set.
		 * Through init_mm first when the last iteration found a stale
		 * entry: after a missed flush CPU 1's generation
		 * for A lags, and a lagging CPU flushes at its next switch; the
		 * detour makes it catch up so every iteration starts equal.
		 */
		if (n_prev > 0 && tlbgen_switch_mm(sys, cpu, NULL))
			atomic_fetch_add(&o->errors, 1);
		if (tlbgen_switch_mm(sys, cpu, o->a) || tlbgen_access(sys, cpu, 0) < 0 ||
		    tlbgen_switch_mm(sys, cpu, o->b))
			atomic_fetch_add(&o->errors, 1);
		thr_barrier_wait(&o->bar, sys, cpu);	/* CPU 0 changes the PTE */
		thr_barrier_wait(&o->bar, sys, cpu);	/* go */
		if (off > 0)
			delay((unsigned int)off);
		o->gen_read = o->held = false;
		if (o->forced)
			atomic_store_explicit(&o->racing, true, memory_order_release);
		/* No seq_cst store (an xchg) from here: it would drain the store buffer. */
		for (int k = 0; k < POLLUTE_LINES; k++)
			atomic_store_explicit(&o->pollute[k].v, i, memory_order_relaxed);
		tlbgen_switch_mm(sys, cpu, o->a);	/* the racing switch */
		if (o->forced)
			atomic_store_explicit(&o->racing, false, memory_order_release);
		thr_barrier_wait(&o->bar, sys, cpu);	/* CPU 0's flush has returned */
		n = tlbgen_oracle__audit_cpu(sys, cpu);
		if (n < 0)
			atomic_fetch_add(&o->errors, 1);
		else
			o->found += n;
		o->done = i + 1;
		if (o->found && o->stop_at_first)
			atomic_store(&o->stop, true);
		thr_barrier_wait(&o->bar, sys, cpu);	/* verdict published */
		if (atomic_load(&o->stop))
			break;
	}
	tlbgen_switch_mm(sys, cpu, NULL);
	return 0;
}

static int flusher(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct ord *o = arg;

	for (unsigned long i = 0; i < o->iters; i++) {
		int off = (int)((i * 7) % 128) - 64;

		thr_barrier_wait(&o->bar, sys, cpu);
		if (tlbgen_pte_change(sys, cpu, o->a, 0))
			atomic_fetch_add(&o->errors, 1);
		/* Share CPU 1's lines: its next stores need RFOs. */
		(void)tlbgen_cpu__loaded_mm_is(sys, 1, o->b);
		for (int k = 0; k < POLLUTE_LINES; k++)
			(void)atomic_load_explicit(&o->pollute[k].v, memory_order_relaxed);
		thr_barrier_wait(&o->bar, sys, cpu);
		if (off < 0)
			delay((unsigned int)-off);
		if (o->forced) {
			unsigned long spins = 0;

			while (!atomic_load(&o->in_window) && ++spins < (1ul << 24))
				if (spins % 256 == 0)
					sched_yield();
		}
		if (tlbgen_flush_tlb_mm_range(sys, cpu, o->a, 0, TLBGEN_PAGE_SIZE,
					      TLBGEN_PAGE_SHIFT, false))
			atomic_fetch_add(&o->errors, 1);
		thr_barrier_wait(&o->bar, sys, cpu);
		atomic_store(&o->in_window, false);
		atomic_store(&o->cpu0_decided, false);
		thr_barrier_wait(&o->bar, sys, cpu);
		if (atomic_load(&o->stop))
			break;
	}
	return 0;
}

/* Run the race on CPUs 0 and 1 (pinned to two real cores); return what CPU 1 saw. */
static long run(const char *profile, unsigned long iters, bool stop_at_first,
		unsigned long *done)
{
	TLBGEN_OPTS(tlbgen_runtime_opts, rt, .watchdog_ms = 20000);
	TLBGEN_OPTS(tlbgen_system_opts, so, .nr_cpus = 2, .mode = TLBGEN_MODE_THREADED,
		    .profile = profile, .runtime = &rt);
	struct ord o = { .iters = iters, .stop_at_first = stop_at_first };
	TLBGEN_OPTS(tlbgen_trace_ops, tr, .ctx = &o, .line_access = hook);
	int ret;

	assert_int_equal(tlbgen_system__create(&so, &o.sys), 0);
	assert_int_equal(tlbgen_runtime__oversubscribed(o.sys), 0);
	assert_int_not_equal(tlbgen_runtime__host_cpu(o.sys, 0),
			     tlbgen_runtime__host_cpu(o.sys, 1));
	assert_int_equal(tlbgen_mm__create(o.sys, 4, &o.a), 0);
	assert_int_equal(tlbgen_mm__create(o.sys, 4, &o.b), 0);
	o.forced = !strcmp(window, "switching");
	if (o.forced)
		assert_int_equal(tlbgen_system__set_trace(o.sys, &tr), 0);
	thr_barrier_init(&o.bar, 2, 1u << 20);
	assert_int_equal(tlbgen_cpu__spawn(o.sys, 1, switcher, &o), 0);
	assert_int_equal(tlbgen_cpu__spawn(o.sys, 0, flusher, &o), 0);
	assert_int_equal(tlbgen_cpu__join(o.sys, 0, &ret), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(tlbgen_cpu__join(o.sys, 1, &ret), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(atomic_load(&o.errors), 0);
	/* The oracle recorded at least what the audits found. */
	assert_true(tlbgen_oracle__violations(o.sys) >= o.found);
	assert_int_equal(tlbgen_system__destroy(o.sys), 0);
	*done = o.done;
	return o.found;
}

static void test_window(void **state)
{
	const char *buggy = !strcmp(window, "sb") ? "thr-latest-no-sb-barrier"
						  : "thr-latest-no-switching";
	unsigned long done = 0, done_fixed = 0;
	long bad, good;
	struct timespec t0, t1;

	(void)state;
	if (thr_host_cpus() < 2)
		skip();
	/* Only the forced interleaving is deterministic; see the header. */
	bool must_find = strcmp(window, "sb") != 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	bad = run(buggy, max_iters, true, &done);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "%s: first violation after %lu of at most %lu iterations (%.2f s)\n",
		buggy, bad ? done : 0, max_iters,
		(double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (must_find)
		assert_true(bad > 0);
	else if (!bad)
		fprintf(stderr, "%s: the store-buffer window did not open on this host in %lu "
			"iterations (not required; test_tso finds it)\n", buggy, done);
	good = run("latest", max_iters, false, &done_fixed);
	fprintf(stderr, "latest: %ld violation(s) in %lu iterations\n", good, done_fixed);
	assert_int_equal(done_fixed, max_iters);
	assert_int_equal(good, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
	};

	if (argc > 1)
		window = argv[1];
	if (argc > 2)
		max_iters = strtoul(argv[2], NULL, 0);
	if (THR_UNDER_SANITIZER && max_iters > 20000)
		max_iters = 20000;
	tlbgen_set_print(t_warn_print);
	if (tlbgen_policy_register("thr-latest-no-sb-barrier", "latest", "switch_mm_barrier=off",
				   NULL) ||
	    tlbgen_policy_register("thr-latest-no-switching", "latest",
				   "loaded_mm_switching=off,switching_write=late", NULL))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
