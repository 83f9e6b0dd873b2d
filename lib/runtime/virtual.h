/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/runtime/virtual.h - the virtual-time transport's state: a coroutine
 * and a clock per emulated CPU, a heap of runnable CPUs ordered by clock,
 * and the MESI directory that prices each shared-line access.
 */
#ifndef TLBGEN_RUNTIME_VIRTUAL_H
#define TLBGEN_RUNTIME_VIRTUAL_H

#include "../base/coro.h"
#include "../core/state.h"

enum vcpu_state {
	VCPU_UNBORN = 0,	/* no coroutine yet */
	VCPU_RUNNABLE,		/* in the heap */
	VCPU_RUNNING,
	VCPU_BLOCKED,		/* idle or waiting: woken by an IPI or a csd unlock */
};

struct tlbgen_vcpu {
	struct tlbgen_coro coro;
	uint64_t clock;			/* cycles */
	uint64_t ipi_at;		/* arrival of the earliest pending IPI; ~0 none */
	uint64_t tiebreak;		/* seeded, drawn at each scheduling point */
	enum vcpu_state state;
	uint64_t sleep_from;		/* clock when it went to sleep */
	bool sleeping;			/* idle, waiting or spending: an IPI wakes it */
	bool waiting;			/* in csd_lock_wait(): a csd unlock wakes it too */
	bool started;			/* the coroutine exists */
	bool has_program, program_started, finished;
	struct tlbgen_vt *vt;
	unsigned int id;
	unsigned int heap_pos;
	tlbgen_cpu_fn fn;
	void *arg;
	int ret;
};

struct tlbgen_vt {
	struct tlbgen_system *sys;
	struct tlbgen_vcpu *v;
	unsigned int *heap;		/* runnable CPUs, a binary heap by (clock, tiebreak) */
	unsigned int nr_heap;
	unsigned int current;		/* the running CPU; nr_cpus: the host */
	struct tlbgen_coro host;
	uint64_t stop_at;
	uint64_t rng;
	struct tlbgen_coherence *dir;
	uint16_t *socket;		/* socket of each CPU */
	size_t stack_size;
	void (*cpu_main)(void *vcpu);	/* the coroutine body of every CPU */
	struct tlbgen_vtime_stats stats;
};

#define VT_NEVER	UINT64_MAX

extern const struct tlbgen_transport tlbgen__virtual_transport;

/* vsched.c */
void tlbgen__vt_push(struct tlbgen_vt *vt, unsigned int cpu);
unsigned int tlbgen__vt_pop(struct tlbgen_vt *vt);
/* Leave `from` for `to` (a CPU, or nr_cpus: the host thread). */
void tlbgen__vt_switch(struct tlbgen_vt *vt, unsigned int from, unsigned int to);
/* The running CPU passes a scheduling point at its clock. */
void tlbgen__vt_sched(struct tlbgen_vt *vt, unsigned int cpu);
/* Sleep until `until` (VT_NEVER: until woken) or an earlier tlbgen__vt_wake(). */
void tlbgen__vt_sleep(struct tlbgen_vt *vt, unsigned int cpu, uint64_t until);
/* Wake a sleeping (or never started) CPU at time t. */
void tlbgen__vt_wake(struct tlbgen_vt *vt, unsigned int cpu, uint64_t t);


/* For runtime/cpu.c: spawn / should_stop / join on a virtual system. */
int tlbgen__vt_spawn(struct tlbgen_system *sys, unsigned int cpu, tlbgen_cpu_fn fn, void *arg);
int tlbgen__vt_should_stop(const struct tlbgen_system *sys, unsigned int cpu);
int tlbgen__vt_join(struct tlbgen_system *sys, unsigned int cpu, int *ret);

#endif
