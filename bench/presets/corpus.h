/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/presets/corpus.h - the validation corpus (bench/presets/corpus.json): published
 * measurements of kernel flush changes that none of the machine models was
 * built from, each a row the model predicts (bench/presets/validate.c runs them).
 *
 * A row names the machine as its source states it and the built-in model
 * (with topology and clock overrides) that stands in for it, the kernel
 * before and after as profile specs, the workload, its shape and task
 * count, the measured base rate and change, the source, and the model's
 * prediction when the row entered the corpus ("entry"), recorded in the
 * commit that added the row, before any model change the row motivated.
 */
#ifndef TLBGEN_BENCH_CORPUS_H
#define TLBGEN_BENCH_CORPUS_H

#include <stdbool.h>
#include <jansson.h>

#include "bench.h"

/* How a row's workload runs and what its rate counts. */
enum corpus_kind {
	CORPUS_WIS,		/* a will-it-scale op-based workload: ops/s per task */
	CORPUS_SWAP,		/* 43b3dfdd0455's MADV_PAGEOUT loop: pages/s */
};

struct corpus_workload {
	const char *name;
	enum corpus_kind kind;
	const char *unit;		/* of the measured and modelled base rate */
	const struct bench_ops *ops;	/* CORPUS_WIS: the command's op (bench/workloads/wl-wis.c) */
};

struct corpus_row {
	const char *id;
	const char *arch;		/* x86, arm64, riscv, powerpc */
	const char *model;		/* a tlbgen_machine_lookup() spec */
	const char *part;		/* the machine as its source states it */
	unsigned int sockets, cores_per_socket, threads_per_core, mhz;
	bool invlpgb;			/* the machine has INVLPGB (machine.invlpgb) */
	const struct corpus_workload *wl;
	bool processes;			/* shape "processes" (else "threads") */
	unsigned int tasks;
	const char *base, *patch;	/* policy specs (bench_policy_parse()) */
	struct bench_policy pol[2];	/* base and patch, registered once at load */
	const char *commit;		/* the change measured */
	double base_rate;		/* measured, in wl->unit */
	double change_pct;		/* measured */
	const char *source;		/* message id, commit or URL */
	const char *note;		/* what the model cannot express, or NULL */
	/* Virtual time at least this long (0: the run's): a workload whose
	 * tasks act once per long period (page_fault3's munmap() every 32768
	 * faults) is warmed and measured over a good part of it. */
	unsigned int warm_ms, ms;
	const char *window_why;		/* why the row needs its window */
	/* CORPUS_SWAP: pages per MADV_PAGEOUT and other threads left lazy. */
	unsigned int pages, lazy;
	/* The prediction at entry (has_entry false: not yet recorded). */
	bool has_entry;
	const char *entry_model;	/* the model's git revision then */
	double entry_rate, entry_change_pct;
};

struct corpus {
	json_t *doc;			/* owns every string of rows[] */
	struct corpus_row *rows;
	unsigned int nrows;
};

/* The workloads a row may name (NULL-terminated by name). */
extern const struct corpus_workload corpus_workloads[];

/*
 * Parse the corpus in `text` (JSON; `what` names it in messages) into *c.
 * Every row is checked before any is accepted: each field present and of
 * its type, the workload known, the model buildable and of the stated
 * topology and clock, the tasks within its CPUs, both policy specs valid
 * (registered as profiles once, into the row's pol[]), ids unique. Returns 0, or -EINVAL
 * after one line on stderr naming the row and the field; *c is then empty.
 */
int corpus_load(const char *text, const char *what, struct corpus *c);
/* The same from a file (jansson reads it): -EINVAL after a message naming
 * the file, and the line, when it cannot be read or parsed. */
int corpus_load_file(const char *path, struct corpus *c);
void corpus_free(struct corpus *c);

/* The corpus built into tlbgen-bench (bench/presets/corpus.json at build time). */
extern const char bench_corpus_json[];

#endif
