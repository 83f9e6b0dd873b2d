// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/explore.c - `tlbgen-bench explore`: long runs of the randomized
 * schedule explorer (harness/explore_engine.c) over stepped mode.
 * Prints seeds x ops per profile; on a failure prints the minimised trace
 * and exits 1.
 */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "results.h"
#include "explore_engine.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tlbgen-bench explore [options]\n"
		"  --profile NAME   profile to explore (repeatable; default: v5.17, v6.0, latest)\n"
		"  --choices K=V,.. extra choices on top of each profile\n"
		"  --seeds N        seeds per profile (default 10000)\n"
		"  --ops M          operations per seed (default 200)\n"
		"  --first-seed S   first seed (default 1)\n"
		"  --seconds T      stop each profile after T seconds (0: no limit)\n"
		"  --keep-going     do not stop at the first failing seed\n");
}

static int bad_usage(void)
{
	usage(stderr);
	return 2;
}

int bench_explore_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "choices", required_argument, NULL, 'c' },
		{ "seeds", required_argument, NULL, 'n' },
		{ "ops", required_argument, NULL, 'm' },
		{ "first-seed", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "keep-going", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *profiles[16], *choices = NULL;
	unsigned int np = 0;
	uint64_t seeds = 10000, first = 1, ops_per = 200, seconds = 0;
	unsigned long long v;
	bool keep_going = false;
	int opt, failed = 0;

	if (getenv("TLBGEN_EXPLORE_VERBOSE"))
		xpl_verbose = 1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (np == 16) {
				usage(stderr);
				return 2;
			}
			profiles[np++] = optarg;
			break;
		case 'c':
			choices = optarg;
			break;
		case 'n':
			if (bench_parse_ull("--seeds", optarg, 0, ULLONG_MAX, &v))
				return bad_usage();
			seeds = v;
			break;
		case 'm':
			if (bench_parse_ull("--ops", optarg, 1, 100000, &v))
				return bad_usage();
			ops_per = v;
			break;
		case 's':
			if (bench_parse_ull("--first-seed", optarg, 0, ULLONG_MAX, &v))
				return bad_usage();
			first = v;
			break;
		case 't':
			if (bench_parse_ull("--seconds", optarg, 0, ULLONG_MAX, &v))
				return bad_usage();
			seconds = v;
			break;
		case 'k':
			keep_going = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return bad_usage();
		}
	}
	if (optind != argc)
		return bad_usage();
	if (!np) {
		profiles[np++] = "v5.17";
		profiles[np++] = "v6.0";
		profiles[np++] = "latest";
	}

	struct xop *ops = calloc(ops_per, sizeof(*ops));

	if (!ops)
		return 1;
	bench_meta_seed(first);
	bench_meta_param("seeds", json_integer((json_int_t)seeds));
	bench_meta_param("ops_per_seed", json_integer((json_int_t)ops_per));
	for (unsigned int p = 0; p < np; p++) {
		struct xstats st = { 0 };
		uint64_t t0 = bench_now_ns(), s, nfail = 0;

		for (s = first; s < first + seeds; s++) {
			struct xcfg cfg;
			struct xfail f;

			if (seconds && bench_now_ns() - t0 > seconds * 1000000000ULL)
				break;
			xpl_cfg_from_seed(&cfg, profiles[p], choices, s);
			if (xpl_gen_run(&cfg, s, ops, ops_per, &f, &st) == XF_NONE)
				continue;
			nfail++;
			if (f.kind == XF_SETUP) {
				fprintf(stderr, "explore: %s\n", f.msg);
				free(ops);
				return 2;
			}
			size_t n = xpl_minimise(&cfg, ops, ops_per, f.kind);

			printf("FAIL profile %s seed %" PRIu64 ": %s at op %zu: %s\n"
			       "minimised trace (%zu ops, replay with --profile %s --first-seed %"
			       PRIu64 " --seeds 1 --ops %" PRIu64 "):\n",
			       profiles[p], s, xpl_kind_name(f.kind), f.op, f.msg, n, profiles[p], s,
			       ops_per);
			xpl_print_trace(stdout, &cfg, ops, n);
			failed = 1;
			if (!keep_going) {
				s++;
				break;
			}
		}
		double secs = (double)(bench_now_ns() - t0) / 1e9;

		printf("explore profile=%s%s%s seeds=%" PRIu64 " ops/seed=%" PRIu64 " ops=%" PRIu64
		       " failing_seeds=%" PRIu64 " ebusy_checked=%" PRIu64
		       " partial_checked=%" PRIu64 " time=%.1fs (%.0f ops/s)\n",
		       profiles[p], choices ? "+" : "", choices ? choices : "", s - first, ops_per,
		       st.ops, nfail, st.ebusy, st.partial_checks, secs, (double)st.ops / secs);
		fflush(stdout);
		json_t *pa = json_pack("{s:s,s:s}", "profile", profiles[p], "choices",
				       choices ? choices : "");

		bench_meta_policy(profiles[p], profiles[p]);
		bench_metric("seeds", "seeds", NULL, pa, (double)(s - first));
		bench_metric("ops", "ops", NULL, pa, (double)st.ops);
		bench_metric("failing_seeds", "seeds", "lower", pa, (double)nfail);
		bench_metric("ebusy_checked", "checks", NULL, pa, (double)st.ebusy);
		bench_metric("partial_checked", "checks", NULL, pa, (double)st.partial_checks);
		bench_metric("ops_per_sec", "ops/s", "higher", pa, (double)st.ops / secs);
		json_decref(pa);
	}
	free(ops);
	return failed;
}
