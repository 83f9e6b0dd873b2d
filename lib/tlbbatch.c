// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/tlbbatch.c - struct arch_tlbflush_unmap_batch and the three arch
 * flavours of the batched-unmap hooks (reference §1.9, §3.2), selected by
 * the profile choice batch_arch:
 *
 *  x86    add: inc_mm_tlb_gen() + OR mm_cpumask; flush: one full flush with
 *         mm == NULL and TLB_GENERATION_INVALID to the batch mask through
 *         flush_tlb_multi() (lazy CPUs skipped), then clear the mask.
 *  arm64  add: a broadcast TLBI per page, no DSB; flush: one DSB that
 *         completes only the TLBIs this batch (its task) issued.
 *  riscv  add: OR mm_cpumask (seed 002); flush: one full flush without ASID
 *         to every CPU of the mask through on_each_cpu_mask() (no lazy
 *         filter), then clear the mask. Unbatched: one ranged flush per page.
 *
 * Why mm == NULL and a full flush suffice on x86: add_pending bumped every
 * affected mm's tlb_gen, so each target that runs one of them sees
 * local_tlb_gen < mm_tlb_gen and flushes fully (a generation-0 request
 * never early-returns, since 8f1d56f64f8d), and a CPU that only caches
 * one in another ASID slot catches up in choose_new_asid().
 *
 * Model notes.
 *  - arm64's TLBI is "posted, not complete" until the issuer's DSB: the
 *    model takes the latest legal completion, so remote simulated TLBs keep
 *    the entry until that DSB, which then removes it from every CPU. The
 *    oracle judges uses after the DSB returned (the page is covered then);
 *    a use between the TLBI and the DSB is legal and not reported. Because
 *    the DSB edits other CPUs' simulated TLBs, arm64 needs stepped mode or a
 *    system without the oracle (-EOPNOTSUPP otherwise).
 *  - The emulated CPUs keep x86's per-CPU ASID slots. riscv's global ASIDs
 *    keep a CPU in mm_cpumask after it switched away; with the
 *    clear-on-switch profiles the model's CPUs leave the mask, so the riscv
 *    hooks also bump the mm's tlb_gen: such a CPU then flushes in
 *    switch_mm() when it comes back (never fewer flushes than riscv).
 *  - riscv and arm64 flush_tlb_mm()/flush_tlb_page() run through the same
 *    call engine (riscv) and simulated TLB functions as x86.
 */
#include "internal.h"

struct tlbgen_batch_cover {
	struct tlbgen_mm *mm;
	uint64_t seq;		/* oracle: the mm's change seq when the page was added */
};

/* arm64: a TLBI issued by this batch's task, not yet completed by a DSB. */
struct tlbgen_arm64_inval {
	struct tlbgen_mm *mm;
	unsigned long vpn;
	uint64_t seq;
};

struct tlbgen_tlbbatch {
	uint32_t magic;
	struct tlbgen_system *sys;
	bool unmapped_pages;
	bool inflight;
	unsigned int nr_cover, cap_cover;
	struct tlbgen_batch_cover *cover;
	unsigned int nr_inval, cap_inval;
	struct tlbgen_arm64_inval *inval;
	atomic_ulong cpumask[];	/* private to the owning task; atomic for the call engine */
};

TLBGEN_API int tlbgen_tlbbatch__create(struct tlbgen_system *sys, struct tlbgen_tlbbatch **out)
{
	struct tlbgen_tlbbatch *b;

	if (!tlbgen_sys_valid(sys) || !out)
		return -EINVAL;
	b = calloc(1, sizeof(*b) + sys->mask_longs * sizeof(atomic_ulong));
	if (!b)
		return -ENOMEM;
	b->magic = TLBGEN_BATCH_MAGIC;
	b->sys = sys;
	*out = b;
	return 0;
}

TLBGEN_API int tlbgen_tlbbatch__destroy(struct tlbgen_tlbbatch *b)
{
	if (!b || b->magic != TLBGEN_BATCH_MAGIC)
		return -EINVAL;
	if (b->inflight)
		return -EBUSY;
	for (unsigned int i = 0; i < b->nr_cover; i++)
		atomic_fetch_sub(&b->cover[i].mm->inflight, 1);
	b->magic = 0;
	free(b->cover);
	free(b->inval);
	free(b);
	return 0;
}

static int batch_check(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_tlbbatch *b)
{
	int err = tlbgen__check_initiator(sys, cpu);

	if (err)
		return err;
	if (!b || b->magic != TLBGEN_BATCH_MAGIC || b->sys != sys)
		return -EINVAL;
	return b->inflight ? -EBUSY : 0;
}

/* arm64 edits every CPU's simulated TLB from the issuer: single host thread only. */
int tlbgen__arch_batch_supported(const struct tlbgen_system *sys)
{
	if (sys->policy.batch_arch == BATCH_ARCH_ARM64 && sys->mode == TLBGEN_MODE_THREADED &&
	    tlbgen_oracle_on(sys))
		return -EOPNOTSUPP;
	return 0;
}

static int batch_note_cover(struct tlbgen_tlbbatch *b, struct tlbgen_mm *mm, uint64_t seq)
{
	for (unsigned int i = 0; i < b->nr_cover; i++) {
		if (b->cover[i].mm == mm) {
			if (seq > b->cover[i].seq)
				b->cover[i].seq = seq;
			return 0;
		}
	}
	if (b->nr_cover == b->cap_cover) {
		unsigned int cap = b->cap_cover ? 2 * b->cap_cover : 4;
		void *p = realloc(b->cover, cap * sizeof(*b->cover));

		if (!p)
			return -ENOMEM;
		b->cover = p;
		b->cap_cover = cap;
	}
	b->cover[b->nr_cover++] = (struct tlbgen_batch_cover){ mm, seq };
	/* Pins the mm until the batch is flushed. */
	atomic_fetch_add(&mm->inflight, 1);
	return 0;
}

/* cpumask_or(&batch->cpumask, &batch->cpumask, mm_cpumask(mm)) */
static void batch_or_mm_cpumask(struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_tlbbatch *b, struct tlbgen_mm *mm)
{
	for (unsigned long i = 0; i < sys->mask_longs; i++) {
		unsigned long w = atomic_load_explicit(&mm->cpu_bitmap[i], memory_order_relaxed);

		tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_CPUMASK, &mm->cpu_bitmap[i],
				   TLBGEN_OP_READ);
		atomic_fetch_or_explicit(&b->cpumask[i], w, memory_order_relaxed);
	}
}

/* ---- arm64: TLBI / DSB on the simulated TLBs --------------------------------- */

static void oracle_cover_page(struct tlbgen_mm *mm, unsigned long vpn, uint64_t seq, uint64_t id)
{
	struct tlbgen_pte *p = &mm->priv.ptes[vpn];
	uint64_t cur = atomic_load_explicit(&p->covered, memory_order_relaxed);

	while (cur < seq) {
		if (atomic_compare_exchange_weak_explicit(&p->covered, &cur, seq,
							  memory_order_release,
							  memory_order_relaxed)) {
			atomic_store_explicit(&p->covered_id, id, memory_order_relaxed);
			return;
		}
	}
}

/*
 * A TLBI VALE1IS (vpn) or ASIDE1IS (vpn == ULONG_MAX) reaching every PE:
 * remove the mm's entries from each CPU's ASID slots that hold that mm.
 */
static void arm64_tlbi_complete(struct tlbgen_system *sys, struct tlbgen_mm *mm,
				unsigned long vpn)
{
	/* No simulated TLBs: nothing to do, and no reading of remote ctxs[]. */
	if (!tlbgen_oracle_on(sys))
		return;
	for (unsigned int cpu = 0; cpu < sys->nr_cpus; cpu++) {
		struct tlbgen_cpu *c = tlbgen_cpu(sys, cpu);

		for (uint16_t asid = 0; asid < TLBGEN_TLB_NR_DYN_ASIDS; asid++) {
			if (c->tlbstate.ctxs[asid].ctx_id != mm->context.ctx_id)
				continue;
			/* Hardware broadcast: the targets run no code, pay nothing. */
			tlbgen__tlb_invalidate_nocost(sys, cpu, asid, vpn, vpn, vpn == ~0UL);
		}
	}
}

/* __tlbi(): ARM64_WORKAROUND_REPEAT_TLBI issues "tlbi; dsb ish; tlbi". */
static void arm64_count_tlbi(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm)
{
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_TLBI);
	if (sys->policy.arm64_repeat_tlbi) {
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_DSB);
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_TLBI);
	}
}

static int arm64_add_pending(struct tlbgen_system *sys, unsigned int cpu,
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

/* arch_tlbbatch_flush() on arm64: dsb(ish) completes this task's TLBIs, nobody else's. */
static void arm64_tlbbatch_flush(struct tlbgen_system *sys, unsigned int cpu,
				 struct tlbgen_tlbbatch *b)
{
	uint64_t id = 0;

	tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_FLUSH_INITIATED);
	tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_DSB);
	if (tlbgen_oracle_on(sys) && b->nr_inval)
		id = tlbgen__oracle_new_flush(sys, cpu, TLBGEN_TLB_GENERATION_INVALID, 0,
					      TLBGEN_TLB_FLUSH_ALL, false, b->inval[0].seq);
	for (unsigned int i = 0; i < b->nr_inval; i++) {
		struct tlbgen_arm64_inval *v = &b->inval[i];

		arm64_tlbi_complete(sys, v->mm, v->vpn);
		tlbgen__count(sys, cpu, v->mm, TLBGEN_STAT_PAGES_INVALIDATED);
		if (tlbgen_oracle_on(sys))
			oracle_cover_page(v->mm, v->vpn, v->seq, id);
	}
	b->nr_inval = 0;
	for (unsigned int i = 0; i < b->nr_cover; i++)
		atomic_fetch_sub_explicit(&b->cover[i].mm->inflight, 1,
					  memory_order_release);
	b->nr_cover = 0;
}

/* ---- riscv: __flush_tlb_range() through on_each_cpu_mask() ------------------- */

/*
 * __ipi_flush_tlb_range_asid() / local_flush_tlb_all(): f->mm == NULL is
 * FLUSH_TLB_NO_ASID over FLUSH_TLB_MAX_SIZE, a bare sfence.vma (every ASID,
 * global entries too); otherwise the pages of f->mm's ASID. riscv has no lazy
 * TLB state to look at: the CPU flushes whatever it runs.
 */
static void riscv_ipi_flush_tlb_range_asid(struct tlbgen_system *sys, unsigned int cpu,
					   void *info)
{
	const struct tlbgen_flush_tlb_info *f = info;
	struct tlbgen_cpu *c = tlbgen_cpu(sys, cpu);
	unsigned long nr = 0;

	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_FLUSH_TLB_INFO, f, TLBGEN_OP_READ);
	tlbgen__count(sys, cpu, f->mm, TLBGEN_STAT_FLUSH_FUNC);
	if (cpu != f->initiating_cpu)
		tlbgen__count(sys, cpu, f->mm, TLBGEN_STAT_FLUSH_FUNC_REMOTE);
	if (!f->mm) {
		for (uint16_t asid = 0; asid < TLBGEN_TLB_NR_DYN_ASIDS; asid++)
			tlbgen__tlb_flush_asid(sys, cpu, asid);
		tlbgen__tlb_flush_kernel(sys, cpu, 0, TLBGEN_TLB_FLUSH_ALL);
		tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_FULL_FLUSH);
		tlbgen__trace_flush(sys, cpu, TLBGEN_FLUSH_KIND_FULL, 0);
		return;
	}
	for (unsigned long addr = f->start; addr < f->end; addr += TLBGEN_PAGE_SIZE) {
		for (uint16_t asid = 0; asid < TLBGEN_TLB_NR_DYN_ASIDS; asid++)
			if (c->tlbstate.ctxs[asid].ctx_id == f->mm->context.ctx_id)
				tlbgen__tlb_flush_one(sys, cpu, asid, addr, TLBGEN_PAGE_SHIFT);
		nr++;
	}
	tlbgen__count(sys, cpu, f->mm, TLBGEN_STAT_PARTIAL_FLUSH);
	tlbgen__count_n(sys, cpu, f->mm, TLBGEN_STAT_PAGES_INVALIDATED, nr);
	tlbgen__trace_flush(sys, cpu, TLBGEN_FLUSH_KIND_PARTIAL, nr);
}

/*
 * riscv __flush_tlb_range(cmask, asid, start, size): nothing for an empty
 * mask, a local flush when only this CPU is in it, else on_each_cpu_mask()
 * (which runs the function here too when this CPU is in the mask).
 */
static void riscv_flush_tlb_range(struct tlbgen_system *sys, unsigned int cpu,
				  const atomic_ulong *cmask, struct tlbgen_flush_tlb_info *info,
				  struct tlbgen_mm *mm)
{
	unsigned long *snap = tlbgen_cpu(sys, cpu)->priv.cfd_mask_ipi;	/* scratch */

	cpumask_snapshot(snap, cmask, sys->mask_longs);
	if (bitmap_any_but(snap, sys->nr_cpus, cpu) < sys->nr_cpus) {
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_MULTI);
		tlbgen_smp_call_function_many_cond(sys, cpu, cmask, riscv_ipi_flush_tlb_range_asid,
						   info, SCF_WAIT | SCF_RUN_LOCAL, NULL);
	} else if (bitmap_test(snap, cpu)) {
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_LOCAL_ONLY);
		tlbgen__local_irq_disable(sys, cpu);
		riscv_ipi_flush_tlb_range_asid(sys, cpu, info);
		tlbgen__local_irq_enable(sys, cpu);
	} else {
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_NONE);
	}
}

/* ---- the hooks ----------------------------------------------------------------- */

/* arch_tlbbatch_should_defer(mm) */
bool tlbgen__arch_tlbbatch_should_defer(struct tlbgen_system *sys, unsigned int cpu,
					struct tlbgen_mm *mm)
{
	switch (sys->policy.batch_arch) {
	case BATCH_ARCH_ARM64:
		/* The workaround needs a DSB between TLBIs: nothing to batch. */
		return !sys->policy.arm64_repeat_tlbi;
	case BATCH_ARCH_RISCV:
		return true;
	default:
		/* If remote CPUs need to be flushed then defer batch the flush. */
		tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_CPUMASK, &mm->cpu_bitmap[0],
				   TLBGEN_OP_READ);
		return cpumask_any_but(mm->cpu_bitmap, sys->nr_cpus, cpu) < sys->nr_cpus;
	}
}

TLBGEN_API int tlbgen_arch_tlbbatch_add_pending(struct tlbgen_system *sys, unsigned int cpu,
						struct tlbgen_tlbbatch *b, struct tlbgen_mm *mm,
						unsigned long start, unsigned long end)
{
	uint64_t seq;
	int err = batch_check(sys, cpu, b);

	if (err)
		return err;
	if (!tlbgen_mm_valid(sys, mm) || mm == sys->init_mm || start >= end ||
	    end > (mm->priv.nr_pages << TLBGEN_PAGE_SHIFT))
		return -EINVAL;
	err = tlbgen__arch_batch_supported(sys);
	if (err)
		return err;
	seq = atomic_load_explicit(&mm->oracle.seq, memory_order_seq_cst);
	err = batch_note_cover(b, mm, seq);
	if (err)
		return err;
	switch (sys->policy.batch_arch) {
	case BATCH_ARCH_ARM64:
		err = arm64_add_pending(sys, cpu, b, mm, start, end, seq);
		if (err)
			return err;
		break;
	case BATCH_ARCH_RISCV:
		/* Model note above: riscv itself has no tlb_gen. */
		tlbgen_inc_mm_tlb_gen(sys, cpu, mm);
		batch_or_mm_cpumask(sys, cpu, b, mm);
		break;
	default:
		tlbgen_inc_mm_tlb_gen(sys, cpu, mm);
		batch_or_mm_cpumask(sys, cpu, b, mm);
		break;
	}
	b->unmapped_pages = true;
	return 0;
}

static void batch_finish(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct tlbgen_tlbbatch *b = arg;
	struct tlbgen_cpu *c = tlbgen_cpu(sys, cpu);

	for (unsigned int i = 0; i < b->nr_cover; i++) {
		if (tlbgen_oracle_on(sys))
			tlbgen__oracle_cover_full(sys, b->cover[i].mm, b->cover[i].seq,
						  c->info.flush_id);
		atomic_fetch_sub_explicit(&b->cover[i].mm->inflight, 1,
					  memory_order_release);
	}
	b->nr_cover = 0;
	b->inflight = false;
	c->priv.info_in_use = false;
}

TLBGEN_API int tlbgen_arch_tlbbatch_flush(struct tlbgen_system *sys, unsigned int cpu,
					  struct tlbgen_tlbbatch *b)
{
	struct tlbgen_flush_tlb_info *info;
	unsigned long *snap;
	int err = batch_check(sys, cpu, b);

	if (err)
		return err;
	err = tlbgen__arch_batch_supported(sys);
	if (err)
		return err;
	if (sys->policy.batch_arch == BATCH_ARCH_ARM64) {
		arm64_tlbbatch_flush(sys, cpu, b);
		b->unmapped_pages = false;
		return 0;
	}
	tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_FLUSH_INITIATED);
	info = tlbgen_get_flush_tlb_info(sys, cpu, NULL, 0, TLBGEN_TLB_FLUSH_ALL, 0, false,
					 TLBGEN_TLB_GENERATION_INVALID);
	if (tlbgen_oracle_on(sys))
		info->flush_id = tlbgen__oracle_new_flush(sys, cpu, TLBGEN_TLB_GENERATION_INVALID,
							  0, TLBGEN_TLB_FLUSH_ALL, true, 0);
	b->inflight = true;
	if (sys->policy.batch_arch == BATCH_ARCH_RISCV) {
		/* __flush_tlb_range(&batch->cpumask, FLUSH_TLB_NO_ASID, 0, FLUSH_TLB_MAX_SIZE) */
		riscv_flush_tlb_range(sys, cpu, b->cpumask, info, NULL);
	} else {
		snap = tlbgen_cpu(sys, cpu)->priv.cfd_mask_ipi;	/* scratch until dispatch */
		cpumask_snapshot(snap, b->cpumask, sys->mask_longs);
		if (bitmap_any_but(snap, sys->nr_cpus, cpu) < sys->nr_cpus) {
			tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_FLUSH_MULTI);
			tlbgen_flush_tlb_multi(sys, cpu, b->cpumask, info);
		} else if (bitmap_test(snap, cpu)) {
			tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_FLUSH_LOCAL_ONLY);
			tlbgen__flush_local(sys, cpu, info);
		} else {
			tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_FLUSH_NONE);
		}
	}
	/* cpumask_clear(&batch->cpumask): the engine took its own snapshot
	 * (riscv: "clear the cpumask once we have flushed the batch"). */
	for (unsigned long i = 0; i < sys->mask_longs; i++)
		atomic_store_explicit(&b->cpumask[i], 0, memory_order_relaxed);
	b->unmapped_pages = false;
	tlbgen__begin_wait(sys, cpu, batch_finish, b);
	return 0;
}

/*
 * flush_tlb_page() of the profile's arch: the unbatched path of
 * ptep_clear_flush(). x86: flush_tlb_mm_range() of one page; arm64: TLBI +
 * DSB; riscv: a one-page __flush_tlb_range() to mm_cpumask via the IPI engine.
 */
int tlbgen__arch_flush_tlb_page(struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_mm *mm, unsigned long addr)
{
	struct tlbgen_flush_tlb_info *info;
	unsigned long start = addr & ~(TLBGEN_PAGE_SIZE - 1);
	uint64_t seq = 0, id = 0;

	switch (sys->policy.batch_arch) {
	case BATCH_ARCH_ARM64:
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_INITIATED);
		if (tlbgen_oracle_on(sys)) {
			seq = atomic_load_explicit(&mm->oracle.seq, memory_order_seq_cst);
			id = tlbgen__oracle_new_flush(sys, cpu, TLBGEN_TLB_GENERATION_INVALID,
						      start, start + TLBGEN_PAGE_SIZE, false, seq);
		}
		arm64_count_tlbi(sys, cpu, mm);
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_DSB);
		arm64_tlbi_complete(sys, mm, start >> TLBGEN_PAGE_SHIFT);
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_PAGES_INVALIDATED);
		if (tlbgen_oracle_on(sys))
			oracle_cover_page(mm, start >> TLBGEN_PAGE_SHIFT, seq, id);
		return 0;
	case BATCH_ARCH_RISCV:
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_INITIATED);
		if (tlbgen_oracle_on(sys))
			seq = atomic_load_explicit(&mm->oracle.seq, memory_order_seq_cst);
		tlbgen_inc_mm_tlb_gen(sys, cpu, mm);	/* model note above */
		info = tlbgen_get_flush_tlb_info(sys, cpu, mm, start, start + TLBGEN_PAGE_SIZE,
						 TLBGEN_PAGE_SHIFT, false,
						 TLBGEN_TLB_GENERATION_INVALID);
		if (tlbgen_oracle_on(sys))
			info->flush_id = tlbgen__oracle_new_flush(sys, cpu,
								  TLBGEN_TLB_GENERATION_INVALID,
								  start, start + TLBGEN_PAGE_SIZE,
								  false, seq);
		info->oracle_seq = seq;
		riscv_flush_tlb_range(sys, cpu, mm->cpu_bitmap, info, mm);
		tlbgen__begin_wait(sys, cpu, tlbgen__finish_flush, info);
		return 0;
	default:
		return tlbgen_flush_tlb_page(sys, cpu, mm, addr);
	}
}

/*
 * arch_flush_tlb_batched_pending(mm). x86 and riscv: flush_tlb_mm(). arm64:
 * flush_tlb_mm() is TLBI ASIDE1IS + DSB, reaching every CPU (4b634918384c);
 * before that commit a DSB only, which completes the TLBIs *this* CPU
 * issued and none of the reclaimer's, although the caller believes the mm
 * flushed (the oracle takes that belief at its word).
 */
int tlbgen__arch_flush_tlb_batched_pending(struct tlbgen_system *sys, unsigned int cpu,
					   struct tlbgen_mm *mm)
{
	uint64_t seq = 0, id = 0;

	if (sys->policy.batch_arch != BATCH_ARCH_ARM64)
		return tlbgen_flush_tlb_mm(sys, cpu, mm);
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_INITIATED);
	if (tlbgen_oracle_on(sys)) {
		seq = atomic_load_explicit(&mm->oracle.seq, memory_order_seq_cst);
		id = tlbgen__oracle_new_flush(sys, cpu, TLBGEN_TLB_GENERATION_INVALID, 0,
					      TLBGEN_TLB_FLUSH_ALL, true, seq);
	}
	if (!sys->policy.batched_pending_dsb) {
		arm64_count_tlbi(sys, cpu, mm);
		arm64_tlbi_complete(sys, mm, ~0UL);
	}
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_DSB);
	if (tlbgen_oracle_on(sys))
		tlbgen__oracle_cover_full(sys, mm, seq, id);
	return 0;
}

TLBGEN_API int tlbgen_tlbbatch__cpumask_weight(const struct tlbgen_tlbbatch *b)
{
	int w = 0;

	if (!b || b->magic != TLBGEN_BATCH_MAGIC)
		return -EINVAL;
	for (unsigned long i = 0; i < b->sys->mask_longs; i++)
		w += __builtin_popcountl(atomic_load_explicit(&b->cpumask[i], memory_order_relaxed));
	return w;
}

TLBGEN_API int tlbgen_tlbbatch__pending_tlbi(const struct tlbgen_tlbbatch *b)
{
	if (!b || b->magic != TLBGEN_BATCH_MAGIC)
		return -EINVAL;
	return (int)b->nr_inval;
}
