// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/base/rankmap.c - set-up of the rank/select bitmap (rankmap.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "rankmap.h"

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
	return 0;
}

void tlbgen__rankmap_free(struct tlbgen_rankmap *m)
{
	free(m->bits);
	free(m->tree);
	m->bits = NULL;
	m->tree = NULL;
}
