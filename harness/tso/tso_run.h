/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harness/tso/tso_run.h - one execution of a memory-model scenario
 * (tso_exec.c) and the scenarios themselves (tso_scen.c), internal to the
 * explorer: the search (tso_explore.c) runs executions, the scenarios say
 * what the emulated CPUs do in them.
 */
#ifndef TLBGEN_TSO_RUN_H
#define TLBGEN_TSO_RUN_H

#include "tso_explore.h"

#define TX_PAGE		(5UL << TLBGEN_PAGE_SHIFT)	/* page P */
#define TX_PAGE_Q	(6UL << TLBGEN_PAGE_SHIFT)	/* page Q */
#define TX_WAIT		1000000				/* a wait for a flush, cycles */
#define TX_MAX_EVENTS	128
#define TX_MAX_CPUS	4

enum txplan_kind { PLAN_PREFIX, PLAN_SPARSE, PLAN_RANDOM };

struct txev {
	unsigned int cpu;
	bool deviation;
	char text[200];
};

struct txrun;

/*
 * A scenario: a small program per CPU, drawn from one of the kernel's real
 * interleavings. setup runs first under the default schedule with no
 * chooser (the state the race starts from); then prog[0..nr_cpus) run with
 * every shared access a scheduling point, and the oracle judges.
 */
struct txscen {
	const char *name;
	const char *what;			/* one line, for --help and the report */
	unsigned int nr_cpus;
	bool invlpgb;				/* the machine has INVLPGB */
	tlbgen_cpu_fn setup[TX_MAX_CPUS];	/* NULL: nothing */
	tlbgen_cpu_fn prog[TX_MAX_CPUS];	/* NULL: idle (takes IPIs) */
	const char *setup_text;			/* the trace's first line */
	/* Explain a failing execution in kernel terms (NULL: the oracle's line). */
	void (*explain)(FILE *out, const struct txrun *r);
	unsigned int bound;			/* tx_default_bound() */
};

/* One execution: how picks are made, and what was picked. */
struct txrun {
	const struct txcfg *cfg;
	const struct txscen *scen;
	enum txplan_kind plan;
	const uint16_t *prefix;		/* PLAN_PREFIX */
	size_t nprefix;
	const struct txdev *devs;	/* PLAN_SPARSE */
	size_t ndevs;
	uint64_t rng;			/* PLAN_RANDOM */

	unsigned int npoints;
	bool horizon;			/* points past TX_MAX_POINTS took the default */
	uint16_t n[TX_MAX_POINTS], c[TX_MAX_POINTS];

	bool record;			/* keep events for a trace */
	unsigned int nev;
	struct txev ev[TX_MAX_EVENTS];

	struct tlbgen_system *sys;
	struct tlbgen_mm *mm_a, *mm_b;
	struct tlbgen_tlbbatch *batch;
	unsigned int flushes_done;	/* flushes (of any program) that returned */
	bool in_switch;
	long violations;
	char msg[512];

	/* For the explanation: the policy's choices, what the flusher read. */
	char barrier[16], switching[16], sw_write[16];
	char read_loaded[48], held[48];	/* CPU1's loaded_mm as CPU0 read it; buffered */
	bool skipped;			/* should_flush_tlb() skipped CPU1 */
	bool lazy_held;			/* CPU0 read CPU1's is_lazy while false was buffered */
	bool switch_flushed;		/* CPU1's switch_mm() flushed */
};

extern const struct txscen tx_scenarios[];
extern const unsigned int tx_nr_scenarios;

/* The scenario named `name` (NULL: the first), or NULL. */
const struct txscen *tx_scen_find(const char *name);

/* One execution from scratch. 1: it failed, 0: it passed, < 0: setup error. */
int tx_exec(struct txrun *r);

void tx_ev_add(struct txrun *r, unsigned int cpu, bool dev, const char *text);

/* A program's wait until `n` flushes returned (its later accesses must be fresh). */
int tx_wait_flushes(struct txrun *r, unsigned int cpu, unsigned int n);

#endif
