/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/base/kallsyms.h - names of the library's cross-CPU call functions,
 * for the csd-lock watchdog's report (the kernel prints them with %pS).
 */
#ifndef TLBGEN_BASE_KALLSYMS_H
#define TLBGEN_BASE_KALLSYMS_H

#include <stddef.h>

/*
 * Name `fn` (a function pointer). Called from constructors of the files
 * that define call functions, so the table is complete before any call.
 */
void tlbgen__kallsyms_add(void (*fn)(void), const char *name);
/* The registered name of fn, or "func 0x..." written into buf. */
const char *tlbgen__kallsyms_lookup(void (*fn)(void), char *buf, size_t len);

#define TLBGEN_KSYM(fn, name)						\
	__attribute__((constructor)) static void ksym_##fn(void)	\
	{								\
		tlbgen__kallsyms_add((void (*)(void))(fn), (name));	\
	}

#endif
