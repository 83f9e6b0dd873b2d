/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/base/printk.h - diagnostics through the user's print callback
 * (tlbgen_set_print()), and libbpf-style option validation.
 */
#ifndef TLBGEN_BASE_PRINTK_H
#define TLBGEN_BASE_PRINTK_H

#include <stddef.h>

#include <tlbgen/tlbgen.h>

#include "compiler.h"

void tlbgen__pr(enum tlbgen_print_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * libbpf's OPTS_VALID: the caller's struct is at least `sz` wide and every
 * byte it has beyond the library's last known field is zero.
 */
int tlbgen__opts_valid(const void *opts, size_t user_sz, size_t known_sz);
#define TLBGEN_OPTS_VALID(opts, type, last_field) \
	tlbgen__opts_valid((opts), (opts)->sz, offsetofend(struct type, last_field))

/* Copy the caller's opts (validated) into a zeroed struct of ours. */
#define TLBGEN_OPTS_COPY(dst, src) \
	memcpy((dst), (src), (src)->sz < sizeof(*(dst)) ? (src)->sz : sizeof(*(dst)))

#endif
