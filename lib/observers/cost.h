/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/observers/cost.h - the TLB cost model: each CPU's virtual time for
 * invalidations, full flushes and refills, charged by the simulated TLB.
 */
#ifndef TLBGEN_OBSERVERS_COST_H
#define TLBGEN_OBSERVERS_COST_H

#include "../core/state.h"

/* Charge `n` items of `what` to `cpu` (and busy-wait them if asked). */
void tlbgen__cost_charge(struct tlbgen_system *sys, unsigned int cpu,
			 enum tlbgen_cost_item what, uint64_t n);
/* As tlbgen__cost_charge(), for a wait that the interconnect serves one CPU
 * at a time: in virtual time it queues behind those in flight (exec->serial). */
void tlbgen__cost_charge_serial(struct tlbgen_system *sys, unsigned int cpu,
				enum tlbgen_cost_item what, uint64_t n);

#endif
