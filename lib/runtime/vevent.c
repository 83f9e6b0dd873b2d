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
#include "virtual.h"

/* `cycles` times a factor uniform in [1 - j/1000, 1 + j/1000]. */
static uint64_t dither(struct tlbgen_vcpu *v, uint64_t cycles, uint32_t j)
{
	uint64_t r = tlbgen__prandom(&v->work_rng) >> 11;	/* 53 bits */
	double f = 1.0 + (double)j / 1000.0 * (2.0 * (double)r / (double)(1ULL << 53) - 1.0);
	double c = (double)cycles * f + 0.5;

	return c >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)c;
}

TLBGEN_API int tlbgen_vtime__event(struct tlbgen_system *sys, unsigned int cpu,
				   enum tlbgen_vt_event ev, unsigned long n)
{
	struct tlbgen_vt *vt = tlbgen__vt_valid(sys);
	const struct tlbgen_machine *m;
	uint64_t per;
	bool dithered = true;

	if (!vt || (unsigned int)ev >= TLBGEN_VT_EVENT_NR)
		return -EINVAL;
	m = &sys->machine;
	switch (ev) {
	case TLBGEN_VT_SYSCALL:		per = m->syscall; break;
	case TLBGEN_VT_PAGE_FAULT:	per = m->page_fault; break;
	case TLBGEN_VT_ZAP:		per = m->zap; break;
	case TLBGEN_VT_ZAP_BATCHED:	per = m->zap_batched ?: m->zap; break;
	case TLBGEN_VT_PTL:		per = m->ptl; dithered = false; break;
	default:			per = m->user_work; dithered = false; break;
	}
	/* A call that would fail draws nothing: the stream stays as it was. */
	if (dithered && m->work_jitter) {
		int err = tlbgen__check_op(sys, cpu);

		if (err)
			return err;
		return tlbgen_vtime__spend(sys, cpu, dither(&vt->v[cpu], per * n, m->work_jitter));
	}
	return tlbgen_vtime__spend(sys, cpu, per * n);
}
