/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lib/core/machine.h - machine models (tlbgen/machine.h) inside the library. */
#ifndef TLBGEN_CORE_MACHINE_H
#define TLBGEN_CORE_MACHINE_H

#include <tlbgen/tlbgen.h>

/* 0 when m is a complete model with every field in range, else -EINVAL. */
int tlbgen__machine_valid(const struct tlbgen_machine *m);
/* The "host" model: measured now (about 50 ms). 0 or -EAGAIN. */
int tlbgen__machine_measure_host(struct tlbgen_machine *m);

#endif
