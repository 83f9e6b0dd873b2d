/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/core/scheduler-fx.h - helpers of the stepped-scheduler tests: a
 * system of NR (or any number of) CPUs with the mm loaded on every CPU
 * but those = 1 mod 3, so that the pending set spans bitmap words and has
 * holes, and a recorder of the CPUs tlbgen_step() picks.
 */
#ifndef TLBGEN_TESTS_CORE_SCHEDULER_FX_H
#define TLBGEN_TESTS_CORE_SCHEDULER_FX_H

#include "../common/tlbgen-test.h"

#define NR	150
#define LOADED(cpu)	((cpu) % 3 != 1)

struct tlbgen_system *sched_sys_n(unsigned int nr, uint64_t seed, struct tlbgen_mm **mm);
struct tlbgen_system *sched_sys(uint64_t seed, struct tlbgen_mm **mm);
/* Step until idle, recording the CPUs chosen; returns how many. */
unsigned int record_steps(struct tlbgen_system *sys, int *seq, unsigned int max);

#endif /* TLBGEN_TESTS_CORE_SCHEDULER_FX_H */
