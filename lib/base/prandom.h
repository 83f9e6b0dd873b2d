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

#endif
