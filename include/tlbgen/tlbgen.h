/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tlbgen/tlbgen.h - umbrella header: the whole public API of libtlbgen. */
#ifndef TLBGEN_TLBGEN_H
#define TLBGEN_TLBGEN_H

#include <tlbgen/common.h>
#include <tlbgen/version.h>
#include <tlbgen/system.h>
#include <tlbgen/profile.h>
#include <tlbgen/mm.h>
#include <tlbgen/tlb.h>
#include <tlbgen/tlbbatch.h>
#include <tlbgen/rmap.h>
#include <tlbgen/stepped.h>
#include <tlbgen/smp.h>
#include <tlbgen/runtime.h>
#include <tlbgen/oracle.h>
#include <tlbgen/stats.h>
#include <tlbgen/trace.h>
#include <tlbgen/coherence.h>

#include <tlbgen/ceiling.h>
#include <tlbgen/cost.h>
#include <tlbgen/fault.h>
#include <tlbgen/machine.h>
#include <tlbgen/vtime.h>
#include <tlbgen/workload.h>
#include <tlbgen/decision.h>
#include <tlbgen/seed.h>
#endif
