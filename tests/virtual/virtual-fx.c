// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/virtual/virtual-fx.c - the helper of the virtual-time tests (virtual-fx.h).
 */
#include "virtual-fx.h"

struct tlbgen_system *vsys(unsigned int n, const char *profile, uint64_t seed,
			   const char *machine)
{
	struct tlbgen_machine m;
	struct tlbgen_system *sys;

	assert_int_equal(tlbgen_machine_lookup(machine ? machine : "skylake-56", &m), 0);
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = n, .mode = TLBGEN_MODE_VIRTUAL,
		    .profile = profile, .seed = seed, .machine = &m);
	assert_int_equal(tlbgen_system__create(&o, &sys), 0);
	return sys;
}
