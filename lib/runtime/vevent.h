/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/runtime/vevent.h - the machine's kernel events in virtual time for
 * the library's own kernel paths (vevent.c), which may charge one with
 * IRQs off: the work under spin_lock_irqsave().
 */
#ifndef TLBGEN_RUNTIME_VEVENT_H
#define TLBGEN_RUNTIME_VEVENT_H

#include "../core/state.h"

/* As tlbgen_vtime__event() without its caller checks: `cpu` must be the
 * running CPU (else -EINVAL), and may have IRQs off. */
int tlbgen__vt_event(struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_vt_event ev,
		     unsigned long n);

#endif
