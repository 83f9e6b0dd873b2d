/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/common/tlbgen-test.h - helpers shared by the CMocka tests of every
 * area: system/mm construction that asserts, counter read-out, quiet print
 * handlers, an event recorder built on the trace hooks, captured library
 * messages, the overlapping-flush workload of seed 000, and for the
 * threaded tests a polling spin barrier, a PRNG and sanitizer detection.
 * Link with tlbgen_test_dep (tests/common/meson.build).
 */
#ifndef TLBGEN_TESTS_TLBGEN_TEST_H
#define TLBGEN_TESTS_TLBGEN_TEST_H

#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <tlbgen/tlbgen.h>

/* A CMocka test with an initial state, named "fn[state]". */
#define T_PRE(fn, st) { #fn "[" #st "]", fn, NULL, NULL, (void *)(st) }
/* The same test under each correct built-in profile. */
#define T_EACH(fn) T_PRE(fn, "v5.17"), T_PRE(fn, "v6.0"), T_PRE(fn, "v6.4"), \
		   T_PRE(fn, "v6.14"), T_PRE(fn, "v6.16"), \
		   T_PRE(fn, "latest")

#define PG(n) ((unsigned long)(n) << TLBGEN_PAGE_SHIFT)

/* A stepped system with `nr_cpus` CPUs under `profile`; asserts on failure. */
struct tlbgen_system *t_sys(const char *profile, unsigned int nr_cpus, uint64_t seed);
struct tlbgen_system *t_sys_opts(const struct tlbgen_system_opts *opts);
/* `n` CPUs in `mode` under `profile` plus extra choices (may be NULL), seed 42. */
struct tlbgen_system *t_sys_mode(unsigned int n, enum tlbgen_mode mode, const char *profile,
				 const char *choices);
/* A threaded system of `n` CPUs under `profile` with runtime options `rt` (may be NULL). */
struct tlbgen_system *t_sys_threaded(unsigned int n, const struct tlbgen_runtime_opts *rt,
				     const char *profile);

/* Two threaded CPUs under "latest": CPU 1 spawned to run fn(sys, 1, t),
 * which sets t->ready once it runs t->mm (4 pages); CPU 0 is the caller. */
struct t_two {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	atomic_bool ready, flushed;
	bool saw_report;
};
/* Create, spawn CPU 1, attach CPU 0, wait for ready; asserts on failure. */
void t_two_start(struct t_two *t, const struct tlbgen_runtime_opts *rt, tlbgen_cpu_fn fn);
/* Detach CPU 0 and destroy the system (CPU 1 joined by the test). */
void t_two_stop(struct t_two *t);
struct tlbgen_mm *t_mm(struct tlbgen_system *sys, unsigned long nr_pages);

/* Counters and state, asserting the calls succeed. */
uint64_t t_cpu_stat(const struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_stat s);
uint64_t t_sys_stat(const struct tlbgen_system *sys, enum tlbgen_stat s);
uint64_t t_mm_stat(const struct tlbgen_mm *mm, enum tlbgen_stat s);
uint64_t t_mm_gen(const struct tlbgen_mm *mm);
uint64_t t_local_gen(const struct tlbgen_system *sys, unsigned int cpu);
struct tlbgen_cpu_tlbstate t_state(const struct tlbgen_system *sys, unsigned int cpu);

/* Switch every CPU in [first, last] to mm. */
void t_switch_all(struct tlbgen_system *sys, unsigned int first, unsigned int last,
		  struct tlbgen_mm *mm);

/* Deliver everything; return the number of deliveries. */
int t_idle(struct tlbgen_system *sys);

/* One will-it-scale tlb_flush1 op in virtual time on `cpu`'s page `addr`:
 * the fault that maps it (event, PTE change, access), then madvise (event,
 * zap, one-page flush). 0 or the first error. */
int t_vt_tlb_flush1_op(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
		       unsigned long addr);

/* tlbgen_set_print() handlers: t_quiet_print drops every message,
 * t_warn_print keeps WARN only (silences the oversubscription notice). */
int t_quiet_print(enum tlbgen_print_level level, const char *fmt, va_list ap);
int t_warn_print(enum tlbgen_print_level level, const char *fmt, va_list ap);

/* ---- event recorder (trace hooks) ------------------------------------------ */

enum t_ev_kind { EV_IPI_SEND = 1, EV_IPI_RECV, EV_FLUSH, EV_LINE };

struct t_event {
	uint8_t kind;
	uint8_t sub;		/* flush kind, line kind */
	uint8_t op;		/* line op */
	uint16_t a, b;		/* cpus */
	unsigned long n;	/* pages */
};

struct t_rec {
	struct t_event *ev;
	size_t nr, cap;
	bool lines;		/* record line accesses too */
	/* Optional hook run on every event (after recording). */
	void (*hook)(struct t_rec *r, const struct t_event *e);
	void *priv;
};

/* Install the recorder on sys (lines: also record line accesses). */
void t_rec_install(struct tlbgen_system *sys, struct t_rec *r, bool lines);
void t_rec_clear(struct t_rec *r);
void t_rec_free(struct t_rec *r);
/* Index of the first event matching after `from`, or -1. */
long t_rec_find(const struct t_rec *r, size_t from, uint8_t kind, int sub, int op, int a, int b);

/* ---- captured library messages -------------------------------------------- */

void t_capture_start(void);
/* Stops capturing and returns the text (static buffer). */
const char *t_capture_stop(void);

/* ---- seed 000's overlapping-flush workload ------------------------------- */

struct t_wl_params {
	const char *profile;
	const char *choices;	/* NULL or "k=v,..." applied on top */
	unsigned int nr_cpus;	/* all run the one mm */
	unsigned int rounds;
	uint64_t sys_seed;	/* the stepped scheduler's seed */
	uint64_t wl_seed;	/* which CPU initiates / accesses which page */
	bool record_lines;	/* also record every shared-line access */
};

#define T_WL_MAX_CPUS 16

struct t_wl_result {
	uint64_t flushes;		/* flush_tlb_mm_range calls */
	uint64_t remote_calls;		/* flush_tlb_func on a non-initiator */
	uint64_t remote_reads;		/* mm tlb_gen reads made during deliveries */
	uint64_t local_reads;		/* ... made inside the initiators' calls */
	uint64_t early_skip, up_to_date, full, partial, pages;
	uint64_t ipis, calls_queued;
	uint64_t max_queue;		/* deepest call queue seen */
	long violations;
	uint64_t stats[TLBGEN_STAT_NR];	/* whole-system counters at the end */
	uint64_t cpu_stats[T_WL_MAX_CPUS][TLBGEN_STAT_NR];
	struct t_rec rec;		/* event order (caller frees with t_rec_free) */
};

void t_workload(const struct t_wl_params *p, struct t_wl_result *out);
void t_wl_print(const char *column, const struct t_wl_params *p, const struct t_wl_result *r);

/* ---- threaded tests ------------------------------------------------------- */
/*
 * A spin barrier that is an IRQ-enable point (it polls, so a CPU waiting in
 * it still answers IPIs), a tiny PRNG, and sanitizer detection (iteration
 * counts shrink under TSan, which serialises and slows everything).
 */
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

/* CLOCK_MONOTONIC in ms: deadlines that end a wait which should never get there. */
static inline uint64_t thr_ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
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

#endif
