// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/base/rankmap.c - set-up of the rank/select bitmap (rankmap.h). */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rankmap.h"

/*
 * BMI2 with a fast PDEP: every Intel CPU that has it; AMD's from Zen 3 on.
 * Excavator, Zen and Zen 2 run PDEP in microcode, one step per set bit of
 * the mask (Agner Fog's instruction tables: up to hundreds of cycles).
 */
static bool fast_pdep(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("bmi2"))
		return false;
	if (__builtin_cpu_is("intel"))
		return true;
	return __builtin_cpu_is("amd") && !__builtin_cpu_is("bdver4") &&
	       !__builtin_cpu_is("znver1") && !__builtin_cpu_is("znver2");
#else
	return false;
#endif
}

/* The SSE2 lane counts load each level as aligned 16-byte vectors, and
 * aligned_alloc() takes a size that is a multiple of its alignment. */
_Static_assert(offsetof(struct tlbgen_rankmap_lanes, words) % 16 == 0 &&
	       sizeof(((struct tlbgen_rankmap_lanes *)0)->words[0]) % 16 == 0 &&
	       sizeof(struct tlbgen_rankmap_lanes) % TLBGEN_CACHELINE == 0,
	       "rankmap lanes: 16-byte aligned vectors in whole cachelines");

int tlbgen__rankmap_init(struct tlbgen_rankmap *m, unsigned int nbits)
{
	unsigned int nwords = (nbits + 63) / 64;
	struct tlbgen_rankmap_lanes *lanes;
	uint64_t *bits;

	if (nbits > TLBGEN_RANKMAP_MAX_BITS)
		return -EINVAL;
	bits = calloc(nwords ? nwords : 1, sizeof(*bits));
	lanes = aligned_alloc(TLBGEN_CACHELINE, sizeof(*lanes));
	if (!bits || !lanes) {
		free(bits);
		free(lanes);
		return -ENOMEM;
	}
	memset(lanes, 0, sizeof(*lanes));
	m->bits = bits;
	m->lanes = lanes;
	m->nwords = nwords;
	m->weight = 0;
	m->changes = 0;
	m->read_at = 0;
	m->lazy_after = nwords / 4 ? nwords / 4 : 1;
	m->stale = false;
	m->pdep = fast_pdep();
	return 0;
}

/* The invariants of struct tlbgen_rankmap_lanes, counted afresh: group
 * lanes only where rankmap_add() keeps them; the word lanes of groups past
 * the last are never written, and stay 0. */
void tlbgen__rankmap_recount(struct tlbgen_rankmap *m)
{
	struct tlbgen_rankmap_lanes *l = m->lanes;
	unsigned int ngroups = (m->nwords + TLBGEN_RANKMAP_GROUP_WORDS - 1) / TLBGEN_RANKMAP_GROUP_WORDS;
	bool group_lanes = m->nwords > TLBGEN_RANKMAP_GROUP_WORDS;
	int16_t total = 0;

	for (unsigned int g = 0; g < ngroups; g++) {
		int16_t in = 0;

		if (group_lanes)
			l->groups[g] = total;
		for (unsigned int w = 0; w < TLBGEN_RANKMAP_GROUP_WORDS; w++) {
			unsigned int word = g * TLBGEN_RANKMAP_GROUP_WORDS + w;

			l->words[g][w] = in;
			if (word < m->nwords)
				in = (int16_t)(in + (int16_t)((tlbgen__byte_weights(m->bits[word]) *
							       TLBGEN_L8) >> 56));
		}
		total = (int16_t)(total + in);
	}
	for (unsigned int g = ngroups; g < TLBGEN_RANKMAP_GROUPS && group_lanes; g++)
		l->groups[g] = total;
	m->stale = false;
}

void tlbgen__rankmap_free(struct tlbgen_rankmap *m)
{
	free(m->bits);
	free(m->lanes);
	m->bits = NULL;
	m->lanes = NULL;
}
