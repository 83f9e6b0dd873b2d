// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/tlbbatch.c - struct arch_tlbflush_unmap_batch and the x86
 * arch_tlbbatch_add_pending() / arch_tlbbatch_flush().
 *
 * Why mm == NULL and a full flush suffice: add_pending bumped every
 * affected mm's tlb_gen, so each target that runs one of them sees
 * local_tlb_gen < mm_tlb_gen and flushes fully (a generation-0 request
 * never early-returns, since 8f1d56f64f8d), and a CPU that only caches
 * one in another ASID slot catches up in choose_new_asid().
 */
#include "internal.h"

struct tlbgen_batch_cover {
	struct tlbgen_mm *mm;
	uint64_t seq;		/* oracle: the mm's change seq when the page was added */
};

struct tlbgen_tlbbatch {
	uint32_t magic;
	struct tlbgen_system *sys;
	bool unmapped_pages;
	bool inflight;
	unsigned int nr_cover, cap_cover;
	struct tlbgen_batch_cover *cover;
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
		atomic_fetch_sub(&b->cover[i].mm->priv.inflight, 1);
	b->magic = 0;
	free(b->cover);
	free(b);
	return 0;
}

static int batch_check(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_tlbbatch *b)
{
	int err = tlbgen__check_op(sys, cpu);

	if (err)
		return err;
	if (!b || b->magic != TLBGEN_BATCH_MAGIC || b->sys != sys)
		return -EINVAL;
	return b->inflight ? -EBUSY : 0;
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
	atomic_fetch_add(&mm->priv.inflight, 1);
	return 0;
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
	seq = atomic_load_explicit(&mm->oracle.seq, memory_order_seq_cst);
	err = batch_note_cover(b, mm, seq);
	if (err)
		return err;
	tlbgen_inc_mm_tlb_gen(sys, cpu, mm);
	/* cpumask_or(&batch->cpumask, &batch->cpumask, mm_cpumask(mm)) */
	for (unsigned long i = 0; i < sys->mask_longs; i++) {
		unsigned long w = atomic_load_explicit(&mm->cpu_bitmap[i], memory_order_relaxed);

		tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_CPUMASK, &mm->cpu_bitmap[i],
				   TLBGEN_OP_READ);
		atomic_fetch_or_explicit(&b->cpumask[i], w, memory_order_relaxed);
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
		atomic_fetch_sub_explicit(&b->cover[i].mm->priv.inflight, 1,
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
	tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_FLUSH_INITIATED);
	info = tlbgen_get_flush_tlb_info(sys, cpu, NULL, 0, TLBGEN_TLB_FLUSH_ALL, 0, false,
					 TLBGEN_TLB_GENERATION_INVALID);
	if (tlbgen_oracle_on(sys))
		info->flush_id = tlbgen__oracle_new_flush(sys, cpu, TLBGEN_TLB_GENERATION_INVALID,
							  0, TLBGEN_TLB_FLUSH_ALL, true, 0);
	b->inflight = true;
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
	/* cpumask_clear(&batch->cpumask): the engine took its own snapshot. */
	for (unsigned long i = 0; i < sys->mask_longs; i++)
		atomic_store_explicit(&b->cpumask[i], 0, memory_order_relaxed);
	b->unmapped_pages = false;
	tlbgen__begin_wait(sys, cpu, batch_finish, b);
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
