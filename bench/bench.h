/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/bench.h - tlbgen-bench: one driver, and each command as data.
 *
 * A command is a struct bench (as the bpf selftests' bench.h): its name,
 * the shared options it takes (policies, mode, machine, threads, seeds,
 * durations, output: bench/env.c parses them once for every command), the
 * options it adds (bench/opt.h), and either
 *   - a workload's operation (struct bench_ops): the driver runs it in
 *     every mode the command has meaning in (stepped, threads, processes,
 *     virtual) through the library's workload layer (tlbgen/workload.h),
 *     over every policy, task count and seed; or
 *   - a run() of its own (the seeds' presets add their reference tables;
 *     tools such as compare or explore do something else entirely).
 * Register a command in bench/commands.c (one line).
 */
#ifndef TLBGEN_BENCH_H
#define TLBGEN_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <tlbgen/tlbgen.h>

#include "opt.h"

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
#define BENCH_O_QUIET		(1U << 9)	/* -q, --quiet */
#define BENCH_O_WORKLOAD	(BENCH_O_POLICY | BENCH_O_MODE | BENCH_O_MACHINE | \
				 BENCH_O_THREADS | BENCH_O_SEED | BENCH_O_RUNS | BENCH_O_TIME | \
				 BENCH_O_JSON | BENCH_O_JOBS | BENCH_O_QUIET)

#define BENCH_MAX_POLICIES	16
#define BENCH_MAX_THREADS	256

/* Policies ----------------------------------------------------------------
 * A policy spec is "PROFILE" or "PROFILE:choice=value[,choice=value...]".
 * The second form is registered as a user profile (tlbgen_policy_register)
 * under a generated name; `label` keeps the spec for printing. */
struct bench_policy {
	char label[160];
	char name[48];		/* profile name to pass to tlbgen */
};
/* Returns 0, or -errno after a message naming what was wrong: the unknown
 * profile (and the profiles), or the choice and its valid values. */
int bench_policy_parse(const char *spec, struct bench_policy *out);

/* What the shared options set (bench/env.c), for the whole run. */
struct bench_env {
	const struct bench *cmd;
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
	unsigned int jobs;		/* -j: cells run at once */
	bool quiet;
	unsigned int given;		/* BENCH_O_* bits given on the command line */
	int nargs;			/* positional arguments left in args[] */
	char **args;
};

/* The run's environment (one per process). */
struct bench_env *bench_env(void);
/* Resolve --machine (or `def` when none was given): 0, or -EINVAL after a
 * message naming the argument. */
int bench_env_machine(struct bench_env *e, const char *def);
/* Resolve the -p specs given, or `defs` (NULL-terminated) when none was:
 * 0 or -EINVAL (message printed). */
int bench_env_policies(struct bench_env *e, const char *const *defs);

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
	/* A command still on its own getopt loop: its main(argc, argv). */
	int (*main)(int argc, char **argv);
	bool tool;			/* keeps no results directory (compare, sweep...) */
	bool args;			/* takes positional arguments */
};

/* bench/commands.c: every command, NULL-terminated; and lookup by name. */
extern const struct bench *const bench_commands[];
const struct bench *bench_find(const char *name);

/* The modes of e that its command runs: the given ones it has meaning in (a
 * mode it has none in is refused by name, 0 returned), else its default. */
unsigned int bench_modes(const struct bench_env *e);
const char *bench_mode_name(unsigned int mode);

/* The generic runners (bench/run-*.c): 0 ok, 1 failed run. */
int bench_run_ops(struct bench_env *e);

/* xorshift64 step: a seeded, repeatable stream for the stepped workloads (seed != 0). */
uint64_t bench_xorshift(uint64_t *s);
/* Monotonic time in ns. */
uint64_t bench_now_ns(void);
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
/* Sort a copy and return min/median/max of n samples. */
void bench_min_med_max(const double *v, size_t n, double *min, double *med, double *max);
/* Print non-zero counters of `st` as "name=value" on one line to f. */
void bench_print_stats(FILE *f, const char *prefix, const uint64_t *st);

/* Options -----------------------------------------------------------------
 * Parse the whole of `arg`, the value of option `opt` (e.g. "--iters"), as a
 * number in [min, max]: decimal, 0x hex or 0 octal as strtoul(base 0). Empty
 * strings, trailing characters ("1x"), a sign where unsigned and values out
 * of range are rejected with one line on stderr naming the option and the
 * value; then 0 or -EINVAL. The caller prints its usage and returns 2. */
int bench_parse_ulong(const char *opt, const char *arg, unsigned long min, unsigned long max,
		      unsigned long *out);
int bench_parse_ull(const char *opt, const char *arg, unsigned long long min,
		    unsigned long long max, unsigned long long *out);
/* bench_parse_ulong() narrowed to unsigned int (max <= UINT_MAX). */
int bench_parse_uint(const char *opt, const char *arg, unsigned int min, unsigned int max,
		     unsigned int *out);
/* A comma-separated list of CPU counts, each 1..TLBGEN_MAX_CPUS, at most
 * `max` of them, into v[0..*n): 0, or -EINVAL after one line on stderr
 * naming `opt` and the value. */
int bench_parse_cpu_list(const char *opt, const char *arg, unsigned int *v, unsigned int max,
			 unsigned int *n);

/* Statistics --------------------------------------------------------------- */
/* The change of a against b in percent; 0 when b is 0. */
double bench_pct(double a, double b);
/* mean and sample standard deviation */
void bench_mean_sd(const double *v, size_t n, double *mean, double *sd);
/* Two-sided p-value of Welch's unequal-variance t-test (NAN if n < 2). */
double bench_welch_p(const double *a, size_t na, const double *b, size_t nb);
/* Student's t CDF with `df` (real) degrees of freedom. */
double bench_t_cdf(double t, double df);
/* Its inverse: the t with bench_t_cdf(t, df) = p, for 0 < p < 1 (NAN otherwise). */
double bench_t_quantile(double p, double df);
/* Welch's interval: the difference of means mean(b) - mean(a), its 95%
 * confidence interval [lo, hi] and the two-sided p. Returns false (all NAN
 * but *diff) when either side has fewer than 2 samples. */
bool bench_welch(const double *a, size_t na, const double *b, size_t nb, double *diff,
		 double *lo, double *hi, double *p);

/* Machine ------------------------------------------------------------------ */
/* CPUs this process may run on (sched_getaffinity), filled into cpus[]. */
int bench_allowed_cpus(int *cpus, int max);
/* Pin the calling thread to one real CPU. */
int bench_pin_self(int cpu);
/* Sum of idle and total jiffies of the "cpu" line of /proc/stat (0 if unreadable). */
void bench_proc_stat(uint64_t *idle, uint64_t *total);

/* Hardware counters through perf_event_open, inherited by threads created
 * after bench_hw_start(). Without a PMU, `ok` stays false and a note is
 * printed once per probe to stderr; the probe (zero-initialised, one per
 * run) then skips the perf_event_open calls of later rounds. */
enum { BENCH_HW_CYCLES, BENCH_HW_INSTRUCTIONS, BENCH_HW_CACHE_MISSES, BENCH_HW_NR };
struct bench_hw {
	int fd[BENCH_HW_NR];
	bool ok;
	uint64_t val[BENCH_HW_NR];
};
struct bench_hw_probe {
	int state;		/* 0 unknown, 1 PMU, -1 none (noted) */
};
void bench_hw_start(struct bench_hw_probe *probe, struct bench_hw *hw);
void bench_hw_stop(struct bench_hw *hw);
extern const char *const bench_hw_names[BENCH_HW_NR];

/* Progress on stderr (a single rewritten line when stderr is a terminal);
 * `shown` says a line is on the terminal to be cleared. Zero-initialise. */
struct bench_progress {
	bool shown;
};
void bench_progress(struct bench_progress *pg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bench_progress_done(struct bench_progress *pg);

#endif
