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

/* One store in a CPU's store buffer (TLBGEN_MEMORY_TSO). */
struct tlbgen_sb_entry {
	enum tlbgen_sb_field f;
	void *addr;
	unsigned int size;		/* 1, 2, 4 or 8 bytes */
	uint64_t val;
	uint64_t commit_at;		/* clock scheduler: commits at or after this */
};

/* Skylake's store buffer holds 56 entries; the flush paths make a handful
 * of plain stores between drains, so 16 is never the limit here (a full
 * buffer commits its oldest entry, as the hardware stalls until it does). */
#define VT_SB_SIZE	16

struct tlbgen_vcpu {
	struct tlbgen_coro coro;
	uint64_t clock;			/* cycles */
	uint64_t ipi_at;		/* arrival of the earliest pending IPI; ~0 none */
	uint64_t tiebreak;		/* seeded, drawn at each scheduling point */
	enum vcpu_state state;
	uint64_t sleep_from;		/* clock when it went to sleep */
	enum tlbgen_vt_time sleep_kind;	/* what the sleep's time is charged to */
	bool sleeping;			/* idle, waiting or spending: an IPI wakes it */
	bool waiting;			/* in csd_lock_wait(): a csd unlock wakes it too */
	bool started;			/* the coroutine exists */
	bool has_program, program_started, finished;
	bool blocked;			/* in tlbgen_vtime__block() */
	bool wake_pending;		/* a tlbgen_vtime__wake() not consumed yet */
	uint64_t wake_at;		/* when that wake reaches the CPU */
	struct tlbgen_vt *vt;
	unsigned int id;
	tlbgen_cpu_fn fn;
	void *arg;
	int ret;
	struct tlbgen_sb_entry sb[VT_SB_SIZE];	/* FIFO from sb_head */
	unsigned int sb_head, sb_len;
	uint64_t work_rng;		/* the machine's work_jitter draws (vevent.c) */
};

/* A runnable CPU in the heap, with its keys. */
struct tlbgen_vt_heap_ent {
	uint64_t clock, tiebreak;
	unsigned int cpu;
};

struct tlbgen_vt {
	struct tlbgen_system *sys;
	struct tlbgen_vcpu *v;
	struct tlbgen_vt_heap_ent *heap;	/* runnable CPUs, a binary heap by (clock, tiebreak) */
	unsigned int *heap_pos;		/* each CPU's place in it (in the heap's block) */
	unsigned int nr_heap;
	unsigned int current;		/* the running CPU; nr_cpus: the host */
	struct tlbgen_coro host;
	uint64_t stop_at;
	uint64_t rng;
	struct tlbgen_coherence *dir;
	uint16_t *socket;		/* socket of each CPU */
	size_t stack_size;
	void (*cpu_main)(void *vcpu);	/* the coroutine body of every CPU */
	/* A buffered csd_unlock() of a csd `src` waits for reached memory at t
	 * (set by virtual.c, so that vmodel.c does not call the scheduler). */
	void (*csd_committed)(struct tlbgen_vt *vt, unsigned int src, uint64_t t);
	struct tlbgen_vtime_stats stats;
	enum tlbgen_memory_model model;
	struct tlbgen_vt_chooser chooser;	/* .choose NULL: scheduled by the clock */
	struct tlbgen_vt_option *opts;		/* [2 * nr_cpus], with a chooser */
	uint64_t serial_busy_until;		/* vserial.c: its server's next free time */
};

#define VT_NEVER	UINT64_MAX

/* Advance the running CPU's clock by `cycles`, charged to `kind`. */
static inline void tlbgen__vt_charge(struct tlbgen_vt *vt, struct tlbgen_vcpu *me,
				     enum tlbgen_vt_time kind, uint64_t cycles)
{
	me->clock += cycles;
	vt->stats.time[kind] += cycles;
}

extern const struct tlbgen_transport tlbgen__virtual_transport;

/* virtual.c: the running CPU works `cycles`; IPIs that arrive meanwhile
 * are taken on time if IRQs are on, and lengthen it. */
void tlbgen__vt_spend(struct tlbgen_vt *vt, unsigned int cpu, uint64_t cycles);

/* vsched.c */
void tlbgen__vt_push(struct tlbgen_vt *vt, unsigned int cpu);
unsigned int tlbgen__vt_pop(struct tlbgen_vt *vt);
/* Leave `from` for `to` (a CPU, or nr_cpus: the host thread). */
void tlbgen__vt_switch(struct tlbgen_vt *vt, unsigned int from, unsigned int to);
/* The running CPU passes a scheduling point at its clock. */
void tlbgen__vt_sched(struct tlbgen_vt *vt, unsigned int cpu);
/* Sleep until `until` (VT_NEVER: until woken) or an earlier tlbgen__vt_wake(),
 * the time asleep charged to `kind`. */
void tlbgen__vt_sleep(struct tlbgen_vt *vt, unsigned int cpu, uint64_t until,
		      enum tlbgen_vt_time kind);
/* Wake a sleeping (or never started) CPU at time t. */
void tlbgen__vt_wake(struct tlbgen_vt *vt, unsigned int cpu, uint64_t t);
/* vt->csd_committed: wake `src` if it waits in csd_lock_wait(). */
void tlbgen__vt_csd_committed(struct tlbgen_vt *vt, unsigned int src, uint64_t t);
/* The first CPU to run (nr_cpus: none is runnable), by the clock or the chooser. */
unsigned int tlbgen__vt_first(struct tlbgen_vt *vt);

/* vmodel.c: store buffers (TLBGEN_MEMORY_TSO) and the chooser's notes. */
void tlbgen__vt_sb_drain(struct tlbgen_vt *vt, unsigned int cpu, const char *why);
void tlbgen__vt_sb_drain_one(struct tlbgen_vt *vt, unsigned int cpu, const char *why);
/* At `cpu`'s scheduling point: commit the entries due by the clock. */
void tlbgen__vt_sb_tick(struct tlbgen_vt *vt, unsigned int cpu);
/* Before `cpu`'s load of a cpu_tlbstate line `id`: note a store it misses. */
void tlbgen__vt_sb_check_read(struct tlbgen_vt *vt, unsigned int cpu, enum tlbgen_line line,
			      uintptr_t id);
void tlbgen__vt_note(struct tlbgen_vt *vt, unsigned int cpu, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool tlbgen__vt_sb_store(struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_sb_field f,
			 void *addr, unsigned int size, uint64_t val);
bool tlbgen__vt_sb_load(const struct tlbgen_system *sys, unsigned int cpu, const void *addr,
			uint64_t *val);
const char *tlbgen__vt_fence_why(enum tlbgen_fence_kind why);
void tlbgen__vt_ipi_skipped(struct tlbgen_system *sys, unsigned int cpu, unsigned int target);


/* virtual.c: the system's state if `sys` is virtual, else NULL; take the
 * IPI that has arrived on `cpu` if its IRQs are on. */
struct tlbgen_vt *tlbgen__vt_valid(const struct tlbgen_system *sys);
void tlbgen__vt_take_arrived_ipis(struct tlbgen_vt *vt, unsigned int cpu);
/* The test inline: at most scheduling points no IPI has arrived. */
static inline void tlbgen__vt_take_ipis(struct tlbgen_vt *vt, unsigned int cpu)
{
	if (vt->v[cpu].ipi_at <= vt->v[cpu].clock)
		tlbgen__vt_take_arrived_ipis(vt, cpu);
}

/* vkword.c: the cycles of a kernel word's access (core/kword.h) by the
 * running CPU `cpu` (0 from the host), its line's state updated. */
uint64_t tlbgen__vt_kword_cost(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_kword *w,
			       enum tlbgen_kword_op op);

/* vserial.c: exec->serial, a wait served one CPU at a time. */
void tlbgen__vt_serial(struct tlbgen_system *sys, unsigned int cpu, uint64_t cycles);

/* For runtime/cpu.c: spawn / should_stop / join on a virtual system. */
int tlbgen__vt_spawn(struct tlbgen_system *sys, unsigned int cpu, tlbgen_cpu_fn fn, void *arg);
int tlbgen__vt_should_stop(const struct tlbgen_system *sys, unsigned int cpu);
int tlbgen__vt_join(struct tlbgen_system *sys, unsigned int cpu, int *ret);

#endif
