/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harness/replay/replay-dat-internal.h - what replay-dat.c (the file's sections)
 * and replay-dat-pages.c (each CPU's pages) share.
 */
#ifndef TLBGEN_HARNESS_REPLAY_DAT_INTERNAL_H
#define TLBGEN_HARNESS_REPLAY_DAT_INTERNAL_H

#include <errno.h>
#include <stdio.h>

#include "replay-dat.h"

struct rd {
	const unsigned char *b;
	size_t len;
	struct replay_dat *d;
	char *err;
	size_t errlen;
	bool have_cpus, have_buffer, have_formats;
};

/* A little-endian number of n bytes. */
static inline uint64_t replay__dat_le(const unsigned char *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* [off, off + n) lies in the file; else it was cut short (or a size is
 * corrupt): -EINVAL, "truncated at byte N: what runs to byte M". */
static inline int replay__dat_need(struct rd *r, uint64_t off, uint64_t n, const char *what)
{
	if (off <= r->len && n <= r->len - off)
		return 0;
	snprintf(r->err, r->errlen, "truncated at byte %zu: %s runs to byte %llu", r->len, what,
		 (unsigned long long)(off > UINT64_MAX - n ? UINT64_MAX : off + n));
	return -EINVAL;
}
/* Each CPU's data in the file, its pages walked (replay-dat-pages.c). */
int replay__dat_walk_cpus(struct rd *r);

#endif
