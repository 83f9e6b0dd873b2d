// SPDX-License-Identifier: LGPL-2.1-or-later
/* bench/common.c - helpers shared by the workloads of tlbgen-bench. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
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
