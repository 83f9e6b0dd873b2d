/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lib/core/machine.h - machine models (tlbgen/machine.h) inside the library. */
#ifndef TLBGEN_CORE_MACHINE_H
#define TLBGEN_CORE_MACHINE_H

#include <tlbgen/tlbgen.h>

#include "../base/compiler.h"

/* A figure in ns as cycles at the model's clock. */
#define NS(ns, mhz) ((uint32_t)((ns) * (mhz) / 1000))

/* The struct as binaries linked against TLBGEN_0.2 from 30257d1 declared
 * it: up to threads_per_core (which filled what had been tail padding).
 * Older ones had 128 or 136 bytes; there was no release before this. */
#define TLBGEN_MACHINE_SZ_0_2	offsetofend(struct tlbgen_machine, threads_per_core)
#define TLBGEN_MACHINE_SZ_0_5	offsetofend(struct tlbgen_machine, tlbsync_per_cpu)
#define TLBGEN_MACHINE_SZ_0_7	offsetofend(struct tlbgen_machine, zap_batched)

/* 0 when m is a complete model with every field in range, else -EINVAL. */
int tlbgen__machine_valid(const struct tlbgen_machine *m);
/* The "host" model, measured now (about 50 ms; machine-host.c): `base`'s
 * figures for what cannot be measured from here. 0 or -EAGAIN. */
int tlbgen__machine_measure_host(struct tlbgen_machine *m, const struct tlbgen_machine *base);
/* "host-kernel" (machine-host-ipi.c): "host", its IPI this machine's kernel
 * IPI, measured with membarrier() (about 0.2 s more). 0 or -EAGAIN. */
int tlbgen__machine_measure_host_kernel(struct tlbgen_machine *m,
					const struct tlbgen_machine *base);

#endif
