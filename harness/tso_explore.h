/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harness/tso_explore.h - schedule and store-buffer exploration on the
 * virtual mode's grain (tlbgen_vtime__set_chooser()), under the sc or tso
 * memory model, shared by `tlbgen-bench explore --memory-model` and
 * tests/virtual/test_tso.c.
 *
 * The configuration is the race both 2025 switch_mm_irqs_off() fixes are
 * about. CPU 1 ran mm A, touched page P (its TLB holds P's translation
 * under A's ASID) and switched to mm B; with the lazy mm_cpumask
 * (209954cbc7d0) it stays in A's mask. Then, concurrently:
 *   CPU 0: change P's PTE; flush_tlb_page(A, P)
 *   CPU 1: switch_mm(A); after CPU 0's flush returned, touch P
 * If CPU 0's flush neither IPIs CPU 1 nor makes CPU 1's switch_mm() see
 * the new tlb_gen, CPU 1 uses the old translation: the oracle reports it.
 *
 * Every shared access is a scheduling point; at each one the explorer picks
 * which CPU runs next and, under tso, whether a store buffer drains. The
 * default pick (index 0) lets the running CPU go on; any other pick is a
 * deviation. The bounded-exhaustive search covers every execution with at
 * most `bound` deviations (delay-bounded search, each execution re-run from
 * scratch with the recorded prefix of picks); the random search draws
 * deviations from a seed. A failing execution is minimised (deviations
 * dropped while it still fails) and printed with the command line that
 * replays it.
 */
#ifndef TLBGEN_TSO_EXPLORE_H
#define TLBGEN_TSO_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tlbgen/tlbgen.h>

#define TX_MAX_POINTS	4096
#define TX_MAX_DEVS	64

struct txcfg {
	const char *profile;		/* built-in or registered */
	const char *choices;		/* extra "k=v,..." or NULL */
	enum tlbgen_memory_model model;
	uint64_t seed;			/* the system's seed (and the random picks') */
};

/* A deviation: at scheduling point `point`, take option `pick` (> 0). */
struct txdev {
	uint32_t point;
	uint16_t pick;
};

struct txresult {
	uint64_t executions;		/* distinct executions run */
	uint64_t max_points;		/* the most scheduling points in one */
	bool exhausted;			/* exhaustive: every execution within the bound */
	bool failed;
	uint64_t seed;			/* random: the failing seed */
	struct txdev devs[TX_MAX_DEVS];	/* the failing execution's deviations */
	size_t ndevs;
	char msg[512];			/* setup error, or the oracle's verdict */
};

/* Every execution with at most `bound` deviations, or until one fails.
 * Returns 0 (res filled), or a negative errno for a bad configuration
 * (res->msg says which). */
int tx_exhaustive(const struct txcfg *cfg, unsigned int bound, struct txresult *res);

/* Seeds [first, first + seeds), each with its own random deviations; stops
 * at the first failure or after `seconds` (0: no limit). */
int tx_random(const struct txcfg *cfg, uint64_t first, uint64_t seeds, uint64_t seconds,
	      struct txresult *res);

/* Replay `devs`; true when the execution fails (res->msg: the verdict). */
int tx_replay(const struct txcfg *cfg, const struct txdev *devs, size_t n,
	      struct txresult *res);

/* Drop deviations while the execution still fails; returns the new count. */
size_t tx_minimise(const struct txcfg *cfg, struct txdev *devs, size_t n);

/* Replay `devs` and print the execution in kernel terms, the window it
 * went through and the command line that replays it. Returns the number
 * of steps printed. */
unsigned int tx_print_trace(FILE *out, const struct txcfg *cfg, const struct txdev *devs,
			    size_t n);

/* "P:K,P:K,...": deviations for --replay. 0, or -EINVAL. */
int tx_parse_devs(const char *s, struct txdev *devs, size_t max, size_t *n);

#endif
