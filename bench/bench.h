/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/bench.h - tlbgen-bench: one driver, and each command as data.
 *
 * A command is a struct bench (as the bpf selftests' bench.h): its name,
 * the shared options it takes (policies, mode, machine, threads, seeds,
 * durations, output: bench/driver/env.c parses them once for every command), the
 * options it adds (bench/driver/opt.h), and either
 *   - a workload's operation (struct bench_ops): the driver runs it in
 *     every mode the command has meaning in (stepped, threads, processes,
 *     virtual) through the library's workload layer (tlbgen/workload.h),
 *     over every policy, task count and seed; or
 *   - a run() of its own (the seeds' presets add their reference tables;
 *     tools such as compare or explore do something else entirely).
 * A command registers itself where it is defined: BENCH_COMMAND(bench_x)
 * after its struct bench puts a pointer to it in the tlbgen_bench section,
 * which bench/commands.c reads (the kernel's initcalls work the same way).
 *
 * This header has the types alone: each .c declares its functions in a
 * header of its own (common.h, env.h, opt.h, pool.h, commands.h, ...), so
 * that including one is depending on that .c file only.
 */
#ifndef TLBGEN_BENCH_H
#define TLBGEN_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <tlbgen/tlbgen.h>


/* Modes: how the policy code runs. */
#define BENCH_M_STEPPED		(1U << 0)	/* counts: seeded, whole kernel functions */
#define BENCH_M_THREADS		(1U << 1)	/* real pthreads, one mm shared by the tasks */
#define BENCH_M_PROCESSES	(1U << 2)	/* real pthreads, one mm per task */
#define BENCH_M_VIRTUAL		(1U << 3)	/* virtual time on a machine model */
#define BENCH_M_ALL		0xfU
#define BENCH_M_THREADED	(BENCH_M_THREADS | BENCH_M_PROCESSES)

/* The shared options a command takes (struct bench.shared). */
#define BENCH_O_POLICY		(1U << 0)	/* -p, --policy (and --profile) */
#define BENCH_O_MODE		(1U << 1)	/* --mode, --shape */
#define BENCH_O_MACHINE		(1U << 2)	/* --machine, --invlpgb, --no-pcid */
#define BENCH_O_THREADS		(1U << 3)	/* -t, --threads (and --tasks) */
#define BENCH_O_SEED		(1U << 4)	/* --seed */
#define BENCH_O_RUNS		(1U << 5)	/* --runs */
#define BENCH_O_TIME		(1U << 6)	/* --ms, --warmup (virtual), --ops (stepped) */
#define BENCH_O_JSON		(1U << 7)	/* --json */
#define BENCH_O_JOBS		(1U << 8)	/* -j, --jobs */
#define BENCH_O_QUIET		(1U << 9)	/* -q, --quiet, -v, --verbose */
#define BENCH_O_CALIBRATE	(1U << 10)	/* --calibrate (virtual will-it-scale) */
#define BENCH_O_WORKLOAD	(BENCH_O_POLICY | BENCH_O_MODE | BENCH_O_MACHINE | \
				 BENCH_O_THREADS | BENCH_O_SEED | BENCH_O_RUNS | BENCH_O_TIME | \
				 BENCH_O_JSON | BENCH_O_JOBS | BENCH_O_QUIET)

#define BENCH_MAX_POLICIES	16
#define BENCH_MAX_THREADS	256

/* Options (bench/driver/opt.c parses them; bench/driver/env.c has the shared ones). */
enum bench_opt_type {
	BOPT_FLAG = 0,		/* bool *dst = true */
	BOPT_UINT,		/* unsigned int *dst in [min, max] */
	BOPT_U64,		/* uint64_t *dst in [min, max] */
	BOPT_STR,		/* const char **dst = the argument */
	BOPT_FN,		/* fn(option, argument): 0 or -EINVAL (message printed) */
};

struct bench_opt {
	const char *name;	/* long name, without "--" */
	int key;		/* short option character, 0: none */
	const char *arg;	/* the argument's name in --help; NULL: a flag */
	const char *help;	/* one or more lines, without the leading blanks */
	enum bench_opt_type type;
	void *dst;
	unsigned long long min, max;
	int (*fn)(const char *opt, const char *arg);
	unsigned int shared;	/* a shared option: its BENCH_O_* bit; 0 for a command's own */
	/* Lines after `help` made from data at --help time (the profiles known). */
	void (*help_data)(FILE *f, const char *indent);
};

#define BENCH_OPT_END { .name = NULL }

/* Policies ----------------------------------------------------------------
 * A policy spec is "PROFILE" or "PROFILE:choice=value[,choice=value...]".
 * The second form is registered as a user profile (tlbgen_policy_register)
 * under a generated name; `label` keeps the spec for printing. */
struct bench_policy {
	char label[160];
	char name[48];		/* profile name to pass to tlbgen */
};

/* What the shared options set (bench/driver/env.c), for the whole run. */
struct bench_env {
	const struct bench *cmd;
	const struct bench *const *commands;	/* the registry, NULL-terminated (set by
						 * the driver: a tool lists commands
						 * without calling up into commands.c) */
	struct bench_policy pol[BENCH_MAX_POLICIES];
	unsigned int npol;
	unsigned int modes;		/* BENCH_M_*; 0: the command's default */
	unsigned int shapes;		/* BENCH_M_THREADS and/or BENCH_M_PROCESSES for the
					 * stepped and virtual modes; 0: threads */
	const char *machine_spec;	/* NULL: the command's default */
	struct tlbgen_machine machine;	/* resolved by bench_env_machine() */
	bool invlpgb, no_pcid;		/* machine features (system opts) */
	unsigned int threads[BENCH_MAX_THREADS];
	unsigned int nthreads;
	uint64_t seed;
	unsigned int runs;		/* 0: auto */
	unsigned int ms, warmup_ms;	/* virtual: measured and warm-up ms per cell; the
					 * threaded rounds' warm-up samples when given */
	bool warmup_given;
	uint64_t ops;			/* stepped: ops per cell */
	const char *json;		/* --json FILE or "-" */
	const char *calibrate_path;	/* --calibrate FILE: a measured base rate */
	unsigned int jobs;		/* -j: cells run at once */
	bool quiet, verbose;		/* -q; -v: will-it-scale's per-sample lines too */
	unsigned int given;		/* BENCH_O_* bits given on the command line */
	int nargs;			/* positional arguments left in args[] */
	char **args;
};

/* One task of an op-based workload, as its program sees it. */
struct bench_task {
	struct tlbgen_system *sys;
	struct tlbgen_wl *wl;
	struct tlbgen_mm *mm;		/* the task's mm (shared by all in threads shape) */
	const struct bench_ops *ops;
	unsigned int cpu;		/* task i runs on emulated CPU i */
	unsigned int tasks;
	enum tlbgen_mode mode;
	bool processes;			/* an mm of its own (will-it-scale's processes) */
	unsigned long base;		/* first page of the task's own region */
	unsigned long n;		/* ops done */
	unsigned long page;		/* the workload's own position */
	void *priv;			/* the workload's per-task state */
};

/*
 * An op-based workload: what one task does, run by the driver's runners in
 * every mode. op() is one operation of will-it-scale's loop, made of
 * tlbgen/workload.h calls; start() runs once before the first.
 */
struct bench_ops {
	unsigned long region_pages;	/* pages of each task's region */
	const char *desc;		/* will-it-scale's description string */
	/* Virtual time: the cycles of one op with nothing in its way, so that
	 * task i can start i/tasks of an op late (NULL: all start together). */
	uint64_t (*op_cycles)(const struct tlbgen_machine *m);
	int (*start)(struct bench_task *t);
	int (*op)(struct bench_task *t);
	bool flushes;			/* it flushes per op (the MESI account is meaningful) */
	const char *flushes_note;	/* what its flushes per op are, for the tables */
};

/* The address of page `page` of the task's own region. */
static inline unsigned long bench_page_addr(const struct bench_task *t, unsigned long page)
{
	return (t->base + page) << TLBGEN_PAGE_SHIFT;
}

/* Pages [0, n) of the task's region as a fresh mmap() leaves them: PTEs
 * none (a new mm's are present, read-only). 0 or tlbgen_pte_set()'s error. */
static inline int bench_region_none(struct bench_task *t, unsigned long n)
{
	int err = 0;

	for (unsigned long p = 0; !err && p < n; p++)
		err = tlbgen_pte_set(t->sys, t->cpu, t->mm, bench_page_addr(t, p), TLBGEN_PTEF_NONE);
	return err;
}

/*
 * will-it-scale's file tests (wl-wis.c), for workloads that walk the same
 * 128 MiB file through a 16-page window: the start that spreads the
 * tasks' passes, and the end of a pass, munmap() of the file (its unseen
 * pages' zaps, as `pages` says they are) and mmap() of it again.
 * 0, or a tlbgen/workload.h error
 * (1: the run ended while the munmap() slept).
 */
enum bench_wis_pages {
	BENCH_WIS_CLEAN_FILE,	/* page cache, clean: the zap frees nothing */
	BENCH_WIS_DIRTY_FILE,	/* page cache, every page written */
	BENCH_WIS_ANON,		/* private anonymous folios, freed by the zap */
};
int bench_wis_file_start(struct bench_task *t);
int bench_wis_remap_file(struct bench_task *t, enum bench_wis_pages pages);

struct bench {
	const char *name;
	const char *summary;
	const char *help;		/* paragraphs --help prints before the options */
	unsigned int shared;		/* BENCH_O_* it takes */
	unsigned int modes;		/* the modes it has meaning in (0: none, a tool) */
	unsigned int default_modes;	/* when --mode is not given */
	const char *modes_why;		/* why it has none in the others */
	const struct bench_opt *opts;	/* its own options (BENCH_OPT_END-terminated) */
	const struct bench_ops *ops;	/* an op-based workload */
	/* Before the run: defaults that depend on what was given (presets). */
	int (*prepare)(struct bench_env *e);
	/* Its own run instead of the generic runners: 0 ok, 1 failed run. */
	int (*run)(struct bench_env *e);
	bool tool;			/* keeps no results directory (compare, sweep...) */
	bool args;			/* takes positional arguments */
};

/* Register `var` (a struct bench) as a command: see the top of this file. */
#define BENCH_COMMAND(var)							\
	static const struct bench *const bench_reg_##var			\
	__attribute__((used, section("tlbgen_bench"), aligned(sizeof(void *)))) = &(var)

/* The model's CPUs: every thread of every core (tlbgen/machine.h: 0 threads
 * per core means 1). */
static inline unsigned int bench_machine_cpus(const struct tlbgen_machine *m)
{
	return m->sockets * m->cores_per_socket * (m->threads_per_core ? m->threads_per_core : 1);
}

/* A spin loop's pause. */
static inline void bench_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Hardware counters through perf_event_open (bench/driver/common.c). */
enum { BENCH_HW_CYCLES, BENCH_HW_INSTRUCTIONS, BENCH_HW_CACHE_MISSES, BENCH_HW_NR };
struct bench_hw {
	int fd[BENCH_HW_NR];
	bool ok;
	uint64_t val[BENCH_HW_NR];
};
struct bench_hw_probe {
	int state;		/* 0 unknown, 1 PMU, -1 none (noted) */
};

/* Progress on stderr; `shown` says a line is on the terminal. Zero-initialise. */
struct bench_progress {
	bool shown;
};

#endif
