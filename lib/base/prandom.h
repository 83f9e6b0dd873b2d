/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/base/prandom.h - xorshift64*: small, fast, and the same sequence on
 * every machine for a seed, which is what a replayable schedule needs.
 */
#ifndef TLBGEN_BASE_PRANDOM_H
#define TLBGEN_BASE_PRANDOM_H

#include <stdint.h>

static inline uint64_t tlbgen__prandom(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* splitmix64's finaliser: independent-looking states from nearby seeds
 * (seed + k for stream k), none of them 0, which xorshift cannot leave. */
static inline uint64_t tlbgen__prandom_seed(uint64_t seed)
{
	uint64_t z = seed + 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return z ? z : 0x9E3779B97F4A7C15ULL;
}

#endif
