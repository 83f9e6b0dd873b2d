// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * AMD INVLPGB (4afeb0ed1753, v6.15), the flushes: the oracle takes a
 * broadcast flush as complete only at TLBSYNC; invlpgb_count_max pages per
 * INVLPGB; arch_tlbbatch_flush() and flush_tlb_kernel_range() by broadcast;
 * bad options; and INVLPGB's dependency on PCID (44126343d58c, v7.1).
 * Stepped mode, jiffies at 0: flushes from CPU 0 assign global ASIDs.
 */
#include "invlpgb-fx.h"

/* Completion at TLBSYNC: without it, a CPU keeps a translation after the flush returned. */
static long stale_after_flush(const char *invlpgb_choice)
{
	struct tlbgen_system *sys = inv_sys("latest", true, 0, 0);
	struct tlbgen_mm *mm = t_mm(sys, 64);
	long v;

	assert_int_equal(tlbgen_system__set_choice(sys, "invlpgb", invlpgb_choice), 0);
	global_mm(sys, mm);
	assert_int_equal(tlbgen_access(sys, 1, PG(9)), 0);
	assert_int_equal(tlbgen_pte_change(sys, 0, mm, PG(9)), 0);
	flush_page(sys, 0, mm, 9);
	assert_true(tlbgen_access(sys, 1, PG(9)) >= 0);
	v = tlbgen_oracle__violations(sys);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	return v;
}

static void test_oracle_tlbsync(void **state)
{
	(void)state;
	assert_int_equal(stale_after_flush("on-when-available"), 0);
	assert_int_equal(stale_after_flush("no-tlbsync"), 1);
}

/* The wrap of the first allocation: one INVLPGB, and TLBSYNC only if the kernel has it. */
static void reset_counts(const char *invlpgb_choice, uint64_t *invlpgb, uint64_t *tlbsync)
{
	struct tlbgen_system *sys = inv_sys("latest", true, 0, 0);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	assert_int_equal(tlbgen_system__set_choice(sys, "invlpgb", invlpgb_choice), 0);
	assert_int_equal(assign_one(sys, mm), TLBGEN_TLB_NR_DYN_ASIDS);
	*invlpgb = t_cpu_stat(sys, 0, TLBGEN_STAT_INVLPGB);
	*tlbsync = t_cpu_stat(sys, 0, TLBGEN_STAT_TLBSYNC);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_reset_tlbsync(void **state)
{
	uint64_t inv, sync;

	(void)state;
	reset_counts("on-when-available", &inv, &sync);
	assert_int_equal(inv, 1);
	assert_int_equal(sync, 1);
	reset_counts("no-tlbsync", &inv, &sync);
	assert_int_equal(inv, 1);
	assert_int_equal(sync, 0);
}

/* invlpgb_count_max pages per INVLPGB; TLB_FLUSH_ALL one per PCID. */
static void test_ranges(void **state)
{
	struct tlbgen_system *sys = inv_sys("latest", true, 0, 8);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	(void)state;
	global_mm(sys, mm);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 0, mm, PG(0), PG(20), TLBGEN_PAGE_SHIFT,
						   false), 0);
	t_idle(sys);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_INVLPGB), 3);	/* 8 + 8 + 4 */
	assert_int_equal(tlbgen_flush_tlb_mm(sys, 0, mm), 0);
	t_idle(sys);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_INVLPGB), 4);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_TLBSYNC), 2);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* arch_tlbbatch_flush(): INVLPGB of all non-globals when pages were unmapped. */
static void batch_flush(bool invlpgb, uint64_t *ipis, uint64_t *bcasts, long *viol)
{
	struct tlbgen_system *sys = inv_sys("latest", invlpgb, 0, 0);
	struct tlbgen_mm *mm = t_mm(sys, 64);
	struct tlbgen_tlbbatch *b;

	t_switch_all(sys, 0, 3, mm);
	assert_int_equal(tlbgen_tlbbatch__create(sys, &b), 0);
	for (unsigned int c = 1; c < 4; c++)
		assert_int_equal(tlbgen_access(sys, c, PG(3)), 0);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_pte_change(sys, 0, mm, PG(3)), 0);
	assert_int_equal(tlbgen_arch_tlbbatch_add_pending(sys, 0, b, mm, PG(3), PG(4)), 0);
	assert_int_equal(tlbgen_arch_tlbbatch_flush(sys, 0, b), 0);
	t_idle(sys);
	for (unsigned int c = 1; c < 4; c++)
		assert_int_equal(tlbgen_access(sys, c, PG(3)), 0);
	*ipis = t_sys_stat(sys, TLBGEN_STAT_IPI_SENT);
	*bcasts = t_sys_stat(sys, TLBGEN_STAT_INVLPGB);
	*viol = tlbgen_oracle__violations(sys);
	assert_int_equal(tlbgen_tlbbatch__destroy(b), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_batch(void **state)
{
	uint64_t ipi, bc;
	long v;

	(void)state;
	batch_flush(true, &ipi, &bc, &v);
	assert_int_equal(bc, 1);
	assert_int_equal(ipi, 0);
	assert_int_equal(v, 0);
	batch_flush(false, &ipi, &bc, &v);
	assert_int_equal(bc, 0);
	assert_int_equal(ipi, 3);
	assert_int_equal(v, 0);
}

/*
 * flush_tlb_kernel_range() (82378c6c2f43, v6.15): with INVLPGB, runs of
 * invlpgb_count_max pages (globals included) and one TLBSYNC, no IPI; past
 * the ceiling one INVLPGB of everything. Without it, or before v6.15, an
 * IPI to every other online CPU and do_kernel_range_flush() on each.
 */
struct kflush { uint64_t ipis, bcasts, syncs, runs, avoided; };

static void kernel_flush(const char *profile, bool invlpgb, unsigned long end,
			 struct kflush *k)
{
	struct tlbgen_system *sys = inv_sys(profile, invlpgb, 0, invlpgb ? 8 : 0);

	assert_int_equal(tlbgen_flush_tlb_kernel_range(sys, 0, PG(0), end), 0);
	t_idle(sys);
	k->ipis = t_sys_stat(sys, TLBGEN_STAT_IPI_SENT);
	k->bcasts = t_sys_stat(sys, TLBGEN_STAT_INVLPGB);
	k->syncs = t_sys_stat(sys, TLBGEN_STAT_TLBSYNC);
	k->runs = t_sys_stat(sys, TLBGEN_STAT_KERNEL_FLUSH);
	k->avoided = t_sys_stat(sys, TLBGEN_STAT_IPI_AVOIDED);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
	assert_int_equal(tlbgen_system__warns(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_kernel_range(void **state)
{
	struct kflush k;

	(void)state;
	kernel_flush("latest", true, PG(20), &k);		/* 8 + 8 + 4 pages */
	assert_int_equal(k.ipis, 0);
	assert_int_equal(k.bcasts, 3);
	assert_int_equal(k.syncs, 1);
	assert_int_equal(k.runs, 0);
	assert_int_equal(k.avoided, NCPU - 1);
	kernel_flush("latest", true, PG(40), &k);		/* past the ceiling (33) */
	assert_int_equal(k.ipis, 0);
	assert_int_equal(k.bcasts, 1);
	assert_int_equal(k.syncs, 1);
	assert_int_equal(k.runs, 0);
	kernel_flush("latest", false, PG(20), &k);
	assert_int_equal(k.ipis, NCPU - 1);
	assert_int_equal(k.bcasts, 0);
	assert_int_equal(k.runs, NCPU);
	assert_int_equal(k.avoided, 0);
	kernel_flush("v6.14", true, PG(20), &k);
	assert_int_equal(k.ipis, NCPU - 1);
	assert_int_equal(k.bcasts, 0);
	assert_int_equal(k.runs, NCPU);
}

static void test_bad_input(void **state)
{
	struct tlbgen_system *sys = NULL;
	const char *msg;

	(void)state;
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 4, .invlpgb = true,
			    .global_asids = TLBGEN_GLOBAL_ASIDS_MAX + 1);
		t_capture_start();
		assert_int_equal(tlbgen_system__create(&o, &sys), -EINVAL);
		msg = t_capture_stop();
		assert_non_null(strstr(msg, "global_asids"));
		assert_null(sys);
	}
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 4, .global_asids = 3);
		t_capture_start();
		assert_int_equal(tlbgen_system__create(&o, &sys), -EINVAL);
		assert_non_null(strstr(t_capture_stop(), "global_asids"));
		assert_null(sys);
	}
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 4, .invlpgb = true,
			    .invlpgb_count_max = 65537);
		t_capture_start();
		assert_int_equal(tlbgen_system__create(&o, &sys), -EINVAL);
		msg = t_capture_stop();
		assert_non_null(strstr(msg, "invlpgb_count_max"));
		assert_null(sys);
	}
	assert_int_equal(tlbgen_mm__global_asid(NULL, NULL), -EINVAL);
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 4, .invlpgb = true,
			    .global_asids = TLBGEN_GLOBAL_ASIDS_MAX);
		assert_int_equal(tlbgen_system__create(&o, &sys), 0);
		t_capture_start();
		assert_int_equal(tlbgen_system__set_choice(sys, "invlpgb", "sometimes"), -ENOENT);
		t_capture_stop();
		assert_string_equal(tlbgen_system__get_choice(sys, "invlpgb"), "on-when-available");
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
}

/*
 * 44126343d58c (v7.1): X86_FEATURE_INVLPGB depends on PCID. A machine with
 * INVLPGB booted with nopcid: before it, an mm on 4 CPUs gets a global ASID
 * and its flushes are INVLPGBs with that PCID (a #GP on hardware: a WARN
 * here); with it, the same flushes are IPIs.
 */
static void no_pcid_flush(const char *profile, bool no_pcid, uint64_t *invlpgb, uint64_t *ipis,
			  int *asid, long *warns)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = NCPU, .profile = profile, .seed = 7,
		    .mode = TLBGEN_MODE_STEPPED, .invlpgb = true, .no_pcid = no_pcid);
	struct tlbgen_system *sys = t_sys_opts(&o);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	four_cpu_flush(sys, mm, invlpgb, ipis, asid);
	*warns = tlbgen_system__warns(sys);
	/* No CPU used a stale page 2, whichever way it was flushed. */
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_no_pcid(void **state)
{
	static const struct {
		const char *profile;
		bool no_pcid, broadcast;
	} cases[] = {
		{ "v6.19", true, true },	/* before 44126343d58c */
		{ "v7.0", true, true },
		{ "v7.1", true, false },
		{ "v7.3-rc", true, false },
		{ "latest", true, false },
		{ "v7.1", false, true },	/* PCID on: INVLPGB as before */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t invlpgb, ipis;
		long warns;
		int asid;

		no_pcid_flush(cases[i].profile, cases[i].no_pcid, &invlpgb, &ipis, &asid, &warns);
		if (cases[i].broadcast) {
			assert_true(asid >= TLBGEN_TLB_NR_DYN_ASIDS);
			assert_int_equal(invlpgb, 1);
		} else {
			assert_int_equal(asid, 0);
			assert_int_equal(invlpgb, 0);
			/* CPUs 1..3 each get an IPI. */
			assert_int_equal(ipis, 3);
		}
		/* Only INVLPGB without PCID is the #GP. */
		assert_int_equal(warns > 0, cases[i].broadcast && cases[i].no_pcid);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle_tlbsync),
		cmocka_unit_test(test_reset_tlbsync),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_kernel_range),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_no_pcid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
