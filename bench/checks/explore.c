// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/checks/explore.c - `tlbgen-bench explore`: long runs of the randomized
 * schedule explorer (harness/explore/explore_engine.c) over stepped mode; with
 * --memory-model, the explorer of the virtual mode (harness/tso/tso_explore.c)
 * over its scenarios, randomized or bounded-exhaustive. Prints what it
 * covered (recorded in results.json first); on a failure prints the
 * minimised trace and exits 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "driver/common.h"
#include "driver/env.h"
#include "driver/results.h"
#include "../../harness/explore/explore_engine.h"
#include "../../harness/tso/tso_explore.h"

#define MAX_SCEN	16

static struct {
	const char *choices, *replay, *scenario;
	uint64_t seeds, first, ops, seconds, max_exec;
	unsigned int bound;
	bool keep_going, exhaustive, mm_set;
	enum tlbgen_memory_model model;
} o = { .seeds = UINT64_MAX, .first = 1, .ops = 200, .seconds = UINT64_MAX, .bound = UINT_MAX,
	.max_exec = 1000000 };

static int set_model(const char *opt, const char *arg)
{
	if (!strcmp(arg, "tso"))
		o.model = TLBGEN_MEMORY_TSO;
	else if (!strcmp(arg, "sc"))
		o.model = TLBGEN_MEMORY_SC;
	else {
		fprintf(stderr, "explore: bad %s '%s' (sc or tso)\n", opt, arg);
		return -EINVAL;
	}
	o.mm_set = true;
	return 0;
}

static void scenario_list(FILE *f, const char *indent)
{
	const char *names[MAX_SCEN];
	int n = tx_scenario_names(names, MAX_SCEN);

	fprintf(f, "%sscenarios:", indent);
	for (int i = 0; i < n && i < MAX_SCEN; i++)
		fprintf(f, " %s", names[i]);
	fprintf(f, "\n");
}

static const struct bench_opt explore_opts[] = {
	{ .name = "choices", .arg = "K=V,..", .type = BOPT_STR, .dst = &o.choices,
	  .help = "extra choices on top of each profile" },
	{ .name = "seeds", .arg = "N", .type = BOPT_U64, .dst = &o.seeds, .max = ULLONG_MAX - 1,
	  .help = "seeds per profile (10000; 2000 with --memory-model)" },
	{ .name = "ops", .arg = "M", .type = BOPT_U64, .dst = &o.ops, .min = 1, .max = 100000,
	  .help = "operations per seed, stepped (200)" },
	{ .name = "first-seed", .arg = "S", .type = BOPT_U64, .dst = &o.first,
	  .max = ULLONG_MAX, .help = "first seed (1)" },
	{ .name = "seconds", .arg = "T", .type = BOPT_U64, .dst = &o.seconds,
	  .max = ULLONG_MAX - 1,
	  .help = "stop each profile after T seconds (0: no limit; 10 with --memory-model)" },
	{ .name = "keep-going", .type = BOPT_FLAG, .dst = &o.keep_going,
	  .help = "do not stop at the first failing seed (stepped)" },
	{ .name = "memory-model", .arg = "M", .type = BOPT_FN, .fn = set_model,
	  .help = "sc or tso: explore the virtual mode's scenarios, every shared access\n"
		  "a scheduling point and, under tso, every store-buffer drain a choice" },
	{ .name = "scenario", .arg = "NAME", .type = BOPT_STR, .dst = &o.scenario,
	  .help = "with --memory-model: one scenario, or all (switch_mm)",
	  .help_data = scenario_list },
	{ .name = "exhaustive", .type = BOPT_FLAG, .dst = &o.exhaustive,
	  .help = "with --memory-model: every execution within --bound deviations" },
	{ .name = "bound", .arg = "N", .type = BOPT_UINT, .dst = &o.bound, .max = 8,
	  .help = "deviations from the default schedule (each scenario's own default)" },
	{ .name = "max-executions", .arg = "N", .type = BOPT_U64, .dst = &o.max_exec, .min = 1,
	  .max = ULLONG_MAX, .help = "exhaustive: stop, not exhausted, after N (1000000)" },
	{ .name = "replay", .arg = "P:K,..", .type = BOPT_STR, .dst = &o.replay,
	  .help = "with --memory-model and one scenario: replay these picks" },
	BENCH_OPT_END,
};

static const char *model_name(void)
{
	return o.model == TLBGEN_MEMORY_TSO ? "tso" : "sc";
}

static void print_failure(const struct bench_policy *pol, struct txcfg *cfg, struct txdev *devs,
			  size_t n)
{
	unsigned int steps;

	n = tx_minimise(cfg, devs, n);
	printf("FAIL scenario %s profile %s%s%s memory-model %s: a stale translation was used\n"
	       "minimised schedule (%zu deviation%s from the default); replay with:\n"
	       "  tlbgen-bench explore --scenario %s --profile %s%s%s --memory-model %s "
	       "--first-seed %" PRIu64 " --replay ",
	       cfg->scenario, pol->label, o.choices ? "+" : "", o.choices ? o.choices : "",
	       model_name(), n, n == 1 ? "" : "s", cfg->scenario, pol->label,
	       o.choices ? " --choices " : "", o.choices ? o.choices : "", model_name(), cfg->seed);
	for (size_t i = 0; i < n; i++)
		printf("%s%u:%u", i ? "," : "", devs[i].point, devs[i].pick);
	printf("\n");
	steps = tx_print_trace(stdout, cfg, devs, n);
	printf("trace: %u steps\n", steps);
}

/* results.json first; the line printed reads it back. */
static void record(const struct bench_policy *pol, const char *scen, unsigned int bound,
		   const struct txresult *res, double secs)
{
	json_t *pa = json_pack("{s:s,s:s,s:s,s:s,s:s,s:i}", "profile", pol->label, "choices",
			       o.choices ? o.choices : "", "scenario", scen, "memory_model",
			       model_name(), "search", o.exhaustive ? "exhaustive" : "random",
			       "bound", o.exhaustive ? (int)bound : -1);
	double ex = 0, mp = 0, fl = 0, exh = 0, br = 0;

	bench_metric("executions", "executions", NULL, pa, (double)res->executions);
	bench_metric("max_points", "points", NULL, pa, (double)res->max_points);
	bench_metric("failed", "bool", "lower", pa, res->failed);
	bench_metric("exhausted", "bool", "higher", pa, res->exhausted);
	bench_metric("bound_reached", "bool", NULL, pa, res->bound_reached);
	bench_metric("seconds", "s", "lower", pa, secs);
	bench_metric_get("executions", pa, &ex);
	bench_metric_get("max_points", pa, &mp);
	bench_metric_get("failed", pa, &fl);
	bench_metric_get("exhausted", pa, &exh);
	bench_metric_get("bound_reached", pa, &br);
	printf("explore scenario=%s profile=%s%s%s memory-model=%s ", scen, pol->label,
	       o.choices ? "+" : "", o.choices ? o.choices : "", model_name());
	if (o.exhaustive)
		printf("exhaustive bound=%u", bound);
	else
		printf("random seeds-from=%" PRIu64, o.first);
	printf(" executions=%.0f max-points=%.0f %s time=%.2fs\n", ex, mp,
	       fl ? "FAILED" : !o.exhaustive ? "no violation" :
	       !exh ? (res->limit ? "NOT exhausted (--max-executions reached)" :
		       "NOT exhausted (an execution passed the point horizon)") :
	       br ? "bound reached: every execution within it explored, no violation" :
	       "complete: no violation", secs);
	json_decref(pa);
	fflush(stdout);
}

/* One scenario of one profile: 0 clean, 1 failed or not exhausted, 2 bad input. */
static int explore_one(const struct bench_policy *pol, const char *scen)
{
	struct txcfg cfg = { .scenario = scen, .profile = pol->name, .choices = o.choices,
			     .model = o.model, .seed = o.first, .max_executions = o.max_exec };
	unsigned int bound = o.bound != UINT_MAX ? o.bound : tx_default_bound(scen);
	uint64_t t0 = bench_now_ns();
	struct txresult res;
	int err;

	if (o.replay) {
		struct txdev devs[TX_MAX_DEVS];
		size_t n;

		if (tx_parse_devs(o.replay, devs, TX_MAX_DEVS, &n)) {
			fprintf(stderr, "explore: bad --replay '%s' (want POINT:PICK,...)\n",
				o.replay);
			return 2;
		}
		err = tx_replay(&cfg, devs, n, &res);
		if (err) {
			fprintf(stderr, "explore: %s\n", res.msg[0] ? res.msg : strerror(-err));
			return 2;
		}
		printf("replay scenario=%s profile=%s%s%s memory-model=%s: %s\n", scen,
		       pol->label, o.choices ? "+" : "", o.choices ? o.choices : "", model_name(),
		       res.failed ? "FAIL" : "passes");
		tx_print_trace(stdout, &cfg, devs, n);
		return res.failed;
	}
	if (o.exhaustive) {
		err = tx_exhaustive(&cfg, bound, &res);
	} else {
		err = tx_random(&cfg, o.first, o.seeds, o.seconds, &res);
		cfg.seed = res.seed;
	}
	if (err && !res.executions) {
		fprintf(stderr, "explore: %s\n", res.msg[0] ? res.msg : strerror(-err));
		return 2;
	}
	if (err) {
		/* An execution that could not run: the scenario is broken there. */
		printf("ERROR scenario %s: %s; the execution:", scen, res.msg);
		for (size_t i = 0; i < res.ndevs; i++)
			printf("%s%u:%u", i ? "," : " ", res.devs[i].point, res.devs[i].pick);
		printf("\n");
		res.failed = true;
	} else if (res.failed) {
		print_failure(pol, &cfg, res.devs, res.ndevs);
	}
	record(pol, scen, bound, &res, (double)(bench_now_ns() - t0) / 1e9);
	return res.failed || (o.exhaustive && !res.exhausted);
}

static int explore_memory_model(struct bench_env *e)
{
	const char *names[MAX_SCEN], *one = o.scenario ? o.scenario : "switch_mm";
	int n = tx_scenario_names(names, MAX_SCEN), failed = 0, ret;
	bool all = !strcmp(one, "all");

	if (o.seeds == UINT64_MAX)
		o.seeds = 2000;
	if (o.seconds == UINT64_MAX)
		o.seconds = 10;
	if (!all && o.bound == UINT_MAX && !tx_default_bound(one)) {
		fprintf(stderr, "explore: bad --scenario '%s'; ", one);
		scenario_list(stderr, "");
		return 2;
	}
	if (all && o.replay) {
		fprintf(stderr, "explore: --replay needs one --scenario, not all\n");
		return 2;
	}
	bench_meta_seed(o.first);
	for (unsigned int p = 0; p < e->npol; p++) {
		bench_meta_policy(e->pol[p].name, e->pol[p].label);
		for (int s = 0; s < (all ? n : 1); s++) {
			ret = explore_one(&e->pol[p], all ? names[s] : one);
			if (ret == 2)
				return 2;
			failed |= ret;
		}
	}
	return failed;
}

static int explore_run(struct bench_env *e)
{
	static const char *const stepped_defs[] = { "v5.17", "v6.0", "latest", NULL };
	static const char *const mm_defs[] = { "latest", NULL };
	const char *choices = o.choices;
	uint64_t seeds = o.seeds == UINT64_MAX ? 10000 : o.seeds, first = o.first;
	uint64_t ops_per = o.ops, seconds = o.seconds == UINT64_MAX ? 0 : o.seconds;
	int failed = 0;

	if (getenv("TLBGEN_EXPLORE_VERBOSE"))
		xpl_verbose = 1;
	if (!o.mm_set && (o.exhaustive || o.replay || o.scenario)) {
		fprintf(stderr, "explore: --exhaustive, --replay and --scenario need "
			"--memory-model\n");
		return 2;
	}
	if (bench_env_policies(e, o.mm_set ? mm_defs : stepped_defs))
		return 2;
	if (o.mm_set)
		return explore_memory_model(e);

	struct xop *ops = calloc(ops_per, sizeof(*ops));

	if (!ops)
		return 1;
	bench_meta_seed(first);
	bench_meta_param("seeds", json_integer((json_int_t)seeds));
	bench_meta_param("ops_per_seed", json_integer((json_int_t)ops_per));
	for (unsigned int p = 0; p < e->npol; p++) {
		const char *pol = e->pol[p].name, *label = e->pol[p].label;
		struct xstats st = { 0 };
		uint64_t t0 = bench_now_ns(), s, nfail = 0;

		for (s = first; s < first + seeds; s++) {
			struct xcfg cfg;
			struct xfail f;

			if (seconds && bench_now_ns() - t0 > seconds * 1000000000ULL)
				break;
			xpl_cfg_from_seed(&cfg, pol, choices, s);
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
			       label, s, xpl_kind_name(f.kind), f.op, f.msg, n, label, s,
			       ops_per);
			xpl_print_trace(stdout, &cfg, ops, n);
			failed = 1;
			if (!o.keep_going) {
				s++;
				break;
			}
		}
		double secs = (double)(bench_now_ns() - t0) / 1e9;

		printf("explore profile=%s%s%s seeds=%" PRIu64 " ops/seed=%" PRIu64 " ops=%" PRIu64
		       " failing_seeds=%" PRIu64 " ebusy_checked=%" PRIu64
		       " partial_checked=%" PRIu64 " time=%.1fs (%.0f ops/s)\n",
		       label, choices ? "+" : "", choices ? choices : "", s - first, ops_per,
		       st.ops, nfail, st.ebusy, st.partial_checks, secs, (double)st.ops / secs);
		fflush(stdout);
		json_t *pa = json_pack("{s:s,s:s}", "profile", label, "choices",
				       choices ? choices : "");

		bench_meta_policy(pol, label);
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

const struct bench bench_explore = {
	.name = "explore",
	.summary = "schedule explorer (stepped, or virtual under a memory model)",
	.help = "Stepped mode: random operation sequences (harness/explore/explore_engine.c) from\n"
		"seeds, the oracle, the WARNs and the generation invariants checked after\n"
		"every operation; a failing seed is minimised and printed. With\n"
		"--memory-model: the virtual mode's scenarios (harness/tso/tso_scen.c), every\n"
		"shared access a scheduling point and, under tso, every store-buffer drain\n"
		"a choice; --exhaustive runs every execution within --bound deviations from\n"
		"the default schedule and says whether the bound cut any short. Exit 1 on a\n"
		"violation, or an exhaustive search that was not exhausted.\n",
	.shared = BENCH_O_POLICY | BENCH_O_JSON,
	.opts = explore_opts,
	.run = explore_run,
};
BENCH_COMMAND(bench_explore);
