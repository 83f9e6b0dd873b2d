// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * examples/bench_plugin.c - a tlbgen-bench plugin: the port of seed 000 +
 * 8f1d56f64f8d (port_policy.h) as a shared object, so any workload can run
 * it by name without relinking the bench:
 *
 *     tlbgen-bench --plugin ./build/examples/port_patch_plugin.so \
 *         tlb_flush1 -p v6.0 -p port-8f1d56f64f8d
 *
 * tlbgen-bench calls tlbgen_bench_plugin_init() once after dlopen(); an
 * __attribute__((constructor)) that registers would work as well, but could
 * not report an error.
 */
#include "port_policy.h"

int tlbgen_bench_plugin_init(void);

static struct port_priv plugin_priv = { .guard = true };

__attribute__((visibility("default"))) int tlbgen_bench_plugin_init(void)
{
	const struct tlbgen_policy_ops ops = {
		.sz = sizeof(ops), .flush_decide = port_flush_decide, .priv = &plugin_priv,
	};

	/* Unchanged parts (IPI condition, cpumask, ceiling) come from v5.17. */
	return tlbgen_policy_register("port-8f1d56f64f8d", "v5.17", NULL, &ops);
}
