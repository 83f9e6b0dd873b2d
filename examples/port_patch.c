// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * examples/port_patch.c - porting a kernel patch as a user-defined policy.
 *
 * The patch is seed 000, Nadav Amit's "x86/mm/tlb: avoid reading mm_tlb_gen
 * when possible" (aa44284960d5), with its follow-up fix 8f1d56f64f8d
 * ("x86/mm/tlb: ignore f->new_tlb_gen when zero"): flush_tlb_func() returns
 * early when the request's generation is already covered, and reads the
 * contended mm->context.tlb_gen only after that check. The fix keeps batched
 * flushes, which carry no generation (TLB_GENERATION_INVALID, 0), out of the
 * early return.
 *
 * The port is written from the patch description alone, as a flush_decide
 * callback (port_policy.h, shared with bench_plugin.c), and registered on top of the built-in `v5.17` profile: every
 * other part of the policy (IPI condition, cpumask handling, ceiling) falls
 * back to v5.17. One run then A/Bs it against the built-in `v5.17` on the
 * same seeded workload, shows that the patch without its fix loses flushes
 * (the oracle catches it), and checks that the port's counters equal the
 * built-in `v6.0` profile's, counter by counter and CPU by CPU.
 *
 * Usage: port_patch [--seed N] [--ops N] [--cpus N]
 * Exit: 0 when the port matches v6.0 exactly and keeps the oracle quiet,
 *       1 on any mismatch, 2 on bad arguments.
 */
#include <inttypes.h>

#include "port_policy.h"
#include "workload.h"

static struct port_priv fixed = { .guard = true }, unfixed = { .guard = false };

static int usage(void)
{
	fprintf(stderr, "usage: port_patch [--seed N] [--ops N] [--cpus N]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct wl_params p = { .nr_cpus = 8, .nr_mms = 3, .nr_pages = 64, .ops = 20000,
			       .seed = 42 };
	static struct wl_result base, port, nofix, v60;
	const struct tlbgen_policy_ops ops_fixed = {
		.sz = sizeof(ops_fixed), .flush_decide = port_flush_decide, .priv = &fixed,
	};
	const struct tlbgen_policy_ops ops_unfixed = {
		.sz = sizeof(ops_unfixed), .flush_decide = port_flush_decide, .priv = &unfixed,
	};
	int mismatches = 0, err;

	for (int i = 1; i < argc; i += 2) {	/* --option VALUE pairs */
		char *end;
		unsigned long long v;

		if (i + 1 >= argc)
			return usage();
		v = strtoull(argv[i + 1], &end, 0);
		if (*end || !*argv[i + 1])
			return usage();
		if (!strcmp(argv[i], "--seed"))
			p.seed = v;
		else if (!strcmp(argv[i], "--ops"))
			p.ops = (unsigned int)v;
		else if (!strcmp(argv[i], "--cpus") && v >= 2 && v <= WL_MAX_CPUS)
			p.nr_cpus = (unsigned int)v;
		else
			return usage();
	}

	/* Base v5.17; only flush_tlb_func's decision is replaced. */
	err = tlbgen_policy_register("port-8f1d56f64f8d", "v5.17", NULL, &ops_fixed);
	if (!err)
		err = tlbgen_policy_register("port-aa44284960-only", "v5.17", NULL, &ops_unfixed);
	if (err) {
		fprintf(stderr, "port_patch: tlbgen_policy_register: %s\n", strerror(-err));
		return 1;
	}

	if ((err = wl_run("v5.17", &p, &base, NULL, NULL)) ||
	    (err = wl_run("port-8f1d56f64f8d", &p, &port, NULL, NULL)) ||
	    (err = wl_run("port-aa44284960-only", &p, &nofix, NULL, NULL)) ||
	    (err = wl_run("v6.0", &p, &v60, NULL, NULL))) {
		fprintf(stderr, "port_patch: workload: %s\n", strerror(-err));
		return 1;
	}

	printf("seed %" PRIu64 ", %u CPUs, %u mms x %lu pages, %u operations\n\n", p.seed,
	       p.nr_cpus, p.nr_mms, p.nr_pages, p.ops);
	printf("%-24s %12s %12s %12s %12s\n", "counter", "v5.17", "port", "port-nofix",
	       "v6.0");
	for (unsigned int s = 0; s < TLBGEN_STAT_NR; s++) {
		if (!base.total[s] && !port.total[s] && !nofix.total[s] && !v60.total[s])
			continue;
		printf("%-24s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "%s\n",
		       tlbgen_stat_name((enum tlbgen_stat)s), base.total[s], port.total[s],
		       nofix.total[s], v60.total[s], port.total[s] != v60.total[s] ? "  <-- !=" : "");
	}
	printf("%-24s %12ld %12ld %12ld %12ld\n", "oracle violations", base.violations,
	       port.violations, nofix.violations, v60.violations);
	printf("%-24s %12ld %12ld %12ld %12ld\n", "kernel WARNs", base.warns,
	       port.warns + (long)fixed.vm_warns, nofix.warns + (long)unfixed.vm_warns,
	       v60.warns);

	/* A/B: what the patch buys against its own baseline. */
	if (base.total[TLBGEN_STAT_TLB_GEN_READ])
		printf("\nA/B port vs v5.17: tlb_gen reads x%.3f, early returns %" PRIu64
		       ", full flushes %" PRIu64 " -> %" PRIu64 "\n",
		       (double)port.total[TLBGEN_STAT_TLB_GEN_READ] /
			       (double)base.total[TLBGEN_STAT_TLB_GEN_READ],
		       port.total[TLBGEN_STAT_EARLY_SKIP], base.total[TLBGEN_STAT_FULL_FLUSH],
		       port.total[TLBGEN_STAT_FULL_FLUSH]);
	if (nofix.violations > 0)
		printf("without 8f1d56f64f8d, first violation:\n%s\n", nofix.first_violation);

	/* The check: every counter on every CPU equals the built-in v6.0's. */
	for (unsigned int c = 0; c < p.nr_cpus; c++)
		for (unsigned int s = 0; s < TLBGEN_STAT_NR; s++)
			if (port.cpu_stats[c][s] != v60.cpu_stats[c][s]) {
				fprintf(stderr, "MISMATCH cpu %u %s: port %" PRIu64 " v6.0 %" PRIu64 "\n",
					c, tlbgen_stat_name((enum tlbgen_stat)s),
					port.cpu_stats[c][s], v60.cpu_stats[c][s]);
				mismatches++;
			}
	if (port.violations != v60.violations || port.warns + (long)fixed.vm_warns != v60.warns) {
		fprintf(stderr, "MISMATCH: violations or WARNs differ from v6.0\n");
		mismatches++;
	}
	if (port.violations || base.violations) {
		fprintf(stderr, "FAIL: a correct profile lost a flush\n");
		mismatches++;
	}
	/* The workload must exercise what the patch changes, or the match is vacuous. */
	if (!port.total[TLBGEN_STAT_EARLY_SKIP] ||
	    port.total[TLBGEN_STAT_TLB_GEN_READ] >= base.total[TLBGEN_STAT_TLB_GEN_READ]) {
		fprintf(stderr, "FAIL: the workload does not exercise the early return\n");
		mismatches++;
	}
	printf("\nport vs v6.0: %s (%u CPUs x %d counters compared)\n",
	       mismatches ? "MISMATCH" : "identical", p.nr_cpus, TLBGEN_STAT_NR);
	tlbgen_policy_unregister("port-8f1d56f64f8d");
	tlbgen_policy_unregister("port-aa44284960-only");
	return mismatches ? 1 : 0;
}
