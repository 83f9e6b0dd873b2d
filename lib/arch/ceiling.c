// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/arch/ceiling.c - range-flush ceilings per architecture (x86, powerpc
 * radix global/local, riscv, arm64): each arch's rule lives with its arch;
 * this file maps TLBGEN_ARCH_* to the rule, the profile's ceiling and the
 * comparison, and holds the public API.
 */
#include <errno.h>

#include "../core/check.h"
#include "arch.h"
#include "arm64/tlbflush.h"
#include "powerpc/radix.h"
#include "riscv/tlbflush.h"
#include "x86/mm/tlb.h"
#include "x86/mm/tlb.h"

struct ceiling_arch {
	tlbgen_range_rule_fn rule;
	size_t field;			/* the ceiling in struct tlbgen_profile */
	enum tlbgen_ceiling_cmp cmp;	/* fixed comparison... */
	bool cmp_from_profile;		/* ...or the profile's ppc_ceiling_cmp */
};

#define F(f) offsetof(struct tlbgen_profile, f)
static const struct ceiling_arch ceiling_archs[TLBGEN_ARCH_NR] = {
	[TLBGEN_ARCH_X86] = { tlbgen__x86_range_rule, F(tlb_single_page_flush_ceiling),
			      TLBGEN_CEILING_GT, false },
	[TLBGEN_ARCH_PPC_RADIX_GLOBAL] = { tlbgen__ppc_radix_range_rule,
					   F(ppc_tlb_single_page_flush_ceiling),
					   TLBGEN_CEILING_GT, true },
	[TLBGEN_ARCH_PPC_RADIX_LOCAL] = { tlbgen__ppc_radix_range_rule,
					  F(ppc_tlb_local_single_page_flush_ceiling),
					  TLBGEN_CEILING_GT, false },
	[TLBGEN_ARCH_RISCV] = { tlbgen__riscv_range_rule, F(riscv_tlb_flush_all_threshold),
				TLBGEN_CEILING_GT, false },
	[TLBGEN_ARCH_ARM64] = { tlbgen__arm64_range_rule, F(arm64_max_dvm_ops),
				TLBGEN_CEILING_GE, false },
};

static long *ceiling_field(const struct tlbgen_profile *p, enum tlbgen_ceiling_arch arch)
{
	return (long *)((char *)p + ceiling_archs[arch].field);
}

static enum tlbgen_ceiling_cmp arch_cmp(const struct tlbgen_profile *p,
					enum tlbgen_ceiling_arch arch)
{
	return ceiling_archs[arch].cmp_from_profile ? p->ppc_ceiling_cmp : ceiling_archs[arch].cmp;
}

static int args_valid(enum tlbgen_ceiling_arch arch, long ceiling, enum tlbgen_ceiling_cmp cmp, unsigned long start,
		      unsigned long end, unsigned int shift, const struct tlbgen_range_flush *out)
{
	if (!out || (unsigned int)arch >= TLBGEN_ARCH_NR || ceiling < 0 ||
	    (cmp != TLBGEN_CEILING_GT && cmp != TLBGEN_CEILING_GE) ||
	    shift < TLBGEN_PAGE_SHIFT || shift > 30)
		return -EINVAL;
	if (end != TLBGEN_TLB_FLUSH_ALL && start > end)
		return -EINVAL;
	return 0;
}

TLBGEN_API int tlbgen_range_flush_rule(enum tlbgen_ceiling_arch arch, long ceiling,
				       enum tlbgen_ceiling_cmp cmp, unsigned long start,
				       unsigned long end, unsigned int stride_shift,
				       struct tlbgen_range_flush *out)
{
	int err = args_valid(arch, ceiling, cmp, start, end, stride_shift, out);

	if (err)
		return err;
	ceiling_archs[arch].rule((unsigned long)ceiling, cmp, start, end, stride_shift, out);
	return 0;
}

TLBGEN_API int tlbgen_range_flush_decide(const struct tlbgen_system *sys,
					 enum tlbgen_ceiling_arch arch, unsigned long start,
					 unsigned long end, unsigned int stride_shift,
					 struct tlbgen_range_flush *out)
{
	const struct tlbgen_profile *p;
	int err;

	if (!tlbgen__sys_valid(sys) || (unsigned int)arch >= TLBGEN_ARCH_NR)
		return -EINVAL;
	p = &sys->profile;
	err = args_valid(arch, *ceiling_field(p, arch), arch_cmp(p, arch), start, end,
			 stride_shift, out);
	if (err)
		return err;
	ceiling_archs[arch].rule((unsigned long)*ceiling_field(p, arch), arch_cmp(p, arch), start,
				 end, stride_shift, out);
	return 0;
}

TLBGEN_API int tlbgen_ceiling__set(struct tlbgen_system *sys, enum tlbgen_ceiling_arch arch,
				   long value)
{
	int err;

	if (!tlbgen__sys_valid(sys) || (unsigned int)arch >= TLBGEN_ARCH_NR || value < 0)
		return -EINVAL;	/* the debugfs write handler: kstrtoint, then < 0 -> -EINVAL */
	err = tlbgen__check_quiescent(sys);
	if (err)
		return err;
	*ceiling_field(&sys->profile, arch) = value;
	return 0;
}

TLBGEN_API long tlbgen_ceiling__get(const struct tlbgen_system *sys, enum tlbgen_ceiling_arch arch)
{
	if (!tlbgen__sys_valid(sys) || (unsigned int)arch >= TLBGEN_ARCH_NR)
		return -EINVAL;
	return *ceiling_field(&sys->profile, arch);
}

TLBGEN_API int tlbgen_ceiling__set_cmp(struct tlbgen_system *sys, enum tlbgen_ceiling_arch arch,
				       enum tlbgen_ceiling_cmp cmp)
{
	int err;

	if (!tlbgen__sys_valid(sys) || (unsigned int)arch >= TLBGEN_ARCH_NR ||
	    (cmp != TLBGEN_CEILING_GT && cmp != TLBGEN_CEILING_GE))
		return -EINVAL;
	if (!ceiling_archs[arch].cmp_from_profile)
		return -EOPNOTSUPP;
	err = tlbgen__check_quiescent(sys);
	if (err)
		return err;
	sys->profile.ppc_ceiling_cmp = cmp;
	return 0;
}

TLBGEN_API int tlbgen_ceiling__get_cmp(const struct tlbgen_system *sys,
				       enum tlbgen_ceiling_arch arch)
{
	if (!tlbgen__sys_valid(sys) || (unsigned int)arch >= TLBGEN_ARCH_NR)
		return -EINVAL;
	return (int)arch_cmp(&sys->profile, arch);
}

/* The x86 debugfs file's name for tlbgen_ceiling__set/get(sys, TLBGEN_ARCH_X86). */
TLBGEN_API int tlbgen_set_tlb_single_page_flush_ceiling(struct tlbgen_system *sys, long pages)
{
	return tlbgen_ceiling__set(sys, TLBGEN_ARCH_X86, pages);
}

TLBGEN_API long tlbgen_get_tlb_single_page_flush_ceiling(const struct tlbgen_system *sys)
{
	return tlbgen_ceiling__get(sys, TLBGEN_ARCH_X86);
}
