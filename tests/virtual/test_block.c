// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/virtual/test_block.c - threads that block in virtual time
 * (tlbgen_vtime__block / tlbgen_vtime__wake): a wake lands after one line
 * transfer and the idle state's exit latency; a wake before the block is
 * kept; a timeout and the run's deadline end a block; an IPI to a blocked
 * CPU is taken after the exit latency; the three mm_cpumask policies send
 * an idle CPU that left the mm for init_mm no IPI, one IPI, and none.
 * Expected times are sums of the machine model's figures.
 */
#include <stdlib.h>
#include <string.h>

#include "tlbgen-test.h"

#define EXIT	1000u	/* an exit latency, cycles */

/* `profile` is a built-in name, or "v6.8" plus choices "k=v,...". */
static struct tlbgen_system *vsys(unsigned int n, const char *profile, struct tlbgen_machine *m)
{
	struct tlbgen_system *sys;
	bool v68 = !strncmp(profile, "v6.8,", 5);

	assert_int_equal(tlbgen_machine_lookup("skx-2s-80", m), 0);
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = n, .mode = TLBGEN_MODE_VIRTUAL,
		    .profile = v68 ? "v6.8" : profile, .seed = 1, .machine = m);
	assert_int_equal(tlbgen_system__create(&o, &sys), 0);
	if (v68)
		assert_int_equal(tlbgen_system__set_choices(sys, profile + 5), 0);
	return sys;
}

struct bw {
	uint64_t spend;		/* CPU 1 works this long before it wakes CPU 0 */
	uint64_t pre;		/* CPU 0 works this long before it blocks */
	uint64_t until;		/* CPU 0's block limit */
	uint64_t slept, end;
	int ret;
	bool wake;
};

static int sleeper(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct bw *b = arg;

	if (b->pre)
		assert_int_equal(tlbgen_vtime__spend(sys, cpu, b->pre), 0);
	b->ret = tlbgen_vtime__block(sys, cpu, b->until, EXIT, &b->slept);
	tlbgen_vtime__now(sys, cpu, &b->end);
	return 0;
}

static int waker(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct bw *b = arg;
	int err = tlbgen_vtime__spend(sys, cpu, b->spend);

	return err ? err : b->wake ? tlbgen_vtime__wake(sys, cpu, 0) : 0;
}

static void run_pair(struct bw *b, uint64_t deadline)
{
	struct tlbgen_machine m;
	struct tlbgen_system *sys = vsys(2, "latest", &m);
	int ret;

	assert_int_equal(tlbgen_cpu__spawn(sys, 0, sleeper, b), 0);
	assert_int_equal(tlbgen_cpu__spawn(sys, 1, waker, b), 0);
	assert_int_equal(tlbgen_vtime__run(sys, deadline), 0);
	assert_int_equal(tlbgen_cpu__join(sys, 0, &ret), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(tlbgen_cpu__join(sys, 1, &ret), 0);
	assert_int_equal(ret, 0);
	tlbgen_system__destroy(sys);
}

/* CPUs 0 and 1 share a socket on skx-2s-80: 120 + 20 cycles for the wake. */
static void test_wake_time(void **state)
{
	struct bw b = { .spend = 50000, .until = UINT64_MAX, .wake = true };

	(void)state;
	run_pair(&b, 10000000);
	assert_int_equal(b.ret, 0);
	assert_int_equal(b.end, 50000 + 120 + 20 + EXIT);
	assert_int_equal(b.slept, b.end);
}

/* The wake comes first (CPU 1 at 0 + 140, CPU 0 blocks at 200): kept. */
static void test_wake_before_block(void **state)
{
	struct bw b = { .pre = 200, .spend = 0, .until = UINT64_MAX, .wake = true };

	(void)state;
	run_pair(&b, 10000000);
	assert_int_equal(b.ret, 0);
	assert_int_equal(b.slept, EXIT);
	assert_int_equal(b.end, 200 + EXIT);
}

static void test_timeout_and_deadline(void **state)
{
	struct bw b = { .spend = 10, .until = 30000, .wake = false };

	(void)state;
	run_pair(&b, 10000000);
	assert_int_equal(b.ret, 1);
	assert_int_equal(b.end, 30000);
	b = (struct bw){ .spend = 10, .until = UINT64_MAX, .wake = false };
	run_pair(&b, 70000);
	assert_int_equal(b.ret, 1);
	assert_int_equal(b.end, 70000);
}

/* ---- an idle CPU that left mm A, and a flush of A ---------------------------------------- */

struct idle {
	struct tlbgen_mm *mm;
	bool c6;		/* leave_mm() before the block (CPUIDLE_FLAG_TLB_FLUSHED) */
	uint64_t flush_cycles[2];
};

static int idle_cpu(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct idle *d = arg;
	int err = tlbgen_switch_mm(sys, cpu, d->mm);

	err = err ?: tlbgen_enter_lazy_tlb(sys, cpu);
	if (d->c6)
		err = err ?: tlbgen_leave_mm(sys, cpu);
	return err ?: (tlbgen_vtime__block(sys, cpu, UINT64_MAX, EXIT, NULL) < 0);
}

static int flusher(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct idle *d = arg;
	int err = tlbgen_switch_mm(sys, cpu, d->mm);

	/* Let CPU 0 get to sleep first. */
	err = err ?: tlbgen_vtime__spend(sys, cpu, 100000);
	for (int i = 0; !err && i < 2; i++) {
		uint64_t t0, t1;

		tlbgen_vtime__now(sys, cpu, &t0);
		err = tlbgen_flush_tlb_page(sys, cpu, d->mm, PG(1));
		tlbgen_vtime__now(sys, cpu, &t1);
		d->flush_cycles[i] = t1 - t0;
	}
	return err;
}

static void idle_run(const char *profile, bool c6, struct tlbgen_vtime_stats *st,
		     struct idle *d)
{
	struct tlbgen_machine m;
	struct tlbgen_system *sys = vsys(2, profile, &m);
	int ret;

	d->c6 = c6;
	assert_int_equal(tlbgen_mm__create(sys, 8, &d->mm), 0);
	assert_int_equal(tlbgen_cpu__spawn(sys, 0, idle_cpu, d), 0);
	assert_int_equal(tlbgen_cpu__spawn(sys, 1, flusher, d), 0);
	assert_int_equal(tlbgen_vtime__run(sys, 1000000), 0);
	assert_int_equal(tlbgen_cpu__join(sys, 0, &ret), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(tlbgen_cpu__join(sys, 1, &ret), 0);
	assert_int_equal(ret, 0);
	st->sz = sizeof(*st);
	assert_int_equal(tlbgen_vtime__stats(sys, st), 0);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	tlbgen_system__destroy(sys);
}

#define CLEAR	"v6.8,same_mm_cpumask_check=debug_vm"
#define LAZY	CLEAR ",mm_cpumask=lazy,wrong_mm=remote-clear"
#define TRIM	LAZY ",ipi_cond=should_flush_tlb,trim_cpumask=per-hz"

static void test_idle_left_mm(void **state)
{
	struct tlbgen_vtime_stats st;
	struct tlbgen_machine m;
	struct idle d;

	(void)state;
	assert_int_equal(tlbgen_machine_lookup("skx-2s-80", &m), 0);
	/* Lazy on A, still A: no policy sends an IPI. */
	for (int k = 0; k < 3; k++) {
		d = (struct idle){ 0 };
		idle_run(k == 0 ? CLEAR : k == 1 ? LAZY : TRIM, false, &st, &d);
		assert_int_equal(st.idle_ipis, 0);
	}
	/* Left for init_mm: cleared from the mask; skipped by should_flush_tlb(). */
	d = (struct idle){ 0 };
	idle_run(CLEAR, true, &st, &d);
	assert_int_equal(st.idle_ipis, 0);
	d = (struct idle){ 0 };
	idle_run(TRIM, true, &st, &d);
	assert_int_equal(st.idle_ipis, 0);
	/* Untrimmed: the first flush wakes it (after the exit latency and the
	 * IPI's flight) and it clears itself; the second sends nothing. */
	d = (struct idle){ 0 };
	idle_run(LAZY, true, &st, &d);
	assert_int_equal(st.idle_ipis, 1);
	assert_true(d.flush_cycles[0] >= (uint64_t)m.ipi_latency + EXIT + m.irq_entry);
	assert_true(d.flush_cycles[1] < m.ipi_latency);
}

static int bad_wake(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	int *rc = arg;

	rc[0] = tlbgen_vtime__wake(sys, cpu, cpu);
	rc[1] = tlbgen_vtime__wake(sys, cpu, 99);
	rc[2] = tlbgen_vtime__block(sys, 1, 0, 0, NULL);
	return 0;
}

static void test_misuse(void **state)
{
	struct tlbgen_machine m;
	struct tlbgen_system *sys = vsys(2, "latest", &m), *st;
	int rc[3], ret;

	(void)state;
	/* From the host, not a program. */
	assert_int_equal(tlbgen_vtime__block(sys, 0, 0, 0, NULL), -EPERM);
	assert_int_equal(tlbgen_vtime__wake(sys, 0, 1), -EPERM);
	assert_int_equal(tlbgen_vtime__block(NULL, 0, 0, 0, NULL), -EINVAL);
	assert_int_equal(tlbgen_cpu__spawn(sys, 0, bad_wake, rc), 0);
	assert_int_equal(tlbgen_vtime__run(sys, 100000), 0);
	assert_int_equal(tlbgen_cpu__join(sys, 0, &ret), 0);
	assert_int_equal(rc[0], -EINVAL);
	assert_int_equal(rc[1], -EINVAL);
	assert_int_equal(rc[2], -EPERM);
	tlbgen_system__destroy(sys);
	/* Not a virtual system. */
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_STEPPED);
	assert_int_equal(tlbgen_system__create(&o, &st), 0);
	assert_int_equal(tlbgen_vtime__block(st, 0, 0, 0, NULL), -EINVAL);
	assert_int_equal(tlbgen_vtime__wake(st, 0, 1), -EINVAL);
	tlbgen_system__destroy(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wake_time),
		cmocka_unit_test(test_wake_before_block),
		cmocka_unit_test(test_timeout_and_deadline),
		cmocka_unit_test(test_idle_left_mm),
		cmocka_unit_test(test_misuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
