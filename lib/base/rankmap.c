// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/base/rankmap.c - set-up of the rank/select bitmap (rankmap.h). */
#include <errno.h>
#include <stdlib.h>

#include "rankmap.h"

int tlbgen__rankmap_init(struct tlbgen_rankmap *m, unsigned int nbits)
{
	unsigned int nlongs = (unsigned int)TLBGEN_MASK_LONGS(nbits);
	unsigned long *bits = calloc(nlongs ? nlongs : 1, sizeof(*bits));
	unsigned int *tree = calloc(nlongs + 1, sizeof(*tree));

	if (!bits || !tree) {
		free(bits);
		free(tree);
		return -ENOMEM;
	}
	m->bits = bits;
	m->tree = tree;
	m->nlongs = nlongs;
	m->weight = 0;
	m->changes = 0;
	for (m->top = 1; m->top * 2 <= nlongs; m->top *= 2)
		;
	return 0;
}

void tlbgen__rankmap_free(struct tlbgen_rankmap *m)
{
	free(m->bits);
	free(m->tree);
	m->bits = NULL;
	m->tree = NULL;
}
