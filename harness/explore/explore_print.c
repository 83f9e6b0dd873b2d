// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/explore/explore_print.c - the stepped explorer's operations in kernel
 * terms, and a run replayed as a trace (see explore_engine.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "explore_internal.h"

/* ---- printing ----------------------------------------------- */

void xpl__describe(char *buf, size_t len, const struct xcfg *cfg, const struct xop *o)
{
	unsigned long start, end;
	unsigned int shift, cpu = o->cpu % cfg->nr_cpus, mi = 1 + o->mm % cfg->nr_mms;

	xpl__op_range(o, &start, &end, &shift);
	switch (o->kind) {
	case XOP_SWITCH_MM: {
		unsigned int t = o->mm % (cfg->nr_mms + 1);

		if (t)
			snprintf(buf, len, "switch_mm(cpu %u, mm%u)", cpu, t);
		else
			snprintf(buf, len, "switch_mm(cpu %u, init_mm)", cpu);
		break;
	}
	case XOP_FLUSH_RANGE:
		if (end == TLBGEN_TLB_FLUSH_ALL)
			snprintf(buf, len, "flush_tlb_mm_range(cpu %u, mm%u, 0, FLUSH_ALL, %u, %s)",
				 cpu, mi, shift, o->flags & XOP_F_FREED ? "freed" : "-");
		else
			snprintf(buf, len, "flush_tlb_mm_range(cpu %u, mm%u, %#lx, %#lx, %u, %s)",
				 cpu, mi, start, end, shift, o->flags & XOP_F_FREED ? "freed" : "-");
		break;
	case XOP_FLUSH_MM:
		snprintf(buf, len, "flush_tlb_mm(cpu %u, mm%u)", cpu, mi);
		break;
	case XOP_KERNEL_FLUSH:
		snprintf(buf, len, "flush_tlb_kernel_range(cpu %u, %#lx, %#lx)", cpu, start, end);
		break;
	case XOP_BATCH_ADD:
		snprintf(buf, len, "arch_tlbbatch_add_pending(cpu %u, batch%u, mm%u)", cpu, cpu, mi);
		break;
	case XOP_BATCH_FLUSH:
		snprintf(buf, len, "arch_tlbbatch_flush(cpu %u, batch%u)", cpu, cpu);
		break;
	case XOP_ACCESS:
		snprintf(buf, len, "access(cpu %u, %#lx)", cpu,
			 (unsigned long)(o->a % XPL_NR_PAGES) << TLBGEN_PAGE_SHIFT);
		break;
	case XOP_PTE_CHANGE:
		snprintf(buf, len, "pte_change(cpu %u, mm%u, %#lx)", cpu, mi,
			 (unsigned long)(o->a % XPL_NR_PAGES) << TLBGEN_PAGE_SHIFT);
		break;
	case XOP_DELIVER_FROM:
		snprintf(buf, len, "deliver_from(cpu %u, src %u)", cpu, o->b % cfg->nr_cpus);
		break;
	case XOP_STEP:
		snprintf(buf, len, "step()");
		break;
	case XOP_CLOCK:
		snprintf(buf, len, "clock_advance(%u)", o->a % 512);
		break;
	case XOP_UNMAP_ONE:
		snprintf(buf, len, "try_to_unmap_one(cpu %u, ubc%u, mm%u, %#lx, %s, %s)", cpu, cpu, mi,
			 (unsigned long)(o->a % XPL_NR_PAGES) << TLBGEN_PAGE_SHIFT,
			 o->flags & XOP_F_BATCH ? "TTU_BATCH_FLUSH" : "-",
			 o->flags & XOP_F_DIRTY ? "dirty" : "clean");
		break;
	case XOP_UNMAP_FLUSH:
		snprintf(buf, len, "%s(cpu %u, ubc%u)", o->flags & XOP_F_DIRTY ?
			 "try_to_unmap_flush_dirty" : "try_to_unmap_flush", cpu, cpu);
		break;
	case XOP_BATCHED_PENDING:
		snprintf(buf, len, "flush_tlb_batched_pending(cpu %u, mm%u)", cpu, mi);
		break;
	default:
		snprintf(buf, len, "%s(cpu %u)", xop_name(o->kind), cpu);
		break;
	}
}

void xpl_print_trace(FILE *out, const struct xcfg *cfg, const struct xop *ops, size_t n)
{
	struct xstats st = { 0 };
	struct xfail f;
	struct xctx x;
	char buf[160];

	fprintf(out, "  profile %s%s%s, %u cpus, %u mms, tlb sets x ways %ux%u (0: default), sched seed %#" PRIx64 "\n",
		cfg->profile, cfg->choices ? " + " : "", cfg->choices ? cfg->choices : "",
		cfg->nr_cpus, cfg->nr_mms, cfg->tlb_sets, cfg->tlb_ways, cfg->sys_seed);
	if (xpl__setup(&x, cfg, &f, &st))
		return;
	for (size_t i = 0; i < n && f.kind == XF_NONE; i++) {
		long ret;

		x.cur = i;
		xpl__describe(buf, sizeof(buf), cfg, &ops[i]);
		ret = xpl__exec_op(&x, &ops[i]);
		xpl__check_invariants(&x);
		fprintf(out, "  %3zu  %-64s = %ld\n", i, buf, ret);
	}
	if (f.kind == XF_NONE) {
		x.cur = n;
		xpl__final_audit(&x);
		fprintf(out, "  end  deliver everything, audit every TLB\n");
	}
	if (f.kind != XF_NONE)
		fprintf(out, "  => %s after op %zu: %s\n", xpl_kind_name(f.kind), f.op, f.msg);
	xpl__teardown(&x);
}
