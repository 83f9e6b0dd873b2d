// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/faults/test_fault_arch.c - the write fault per architecture
 * (fault_arch) and across the commits that changed it: what
 * ptep_set_access_flags() does with a changed PTE and what
 * flush_tlb_fix_spurious_fault() does with an unchanged one.
 */
#include "tlbgen-test.h"

#define WR (TLBGEN_FAULT_FLAG_WRITE | TLBGEN_FAULT_FLAG_USER)
#define RW_CLEAN (TLBGEN_PTEF_WRITE | TLBGEN_PTEF_YOUNG)
#define RW_DIRTY (TLBGEN_PTEF_WRITE | TLBGEN_PTEF_DIRTY | TLBGEN_PTEF_YOUNG)

static uint64_t fst(struct tlbgen_system *sys, enum tlbgen_fault_stat s)
{
	uint64_t v[TLBGEN_FAULT_STAT_NR];

	assert_int_equal(tlbgen_fault_stats__system(sys, v, TLBGEN_FAULT_STAT_NR),
			 TLBGEN_FAULT_STAT_NR);
	return v[s];
}

/* 3 CPUs run mm; page 0 has PTE `pte` and sits in every CPU's TLB. */
static struct tlbgen_system *setup(const char *profile, const char *choices, unsigned int pte,
				   struct tlbgen_mm **mm)
{
	struct tlbgen_system *sys = t_sys_mode(3, TLBGEN_MODE_STEPPED, profile, choices);

	assert_int_equal(tlbgen_mm__create(sys, 8, mm), 0);
	assert_int_equal(tlbgen_pte_set(sys, 0, *mm, 0, pte), 0);
	for (unsigned int c = 0; c < 3; c++) {
		assert_int_equal(tlbgen_switch_mm(sys, c, *mm), 0);
		assert_int_equal(tlbgen_access(sys, c, 0), 0);
	}
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_fault_stats__reset(sys), 0);
	return sys;
}

/*
 * A write fault that makes a writable clean PTE dirty. arm64 invalidates
 * the stale entry with a broadcast flush_tlb_page() (TLBI IS + DSB, no IPI)
 * until cb1fa2e99955 (v6.19) makes it a local TLBI: the other CPUs keep
 * their entry, which the oracle accepts (write was added, not taken away).
 */
static void test_arm64_changed_v6_18_v6_19(void **state)
{
	static const char *const profiles[] = { "v6.18", "v6.19" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct tlbgen_mm *mm;
		struct tlbgen_system *sys = setup(profiles[i], "fault_arch=arm64", RW_CLEAN, &mm);
		bool local = i == 1;

		assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, 0, WR), 0);
		tlbgen_run_until_idle(sys);
		assert_int_equal(tlbgen_pte__flags(mm, 0), RW_DIRTY);
		assert_int_equal(fst(sys, TLBGEN_FAULT_STAT_CHANGED), 1);
		assert_int_equal(fst(sys, TLBGEN_FAULT_STAT_ACCESS_FLUSH), 1);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_TLBI), 1);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_DSB), 1);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_FLUSH_INITIATED), local ? 0 : 1);
		assert_int_equal(tlbgen_access(sys, 0, 0), 0);		/* gone here */
		assert_int_equal(tlbgen_access(sys, 1, 0), local ? 1 : 0);
		assert_int_equal(tlbgen_access(sys, 2, 0), local ? 1 : 0);
		/* A read fault that changes nothing but young never flushes. */
		assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, 0, 0), 0);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_TLBI), 1);
		assert_int_equal(tlbgen_oracle__violations(sys), 0);
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
}

/*
 * A write fault that finds the PTE already writable and dirty (another CPU
 * fixed it): arm64's flush_tlb_fix_spurious_fault() is a no-op from v5.10
 * and a local TLBI + DSB from cb1fa2e99955.
 */
static void test_arm64_spurious_v6_18_v6_19(void **state)
{
	static const char *const profiles[] = { "v6.18", "v6.19" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct tlbgen_mm *mm;
		struct tlbgen_system *sys = setup(profiles[i], "fault_arch=arm64", RW_DIRTY, &mm);
		bool local = i == 1;

		assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, 0, WR), 0);
		assert_int_equal(fst(sys, TLBGEN_FAULT_STAT_UNCHANGED), 1);
		assert_int_equal(fst(sys, TLBGEN_FAULT_STAT_SPURIOUS), 1);
		assert_int_equal(fst(sys, TLBGEN_FAULT_STAT_SPURIOUS_FLUSH), local);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_TLBI), local);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_DSB), local);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);
		assert_int_equal(tlbgen_access(sys, 0, 0), local ? 0 : 1);
		assert_int_equal(tlbgen_access(sys, 1, 0), 1);
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
}

/*
 * The changed-PTE path per architecture, with the cross-CPU hook: x86's
 * ptep_set_access_flags() never flushes; the generic one calls the hook
 * (here flush_tlb_page() to the 2 other CPUs).
 */
static void test_changed_x86_generic(void **state)
{
	static const char *const choices[] = {
		"fault_arch=x86,flush_tlb_fix_spurious_fault=generic",
		"fault_arch=generic,flush_tlb_fix_spurious_fault=generic",
	};

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct tlbgen_mm *mm;
		struct tlbgen_system *sys = setup("latest", choices[i], RW_CLEAN, &mm);
		bool generic = i == 1;

		assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, 0, WR), 0);
		tlbgen_run_until_idle(sys);
		assert_int_equal(tlbgen_pte__flags(mm, 0), RW_DIRTY);
		assert_int_equal(fst(sys, TLBGEN_FAULT_STAT_ACCESS_FLUSH), generic);
		assert_int_equal(fst(sys, TLBGEN_FAULT_STAT_SPURIOUS_FLUSH), generic);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), generic ? 2 : 0);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_TLBI), 0);
		assert_int_equal(tlbgen_access(sys, 1, 0), generic ? 0 : 1);
		assert_int_equal(tlbgen_oracle__violations(sys), 0);
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
}

/*
 * riscv: a write fault on CPU 0 makes mm a's page 0 dirty; CPU 0 also holds
 * page 0 of mm b (another ASID). update_mmu_cache() fences the page: before
 * af842aea58d8 (v7.2) by sfence.vma of the address in every ASID, which
 * drops b's entry too; since (v7.3-rc) by a's ASID only. With 905be00304bd
 * on a hart with Svinval (machine feature riscv_svinval) the fence is
 * sfence.w.inval, sinval.vma, sfence.inval.ir. Returns b's TLB hit after.
 */
static int riscv_umc(const char *profile, bool svinval, uint64_t *sfence, uint64_t *sinval)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_STEPPED,
		    .profile = profile, .seed = 42, .riscv_svinval = svinval);
	struct tlbgen_system *sys = t_sys_opts(&o);
	struct tlbgen_mm *a = t_mm(sys, 8), *b = t_mm(sys, 8);
	int hit;

	assert_int_equal(tlbgen_system__set_choices(sys, "fault_arch=riscv"), 0);
	assert_int_equal(tlbgen_pte_set(sys, 0, a, 0, RW_CLEAN), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 0, b), 0);
	assert_int_equal(tlbgen_access(sys, 0, 0), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 0, a), 0);
	assert_int_equal(tlbgen_access(sys, 0, 0), 0);
	assert_int_equal(tlbgen_access(sys, 0, 0), 1);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_fault_stats__reset(sys), 0);
	assert_int_equal(tlbgen_handle_mm_fault(sys, 0, a, 0, WR), 0);
	assert_int_equal(tlbgen_pte__flags(a, 0), RW_DIRTY);
	assert_int_equal(fst(sys, TLBGEN_FAULT_STAT_CHANGED), 1);
	assert_int_equal(fst(sys, TLBGEN_FAULT_STAT_UPDATE_MMU_CACHE), 1);
	assert_int_equal(fst(sys, TLBGEN_FAULT_STAT_ACCESS_FLUSH), 0);
	*sfence = fst(sys, TLBGEN_FAULT_STAT_SFENCE_VMA);
	*sinval = fst(sys, TLBGEN_FAULT_STAT_SINVAL_VMA);
	assert_int_equal(tlbgen_access(sys, 0, 0), 0);	/* a's entry went */
	assert_int_equal(tlbgen_switch_mm(sys, 0, b), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_SWITCH_MM_FLUSH), 0);
	hit = tlbgen_access(sys, 0, 0);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	return hit;
}

static void test_riscv_update_mmu_cache(void **state)
{
	uint64_t sfence, sinval;

	(void)state;
	assert_int_equal(riscv_umc("v7.2", false, &sfence, &sinval), 0);	/* every ASID */
	assert_int_equal(sfence, 1);
	assert_int_equal(sinval, 0);
	assert_int_equal(riscv_umc("v7.2", true, &sfence, &sinval), 0);	/* no Svinval use yet */
	assert_int_equal(sfence, 1);
	assert_int_equal(sinval, 0);
	assert_int_equal(riscv_umc("v7.3-rc", false, &sfence, &sinval), 1);	/* a's ASID only */
	assert_int_equal(sfence, 1);
	assert_int_equal(sinval, 0);
	assert_int_equal(riscv_umc("v7.3-rc", true, &sfence, &sinval), 1);
	assert_int_equal(sfence, 0);
	assert_int_equal(sinval, 1);
}

/* A fault that installs a PTE: riscv's set_pte_range() ends in update_mmu_cache(). */
static void test_riscv_install(void **state)
{
	static const char *const arches[] = { "fault_arch=x86", "fault_arch=riscv" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct tlbgen_mm *mm;
		struct tlbgen_system *sys = setup("latest", arches[i], TLBGEN_PTEF_NONE, &mm);

		assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, 0, 0), 0);
		assert_int_equal(fst(sys, TLBGEN_FAULT_STAT_INSTALL), 1);
		assert_int_equal(fst(sys, TLBGEN_FAULT_STAT_UPDATE_MMU_CACHE), i);
		assert_int_equal(fst(sys, TLBGEN_FAULT_STAT_SFENCE_VMA), i);
		assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_PAGES_INVALIDATED), i);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
}

/* arm64's broadcast TLBI edits remote simulated TLBs: not with threads and the oracle. */
static void test_arm64_threaded_oracle_refused(void **state)
{
	struct tlbgen_system *sys = t_sys_mode(2, TLBGEN_MODE_THREADED, "latest", "fault_arch=arm64");
	struct tlbgen_mm *mm;

	(void)state;
	assert_int_equal(tlbgen_mm__create(sys, 8, &mm), 0);
	assert_int_equal(tlbgen_cpu__attach(sys, 0), 0);
	assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, 0, WR), -EOPNOTSUPP);
	assert_int_equal(fst(sys, TLBGEN_FAULT_STAT_FAULTS), 0);
	assert_int_equal(tlbgen_cpu__detach(sys, 0), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm64_changed_v6_18_v6_19),
		cmocka_unit_test(test_arm64_spurious_v6_18_v6_19),
		cmocka_unit_test(test_changed_x86_generic),
		cmocka_unit_test(test_arm64_threaded_oracle_refused),
		cmocka_unit_test(test_riscv_update_mmu_cache),
		cmocka_unit_test(test_riscv_install),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
