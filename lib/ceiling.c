// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/ceiling.c - range-flush ceilings per architecture (x86, powerpc radix
 * global/local, riscv, arm64) as data plus one rule, and a powerpc radix
 * range flush on the simulated TLBs. The x86 test of flush_tlb_mm_range()
 * and get_flush_tlb_info() (flush.c) is the TLBGEN_ARCH_X86 case of the
 * same rule, so there is one copy of it.
 */
#include "internal.h"

#define TLBGEN_PMD_SIZE (1UL << 21)	/* radix PMD_SIZE: the flush_pwc threshold */

static bool cmp_over(unsigned long units, unsigned long ceiling, int cmp)
{
	return cmp == TLBGEN_CEILING_GE ? units >= ceiling : units > ceiling;
}

static unsigned long div_round_up(unsigned long n, unsigned long d)
{
	return n / d + (n % d != 0);
}

/* The rule, arguments already checked. */
static void rule(enum tlbgen_ceiling_arch arch, unsigned long ceiling, int cmp,
		 unsigned long start, unsigned long end, unsigned int shift,
		 struct tlbgen_range_flush *out)
{
	unsigned long stride = 1UL << shift, size;

	*out = (struct tlbgen_range_flush){ 0 };
	if (end == TLBGEN_TLB_FLUSH_ALL) {
		/* fullmm / flush_tlb_mm / FLUSH_TLB_MAX_SIZE: always the whole context. */
		out->full = true;
		out->units = ~0UL;
		out->ops = 1;
		return;
	}
	size = end - start;
	switch (arch) {
	case TLBGEN_ARCH_RISCV:
		/* local_flush_tlb_range_asid(): one page if size <= stride,
		 * whatever the threshold; else DIV_ROUND_UP(size, stride). */
		out->units = div_round_up(size, stride);
		if (size <= stride) {
			out->ops = 1;
			return;
		}
		out->full = cmp_over(out->units, ceiling, cmp);
		break;
	case TLBGEN_ARCH_ARM64:
		/* __flush_tlb_range_nosync(): start/end rounded to the stride,
		 * then (end - start) >= MAX_DVM_OPS * stride -> flush_tlb_mm(). */
		start &= ~(stride - 1);
		end = (end + stride - 1) & ~(stride - 1);
		out->units = (end - start) >> shift;
		out->full = cmp_over(out->units, ceiling, cmp);
		break;
	case TLBGEN_ARCH_PPC_RADIX_GLOBAL:
	case TLBGEN_ARCH_PPC_RADIX_LOCAL:
		/* nr_pages = (end - start) >> page_shift; flush_pid = nr_pages > ceiling. */
		out->units = size >> shift;
		out->full = cmp_over(out->units, ceiling, cmp);
		out->pwc = !out->full && size >= TLBGEN_PMD_SIZE;
		break;
	case TLBGEN_ARCH_X86:
	default:
		/* ((end - start) >> stride_shift) > tlb_single_page_flush_ceiling */
		out->units = size >> shift;
		out->full = cmp_over(out->units, ceiling, cmp);
		break;
	}
	/* The ranged loops step addr += stride while addr < end. */
	out->ops = out->full ? 1 : div_round_up(end - start, stride);
}

static int args_valid(enum tlbgen_ceiling_arch arch, long ceiling, int cmp, unsigned long start,
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
	int err = args_valid(arch, ceiling, (int)cmp, start, end, stride_shift, out);

	if (err)
		return err;
	rule(arch, (unsigned long)ceiling, (int)cmp, start, end, stride_shift, out);
	return 0;
}

static long *ceiling_field(struct tlbgen_policy *p, enum tlbgen_ceiling_arch arch)
{
	switch (arch) {
	case TLBGEN_ARCH_X86:			return &p->tlb_single_page_flush_ceiling;
	case TLBGEN_ARCH_PPC_RADIX_GLOBAL:	return &p->ppc_tlb_single_page_flush_ceiling;
	case TLBGEN_ARCH_PPC_RADIX_LOCAL:	return &p->ppc_tlb_local_single_page_flush_ceiling;
	case TLBGEN_ARCH_RISCV:			return &p->riscv_tlb_flush_all_threshold;
	case TLBGEN_ARCH_ARM64:			return &p->arm64_max_dvm_ops;
	default:				return NULL;
	}
}

static int arch_cmp(const struct tlbgen_policy *p, enum tlbgen_ceiling_arch arch)
{
	if (arch == TLBGEN_ARCH_ARM64)
		return TLBGEN_CEILING_GE;
	if (arch == TLBGEN_ARCH_PPC_RADIX_GLOBAL)
		return p->ppc_ceiling_cmp;
	return TLBGEN_CEILING_GT;
}

TLBGEN_API int tlbgen_range_flush_decide(const struct tlbgen_system *sys,
					 enum tlbgen_ceiling_arch arch, unsigned long start,
					 unsigned long end, unsigned int stride_shift,
					 struct tlbgen_range_flush *out)
{
	struct tlbgen_policy *p;
	int err;

	if (!tlbgen_sys_valid(sys) || (unsigned int)arch >= TLBGEN_ARCH_NR)
		return -EINVAL;
	p = (struct tlbgen_policy *)&sys->policy;
	err = args_valid(arch, *ceiling_field(p, arch), arch_cmp(p, arch), start, end,
			 stride_shift, out);
	if (err)
		return err;
	rule(arch, (unsigned long)*ceiling_field(p, arch), arch_cmp(p, arch), start, end,
	     stride_shift, out);
	return 0;
}

/* flush.c's test: the x86 case of the rule, with the profile's ceiling. */
bool tlbgen__x86_over_ceiling(const struct tlbgen_system *sys, unsigned long start,
			      unsigned long end, unsigned int stride_shift)
{
	struct tlbgen_range_flush d;

	rule(TLBGEN_ARCH_X86, (unsigned long)sys->policy.tlb_single_page_flush_ceiling,
	     TLBGEN_CEILING_GT, start, end, stride_shift, &d);
	return d.full;
}

static int policy_mutable(const struct tlbgen_system *sys)
{
	if (atomic_load(&((struct tlbgen_system *)sys)->waiting_cpus) ||
	    atomic_load(&((struct tlbgen_system *)sys)->attached_cpus))
		return -EBUSY;
	return 0;
}

TLBGEN_API int tlbgen_ceiling__set(struct tlbgen_system *sys, enum tlbgen_ceiling_arch arch,
				   long value)
{
	int err;

	if (!tlbgen_sys_valid(sys) || (unsigned int)arch >= TLBGEN_ARCH_NR || value < 0)
		return -EINVAL;	/* the debugfs write handler: kstrtoint, then < 0 -> -EINVAL */
	if (arch == TLBGEN_ARCH_X86)
		return tlbgen_set_tlb_single_page_flush_ceiling(sys, value);
	err = policy_mutable(sys);
	if (err)
		return err;
	*ceiling_field(&sys->policy, arch) = value;
	return 0;
}

TLBGEN_API long tlbgen_ceiling__get(const struct tlbgen_system *sys, enum tlbgen_ceiling_arch arch)
{
	if (!tlbgen_sys_valid(sys) || (unsigned int)arch >= TLBGEN_ARCH_NR)
		return -EINVAL;
	return *ceiling_field((struct tlbgen_policy *)&sys->policy, arch);
}

TLBGEN_API int tlbgen_ceiling__set_cmp(struct tlbgen_system *sys, enum tlbgen_ceiling_arch arch,
				       enum tlbgen_ceiling_cmp cmp)
{
	int err;

	if (!tlbgen_sys_valid(sys) || (unsigned int)arch >= TLBGEN_ARCH_NR ||
	    (cmp != TLBGEN_CEILING_GT && cmp != TLBGEN_CEILING_GE))
		return -EINVAL;
	if (arch != TLBGEN_ARCH_PPC_RADIX_GLOBAL)
		return -EOPNOTSUPP;
	err = policy_mutable(sys);
	if (err)
		return err;
	sys->policy.ppc_ceiling_cmp = (int)cmp;
	return 0;
}

TLBGEN_API int tlbgen_ceiling__get_cmp(const struct tlbgen_system *sys,
				       enum tlbgen_ceiling_arch arch)
{
	if (!tlbgen_sys_valid(sys) || (unsigned int)arch >= TLBGEN_ARCH_NR)
		return -EINVAL;
	return arch_cmp(&sys->policy, arch);
}

/* ---- powerpc radix ------------------------------------------------------ */

TLBGEN_API int tlbgen_ppc_radix_flush_type(const struct tlbgen_system *sys, unsigned int cpu,
					   const struct tlbgen_mm *mm)
{
	if (!tlbgen_sys_valid(sys) || cpu >= sys->nr_cpus || !tlbgen_mm_valid(sys, mm))
		return -EINVAL;
	if (cpumask_any_but(mm->cpu_bitmap, sys->nr_cpus, cpu) < sys->nr_cpus)
		return TLBGEN_PPC_FLUSH_GLOBAL;	/* other CPUs (or coprocessors): tlbie */
	if (cpumask_test_cpu(cpu, mm->cpu_bitmap))
		return TLBGEN_PPC_FLUSH_LOCAL;
	return TLBGEN_PPC_FLUSH_NONE;
}

/* Invalidate [first, last] (or everything) of mm in every ASID slot `c` holds it in. */
static void ppc_invalidate_cpu(struct tlbgen_system *sys, unsigned int c, struct tlbgen_mm *mm,
			       unsigned long first, unsigned long last, bool all)
{
	const struct tlbgen_tlb_state *ts = &tlbgen_cpu(sys, c)->tlbstate;

	for (uint16_t asid = 0; asid < TLBGEN_TLB_NR_DYN_ASIDS; asid++)
		if (ts->ctxs[asid].ctx_id == mm->context.ctx_id)
			tlbgen__tlb_invalidate_nocost(sys, c, asid, first, last, all);
}

TLBGEN_API int tlbgen_ppc_radix_flush_tlb_range(struct tlbgen_system *sys, unsigned int cpu,
						struct tlbgen_mm *mm, unsigned long start,
						unsigned long end, unsigned int page_shift,
						struct tlbgen_range_flush *out)
{
	struct tlbgen_flush_tlb_info info;
	struct tlbgen_range_flush d = { 0 };
	unsigned long limit;
	uint64_t seq = 0;
	int type, err = tlbgen__check_op(sys, cpu);

	if (err)
		return err;
	if (sys->mode != TLBGEN_MODE_STEPPED)
		return -EOPNOTSUPP;
	if (!tlbgen_mm_valid(sys, mm) || mm == sys->init_mm || page_shift < TLBGEN_PAGE_SHIFT ||
	    page_shift > 30)
		return -EINVAL;
	limit = mm->priv.nr_pages << TLBGEN_PAGE_SHIFT;
	if (end == TLBGEN_TLB_FLUSH_ALL ? start != 0 : (start > end || end > limit))
		return -EINVAL;

	type = tlbgen_ppc_radix_flush_type(sys, cpu, mm);
	if (type == TLBGEN_PPC_FLUSH_NONE) {
		if (out)
			*out = d;
		return type;
	}
	tlbgen_range_flush_decide(sys, type == TLBGEN_PPC_FLUSH_LOCAL ?
				  TLBGEN_ARCH_PPC_RADIX_LOCAL : TLBGEN_ARCH_PPC_RADIX_GLOBAL,
				  start, end, page_shift, &d);
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_INITIATED);
	memset(&info, 0, sizeof(info));
	info.mm = mm;
	if (tlbgen_oracle_on(sys)) {
		seq = atomic_load_explicit(&mm->oracle.seq, memory_order_seq_cst);
		info.flush_id = tlbgen__oracle_new_flush(sys, cpu, TLBGEN_TLB_GENERATION_INVALID,
							 start, end, end == TLBGEN_TLB_FLUSH_ALL,
							 seq);
		info.oracle_seq = seq;
	}
	/* tlbiel reaches this CPU only; tlbie every CPU, with no IPI. */
	for (unsigned int c = 0; c < sys->nr_cpus; c++) {
		if (type == TLBGEN_PPC_FLUSH_LOCAL && c != cpu)
			continue;
		if (d.full)
			ppc_invalidate_cpu(sys, c, mm, 0, 0, true);
		else if (end > start)
			ppc_invalidate_cpu(sys, c, mm, start >> TLBGEN_PAGE_SHIFT,
					   (end - 1) >> TLBGEN_PAGE_SHIFT, false);
	}
	/* The issuing CPU stalls for the tlbie/tlbiel sequence. */
	if (d.full) {
		tlbgen__cost_charge(sys, cpu, TLBGEN_COST_FULL_FLUSHES, 1);
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FULL_FLUSH);
	} else {
		tlbgen__cost_charge(sys, cpu, TLBGEN_COST_INV_PAGES, d.ops);
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_PARTIAL_FLUSH);
		tlbgen__count_n(sys, cpu, mm, TLBGEN_STAT_PAGES_INVALIDATED, d.ops);
	}
	tlbgen__oracle_flush_end(sys, &info);
	if (out)
		*out = d;
	return type;
}
