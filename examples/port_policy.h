/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/port_policy.h - seed 000 (aa44284960d5, "x86/mm/tlb: avoid
 * reading mm_tlb_gen when possible") with its follow-up 8f1d56f64f8d,
 * re-implemented from the patch description as a user flush_decide.
 * Used by port_patch.c (A/B in one run) and bench_plugin.c (the same policy
 * for `tlbgen-bench --plugin`).
 */
#ifndef TLBGEN_EXAMPLE_PORT_POLICY_H
#define TLBGEN_EXAMPLE_PORT_POLICY_H

#include <tlbgen/tlbgen.h>

struct port_priv {
	bool guard;		/* 8f1d56f64f8d applied */
	_Atomic uint64_t vm_warns;	/* the VM_WARN_ON()s 8f1d56f64f8d adds */
};

/*
 * flush_tlb_func()'s decision after the patch. The library has already done
 * the parts that precede it in the kernel (wrong mm, init_mm, lazy) and will
 * do the flush the verdict asks for, then set local_tlb_gen = *new_local.
 */
static enum tlbgen_flush_verdict port_flush_decide(const struct tlbgen_flush_req *req,
						   struct tlbgen_gen_reader *r,
						   uint64_t *new_local, void *priv)
{
	struct port_priv *pp = priv;
	uint64_t mm_tlb_gen;

	/*
	 * aa44284960: the TLB is already up to date with respect to the
	 * requested generation; looking at mm_tlb_gen would only pull its
	 * contended cacheline. 8f1d56f64f8d: generation 0 means "no
	 * generation" (batched unmap, kernel range), never "already done".
	 */
	if ((!pp->guard || req->new_tlb_gen != TLBGEN_TLB_GENERATION_INVALID) &&
	    req->new_tlb_gen <= req->local_tlb_gen)
		return TLBGEN_VERDICT_SKIP;

	/* Defer the mm_tlb_gen read as long as possible. */
	mm_tlb_gen = tlbgen_read_mm_tlb_gen(r);
	if (req->local_tlb_gen == mm_tlb_gen)
		return TLBGEN_VERDICT_UP_TO_DATE;

	/* Both flushes below bring this CPU up to the mm's generation. */
	*new_local = mm_tlb_gen;
	/*
	 * Partial only if this request is the one step from local (every
	 * earlier flush is done) and no later one is in flight.
	 */
	if (req->end != TLBGEN_TLB_FLUSH_ALL && req->new_tlb_gen == req->local_tlb_gen + 1 &&
	    req->new_tlb_gen == mm_tlb_gen) {
		/* 8f1d56f64f8d: a partial flush needs a generation and an mm. */
		if (req->new_tlb_gen == TLBGEN_TLB_GENERATION_INVALID || !req->has_mm)
			pp->vm_warns++;
		return TLBGEN_VERDICT_PARTIAL;
	}
	return TLBGEN_VERDICT_FULL;
}

#endif
