// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/core/test_scheduler.c - the stepped scheduler (tlbgen_step):
 *  - the sequence is the documented one: the draw rand % n of xorshift64*
 *    picks the draw-th pending CPU in ascending order. The expected order
 *    is computed here by a plain scan and also given as a fixed recording;
 *  - the same seed gives the same delivery sequence;
 *  - uniform over the CPUs with an IPI pending (chi-square over many
 *    seeds, with fixed seeds so the verdict is deterministic), with the
 *    threshold shown to reject an always-first and a modulo-biased pick.
 *
 * 150 CPUs with the mm loaded on every CPU but those = 1 mod 3: the
 * pending set spans three bitmap words and has holes.
 */
#include <math.h>

#include "scheduler-fx.h"

#define BIG	1100	/* 18 words: more than one group of the rank/select map */

/* ---- an independent model of the documented scheduler ---------------------- */

struct ref_sched {
	uint64_t rng;
	unsigned int nr;	/* 0: NR */
	bool pending[BIG];
};

static uint64_t ref_rand(struct ref_sched *r)
{
	uint64_t x = r->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->rng = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* rand % (CPUs pending), then the draw-th pending CPU counting upward. */
static int ref_step(struct ref_sched *r)
{
	unsigned int n = 0, pick, nr = r->nr ? r->nr : NR;

	for (unsigned int cpu = 0; cpu < nr; cpu++)
		n += r->pending[cpu];
	if (!n)
		return -ENOENT;
	pick = (unsigned int)(ref_rand(r) % n);
	for (unsigned int cpu = 0; cpu < nr; cpu++) {
		if (r->pending[cpu] && pick-- == 0) {
			r->pending[cpu] = false;
			return (int)cpu;
		}
	}
	fail();
	return -1;
}

/* Recorded from the scan-based scheduler: seed 0x5eed, a one-page flush
 * from CPU 0, then steps until idle ... */
static const int recorded_a[] = {
	41, 69, 113, 66, 32, 18, 81, 147, 96, 99, 47, 3, 84, 48, 122, 42, 138, 65, 92, 110, 83,
	131, 6, 38, 102, 2, 137, 87, 68, 51, 143, 15, 30, 9, 17, 24, 108, 105, 11, 60, 21, 35,
	72, 116, 78, 123, 56, 57, 23, 111, 132, 140, 8, 59, 125, 86, 135, 89, 98, 63, 141, 117,
	5, 107, 104, 12, 126, 119, 90, 120, 29, 50, 44, 146, 71, 101, 39, 26, 114, 45, 149, 80,
	27, 62, 144, 93, 134, 129, 54, 20, 95, 128, 36, 74, 77, 14, 33, 53, 75,
};

/* ... then flushes from CPUs 5 and 6 (each the other's target too). */
static const int recorded_b[] = {
	99, 80, 41, 2, 107, 27, 42, 33, 81, 56, 12, 90, 86, 149, 75, 35, 24, 96, 143, 14, 138,
	78, 48, 120, 114, 3, 125, 101, 17, 21, 111, 60, 119, 74, 51, 84, 65, 59, 9, 93, 32, 26,
	116, 38, 123, 95, 117, 44, 66, 36, 146, 18, 11, 8, 53, 140, 134, 69, 108, 5, 141, 144,
	128, 122, 77, 47, 63, 57, 54, 104, 129, 147, 92, 29, 68, 50, 39, 110, 6, 72, 62, 30,
	23, 71, 105, 132, 135, 83, 137, 98, 87, 126, 45, 102, 131, 89, 15, 0, 113, 20,
};

/* The recorded case: the library, the reference and the recording agree. */
static void test_order_matches_scan(void **state)
{
	struct ref_sched ref = { .rng = 0x5eed };
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = sched_sys(0x5eed, &mm);
	int seq[2 * NR];
	unsigned int n;

	(void)state;
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, 0), 0);
	for (unsigned int cpu = 1; cpu < NR; cpu++)
		ref.pending[cpu] = LOADED(cpu);
	n = record_steps(sys, seq, 2 * NR);
	assert_int_equal(n, sizeof(recorded_a) / sizeof(recorded_a[0]));
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(seq[i], ref_step(&ref));
		assert_int_equal(seq[i], recorded_a[i]);
	}
	assert_int_equal(ref_step(&ref), -ENOENT);

	/* Two initiators: every loaded CPU pending, 5 and 6 included. */
	assert_int_equal(tlbgen_flush_tlb_page(sys, 5, mm, 0), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 6, mm, PG(1)), 0);
	for (unsigned int cpu = 0; cpu < NR; cpu++)
		ref.pending[cpu] = LOADED(cpu);
	n = record_steps(sys, seq, 2 * NR);
	assert_int_equal(n, sizeof(recorded_b) / sizeof(recorded_b[0]));
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(seq[i], ref_step(&ref));
		assert_int_equal(seq[i], recorded_b[i]);
	}
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 5), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 6), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/*
 * 1100 CPUs: the reference agrees through two shootdowns, from CPU 0 and
 * from the last CPU, delivered one step at a time.
 */
static void test_order_matches_scan_big(void **state)
{
	static struct ref_sched ref = { .rng = 77, .nr = BIG };
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = sched_sys_n(BIG, 77, &mm);
	unsigned int n = 0;
	int cpu;

	(void)state;
	for (unsigned int from = 0; from < BIG; from += BIG - 2) {	/* 0 and 1098 */
		assert_true(LOADED(from));
		assert_int_equal(tlbgen_flush_tlb_page(sys, from, mm, 0), 0);
		for (unsigned int t = 0; t < BIG; t++)
			ref.pending[t] = LOADED(t) && t != from;
		while ((cpu = tlbgen_step(sys)) >= 0) {
			assert_int_equal(cpu, ref_step(&ref));
			n++;
		}
		assert_int_equal(ref_step(&ref), -ENOENT);
	}
	assert_int_equal(n, 2 * (733 - 1));
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Run the two-flush scenario of the recorded case under `seed`. */
static unsigned int scenario(uint64_t seed, int *seq, unsigned int max)
{
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = sched_sys(seed, &mm);
	unsigned int n;

	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, 0), 0);
	n = record_steps(sys, seq, max);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 5, mm, 0), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 6, mm, PG(1)), 0);
	n += record_steps(sys, seq + n, max - n);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	return n;
}

/* Same seed, same delivery sequence; another seed, another sequence. */
static void test_deterministic(void **state)
{
	static int a[4 * NR], b[4 * NR], c[4 * NR];
	unsigned int na, nb, nc;

	(void)state;
	for (uint64_t seed = 1; seed < 20; seed += 3) {
		na = scenario(seed, a, 4 * NR);
		nb = scenario(seed, b, 4 * NR);
		nc = scenario(seed + 1, c, 4 * NR);
		assert_int_equal(na, 199);
		assert_int_equal(nb, na);
		assert_int_equal(nc, na);
		assert_memory_equal(a, b, na * sizeof(a[0]));
		assert_memory_not_equal(a, c, na * sizeof(a[0]));
	}
}

/* ---- uniformity -------------------------------------------------------------- */

#define SEEDS		400
#define PER_SEED	25	/* shootdowns per seed */

/* Pearson's statistic of counts[0..k) against a uniform expectation. */
static double chi_square(const unsigned int *counts, unsigned int k, unsigned int samples)
{
	double e = (double)samples / k, x = 0;

	for (unsigned int i = 0; i < k; i++)
		x += (counts[i] - e) * (counts[i] - e) / e;
	return x;
}

/* The chi-square quantile for p = 0.001 (Wilson-Hilferty, z = 3.09). */
static double chi_square_crit(unsigned int df)
{
	double h = 2.0 / (9.0 * df), t = 1 - h + 3.09 * sqrt(h);

	return df * t * t * t;
}

/*
 * The first CPU chosen after a flush from CPU 0, over SEEDS seeds x
 * PER_SEED shootdowns: every one of the 99 pending CPUs equally likely.
 * The same samples, had the scheduler always taken the first pending CPU
 * or biased its draw by a power-of-two modulo, must fail the threshold.
 */
static void test_uniform(void **state)
{
	static unsigned int counts[NR], first[NR], biased[NR];
	unsigned int rank_of[NR], k = 0, samples = 0;
	double crit, x;

	(void)state;
	for (unsigned int cpu = 1; cpu < NR; cpu++)
		if (LOADED(cpu))
			rank_of[cpu] = k++;
	assert_int_equal(k, 99);
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct tlbgen_mm *mm;
		struct tlbgen_system *sys = sched_sys(seed * 0x9E3779B97F4A7C15ULL, &mm);
		struct ref_sched ref = { .rng = seed * 0x9E3779B97F4A7C15ULL };

		for (unsigned int i = 0; i < PER_SEED; i++) {
			int cpu;

			assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, 0), 0);
			cpu = tlbgen_step(sys);
			assert_true(cpu > 0 && LOADED(cpu));
			counts[rank_of[cpu]]++;
			first[0]++;
			/* A selector biased by taking the draw mod 128 first. */
			biased[(ref_rand(&ref) % 128) % k]++;
			for (unsigned int d = 1; d < k; d++)
				ref_rand(&ref);
			assert_int_equal(tlbgen_run_until_idle(sys), (int)k - 1);
			samples++;
		}
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
	crit = chi_square_crit(k - 1);
	x = chi_square(counts, k, samples);
	print_message("chi-square %.1f over %u samples, %u cells, threshold %.1f\n", x, samples,
		      k, crit);
	assert_true(x < crit);
	assert_true(chi_square(first, k, samples) > crit);
	assert_true(chi_square(biased, k, samples) > crit);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_matches_scan),
		cmocka_unit_test(test_order_matches_scan_big),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_uniform),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
