// SPDX-License-Identifier: LGPL-2.1-or-later
/* bench/driver/common.c - helpers shared by the workloads of tlbgen-bench. */
#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "common.h"

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t bench_xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void bench_min_med_max(const double *v, size_t n, double *min, double *med, double *max)
{
	double *c;

	*min = *med = *max = 0;
	if (!n || !(c = malloc(n * sizeof(*c))))
		return;
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	*min = c[0];
	*max = c[n - 1];
	*med = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
}

void bench_print_stats(FILE *f, const char *prefix, const uint64_t *st)
{
	fprintf(f, "%s", prefix);
	for (int i = 0; i < TLBGEN_STAT_NR; i++)
		if (st[i])
			fprintf(f, " %s=%llu", tlbgen_stat_name((enum tlbgen_stat)i),
				(unsigned long long)st[i]);
	fputc('\n', f);
}

/* Options ------------------------------------------------------------------ */

int bench_parse_ull(const char *opt, const char *arg, unsigned long long min,
		    unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	/* strtoull() skips blanks and negates "-1" into a huge value: only digits may start. */
	if (arg && arg[0] == '-' && isdigit((unsigned char)arg[1])) {
		fprintf(stderr, "tlbgen-bench: %s: '%s' is negative; it takes %llu..%llu\n", opt,
			arg, min, max);
		return -EINVAL;
	}
	if (!arg || !isdigit((unsigned char)arg[0])) {
		fprintf(stderr, "tlbgen-bench: %s: '%s' is not a number\n", opt, arg ? arg : "");
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(arg, &end, 0);
	if (*end) {
		fprintf(stderr, "tlbgen-bench: %s: '%s' is not a number\n", opt, arg);
		return -EINVAL;
	}
	if (errno == ERANGE || v < min || v > max) {
		fprintf(stderr, "tlbgen-bench: %s: '%s' is out of range (%llu..%llu)\n", opt, arg,
			min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int bench_parse_ulong(const char *opt, const char *arg, unsigned long min, unsigned long max,
		      unsigned long *out)
{
	unsigned long long v;
	int err = bench_parse_ull(opt, arg, min, max, &v);

	if (!err)
		*out = (unsigned long)v;
	return err;
}

int bench_parse_uint(const char *opt, const char *arg, unsigned int min, unsigned int max,
		     unsigned int *out)
{
	unsigned long long v;
	int err = bench_parse_ull(opt, arg, min, max, &v);

	if (!err)
		*out = (unsigned int)v;
	return err;
}

/* Policies ----------------------------------------------------------------- */

/* Statistics --------------------------------------------------------------- */

void bench_mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0, q = 0;

	*mean = *sd = 0;
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = s / (double)n;
	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*sd = sqrt(q / (double)(n - 1));
}

/*
 * Regularized incomplete beta I_x(a, b) by Lentz's continued fraction,
 * using the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where it converges slowly.
 */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-14;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

double bench_t_cdf(double t, double df)
{
	double x, tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	x = df / (df + t * t);
	tail = 0.5 * ibeta(df / 2, 0.5, x);	/* P(T > |t|) */
	return t > 0 ? 1 - tail : tail;
}

double bench_t_quantile(double p, double df)
{
	double lo = -1e6, hi = 1e6;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	/* Bisection: the CDF is monotonic, and 200 halvings of 2e6 reach well
	 * below the CDF's own accuracy. */
	for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + fabs(lo)); i++) {
		double mid = (lo + hi) / 2;

		if (bench_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

bool bench_welch(const double *a, size_t na, const double *b, size_t nb, double *diff,
		 double *lo, double *hi, double *p)
{
	double ma, sa, mb, sb, va, vb, se2, df, h;

	bench_mean_sd(a, na, &ma, &sa);
	bench_mean_sd(b, nb, &mb, &sb);
	*diff = mb - ma;
	*lo = *hi = *p = NAN;
	if (na < 2 || nb < 2)
		return false;
	va = sa * sa / (double)na;
	vb = sb * sb / (double)nb;
	se2 = va + vb;
	if (se2 <= 0) {
		/* No spread on either side: the difference is exact. */
		*lo = *hi = *diff;
		*p = ma == mb ? 1 : 0;
		return true;
	}
	/* Welch-Satterthwaite degrees of freedom. */
	df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	h = bench_t_quantile(0.975, df) * sqrt(se2);
	*lo = *diff - h;
	*hi = *diff + h;
	*p = 2 * (1 - bench_t_cdf(fabs(*diff) / sqrt(se2), df));
	return true;
}

double bench_welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	double d, lo, hi, p;

	return bench_welch(a, na, b, nb, &d, &lo, &hi, &p) ? p : NAN;
}

/* Machine ------------------------------------------------------------------ */

int bench_allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		cpus[0] = 0;
		return 1;
	}
	for (int i = 0; i < CPU_SETSIZE && n < max; i++)
		if (CPU_ISSET(i, &set))
			cpus[n++] = i;
	if (!n)
		cpus[n++] = 0;
	return n;
}

int bench_pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

void bench_proc_stat(uint64_t *idle, uint64_t *total)
{
	unsigned long long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	*idle = *total = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) >= 4) {
		for (int i = 0; i < 8; i++)	/* guest time is already in user */
			*total += v[i];
		*idle = v[3] + v[4];
	}
	fclose(f);
}

const char *const bench_hw_names[BENCH_HW_NR] = { "cycles", "instructions", "cache_misses" };

static int perf_open(uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.inherit = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

void bench_hw_start(struct bench_hw_probe *probe, struct bench_hw *hw)
{
	static const uint64_t cfg[BENCH_HW_NR] = { PERF_COUNT_HW_CPU_CYCLES,
		PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CACHE_MISSES };

	memset(hw, 0, sizeof(*hw));
	for (int i = 0; i < BENCH_HW_NR; i++)
		hw->fd[i] = -1;
	if (probe->state < 0)
		return;
	for (int i = 0; i < BENCH_HW_NR; i++) {
		hw->fd[i] = perf_open(cfg[i]);
		if (hw->fd[i] < 0) {
			int e = errno;

			for (int j = 0; j < i; j++)
				close(hw->fd[j]);
			for (int j = 0; j < BENCH_HW_NR; j++)
				hw->fd[j] = -1;
			if (!probe->state)
				fprintf(stderr, "tlbgen-bench: note: no hardware PMU here "
					"(perf_event_open %s: %s); cycles/instructions/"
					"cache-misses are skipped\n", bench_hw_names[i], strerror(e));
			probe->state = -1;
			return;
		}
	}
	probe->state = 1;
	hw->ok = true;
}

void bench_hw_stop(struct bench_hw *hw)
{
	for (int i = 0; i < BENCH_HW_NR; i++) {
		if (hw->fd[i] < 0)
			continue;
		if (read(hw->fd[i], &hw->val[i], sizeof(hw->val[i])) != sizeof(hw->val[i]))
			hw->ok = false;
		close(hw->fd[i]);
		hw->fd[i] = -1;
	}
}

/* Progress ----------------------------------------------------------------- */

void bench_progress(struct bench_progress *pg, const char *fmt, ...)
{
	va_list ap;
	bool tty = isatty(2);

	va_start(ap, fmt);
	fputs(tty ? "\r\033[K" : "", stderr);
	vfprintf(stderr, fmt, ap);
	if (!tty)
		fputc('\n', stderr);
	va_end(ap);
	fflush(stderr);
	pg->shown = tty;
}

void bench_progress_done(struct bench_progress *pg)
{
	if (pg->shown)
		fputs("\r\033[K", stderr);
	pg->shown = false;
}

int bench_parse_cpu_list(const char *opt, const char *arg, unsigned int *v, unsigned int max,
			 unsigned int *n)
{
	const char *s = arg;
	char *end;

	for (*n = 0; *s; s = *end ? end + 1 : end) {
		unsigned long t;

		errno = 0;
		t = strtoul(s, &end, 10);
		if (*n == max || end == s || *s == '-' || errno || (*end && *end != ',') || !t ||
		    t > TLBGEN_MAX_CPUS || (*end == ',' && !end[1])) {
			fprintf(stderr, "tlbgen-bench: %s: '%s' is not a list of at most %u CPU "
				"counts (1..%u)\n", opt, arg, max, TLBGEN_MAX_CPUS);
			return -EINVAL;
		}
		v[(*n)++] = (unsigned int)t;
	}
	if (!*n) {
		fprintf(stderr, "tlbgen-bench: %s: empty list\n", opt);
		return -EINVAL;
	}
	return 0;
}

double bench_pct(double a, double b)
{
	return b ? (a / b - 1) * 100 : 0;
}
