// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/core/test_coherence.c - the MESI line-state model (tlbgen/coherence.h):
 * its transitions, its argument checks, and fed by a stepped system's trace
 * hooks, the tlb_gen traffic seed 000 is about (E->S per remote read; none
 * with Luto's mm_tlb_gen_read=never).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <tlbgen/tlbgen.h>

#define L TLBGEN_LINE_MM_TLB_GEN

static struct tlbgen_coherence_counts counts(struct tlbgen_coherence *c, enum tlbgen_line k,
					     int cpu)
{
	struct tlbgen_coherence_counts n;

	assert_int_equal(tlbgen_coherence__counts(c, k, cpu, &n), 0);
	return n;
}

static void test_transitions(void **state)
{
	struct tlbgen_coherence *c;
	struct tlbgen_coherence_counts n;

	(void)state;
	assert_int_equal(tlbgen_coherence__create(4, &c), 0);
	/* cpu0 writes a line nobody has: cold miss, M. */
	assert_int_equal(tlbgen_coherence__line_access(c, 0, L, 0x1000, TLBGEN_OP_RMW), 0);
	n = counts(c, TLBGEN_LINE_NR, -1);
	assert_int_equal(n.cold_misses, 1);
	assert_int_equal(n.transfers, 0);
	/* cpu1 reads it: M -> S on cpu0, a transfer charged to cpu1. */
	tlbgen_coherence__line_access(c, 1, L, 0x1000, TLBGEN_OP_READ);
	assert_int_equal(counts(c, L, 1).downgrades, 1);
	assert_int_equal(counts(c, L, 1).transfers, 1);
	assert_int_equal(counts(c, L, 0).transfers, 0);
	/* cpu2 reads: served by a sharer. cpu0 re-reads: hit. */
	tlbgen_coherence__line_access(c, 2, L, 0x1000, TLBGEN_OP_READ);
	tlbgen_coherence__line_access(c, 0, L, 0x1000, TLBGEN_OP_READ);
	n = counts(c, L, -1);
	assert_int_equal(n.shared_reads, 1);
	assert_int_equal(n.transfers, 2);
	/* cpu1 writes its S copy: S -> M, the two other copies invalidated. */
	tlbgen_coherence__line_access(c, 1, L, 0x1000, TLBGEN_OP_WRITE);
	n = counts(c, L, 1);
	assert_int_equal(n.upgrades, 1);
	assert_int_equal(n.invalidations, 2);
	/* Writing again is a hit; cpu3 writing takes ownership. */
	tlbgen_coherence__line_access(c, 1, L, 0x1000, TLBGEN_OP_WRITE);
	assert_int_equal(counts(c, L, 1).transfers, 2);
	tlbgen_coherence__line_access(c, 3, L, 0x1000, TLBGEN_OP_WRITE);
	assert_int_equal(counts(c, L, 3).ownership, 1);
	/* An E line written by its owner is the silent E -> M. */
	tlbgen_coherence__line_access(c, 2, TLBGEN_LINE_CSD, 0x2000, TLBGEN_OP_READ);
	tlbgen_coherence__line_access(c, 2, TLBGEN_LINE_CSD, 0x2000, TLBGEN_OP_WRITE);
	n = counts(c, TLBGEN_LINE_CSD, -1);
	assert_int_equal(n.accesses, 2);
	assert_int_equal(n.transfers, 0);
	assert_int_equal(n.cold_misses, 1);
	assert_int_equal(tlbgen_coherence__nr_lines(c), 2);
	assert_int_equal(tlbgen_coherence__transfers(c, TLBGEN_LINE_NR, -1), 4);

	/* Warm reset keeps states: cpu3 still owns 0x1000. */
	assert_int_equal(tlbgen_coherence__reset(c, false), 0);
	tlbgen_coherence__line_access(c, 3, L, 0x1000, TLBGEN_OP_READ);
	n = counts(c, TLBGEN_LINE_NR, -1);
	assert_int_equal(n.accesses, 1);
	assert_int_equal(n.transfers + n.cold_misses, 0);
	/* Cold reset forgets them. */
	assert_int_equal(tlbgen_coherence__reset(c, true), 0);
	tlbgen_coherence__line_access(c, 3, L, 0x1000, TLBGEN_OP_READ);
	assert_int_equal(counts(c, L, 3).cold_misses, 1);
	tlbgen_coherence__destroy(c);
}

static void test_many_lines_and_cpus(void **state)
{
	struct tlbgen_coherence *c;

	(void)state;
	assert_int_equal(tlbgen_coherence__create(130, &c), 0);
	/* Enough lines to force the table to grow; sharers beyond one word. */
	for (uintptr_t id = 0; id < 1000; id++)
		for (unsigned int cpu = 0; cpu < 130; cpu += 43)
			assert_int_equal(tlbgen_coherence__line_access(c, cpu, TLBGEN_LINE_CSD,
								      id * 64, TLBGEN_OP_READ), 0);
	assert_int_equal(tlbgen_coherence__nr_lines(c), 1000);
	/* cpu 0 took each line cold, cpus 43, 86, 129 read from sharers. */
	assert_int_equal(counts(c, TLBGEN_LINE_CSD, -1).cold_misses, 1000);
	assert_int_equal(counts(c, TLBGEN_LINE_CSD, -1).transfers, 3000);
	/* A write by cpu 129 invalidates the other three copies of each line. */
	for (uintptr_t id = 0; id < 1000; id++)
		tlbgen_coherence__line_access(c, 129, TLBGEN_LINE_CSD, id * 64, TLBGEN_OP_WRITE);
	assert_int_equal(counts(c, TLBGEN_LINE_CSD, 129).upgrades, 1000);
	assert_int_equal(counts(c, TLBGEN_LINE_CSD, 129).invalidations, 3000);
	tlbgen_coherence__destroy(c);
}

static void test_bad_args(void **state)
{
	struct tlbgen_coherence *c = NULL;
	struct tlbgen_coherence_counts n;
	struct tlbgen_trace_ops ops;

	(void)state;
	assert_int_equal(tlbgen_coherence__create(0, &c), -EINVAL);
	assert_int_equal(tlbgen_coherence__create(TLBGEN_MAX_CPUS + 1, &c), -EINVAL);
	assert_int_equal(tlbgen_coherence__create(2, NULL), -EINVAL);
	assert_null(c);
	assert_int_equal(tlbgen_coherence__create(2, &c), 0);
	assert_int_equal(tlbgen_coherence__line_access(NULL, 0, L, 0, TLBGEN_OP_READ), -EINVAL);
	assert_int_equal(tlbgen_coherence__line_access(c, 2, L, 0, TLBGEN_OP_READ), -EINVAL);
	assert_int_equal(tlbgen_coherence__line_access(c, 0, TLBGEN_LINE_NR, 0, TLBGEN_OP_READ),
			 -EINVAL);
	assert_int_equal(tlbgen_coherence__line_access(c, 0, L, 0, (enum tlbgen_access_op)3),
			 -EINVAL);
	/* No side effect of the rejected calls. */
	assert_int_equal(tlbgen_coherence__nr_lines(c), 0);
	assert_int_equal(tlbgen_coherence__counts(c, L, 2, &n), -EINVAL);
	assert_int_equal(tlbgen_coherence__counts(c, L, -2, &n), -EINVAL);
	assert_int_equal(tlbgen_coherence__counts(c, TLBGEN_LINE_NR + 1, -1, &n), -EINVAL);
	assert_int_equal(tlbgen_coherence__counts(NULL, L, -1, &n), -EINVAL);
	assert_int_equal(tlbgen_coherence__counts(c, L, -1, NULL), -EINVAL);
	assert_int_equal(tlbgen_coherence__transfers(NULL, L, -1), 0);
	assert_int_equal(tlbgen_coherence__trace_ops(NULL, &ops), -EINVAL);
	assert_int_equal(tlbgen_coherence__trace_ops(c, NULL), -EINVAL);
	assert_int_equal(tlbgen_coherence__reset(NULL, true), -EINVAL);
	assert_int_equal(tlbgen_coherence__nr_lines(NULL), -EINVAL);
	assert_null(tlbgen_line_name(TLBGEN_LINE_NR));
	assert_string_equal(tlbgen_line_name(TLBGEN_LINE_MM_TLB_GEN), "tlb_gen");
	tlbgen_coherence__destroy(c);
	tlbgen_coherence__destroy(NULL);
}

/*
 * Fed by a stepped system: CPU 0 flushes one page of an mm that CPUs 0..3
 * run. Each remote flush_tlb_func of v5.17 reads mm->context.tlb_gen right
 * after CPU 0's RMW made it M there: the first read downgrades it, the others
 * are served by sharers, one transfer each. With mm_tlb_gen_read=never the
 * tlb_gen line sees no read at all.
 */
static uint64_t tlb_gen_read_transfers(const char *choices)
{
	TLBGEN_OPTS(tlbgen_system_opts, so, .nr_cpus = 4, .mode = TLBGEN_MODE_STEPPED,
		    .profile = "v6.0");
	struct tlbgen_system *sys;
	struct tlbgen_coherence *c;
	struct tlbgen_trace_ops ops;
	struct tlbgen_mm *mm;
	struct tlbgen_coherence_counts n;

	assert_int_equal(tlbgen_system__create(&so, &sys), 0);
	if (choices)
		assert_int_equal(tlbgen_system__set_choices(sys, choices), 0);
	assert_int_equal(tlbgen_mm__create(sys, 16, &mm), 0);
	for (unsigned int cpu = 0; cpu < 4; cpu++)
		assert_int_equal(tlbgen_switch_mm(sys, cpu, mm), 0);
	assert_int_equal(tlbgen_coherence__create(4, &c), 0);
	assert_int_equal(tlbgen_coherence__trace_ops(c, &ops), 0);
	assert_int_equal(tlbgen_system__set_trace(sys, &ops), 0);
	assert_int_equal(tlbgen_pte_change(sys, 0, mm, 0), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, 0), 0);
	assert_true(tlbgen_run_until_idle(sys) >= 3);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
	n = counts(c, L, -1);
	/* The initiator's RMW is charged to CPU 0 only. */
	assert_true(counts(c, L, 0).accesses >= 1);
	assert_int_equal(tlbgen_system__set_trace(sys, NULL), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	tlbgen_coherence__destroy(c);
	return n.downgrades + n.shared_reads;
}

static void test_fed_by_stepped_system(void **state)
{
	(void)state;
	assert_int_equal(tlb_gen_read_transfers("mm_tlb_gen_read=always"), 3);
	assert_int_equal(tlb_gen_read_transfers(NULL), 3);
	assert_int_equal(tlb_gen_read_transfers("mm_tlb_gen_read=never"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transitions),
		cmocka_unit_test(test_many_lines_and_cpus),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_fed_by_stepped_system),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
