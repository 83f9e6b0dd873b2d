// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/observers/cost.c - the TLB cost model: per-CPU virtual time charged by the
 * simulated TLB (simtlb.c) for invalidations, full flushes and refills.
 *
 * Default figures, in cycles:
 *  - INVLPG about 260 cycles and a CR3 write about 96 cycles: Ingo Molnar's
 *    2015 measurements on x86.
 *  - Cross-check: Dave Hansen (2014) measured flush_tlb_mm_range() at 1276
 *    cycles for 1 page up to 8534 cycles for 33 pages, i.e. about
 *    (8534 - 1276) / 32 = 227 cycles per extra page, the same order as one
 *    INVLPG; the intercept (~1049 cycles) is call overhead, not a TLB cost,
 *    and is not charged.
 *  - mhz 2600: the ceiling comment in arch/x86/mm/tlb.c says "each single
 *    flush is about 100 ns"; 260 cycles per INVLPG makes that 2.6 GHz.
 *  - refill 26 cycles: a ~10 ns TLB-miss penalty (4 KiB-stride walk over a
 *    256 MB array, notes.elimelt.com/operating-systems/benchmarks/tlb.html)
 *    at 2.6 GHz, i.e. a page walk whose paging-structure lines hit in cache.
 *    A pointer chase that misses the caches pays far more: set it per run.
 *  - INVLPGB 260 and TLBSYNC 2600 cycles: estimates, no public measurement
 *    found; the issue costs an INVLPG, the sync a ~1 us round trip to every
 *    core (the order of an IPI's delivery). Charged to the initiator only.
 */
#include <time.h>

#include <errno.h>
#include <string.h>

#include "../base/printk.h"
#include "../core/check.h"
#include "../core/stats.h"
#include "cost.h"

static const struct tlbgen_cost_model defaults = {
	.sz = sizeof(struct tlbgen_cost_model),
	.inv_page_cycles = 260,
	.full_flush_cycles = 96,
	.refill_cycles = 26,
	.mhz = 2600,
	.spend = false,
	.invlpgb_cycles = 260,		/* estimate */
	.tlbsync_cycles = 2600,		/* estimate */
};

static const struct tlbgen_cost_model *model(const struct tlbgen_system *sys)
{
	return sys->cost_model.sz ? &sys->cost_model : &defaults;
}

TLBGEN_API int tlbgen_cost_model_default(struct tlbgen_cost_model *m)
{
	if (!m)
		return -EINVAL;
	/* memcpy, not an assignment: the padding must stay zero, since
	 * tlbgen_system__set_cost_model() checks the bytes past `spend`. */
	memcpy(m, &defaults, sizeof(*m));
	return 0;
}

TLBGEN_API int tlbgen_system__set_cost_model(struct tlbgen_system *sys,
					     const struct tlbgen_cost_model *m)
{
	struct tlbgen_cost_model tmp = defaults;
	int err;

	if (!tlbgen__sys_valid(sys))
		return -EINVAL;
	if (m) {
		if (m->sz < offsetof(struct tlbgen_cost_model, spend) ||
		    TLBGEN_OPTS_VALID(m, tlbgen_cost_model, tlbsync_cycles))
			return -EINVAL;
		/* A caller's shorter struct keeps the defaults of what it lacks. */
		memcpy(&tmp, m, m->sz < sizeof(tmp) ? m->sz : sizeof(tmp));
		tmp.sz = sizeof(tmp);
		if (!tmp.mhz || (tmp.spend && sys->mode != TLBGEN_MODE_THREADED))
			return -EINVAL;
	}
	err = tlbgen__check_quiescent(sys);
	if (err)
		return err;
	memcpy(&sys->cost_model, &tmp, sizeof(tmp));
	return 0;
}

TLBGEN_API int tlbgen_system__cost_model(const struct tlbgen_system *sys,
					 struct tlbgen_cost_model *out)
{
	if (!tlbgen__sys_valid(sys) || !out)
		return -EINVAL;
	memcpy(out, model(sys), sizeof(*out));
	return 0;
}

TLBGEN_API int tlbgen_system__tlb_geometry(const struct tlbgen_system *sys, unsigned int *sets,
					   unsigned int *ways)
{
	if (!tlbgen__sys_valid(sys))
		return -EINVAL;
	if (sets)
		*sets = sys->tlb_sets;
	if (ways)
		*ways = sys->tlb_ways;
	return (int)(sys->tlb_sets * sys->tlb_ways);
}

/* Burn `cycles` of the model's clock on the calling thread. */
static void spend(const struct tlbgen_cost_model *m, uint64_t cycles)
{
	struct timespec ts;
	uint64_t now, until;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	until = now + cycles * 1000 / m->mhz;
	while (now < until) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	}
}

static void charge(struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_cost_item what,
		   uint64_t n, bool serial)
{
	const struct tlbgen_cost_model *m = model(sys);
	struct tlbgen_cpu *a = tlbgen__cpu(sys, cpu);
	uint64_t cycles;

	if (!n)
		return;
	switch (what) {
	case TLBGEN_COST_INV_PAGES:
		cycles = n * m->inv_page_cycles;
		tlbgen__stat_add(tlbgen__cost_acct(a, TLBGEN_COST_INV_CYCLES), cycles);
		break;
	case TLBGEN_COST_FULL_FLUSHES:
		cycles = n * m->full_flush_cycles;
		tlbgen__stat_add(tlbgen__cost_acct(a, TLBGEN_COST_FULL_CYCLES), cycles);
		break;
	case TLBGEN_COST_REFILLS:
		cycles = n * m->refill_cycles;
		tlbgen__stat_add(tlbgen__cost_acct(a, TLBGEN_COST_REFILL_CYCLES), cycles);
		break;
	case TLBGEN_COST_INVLPGBS:
		cycles = n * m->invlpgb_cycles;
		tlbgen__stat_add(tlbgen__cost_acct(a, TLBGEN_COST_INV_CYCLES), cycles);
		break;
	case TLBGEN_COST_TLBSYNCS:
		cycles = n * m->tlbsync_cycles;
		tlbgen__stat_add(tlbgen__cost_acct(a, TLBGEN_COST_INV_CYCLES), cycles);
		break;
	default:
		return;
	}
	tlbgen__stat_add(tlbgen__cost_acct(a, what), n);
	if (unlikely(sys->exec))
		(serial && sys->exec->serial ? sys->exec->serial : sys->exec->spend)(sys, cpu, cycles);
	else if (unlikely(m->spend) && sys->mode == TLBGEN_MODE_THREADED)
		spend(m, cycles);
}

void tlbgen__cost_charge(struct tlbgen_system *sys, unsigned int cpu,
			 enum tlbgen_cost_item what, uint64_t n)
{
	charge(sys, cpu, what, n, false);
}

void tlbgen__cost_charge_serial(struct tlbgen_system *sys, unsigned int cpu,
				enum tlbgen_cost_item what, uint64_t n)
{
	charge(sys, cpu, what, n, true);
}

static uint64_t acct(struct tlbgen_cpu *c, enum tlbgen_cost_item item)
{
	return atomic_load_explicit(tlbgen__cost_acct(c, item), memory_order_relaxed);
}

static void fill(struct tlbgen_cpu *c, struct tlbgen_cost_account *o)
{
	o->inv_pages += acct(c, TLBGEN_COST_INV_PAGES);
	o->full_flushes += acct(c, TLBGEN_COST_FULL_FLUSHES);
	o->refills += acct(c, TLBGEN_COST_REFILLS);
	o->inv_cycles += acct(c, TLBGEN_COST_INV_CYCLES);
	o->full_cycles += acct(c, TLBGEN_COST_FULL_CYCLES);
	o->refill_cycles += acct(c, TLBGEN_COST_REFILL_CYCLES);
	o->cycles = o->inv_cycles + o->full_cycles + o->refill_cycles;
}

TLBGEN_API int tlbgen_cost__cpu(const struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_cost_account *out)
{
	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	fill(tlbgen__cpu(sys, cpu), out);
	return 0;
}

TLBGEN_API int tlbgen_cost__system(const struct tlbgen_system *sys,
				   struct tlbgen_cost_account *out)
{
	if (!tlbgen__sys_valid(sys) || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (unsigned int c = 0; c < sys->nr_cpus; c++)
		fill(tlbgen__cpu(sys, c), out);
	return 0;
}

TLBGEN_API int tlbgen_cost__reset(struct tlbgen_system *sys)
{
	if (!tlbgen__sys_valid(sys))
		return -EINVAL;
	if (tlbgen__stats_busy(sys))
		return -EBUSY;
	for (unsigned int c = 0; c < sys->nr_cpus; c++)
		for (int i = 0; i < TLBGEN_COST_NR; i++)
			tlbgen__stat_reset(tlbgen__cost_acct(tlbgen__cpu(sys, c), i));
	return 0;
}
