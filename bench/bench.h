/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/bench.h - tlbgen-bench: one CLI, one subcommand per workload.
 *
 * Each workload lives in its own file and exports
 *     int bench_<name>_main(int argc, char **argv);
 * argv[0] is the workload name. Return 0 on success, 1 on a failed run
 * (e.g. oracle violations), 2 after printing usage for bad arguments.
 * Register it in the table of tlbgen-bench.c (one line).
 */
#ifndef TLBGEN_BENCH_H
#define TLBGEN_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <tlbgen/tlbgen.h>

struct bench_cmd {
	const char *name;
	const char *summary;
	int (*main)(int argc, char **argv);
};

/* xorshift64 step: a seeded, repeatable stream for the stepped workloads (seed != 0). */
uint64_t bench_xorshift(uint64_t *s);
/* Monotonic time in ns. */
uint64_t bench_now_ns(void);
/* Busy-wait `ns` on threaded CPU `cpu` (no system call: the clock is the
 * vDSO's), as a kernel path's own work that the threaded workloads burn,
 * with IRQs on: IPIs are taken as they come, and their handling does not
 * count towards `ns`. */
void bench_burn_ns_irqs_on(struct tlbgen_system *sys, unsigned int cpu, uint64_t ns);
/*
 * Virtual mode: a line of the program's own (a lock word the library does
 * not model, such as mmap_lock's count). bench_vt_line_rmw(): `cpu` does a
 * locked RMW on it: a hit, or a transfer from the last writer's socket or
 * the other one, plus the machine's rmw, spent with IRQs on. A transfer
 * holds the line: one that finds it held waits until the holder's is done,
 * as the library's own lines queue. Initialise with BENCH_VT_LINE_INIT.
 */
struct bench_vt_line {
	int last;		/* the CPU whose cache holds it, -1: none yet */
	uint64_t busy_until;	/* virtual time the transfer in flight ends */
};
#define BENCH_VT_LINE_INIT { .last = -1, .busy_until = 0 }
int bench_vt_line_rmw(struct tlbgen_system *sys, const struct tlbgen_machine *m,
		      struct bench_vt_line *l, unsigned int cpu);
/* As bench_vt_line_rmw() for a plain read: a transfer, if another CPU wrote
 * the line last, that leaves it shared (the next writer still pays one). */
int bench_vt_line_read(struct tlbgen_system *sys, const struct tlbgen_machine *m,
		       struct bench_vt_line *l, unsigned int cpu);
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

/* Policies ----------------------------------------------------------------
 * A policy spec is "PROFILE" or "PROFILE:choice=value[,choice=value...]".
 * The second form is registered as a user profile (tlbgen_policy_register)
 * under a generated name; `label` keeps the spec for printing. */
struct bench_policy {
	char label[160];
	char name[48];		/* profile name to pass to tlbgen */
};
/* Returns 0, or -errno after the library printed the valid names. */
int bench_policy_parse(const char *spec, struct bench_policy *out);

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

/* Commands over results directories (bench/archive.c, bench/sweep.c). */
int bench_cmp_dirs_main(int argc, char **argv);
int bench_sweep_main(int argc, char **argv);
int bench_merge_main(int argc, char **argv);

/* Workloads (will-it-scale shapes, bench/wis.c) ----------------------------- */
struct bench_wis_workload {
	const char *name;		/* tlb_flush1 ... */
	const char *desc;		/* will-it-scale's description string */
	unsigned long region_pages;	/* pages mapped per task before munmap */
	bool flush_per_op;		/* MADV_DONTNEED + 1-page flush each op, then the
					 * read back (a second fault) */
	unsigned int cow_block;		/* a private file mapping: pages per fault-around
					 * block, past whose first page the write is a
					 * COW that flushes (0: none) */
};
const struct bench_wis_workload *bench_wis_find(const char *name);
/*
 * wp_page_copy() over the read-only PTE at `addr`: ptep_clear_flush() clears
 * it (tlbgen_pte_change()) and flushes the page from the mm's CPUs.
 */
int bench_wis_cow_flush(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			unsigned long addr);
/*
 * tlb_finish_mmu() of madvise(MADV_DONTNEED)'s one-page zap at `addr`: the
 * page, or, when mm_tlb_flush_nested() saw another gather on the mm in
 * flight (tlb_flush_pending > 1), the whole mm with freed_tables, which
 * IPIs lazy CPUs too (7a30df49f63a). tlbgen_flush_tlb_mm_range()'s result.
 */
int bench_wis_zap_flush(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			unsigned long addr, bool nested);
extern const struct bench_wis_workload bench_wis_workloads[];

/* One timed threaded round of a workload. */
struct bench_round_opts {
	const struct bench_wis_workload *wl;
	const char *profile;		/* tlbgen profile name */
	unsigned int tasks;
	bool processes;			/* one mm per task instead of one shared */
	unsigned int duration_ms;
	unsigned int sample_ms;		/* will-it-scale per-"second" samples */
	unsigned int warmup_samples;	/* run this many samples first, not counted */
	const int *cpus;		/* real CPUs to pin task i to: cpus[i % nr_cpus] */
	int nr_cpus;
	bool trace_reads;		/* accounting pass: classify tlb_gen reads */
	bool invlpgb;			/* the machine has INVLPGB (system opts) */
	/* Kernel work per op burnt as busy-waits (ns; all 0: none): the
	 * refault, madvise's syscall entry/exit and PTL, the PTE zap, and
	 * the user work between operations. */
	uint64_t kw_fault_ns, kw_syscall_ns, kw_zap_ns, kw_user_ns;
	struct bench_hw_probe *hw;	/* non-NULL: open perf counters */
};
struct bench_round_result {
	double seconds;
	uint64_t ops;
	double ops_per_sec;
	/* per sample: ops/s of the slowest, fastest task and the total */
	unsigned int nr_samples;
	uint64_t *smin, *smax, *stotal;	/* malloc'ed, nr_samples each */
	uint64_t stats[TLBGEN_STAT_NR];
	uint64_t remote_reads, local_reads;	/* trace_reads only */
	int global_asid;		/* invlpgb: the shared mm's at the end (0: none) */
	long violations;
	double idle_pct;
	struct bench_hw hw;
};
int bench_wis_round(const struct bench_round_opts *o, struct bench_round_result *r);
void bench_round_result_free(struct bench_round_result *r);

/* The stepped coherence account of one workload under one profile. */
struct bench_mesi_result {
	uint64_t flushes;		/* flush_initiated */
	uint64_t ops;
	uint64_t transfers;		/* every line */
	uint64_t line_transfers[TLBGEN_LINE_NR];
	struct tlbgen_coherence_counts tlb_gen;	/* the mm's tlb_gen line */
	uint64_t remote_reads, local_reads;
	uint64_t stats[TLBGEN_STAT_NR];
	uint64_t nested_flushes;	/* madvise flushes mm_tlb_flush_nested() made full */
	long violations;
};
int bench_wis_mesi(const struct bench_wis_workload *wl, const char *profile, unsigned int cpus,
		   uint64_t ops, uint64_t seed, bool invlpgb, struct bench_mesi_result *r);

/* Comparison driver (bench/compare.c) -------------------------------------- */
/* Parse options and run `wl` over the policies; `seed000` sets the no-argument
 * defaults (v5.17 and v6.0, tasks 1..nproc, the MESI columns); `mesi_only`
 * runs the stepped coherence account alone (`tlbgen-bench mesi`). */
int bench_compare_main(const char *wl_name, int argc, char **argv, bool seed000, bool mesi_only);

/* Workload entry points */
int bench_seed000_main(int argc, char **argv);
int bench_tlb_flush1_main(int argc, char **argv);
int bench_tlb_flush2_main(int argc, char **argv);
int bench_tlb_flush3_main(int argc, char **argv);
int bench_page_fault3_main(int argc, char **argv);
int bench_mesi_main(int argc, char **argv);
int bench_lazy_main(int argc, char **argv);

#endif
