/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/driver/common.h - the helpers of bench/driver/common.c: seeded streams, clocks,
 * numbers from the command line, statistics, the host's CPUs, hardware
 * counters and progress lines.
 */
#ifndef TLBGEN_BENCH_COMMON_H
#define TLBGEN_BENCH_COMMON_H

#include "bench.h"

/* xorshift64 step: a seeded, repeatable stream for the stepped workloads (seed != 0). */
uint64_t bench_xorshift(uint64_t *s);
/* Monotonic time in ns. */
uint64_t bench_now_ns(void);

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
void bench_hw_start(struct bench_hw_probe *probe, struct bench_hw *hw);
void bench_hw_stop(struct bench_hw *hw);
extern const char *const bench_hw_names[BENCH_HW_NR];

/* Progress on stderr (a single rewritten line when stderr is a terminal);
 * `shown` says a line is on the terminal to be cleared. Zero-initialise. */
void bench_progress(struct bench_progress *pg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bench_progress_done(struct bench_progress *pg);

#endif
