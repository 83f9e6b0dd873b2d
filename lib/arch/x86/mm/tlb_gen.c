// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/arch/x86/mm/tlb_gen.c - the x86 tlb_gen generation logic: inc_mm_tlb_gen() and
 * flush_tlb_func(), the handler every flush runs on every target CPU.
 *
 * Three generations (comment of flush_tlb_func in arch/x86/mm/tlb.c):
 *  mm_tlb_gen     the latest generation of the mm;
 *  local_tlb_gen  the generation this CPU has caught up to;
 *  f->new_tlb_gen the generation the requester wants us to catch up to.
 */
#include "../../../base/kallsyms.h"
#include "../../../base/printk.h"
#include "../../../core/access.h"
#include "../../../core/decision.h"
#include "../../../observers/simtlb.h"
#include "tlb.h"

/*
 * The reader handed to a flush decision. In the v5.17 form mm_tlb_gen is a
 * local variable initialised at the top of flush_tlb_func(), so the value is
 * read once and then reused: `have` caches it.
 */
struct tlbgen_gen_reader {
	struct tlbgen_system *sys;
	unsigned int cpu;
	struct tlbgen_mm *mm;
	bool have;
	uint64_t val;
};

static inline uint64_t gen_reader_read(struct tlbgen_gen_reader *r)
{
	if (!r->have) {
		/* atomic64_read(): the contended read aa44284960 avoids. */
		r->val = tlbgen__mm_tlb_gen_read(r->sys, r->cpu, r->mm, memory_order_relaxed);
		r->have = true;
	}
	return r->val;
}

TLBGEN_API uint64_t tlbgen_read_mm_tlb_gen(struct tlbgen_gen_reader *r)
{
	return r ? gen_reader_read(r) : 0;
}

static void tlbgen__warn_gen(struct tlbgen_system *sys, unsigned int cpu, const char *what,
			     uint64_t a, uint64_t b)
{
	tlbgen__warn(sys);
	tlbgen__pr(TLBGEN_DEBUG, "tlbgen: cpu %u: WARN_ON_ONCE(%s): %llu > %llu\n", cpu, what,
		   (unsigned long long)a, (unsigned long long)b);
}

/*
 * The built-in decision, driven by the profile's choices. Orders checks as
 * the kernel does: early return (aa44284960, guarded by 8f1d56f64f8d), then
 * the deferred mm_tlb_gen read, then "already up to date", then the two
 * partial-flush conditions.
 */
static enum tlbgen_flush_verdict builtin_flush_decide(const struct tlbgen_flush_req *req,
						      struct tlbgen_gen_reader *r,
						      uint64_t *new_local, void *priv)
{
	const struct tlbgen_profile *p = &r->sys->profile;
	uint64_t mm_tlb_gen;

	(void)priv;
	switch (p->early_return) {
	case EARLY_RETURN_UNGUARDED:
		/* aa44284960 as merged: batch flushes (new == 0) always return. */
		if (req->new_tlb_gen <= req->local_tlb_gen)
			return TLBGEN_VERDICT_SKIP;
		break;
	case EARLY_RETURN_GUARDED:
		if (req->new_tlb_gen != TLBGEN_TLB_GENERATION_INVALID &&
		    req->new_tlb_gen <= req->local_tlb_gen)
			return TLBGEN_VERDICT_SKIP;
		break;
	default:
		break;
	}

	if (p->gen_read == GEN_READ_NEVER &&
	    req->new_tlb_gen != TLBGEN_TLB_GENERATION_INVALID) {
		/*
		 * Luto's variant: trust f->new_tlb_gen. A generation-less
		 * (batch/kernel) request still has to read the mm's, or the CPU
		 * would have no generation to catch up to.
		 */
		if (req->new_tlb_gen <= req->local_tlb_gen)
			return TLBGEN_VERDICT_UP_TO_DATE;
		mm_tlb_gen = req->new_tlb_gen;
	} else {
		mm_tlb_gen = gen_reader_read(r);
	}

	if (unlikely(req->local_tlb_gen == mm_tlb_gen))
		return TLBGEN_VERDICT_UP_TO_DATE;

	if (unlikely(req->local_tlb_gen > mm_tlb_gen))
		tlbgen__warn_gen(r->sys, r->cpu, "local_tlb_gen > mm_tlb_gen",
				 req->local_tlb_gen, mm_tlb_gen);
	if (unlikely(req->new_tlb_gen > mm_tlb_gen))
		tlbgen__warn_gen(r->sys, r->cpu, "f->new_tlb_gen > mm_tlb_gen",
				 req->new_tlb_gen, mm_tlb_gen);

	*new_local = mm_tlb_gen;
	/*
	 * Partial only if (1) new == local + 1: we have done every flush up to
	 * local, so this range is the only change; and (2) new == mm: no other
	 * flush is in flight (an optimisation: jump straight to mm_tlb_gen).
	 */
	if (req->end != TLBGEN_TLB_FLUSH_ALL && req->new_tlb_gen == req->local_tlb_gen + 1 &&
	    req->new_tlb_gen == mm_tlb_gen)
		return TLBGEN_VERDICT_PARTIAL;
	return TLBGEN_VERDICT_FULL;
}

static void tlbgen__flush_partial(struct tlbgen_system *sys, unsigned int cpu,
				  struct tlbgen__stat_row row, uint16_t asid,
				  const struct tlbgen_flush_tlb_info *f)
{
	unsigned long nr = 0;

	if (unlikely(f->new_tlb_gen == TLBGEN_TLB_GENERATION_INVALID || !f->mm))
		/* 8f1d56f64f8d: a partial flush needs a generation and an mm. */
		tlbgen__warn(sys);

	/* flush_tlb_one_user() per stride: runs ceil((end - start) / stride) times. */
	for (unsigned long addr = f->start; addr < f->end; addr += 1UL << f->stride_shift) {
		tlbgen__tlb_flush_one(sys, cpu, asid, addr, f->stride_shift);
		nr++;
		if (addr + (1UL << f->stride_shift) < addr)
			break;
	}
	tlbgen__row_count(row, TLBGEN_STAT_PARTIAL_FLUSH);
	tlbgen__row_count_n(row, TLBGEN_STAT_PAGES_INVALIDATED, nr);
	tlbgen__trace_flush(sys, cpu, TLBGEN_FLUSH_KIND_PARTIAL, nr);
}

/*
 * The one tracepoint of flush_tlb_func(), at its "done:" label: remote,
 * local without an mm (a batch) or local for an mm; pages as nr_invalidate,
 * (end - start) >> stride_shift for a partial flush.
 */
static void flush_func_decision(struct tlbgen_system *sys, unsigned int cpu,
				const struct tlbgen_flush_tlb_info *f, bool local,
				unsigned long pages)
{
	tlbgen__decision(sys, cpu, !local ? TLBGEN_TLB_REMOTE_SHOOTDOWN :
				   !f->mm ? TLBGEN_TLB_LOCAL_SHOOTDOWN :
					    TLBGEN_TLB_LOCAL_MM_SHOOTDOWN,
			 pages, f->mm, f->initiating_cpu);
}

/*
 * flush_tlb_func(): runs with IRQs off on each target (and on the initiator
 * when it is in the mask). Check order, as in arch/x86/mm/tlb.c since
 * aa44284960: wrong mm -> init_mm -> global ASID (be88a1dd6112, v6.15) ->
 * lazy -> decision -> flush -> local := mm_tlb_gen.
 */
void tlbgen__flush_tlb_func(struct tlbgen_system *sys, unsigned int cpu, void *info)
{
	const struct tlbgen_flush_tlb_info *f = info;
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	const struct tlbgen_profile *p = &sys->profile;
	struct tlbgen_mm *loaded_mm = tlbgen__this_loaded_mm(sys, cpu);
	uint16_t asid = tlbgen__this_loaded_mm_asid(sys, cpu);
	bool local = cpu == f->initiating_cpu;
	struct tlbgen_gen_reader r = { .sys = sys, .cpu = cpu, .mm = loaded_mm };
	struct tlbgen_flush_req req;
	enum tlbgen_flush_verdict v;
	uint64_t new_local = 0;
	struct tlbgen__stat_row row = tlbgen__stat_row(sys, cpu, f->mm);

	tlbgen__flush_info_access(sys, cpu, f, TLBGEN_OP_READ);
	/* <= v5.19: "u64 mm_tlb_gen = atomic64_read(...)" before any check. */
	if (p->gen_read == GEN_READ_ALWAYS && !p->flush_decide)
		(void)gen_reader_read(&r);

	tlbgen__row_count(row, TLBGEN_STAT_FLUSH_FUNC);
	if (!local)
		tlbgen__row_count(row, TLBGEN_STAT_FLUSH_FUNC_REMOTE);

	/* The CPU runs another mm: nothing of f->mm is live here. */
	if (f->mm && f->mm != loaded_mm && (!local || p->wrong_mm == WRONG_MM_ALL_CLEAR)) {
		/* 209954cbc7d0: the CPU was left in mm_cpumask; clear it now. */
		if (p->wrong_mm != WRONG_MM_REMOTE)
			tlbgen__mm_cpumask_clear(sys, cpu, f->mm);
		tlbgen__row_count(row, TLBGEN_STAT_FLUSH_FUNC_WRONG_MM);
		tlbgen__decision(sys, cpu, TLBGEN_TLB_REMOTE_WRONG_CPU, 0, f->mm,
				 f->initiating_cpu);
		return;
	}

	if (unlikely(loaded_mm == sys->init_mm)) {
		tlbgen__row_count(row, TLBGEN_STAT_FLUSH_FUNC_INIT_MM);
		return;
	}

	/*
	 * be88a1dd6112: move to the mm's global ASID, then return, INVLPGB
	 * keeps it current. Before the lazy test (v6.15..v6.18): a lazy CPU
	 * is reloaded onto it by switch_mm_irqs_off(), which ends lazy mode.
	 */
	if (tlbgen__mm_needs_global_asid(sys, loaded_mm, asid)) {
		tlbgen__switch_mm_irqs_off(sys, cpu, loaded_mm);
		asid = tlbgen__this_loaded_mm_asid(sys, cpu);
	}
	if (tlbgen__is_global_asid(asid))
		return;

	if (tlbgen__this_is_lazy(sys, cpu)) {
		/* Lazy: leave the mm rather than flush it; we will flush (or
		 * not) from switch_mm when we come back. */
		tlbgen__row_count(row, TLBGEN_STAT_FLUSH_FUNC_LAZY);
		tlbgen__switch_mm_irqs_off(sys, cpu, sys->init_mm);
		return;
	}

	req = (struct tlbgen_flush_req){
		.new_tlb_gen = f->new_tlb_gen,
		.local_tlb_gen = c->tlbstate.ctxs[asid].tlb_gen,
		.start = f->start,
		.end = f->end,
		.stride_shift = f->stride_shift,
		.has_mm = f->mm != NULL,
		.local = local,
	};
	/* A direct call for the built-in decision, which the compiler can inline. */
	if (p->flush_decide)
		v = p->flush_decide(&req, &r, &new_local, p->priv);
	else
		v = builtin_flush_decide(&req, &r, &new_local, p->priv);
	/* From here on the counts are the loaded mm's; f->mm is it, or NULL
	 * (a kernel flush), or, on the initiator, another mm. */
	if (f->mm != loaded_mm)
		row = tlbgen__stat_row(sys, cpu, loaded_mm);

	switch (v) {
	case TLBGEN_VERDICT_SKIP:
		tlbgen__row_count(row, TLBGEN_STAT_EARLY_SKIP);
		return;
	case TLBGEN_VERDICT_UP_TO_DATE:
		tlbgen__row_count(row, TLBGEN_STAT_UP_TO_DATE);
		/* "goto done": traced with nothing invalidated. */
		flush_func_decision(sys, cpu, f, local, 0);
		return;
	case TLBGEN_VERDICT_PARTIAL:
		tlbgen__flush_partial(sys, cpu, row, asid, f);
		flush_func_decision(sys, cpu, f, local, (f->end - f->start) >> f->stride_shift);
		break;
	case TLBGEN_VERDICT_FULL:
	default:
		/* flush_tlb_local(): everything of the current ASID. */
		tlbgen__tlb_flush_asid(sys, cpu, asid);
		tlbgen__row_count(row, TLBGEN_STAT_FULL_FLUSH);
		tlbgen__trace_flush(sys, cpu, TLBGEN_FLUSH_KIND_FULL, 0);
		flush_func_decision(sys, cpu, f, local, TLBGEN_DECISION_ALL);
		break;
	}
	/* Both paths above update our state to mm_tlb_gen. */
	c->tlbstate.ctxs[asid].tlb_gen = new_local;
}

TLBGEN_KSYM(tlbgen__flush_tlb_func, "flush_tlb_func")
