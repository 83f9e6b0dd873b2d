// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/core/test_pv_flush.c - flush_tlb_multi in a KVM guest
 * (pv_flush_tlb_multi=kvm): a preempted vCPU is marked KVM_VCPU_FLUSH_TLB
 * instead of being sent an IPI, and the host flushes its TLB when it runs
 * it again; against native_flush_tlb_multi(), which IPIs it and waits.
 */
#include "tlbgen-test.h"

/* 4 vCPUs run mm and hold page 0; vCPU 2 is preempted; vCPU 0 changes the PTE and flushes. */
static struct tlbgen_system *preempted_flush(const char *pv, struct tlbgen_mm **mm)
{
	char ch[48];
	struct tlbgen_system *sys;

	snprintf(ch, sizeof(ch), "pv_flush_tlb_multi=%s", pv);
	sys = t_sys_mode(4, TLBGEN_MODE_STEPPED, "latest", ch);
	assert_int_equal(tlbgen_mm__create(sys, 8, mm), 0);
	for (unsigned int c = 0; c < 4; c++) {
		assert_int_equal(tlbgen_switch_mm(sys, c, *mm), 0);
		assert_int_equal(tlbgen_access(sys, c, 0), 0);
	}
	assert_int_equal(tlbgen_vcpu__preempt(sys, 2), 0);
	assert_int_equal(tlbgen_vcpu__is_preempted(sys, 2), 1);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_pte_change(sys, 0, *mm, 0), 0);
	assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 0, *mm, 0, PG(1), TLBGEN_PAGE_SHIFT,
						   false), 0);
	tlbgen_run_until_idle(sys);
	return sys;
}

static void test_kvm_defers_to_resume(void **state)
{
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = preempted_flush("kvm", &mm);

	(void)state;
	/* No IPI to vCPU 2, and nobody waits for it. */
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 2);
	assert_int_equal(t_cpu_stat(sys, 2, TLBGEN_STAT_IPI_RECEIVED), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_PV_FLUSH_DEFERRED), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
	assert_int_equal(tlbgen_cpu__ipi_pending(sys, 2), 0);
	/* A preempted vCPU runs nothing. */
	assert_int_equal(tlbgen_access(sys, 2, 0), -EBUSY);
	assert_int_equal(tlbgen_vcpu__preempt(sys, 2), -EALREADY);
	/* The host flushes it before it runs: the old translation is gone. */
	assert_int_equal(tlbgen_vcpu__resume(sys, 2), 1);
	assert_int_equal(t_cpu_stat(sys, 2, TLBGEN_STAT_PV_FLUSH_AT_RESUME), 1);
	assert_int_equal(tlbgen_access(sys, 2, 0), 0);
	assert_int_equal(tlbgen_access(sys, 1, 0), 0);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	/* Not marked again: the next resume does not flush. */
	assert_int_equal(tlbgen_vcpu__preempt(sys, 2), 0);
	assert_int_equal(tlbgen_vcpu__resume(sys, 2), 0);
	assert_int_equal(tlbgen_vcpu__resume(sys, 2), -EALREADY);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_native_waits_for_preempted(void **state)
{
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = preempted_flush("native", &mm);

	(void)state;
	/* The IPI is sent; the preempted vCPU takes it only once it runs. */
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 3);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_PV_FLUSH_DEFERRED), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 1);
	assert_int_equal(tlbgen_cpu__ipi_pending(sys, 2), 1);
	assert_int_equal(tlbgen_deliver(sys, 2), 0);
	assert_int_equal(tlbgen_vcpu__resume(sys, 2), 0);
	tlbgen_run_until_idle(sys);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
	assert_int_equal(t_cpu_stat(sys, 2, TLBGEN_STAT_IPI_RECEIVED), 1);
	assert_int_equal(t_cpu_stat(sys, 2, TLBGEN_STAT_PV_FLUSH_AT_RESUME), 0);
	assert_int_equal(tlbgen_access(sys, 2, 0), 0);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_vcpu_misuse(void **state)
{
	struct tlbgen_system *sys = t_sys_mode(2, TLBGEN_MODE_THREADED, "latest", NULL);

	(void)state;
	assert_int_equal(tlbgen_vcpu__preempt(sys, 0), -EOPNOTSUPP);
	assert_int_equal(tlbgen_vcpu__resume(sys, 0), -EOPNOTSUPP);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	sys = t_sys_mode(2, TLBGEN_MODE_STEPPED, "latest", NULL);
	assert_int_equal(tlbgen_vcpu__preempt(NULL, 0), -EINVAL);
	assert_int_equal(tlbgen_vcpu__preempt(sys, 2), -EINVAL);
	assert_int_equal(tlbgen_vcpu__resume(sys, 1), -EALREADY);
	assert_int_equal(tlbgen_vcpu__is_preempted(sys, 1), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kvm_defers_to_resume),
		cmocka_unit_test(test_native_waits_for_preempted),
		cmocka_unit_test(test_vcpu_misuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
