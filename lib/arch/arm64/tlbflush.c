// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/arch/arm64/tlbflush.c - arm64's TLB maintenance as the batched unmap
 * sees it (arch/arm64/include/asm/tlbflush.h): a broadcast TLBI per page,
 * completed by a DSB; no IPIs.
 *
 * add: a TLBI per page, no DSB; flush: one DSB that completes only the
 * TLBIs this batch (its task) issued. A TLBI is "posted, not complete"
 * until the issuer's DSB: the model takes the latest legal completion, so
 * remote simulated TLBs keep the entry until that DSB, which then removes
 * it from every CPU. The oracle judges uses after the DSB returned; a use
 * between the TLBI and the DSB is legal. Because the DSB edits other CPUs'
 * simulated TLBs, arm64 needs stepped mode or a system without the oracle.
 */
#include <errno.h>
#include <stdlib.h>

#include "../../core/access.h"
#include "../../observers/cost.h"
#include "../../observers/oracle.h"
#include "../../observers/simtlb.h"
#include "tlbflush.h"

static int arm64_supported(const struct tlbgen_system *sys)
{
	return sys->mode == TLBGEN_MODE_THREADED && tlbgen__oracle_on(sys) ? -EOPNOTSUPP : 0;
}

/* A TLBI VALE1IS (vpn) or ASIDE1IS (vpn == ~0UL) completing on every PE. */
static void arm64_tlbi_complete(struct tlbgen_system *sys, struct tlbgen_mm *mm,
				unsigned long vpn)
{
	/* No simulated TLBs: nothing to do, and no reading of remote ctxs[]. */
	if (!tlbgen__oracle_on(sys))
		return;
	/* Hardware broadcast: the targets run no code, pay nothing. */
	tlbgen__tlb_broadcast_mm(sys, mm, vpn, vpn, vpn == ~0UL);
}

/* The CPUs have the erratum: the machine's feature, or the choice kernel specs name. */
static bool arm64_repeat_tlbi(const struct tlbgen_system *sys)
{
	return sys->arm64_repeat_tlbi || sys->profile.arm64_repeat_tlbi;
}

static bool arm64_repeat_per_tlbi(const struct tlbgen_system *sys)
{
	return arm64_repeat_tlbi(sys) && sys->profile.arm64_repeat_sync == ARM64_REPEAT_PER_TLBI;
}

/*
 * Virtual time: a broadcast TLBI costs its issue (the machine's invlpgb),
 * the DSB ISH that completes it waits for every PE of the inner-shareable
 * domain (tlbsync + tlbsync_per_cpu per CPU: the cost model's
 * tlbsync_cycles), and those waits are served one at a time: "the latency
 * of the tlbi broadcast instruction increases almost linearly with the
 * number of CPUs trying to send tlbi broadcasts at the same time" (Andrea
 * Arcangeli, "arm64: tlb: skip tlbi broadcast", linux-arm-kernel, Feb 2020).
 * Other modes keep the counts alone.
 */
static void arm64_charge(struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_cost_item what)
{
	if (sys->mode != TLBGEN_MODE_VIRTUAL)
		return;
	if (what == TLBGEN_COST_TLBSYNCS)
		tlbgen__cost_charge_serial(sys, cpu, what, 1);
	else
		tlbgen__cost_charge(sys, cpu, what, 1);
}

/* __tlbi(): before a8f78680ee6b the workaround issues "tlbi; dsb ish; tlbi". */
static void arm64_count_tlbi(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm)
{
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_TLBI);
	arm64_charge(sys, cpu, TLBGEN_COST_INVLPGBS);
	if (arm64_repeat_per_tlbi(sys)) {
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_DSB);
		arm64_charge(sys, cpu, TLBGEN_COST_TLBSYNCS);
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_TLBI);
		arm64_charge(sys, cpu, TLBGEN_COST_INVLPGBS);
	}
}

/*
 * The dsb(ish) that completes broadcast stage-1 TLBIs: __tlbi_sync_s1ish()
 * since a8f78680ee6b, which under the workaround adds one TLBI VALE1IS, XZR
 * (an unused entry of the reserved ASID) and a second DSB.
 */
static void arm64_sync_s1ish(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm)
{
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_DSB);
	arm64_charge(sys, cpu, TLBGEN_COST_TLBSYNCS);
	if (arm64_repeat_tlbi(sys) && !arm64_repeat_per_tlbi(sys)) {
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_TLBI);
		arm64_charge(sys, cpu, TLBGEN_COST_INVLPGBS);
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_DSB);
		arm64_charge(sys, cpu, TLBGEN_COST_TLBSYNCS);
	}
}

/*
 * A DSB between TLBIs leaves nothing to batch; a8f78680ee6b moved the
 * repeat to the completing DSB and dropped the workaround from this test.
 */
static bool arm64_tlbbatch_should_defer(struct tlbgen_system *sys, unsigned int cpu,
					struct tlbgen_mm *mm)
{
	(void)cpu;
	(void)mm;
	return !arm64_repeat_per_tlbi(sys);
}

static int arm64_tlbbatch_add_pending(struct tlbgen_system *sys, unsigned int cpu,
				      struct tlbgen_tlbbatch *b, struct tlbgen_mm *mm,
				      unsigned long start, unsigned long end, uint64_t seq)
{
	unsigned long first = start >> TLBGEN_PAGE_SHIFT;
	unsigned long last = (end - 1) >> TLBGEN_PAGE_SHIFT;
	unsigned long n = last - first + 1;

	if (b->nr_inval + n > b->cap_inval) {
		unsigned long cap = b->cap_inval ? b->cap_inval : 64;
		void *p;

		while (cap < b->nr_inval + n)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -ENOMEM;
		p = realloc(b->inval, cap * sizeof(*b->inval));
		if (!p)
			return -ENOMEM;
		b->inval = p;
		b->cap_inval = (unsigned int)cap;
	}
	/* __flush_tlb_page_nosync(): dsb(ishst); tlbi vale1is; no completion wait. */
	for (unsigned long vpn = first; vpn <= last; vpn++) {
		b->inval[b->nr_inval++] = (struct tlbgen_arm64_inval){ mm, vpn, seq };
		arm64_count_tlbi(sys, cpu, mm);
	}
	return 0;
}

/* arch_tlbbatch_flush(): dsb(ish) completes this task's TLBIs, nobody else's. */
static void arm64_tlbbatch_flush(struct tlbgen_system *sys, unsigned int cpu,
				 struct tlbgen_tlbbatch *b)
{
	struct tlbgen_oracle_flush of = { 0 };

	tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_FLUSH_INITIATED);
	arm64_sync_s1ish(sys, cpu, NULL);
	if (b->nr_inval) {
		of.seq = b->inval[0].seq;
		tlbgen__oracle_flush_number(sys, cpu, &of, TLBGEN_TLB_GENERATION_INVALID, 0,
					    TLBGEN_TLB_FLUSH_ALL, false);
	}
	for (unsigned int i = 0; i < b->nr_inval; i++) {
		struct tlbgen_arm64_inval *v = &b->inval[i];

		arm64_tlbi_complete(sys, v->mm, v->vpn);
		tlbgen__count(sys, cpu, v->mm, TLBGEN_STAT_PAGES_INVALIDATED);
		tlbgen__oracle_cover_page(sys, v->mm, v->vpn, v->seq, of.id);
	}
	b->nr_inval = 0;
	for (unsigned int i = 0; i < b->nr_cover; i++)
		tlbgen__mm_unpin(b->cover[i].mm);
	b->nr_cover = 0;
	b->unmapped_pages = false;
}

/* flush_tlb_page(): TLBI VALE1IS + DSB, complete on return. */
static int arm64_flush_tlb_page(struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_mm *mm, unsigned long addr)
{
	unsigned long start = addr & ~(TLBGEN_PAGE_SIZE - 1);
	struct tlbgen_oracle_flush of;

	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_INITIATED);
	tlbgen__oracle_flush_begin(sys, mm, &of);
	tlbgen__oracle_flush_number(sys, cpu, &of, TLBGEN_TLB_GENERATION_INVALID, start,
				    start + TLBGEN_PAGE_SIZE, false);
	arm64_count_tlbi(sys, cpu, mm);
	arm64_sync_s1ish(sys, cpu, mm);
	arm64_tlbi_complete(sys, mm, start >> TLBGEN_PAGE_SHIFT);
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_PAGES_INVALIDATED);
	tlbgen__oracle_cover_page(sys, mm, start >> TLBGEN_PAGE_SHIFT, of.seq, of.id);
	return 0;
}

/*
 * arch_flush_tlb_batched_pending(mm): flush_tlb_mm(), TLBI ASIDE1IS + DSB
 * reaching every CPU (4b634918384c, v6.16; stable 6.15.y has it too);
 * from db6c1f6f236d (v6.6) until then a dsb(ish) only, which completes the
 * TLBIs *this* CPU issued and none of the reclaimer's: the Arm ARM
 * guarantees completion only to the issuer's DSB. The caller believes the
 * mm flushed (the oracle takes that belief at its word).
 */
static int arm64_flush_tlb_batched_pending(struct tlbgen_system *sys, unsigned int cpu,
					   struct tlbgen_mm *mm)
{
	struct tlbgen_oracle_flush of;

	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_INITIATED);
	tlbgen__oracle_flush_begin(sys, mm, &of);
	tlbgen__oracle_flush_number(sys, cpu, &of, TLBGEN_TLB_GENERATION_INVALID, 0,
				    TLBGEN_TLB_FLUSH_ALL, true);
	if (sys->profile.batched_pending == BATCHED_PENDING_FLUSH_TLB_MM) {
		arm64_count_tlbi(sys, cpu, mm);
		arm64_tlbi_complete(sys, mm, ~0UL);
		arm64_sync_s1ish(sys, cpu, mm);
	} else {
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_DSB);
	}
	tlbgen__oracle_cover_full(sys, mm, of.seq, of.id);
	return 0;
}

/*
 * __flush_tlb_range_nosync(): start/end rounded to the stride, then
 * (end - start) >= MAX_DVM_OPS * stride -> flush_tlb_mm() (no FEAT_TLBIRANGE).
 */
void tlbgen__arm64_range_rule(unsigned long ceiling, enum tlbgen_ceiling_cmp cmp,
			      unsigned long start, unsigned long end, unsigned int shift,
			      struct tlbgen_range_flush *out)
{
	unsigned long stride = 1UL << shift;

	if (end != TLBGEN_TLB_FLUSH_ALL) {
		start &= ~(stride - 1);
		end = (end + stride - 1) & ~(stride - 1);
	}
	tlbgen__range_rule_pages(ceiling, cmp, start, end, shift, out);
}

/*
 * 43b3dfdd0455 selects ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH (v6.6). Before it
 * try_to_unmap_one() always took ptep_clear_flush(): a TLBI+DSB per page.
 */
static bool arm64_batching(const struct tlbgen_system *sys)
{
	return sys->profile.arm64_batched_unmap;
}

const struct tlbgen_arch_ops tlbgen__arm64_arch_ops = {
	.name = "arm64",
	.supported = arm64_supported,
	.batching = arm64_batching,
	.tlbbatch_should_defer = arm64_tlbbatch_should_defer,
	.tlbbatch_add_pending = arm64_tlbbatch_add_pending,
	.tlbbatch_flush = arm64_tlbbatch_flush,
	.flush_tlb_batched_pending = arm64_flush_tlb_batched_pending,
	.flush_tlb_page = arm64_flush_tlb_page,
};
