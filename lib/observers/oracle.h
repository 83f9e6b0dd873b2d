/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/observers/oracle.h - the stale-translation oracle, as the policy code
 * sees it: a flush is bracketed by begin (before it is published), number
 * (once its generation is known) and end (when it returned to its
 * initiator); the simulated TLB asks it about each entry it uses.
 * Only oracle.c reads or writes the oracle's state.
 */
#ifndef TLBGEN_OBSERVERS_ORACLE_H
#define TLBGEN_OBSERVERS_ORACLE_H

#include "../core/state.h"

/* The mm's PTE-change seq now: every change made before this flush's
 * inc_mm_tlb_gen() is <= it. Zero with the oracle off. */
void tlbgen__oracle_flush_begin(struct tlbgen_system *sys, struct tlbgen_mm *mm,
				struct tlbgen_oracle_flush *of);
/* Record the flush (what it was asked to cover) in `cpu`'s ring. */
void tlbgen__oracle_flush_number(struct tlbgen_system *sys, unsigned int cpu,
				 struct tlbgen_oracle_flush *of, uint64_t new_tlb_gen,
				 unsigned long start, unsigned long end, bool full);
/* The flush returned: what it was asked to cover is now covered. */
void tlbgen__oracle_flush_end(struct tlbgen_system *sys, struct tlbgen_mm *mm,
			      const struct tlbgen_oracle_flush *of);
/* Changes of mm up to seq are covered, whole mm or one page, by flush id. */
void tlbgen__oracle_cover_full(struct tlbgen_system *sys, struct tlbgen_mm *mm,
			       uint64_t seq, uint64_t id);
void tlbgen__oracle_cover_page(struct tlbgen_system *sys, struct tlbgen_mm *mm,
			       unsigned long vpn, uint64_t seq, uint64_t id);
/* The mm's PTE-change seq, read whether or not the oracle is on. */
uint64_t tlbgen__oracle_seq(struct tlbgen_mm *mm);

/* The simulated TLB's questions. */
uint64_t tlbgen__oracle_walk(struct tlbgen_mm *mm, unsigned long vpn);
bool tlbgen__oracle_check(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			  unsigned long vpn, uint64_t entry_version, bool record);
bool tlbgen__oracle_foreign(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			    unsigned long vpn, uint64_t ctx_id, uint64_t entry_version);

#endif
