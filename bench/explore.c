// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/explore.c - `tlbgen-bench explore`: long runs of the randomized
 * schedule explorer (harness/explore_engine.c) over stepped mode; with
 * --memory-model, the explorer of the virtual mode (harness/tso_explore.c)
 * over the switch_mm_irqs_off() / flush race, randomized or bounded-
 * exhaustive. Prints what it covered; on a failure prints the minimised
 * trace and exits 1.
 */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common.h"
#include "results.h"
#include "explore_engine.h"
#include "tso_explore.h"
#include "explore_engine.h"
#include "tso_explore.h"

#include "explore_engine.h"
#include "tso_explore.h"

#include "explore_engine.h"
#include "tso_explore.h"

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
		"  --keep-going     do not stop at the first failing seed\n"
		"  --memory-model M sc or tso: explore the switch_mm/flush race in virtual\n"
		"                   mode, every shared access a scheduling point (--ops and\n"
		"                   --keep-going do not apply; default 2000 seeds, 10 s)\n"
		"  --exhaustive     with --memory-model: every execution within --bound\n"
		"  --bound N        deviations from the default schedule (default 3)\n"
		"  --replay P:K,..  with --memory-model: replay these picks (printed on failure)\n");
}

static int bad_usage(void)
{
	usage(stderr);
	return 2;
}

struct mm_args {
	const char *choices, *replay;
	enum tlbgen_memory_model model;
	bool exhaustive, seeds_set;
	unsigned int bound;
	uint64_t seeds, first, seconds;
};

static void print_failure(const char *profile, const struct mm_args *a, struct txcfg *cfg,
			  struct txdev *devs, size_t n)
{
	const char *model = a->model == TLBGEN_MEMORY_TSO ? "tso" : "sc";
	unsigned int steps;

	n = tx_minimise(cfg, devs, n);
	printf("FAIL profile %s%s%s memory-model %s: a stale translation was used\n"
	       "minimised schedule (%zu deviation%s from the default); replay with:\n"
	       "  tlbgen-bench explore --profile %s%s%s --memory-model %s --first-seed %" PRIu64
	       " --replay ",
	       profile, a->choices ? "+" : "", a->choices ? a->choices : "", model, n,
	       n == 1 ? "" : "s", profile, a->choices ? " --choices " : "",
	       a->choices ? a->choices : "", model, cfg->seed);
	for (size_t i = 0; i < n; i++)
		printf("%s%u:%u", i ? "," : "", devs[i].point, devs[i].pick);
	printf("\n");
	steps = tx_print_trace(stdout, cfg, devs, n);
	printf("trace: %u steps\n", steps);
}

/* --memory-model: one profile after another; 1 at the first failure. */
static int explore_memory_model(const char *const *profiles, unsigned int np,
				const struct mm_args *a)
{
	const char *model = a->model == TLBGEN_MEMORY_TSO ? "tso" : "sc";
	struct txresult res;
	int failed = 0;

	for (unsigned int p = 0; p < np && !failed; p++) {
		struct txcfg cfg = { .profile = profiles[p], .choices = a->choices,
				     .model = a->model, .seed = a->first };
		uint64_t t0 = bench_now_ns();
		int err;

		if (a->replay) {
			struct txdev devs[TX_MAX_DEVS];
			size_t n;

			if (tx_parse_devs(a->replay, devs, TX_MAX_DEVS, &n)) {
				fprintf(stderr, "explore: bad --replay '%s' (want POINT:PICK,...)\n",
					a->replay);
				return 2;
			}
			err = tx_replay(&cfg, devs, n, &res);
			if (!err) {
				printf("replay profile=%s%s%s memory-model=%s: %s\n", profiles[p],
				       a->choices ? "+" : "", a->choices ? a->choices : "", model,
				       res.failed ? "FAIL" : "passes");
				tx_print_trace(stdout, &cfg, devs, n);
				failed = res.failed;
			}
		} else if (a->exhaustive) {
			err = tx_exhaustive(&cfg, a->bound, &res);
		} else {
			err = tx_random(&cfg, a->first, a->seeds, a->seconds, &res);
			cfg.seed = res.seed;
		}
		if (err) {
			fprintf(stderr, "explore: %s\n", res.msg[0] ? res.msg : strerror(-err));
			return 2;
		}
		if (a->replay)
			continue;
		if (res.failed) {
			print_failure(profiles[p], a, &cfg, res.devs, res.ndevs);
			failed = 1;
		}
		printf("explore profile=%s%s%s memory-model=%s %s%u executions=%" PRIu64
		       " max-points=%" PRIu64 " %s time=%.2fs\n",
		       profiles[p], a->choices ? "+" : "", a->choices ? a->choices : "", model,
		       a->exhaustive ? "exhaustive bound=" : "random seeds-from=",
		       a->exhaustive ? a->bound : (unsigned int)a->first, res.executions,
		       res.max_points,
		       res.failed ? "FAILED" : a->exhaustive ? (res.exhausted ?
		       "bound exhausted: no violation" : "bound NOT exhausted (too many points)") :
		       "no violation",
		       (double)(bench_now_ns() - t0) / 1e9);
		if (a->exhaustive && !res.failed && !res.exhausted)
			failed = 1;
		fflush(stdout);
	}
	return failed;
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
		{ "memory-model", required_argument, NULL, 'M' },
		{ "exhaustive", no_argument, NULL, 'x' },
		{ "bound", required_argument, NULL, 'b' },
		{ "replay", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *profiles[16], *choices = NULL;
	unsigned int np = 0;
	uint64_t seeds = 10000, first = 1, ops_per = 200, seconds = 0;
	unsigned long long v;
	bool keep_going = false, mm_set = false, seconds_set = false;
	struct mm_args ma = { .bound = 3, .model = TLBGEN_MEMORY_SC };
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
			ma.seeds_set = true;
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
			seconds_set = true;
			break;
		case 'k':
			keep_going = true;
			break;
		case 'M':
			if (!strcmp(optarg, "tso")) {
				ma.model = TLBGEN_MEMORY_TSO;
			} else if (strcmp(optarg, "sc")) {
				fprintf(stderr, "explore: bad --memory-model '%s' (sc or tso)\n",
					optarg);
				return 2;
			}
			mm_set = true;
			break;
		case 'x':
			ma.exhaustive = true;
			break;
		case 'b':
			if (bench_parse_uint("--bound", optarg, 0, 8, &ma.bound))
				return bad_usage();
			break;
		case 'r':
			ma.replay = optarg;
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
	if (!mm_set && (ma.exhaustive || ma.replay)) {
		fprintf(stderr, "explore: --exhaustive and --replay need --memory-model\n");
		return 2;
	}
	if (mm_set) {
		if (!np)
			profiles[np++] = "latest";
		ma.choices = choices;
		ma.seeds = ma.seeds_set ? seeds : 2000;
		ma.first = first;
		ma.seconds = seconds_set ? seconds : 10;
		return explore_memory_model(profiles, np, &ma);
	}
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
