// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/arch/x86/mm/global_asid.c - AMD broadcast TLB invalidation in
 * arch/x86/mm/tlb.c (Rik van Riel's series, v6.15): the global ASID space
 * (d504d1247e36), consider_global_asid() (4afeb0ed1753),
 * mm_free_global_asid() at mm teardown (c9826613a9cb), and INVLPGB and
 * TLBSYNC (b7aa05cbdc52); broadcast_tlb_flush() is in flush.c.
 *
 * INVLPGB is posted: each one this CPU issues waits in its ring until its
 * TLBSYNC, and only then leaves every CPU's simulated TLB (the latest legal
 * completion, as arm64's TLBI before its DSB). A flush whose initiator
 * returned without TLBSYNC leaves them in place, and the oracle sees it.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "../../../base/printk.h"
#include "../../../core/access.h"
#include "../../../core/clock.h"
#include "../../../observers/cost.h"
#include "../../../observers/simtlb.h"
#include "tlb.h"

/* MAX_ASID_AVAILABLE with 12 PCID bits and no PTI (INVLPGB needs !PTI). */
#define MAX_ASID_AVAILABLE	((1U << 12) - 2)

/* ---- INVLPGB and TLBSYNC (asm/tlb.h) ---------------------------------------- */

static void invlpgb_complete(struct tlbgen_system *sys, unsigned int cpu,
			     const struct tlbgen_invlpgb_op *op)
{
	tlbgen__tlb_broadcast_asid(sys, cpu, op->asid, op->first_vpn, op->last_vpn, op->all);
}

/* The ring of `cpu`: an INVLPGB is queued, a full ring completes its oldest. */
static void invlpgb_queue(struct tlbgen_system *sys, unsigned int cpu,
			  const struct tlbgen_invlpgb_op *op)
{
	struct tlbgen_invlpgb_ring *r = tlbgen__cpu(sys, cpu)->priv.invlpgb;

	if (r->nr == TLBGEN_INVLPGB_PENDING) {
		invlpgb_complete(sys, cpu, &r->op[r->head]);
		r->head = (r->head + 1) % TLBGEN_INVLPGB_PENDING;
		r->nr--;
	}
	r->op[(r->head + r->nr++) % TLBGEN_INVLPGB_PENDING] = *op;
}

/* __invlpgb(): queued, not complete. */
void tlbgen__invlpgb_post(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			 uint16_t asid, unsigned long first_vpn, unsigned long last_vpn, bool all)
{
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_INVLPGB);
	tlbgen__cost_charge(sys, cpu, TLBGEN_COST_INVLPGBS, 1);
	invlpgb_queue(sys, cpu, &(struct tlbgen_invlpgb_op){
		.asid = asid, .all = all, .first_vpn = first_vpn, .last_vpn = last_vpn,
	});
}

/* The ring's effect on every CPU: what a TLBSYNC waits for. */
static void invlpgb_drain(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_invlpgb_ring *r = tlbgen__cpu(sys, cpu)->priv.invlpgb;

	for (; r->nr; r->nr--, r->head = (r->head + 1) % TLBGEN_INVLPGB_PENDING)
		invlpgb_complete(sys, cpu, &r->op[r->head]);
}

/* A TLBSYNC's count and cost; false where the no-tlbsync kernel issues none. */
static bool tlbsync_account(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm)
{
	if (sys->profile.invlpgb == INVLPGB_NO_TLBSYNC)
		return false;
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_TLBSYNC);
	tlbgen__cost_charge(sys, cpu, TLBGEN_COST_TLBSYNCS, 1);
	return true;
}

/* __tlbsync(): every INVLPGB this CPU issued has completed on every CPU. */
void tlbgen__tlbsync(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm)
{
	if (tlbsync_account(sys, cpu, mm))
		invlpgb_drain(sys, cpu);
}

/* invlpgb_flush_all_nonglobals(): every PCID, global pages kept, synced. */
void tlbgen__invlpgb_flush_all_nonglobals(struct tlbgen_system *sys, unsigned int cpu)
{
	tlbgen__invlpgb_post(sys, cpu, NULL, TLBGEN_ASID_ALL_USER, 0, 0, true);
	tlbgen__tlbsync(sys, cpu, NULL);
}

/* ---- the global ASID space (d504d1247e36) -------------------------------------- */

int tlbgen__global_asid_init(struct tlbgen_system *sys, unsigned int nr, unsigned int count_max)
{
	struct tlbgen_global_asids *g = &sys->gasid;
	unsigned long longs;

	/* global_asid_available = MAX_ASID_AVAILABLE - TLB_NR_DYN_ASIDS - 1. */
	g->available = nr ? (int)nr : (int)(MAX_ASID_AVAILABLE - TLBGEN_TLB_NR_DYN_ASIDS - 1);
	g->max = (unsigned int)g->available + TLBGEN_TLB_NR_DYN_ASIDS + 1;
	/* last_global_asid = MAX_ASID_AVAILABLE: the first allocation resets. */
	g->last = g->max;
	g->count_max = count_max ? count_max : 8;
	/* From here on g->max is set: a failure below is undone by
	 * tlbgen__global_asid_destroy(), which destroys the lock. */
	pthread_mutex_init(&g->lock, NULL);
	/* Bit max too: allocate_global_asid() can hand out MAX_ASID_AVAILABLE
	 * itself, which the kernel's bitmap has room for in its last long. */
	longs = g->max / TLBGEN_BITS_PER_LONG + 1;
	g->used = calloc(longs, sizeof(unsigned long));
	g->freed = calloc(longs, sizeof(unsigned long));
	if (!g->used || !g->freed)
		return -ENOMEM;
	for (unsigned int cpu = 0; cpu < sys->nr_cpus; cpu++) {
		tlbgen__cpu(sys, cpu)->priv.invlpgb =
			tlbgen__cpu_alloc(sys, cpu, sizeof(struct tlbgen_invlpgb_ring));
		if (!tlbgen__cpu(sys, cpu)->priv.invlpgb)
			return -ENOMEM;
	}
	return 0;
}

void tlbgen__global_asid_destroy(struct tlbgen_system *sys)
{
	struct tlbgen_global_asids *g = &sys->gasid;

	if (!g->max)
		return;
	free(g->used);
	free(g->freed);
	pthread_mutex_destroy(&g->lock);
	g->max = 0;
}

/*
 * reset_global_asid_space(): at the wrap, invlpgb_flush_all_nonglobals()
 * makes the ASIDs freed since the last one safe to hand out again. Its
 * INVLPGB and TLBSYNC are charged by the caller, after the lock; without
 * TLBSYNC (no-tlbsync) the INVLPGB stays queued as any other.
 */
static void reset_global_asid_space(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_global_asids *g = &sys->gasid;
	const struct tlbgen_invlpgb_op all_user = { .asid = TLBGEN_ASID_ALL_USER, .all = true };

	if (sys->profile.invlpgb == INVLPGB_NO_TLBSYNC)
		invlpgb_queue(sys, cpu, &all_user);
	else
		invlpgb_complete(sys, cpu, &all_user);
	for (unsigned int i = 0; i < g->max; i++) {
		if (bitmap_test(g->freed, i)) {
			bitmap_clear_bit(g->used, i);
			bitmap_clear_bit(g->freed, i);
		}
	}
	/* bitmap_andnot() of MAX_ASID_AVAILABLE bits clears the tail of its
	 * last long: ASID max is "free" again even if an mm still holds it. */
	bitmap_clear_bit(g->used, g->max);
	g->last = TLBGEN_TLB_NR_DYN_ASIDS;
}

/*
 * allocate_global_asid() (d504d1247e36), under the lock. The scan starts at
 * last_global_asid and only a wrap reclaims what was freed below it. Its
 * "should never happen" return tests !global_asid_available, which
 * use_global_asid() already ruled out: when nothing is free from `last`
 * up, the kernel (v6.15..v6.18) takes find_next_zero_bit()'s "none",
 * MAX_ASID_AVAILABLE, as the ASID; last_global_asid = MAX_ASID_AVAILABLE
 * then makes the next allocation wrap.
 */
static uint16_t allocate_global_asid(struct tlbgen_system *sys, unsigned int cpu, bool *reset)
{
	struct tlbgen_global_asids *g = &sys->gasid;
	unsigned int asid;

	if (g->last >= g->max - 1) {
		reset_global_asid_space(sys, cpu);
		*reset = true;
	}
	for (asid = g->last; asid < g->max && bitmap_test(g->used, asid); asid++)
		;
	bitmap_set(g->used, asid);
	g->last = asid;
	g->available--;
	return (uint16_t)asid;
}

/* use_global_asid(): once per mm, racing threads serialised by the lock. */
static void use_global_asid(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm)
{
	struct tlbgen_global_asids *g = &sys->gasid;
	bool reset = false;
	uint16_t asid = 0;

	pthread_mutex_lock(&g->lock);
	/* A VM_WARN_ONCE ("Ran out of global ASIDs") only under DEBUG_VM:
	 * the mm keeps its per-CPU ASIDs and IPIs. */
	if (!tlbgen__mm_global_asid(sys, mm) && g->available) {
		asid = allocate_global_asid(sys, cpu, &reset);
		if (asid)
			tlbgen__mm_assign_global_asid(mm, asid);
	}
	pthread_mutex_unlock(&g->lock);
	if (reset) {
		tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_INVLPGB);
		tlbgen__cost_charge(sys, cpu, TLBGEN_COST_INVLPGBS, 1);
		tlbsync_account(sys, cpu, NULL);
	}
	if (asid)
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_GLOBAL_ASID_ASSIGNED);
}

/* mm_free_global_asid() (destroy_context(), c9826613a9cb): reusable only
 * after the flush at the next wrap. */
void tlbgen__mm_free_global_asid(struct tlbgen_system *sys, struct tlbgen_mm *mm)
{
	struct tlbgen_global_asids *g = &sys->gasid;
	uint16_t asid;

	if (!g->max)
		return;
	pthread_mutex_lock(&g->lock);
	asid = tlbgen__mm_take_global_asid(mm);
	if (asid) {
		bitmap_set(g->freed, asid);
		g->available++;
	}
	pthread_mutex_unlock(&g->lock);
}

/* ---- who gets one (4afeb0ed1753) ------------------------------------------------ */

/* mm_active_cpus_exceeds(): the cheap weight test, then CPUs that really
 * run the mm (loaded and not lazy). */
static bool mm_active_cpus_exceeds(struct tlbgen_system *sys, unsigned int cpu,
				   struct tlbgen_mm *mm, unsigned int threshold)
{
	unsigned int count = 0;

	if (tlbgen__mm_cpumask_weight(sys, cpu, mm) <= threshold)
		return false;
	for (unsigned int t = 0; t < sys->nr_cpus; t++) {
		if (!cpumask_test_cpu(t, mm->cpu_bitmap))
			continue;
		if (tlbgen__remote_loaded_mm(sys, cpu, t) != mm)
			continue;
		if (tlbgen__remote_is_lazy(sys, cpu, t))
			continue;
		if (++count > threshold)
			return true;
	}
	return false;
}

/*
 * consider_global_asid(), after an IPI flush: "every once in a while" is
 * when current->pid matches jiffies in the low 5 bits; the model's task on
 * CPU n has pid n. Then an mm active on 4 or more CPUs gets a global ASID.
 */
void tlbgen__consider_global_asid(struct tlbgen_system *sys, unsigned int cpu,
				  struct tlbgen_mm *mm)
{
	if (!tlbgen__invlpgb_on(sys))
		return;
	if ((cpu & 0x1f) != (tlbgen__jiffies(sys) & 0x1f))
		return;
	if (mm_active_cpus_exceeds(sys, cpu, mm, 3))
		use_global_asid(sys, cpu, mm);
}

/* mm_needs_global_asid(): the mm has a global ASID this CPU does not use yet. */
bool tlbgen__mm_needs_global_asid(struct tlbgen_system *sys, struct tlbgen_mm *mm,
				  uint16_t asid)
{
	uint16_t global_asid = tlbgen__mm_global_asid(sys, mm);

	return global_asid && asid != global_asid;
}
