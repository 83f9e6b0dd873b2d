/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/runtime/sprog.h - programs on a stepped system (runtime/sprog.c):
 * coroutines the stepped scheduler interleaves with IPI deliveries.
 */
#ifndef TLBGEN_RUNTIME_SPROG_H
#define TLBGEN_RUNTIME_SPROG_H

#include "../core/state.h"

/* The stepped transport's destroy: the programs' coroutines. */
void tlbgen__sprog_free(struct tlbgen_system *sys);
/* `cpu`'s program is the one running now (not the host). */
bool tlbgen__sprog_running(const struct tlbgen_system *sys, unsigned int cpu);
/* stepped_wait() from the running program: yield until it no longer waits. */
void tlbgen__sprog_wait(struct tlbgen_system *sys, unsigned int cpu);
/* tlbgen_cpu__spawn / should_stop / join on a stepped system. */
int tlbgen__sprog_spawn(struct tlbgen_system *sys, unsigned int cpu, tlbgen_cpu_fn fn, void *arg);
int tlbgen__sprog_should_stop(struct tlbgen_system *sys, unsigned int cpu);
int tlbgen__sprog_join(struct tlbgen_system *sys, unsigned int cpu, int *ret);
/* The running program of `cpu` sleeps until *cond or the run's end (1),
 * 0 once *cond; -EPERM when `cpu`'s program is not the one running. */
int tlbgen__stepped_block(struct tlbgen_system *sys, unsigned int cpu, atomic_bool *cond);
/* tlbgen_stepped__run()'s side (runtime/stepped.c): 1 if no program was
 * ever spawned, -EBUSY from a program, else 0. */
int tlbgen__sprog_begin(struct tlbgen_system *sys);
/* The programs that can run into cand[] (CPU numbers), how many; *busy:
 * some program has not returned. `stop`: the run's steps are spent. */
unsigned int tlbgen__sprog_runnable(struct tlbgen_system *sys, bool stop, unsigned int *cand,
				    bool *busy);
/* Resume `cpu`'s program until it yields or returns. */
int tlbgen__sprog_resume(struct tlbgen_system *sys, unsigned int cpu);
/* `cpu` wakes `target` (its condition is already set). */
int tlbgen__stepped_wake(struct tlbgen_system *sys, unsigned int cpu, unsigned int target);

#endif
