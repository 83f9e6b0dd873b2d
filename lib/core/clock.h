/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/clock.h - jiffies and HZ of a system: the user's clock, else
 * a virtual counter (stepped) or CLOCK_MONOTONIC_COARSE (threaded).
 */
#ifndef TLBGEN_CORE_CLOCK_H
#define TLBGEN_CORE_CLOCK_H

#include "state.h"

#define TLBGEN_DEFAULT_HZ 1000

uint64_t tlbgen__jiffies(const struct tlbgen_system *sys);

static inline unsigned int tlbgen__hz(const struct tlbgen_system *sys)
{
	return sys->clock.hz;
}

#endif
