// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/core/test_scheduler.c - the stepped scheduler (tlbgen_step):
 *  - uniform over the CPUs with an IPI pending (chi-square over many
 *    seeds, with fixed seeds so the verdict is deterministic), with the
 *    threshold shown to reject an always-first and a modulo-biased pick;
 *  - the same seed gives the same delivery sequence;
 *  - the sequence is the documented one: the draw rand % n of xorshift64*
 *    picks the draw-th pending CPU in ascending order. The expected order
 *    is computed here by a plain scan, and was also recorded from the
 *    scan-based scheduler the rank/select one replaced;
 *  - the k-th set bit of a word, by the broadword select and by PDEP,
 *    against a plain scan;
 *  - the rank/select map itself, at every size class up to 8192 bits,
 *    against a plain bitmap: weight, changes, test and every select
 *    after random sets and clears; its SSE2 lane counts against a scan;
 *    and its refusal of a map past 8192 bits;
 *  - consecutive CPUs' blocks are an odd number of cachelines apart;
 *  - a callback that preempts a vCPU does not leave run_until_idle
 *    picking it forever;
 *  - run_until_idle keeps tlbgen_step()'s order when callbacks raise new
 *    IPIs while it runs.
 *
 * 150 CPUs with the mm loaded on every CPU but those = 1 mod 3: the
 * pending set spans three bitmap words and has holes.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tlbgen-test.h"
#include "../../lib/base/arena.h"	/* tlbgen__arena_odd_lines(): header-only */
#include "../../lib/base/rankmap.h"	/* the map and the word selects */

#define NR	150
#define BIG	1100	/* 18 words: more than one group of the rank/select map */
#define LOADED(cpu)	((cpu) % 3 != 1)

static struct tlbgen_system *sched_sys_n(unsigned int nr, uint64_t seed, struct tlbgen_mm **mm)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = nr, .mode = TLBGEN_MODE_STEPPED,
		    .profile = "v6.0", .seed = seed, .flags = TLBGEN_SYS_NO_ORACLE);
	struct tlbgen_system *sys = t_sys_opts(&o);

	*mm = t_mm(sys, 4);
	for (unsigned int cpu = 0; cpu < nr; cpu++)
		if (LOADED(cpu))
			assert_int_equal(tlbgen_switch_mm(sys, cpu, *mm), 0);
	return sys;
}

static struct tlbgen_system *sched_sys(uint64_t seed, struct tlbgen_mm **mm)
{
	return sched_sys_n(NR, seed, mm);
}

/* Step until idle, recording the CPUs chosen; returns how many. */
static unsigned int record_steps(struct tlbgen_system *sys, int *seq, unsigned int max)
{
	unsigned int n = 0;
	int cpu;

	while ((cpu = tlbgen_step(sys)) >= 0) {
		assert_true(n < max);
		seq[n++] = cpu;
	}
	assert_int_equal(cpu, -ENOENT);
	return n;
}

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

/* The CPUs of the deliveries recorded in r, one entry per delivery. */
static unsigned int rec_deliveries(const struct t_rec *r, int *seq, unsigned int max)
{
	unsigned int n = 0;

	for (size_t i = 0; i < r->nr; i++) {
		if (r->ev[i].kind != EV_IPI_RECV || (n && seq[n - 1] == r->ev[i].a))
			continue;
		assert_true(n < max);
		seq[n++] = r->ev[i].a;
	}
	return n;
}

/*
 * tlbgen_run_until_idle() delivers in the order tlbgen_step() would, and
 * leaves the generator where the steps would: the next shootdown's
 * sequence is the same too.
 */
static void test_run_until_idle_is_steps(void **state)
{
	static int by_step[4 * NR], by_run[4 * NR];
	struct tlbgen_mm *mm_a, *mm_b;
	struct tlbgen_system *a = sched_sys(0xabc, &mm_a), *b = sched_sys(0xabc, &mm_b);
	struct t_rec rec = { 0 };

	(void)state;
	t_rec_install(b, &rec, false);
	for (unsigned int round = 0; round < 3; round++) {
		unsigned int n_step, n_run;

		assert_int_equal(tlbgen_flush_tlb_page(a, 5, mm_a, 0), 0);
		assert_int_equal(tlbgen_flush_tlb_page(a, 6, mm_a, PG(1)), 0);
		assert_int_equal(tlbgen_flush_tlb_page(b, 5, mm_b, 0), 0);
		assert_int_equal(tlbgen_flush_tlb_page(b, 6, mm_b, PG(1)), 0);
		n_step = record_steps(a, by_step, 4 * NR);
		t_rec_clear(&rec);
		assert_int_equal(tlbgen_run_until_idle(b), (int)n_step);
		n_run = rec_deliveries(&rec, by_run, 4 * NR);
		assert_int_equal(n_run, n_step);
		assert_memory_equal(by_step, by_run, n_step * sizeof(by_step[0]));
		assert_int_equal(tlbgen_run_until_idle(b), 0);
	}
	assert_int_equal(tlbgen_system__set_trace(b, NULL), 0);
	t_rec_free(&rec);
	assert_int_equal(tlbgen_system__destroy(a), 0);
	assert_int_equal(tlbgen_system__destroy(b), 0);
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

/* ---- per-CPU lines at an odd stride ----------------------------------------- */

struct queue_lines {
	uintptr_t id[NR];	/* each CPU's call_single_queue line, as it drains it */
};

static void queue_line(void *ctx, unsigned int cpu, enum tlbgen_line line, uintptr_t id,
		       enum tlbgen_access_op op)
{
	struct queue_lines *q = ctx;

	(void)op;
	if (line == TLBGEN_LINE_CALL_QUEUE && cpu < NR && !q->id[cpu])
		q->id[cpu] = id;
}

/*
 * Targets reached in any order touch the same fields of every CPU: blocks
 * 2^k lines apart would put one field of every CPU in one cache set of 2^k.
 * Each delivery shows its own queue's line (address ids asked for):
 * consecutive CPUs' lines, where they sit side by side, must be an odd
 * number of lines apart, whatever struct tlbgen_cpu's size.
 */
static void test_cpu_lines_odd_stride(void **state)
{
	struct queue_lines q = { 0 };
	struct tlbgen_trace_ops ops = { .sz = sizeof(ops), .line_access = queue_line, .ctx = &q };
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = sched_sys(1, &mm);
	unsigned int pairs = 0;

	(void)state;
	assert_int_equal(tlbgen_system__set_line_ids(sys, TLBGEN_LINE_IDS_ADDRESS), 0);
	assert_int_equal(tlbgen_system__set_trace(sys, &ops), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, 0), 0);
	for (unsigned int cpu = 1; cpu < NR; cpu++)
		if (LOADED(cpu))
			assert_int_equal(tlbgen_deliver(sys, cpu), 1);
	for (unsigned int cpu = 2; cpu < NR; cpu++) {
		uintptr_t a = q.id[cpu - 1], b = q.id[cpu], lines;

		if (!LOADED(cpu) || !LOADED(cpu - 1) || b <= a || b - a > 16384)
			continue;	/* not delivered, or across an arena chunk's end */
		lines = (b - a) / 64;
		assert_int_equal((b - a) % 64, 0);
		assert_int_equal(lines % 2, 1);
		pairs++;
	}
	/* The structs sit side by side: most pairs are checked. */
	assert_true(pairs >= 40);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* The padding itself: whole lines, and an odd number of them. */
static void test_arena_odd_lines(void **state)
{
	(void)state;
	assert_int_equal(tlbgen__arena_odd_lines(1, 64), 64);
	assert_int_equal(tlbgen__arena_odd_lines(64, 64), 64);
	assert_int_equal(tlbgen__arena_odd_lines(65, 64), 192);
	assert_int_equal(tlbgen__arena_odd_lines(1024, 64), 1088);
	assert_int_equal(tlbgen__arena_odd_lines(1088, 64), 1088);
	assert_int_equal(tlbgen__arena_odd_lines(1089, 64), 1216);
}

/* ---- the k-th set bit of a word ---------------------------------------------- */

static unsigned int scan_select(uint64_t w, unsigned int k)
{
	for (unsigned int b = 0; b < 64; b++)
		if (((w >> b) & 1) && k-- == 0)
			return b;
	return 64;
}

/*
 * Both selects agree with a scan on every k of words of every density
 * (xorshift words ANDed or ORed together, and the edge words), and
 * tlbgen__word_select() takes the one the rankmap says. PDEP is tried
 * wherever the CPU has BMI2, fast or not.
 */
static void test_word_select(void **state)
{
	static const uint64_t edge[] = { 1, 1ULL << 63, ~0ULL, 0x8000000000000001ULL,
					 0x5555555555555555ULL, 0xff00ff00ff00ff00ULL };
	struct tlbgen_rankmap m = { .pdep = false };
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	bool pdep = false;
	unsigned int checked = 0;

	(void)state;
#ifdef __x86_64__
	__builtin_cpu_init();
	pdep = __builtin_cpu_supports("bmi2");
#endif
	for (unsigned int i = 0; i < 3000; i++) {
		uint64_t w, a, b;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17, a = x;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17, b = x;
		w = i < sizeof(edge) / sizeof(edge[0]) ? edge[i] : i % 3 == 0 ? a & b : i % 3 == 1 ? a | b : a;
		for (unsigned int k = 0; k < (unsigned int)__builtin_popcountll(w); k++) {
			unsigned int want = scan_select(w, k);

			assert_int_equal(tlbgen__word_select_broadword(w, k), want);
			m.pdep = false;
			assert_int_equal(tlbgen__word_select(&m, w, k), want);
#ifdef __x86_64__
			if (pdep) {
				assert_int_equal(tlbgen__word_select_pdep(w, k), want);
				m.pdep = true;
				assert_int_equal(tlbgen__word_select(&m, w, k), want);
			}
#endif
			checked++;
		}
	}
	assert_true(checked > 90000);
}

/* ---- the rank/select map ------------------------------------------------------ */

static uint64_t xs(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* The map against a plain bitmap: weight, test, and select of every rank
 * (the k-th set bit by a scan). */
static void check_map(struct tlbgen_rankmap *m, const bool *ref, unsigned int nbits)
{
	unsigned int k = 0;

	for (unsigned int b = 0; b < nbits; b++) {
		assert_int_equal(tlbgen__rankmap_test(m, b), ref[b]);
		if (ref[b])
			assert_int_equal(tlbgen__rankmap_select(m, k++), b);
	}
	assert_int_equal(m->weight, k);
}

/*
 * Sizes on both sides of each level's edge: one word, one group (16
 * words), several groups, the last group part-filled, and all 8192 bits.
 * Random sets and clears, repeated ones included (they change nothing),
 * at densities from sparse to full, then everything cleared again.
 */
static void test_rankmap(void **state)
{
	static const unsigned int sizes[] = { 1, 63, 64, 65, 128, 1023, 1024, 1025, 1100,
					      4096, 8191, 8192 };
	uint64_t x = 0x2545f4914f6cdd1dULL;

	(void)state;
	for (unsigned int s = 0; s < ARRAY_SIZE(sizes); s++) {
		unsigned int nbits = sizes[s];
		struct tlbgen_rankmap m;
		bool *ref = calloc(nbits, sizeof(*ref));
		unsigned long changes = 0;

		assert_non_null(ref);
		assert_int_equal(tlbgen__rankmap_init(&m, nbits), 0);
		check_map(&m, ref, nbits);
		for (unsigned int round = 0; round < 6; round++) {
			/* Rounds 0-3 set with a rising share, 4-5 clear. */
			unsigned int ops = nbits < 64 ? 4 * nbits : nbits;

			for (unsigned int i = 0; i < ops; i++) {
				unsigned int b = (unsigned int)(xs(&x) % nbits);
				bool set = round < 4 ? xs(&x) % 4 <= round : xs(&x) % 3 == 0;

				changes += ref[b] != set;
				ref[b] = set;
				if (set)
					tlbgen__rankmap_set(&m, b);
				else
					tlbgen__rankmap_clear(&m, b);
			}
			assert_int_equal(m.changes, changes);
			check_map(&m, ref, nbits);
		}
		for (unsigned int b = 0; b < nbits; b++) {
			changes += ref[b];
			ref[b] = false;
			tlbgen__rankmap_clear(&m, b);
		}
		assert_int_equal(m.changes, changes);
		check_map(&m, ref, nbits);
		/* Every bit set: each rank is its own bit. */
		for (unsigned int b = 0; b < nbits; b++) {
			ref[b] = true;
			tlbgen__rankmap_set(&m, b);
		}
		check_map(&m, ref, nbits);
		tlbgen__rankmap_free(&m);
		free(ref);
	}
}

/*
 * Bursts of changes between selects, shorter and longer than the map's
 * lazy_after: the lanes kept up to date change by change equal the ones
 * counted afresh, a longer burst leaves them stale, and the select after
 * either answers every rank as a scan does.
 */
static void test_rankmap_lazy(void **state)
{
	static const unsigned int sizes[] = { 65, 200, 1024, 1100, 4096, 8192 };
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	(void)state;
	for (unsigned int s = 0; s < ARRAY_SIZE(sizes); s++) {
		unsigned int nbits = sizes[s], bursts = 0, stale = 0;
		struct tlbgen_rankmap m;
		bool *ref = calloc(nbits, sizeof(*ref));

		assert_non_null(ref);
		assert_int_equal(tlbgen__rankmap_init(&m, nbits), 0);
		assert_true(m.lazy_after >= 1 && m.lazy_after == (m.nwords / 4 ? m.nwords / 4 : 1));
		for (unsigned int round = 0; round < 60; round++) {
			/* Mostly bursts the lanes follow, every third one longer. */
			unsigned int len = round % 3 == 2 ? m.lazy_after + 1 + (unsigned int)(xs(&x) % 64)
							  : (unsigned int)(xs(&x) % (m.lazy_after + 1));
			unsigned long before = m.changes;

			for (unsigned int i = 0; i < len * 4 && m.changes - before < len; i++) {
				unsigned int b = (unsigned int)(xs(&x) % nbits);

				ref[b] = !ref[b];
				if (ref[b])
					tlbgen__rankmap_set(&m, b);
				else
					tlbgen__rankmap_clear(&m, b);
			}
			bursts++;
			assert_int_equal(m.stale, m.changes - before > m.lazy_after);
			if (!m.stale) {
				struct tlbgen_rankmap_lanes kept = *m.lanes;

				m.stale = true;		/* recount them, to compare */
				tlbgen__rankmap_recount(&m);
				assert_false(m.stale);
				assert_memory_equal(&kept, m.lanes, sizeof(kept));
			} else {
				stale++;
			}
			check_map(&m, ref, nbits);
			assert_false(m.stale);
			assert_int_equal(m.read_at, m.changes);
		}
		assert_true(stale >= bursts / 4);
		tlbgen__rankmap_free(&m);
		free(ref);
	}
}

/* Past TLBGEN_RANKMAP_MAX_BITS: -EINVAL, and the map untouched. */
static void test_rankmap_too_big(void **state)
{
	struct tlbgen_rankmap m;

	(void)state;
	memset(&m, 0xa5, sizeof(m));
	assert_int_equal(tlbgen__rankmap_init(&m, TLBGEN_RANKMAP_MAX_BITS + 1), -EINVAL);
	for (size_t i = 0; i < sizeof(m); i++)
		assert_int_equal(((unsigned char *)&m)[i], 0xa5);
	assert_true(TLBGEN_MAX_CPUS <= TLBGEN_RANKMAP_MAX_BITS);
}

/* The SSE2 lane counts against the scan, on ascending lanes with runs of
 * equal values, for k below, inside and above them. */
static void test_lanes_le(void **state)
{
	_Alignas(16) int16_t lanes[16];
	uint64_t x = 0x853c49e6748fea9bULL;
	unsigned int checked = 0;

	(void)state;
	for (unsigned int i = 0; i < 2000; i++) {
		int16_t v = 0;

		for (unsigned int l = 0; l < 16; l++) {
			lanes[l] = v;
			v = (int16_t)(v + (xs(&x) % 3 ? 0 : (int16_t)(xs(&x) % 600)));
		}
		for (unsigned int k = 0; k <= (unsigned int)lanes[15] + 1; k += 1 + k / 64) {
			unsigned int want8 = tlbgen__lanes_le_scan(lanes, 8, k);
			unsigned int want16 = tlbgen__lanes_le_scan(lanes, 16, k);

			assert_int_equal(tlbgen__lanes_le(lanes, 8, k), want8);
			assert_int_equal(tlbgen__lanes_le(lanes, 16, k), want16);
#ifdef __SSE2__
			assert_int_equal(tlbgen__lanes_le_sse2(lanes, 8, k), want8);
			assert_int_equal(tlbgen__lanes_le_sse2(lanes, 16, k), want16);
#endif
			checked++;
		}
	}
	assert_true(checked > 50000);
}

/* ---- a callback that preempts a vCPU mid-run --------------------------------- */

struct preempt_run {
	unsigned int order[4], n;
};

static void preempt_cpu2(struct tlbgen_system *sys, unsigned int cpu, void *info)
{
	struct preempt_run *r = info;

	r->order[r->n++] = cpu;
	/* CPU 2 may have taken its call already: then it has nothing left. */
	assert_int_equal(tlbgen_vcpu__preempt(sys, 2), 0);
}

static void note_cpu(struct tlbgen_system *sys, unsigned int cpu, void *info)
{
	struct preempt_run *r = info;

	(void)sys;
	r->order[r->n++] = cpu;
}

/*
 * CPU 1's callback preempts CPU 2 while CPU 2's call is still pending:
 * tlbgen_run_until_idle() must then step as tlbgen_step() does, leaving
 * CPU 2's IPI pending, rather than pick CPU 2 forever.
 */
static void test_run_until_idle_preempted_by_callback(void **state)
{
	unsigned int first_one = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 16; seed++) {
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 4, .mode = TLBGEN_MODE_STEPPED,
			    .profile = "v6.0", .seed = seed, .flags = TLBGEN_SYS_NO_ORACLE);
		struct tlbgen_system *sys = t_sys_opts(&o);
		struct preempt_run r = { .n = 0 };

		assert_int_equal(tlbgen_smp_call_function_single(sys, 0, 1, preempt_cpu2, &r), 0);
		assert_int_equal(tlbgen_smp_call_function_single(sys, 3, 2, note_cpu, &r), 0);
		if (tlbgen_run_until_idle(sys) == 1) {
			/* CPU 1 went first: CPU 2 is preempted with its IPI pending. */
			assert_int_equal(r.n, 1);
			assert_int_equal(r.order[0], 1);
			assert_int_equal(tlbgen_cpu__ipi_pending(sys, 2), 1);
			assert_int_equal(tlbgen_vcpu__resume(sys, 2), 0);
			assert_int_equal(tlbgen_run_until_idle(sys), 1);
			first_one++;
		} else {
			assert_int_equal(r.n, 2);
			assert_int_equal(r.order[0], 2);
		}
		assert_int_equal(tlbgen_cpu__ipi_pending(sys, 2), 0);
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
	/* Both orders came up among the seeds. */
	assert_true(first_one > 0 && first_one < 16);
}

/* ---- callbacks that raise IPIs mid-run ---------------------------------------- */

/*
 * A relay: each call, run on its target, records the target and, while
 * relays are left, sends a call of its own from the next idle initiator
 * (CPUs 12-15) to another target, so the pending set gains a CPU between
 * two deliveries of a run.
 */
struct relay_run {
	struct tlbgen_system *sys;
	unsigned int order[64], n, relays;
};

static void relay(struct tlbgen_system *sys, unsigned int cpu, void *info)
{
	struct relay_run *r = info;

	assert_true(r->n < 64);
	r->order[r->n++] = cpu;
	if (r->relays < 4) {
		unsigned int from = 12 + r->relays++;

		assert_int_equal(tlbgen_smp_call_function_single(sys, from, (cpu * 5 + 3) % 12,
								 relay, r), 0);
	}
}

static unsigned int relay_scenario(uint64_t seed, bool run, struct relay_run *r)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 16, .mode = TLBGEN_MODE_STEPPED,
		    .profile = "v6.0", .seed = seed, .flags = TLBGEN_SYS_NO_ORACLE);
	struct tlbgen_system *sys = t_sys_opts(&o);
	unsigned int steps = 0;

	/* Four calls from CPUs 8-11 to targets 1-4 start it. */
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(tlbgen_smp_call_function_single(sys, 8 + i, 1 + i, relay, r), 0);
	if (run) {
		int done = tlbgen_run_until_idle(sys);

		assert_true(done > 0);
		steps = (unsigned int)done;
	} else {
		while (tlbgen_step(sys) >= 0)
			steps++;
	}
	/* The generator is left where the steps leave it too. */
	assert_int_equal(tlbgen_smp_call_function_single(sys, 8, 9, relay, r), 0);
	assert_int_equal(tlbgen_smp_call_function_single(sys, 10, 11, relay, r), 0);
	assert_int_equal(tlbgen_step(sys) >= 0, 1);
	assert_int_equal(tlbgen_step(sys) >= 0, 1);
	assert_int_equal(tlbgen_step(sys), -ENOENT);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	return steps;
}

static void test_run_until_idle_new_ipis(void **state)
{
	unsigned int differ = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 24; seed++) {
		struct relay_run a = { .n = 0 }, b = { .n = 0 };
		unsigned int na = relay_scenario(seed, false, &a);
		unsigned int nb = relay_scenario(seed, true, &b);

		/* Four calls and four relays (a delivery may take two), then
		 * the two calls after. */
		assert_true(na >= 4 && na <= 8);
		assert_int_equal(nb, na);
		assert_int_equal(a.n, 10);
		assert_int_equal(b.n, 10);
		assert_memory_equal(a.order, b.order, a.n * sizeof(a.order[0]));
		differ += memcmp(a.order, (unsigned int[]){ 1, 2, 3, 4 }, 4 * sizeof(a.order[0])) != 0;
	}
	/* The seeds gave orders other than the queueing one. */
	assert_true(differ > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_matches_scan),
		cmocka_unit_test(test_order_matches_scan_big),
		cmocka_unit_test(test_run_until_idle_is_steps),
		cmocka_unit_test(test_run_until_idle_new_ipis),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_word_select),
		cmocka_unit_test(test_rankmap),
		cmocka_unit_test(test_rankmap_lazy),
		cmocka_unit_test(test_rankmap_too_big),
		cmocka_unit_test(test_lanes_le),
		cmocka_unit_test(test_cpu_lines_odd_stride),
		cmocka_unit_test(test_arena_odd_lines),
		cmocka_unit_test(test_run_until_idle_preempted_by_callback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
