/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/observers/simtlb.h - each emulated CPU's simulated TLB: what the
 * policy code's invalidations act on and what the oracle judges.
 */
#ifndef TLBGEN_OBSERVERS_SIMTLB_H
#define TLBGEN_OBSERVERS_SIMTLB_H

#include "../core/state.h"

int tlbgen__simtlb_init(struct tlbgen_system *sys, unsigned int cpu);
void tlbgen__simtlb_free(struct tlbgen_system *sys, unsigned int cpu);
/* flush_tlb_local() / a flushing CR3 write: every entry of one ASID. */
void tlbgen__tlb_flush_asid(struct tlbgen_system *sys, unsigned int cpu, uint16_t asid);
/* flush_tlb_one_user(): one stride-sized translation. */
void tlbgen__tlb_flush_one(struct tlbgen_system *sys, unsigned int cpu, uint16_t asid,
			   unsigned long addr, unsigned int shift);
/* Kernel (global) translations, by range or all (then user PCIDs too). */
void tlbgen__tlb_flush_kernel(struct tlbgen_system *sys, unsigned int cpu,
			      unsigned long start, unsigned long end);
/* A hardware broadcast (tlbie, TLBI IS) reaching `cpu`: it pays nothing. */
void tlbgen__tlb_invalidate_nocost(struct tlbgen_system *sys, unsigned int cpu, uint16_t asid,
				   unsigned long first_vpn, unsigned long last_vpn, bool all);
/* The same, of mm's pages in every ASID slot of `cpu` that holds mm. */
void tlbgen__tlb_invalidate_mm(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			       unsigned long first_vpn, unsigned long last_vpn, bool all);
/* The same broadcast of mm's pages (vpn ~0UL: all) to every ASID slot of
 * every CPU that holds mm. */
void tlbgen__tlb_broadcast_mm(struct tlbgen_system *sys, struct tlbgen_mm *mm,
			      unsigned long first_vpn, unsigned long last_vpn, bool all);

/* INVLPGB completing (TLBSYNC): `asid`'s pages (or all of it; with
 * TLBGEN_ASID_KERNEL global ones), with TLBGEN_ASID_ALL_USER every
 * non-global entry, with TLBGEN_ASID_ALL every entry, leave every CPU's TLB.
 * `cpu` is the issuer; in threaded mode each TLB is locked meanwhile. */
void tlbgen__tlb_broadcast_asid(struct tlbgen_system *sys, unsigned int cpu, uint16_t asid,
				unsigned long first_vpn, unsigned long last_vpn, bool all);

#endif
