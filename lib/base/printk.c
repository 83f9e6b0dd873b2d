// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/base/printk.c - the print callback, the version, option validation.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "printk.h"

static int default_print(enum tlbgen_print_level level, const char *fmt, va_list ap)
{
	if (level == TLBGEN_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static _Atomic(tlbgen_print_fn_t) print_fn = default_print;

TLBGEN_API tlbgen_print_fn_t tlbgen_set_print(tlbgen_print_fn_t fn)
{
	return atomic_exchange(&print_fn, fn);
}

void tlbgen__pr(enum tlbgen_print_level level, const char *fmt, ...)
{
	tlbgen_print_fn_t fn = atomic_load(&print_fn);
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	fn(level, fmt, ap);
	va_end(ap);
}

TLBGEN_API const char *tlbgen_version(void)
{
	return TLBGEN_VERSION_STRING;
}

TLBGEN_API unsigned int tlbgen_version_number(void)
{
	return TLBGEN_VERSION_NUMBER;
}

int tlbgen__opts_valid(const void *opts, size_t user_sz, size_t known_sz)
{
	const char *p = opts;

	if (user_sz < sizeof(size_t))
		return -EINVAL;
	for (size_t i = known_sz; i < user_sz; i++)
		if (p[i])
			return -EINVAL;
	return 0;
}
