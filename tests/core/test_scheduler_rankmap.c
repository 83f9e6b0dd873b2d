// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/core/test_scheduler_rankmap.c - the data structures behind the
 * stepped scheduler's pick:
 *  - the k-th set bit of a word, by the broadword select and by PDEP,
 *    against a plain scan;
 *  - the rank/select map itself, at every size class up to 8192 bits,
 *    against a plain bitmap: weight, changes, test and every select
 *    after random sets and clears; its SSE2 lane counts against a scan;
 *    and its refusal of a map past 8192 bits;
 *  - consecutive CPUs' blocks are an odd number of cachelines apart.
 */
#include <stdlib.h>

#include "scheduler-fx.h"
#include "../../lib/base/arena.h"	/* tlbgen__arena_odd_lines(): header-only */
#include "../../lib/base/rankmap.h"	/* the map and the word selects */

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_word_select),
		cmocka_unit_test(test_rankmap),
		cmocka_unit_test(test_rankmap_lazy),
		cmocka_unit_test(test_rankmap_too_big),
		cmocka_unit_test(test_lanes_le),
		cmocka_unit_test(test_cpu_lines_odd_stride),
		cmocka_unit_test(test_arena_odd_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
