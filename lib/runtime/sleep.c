// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/sleep.c - an emulated CPU with nothing to do sleeps on a
 * futex; whoever makes its condition true wakes it.
 */
#include <limits.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "runtime.h"

static void futex_wait_ms(atomic_uint *word, unsigned int val, unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

/*
 * Wake `cpu` if it sleeps. The caller made its condition true first; the
 * fence pairs with the one in tlbgen__rt_sleep() (SB: either the sleeper sees the
 * condition, or we see `sleeping`).
 */
void tlbgen__rt_wake(struct tlbgen_rt_cpu *r)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&r->sleeping, memory_order_relaxed)) {
		atomic_fetch_add_explicit(&r->futex, 1, memory_order_relaxed);
		syscall(SYS_futex, &r->futex, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	}
}

/* Sleep unless cond(sys, cpu) turns true; woken by tlbgen__rt_wake() or the timeout. */
void tlbgen__rt_sleep(struct tlbgen_system *sys, unsigned int cpu,
		      bool (*cond)(struct tlbgen_system *, unsigned int), unsigned int ms)
{
	struct tlbgen_rt_cpu *r = rtc(sys, cpu);
	unsigned int seq = atomic_load_explicit(&r->futex, memory_order_relaxed);

	atomic_store_explicit(&r->sleeping, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	if (!cond(sys, cpu)) {
		rt_inc(&rt_of(sys)->futex_sleeps);
		futex_wait_ms(&r->futex, seq, ms);
	}
	atomic_store_explicit(&r->sleeping, 0, memory_order_relaxed);
}

