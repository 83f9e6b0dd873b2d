// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/core/machine-range.c - the stated range of every built-in model's
 * figures, as data: where the figure's sources disagree, their spread;
 * where it has none, the estimate's range. docs/machines.md gives each
 * reason; tests/core/machines-doc.py checks the two agree.
 */
#include <errno.h>
#include <string.h>

#include "../base/compiler.h"
#include "machine.h"

#define R(f, lo, hi, b) { #f, lo, hi, b }
#define EST "estimate"
#define SRC "sources"

/* Skylake-SP, every built-in (machine.c's SKYLAKE_SP). */
static const struct tlbgen_machine_range skylake_sp[] = {
	R(hit, 4, 5, EST),			/* L1D load-to-use 4-5 cycles */
	/* Measured on Cascade Lake-SP, not the seed's part: +-20% (estimate). */
	R(same_socket, 100, 150, EST),
	R(cross_socket, 300, 375, EST),
	R(memory, 200, 385, EST),		/* 80 ns local .. 154 ns remote */
	R(rmw, 10, 40, EST),
	R(inval_sharer, 0, 20, EST),		/* 20: the README's sensitivity row */
	R(ipi_send, 100, 400, EST),
	R(ipi_latency, 1250, 5000, EST),	/* 0.5..2 us; round trips are 2-4 us */
	R(cr3_write, 251, 366, SRC),		/* Ingo Molnar 2015: hot / cold */
	R(refill, 20, 100, EST),
	/* A minor fault: from the order of a whole measured one-page
	 * madvise() (2119 cycles, Nadav Amit 2019) to the point figure. */
	R(page_fault, 2000, 5000, EST),
	/* The same 2119 cycles less a PTI syscall (1195) and a PTI
	 * INVLPG+INVPCID (550) leaves 374 for the zap and the page's free. */
	R(zap, 374, 5000, EST),
	/* munmap() of 32768 dirty MAP_SHARED pages on an Ice Lake-SP guest
	 * at 2.8 GHz: 48 ns a page (ext4, least) .. 149 (shmem, a mean). */
	R(zap_batched, 130, 420, EST),
	/* One folio under lru_lock: its flag's RMW in cache (hit + rmw) ..
	 * two struct page misses and the RMW (2 memory + rmw). */
	R(lru_folio, 25, 470, EST),
	R(ptl, 20, 50, EST),
	R(user_work, 5, 20, EST),
	R(invlpgb, 100, 500, EST),
	R(tlbsync, 1250, 5000, EST),
	R(fill_hold, 0, 80, EST),		/* 10..80: the README's sensitivity rows */
};

/* Without PTI (skylake-56). */
static const struct tlbgen_machine_range skylake_nopti[] = {
	R(irq_entry, 300, 800, EST),
	R(irq_exit, 300, 800, EST),
	R(invlpg, 200, 250, SRC),		/* Dave Hansen 2017 ~200; a5102476a24b 100 ns */
	R(syscall, 680, 1020, EST),		/* a Haswell figure on a Skylake: +-20% */
};

/* With PTI (skylake-56-pti, skx-2s-80). */
static const struct tlbgen_machine_range skylake_pti[] = {
	R(irq_entry, 500, 1100, EST),
	R(irq_exit, 500, 1100, EST),
	R(syscall, 950, 1450, EST),		/* a Haswell figure on a Skylake: +-20% */
};

/* power10 (seed 004's box): every cost an estimate, none published. */
static const struct tlbgen_machine_range power10[] = {
	R(hit, 3, 5, EST),
	R(same_socket, 100, 400, EST),		/* 25..100 ns */
	R(cross_socket, 400, 2000, EST),	/* 100..500 ns */
	R(memory, 300, 800, EST),
	R(rmw, 10, 40, EST),
	R(inval_sharer, 0, 20, EST),
	R(ipi_send, 200, 800, EST),
	R(ipi_latency, 2000, 8000, EST),
	R(irq_entry, 400, 1600, EST),
	R(irq_exit, 400, 1600, EST),
	R(invlpg, 400, 4000, EST),		/* tlbie by page: 100 ns..1 us */
	R(cr3_write, 400, 4000, EST),		/* tlbie by PID: the same */
	R(refill, 20, 200, EST),
	R(syscall, 600, 2400, EST),
	R(page_fault, 1200, 8000, EST),		/* 300 ns..2 us */
	R(ptl, 20, 50, EST),
	R(zap, 200, 2000, EST),
	R(user_work, 5, 20, EST),
	R(spin, 10, 100, EST),
	R(fill_hold, 0, 80, EST),
};

/* arm64-128 (seed 003's box, assumed Kunpeng 920 2P): every cost an estimate. */
static const struct tlbgen_machine_range arm64_128[] = {
	R(hit, 3, 5, EST),
	R(same_socket, 78, 260, EST),		/* 30..100 ns */
	R(cross_socket, 260, 650, EST),		/* 100..250 ns */
	R(memory, 200, 400, EST),
	R(rmw, 10, 60, EST),
	R(inval_sharer, 0, 20, EST),
	R(ipi_send, 150, 600, EST),
	R(ipi_latency, 1300, 5200, EST),	/* 0.5..2 us */
	R(irq_entry, 260, 1040, EST),
	R(irq_exit, 260, 1040, EST),
	R(invlpg, 20, 200, EST),
	R(cr3_write, 20, 300, EST),
	R(refill, 20, 100, EST),
	R(syscall, 200, 800, EST),
	R(page_fault, 1300, 7800, EST),		/* 0.5..3 us */
	R(ptl, 20, 50, EST),
	R(zap, 260, 2600, EST),
	R(user_work, 5, 20, EST),
	R(spin, 10, 100, EST),
	R(invlpgb, 10, 100, EST),
	R(tlbsync, 260, 2600, EST),		/* 100 ns..1 us */
	R(tlbsync_per_cpu, 2, 40, EST),		/* 128 CPUs: 0.1..2 us more */
	R(fill_hold, 0, 80, EST),
};

/* unmatched (seed 002's board): every cost an estimate. */
static const struct tlbgen_machine_range unmatched[] = {
	R(hit, 2, 4, EST),
	R(same_socket, 30, 150, EST),
	R(cross_socket, 30, 150, EST),
	R(memory, 120, 360, EST),		/* 100..300 ns */
	R(rmw, 5, 40, EST),
	R(inval_sharer, 0, 20, EST),
	R(ipi_send, 200, 2400, EST),
	R(ipi_latency, 200, 12000, EST),	/* 0.17..10 us */
	R(irq_entry, 200, 1200, EST),
	R(irq_exit, 200, 1200, EST),
	R(invlpg, 5, 200, EST),
	R(cr3_write, 10, 500, EST),
	R(refill, 20, 200, EST),
	R(syscall, 300, 1200, EST),
	R(page_fault, 1800, 6600, EST),	/* 1.5..5.5 us: the split of 6.9 */
	R(ptl, 10, 50, EST),
	R(zap, 1800, 6600, EST),		/* 1.5..5.5 us: the split of 6.9 */
	R(user_work, 5, 20, EST),
	R(spin, 10, 100, EST),
	R(fill_hold, 0, 80, EST),
};

static const struct tlbgen_machine_range none[] = { { NULL, 0, 0, NULL } };

struct model_ranges {
	const char *name;
	const struct tlbgen_machine_range *a, *b;
	size_t na, nb;
};

#define M(n, x, y) { n, x, y, ARRAY_SIZE(x), ARRAY_SIZE(y) }
static const struct model_ranges models[] = {
	M("skylake-56", skylake_sp, skylake_nopti),
	M("skylake-56-pti", skylake_sp, skylake_pti),
	M("skx-2s-80", skylake_sp, skylake_pti),
	{ "power10", power10, none, ARRAY_SIZE(power10), 0 },
	{ "arm64-128", arm64_128, none, ARRAY_SIZE(arm64_128), 0 },
	{ "unmatched", unmatched, none, ARRAY_SIZE(unmatched), 0 },
};

TLBGEN_API int tlbgen_machine_ranges(const char *name, struct tlbgen_machine_range *out, size_t n)
{
	if (!name || (!out && n))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(models); i++) {
		const struct model_ranges *m = &models[i];

		if (strcmp(m->name, name))
			continue;
		for (size_t k = 0; k < m->na + m->nb && k < n; k++)
			out[k] = k < m->na ? m->a[k] : m->b[k - m->na];
		return (int)(m->na + m->nb);
	}
	return -ENOENT;
}
