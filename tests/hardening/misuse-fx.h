/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/hardening/misuse-fx.h - the fixture of the API misuse tests
 * (test_misuse.c, test_misuse_runtime.c): system A (stepped, latest) with a
 * CPU waiting for acknowledgements and mms loaded and lazy, system B for
 * objects of another system, and a snapshot of everything observable that
 * ERR(), NEG() and ZERO() compare before and after each call.
 */
#ifndef TLBGEN_TESTS_HARDENING_MISUSE_FX_H
#define TLBGEN_TESTS_HARDENING_MISUSE_FX_H

#include <stdint.h>
#include <string.h>

#include <tlbgen/tlbgen.h>

#include "tlbgen-test.h"

#define NCPU	4
#define PAGES	64UL
#define BAD_CPU	NCPU
#define HUGE_CPU 0xffffffffu

/* The fixture: system A (stepped, latest) in a wrong-for-everything state,
 * system B for "objects of another system". */
struct fx {
	struct tlbgen_system *a, *b;
	struct tlbgen_mm *mm1;	/* loaded on cpu 0 and 1 */
	struct tlbgen_mm *mm2;	/* cpu 3 has it loaded lazily (a kernel thread runs there) */
	struct tlbgen_mm *mmb;	/* of system B */
	struct tlbgen_tlbbatch *batch, *batchb;
	struct tlbgen_unmap_batch *ubc, *ubcb;
};

extern struct fx F;

struct snap {
	struct tlbgen_cpu_tlbstate ts[NCPU];
	int waiting[NCPU], pending[NCPU], ipi[NCPU], loaded1[NCPU];
	uint64_t stats[TLBGEN_STAT_NR], mmstats[2][TLBGEN_STAT_NR];
	uint64_t fstats[TLBGEN_FAULT_STAT_NR];
	uint64_t gen[3], trim[3];
	int weight[3], bits[3][NCPU], batched[3];
	long viol, warns, ceiling, ceil[TLBGEN_ARCH_NR];
	uint64_t jiffies;
	char policy[1024], profile[64];
	int batch_w, ubc_req, ubc_wr, pteflags[4];
	struct tlbgen_cost_account cost;
	struct tlbgen_cost_model model;
};

extern struct snap before, after;

void take(struct snap *s);
void check(int line, const char *expr, long ret, long want);

/* ERR(e, call): returns exactly -e and changes nothing. NEG(call): any
 * negative errno. ZERO(call): returns 0/NULL/false (value getters). */
#define ERR(e, call)  do { take(&before); long _r = (long)(call); check(__LINE__, #call, _r, -(long)(e)); } while (0)
#define NEG(call)     do { take(&before); long _r = (long)(call); check(__LINE__, #call, _r, 0); } while (0)
#define ZERO(call)    do { take(&before); long _r = (long)(uintptr_t)(call); \
			   if (_r) fail_msg("line %d: %s returned %ld, want 0", __LINE__, #call, _r); \
			   take(&after); \
			   if (memcmp(&before, &after, sizeof(before))) \
				fail_msg("line %d: %s changed the state", __LINE__, #call); } while (0)

/* Group setup and teardown: build and free the fixture F. */
int setup(void **state);
int teardown(void **state);
/* A group's last check: every call of the group together left F's state as
 * setup() built it (each call is also checked alone, by ERR() and friends). */
void test_state_as_set_up(void **state);

#endif /* TLBGEN_TESTS_HARDENING_MISUSE_FX_H */
