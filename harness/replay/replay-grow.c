// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay-grow.c - the replay's arrays grow by doubling.
 */
#include <errno.h>
#include <stdlib.h>

#include "replay-internal.h"

int replay__grow(void **p, size_t *cap, size_t nr, size_t size)
{
	size_t ncap;
	void *np;

	if (nr < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 1024;
	np = realloc(*p, ncap * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}
