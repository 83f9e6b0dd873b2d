// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/embed/odd_plugin.c - tlbgen-bench plugins a user gets wrong, built
 * twice: -DODD_BASE="nosuch" registers a policy over a base profile that
 * does not exist; -DODD_NOTHING has an init that registers nothing.
 */
#include <tlbgen/tlbgen.h>

int tlbgen_bench_plugin_init(void);

__attribute__((visibility("default"))) int tlbgen_bench_plugin_init(void)
{
#ifdef ODD_BASE
	return tlbgen_policy_register("odd-policy", ODD_BASE, NULL, NULL);
#else
	return 0;
#endif
}
