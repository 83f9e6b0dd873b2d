/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/check.h - argument and state checks shared by every public
 * entry point: a failing check returns a negative errno before any state
 * changes.
 */
#ifndef TLBGEN_CORE_CHECK_H
#define TLBGEN_CORE_CHECK_H

#include "state.h"

static inline bool tlbgen__sys_valid(const struct tlbgen_system *sys)
{
	return sys && sys->magic == TLBGEN_SYS_MAGIC;
}

static inline bool tlbgen__mm_valid(const struct tlbgen_system *sys, const struct tlbgen_mm *mm)
{
	return mm && mm->priv.magic == TLBGEN_MM_MAGIC && mm->priv.sys == sys;
}

/* An mm of any system. */
static inline bool tlbgen__mm_ok(const struct tlbgen_mm *mm)
{
	return mm && mm->priv.magic == TLBGEN_MM_MAGIC;
}

/* (sys, cpu) may run an operation on `cpu` now: -EINVAL, -EPERM (threaded:
 * not this thread's CPU), -EBUSY (stepped: waiting) or -EDEADLK (from a
 * cross-CPU callback running on it). */
int tlbgen__check_op(const struct tlbgen_system *sys, unsigned int cpu);

/* Nothing is in flight and no thread is attached: settings may change. */
int tlbgen__check_quiescent(const struct tlbgen_system *sys);

#endif
