/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lib/core/preempted.h - a CPU's task preempted in its csd wait (stepped). */
#ifndef TLBGEN_CORE_PREEMPTED_H
#define TLBGEN_CORE_PREEMPTED_H

#include "state.h"

/*
 * Stepped mode: the task of a CPU preempted in csd_lock_wait() (possible
 * since 8df8a6028309) while another task runs there. What is the task's
 * own is kept here: done/waiting state, its wait mask when the mask is
 * task-local (9a560af15fd3), its flush_tlb_info when that is on its stack
 * (ed15468787dd). A per-CPU mask or flush_tlb_info stays the CPU's: the
 * task that runs meanwhile reuses it.
 */
struct tlbgen_preempted {
	bool active;			/* a waiter is saved, another task runs */
	bool run_remote, info_in_use;
	tlbgen_done_fn done;
	void *done_arg;
	unsigned long *cfd_mask;	/* the mask the waiter walks */
	unsigned long *spare_mask;	/* task-local: the running task's own */
	struct tlbgen_mm *flush_mm;
	/* The waiter's mm and oracle record, for its completion: the
	 * model's bookkeeping of whose flush returned, not kernel state. */
	struct tlbgen_flush_tlb_info record;
	struct tlbgen_flush_tlb_info info;	/* stack: the running task's own */
};

#endif
