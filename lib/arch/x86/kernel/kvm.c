// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/arch/x86/kernel/kvm.c - the host's side of KVM's paravirtualised TLB
 * flush, for emulated vCPUs: scheduling a vCPU out marks it preempted in
 * its steal_time (kvm_steal_time_set_preempted()); running it again clears
 * the word with xchg() and, when a flusher set KVM_VCPU_FLUSH_TLB meanwhile,
 * flushes the vCPU's whole TLB before it runs (record_steal_time() ->
 * kvm_vcpu_flush_tlb_guest()). The guest's side, kvm_flush_tlb_multi(), is
 * in mm/flush.c under the choice pv_flush_tlb_multi=kvm.
 *
 * Stepped mode only: a preempted vCPU runs nothing and takes no interrupt,
 * which the stepped transport can hold back; its pending IPIs are taken
 * after it resumes.
 */
#include <errno.h>

#include "../../../core/access.h"
#include "../../../core/check.h"
#include "../../../observers/simtlb.h"

static int vcpu_check(const struct tlbgen_system *sys, unsigned int cpu)
{
	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus)
		return -EINVAL;
	return sys->mode == TLBGEN_MODE_STEPPED ? 0 : -EOPNOTSUPP;
}

TLBGEN_API int tlbgen_vcpu__preempt(struct tlbgen_system *sys, unsigned int cpu)
{
	int err = vcpu_check(sys, cpu);

	if (err)
		return err;
	if (tlbgen__steal_time_read(sys, cpu) & TLBGEN_KVM_VCPU_PREEMPTED)
		return -EALREADY;
	err = tlbgen__check_op(sys, cpu);	/* not while it waits for acks */
	if (err)
		return err;
	tlbgen__steal_time_xchg(sys, cpu, TLBGEN_KVM_VCPU_PREEMPTED);
	sys->nr_preempted++;
	return 0;
}

TLBGEN_API int tlbgen_vcpu__resume(struct tlbgen_system *sys, unsigned int cpu)
{
	int err = vcpu_check(sys, cpu);
	uint8_t st;

	if (err)
		return err;
	if (!(tlbgen__steal_time_read(sys, cpu) & TLBGEN_KVM_VCPU_PREEMPTED))
		return -EALREADY;
	st = tlbgen__steal_time_xchg(sys, cpu, 0);
	sys->nr_preempted--;
	if (!(st & TLBGEN_KVM_VCPU_FLUSH_TLB))
		return 0;
	/* kvm_vcpu_flush_tlb_guest(): every guest translation of this vCPU. */
	for (uint16_t asid = 0; asid < TLBGEN_TLB_NR_DYN_ASIDS; asid++)
		tlbgen__tlb_flush_asid(sys, cpu, asid);
	tlbgen__tlb_flush_kernel(sys, cpu, 0, TLBGEN_TLB_FLUSH_ALL);
	tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_PV_FLUSH_AT_RESUME);
	return 1;
}

TLBGEN_API int tlbgen_vcpu__is_preempted(const struct tlbgen_system *sys, unsigned int cpu)
{
	int err = vcpu_check(sys, cpu);

	if (err)
		return err;
	return !!(tlbgen__steal_time_read((struct tlbgen_system *)sys, cpu) &
		  TLBGEN_KVM_VCPU_PREEMPTED);
}
