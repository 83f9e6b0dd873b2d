// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/base/rankmap.c - set-up of the rank/select bitmap (rankmap.h). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>

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

int tlbgen__rankmap_init(struct tlbgen_rankmap *m, unsigned int nbits)
{
	unsigned int nlongs = (unsigned int)TLBGEN_MASK_LONGS(nbits);
	unsigned long *bits = calloc(nlongs ? nlongs : 1, sizeof(*bits));
	unsigned int top, *tree;

	for (top = 1; top * 2 <= nlongs; top *= 2)
		;
	/* Up to 2 * top - 1: the descent may look past nlongs, at entries that
	 * hold more than any rank, so it never steps there (rankmap_select). */
	tree = calloc(2 * (size_t)top, sizeof(*tree));
	if (!bits || !tree) {
		free(bits);
		free(tree);
		return -ENOMEM;
	}
	for (unsigned int i = nlongs + 1; i < 2 * top; i++)
		tree[i] = UINT_MAX;
	m->bits = bits;
	m->tree = tree;
	m->nlongs = nlongs;
	m->top = top;
	m->weight = 0;
	m->changes = 0;
	m->pdep = fast_pdep();
	return 0;
}

void tlbgen__rankmap_free(struct tlbgen_rankmap *m)
{
	free(m->bits);
	free(m->tree);
	m->bits = NULL;
	m->tree = NULL;
}
