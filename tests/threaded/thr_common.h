/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/threaded/thr_common.h - helpers for the threaded tests: a spin
 * barrier that is an IRQ-enable point (it polls, so a CPU waiting in it
 * still answers IPIs), a tiny PRNG, and TSan detection (iteration counts
 * shrink under TSan, which serialises and slows everything).
 */
#ifndef THR_COMMON_H
#define THR_COMMON_H

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>
#include <tlbgen/tlbgen.h>

#if defined(__SANITIZE_THREAD__)
#define THR_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define THR_TSAN 1
#endif
#endif
#ifdef THR_TSAN
#define THR_UNDER_TSAN 1
#else
#define THR_UNDER_TSAN 0
#endif
/* Any sanitizer: instrumentation reshapes instruction timing. */
#if defined(__SANITIZE_ADDRESS__) || defined(THR_TSAN)
#define THR_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define THR_UNDER_SANITIZER 1
#endif
#endif
#ifndef THR_UNDER_SANITIZER
#define THR_UNDER_SANITIZER 0
#endif

static inline void thr_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Sense-counting spin barrier for n emulated CPUs. */
struct thr_barrier {
	atomic_uint count;
	atomic_uint gen;
	unsigned int n;
	unsigned int spins;	/* spins before sched_yield (oversubscribed: small) */
};

static inline void thr_barrier_init(struct thr_barrier *b, unsigned int n, unsigned int spins)
{
	atomic_init(&b->count, 0);
	atomic_init(&b->gen, 0);
	b->n = n;
	b->spins = spins;
}

static inline void thr_barrier_wait(struct thr_barrier *b, struct tlbgen_system *sys,
				    unsigned int cpu)
{
	unsigned int g = atomic_load_explicit(&b->gen, memory_order_acquire);
	unsigned int spins = 0;

	if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) == b->n - 1) {
		atomic_store_explicit(&b->count, 0, memory_order_relaxed);
		atomic_fetch_add_explicit(&b->gen, 1, memory_order_release);
		return;
	}
	while (atomic_load_explicit(&b->gen, memory_order_acquire) == g) {
		tlbgen_poll(sys, cpu);
		if (++spins >= b->spins) {
			spins = 0;
			sched_yield();
		} else {
			thr_relax();
		}
	}
}

static inline uint64_t thr_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static inline unsigned int thr_host_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return (unsigned int)CPU_COUNT(&set);
}

/* Silence INFO (oversubscription notice) but keep WARN. */
static inline int thr_quiet_print(enum tlbgen_print_level level, const char *fmt, va_list ap)
{
	if (level != TLBGEN_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

#endif
