/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/runtime/vspin.h - a CPU that spins on a queued lock in virtual time:
 * it waits its turn without touching the lock's line (an MCS waiter spins
 * on its own node), IRQs as they are, until the holder hands it over.
 */
#ifndef TLBGEN_RUNTIME_VSPIN_H
#define TLBGEN_RUNTIME_VSPIN_H

#include <stdbool.h>

#include "../core/state.h"

/*
 * The running CPU `cpu` of a virtual system spins until done(arg): its
 * clock stands still in the host's order and advances, charged to
 * TLBGEN_VT_TIME_LINE_WAIT, to the virtual time of the tlbgen__vt_spin_kick()
 * that ends the wait. IPIs that arrive are taken only if IRQs are on.
 * 0, or -EINVAL (not a virtual system, or `cpu` is not the running CPU).
 */
int tlbgen__vt_spin_until(struct tlbgen_system *sys, unsigned int cpu,
			  bool (*done)(void *arg), void *arg);

/* The running CPU `cpu` let `target` go on: target's done() now holds, as
 * of cpu's clock. No cost to `cpu`: what the handover costs the waiter is
 * its next access to the lock's line. */
void tlbgen__vt_spin_kick(struct tlbgen_system *sys, unsigned int cpu, unsigned int target);

#endif
