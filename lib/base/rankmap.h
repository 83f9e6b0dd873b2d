/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/base/rankmap.h - a private bitmap of up to TLBGEN_RANKMAP_MAX_BITS
 * bits that also answers "how many bits are set" in O(1) and "which is the
 * k-th set bit, in ascending order" in O(1): two levels of exclusive prefix
 * counts, of the bitmap's words within a group of 1024 bits and of the
 * groups, each level one short vector. A set or clear adds one to the lanes
 * past its word and past its group, a compare and an add, no loop; a select
 * counts the lanes at or below k in each level (a compare and a mask), then
 * selects within the word. A burst of changes with no select between (a
 * shootdown raising IPIs on every CPU) leaves the lanes stale past a
 * quarter of the map's words, and the next select recounts them. The
 * stepped scheduler picks a uniformly random pending CPU with it; a scan
 * of the bitmap per pick made a shootdown to N targets cost O(N^2), and a
 * Fenwick tree's log-depth descent and update loop were most of what a
 * pick still cost at thousands of CPUs.
 */
#ifndef TLBGEN_BASE_RANKMAP_H
#define TLBGEN_BASE_RANKMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "compiler.h"

/* 8 groups of 16 64-bit words: TLBGEN_MAX_CPUS bits, the largest system. */
#define TLBGEN_RANKMAP_GROUPS		8U
#define TLBGEN_RANKMAP_GROUP_WORDS	16U
#define TLBGEN_RANKMAP_MAX_BITS		(TLBGEN_RANKMAP_GROUPS * TLBGEN_RANKMAP_GROUP_WORDS * 64U)

typedef int16_t tlbgen_lanes8 __attribute__((vector_size(16)));

/*
 * The prefix counts, exclusive and ascending: groups[g] counts the bits set
 * in the groups before g, words[g][i] those in group g's words before its
 * i-th. Lanes past the last word hold the total before them, more than any
 * rank that can fall there, so a select never stops in one.
 */
struct tlbgen_rankmap_lanes {
	int16_t groups[TLBGEN_RANKMAP_GROUPS];
	int16_t pad[32 - TLBGEN_RANKMAP_GROUPS];	/* words[] on the next line */
	int16_t words[TLBGEN_RANKMAP_GROUPS][TLBGEN_RANKMAP_GROUP_WORDS];
};

struct tlbgen_rankmap {
	uint64_t *bits;			/* nwords words; 64-bit on every ABI, so a group is 1024 bits */
	struct tlbgen_rankmap_lanes *lanes;	/* 64-byte aligned */
	unsigned int nwords;
	unsigned int weight;		/* bits set */
	unsigned long changes;		/* set/clear calls that changed a bit */
	/* The lanes are kept up to date for at most lazy_after changes
	 * past `changes` at the last select; then they go stale until the
	 * next select recounts them: O(nwords) once, not O(1) per change. */
	unsigned long read_at;
	unsigned int lazy_after;	/* nwords / 4, at least 1 */
	bool stale;
	bool pdep;			/* select within a word by PDEP (rankmap_init) */
};

/* Room for nbits bits, all clear. 0, -EINVAL past TLBGEN_RANKMAP_MAX_BITS,
 * or -ENOMEM (m untouched either way). */
int tlbgen__rankmap_init(struct tlbgen_rankmap *m, unsigned int nbits);
void tlbgen__rankmap_free(struct tlbgen_rankmap *m);
/* The lanes from the bits, for a select after a burst of changes. */
void tlbgen__rankmap_recount(struct tlbgen_rankmap *m);

static inline bool tlbgen__rankmap_test(const struct tlbgen_rankmap *m, unsigned int b)
{
	return (m->bits[b / 64] >> (b % 64)) & 1;
}

/* Add d to the lanes after lane `from`, of 8 starting at lane `first`:
 * one compare, an and and an add (16-byte vectors: wider ones are split
 * lane by lane where the target has no wider registers). */
static inline void tlbgen__lanes8_add_after(int16_t *p, unsigned int first, unsigned int from,
					    int16_t d)
{
	const tlbgen_lanes8 idx = { 0, 1, 2, 3, 4, 5, 6, 7 };
	tlbgen_lanes8 v;

	memcpy(&v, p, sizeof(v));
	v += ((idx + (int16_t)first) > ((tlbgen_lanes8){ 0 } + (int16_t)from)) & d;
	memcpy(p, &v, sizeof(v));
}

/*
 * How many of n ascending lanes are <= k, by a sum of compares: the
 * portable form, and the check of the SSE2 forms below.
 */
static inline unsigned int tlbgen__lanes_le_scan(const int16_t *p, unsigned int n, unsigned int k)
{
	unsigned int c = 0;

	for (unsigned int i = 0; i < n; i++)
		c += (unsigned int)p[i] <= k;
	return c;
}

#ifdef __SSE2__
/* The same by SSE2: the lanes above k are a suffix, so their mask's lowest
 * bit is the count below (lanes and k fit a signed 16-bit compare). */
static inline unsigned int tlbgen__lanes_le_sse2(const int16_t *p, unsigned int n, unsigned int k)
{
	__m128i kv = _mm_set1_epi16((short)k);
	__m128i lo = _mm_cmpgt_epi16(_mm_load_si128((const __m128i *)p), kv);
	__m128i hi = n > 8 ? _mm_cmpgt_epi16(_mm_load_si128((const __m128i *)p + 1), kv) : lo;
	unsigned int mask = (unsigned int)_mm_movemask_epi8(_mm_packs_epi16(lo, hi));

	return (unsigned int)__builtin_ctz((mask & ((1U << n) - 1)) | (1U << n));
}
#endif

/* n is 8 or 16, a constant wherever it is inlined. */
static inline unsigned int tlbgen__lanes_le(const int16_t *p, unsigned int n, unsigned int k)
{
#ifdef __SSE2__
	return tlbgen__lanes_le_sse2(p, n, k);
#else
	return tlbgen__lanes_le_scan(p, n, k);
#endif
}

static inline void tlbgen__rankmap_add(struct tlbgen_rankmap *m, unsigned int word, int16_t d)
{
	unsigned int g = word / TLBGEN_RANKMAP_GROUP_WORDS, w = word % TLBGEN_RANKMAP_GROUP_WORDS;

	/* A one-word map needs no lanes, a one-group map no group lanes
	 * (rankmap_select); the branch is the same for a map's whole life. */
	if (m->nwords > 1 && !m->stale) {
		if (m->changes - m->read_at >= m->lazy_after) {
			m->stale = true;
			goto out;
		}
		if (m->nwords > TLBGEN_RANKMAP_GROUP_WORDS)
			tlbgen__lanes8_add_after(m->lanes->groups, 0, g, d);
		tlbgen__lanes8_add_after(m->lanes->words[g], 0, w, d);
		tlbgen__lanes8_add_after(m->lanes->words[g] + 8, 8, w, d);
	}
out:
	m->weight += (unsigned int)d;
	m->changes++;
}

static inline void tlbgen__rankmap_set(struct tlbgen_rankmap *m, unsigned int b)
{
	if (tlbgen__rankmap_test(m, b))
		return;
	m->bits[b / 64] |= 1ULL << (b % 64);
	tlbgen__rankmap_add(m, b / 64, 1);
}

static inline void tlbgen__rankmap_clear(struct tlbgen_rankmap *m, unsigned int b)
{
	if (!tlbgen__rankmap_test(m, b))
		return;
	m->bits[b / 64] &= ~(1ULL << (b % 64));
	tlbgen__rankmap_add(m, b / 64, -1);
}

#define TLBGEN_L8	0x0101010101010101ULL
#define TLBGEN_H8	0x8080808080808080ULL

/* How many bytes of x are <= k; every byte of x and k below 128. */
static inline unsigned int tlbgen__bytes_le(uint64_t x, unsigned int k)
{
	uint64_t t = ((k * TLBGEN_L8) | TLBGEN_H8) - x;

	return (unsigned int)((((t & TLBGEN_H8) >> 7) * TLBGEN_L8) >> 56);
}

/*
 * Each byte of w's population count, in that byte. No popcount
 * instruction is assumed (baseline x86-64 calls libgcc for
 * __builtin_popcountl).
 */
static inline uint64_t tlbgen__byte_weights(uint64_t w)
{
	uint64_t s = w - ((w >> 1) & 0x5555555555555555ULL);

	s = (s & 0x3333333333333333ULL) + ((s >> 2) & 0x3333333333333333ULL);
	return (s + (s >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
}

/*
 * Position of the k-th (from 0) set bit of word, k < popcount(word).
 * Broadword and branch-free (a random k defeats branch prediction):
 * prefix sums of the byte popcounts pick the byte, prefix sums of the
 * byte's bits spread one per byte pick the bit.
 */
static inline unsigned int tlbgen__word_select_broadword(uint64_t word, unsigned int k)
{
	uint64_t w = word, s = tlbgen__byte_weights(w), prefix, b;
	unsigned int byte;

	prefix = s * TLBGEN_L8;			/* byte i: bits set in bytes 0..i */
	byte = tlbgen__bytes_le(prefix, k);
	k -= (unsigned int)(((prefix << 8) >> (8 * byte)) & 0xff);
	b = (w >> (8 * byte)) & 0xff;
	b = (b * TLBGEN_L8) & 0x8040201008040201ULL;	/* byte i: bit i of b */
	b = ((b + 0x7f7f7f7f7f7f7f7fULL) >> 7) & TLBGEN_L8;	/* ... as 0 or 1 */
	return 8 * byte + tlbgen__bytes_le(b * TLBGEN_L8, k);
}

#ifdef __x86_64__
/*
 * The same by BMI2's PDEP, which deposits 1 << k at word's k-th set bit:
 * one instruction, where the broadword select is a chain of about 30.
 * Inline asm, so that the library builds for baseline x86-64; only a CPU
 * that has a fast PDEP takes it (tlbgen__rankmap_init()).
 */
static inline unsigned int tlbgen__word_select_pdep(uint64_t word, unsigned int k)
{
	uint64_t bit;

	__asm__("pdep %2, %1, %0" : "=r"(bit) : "r"(1ULL << k), "rm"(word));
	return (unsigned int)__builtin_ctzll(bit);
}
#endif

static inline unsigned int tlbgen__word_select(const struct tlbgen_rankmap *m, uint64_t word,
					       unsigned int k)
{
#ifdef __x86_64__
	if (m->pdep)
		return tlbgen__word_select_pdep(word, k);
#else
	(void)m;
#endif
	return tlbgen__word_select_broadword(word, k);
}

/*
 * The k-th set bit in ascending order, k < weight: the last group whose
 * prefix is <= k, the last word of it whose prefix is <= k, then the bit
 * within the word. No branch on k (a random k defeats prediction); the
 * levels a small map does not need are skipped, by a branch on its size:
 * the scheduler's loop waits on this chain of loads before it delivers.
 * Stale lanes are recounted first, so the map is written to.
 */
static inline unsigned int tlbgen__rankmap_select(struct tlbgen_rankmap *m, unsigned int k)
{
	const struct tlbgen_rankmap_lanes *l = m->lanes;
	unsigned int g = 0, w, word;

	if (m->nwords <= 1)
		return tlbgen__word_select(m, m->bits[0], k);
	if (unlikely(m->stale))
		tlbgen__rankmap_recount(m);
	m->read_at = m->changes;
	if (m->nwords > TLBGEN_RANKMAP_GROUP_WORDS) {
		g = tlbgen__lanes_le(l->groups, TLBGEN_RANKMAP_GROUPS, k) - 1;
		k -= (unsigned int)l->groups[g];
	}
	w = tlbgen__lanes_le(l->words[g], TLBGEN_RANKMAP_GROUP_WORDS, k) - 1;
	k -= (unsigned int)l->words[g][w];
	word = g * TLBGEN_RANKMAP_GROUP_WORDS + w;
	return word * 64 + tlbgen__word_select(m, m->bits[word], k);
}

#endif
