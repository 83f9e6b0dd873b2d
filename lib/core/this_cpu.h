/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/this_cpu.h - which emulated CPU the calling thread is (threaded
 * mode): smp_processor_id(). Set by the transport at attach.
 */
#ifndef TLBGEN_CORE_THIS_CPU_H
#define TLBGEN_CORE_THIS_CPU_H

#include "state.h"

struct tlbgen_tls {
	struct tlbgen_system *sys;
	int cpu;
};

/* initial-exec: the IPI signal handler reads it; no lazy TLS allocation there. */
extern _Thread_local struct tlbgen_tls tlbgen__tls __attribute__((tls_model("initial-exec")));

static inline bool tlbgen__this_thread_is(const struct tlbgen_system *sys, unsigned int cpu)
{
	return tlbgen__tls.sys == sys && tlbgen__tls.cpu == (int)cpu;
}

#endif
