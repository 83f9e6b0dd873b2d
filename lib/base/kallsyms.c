// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/base/kallsyms.c - a fixed table of function names, filled before
 * main() by constructors and only read afterwards.
 */
#include <stdint.h>
#include <stdio.h>

#include "compiler.h"
#include "kallsyms.h"

#define KSYM_MAX 16

static struct {
	void (*fn)(void);
	const char *name;
} ksyms[KSYM_MAX];
static unsigned int nr_ksyms;

void tlbgen__kallsyms_add(void (*fn)(void), const char *name)
{
	if (nr_ksyms < KSYM_MAX) {
		ksyms[nr_ksyms].fn = fn;
		ksyms[nr_ksyms].name = name;
		nr_ksyms++;
	}
}

const char *tlbgen__kallsyms_lookup(void (*fn)(void), char *buf, size_t len)
{
	for (unsigned int i = 0; i < nr_ksyms; i++)
		if (ksyms[i].fn == fn)
			return ksyms[i].name;
	snprintf(buf, len, "func %p", (void *)(uintptr_t)fn);
	return buf;
}
