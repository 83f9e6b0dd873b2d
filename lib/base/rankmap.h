/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/base/rankmap.h - a private bitmap that also answers "how many bits
 * are set" in O(1) and "which is the k-th set bit, in ascending order" in
 * O(log words): a Fenwick tree over the popcounts of the bitmap's words,
 * updated by set/clear. The stepped scheduler picks a uniformly random
 * pending CPU with it; a scan of the bitmap per pick made a shootdown to N
 * targets cost O(N^2).
 */
#ifndef TLBGEN_BASE_RANKMAP_H
#define TLBGEN_BASE_RANKMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "cpumask.h"

struct tlbgen_rankmap {
	unsigned long *bits;		/* the bitmap itself, nlongs words */
	unsigned int *tree;		/* tree[1..nlongs]: Fenwick sums of word weights */
	unsigned int nlongs;
	unsigned int top;		/* largest power of two <= nlongs */
	unsigned int weight;		/* bits set */
	unsigned long changes;		/* set/clear calls that changed a bit */
	bool pdep;			/* select within a word by PDEP (rankmap_init) */
};

/* Room for nbits bits, all clear. 0 or -ENOMEM (m untouched). */
int tlbgen__rankmap_init(struct tlbgen_rankmap *m, unsigned int nbits);
void tlbgen__rankmap_free(struct tlbgen_rankmap *m);

static inline bool tlbgen__rankmap_test(const struct tlbgen_rankmap *m, unsigned int b)
{
	return bitmap_test(m->bits, b);
}

static inline void tlbgen__rankmap_add(struct tlbgen_rankmap *m, unsigned int word, int d)
{
	for (unsigned int i = word + 1; i <= m->nlongs; i += i & -i)
		m->tree[i] += (unsigned int)d;
	m->weight += (unsigned int)d;
	m->changes++;
}

static inline void tlbgen__rankmap_set(struct tlbgen_rankmap *m, unsigned int b)
{
	if (bitmap_test(m->bits, b))
		return;
	bitmap_set(m->bits, b);
	tlbgen__rankmap_add(m, (unsigned int)TLBGEN_BIT_WORD(b), 1);
}

static inline void tlbgen__rankmap_clear(struct tlbgen_rankmap *m, unsigned int b)
{
	if (!bitmap_test(m->bits, b))
		return;
	bitmap_clear_bit(m->bits, b);
	tlbgen__rankmap_add(m, (unsigned int)TLBGEN_BIT_WORD(b), -1);
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
 * Position of the k-th (from 0) set bit of word, k < popcount(word).
 * Broadword and branch-free (a random k defeats branch prediction):
 * prefix sums of the byte popcounts pick the byte, prefix sums of the
 * byte's bits spread one per byte pick the bit. No popcount instruction
 * is assumed (baseline x86-64 calls libgcc for __builtin_popcountl).
 */
static inline unsigned int tlbgen__word_select_broadword(unsigned long word, unsigned int k)
{
	uint64_t w = word, s, prefix, b;
	unsigned int byte;

	s = w - ((w >> 1) & 0x5555555555555555ULL);
	s = (s & 0x3333333333333333ULL) + ((s >> 2) & 0x3333333333333333ULL);
	s = (s + (s >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
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
static inline unsigned int tlbgen__word_select_pdep(unsigned long word, unsigned int k)
{
	unsigned long bit;

	__asm__("pdep %2, %1, %0" : "=r"(bit) : "r"(1UL << k), "rm"(word));
	return (unsigned int)__builtin_ctzl(bit);
}
#endif

static inline unsigned int tlbgen__word_select(const struct tlbgen_rankmap *m, unsigned long word,
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
 * The k-th set bit in ascending order, k < weight: descend the Fenwick
 * tree to the word holding it (the largest prefix of words with at most k
 * bits set), then select within the word. Each level's choice is a mask,
 * not a branch: with a random k it would be mispredicted half the time.
 * Entries past nlongs hold UINT_MAX, so the descent never steps there.
 */
static inline unsigned int tlbgen__rankmap_select(const struct tlbgen_rankmap *m, unsigned int k)
{
	unsigned int word = 0;

	for (unsigned int step = m->top; step; step >>= 1) {
		unsigned int t = m->tree[word + step];
		unsigned int take = -(unsigned int)(t <= k);

		word += step & take;
		k -= t & take;
	}
	return (unsigned int)(word * TLBGEN_BITS_PER_LONG) + tlbgen__word_select(m, m->bits[word], k);
}

#endif
