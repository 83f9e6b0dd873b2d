// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/observers/simtlb.c - the simulated TLB of each emulated CPU: a set-associative
 * array of (ASID, page) entries with LRU replacement. Entries remember the
 * ctx_id and the PTE version they were filled from; the oracle (oracle.c)
 * judges them. Only the owning CPU touches its TLB (flush callbacks run on
 * the target), except a TLBSYNC, which completes INVLPGBs on every CPU:
 * on a threaded system with INVLPGB each TLB takes a lock for it.
 */
#include <errno.h>
#include <sched.h>

#include "../core/access.h"
#include "../core/check.h"
#include "../core/irqflags.h"
#include "../core/this_cpu.h"
#include "cost.h"
#include "oracle.h"
#include "simtlb.h"

struct tlbgen_tlb_entry {
	unsigned long vpn;
	uint64_t version;
	uint64_t ctx_id;
	uint32_t lru;
	uint16_t asid;
	uint8_t valid;
};

/*
 * has[b * set_words + w], bit s % 64 of word s / 64: set s may hold a valid
 * entry of an ASID in bucket b (asid % TLB_BUCKETS). A superset: a fill
 * sets the bit, only a flush of the ASID that scans the set clears it. A
 * full flush of one ASID (flush_tlb_local(), a flushing CR3 write: tens a
 * shootdown) then visits the sets that hold it, not the whole array.
 */
#define TLB_BUCKETS	16

struct tlbgen_simtlb {
	atomic_uint lock;	/* threaded with INVLPGB only */
	unsigned int sets, ways, set_words;
	uint32_t tick;
	uint64_t *has;		/* TLB_BUCKETS * set_words words, after e[] */
	struct tlbgen_tlb_entry e[];
};

int tlbgen__simtlb_init(struct tlbgen_system *sys, unsigned int cpu)
{
	size_t n = (size_t)sys->tlb_sets * sys->tlb_ways;
	unsigned int words = (sys->tlb_sets + 63) / 64;
	struct tlbgen_simtlb *t;

	if (!tlbgen__oracle_on(sys))
		return 0;
	/* The CPU's own, on its node, away from other CPUs' lines. */
	t = tlbgen__cpu_alloc(sys, cpu, sizeof(*t) + n * sizeof(t->e[0]) +
					       (size_t)TLB_BUCKETS * words * sizeof(uint64_t));
	if (!t)
		return -ENOMEM;
	t->sets = sys->tlb_sets;
	t->ways = sys->tlb_ways;
	t->set_words = words;
	t->has = (uint64_t *)&t->e[n];
	tlbgen__cpu(sys, cpu)->priv.tlb = t;
	return 0;
}

void tlbgen__simtlb_free(struct tlbgen_system *sys, unsigned int cpu)
{
	/* The block itself goes with the system's arena. */
	tlbgen__cpu(sys, cpu)->priv.tlb = NULL;
}

static bool tlb_locking(const struct tlbgen_system *sys)
{
	/* A TLBSYNC or a hypervisor's flush edits other CPUs' TLBs. */
	return (sys->invlpgb || sys->profile.pv_flush >= PV_FLUSH_HYPERV) &&
	       sys->mode == TLBGEN_MODE_THREADED;
}

/* Held with IRQs off (a signal IPI's flush takes its own TLB's lock). */
static void tlb_lock(const struct tlbgen_system *sys, struct tlbgen_simtlb *t)
{
	unsigned int spins = 0;

	if (!tlb_locking(sys))
		return;
	while (atomic_exchange_explicit(&t->lock, 1, memory_order_acquire))
		if (++spins % 64 == 0)
			sched_yield();
}

static void tlb_unlock(const struct tlbgen_system *sys, struct tlbgen_simtlb *t)
{
	if (tlb_locking(sys))
		atomic_store_explicit(&t->lock, 0, memory_order_release);
}

static unsigned int tlb_set(const struct tlbgen_simtlb *t, uint16_t asid, unsigned long vpn)
{
	uint64_t h = (vpn ^ ((uint64_t)asid << 40)) * 0x9E3779B97F4A7C15ULL;

	return (unsigned int)((h >> 32) % t->sets);
}

static struct tlbgen_tlb_entry *tlb_lookup(struct tlbgen_simtlb *t, uint16_t asid,
					   unsigned long vpn)
{
	struct tlbgen_tlb_entry *set = &t->e[(size_t)tlb_set(t, asid, vpn) * t->ways];

	for (unsigned int w = 0; w < t->ways; w++)
		if (set[w].valid && set[w].asid == asid && set[w].vpn == vpn)
			return &set[w];
	return NULL;
}

static void tlb_fill(struct tlbgen_simtlb *t, uint16_t asid, unsigned long vpn,
		     uint64_t ctx_id, uint64_t version)
{
	unsigned int s = tlb_set(t, asid, vpn);
	struct tlbgen_tlb_entry *set = &t->e[(size_t)s * t->ways];
	struct tlbgen_tlb_entry *victim = &set[0];

	t->has[(size_t)(asid % TLB_BUCKETS) * t->set_words + s / 64] |= 1ULL << (s % 64);

	for (unsigned int w = 0; w < t->ways; w++) {
		if (!set[w].valid) {
			victim = &set[w];
			break;
		}
		if (set[w].lru < victim->lru)
			victim = &set[w];
	}
	*victim = (struct tlbgen_tlb_entry){
		.vpn = vpn, .version = version, .ctx_id = ctx_id,
		.lru = ++t->tick, .asid = asid, .valid = 1,
	};
}

/* Every entry of `asid`, in the sets that may hold one; a set left with no
 * valid entry of the bucket is taken off its list. */
static void tlb_flush_all_asid(struct tlbgen_simtlb *t, uint16_t asid)
{
	uint64_t *has = &t->has[(size_t)(asid % TLB_BUCKETS) * t->set_words];

	for (unsigned int w = 0; w < t->set_words; w++) {
		for (uint64_t bits = has[w]; bits; bits &= bits - 1) {
			unsigned int s = w * 64 + (unsigned int)__builtin_ctzll(bits);
			struct tlbgen_tlb_entry *set = &t->e[(size_t)s * t->ways];
			bool left = false;

			for (unsigned int i = 0; i < t->ways; i++) {
				if (set[i].asid == asid)
					set[i].valid = 0;
				left |= set[i].valid && set[i].asid % TLB_BUCKETS == asid % TLB_BUCKETS;
			}
			if (!left)
				has[w] &= ~(1ULL << (s % 64));
		}
	}
}

/* flush_tlb_local() / a flushing CR3 load: every entry of one ASID. */
void tlbgen__tlb_flush_asid(struct tlbgen_system *sys, unsigned int cpu, uint16_t asid)
{
	struct tlbgen_simtlb *t = tlbgen__cpu(sys, cpu)->priv.tlb;

	/* Cost model: the CPU executing the flush pays for it (lib/cost.c). */
	tlbgen__cost_charge(sys, cpu, TLBGEN_COST_FULL_FLUSHES, 1);
	if (!t)
		return;
	tlb_lock(sys, t);
	tlb_flush_all_asid(t, asid);
	tlb_unlock(sys, t);
}

static void tlb_flush_range(struct tlbgen_simtlb *t, uint16_t asid, unsigned long first,
			    unsigned long last)
{
	if (last - first >= (unsigned long)t->sets * t->ways) {
		for (size_t i = 0; i < (size_t)t->sets * t->ways; i++)
			if (t->e[i].asid == asid && t->e[i].vpn >= first && t->e[i].vpn <= last)
				t->e[i].valid = 0;
		return;
	}
	for (unsigned long vpn = first;; vpn++) {
		struct tlbgen_tlb_entry *e = tlb_lookup(t, asid, vpn);

		if (e)
			e->valid = 0;
		if (vpn == last)
			break;
	}
}

/* flush_tlb_one_user(addr): an INVLPG of one stride-sized translation. */
void tlbgen__tlb_flush_one(struct tlbgen_system *sys, unsigned int cpu, uint16_t asid,
			   unsigned long addr, unsigned int shift)
{
	struct tlbgen_simtlb *t = tlbgen__cpu(sys, cpu)->priv.tlb;
	unsigned long first = addr >> TLBGEN_PAGE_SHIFT;

	tlbgen__cost_charge(sys, cpu, TLBGEN_COST_INV_PAGES, 1);
	if (!t)
		return;
	tlb_lock(sys, t);
	tlb_flush_range(t, asid, first, first + (1UL << (shift - TLBGEN_PAGE_SHIFT)) - 1);
	tlb_unlock(sys, t);
}

/* A hardware-broadcast invalidation (tlbie, TLBI IS): the issuer pays, not us. */
void tlbgen__tlb_invalidate_nocost(struct tlbgen_system *sys, unsigned int cpu, uint16_t asid,
				   unsigned long first_vpn, unsigned long last_vpn, bool all)
{
	struct tlbgen_simtlb *t = tlbgen__cpu(sys, cpu)->priv.tlb;

	if (!t)
		return;
	tlb_lock(sys, t);
	if (all)
		tlb_flush_all_asid(t, asid);
	else
		tlb_flush_range(t, asid, first_vpn, last_vpn);
	tlb_unlock(sys, t);
}

void tlbgen__tlb_invalidate_mm(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			       unsigned long first_vpn, unsigned long last_vpn, bool all)
{
	const struct tlbgen_tlb_state *ts = &tlbgen__cpu(sys, cpu)->tlbstate;

	for (uint16_t asid = 0; asid < TLBGEN_TLB_NR_DYN_ASIDS; asid++)
		if (ts->ctxs[asid].ctx_id == mm->context.ctx_id)
			tlbgen__tlb_invalidate_nocost(sys, cpu, asid, first_vpn, last_vpn, all);
}

void tlbgen__tlb_broadcast_mm(struct tlbgen_system *sys, struct tlbgen_mm *mm,
			      unsigned long first_vpn, unsigned long last_vpn, bool all)
{
	for (unsigned int cpu = 0; cpu < sys->nr_cpus; cpu++)
		tlbgen__tlb_invalidate_mm(sys, cpu, mm, first_vpn, last_vpn, all);
}

void tlbgen__tlb_broadcast_asid(struct tlbgen_system *sys, unsigned int cpu, uint16_t asid,
				unsigned long first_vpn, unsigned long last_vpn, bool all)
{
	bool irqs = tlb_locking(sys) && !tlbgen__irqs_disabled(sys, cpu);

	if (!tlbgen__oracle_on(sys))
		return;
	if (irqs)
		tlbgen__local_irq_disable(sys, cpu);
	for (unsigned int t = 0; t < sys->nr_cpus; t++) {
		struct tlbgen_simtlb *tlb = tlbgen__cpu(sys, t)->priv.tlb;

		if (asid != TLBGEN_ASID_ALL_USER && asid != TLBGEN_ASID_ALL) {
			tlbgen__tlb_invalidate_nocost(sys, t, asid, first_vpn, last_vpn, all);
			continue;
		}
		tlb_lock(sys, tlb);
		for (size_t i = 0; i < (size_t)tlb->sets * tlb->ways; i++)
			if (asid == TLBGEN_ASID_ALL || tlb->e[i].asid != TLBGEN_ASID_KERNEL)
				tlb->e[i].valid = 0;
		tlb_unlock(sys, tlb);
	}
	if (irqs)
		tlbgen__local_irq_enable(sys, cpu);
}

/* Kernel translations are global: one pseudo-ASID, flushed by range or whole. */
void tlbgen__tlb_flush_kernel(struct tlbgen_system *sys, unsigned int cpu, unsigned long start,
			      unsigned long end)
{
	struct tlbgen_simtlb *t = tlbgen__cpu(sys, cpu)->priv.tlb;

	if (!t)
		return;
	if (end == TLBGEN_TLB_FLUSH_ALL) {
		/* __flush_tlb_all(): global entries and every PCID, user ones too. */
		tlbgen__cost_charge(sys, cpu, TLBGEN_COST_FULL_FLUSHES, 1);
		tlb_lock(sys, t);
		for (size_t i = 0; i < (size_t)t->sets * t->ways; i++)
			t->e[i].valid = 0;
		tlb_unlock(sys, t);
		return;
	}
	if (end > start) {
		tlbgen__cost_charge(sys, cpu, TLBGEN_COST_INV_PAGES,
				    ((end - 1) >> TLBGEN_PAGE_SHIFT) - (start >> TLBGEN_PAGE_SHIFT) + 1);
		tlb_lock(sys, t);
		tlb_flush_range(t, TLBGEN_ASID_KERNEL, start >> TLBGEN_PAGE_SHIFT,
				(end - 1) >> TLBGEN_PAGE_SHIFT);
		tlb_unlock(sys, t);
	}
}

static struct tlbgen_mm *tlbgen__running_mm(const struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_mm *mm = tlbgen__this_loaded_mm(sys, cpu);

	if (mm == sys->init_mm || mm == LOADED_MM_SWITCHING || tlbgen__this_is_lazy(sys, cpu))
		return NULL;
	return mm;
}

static bool tlbgen__check_entry(struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_mm *mm, const struct tlbgen_tlb_entry *e)
{
	/* A translation of another mm left in this ASID slot: always wrong. */
	if (e->ctx_id != mm->context.ctx_id)
		return tlbgen__oracle_foreign(sys, cpu, mm, e->vpn, e->ctx_id, e->version);
	return tlbgen__oracle_check(sys, cpu, mm, e->vpn, e->version, true);
}

static int tlbgen__access(struct tlbgen_system *sys, unsigned int cpu, unsigned long addr)
{
	struct tlbgen_cpu *c;
	struct tlbgen_tlb_entry *e;
	struct tlbgen_mm *mm;
	unsigned long vpn = addr >> TLBGEN_PAGE_SHIFT;
	uint16_t asid;

	if (!tlbgen__oracle_on(sys))
		return -EOPNOTSUPP;
	mm = tlbgen__running_mm(sys, cpu);
	if (!mm)
		return -ESRCH;
	if (vpn >= mm->priv.nr_pages)
		return -EINVAL;
	c = tlbgen__cpu(sys, cpu);
	asid = tlbgen__this_loaded_mm_asid(sys, cpu);	/* the CPU's own view */
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_TLB_ACCESS);
	tlb_lock(sys, c->priv.tlb);
	e = tlb_lookup(c->priv.tlb, asid, vpn);
	if (e) {
		e->lru = ++c->priv.tlb->tick;
		tlbgen__check_entry(sys, cpu, mm, e);
		tlb_unlock(sys, c->priv.tlb);
		return 1;
	}
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_TLB_MISS);
	tlb_fill(c->priv.tlb, asid, vpn, mm->context.ctx_id, tlbgen__oracle_walk(mm, vpn));
	tlb_unlock(sys, c->priv.tlb);
	tlbgen__cost_charge(sys, cpu, TLBGEN_COST_REFILLS, 1);
	return 0;
}

TLBGEN_API int tlbgen_access(struct tlbgen_system *sys, unsigned int cpu, unsigned long addr)
{
	int err = tlbgen__check_op(sys, cpu);

	if (err)
		return err;
	/* A hardware access is atomic: a signal-delivered IPI (threaded
	 * signal backend) must not flush this TLB in the middle of a fill. */
	tlbgen__local_irq_disable(sys, cpu);
	err = tlbgen__access(sys, cpu, addr);
	tlbgen__local_irq_enable(sys, cpu);
	return err;
}

static int tlbgen__audit_cpu(struct tlbgen_system *sys, unsigned int cpu);

TLBGEN_API int tlbgen_oracle__audit_cpu(struct tlbgen_system *sys, unsigned int cpu)
{
	int n;

	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus)
		return -EINVAL;
	/* From the CPU's own thread: IRQs off, as for tlbgen_access(). */
	if (sys->mode != TLBGEN_MODE_THREADED || !tlbgen__this_thread_is(sys, cpu))
		return tlbgen__audit_cpu(sys, cpu);
	tlbgen__local_irq_disable(sys, cpu);
	n = tlbgen__audit_cpu(sys, cpu);
	tlbgen__local_irq_enable(sys, cpu);
	return n;
}

static int tlbgen__audit_cpu(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_simtlb *t;
	struct tlbgen_mm *mm;
	uint16_t asid;
	int n = 0;

	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus)
		return -EINVAL;
	if (!tlbgen__oracle_on(sys))
		return -EOPNOTSUPP;
	mm = tlbgen__running_mm(sys, cpu);
	if (!mm)
		return 0;
	t = tlbgen__cpu(sys, cpu)->priv.tlb;
	asid = tlbgen__this_loaded_mm_asid(sys, cpu);
	tlb_lock(sys, t);
	for (size_t i = 0; i < (size_t)t->sets * t->ways; i++) {
		const struct tlbgen_tlb_entry *e = &t->e[i];

		if (e->valid && e->asid == asid && e->vpn < mm->priv.nr_pages &&
		    tlbgen__check_entry(sys, cpu, mm, e))
			n++;
	}
	tlb_unlock(sys, t);
	return n;
}
