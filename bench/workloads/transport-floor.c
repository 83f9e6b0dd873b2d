// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/transport-floor.c - the floor of tlbgen-bench transport: the
 * kernel/smp.c lines of an IPI round trip written bare, with no library
 * around them (a liburcu lfstack and one csd; for a flush also the tlb_gen
 * RMW, the flush_tlb_info line reached through the csd and, for the 6.14+
 * should_flush_tlb(), the read of the target's cpu_tlbstate line). The floor
 * is what this hardware charges for the lines the kernel's layout moves.
 */
#include "transport-floor.h"

/* The out-of-line push, as lib/smp.c uses (the inline one trips UBSan). */
#undef cds_lfs_push
extern bool cds_lfs_push(cds_lfs_stack_ptr_t s, struct cds_lfs_node *node);

/* lfstack publishes through inline asm TSan cannot see; say what it does
 * (the library's smp.c does the same). */
#if defined(__SANITIZE_THREAD__)
#define FLOOR_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FLOOR_TSAN 1
#endif
#endif
#ifdef FLOOR_TSAN
#include <sanitizer/tsan_interface.h>
#define floor_tsan_release(p) __tsan_release((void *)(p))
#define floor_tsan_acquire(p) __tsan_acquire((void *)(p))
#else
#define floor_tsan_release(p) do { } while (0)
#define floor_tsan_acquire(p) do { } while (0)
#endif

void floor_init(struct floor *f)
{
	__cds_lfs_init(&f->llist);
	cds_lfs_node_init(&f->csd.node);
	atomic_init(&f->csd.flags, 0);
	atomic_init(&f->tlb_gen, 0);
	atomic_init(&f->loaded_mm, f);
}

/* The bare flush_tlb_func(): read f and the mm's generation, catch up. */
static void floor_flush_func(struct floor *f, const struct floor_info *info)
{
	unsigned long mm_gen = atomic_load_explicit(&f->tlb_gen, memory_order_relaxed);

	if (info->new_tlb_gen == f->local_tlb_gen + 1 && info->new_tlb_gen == mm_gen &&
	    info->end > info->start)
		f->partial++;
	f->local_tlb_gen = mm_gen;
}

bool floor_poll(struct floor *f)
{
	struct cds_lfs_head *head;
	struct cds_lfs_node *node, *n;

	if (cds_lfs_empty(&f->llist))
		return false;
	head = __cds_lfs_pop_all(&f->llist);
	floor_tsan_acquire(&f->llist);
	if (!head)
		return true;
	/* One initiator, one csd: nothing to reverse. */
	cds_lfs_for_each_safe(head, node, n)
	{
		struct floor_csd *csd = caa_container_of(node, struct floor_csd, node);

		__builtin_prefetch(csd, 1, 3);
		if (csd->info)
			floor_flush_func(f, csd->info);
		atomic_store_explicit(&csd->flags, 0, memory_order_release);
	}
	return true;
}

/* Under latest, should_flush_tlb() also reads the target's loaded_mm. */
void floor_call(struct floor *f, enum transport_kind kind, bool oversub)
{
	if (kind != K_IPI) {
		unsigned long gen = atomic_fetch_add(&f->tlb_gen, 1) + 1;

		f->info.start = 0;
		f->info.end = TLBGEN_PAGE_SIZE;
		f->info.new_tlb_gen = gen;
		if (kind == K_FLUSH_LATEST &&
		    !atomic_load_explicit(&f->loaded_mm, memory_order_relaxed))
			return;
	}
	while (atomic_load_explicit(&f->csd.flags, memory_order_acquire))
		transport_relax(oversub);
	atomic_store_explicit(&f->csd.flags, 1, memory_order_relaxed);
	f->csd.info = kind != K_IPI ? &f->info : NULL;
	floor_tsan_release(&f->llist);
	cds_lfs_push(&f->llist, &f->csd.node);
	while (atomic_load_explicit(&f->csd.flags, memory_order_acquire))
		transport_relax(oversub);
}
