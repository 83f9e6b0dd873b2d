// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/vevent.c - the machine's kernel events in virtual time: each
 * costs its figure, dithered by the machine's work_jitter on a stream of
 * the CPU's own, so that one CPU's draws do not depend on what the others
 * did, and the same seed gives the same run.
 */
#include <errno.h>

#include "../base/prandom.h"
#include "../core/check.h"
#include "vevent.h"
#include "virtual.h"

/* `cycles` times a factor uniform in [1 - j/1000, 1 + j/1000]. */
static uint64_t dither(struct tlbgen_vcpu *v, uint64_t cycles, uint32_t j)
{
	uint64_t r = tlbgen__prandom(&v->work_rng) >> 11;	/* 53 bits */
	double f = 1.0 + (double)j / 1000.0 * (2.0 * (double)r / (double)(1ULL << 53) - 1.0);
	double c = (double)cycles * f + 0.5;

	return c >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)c;
}

/* The event's figure and whether work_jitter dithers it. */
static uint64_t event_per(const struct tlbgen_machine *m, enum tlbgen_vt_event ev, bool *dithered)
{
	*dithered = true;
	switch (ev) {
	case TLBGEN_VT_SYSCALL:		return m->syscall;
	case TLBGEN_VT_PAGE_FAULT:	return m->page_fault;
	case TLBGEN_VT_ZAP:		return m->zap;
	case TLBGEN_VT_ZAP_BATCHED:	return m->zap_batched ?: m->zap;
	default:			break;
	}
	*dithered = false;
	switch (ev) {
	case TLBGEN_VT_PTL:		return m->ptl;
	case TLBGEN_VT_LRU_FOLIO:	return m->lru_folio;
	default:			return m->user_work;
	}
}

int tlbgen__vt_event(struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_vt_event ev,
		     unsigned long n)
{
	struct tlbgen_vt *vt = tlbgen__vt_valid(sys);
	uint64_t per;
	bool dithered;

	if (!vt || (unsigned int)ev >= TLBGEN_VT_EVENT_NR || cpu != vt->current)
		return -EINVAL;
	per = event_per(&sys->machine, ev, &dithered);
	if (dithered && sys->machine.work_jitter)
		per = dither(&vt->v[cpu], per * n, sys->machine.work_jitter);
	else
		per *= n;
	tlbgen__vt_spend(vt, cpu, per);
	return 0;
}

TLBGEN_API int tlbgen_vtime__event(struct tlbgen_system *sys, unsigned int cpu,
				   enum tlbgen_vt_event ev, unsigned long n)
{
	int err;

	if (!tlbgen__vt_valid(sys) || (unsigned int)ev >= TLBGEN_VT_EVENT_NR)
		return -EINVAL;
	/* A call that would fail draws nothing: the stream stays as it was. */
	err = tlbgen__check_op(sys, cpu);
	return err ? err : tlbgen__vt_event(sys, cpu, ev, n);
}
