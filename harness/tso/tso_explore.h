/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harness/tso/tso_explore.h - schedule and store-buffer exploration on the
 * virtual mode's grain (tlbgen_vtime__set_chooser()), under the sc or tso
 * memory model, shared by `tlbgen-bench explore --memory-model` and
 * tests/virtual/test_tso.c.
 *
 * It explores scenarios (tso_scen.c): small programs of 2-4 CPUs, each one
 * of the kernel's interleavings around a shootdown (switch_mm against a
 * flush, a lazy CPU's return, the mm_cpumask trim, batched unmap,
 * flush_tlb_kernel_range(), the csd lock, the INVLPGB transition), judged
 * by the oracle. The first, "switch_mm", is the race both 2025
 * switch_mm_irqs_off() fixes are about: CPU 1 ran mm A, touched page P and
 * switched to mm B, staying in A's mm_cpumask (209954cbc7d0); then CPU 0
 * changes P's PTE and calls flush_tlb_page(A, P) while CPU 1 calls
 * switch_mm(A) and, after the flush returned, touches P.
 *
 * Every shared access is a scheduling point; at each one the explorer picks
 * which CPU runs next and, under tso, whether a store buffer drains. The
 * default pick (index 0) lets the running CPU go on; any other pick is a
 * deviation. The bounded-exhaustive search is stateless and delay-bounded:
 * it runs every execution with at most `bound` deviations, each re-run from
 * scratch with the recorded prefix of picks. There is no partial-order
 * reduction: executions that differ only in the order of independent
 * accesses are all run. Its result says whether the bound cut any
 * execution short (bound_reached), and it is "exhausted" only when no
 * execution went past the TX_MAX_POINTS horizon (where picks would be the
 * default) and the execution limit was not hit. The random search draws
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
	const char *scenario;		/* tx_scenario_names(); NULL: "switch_mm" */
	const char *profile;		/* built-in or registered */
	const char *choices;		/* extra "k=v,..." or NULL */
	enum tlbgen_memory_model model;
	uint64_t seed;			/* the system's seed (and the random picks') */
	uint64_t max_executions;	/* exhaustive: stop (not exhausted) past it; 0: none */
};

/* A deviation: at scheduling point `point`, take option `pick` (> 0). */
struct txdev {
	uint32_t point;
	uint16_t pick;
};

struct txresult {
	uint64_t executions;		/* distinct executions run */
	uint64_t max_points;		/* the most scheduling points in one */
	bool exhausted;			/* exhaustive: every execution within the bound ran */
	bool bound_reached;		/* exhaustive: the bound cut some execution short */
	bool horizon;			/* some execution went past TX_MAX_POINTS */
	bool limit;			/* exhaustive: stopped at max_executions */
	bool failed;
	uint64_t seed;			/* random: the failing seed */
	struct txdev devs[TX_MAX_DEVS];	/* the failing execution's deviations */
	size_t ndevs;
	char msg[512];			/* setup error, or the oracle's verdict */
};

/* The scenarios' names in order, at most n; returns how many there are. */
int tx_scenario_names(const char **names, size_t n);

/* The bound the exhaustive search of a scenario uses by default, or 0 for
 * an unknown scenario: the deepest that explores it in seconds here. */
unsigned int tx_default_bound(const char *scenario);

/* Every execution with at most `bound` deviations, or until one fails.
 * Returns 0 (res filled), or a negative errno for a bad configuration or
 * an unknown scenario (res->msg says which). */
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
