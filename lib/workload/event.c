// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/workload/event.c - the kernel's own work of an event in each mode:
 * charged to the virtual clock, burnt on a real CPU with IRQs on, or only
 * counted (stepped).
 */
#include "../runtime/runtime.h"
#include "../runtime/vevent.h"
#include "wl-internal.h"

/*
 * Busy-wait `ns` with IRQs on: IPIs are taken as they arrive, and their
 * handling does not count towards `ns` (it lengthens the work, as an
 * interrupt lengthens the kernel path it interrupts).
 */
static void burn_ns(struct tlbgen_system *sys, unsigned int cpu, uint64_t ns)
{
	uint64_t t0 = now_ns(), t1, until = t0 + ns;

	for (; t0 < until; t0 = t1) {
		int ran = tlbgen_poll(sys, cpu);

		t1 = now_ns();
		if (ran > 0)
			until += t1 - t0;
		else
			cpu_relax();
	}
}

static uint32_t event_cycles(const struct tlbgen_machine *m, enum tlbgen_vt_event ev)
{
	switch (ev) {
	case TLBGEN_VT_SYSCALL:		return m->syscall;
	case TLBGEN_VT_PAGE_FAULT:	return m->page_fault;
	case TLBGEN_VT_PTL:		return m->ptl;
	case TLBGEN_VT_ZAP:		return m->zap;
	case TLBGEN_VT_ZAP_BATCHED:	return m->zap_batched ?: m->zap;
	case TLBGEN_VT_LRU_FOLIO:	return m->lru_folio;
	default:			return m->user_work;
	}
}

int tlbgen__wl_event(struct tlbgen_wl *wl, unsigned int cpu, enum tlbgen_vt_event ev)
{
	return tlbgen__wl_events(wl, cpu, ev, 1);
}

int tlbgen__wl_events(struct tlbgen_wl *wl, unsigned int cpu, enum tlbgen_vt_event ev,
		      unsigned long n)
{
	switch (wl->mode) {
	case TLBGEN_MODE_VIRTUAL:
		return tlbgen__vt_event(wl->sys, cpu, ev, n);
	case TLBGEN_MODE_THREADED:
		if (wl->have_kwork && wl->kwork.mhz)
			burn_ns(wl->sys, cpu, (uint64_t)event_cycles(&wl->kwork, ev) * n * 1000 /
						      wl->kwork.mhz);
		return 0;
	default:
		return 0;
	}
}
