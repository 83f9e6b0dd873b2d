/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/runtime/runtime.h - the threaded transport's own state, shared by its
 * files: threaded.c (the transport: IPIs, waits, the watchdog), irq.c
 * (taking IPIs), signal.c
 * (the signal backend), sleep.c (futex sleep and wake), placement.c (host
 * topology and NUMA), cpu.c (attach, spawn, join, the idle loop).
 */
#ifndef TLBGEN_RUNTIME_RUNTIME_H
#define TLBGEN_RUNTIME_RUNTIME_H

#include <time.h>

#include "../core/access.h"

#define TLBGEN_DEFAULT_SPINS		256
#define TLBGEN_OVERSUB_SPINS		16
#define TLBGEN_DEFAULT_YIELDS		512
#define TLBGEN_DEFAULT_WATCHDOG_MS	5000
#define TLBGEN_IDLE_SLEEP_MS		50
#define TLBGEN_IPI_SIGNAL_OFFSET	5	/* SIGRTMIN + 5 */

/* Per emulated CPU, allocated on its node. The first line is read by
 * wakers (sleeping) and written only when the CPU goes to sleep. */
struct tlbgen_rt_cpu {
	atomic_uint futex;		/* wake sequence */
	atomic_uint sleeping;
	atomic_int kick_refs;		/* senders between "thread valid" and pthread_kill */
	atomic_bool thread_valid;	/* `thread` may be signalled */
	pthread_t thread;
	/* spawned threads */
	atomic_bool stop __cacheline_aligned;
	atomic_bool spawned;
	pthread_t spawn_thread;
	tlbgen_cpu_fn fn;
	void *arg;
	int ret;
	struct tlbgen_system *sys;
	unsigned int cpu;
} __cacheline_aligned;

struct tlbgen_rt {
	int *host;			/* real CPU per emulated CPU */
	int *node;			/* its NUMA node, -1 unknown */
	unsigned int nr_host;		/* distinct real CPUs used */
	bool oversubscribed;
	bool numa;
	unsigned int spins, yields, watchdog_ms;
	_Atomic uint64_t watchdog_reports, signals_sent, signals_handled, signals_deferred,
		yields_done, futex_sleeps, ipis_resent;
};

static inline struct tlbgen_rt *rt_of(const struct tlbgen_system *sys)
{
	return sys->rt;
}

static inline struct tlbgen_rt_cpu *rtc(const struct tlbgen_system *sys, unsigned int cpu)
{
	return tlbgen__cpu(sys, cpu)->priv.rt;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

static inline void rt_inc(_Atomic uint64_t *c)
{
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

extern const struct tlbgen_transport tlbgen__threaded_transport;
extern const struct tlbgen_transport tlbgen__stepped_transport;

/* sleep.c */
void tlbgen__rt_wake(struct tlbgen_rt_cpu *r);
void tlbgen__rt_sleep(struct tlbgen_system *sys, unsigned int cpu,
		      bool (*cond)(struct tlbgen_system *, unsigned int), unsigned int ms);

/* signal.c */
int tlbgen__rt_install_handler(void);
void tlbgen__rt_kick(struct tlbgen_system *sys, unsigned int target);

/* irq.c: run cpu's queue until it stays empty; the irq_enable op. */
int tlbgen__rt_take_ipis(struct tlbgen_system *sys, unsigned int cpu);
void tlbgen__rt_irq_enable(struct tlbgen_system *sys, unsigned int cpu);
static inline bool tlbgen__rt_queue_nonempty(struct tlbgen_cpu *c)
{
	return !tlbgen__call_queue_empty(&c->queue);
}

/* placement.c: compute sys->rt and the host CPU of each emulated CPU. */
int tlbgen__rt_placement(struct tlbgen_system *sys);

/*
 * vstats.c: in virtual time, the clock of the CPU that runs now (a counter
 * read from a CPU's program is as of that clock); -ENOENT from the host or
 * in another mode.
 */
int tlbgen__vt_reader_clock(const struct tlbgen_system *sys, uint64_t *out);

/* cpu.c: the idle loop of a spawned CPU. */
void tlbgen__rt_idle_loop(struct tlbgen_system *sys, unsigned int cpu);

#endif
