// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/faults/test_faults.c - range ceilings per arch (with the
 * powerpc RFC's 32 >=), the spurious-fault rule (b7333b58f358) and
 * the cost model's accounting. Stepped mode: deterministic.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tlbgen/tlbgen.h>

#include "tlbgen-test.h"


static uint64_t fstat(struct tlbgen_system *sys, enum tlbgen_fault_stat s)
{
	uint64_t st[TLBGEN_FAULT_STAT_NR];

	assert_int_equal(tlbgen_fault_stats__system(sys, st, TLBGEN_FAULT_STAT_NR),
			 TLBGEN_FAULT_STAT_NR);
	return st[s];
}

/* One flush from CPU 0 on an mm only CPU 0 runs: pages invalidated or a full flush. */
static void x86_flush(struct tlbgen_system *sys, struct tlbgen_mm *mm, unsigned long units,
		      unsigned int shift, uint64_t *pages, uint64_t *full)
{
	uint64_t p0 = t_cpu_stat(sys, 0, TLBGEN_STAT_PAGES_INVALIDATED);
	uint64_t f0 = t_cpu_stat(sys, 0, TLBGEN_STAT_FULL_FLUSH);

	assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 0, mm, 0, units << shift, shift, false), 0);
	tlbgen_run_until_idle(sys);
	*pages = t_cpu_stat(sys, 0, TLBGEN_STAT_PAGES_INVALIDATED) - p0;
	*full = t_cpu_stat(sys, 0, TLBGEN_STAT_FULL_FLUSH) - f0;
}

/* on the real flush path, for both places of the ceiling (4a02ed8e1cc3). */
static void test_x86_behaviour3(void **state)
{
	const char *profiles[] = { "v5.17", "latest" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct tlbgen_system *sys = t_sys(profiles[i], 2, 1);
		struct tlbgen_mm *mm;
		uint64_t pages, full;

		assert_int_equal(tlbgen_mm__create(sys, 34 * 512, &mm), 0);
		assert_int_equal(tlbgen_switch_mm(sys, 0, mm), 0);
		x86_flush(sys, mm, 33, 12, &pages, &full);
		assert_int_equal(pages, 33);
		assert_int_equal(full, 0);
		x86_flush(sys, mm, 34, 12, &pages, &full);
		assert_int_equal(pages, 0);
		assert_int_equal(full, 1);
		x86_flush(sys, mm, 33, 21, &pages, &full);	/* 33 x 2 MiB */
		assert_int_equal(pages, 33);
		assert_int_equal(full, 0);
		assert_int_equal(tlbgen_ceiling__set(sys, TLBGEN_ARCH_X86, 0), 0);
		assert_int_equal(tlbgen_get_tlb_single_page_flush_ceiling(sys), 0);
		x86_flush(sys, mm, 1, 12, &pages, &full);
		assert_int_equal(pages, 0);
		assert_int_equal(full, 1);
		assert_int_equal(tlbgen_oracle__violations(sys), 0);
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
}

static void expect_rule(struct tlbgen_system *sys, enum tlbgen_ceiling_arch arch,
			unsigned long units, unsigned int shift, bool full, unsigned long ops)
{
	struct tlbgen_range_flush d;

	assert_int_equal(tlbgen_range_flush_decide(sys, arch, 0, units << shift, shift, &d), 0);
	if (d.full != full || d.ops != ops)
		fail_msg("arch %d, %lu units: full=%d ops=%lu, expected full=%d ops=%lu", arch,
			 units, d.full, d.ops, full, ops);
}

/* n-1, n, n+1 units for every arch, in its own units and comparison. */
static void test_arch_boundaries(void **state)
{
	struct tlbgen_system *sys = t_sys(NULL, 1, 1);
	struct { enum tlbgen_ceiling_arch arch; unsigned long n; bool ge; } a[] = {
		{ TLBGEN_ARCH_X86, 33, false },
		{ TLBGEN_ARCH_PPC_RADIX_GLOBAL, 33, false },
		{ TLBGEN_ARCH_PPC_RADIX_LOCAL, 256, false },
		{ TLBGEN_ARCH_RISCV, 64, false },
		{ TLBGEN_ARCH_ARM64, 512, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
		assert_int_equal(tlbgen_ceiling__get(sys, a[i].arch), (long)a[i].n);
		for (unsigned int shift = 12; shift <= 21; shift += 9) {
			expect_rule(sys, a[i].arch, a[i].n - 1, shift, false, a[i].n - 1);
			expect_rule(sys, a[i].arch, a[i].n, shift, a[i].ge, a[i].ge ? 1 : a[i].n);
			expect_rule(sys, a[i].arch, a[i].n + 1, shift, true, 1);
		}
		expect_rule(sys, a[i].arch, 0, 12, false, a[i].arch == TLBGEN_ARCH_RISCV ? 1 : 0);
	}
	assert_int_equal(tlbgen_ceiling__get_cmp(sys, TLBGEN_ARCH_ARM64), TLBGEN_CEILING_GE);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Units are the kernel's: riscv rounds up, arm64 rounds the range to the stride. */
static void test_arch_units_and_zero(void **state)
{
	struct tlbgen_range_flush d;

	(void)state;
	/* riscv: 64 pages + 1 byte is DIV_ROUND_UP = 65 > 64. */
	assert_int_equal(tlbgen_range_flush_rule(TLBGEN_ARCH_RISCV, 64, TLBGEN_CEILING_GT, 0,
						 64 * TLBGEN_PAGE_SIZE + 1, 12, &d), 0);
	assert_true(d.full);
	/* x86 truncates: (64 pages + 1 byte) >> 12 = 64 > 33 -> full; 33 pages + 1 byte -> 33, ranged, 34 ops. */
	assert_int_equal(tlbgen_range_flush_rule(TLBGEN_ARCH_X86, 33, TLBGEN_CEILING_GT, 0,
						 33 * TLBGEN_PAGE_SIZE + 1, 12, &d), 0);
	assert_false(d.full);
	assert_int_equal(d.ops, 34);
	/* arm64: an unaligned 511-page range spanning 512 pages is full. */
	assert_int_equal(tlbgen_range_flush_rule(TLBGEN_ARCH_ARM64, 512, TLBGEN_CEILING_GE, 100,
						 100 + 511 * TLBGEN_PAGE_SIZE, 12, &d), 0);
	assert_true(d.full);
	/* Ceiling 0: ">" turns every non-empty range full, an empty one ranged with 0 ops. */
	assert_int_equal(tlbgen_range_flush_rule(TLBGEN_ARCH_X86, 0, TLBGEN_CEILING_GT, 0, TLBGEN_PAGE_SIZE, 12, &d), 0);
	assert_true(d.full);
	assert_int_equal(tlbgen_range_flush_rule(TLBGEN_ARCH_X86, 0, TLBGEN_CEILING_GT, TLBGEN_PAGE_SIZE, TLBGEN_PAGE_SIZE, 12, &d), 0);
	assert_false(d.full);
	assert_int_equal(d.ops, 0);
	/* arm64 ">=" with 0: even an empty range flushes the mm. */
	assert_int_equal(tlbgen_range_flush_rule(TLBGEN_ARCH_ARM64, 0, TLBGEN_CEILING_GE, TLBGEN_PAGE_SIZE, TLBGEN_PAGE_SIZE, 12, &d), 0);
	assert_true(d.full);
	/* riscv with 0: size <= stride is still one page flush. */
	assert_int_equal(tlbgen_range_flush_rule(TLBGEN_ARCH_RISCV, 0, TLBGEN_CEILING_GT, 0, TLBGEN_PAGE_SIZE, 12, &d), 0);
	assert_false(d.full);
	assert_int_equal(d.ops, 1);
	assert_int_equal(tlbgen_range_flush_rule(TLBGEN_ARCH_RISCV, 0, TLBGEN_CEILING_GT, 0, 2 * TLBGEN_PAGE_SIZE, 12, &d), 0);
	assert_true(d.full);
	/* TLB_FLUSH_ALL is always full. */
	assert_int_equal(tlbgen_range_flush_rule(TLBGEN_ARCH_PPC_RADIX_LOCAL, 256, TLBGEN_CEILING_GT, 0,
						 TLBGEN_TLB_FLUSH_ALL, 12, &d), 0);
	assert_true(d.full);
	/* powerpc: a ranged flush of >= PMD_SIZE also flushes the PWC. */
	assert_int_equal(tlbgen_range_flush_rule(TLBGEN_ARCH_PPC_RADIX_LOCAL, 256, TLBGEN_CEILING_GT, 0,
						 512 * TLBGEN_PAGE_SIZE, 12, &d), 0);
	assert_true(d.full);
	assert_int_equal(tlbgen_range_flush_rule(TLBGEN_ARCH_PPC_RADIX_LOCAL, 256, TLBGEN_CEILING_GT, 0,
						 32 << 16, 16, &d), 0);
	assert_false(d.full);
	assert_true(d.pwc);
	assert_int_equal(tlbgen_range_flush_rule(TLBGEN_ARCH_X86, -1, TLBGEN_CEILING_GT, 0, TLBGEN_PAGE_SIZE, 12, &d),
			 -EINVAL);
	assert_int_equal(tlbgen_range_flush_rule(TLBGEN_ARCH_NR, 1, TLBGEN_CEILING_GT, 0, TLBGEN_PAGE_SIZE, 12, &d),
			 -EINVAL);
}

/* Negative values are rejected like the debugfs write: -EINVAL, nothing changes. */
static void test_negative_rejected(void **state)
{
	struct tlbgen_system *sys = t_sys(NULL, 1, 1);

	(void)state;
	for (int a = 0; a < TLBGEN_ARCH_NR; a++) {
		long before = tlbgen_ceiling__get(sys, (enum tlbgen_ceiling_arch)a);

		assert_int_equal(tlbgen_ceiling__set(sys, (enum tlbgen_ceiling_arch)a, -1), -EINVAL);
		assert_int_equal(tlbgen_ceiling__get(sys, (enum tlbgen_ceiling_arch)a), before);
		assert_int_equal(tlbgen_ceiling__set(sys, (enum tlbgen_ceiling_arch)a, 0), 0);
		assert_int_equal(tlbgen_ceiling__get(sys, (enum tlbgen_ceiling_arch)a), 0);
	}
	assert_int_equal(tlbgen_system__set_choice(sys, "riscv_tlb_flush_all_threshold", "-5"),
			 -EINVAL);
	assert_int_equal(tlbgen_ceiling__get(sys, TLBGEN_ARCH_RISCV), 0);
	assert_int_equal(tlbgen_ceiling__set_cmp(sys, TLBGEN_ARCH_X86, TLBGEN_CEILING_GE),
			 -EOPNOTSUPP);
	assert_int_equal(tlbgen_ceiling__get_cmp(sys, TLBGEN_ARCH_X86), TLBGEN_CEILING_GT);
	assert_int_equal(tlbgen_ceiling__set(NULL, TLBGEN_ARCH_X86, 1), -EINVAL);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Seed 004: the RFC's 32 with >= makes exactly 32 pages (2 MiB of 64 KiB pages) a PID flush. */
static void test_ppc_rfc_32_ge(void **state)
{
	struct tlbgen_system *sys = t_sys(NULL, 2, 1);
	struct tlbgen_range_flush d;
	struct tlbgen_cost_account a0, a1;
	struct tlbgen_mm *mm;

	(void)state;
	assert_int_equal(tlbgen_mm__create(sys, 64, &mm), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 0, mm), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 1, mm), 0);
	assert_int_equal(tlbgen_ppc_radix_flush_type(sys, 0, mm), TLBGEN_PPC_FLUSH_GLOBAL);
	/* Mainline: 32 > 33 is false -> 32 tlbie. */
	expect_rule(sys, TLBGEN_ARCH_PPC_RADIX_GLOBAL, 32, 16, false, 32);
	assert_int_equal(tlbgen_ceiling__set(sys, TLBGEN_ARCH_PPC_RADIX_GLOBAL, 32), 0);
	assert_int_equal(tlbgen_ceiling__set_cmp(sys, TLBGEN_ARCH_PPC_RADIX_GLOBAL,
						 TLBGEN_CEILING_GE), 0);
	expect_rule(sys, TLBGEN_ARCH_PPC_RADIX_GLOBAL, 31, 16, false, 31);
	expect_rule(sys, TLBGEN_ARCH_PPC_RADIX_GLOBAL, 32, 16, true, 1);
	assert_string_equal(tlbgen_system__get_choice(sys, "ppc_ceiling_cmp"), "ge");

	/* On the simulated TLBs (model pages): CPU 1's entries go, CPU 0 pays. */
	for (unsigned long p = 32; p < 40; p++)
		assert_int_equal(tlbgen_access(sys, 1, p * TLBGEN_PAGE_SIZE), 0);
	assert_int_equal(tlbgen_cost__reset(sys), 0);
	assert_int_equal(tlbgen_ppc_radix_flush_tlb_range(sys, 0, mm, 0, 31 * TLBGEN_PAGE_SIZE, 12, &d),
			 TLBGEN_PPC_FLUSH_GLOBAL);
	assert_false(d.full);
	assert_int_equal(tlbgen_access(sys, 1, 32 * TLBGEN_PAGE_SIZE), 1);	/* outside the range: kept */
	assert_int_equal(tlbgen_ppc_radix_flush_tlb_range(sys, 0, mm, 0, 32 * TLBGEN_PAGE_SIZE, 12, &d),
			 TLBGEN_PPC_FLUSH_GLOBAL);
	assert_true(d.full);
	assert_int_equal(tlbgen_access(sys, 1, 33 * TLBGEN_PAGE_SIZE), 0);	/* PID flushed everywhere */
	assert_int_equal(tlbgen_cost__cpu(sys, 0, &a0), 0);
	assert_int_equal(tlbgen_cost__cpu(sys, 1, &a1), 0);
	assert_int_equal(a0.inv_pages, 31);
	assert_int_equal(a0.full_flushes, 1);
	assert_int_equal(a1.inv_pages + a1.full_flushes, 0);
	assert_int_equal(a1.refills, 1);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);	/* tlbie: no IPIs */
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* powerpc local vs global follows mm_cpumask. */
static void test_ppc_local_global(void **state)
{
	struct tlbgen_system *sys = t_sys("v6.0", 2, 1);
	struct tlbgen_range_flush d;
	struct tlbgen_mm *mm;

	(void)state;
	assert_int_equal(tlbgen_mm__create(sys, 512, &mm), 0);
	assert_int_equal(tlbgen_ppc_radix_flush_type(sys, 0, mm), TLBGEN_PPC_FLUSH_NONE);
	assert_int_equal(tlbgen_ppc_radix_flush_tlb_range(sys, 0, mm, 0, 200 * TLBGEN_PAGE_SIZE, 12, &d),
			 TLBGEN_PPC_FLUSH_NONE);
	assert_int_equal(d.ops, 0);
	assert_int_equal(tlbgen_switch_mm(sys, 0, mm), 0);
	assert_int_equal(tlbgen_ppc_radix_flush_tlb_range(sys, 0, mm, 0, 200 * TLBGEN_PAGE_SIZE, 12, &d),
			 TLBGEN_PPC_FLUSH_LOCAL);
	assert_false(d.full);	/* 200 <= 256 */
	assert_int_equal(d.ops, 200);
	assert_int_equal(tlbgen_switch_mm(sys, 1, mm), 0);
	assert_int_equal(tlbgen_ppc_radix_flush_tlb_range(sys, 0, mm, 0, 200 * TLBGEN_PAGE_SIZE, 12, &d),
			 TLBGEN_PPC_FLUSH_GLOBAL);
	assert_true(d.full);	/* 200 > 33 */
	assert_int_equal(tlbgen_ppc_radix_flush_tlb_range(sys, 0, mm, 0, 513 * TLBGEN_PAGE_SIZE, 12, &d), -EINVAL);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

#define WR (TLBGEN_FAULT_FLAG_WRITE | TLBGEN_FAULT_FLAG_ALLOW_RETRY | TLBGEN_FAULT_FLAG_USER)
#define THR TLBGEN_FAULT_MODEL_THROTTLE

/* One page_fault3 iteration on CPU 0 with VM_FAULT_RETRY on every first attempt. */
static void pf3_pages(struct tlbgen_system *sys, struct tlbgen_mm *mm, unsigned long n)
{
	for (unsigned long p = 0; p < n; p++) {
		assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, p * TLBGEN_PAGE_SIZE, WR | THR),
				 (int)TLBGEN_VM_FAULT_RETRY);
		assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, p * TLBGEN_PAGE_SIZE,
							WR | THR | TLBGEN_FAULT_FLAG_TRIED), 0);
		tlbgen_run_until_idle(sys);
		/* The retry made it dirty and young, flush or no flush. */
		assert_int_equal(tlbgen_pte__flags(mm, p * TLBGEN_PAGE_SIZE),
				 TLBGEN_PTEF_WRITE | TLBGEN_PTEF_DIRTY | TLBGEN_PTEF_YOUNG);
	}
}

static struct tlbgen_system *pf3_setup(const char *hook, const char *skip, unsigned long n,
				       struct tlbgen_mm **mm)
{
	struct tlbgen_system *sys = t_sys("latest", 2, 1);

	assert_int_equal(tlbgen_system__set_choice(sys, "flush_tlb_fix_spurious_fault", hook), 0);
	assert_int_equal(tlbgen_system__set_choice(sys, "spurious_skip_tried", skip), 0);
	assert_int_equal(tlbgen_mm__create(sys, n, mm), 0);
	/* Thread mode: both CPUs run the mm, so a generic flush is cross-CPU. */
	assert_int_equal(tlbgen_switch_mm(sys, 0, *mm), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 1, *mm), 0);
	for (unsigned long p = 0; p < n; p++)
		assert_int_equal(tlbgen_pte_set(sys, 0, *mm, p * TLBGEN_PAGE_SIZE, TLBGEN_PTEF_NONE), 0);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	return sys;
}

/* with the generic hook, after b7333b58f358. */
static void test_behaviour10_generic(void **state)
{
	const unsigned long n = 16;
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;

	(void)state;
	sys = pf3_setup("generic", "on", n, &mm);
	pf3_pages(sys, mm, n);
	assert_int_equal(fstat(sys, TLBGEN_FAULT_STAT_RETURN_RETRY), n);
	assert_int_equal(fstat(sys, TLBGEN_FAULT_STAT_SKIP_TRIED), n);
	assert_int_equal(fstat(sys, TLBGEN_FAULT_STAT_SPURIOUS), 0);	/* 0 on retries */
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);

	/* Non-retried write faults on the unchanged PTEs: 1 spurious flush each, cross-CPU. */
	for (unsigned long p = 0; p < n; p++) {
		assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, p * TLBGEN_PAGE_SIZE, WR), 0);
		tlbgen_run_until_idle(sys);
	}
	assert_int_equal(fstat(sys, TLBGEN_FAULT_STAT_SPURIOUS), n);
	assert_int_equal(fstat(sys, TLBGEN_FAULT_STAT_SPURIOUS_FLUSH), n);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_MULTI), n);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SENT), n);

	/* Read faults never flush. */
	for (unsigned long p = 0; p < n; p++)
		assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, p * TLBGEN_PAGE_SIZE,
							TLBGEN_FAULT_FLAG_ALLOW_RETRY), 0);
	assert_int_equal(fstat(sys, TLBGEN_FAULT_STAT_SPURIOUS), n);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Before b7333b58f358 the retry itself flushes: the thread-mode cost. */
static void test_behaviour10_before_fix(void **state)
{
	const unsigned long n = 16;
	const char *hooks[] = { "generic", "noop", "local" };

	(void)state;
	for (size_t h = 0; h < 3; h++) {
		struct tlbgen_mm *mm;
		struct tlbgen_system *sys = pf3_setup(hooks[h], "off", n, &mm);

		pf3_pages(sys, mm, n);
		assert_int_equal(fstat(sys, TLBGEN_FAULT_STAT_SKIP_TRIED), 0);
		assert_int_equal(fstat(sys, TLBGEN_FAULT_STAT_SPURIOUS), n);
		assert_int_equal(fstat(sys, TLBGEN_FAULT_STAT_SPURIOUS_RETRIED), n);
		assert_int_equal(fstat(sys, TLBGEN_FAULT_STAT_SPURIOUS_FLUSH), h == 1 ? 0 : n);
		/* Only the generic hook crosses CPUs. */
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), h == 0 ? n : 0);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_FLUSH_INITIATED), h == 0 ? n : 0);
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
}

/* The local hook flushes this CPU's entry only; the retry path sets dirty on a clean PTE. */
static void test_local_hook_and_dirty(void **state)
{
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = pf3_setup("local", "on", 4, &mm);

	(void)state;
	assert_int_equal(tlbgen_pte_set(sys, 0, mm, 0, TLBGEN_PTEF_WRITE | TLBGEN_PTEF_DIRTY |
					TLBGEN_PTEF_YOUNG), 0);
	assert_int_equal(tlbgen_access(sys, 0, 0), 0);
	assert_int_equal(tlbgen_access(sys, 1, 0), 0);
	assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, 0, WR), 0);
	assert_int_equal(fstat(sys, TLBGEN_FAULT_STAT_SPURIOUS_FLUSH), 1);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);
	assert_int_equal(tlbgen_access(sys, 0, 0), 0);	/* flushed here */
	assert_int_equal(tlbgen_access(sys, 1, 0), 1);	/* not there */

	/* Writable, clean PTE: a retried write fault changes it (dirty), no flush question. */
	assert_int_equal(tlbgen_pte_set(sys, 0, mm, TLBGEN_PAGE_SIZE, TLBGEN_PTEF_WRITE | TLBGEN_PTEF_YOUNG), 0);
	assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, TLBGEN_PAGE_SIZE, WR | TLBGEN_FAULT_FLAG_TRIED), 0);
	assert_int_equal(tlbgen_pte__flags(mm, TLBGEN_PAGE_SIZE),
			 TLBGEN_PTEF_WRITE | TLBGEN_PTEF_DIRTY | TLBGEN_PTEF_YOUNG);
	assert_int_equal(fstat(sys, TLBGEN_FAULT_STAT_CHANGED), 1);
	/* Read-only PTE, write fault: do_wp_page. */
	assert_int_equal(tlbgen_pte_set(sys, 0, mm, 2 * TLBGEN_PAGE_SIZE, TLBGEN_PTEF_YOUNG), 0);
	assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, 2 * TLBGEN_PAGE_SIZE, WR), (int)TLBGEN_VM_FAULT_WP);
	assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, 2 * TLBGEN_PAGE_SIZE, 1U << 12), -EINVAL);
	assert_int_equal(tlbgen_handle_mm_fault(sys, 0, mm, 4 * TLBGEN_PAGE_SIZE, WR), -EINVAL);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* The cost model on a hand-computed case. */
static void test_cost_hand_computed(void **state)
{
	struct tlbgen_system *sys = t_sys("latest", 1, 1);
	struct tlbgen_cost_model m;
	struct tlbgen_cost_account a;
	struct tlbgen_mm *mm;

	(void)state;
	assert_int_equal(tlbgen_cost_model_default(&m), 0);
	assert_int_equal(m.inv_page_cycles, 260);
	assert_int_equal(m.full_flush_cycles, 96);
	m.inv_page_cycles = 10;
	m.full_flush_cycles = 100;
	m.refill_cycles = 7;
	m.spend = true;
	assert_int_equal(tlbgen_system__set_cost_model(sys, &m), -EINVAL);	/* stepped */
	m.spend = false;
	assert_int_equal(tlbgen_system__set_cost_model(sys, &m), 0);
	assert_int_equal(tlbgen_system__tlb_geometry(sys, NULL, NULL), 64 * 8);
	assert_int_equal(tlbgen_mm__create(sys, 64, &mm), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 0, mm), 0);
	assert_int_equal(tlbgen_cost__reset(sys), 0);

	for (unsigned long p = 0; p < 10; p++)		/* 10 refills: 70 */
		assert_int_equal(tlbgen_access(sys, 0, p * TLBGEN_PAGE_SIZE), 0);
	for (unsigned long p = 0; p < 10; p++)		/* hits: 0 */
		assert_int_equal(tlbgen_access(sys, 0, p * TLBGEN_PAGE_SIZE), 1);
	assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 0, mm, 0, 4 * TLBGEN_PAGE_SIZE, 12, false), 0);
	for (unsigned long p = 0; p < 10; p++)		/* 4 inv (40) + 4 refills (28) */
		tlbgen_access(sys, 0, p * TLBGEN_PAGE_SIZE);
	assert_int_equal(tlbgen_flush_tlb_mm(sys, 0, mm), 0);
	for (unsigned long p = 0; p < 10; p++)		/* 1 full (100) + 10 refills (70) */
		assert_int_equal(tlbgen_access(sys, 0, p * TLBGEN_PAGE_SIZE), 0);

	assert_int_equal(tlbgen_cost__cpu(sys, 0, &a), 0);
	assert_int_equal(a.inv_pages, 4);
	assert_int_equal(a.inv_cycles, 40);
	assert_int_equal(a.full_flushes, 1);
	assert_int_equal(a.full_cycles, 100);
	assert_int_equal(a.refills, 24);
	assert_int_equal(a.refill_cycles, 168);
	assert_int_equal(a.cycles, 308);
	assert_int_equal(tlbgen_system__set_cost_model(sys, NULL), 0);
	assert_int_equal(tlbgen_system__cost_model(sys, &m), 0);
	assert_int_equal(m.refill_cycles, 26);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_behaviour3),
		cmocka_unit_test(test_arch_boundaries),
		cmocka_unit_test(test_arch_units_and_zero),
		cmocka_unit_test(test_negative_rejected),
		cmocka_unit_test(test_ppc_rfc_32_ge),
		cmocka_unit_test(test_ppc_local_global),
		cmocka_unit_test(test_behaviour10_generic),
		cmocka_unit_test(test_behaviour10_before_fix),
		cmocka_unit_test(test_local_hook_and_dirty),
		cmocka_unit_test(test_cost_hand_computed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
