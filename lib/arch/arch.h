/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/arch/arch.h - the architecture of the profile (batch_arch): arch.c
 * picks its ops (asm-generic/arch-ops.h) from the arch directories; mm/
 * calls only through it.
 */
#ifndef TLBGEN_ARCH_ARCH_H
#define TLBGEN_ARCH_ARCH_H

#include "../asm-generic/arch-ops.h"

/* arch.c: the ops of the profile's batch_arch, and its supported() check. */
const struct tlbgen_arch_ops *tlbgen__arch_ops(const struct tlbgen_system *sys);
int tlbgen__arch_supported(const struct tlbgen_system *sys);
/* The arch batches under this profile (and batched_unmap is not off). */
bool tlbgen__arch_batching(const struct tlbgen_system *sys);

#endif
