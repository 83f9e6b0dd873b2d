// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/observers/oracle.c - the stale-translation oracle.
 *
 * Ground truth that does not look at generations:
 *  - every PTE change gets a sequence number from its mm (seq);
 *  - a flush records the mm's seq when it starts (before inc_mm_tlb_gen, so
 *    every change "made, then tlb_gen incremented, then flushed" is <= it);
 *  - when the flush returns to its initiator, the pages it was asked to
 *    cover (or the whole mm, for a full or batch flush) are "covered" up to
 *    that start seq;
 *  - a TLB entry filled from version v is a violation when used after the
 *    change that superseded v (the first change > v) is covered.
 * Each PTE remembers its last four change seqs; an entry older than that
 * is judged by the oldest one kept (it can only under-report).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "../base/printk.h"
#include "../core/access.h"
#include "../core/check.h"
#include "../core/stats.h"
#include "oracle.h"

static void atomic_max_u64(_Atomic uint64_t *a, uint64_t v, _Atomic uint64_t *id, uint64_t idv)
{
	uint64_t cur = atomic_load_explicit(a, memory_order_relaxed);

	while (cur < v) {
		if (atomic_compare_exchange_weak_explicit(a, &cur, v, memory_order_release,
							  memory_order_relaxed)) {
			atomic_store_explicit(id, idv, memory_order_relaxed);
			return;
		}
	}
}

TLBGEN_API int tlbgen_pte_change(struct tlbgen_system *sys, unsigned int cpu,
				 struct tlbgen_mm *mm, unsigned long addr)
{
	unsigned long vpn = addr >> TLBGEN_PAGE_SHIFT;
	struct tlbgen_pte *p;
	uint64_t seq;

	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus || !tlbgen__mm_valid(sys, mm) ||
	    mm == sys->init_mm || vpn >= mm->priv.nr_pages)
		return -EINVAL;
	p = &mm->priv.ptes[vpn];
	tlbgen__pte_lock(p);
	seq = atomic_fetch_add_explicit(&mm->oracle.seq, 1, memory_order_seq_cst) + 1;
	p->ring[p->ring_pos++ % ARRAY_SIZE(p->ring)] = seq;
	atomic_store_explicit(&p->version, seq, memory_order_release);
	tlbgen__pte_unlock(p);
	return 0;
}

/* The record slot of flush `id` (it may since hold a newer flush of that CPU). */
static struct tlbgen_flush_rec *flush_rec(const struct tlbgen_system *sys, uint64_t id)
{
	uint64_t cpu = (id >> TLBGEN_FLUSH_ID_SHIFT) - 1;

	return &sys->flush_recs[cpu * TLBGEN_FLUSH_REC_PER_CPU +
				(id & ((1ULL << TLBGEN_FLUSH_ID_SHIFT) - 1)) %
					TLBGEN_FLUSH_REC_PER_CPU];
}

/*
 * The page walk's read of a PTE version, under the PTE lock: a change takes
 * its seq and publishes its version under that lock, so a walk can never
 * see the old version of a change that a concurrent flush already counts as
 * covered (that would be a false violation).
 */
uint64_t tlbgen__oracle_walk(struct tlbgen_mm *mm, unsigned long vpn)
{
	struct tlbgen_pte *p = &mm->priv.ptes[vpn];
	uint64_t v;

	tlbgen__pte_lock(p);
	v = atomic_load_explicit(&p->version, memory_order_relaxed);
	tlbgen__pte_unlock(p);
	return v;
}

void tlbgen__oracle_flush_begin(struct tlbgen_system *sys, struct tlbgen_mm *mm,
				struct tlbgen_oracle_flush *of)
{
	of->seq = tlbgen__oracle_on(sys) ? tlbgen__oracle_seq(mm) : 0;
	of->id = 0;
}

uint64_t tlbgen__oracle_seq(struct tlbgen_mm *mm)
{
	return atomic_load_explicit(&mm->oracle.seq, memory_order_seq_cst);
}

void tlbgen__oracle_flush_number(struct tlbgen_system *sys, unsigned int cpu,
				 struct tlbgen_oracle_flush *of, uint64_t new_tlb_gen,
				 unsigned long start, unsigned long end, bool full)
{
	uint64_t n, id;

	if (!tlbgen__oracle_on(sys))
		return;
	n = ++tlbgen__cpu(sys, cpu)->priv.nr_flush_recs;
	id = ((uint64_t)(cpu + 1) << TLBGEN_FLUSH_ID_SHIFT) |
	     (n & ((1ULL << TLBGEN_FLUSH_ID_SHIFT) - 1));
	*flush_rec(sys, id) = (struct tlbgen_flush_rec){
		.id = id, .start_seq = of->seq, .new_tlb_gen = new_tlb_gen,
		.start = start, .end = end, .cpu = cpu, .full = full,
	};
	of->id = id;
}

void tlbgen__oracle_cover_full(struct tlbgen_system *sys, struct tlbgen_mm *mm, uint64_t seq,
			       uint64_t id)
{
	if (tlbgen__oracle_on(sys))
		atomic_max_u64(&mm->oracle.full_covered, seq, &mm->oracle.full_covered_id, id);
}

void tlbgen__oracle_cover_page(struct tlbgen_system *sys, struct tlbgen_mm *mm,
			       unsigned long vpn, uint64_t seq, uint64_t id)
{
	struct tlbgen_pte *p = &mm->priv.ptes[vpn];

	if (tlbgen__oracle_on(sys))
		atomic_max_u64(&p->covered, seq, &p->covered_id, id);
}

void tlbgen__oracle_flush_end(struct tlbgen_system *sys, struct tlbgen_mm *mm,
			      const struct tlbgen_oracle_flush *of)
{
	struct tlbgen_flush_rec *r;

	if (!tlbgen__oracle_on(sys) || !of->id || !mm)
		return;
	r = flush_rec(sys, of->id);
	/* Record overwritten by newer flushes: claim nothing (never over-report). */
	if (r->id != of->id)
		return;
	if (r->full) {
		tlbgen__oracle_cover_full(sys, mm, of->seq, of->id);
		return;
	}
	for (unsigned long vpn = r->start >> TLBGEN_PAGE_SHIFT;
	     vpn < mm->priv.nr_pages && (vpn << TLBGEN_PAGE_SHIFT) < r->end; vpn++)
		tlbgen__oracle_cover_page(sys, mm, vpn, of->seq, of->id);
}

static void tlbgen__oracle_record(struct tlbgen_system *sys, const struct tlbgen_violation *v)
{
	long n = atomic_fetch_add_explicit(&sys->nr_violations, 1, memory_order_relaxed);
	char buf[512];

	if (n < TLBGEN_VIOLATIONS_KEPT) {
		pthread_mutex_lock(&sys->lock);
		sys->violations[n] = *v;
		pthread_mutex_unlock(&sys->lock);
	}
	tlbgen_oracle__format(v, buf, sizeof(buf));
	tlbgen__pr(TLBGEN_DEBUG, "tlbgen: %s\n", buf);
}

static void tlbgen__fill_violation(struct tlbgen_system *sys, unsigned int cpu,
				   struct tlbgen_mm *mm, unsigned long vpn,
				   uint64_t entry_version, uint64_t flush_id,
				   struct tlbgen_violation *v)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	const struct tlbgen_flush_rec *r = flush_id ? flush_rec(sys, flush_id) : NULL;
	uint16_t asid = tlbgen__this_loaded_mm_asid(sys, cpu);

	*v = (struct tlbgen_violation){
		.cpu = cpu,
		.ctx_id = mm->context.ctx_id,
		.addr = vpn << TLBGEN_PAGE_SHIFT,
		.entry_version = entry_version,
		.pte_version = atomic_load_explicit(&mm->priv.ptes[vpn].version,
						    memory_order_relaxed),
		.local_tlb_gen = tlbgen__is_global_asid(asid) ? 0 : c->tlbstate.ctxs[asid].tlb_gen,
		.mm_tlb_gen = atomic_load_explicit(&mm->context.tlb_gen, memory_order_relaxed),
		.flush_id = flush_id,
	};
	if (r && r->id == flush_id) {
		v->flush_cpu = r->cpu;
		v->flush_new_tlb_gen = r->new_tlb_gen;
		v->flush_start = r->start;
		v->flush_end = r->end;
		v->flush_full = r->full;
	}
}

bool tlbgen__oracle_check(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			  unsigned long vpn, uint64_t entry_version, bool record)
{
	struct tlbgen_pte *p = &mm->priv.ptes[vpn];
	uint64_t s1 = UINT64_MAX, range, full, id;
	struct tlbgen_violation v;

	if (atomic_load_explicit(&p->version, memory_order_acquire) <= entry_version)
		return false;
	/* The change that made the entry stale: the first one after it. */
	tlbgen__pte_lock(p);
	for (unsigned int i = 0; i < ARRAY_SIZE(p->ring); i++)
		if (p->ring[i] > entry_version && p->ring[i] < s1)
			s1 = p->ring[i];
	tlbgen__pte_unlock(p);

	range = atomic_load_explicit(&p->covered, memory_order_acquire);
	full = atomic_load_explicit(&mm->oracle.full_covered, memory_order_acquire);
	if (range >= s1)
		id = atomic_load_explicit(&p->covered_id, memory_order_relaxed);
	else if (full >= s1)
		id = atomic_load_explicit(&mm->oracle.full_covered_id, memory_order_relaxed);
	else
		return false;	/* no flush covering that change has returned yet */
	if (record) {
		tlbgen__fill_violation(sys, cpu, mm, vpn, entry_version, id, &v);
		tlbgen__oracle_record(sys, &v);
	}
	return true;
}

bool tlbgen__oracle_foreign(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			    unsigned long vpn, uint64_t ctx_id, uint64_t entry_version)
{
	struct tlbgen_violation v;

	tlbgen__fill_violation(sys, cpu, mm, vpn, entry_version, 0, &v);
	v.ctx_id = ctx_id;
	tlbgen__oracle_record(sys, &v);
	return true;
}

TLBGEN_API long tlbgen_oracle__violations(const struct tlbgen_system *sys)
{
	if (!tlbgen__sys_valid(sys))
		return -EINVAL;
	return atomic_load_explicit(&sys->nr_violations, memory_order_relaxed);
}

TLBGEN_API int tlbgen_oracle__violation(const struct tlbgen_system *sys, unsigned int i,
					struct tlbgen_violation *out)
{
	struct tlbgen_system *s = (struct tlbgen_system *)sys;

	if (!tlbgen__sys_valid(sys) || !out)
		return -EINVAL;
	if (i >= TLBGEN_VIOLATIONS_KEPT ||
	    (long)i >= atomic_load_explicit(&s->nr_violations, memory_order_relaxed))
		return -ENOENT;
	pthread_mutex_lock(&s->lock);
	*out = s->violations[i];
	pthread_mutex_unlock(&s->lock);
	return 0;
}

TLBGEN_API int tlbgen_oracle__format(const struct tlbgen_violation *v, char *buf, size_t len)
{
	char flush[192];

	if (!v || (!buf && len))
		return -EINVAL;
	if (!v->flush_id)
		snprintf(flush, sizeof(flush),
			 "the ASID slot still holds a translation of another mm (ctx %" PRIu64 ")",
			 v->ctx_id);
	else if (v->flush_full)
		snprintf(flush, sizeof(flush),
			 "full flush #%" PRIu64 " of cpu %u (new_tlb_gen %" PRIu64
			 ") returned without removing it",
			 (uint64_t)(v->flush_id & ((1ULL << TLBGEN_FLUSH_ID_SHIFT) - 1)), v->flush_cpu,
			 v->flush_new_tlb_gen);
	else
		snprintf(flush, sizeof(flush),
			 "flush #%" PRIu64 " of cpu %u (new_tlb_gen %" PRIu64
			 ", range 0x%lx-0x%lx) returned without removing it",
			 (uint64_t)(v->flush_id & ((1ULL << TLBGEN_FLUSH_ID_SHIFT) - 1)), v->flush_cpu,
			 v->flush_new_tlb_gen, v->flush_start,
			 v->flush_end);
	return snprintf(buf, len,
			"stale TLB: cpu %u used addr 0x%lx of mm ctx %" PRIu64
			" from PTE version %" PRIu64 " (page table has %" PRIu64
			"); cpu %u local_tlb_gen %" PRIu64 ", mm tlb_gen %" PRIu64 "; %s",
			v->cpu, v->addr, v->ctx_id, v->entry_version, v->pte_version, v->cpu,
			v->local_tlb_gen, v->mm_tlb_gen, flush);
}

TLBGEN_API int tlbgen_oracle__reset(struct tlbgen_system *sys)
{
	if (!tlbgen__sys_valid(sys))
		return -EINVAL;
	if (tlbgen__stats_busy(sys))
		return -EBUSY;
	atomic_store(&sys->nr_violations, 0);
	return 0;
}
