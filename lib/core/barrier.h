/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/barrier.h - the call sites of smp_mb(), smp_rmb() and smp_wmb()
 * in the policy code, each registered the first time it runs, so that a
 * test of the memory model can drop one site at a time
 * (tlbgen_barrier_sites(), tlbgen_barrier_drop()).
 */
#ifndef TLBGEN_CORE_BARRIER_H
#define TLBGEN_CORE_BARRIER_H

#include <stdatomic.h>
#include <stdbool.h>

#include <tlbgen/vtime.h>

struct tlbgen__barrier_site {
	const char *site;		/* "file.c:line" */
	enum tlbgen_barrier_kind kind;
	atomic_bool registered;
	atomic_bool dropped;
};

/* Register `s` (once); true when the barrier is to be executed. */
bool tlbgen__barrier_slow(struct tlbgen__barrier_site *s);

static inline bool tlbgen__barrier_keep(struct tlbgen__barrier_site *s)
{
	if (__builtin_expect(!atomic_load_explicit(&s->registered, memory_order_acquire), 0))
		return tlbgen__barrier_slow(s);
	return !atomic_load_explicit(&s->dropped, memory_order_relaxed);
}

#ifndef __FILE_NAME__
#define __FILE_NAME__ __FILE__
#endif
#define TLBGEN__STR2(x) #x
#define TLBGEN__STR(x) TLBGEN__STR2(x)
/* The calling site's record, one per expansion. */
#define TLBGEN__BARRIER_SITE(k)							\
	({									\
		static struct tlbgen__barrier_site __s = {			\
			.site = __FILE_NAME__ ":" TLBGEN__STR(__LINE__), .kind = (k), \
		};								\
		&__s;								\
	})

#endif
