/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harness/explore/explore_preempt.h - the explorer's preempted-waiter op
 * (XOP_PREEMPT): a task waiting in csd_lock_wait() is preempted and
 * another task runs on its CPU (tlbgen_cpu__preempt_waiter()), or the
 * preempted task runs again (tlbgen_cpu__resume_waiter()).
 */
#ifndef TLBGEN_EXPLORE_PREEMPT_H
#define TLBGEN_EXPLORE_PREEMPT_H

#include <stdbool.h>
#include <stdint.h>

#include <tlbgen/tlbgen.h>

struct xop;

/* Run XOP_PREEMPT on cpu: resume its preempted waiter if one is there and
 * the running task does not wait, else preempt its waiting task. *ret is
 * the library's return; true when that return is not a documented one. */
bool xpl_preempt_op(struct tlbgen_system *sys, unsigned int cpu, long *ret);

/* Under a profile with smp_wait_preempt=on, now and then (a draw from *s)
 * an XOP_PREEMPT on a CPU where it does something, or a flush by the task
 * that runs while a waiter is preempted there; true if *o was filled.
 * Draws (rn(s, n): one below n) nothing under other profiles, so their runs stay as they were. */
bool xpl_preempt_gen(struct tlbgen_system *sys, unsigned int nr_cpus, unsigned int nr_mms,
		     uint64_t *s, unsigned int (*rn)(uint64_t *, unsigned int),
		     struct xop *o);

/* Before the final audit: every preempted waiter runs again once the task
 * that ran instead was answered. Returns 0 or the first error. */
int xpl_preempt_settle(struct tlbgen_system *sys, unsigned int nr_cpus);

#endif
