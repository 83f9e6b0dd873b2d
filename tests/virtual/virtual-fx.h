/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/virtual/virtual-fx.h - the helper of the virtual-time tests
 * (test_virtual.c, test_virtual_machine.c): a system in virtual mode on a
 * named machine spec, created or the test fails.
 */
#ifndef TLBGEN_TESTS_VIRTUAL_VIRTUAL_FX_H
#define TLBGEN_TESTS_VIRTUAL_VIRTUAL_FX_H

#include "tlbgen-test.h"

/* `n` CPUs in virtual mode under `profile`, on `machine` (NULL: skylake-56). */
struct tlbgen_system *vsys(unsigned int n, const char *profile, uint64_t seed,
			   const char *machine);

#endif /* TLBGEN_TESTS_VIRTUAL_VIRTUAL_FX_H */
