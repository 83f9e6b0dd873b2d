/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harness/explore/explore_internal.h - the stepped explorer's execution context,
 * shared by the engine (explore_engine.c: setup, one operation, the
 * invariants, the audit, the minimiser) and the generator and decoder
 * (explore_gen.c).
 */
#ifndef TLBGEN_EXPLORE_INTERNAL_H
#define TLBGEN_EXPLORE_INTERNAL_H

#include <stdbool.h>

#include <tlbgen/tlbgen.h>

#include "explore_engine.h"

struct xctx {
	const struct xcfg *cfg;
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm[XPL_MAX_MMS + 1];	/* [0] = NULL: init_mm */
	uint64_t ctx_id[XPL_MAX_MMS + 1];
	struct tlbgen_tlbbatch *batch[XPL_MAX_CPUS];
	struct tlbgen_unmap_batch *ubc[XPL_MAX_CPUS];	/* current->tlb_ubc */
	struct xfail *f;
	struct xstats *st;
	size_t cur;
	bool partial_bad;
	bool partial_check;	/* only x86 flushes carry generations */
	bool batching;		/* the arch_tlbbatch_*() hooks exist under this profile */
	long warns_expected;	/* leave_mm() of a CPU that is not lazy WARNs */
	char partial_msg[200];
};

/* A fresh system for cfg: 0, or the setup failure in *f. */
int xpl__setup(struct xctx *x, const struct xcfg *cfg, struct xfail *f, struct xstats *st);
void xpl__teardown(struct xctx *x);
/* After each operation: the oracle, WARNs, the generations. */
void xpl__check_invariants(struct xctx *x);
/* One operation: its result (a negative errno when refused as documented). */
long xpl__exec_op(struct xctx *x, const struct xop *o);
/* Every IPI delivered, every TLB audited. */
void xpl__final_audit(struct xctx *x);
/* The range of a flush operation, for its stride. */
void xpl__op_range(const struct xop *o, unsigned long *start, unsigned long *end,
		   unsigned int *shift);
/* An operation in kernel terms. */
void xpl__describe(char *buf, size_t len, const struct xcfg *cfg, const struct xop *o);
/* The index of the mm with this ctx_id, or -1. */
int xpl__find_mm(const struct xctx *x, uint64_t ctx_id);
/* An operation that runs on a CPU (one not waiting for acknowledgements). */
bool xpl__is_cpu_op(unsigned int kind);

#endif
