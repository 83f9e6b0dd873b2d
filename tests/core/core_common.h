/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/core/core_common.h - helpers shared by the core (stepped-mode) tests:
 * system/mm construction that asserts, counter read-out, an event recorder
 * built on the trace hooks, and the overlapping-flush workload of seed 000.
 */
#ifndef TLBGEN_TESTS_CORE_COMMON_H
#define TLBGEN_TESTS_CORE_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include <tlbgen/tlbgen.h>

/* A CMocka test with an initial state, named "fn[state]". */
#define T_PRE(fn, st) { #fn "[" #st "]", fn, NULL, NULL, (void *)(st) }
/* The same test under each correct built-in profile. */
#define T_EACH(fn) T_PRE(fn, "v5.17"), T_PRE(fn, "v6.0"), T_PRE(fn, "v6.14"), \
		   T_PRE(fn, "latest")

#define PG(n) ((unsigned long)(n) << TLBGEN_PAGE_SHIFT)

/* A stepped system with `nr_cpus` CPUs under `profile`; asserts on failure. */
struct tlbgen_system *t_sys(const char *profile, unsigned int nr_cpus, uint64_t seed);
struct tlbgen_system *t_sys_opts(const struct tlbgen_system_opts *opts);
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

#endif
