// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/bench/test_stats.c - tlbgen-bench's statistics against reference
 * values: Student's t quantiles from the published two-sided tables, the
 * CDF's closed forms for 1, 2 and 4 degrees of freedom, and Welch's test on
 * data whose p R's t.test() reports.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench.h"
#include "driver/common.h"

static void near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.9g, want %.9g (+-%g)", got, want, tol);
}

/* t_{0.975} and t_{0.995} of the standard tables (4 decimals). */
static void test_quantile_table(void **state)
{
	static const struct { double p, df, t; } tab[] = {
		{ 0.975, 1, 12.7062 }, { 0.975, 2, 4.3027 }, { 0.975, 5, 2.5706 },
		{ 0.975, 10, 2.2281 }, { 0.975, 30, 2.0423 }, { 0.975, 120, 1.9799 },
		{ 0.995, 10, 3.1693 }, { 0.95, 20, 1.7247 }, { 0.975, 1e7, 1.9600 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		near(bench_t_quantile(tab[i].p, tab[i].df), tab[i].t, 6e-5);
		near(bench_t_quantile(1 - tab[i].p, tab[i].df), -tab[i].t, 6e-5);
	}
	assert_true(isnan(bench_t_quantile(0, 5)));
	assert_true(isnan(bench_t_quantile(1, 5)));
	assert_true(isnan(bench_t_quantile(0.5, 0)));
}

/* df 1 (Cauchy): 1/2 + atan(t)/pi; df 2: 1/2 + t / (2 sqrt(2 + t^2)). */
static void test_cdf_closed_forms(void **state)
{
	(void)state;
	for (double t = -20; t <= 20; t += 0.37) {
		near(bench_t_cdf(t, 1), 0.5 + atan(t) / M_PI, 1e-10);
		near(bench_t_cdf(t, 2), 0.5 + t / (2 * sqrt(2 + t * t)), 1e-10);
	}
	near(bench_t_cdf(0, 7.5), 0.5, 1e-12);
	near(bench_t_cdf(INFINITY, 3), 1, 0);
	assert_true(isnan(bench_t_cdf(1, -1)));
}

/* R: t.test(1:3, 4:6) -> t = -3.6742, df = 4, p-value = 0.02131. */
static void test_welch_reference(void **state)
{
	static const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	double d, lo, hi, p;

	(void)state;
	assert_true(bench_welch(a, 3, b, 3, &d, &lo, &hi, &p));
	near(d, 3, 1e-12);
	near(p, 0.021311641, 1e-8);
	/* R's 95% interval of mean(a) - mean(b): -5.267 .. -0.733. */
	near(lo, 0.733, 1e-3);
	near(hi, 5.267, 1e-3);
	near(bench_welch_p(a, 3, b, 3), p, 0);
}

/* A sample against itself: no change, p = 1, an interval around 0. */
static void test_welch_self(void **state)
{
	static const double a[] = { 10, 12, 9, 11, 13 };
	static const double c[] = { 4, 4, 4 };
	double d, lo, hi, p;

	(void)state;
	assert_true(bench_welch(a, 5, a, 5, &d, &lo, &hi, &p));
	near(d, 0, 0);
	near(p, 1, 0);
	assert_true(lo < 0 && hi > 0);
	near(lo, -hi, 1e-12);
	/* No spread on either side: an exact difference. */
	assert_true(bench_welch(c, 3, c, 3, &d, &lo, &hi, &p));
	near(p, 1, 0);
	near(lo, 0, 0);
	/* Fewer than 2 samples: no interval, no p. */
	assert_false(bench_welch(a, 1, a, 5, &d, &lo, &hi, &p));
	assert_true(isnan(p) && isnan(lo) && isnan(hi));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantile_table),
		cmocka_unit_test(test_cdf_closed_forms),
		cmocka_unit_test(test_welch_reference),
		cmocka_unit_test(test_welch_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
