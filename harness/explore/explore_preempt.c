// SPDX-License-Identifier: LGPL-2.1-or-later
/* harness/explore/explore_preempt.c - see explore_preempt.h. */
#include <errno.h>
#include <string.h>

#include "explore_engine.h"
#include "explore_preempt.h"

bool xpl_preempt_op(struct tlbgen_system *sys, unsigned int cpu, long *ret)
{
	int saved = tlbgen_cpu__preempted_waiter(sys, cpu);
	int waiting = tlbgen_cpu__is_waiting(sys, cpu);

	if (saved == 1 && !waiting) {
		*ret = tlbgen_cpu__resume_waiter(sys, cpu);
		return *ret != 0;
	}
	*ret = tlbgen_cpu__preempt_waiter(sys, cpu);
	switch (*ret) {
	case 0:
		return waiting != 1 || tlbgen_cpu__is_waiting(sys, cpu) != 0;
	case -EOPNOTSUPP:
	case -EPERM:	/* this wait holds preemption off */
		return false;
	case -ENOENT:
		return waiting != 0;
	case -EBUSY:
		return saved != 1;
	default:
		return true;
	}
}

static bool preempt_on(struct tlbgen_system *sys)
{
	const char *v = tlbgen_system__get_choice(sys, "smp_wait_preempt");

	return v && !strcmp(v, "on");
}

bool xpl_preempt_gen(struct tlbgen_system *sys, unsigned int nr_cpus, unsigned int nr_mms,
		     uint64_t *s, unsigned int (*rn)(uint64_t *, unsigned int),
		     struct xop *o)
{
	unsigned int cand[XPL_MAX_CPUS], k = 0, cpu;
	bool resume;

	if (!preempt_on(sys))
		return false;
	if (rn(s, 100) < 30) {
		/* A CPU a call is queued on uses a hot page (the engine's
		 * hot_page() set): if the flush whose call it is already
		 * returned, the oracle sees the stale use. */
		for (unsigned int c = 0; c < nr_cpus; c++)
			if (tlbgen_cpu__pending_calls(sys, c) > 0 && !tlbgen_cpu__is_waiting(sys, c))
				cand[k++] = c;
		if (k) {
			memset(o, 0, sizeof(*o));
			o->kind = XOP_ACCESS;
			o->cpu = (uint8_t)cand[rn(s, k)];
			o->a = rn(s, 8) + (rn(s, 3) ? 0 : 512);
			return true;
		}
	}
	if (rn(s, 100) >= 60)
		return false;
	for (unsigned int c = 0; c < nr_cpus; c++) {
		int saved = tlbgen_cpu__preempted_waiter(sys, c) == 1;
		int waiting = tlbgen_cpu__is_waiting(sys, c) == 1;

		if (saved != waiting)	/* resume, or preempt */
			cand[k++] = c;
	}
	if (!k)
		return false;
	cpu = cand[rn(s, k)];
	resume = tlbgen_cpu__preempted_waiter(sys, cpu) == 1;
	memset(o, 0, sizeof(*o));
	o->cpu = (uint8_t)cpu;
	if (resume && rn(s, 2)) {
		/* The task that runs instead flushes too: the reuse the
		 * series' commit messages describe needs one. */
		o->kind = XOP_FLUSH_RANGE;
		o->mm = (uint8_t)rn(s, nr_mms);
		o->a = rn(s, 16);
		o->b = rn(s, 4);	/* 0: FLUSH_ALL */
		return true;
	}
	o->kind = XOP_PREEMPT;
	return true;
}

int xpl_preempt_settle(struct tlbgen_system *sys, unsigned int nr_cpus)
{
	for (unsigned int c = 0; c < nr_cpus; c++) {
		while (tlbgen_cpu__preempted_waiter(sys, c) == 1) {
			int err = tlbgen_run_until_idle(sys);

			if (err < 0)
				return err;
			err = tlbgen_cpu__resume_waiter(sys, c);
			if (err)
				return err;
		}
	}
	return 0;
}
