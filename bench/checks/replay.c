// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/checks/replay.c - `tlbgen-bench replay`: a real kernel's recorded TLB work
 * (bench/tlbgen-trace) replayed under the recording kernel's profile and
 * machine, its decisions checked one to one against the kernel's, and the
 * same work's cost under other profiles and machines (docs/replay.md). The
 * engine is harness/replay/replay.c; this file records every figure into
 * results.json and prints them back from there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <replay.h>

#include "bench.h"
#include "driver/env.h"
#include "run/run.h"
#include "driver/results.h"

static const char *const reason_short[REPLAY_REASONS] = {
	"0 switch", "1 remote", "2 local", "3 local mm", "4 multi", "5 wrong mm",
};

static json_t *params(const struct replay_result *r)
{
	return json_pack("{s:s,s:s}", "profile", r->profile, "machine", r->machine);
}

static void metric(const char *name, const char *unit, const char *better, json_t *p, double v)
{
	bench_metric(name, unit, better, p, v);
	json_decref(p);
}

/* A remote flush's duration: reason 4 to the last target's csd exit. */
static void record_timing(const struct replay_result *r, const char *source,
			  const struct replay_timing *x)
{
	static const char *const name[] = { "remote_flushes_timed", "remote_flush_ns_p50",
					    "remote_flush_ns_p90" };
	const double v[] = { (double)x->n, x->p50_ns, x->p90_ns };

	for (int i = 0; i < 3 && (i == 0 || x->n); i++)
		metric(name[i], i ? "ns" : "flushes", NULL,
		       json_pack("{s:s,s:s,s:s}", "profile", r->profile, "machine", r->machine,
				 "source", source), v[i]);
	/* The IPI the model's durations were built from ("host-kernel"
	 * measures it at each run). */
	if (x == &r->model_remote && x->n) {
		metric("model_ipi_send_ns", "ns", NULL, params(r), r->model_ipi_send_ns);
		metric("model_ipi_latency_ns", "ns", NULL, params(r), r->model_ipi_latency_ns);
	}
}

/* results.json first: every figure printed below is recorded here. */
static void record(const struct replay_result *r, enum tlbgen_mode mode)
{
	for (unsigned int c = 0; c < r->nr_cpus; c++)
		for (unsigned int k = 0; k < REPLAY_REASONS; k++) {
			const struct replay_counts *x = &r->per_cpu[c * REPLAY_REASONS + k];
			static const char *const what[] = { "recorded", "replayed", "matched" };
			const uint64_t v[] = { x->recorded, x->replayed, x->matched };

			for (int w = 0; w < 3; w++)
				metric(what[w], "events", NULL,
				       json_pack("{s:s,s:s,s:i,s:i}", "profile", r->profile, "machine",
						 r->machine, "cpu", (int)c, "reason", (int)k),
				       (double)v[w]);
		}
	for (unsigned int k = 0; k < REPLAY_REASONS; k++) {
		const struct replay_counts *x = &r->total[k];
		uint64_t den = x->recorded + x->replayed - x->matched;
		static const char *const what[] = { "recorded", "replayed", "matched" };
		const uint64_t v[] = { x->recorded, x->replayed, x->matched };

		for (int w = 0; w < 3; w++)
			metric(what[w], "events", NULL,
			       json_pack("{s:s,s:s,s:s,s:i}", "profile", r->profile, "machine",
					 r->machine, "cpu", "all", "reason", (int)k), (double)v[w]);

		metric("reason_agreement", "ratio", "higher",
		       json_pack("{s:s,s:s,s:i}", "profile", r->profile, "machine", r->machine,
				 "reason", (int)k), den ? (double)x->matched / (double)den : 1.0);
	}
	metric("agreement", "ratio", "higher", params(r), r->agreement);
	metric("flush_requests", "events", NULL, params(r), (double)r->flush_requests);
	metric("ipis", "events", "lower", params(r), (double)r->ipis);
	metric("hypercall_targets", "events", "lower", params(r), (double)r->hypercall_targets);
	metric("pv_flagged", "events", NULL, params(r), (double)r->pv_flagged);
	metric("switch_flushes", "events", "lower", params(r), (double)r->switch_flushes);
	metric("full_flushes", "events", "lower", params(r), (double)r->full_flushes);
	metric("partial_flushes", "events", NULL, params(r), (double)r->partial_flushes);
	metric("remote_flush_funcs", "events", "lower", params(r), (double)r->remote_flush_funcs);
	metric("warns", "events", "lower", params(r), (double)r->warns);
	metric("mismatch_steps", "events", "lower", params(r), (double)r->mismatch_steps);
	metric("replay_seconds", "s", "lower", params(r), r->seconds);
	if (mode == TLBGEN_MODE_VIRTUAL)
		metric("flush_cpu_time", "us", "lower", params(r), r->flush_cpu_us);
	record_timing(r, "recorded", &r->recorded_remote);
	if (mode == TLBGEN_MODE_VIRTUAL)
		record_timing(r, "model", &r->model_remote);
	for (size_t i = 0; i < r->nr_classes; i++)
		metric("mismatch_class", "steps", "lower",
		       json_pack("{s:s,s:s,s:s}", "profile", r->profile, "machine", r->machine,
				 "class", r->classes[i].cls), (double)r->classes[i].steps);
}

/* A recorded figure (what every table below prints). */
static double get(const char *name, json_t *pa)
{
	double v = 0;

	bench_metric_get(name, pa, &v);
	json_decref(pa);
	return v;
}

static json_t *cell(const struct replay_result *r, json_t *cpu, unsigned int k)
{
	return json_pack("{s:s,s:s,s:o,s:i}", "profile", r->profile, "machine", r->machine,
			 "cpu", cpu, "reason", (int)k);
}

static json_t *timed(const struct replay_result *r, const char *source)
{
	return json_pack("{s:s,s:s,s:s}", "profile", r->profile, "machine", r->machine,
			 "source", source);
}

/* The recording's remote flushes against the model's, where both were timed. */
static void print_timing(const struct replay_result *r)
{
	double rn = get("remote_flushes_timed", timed(r, "recorded"));
	double mn = get("remote_flushes_timed", timed(r, "model"));

	if (!(rn > 0))	/* NaN: no metric (no csd events) */
		return;
	printf("remote flush, reason 4 to the last target's csd exit, us: recorded median %.2f "
	       "p90 %.2f (%.0f flushes)", get("remote_flush_ns_p50", timed(r, "recorded")) / 1e3,
	       get("remote_flush_ns_p90", timed(r, "recorded")) / 1e3, rn);
	if (mn > 0)	/* NaN where the model timed nothing (stepped) */
		printf("; model median %.2f p90 %.2f (%.0f; its IPI: send %.2f, latency %.2f)",
		       get("remote_flush_ns_p50", timed(r, "model")) / 1e3,
		       get("remote_flush_ns_p90", timed(r, "model")) / 1e3, mn,
		       get("model_ipi_send_ns", params(r)) / 1e3,
		       get("model_ipi_latency_ns", params(r)) / 1e3);
	printf("\n");
}

static void print_check(const struct replay_result *r)
{
	printf("\n%s on %s: agreement %.4f, %.0f operations differ\n", r->profile, r->machine,
	       get("agreement", params(r)), get("mismatch_steps", params(r)));
	printf("%-4s %-11s %10s %10s %10s %9s\n", "cpu", "reason", "recorded", "replayed",
	       "matched", "agree");
	for (unsigned int c = 0; c <= r->nr_cpus; c++)
		for (unsigned int k = 0; k < REPLAY_REASONS; k++) {
			json_t *cpu = c < r->nr_cpus ? json_integer(c) : json_string("all");
			double rec = get("recorded", cell(r, json_incref(cpu), k));
			double rep = get("replayed", cell(r, json_incref(cpu), k));
			double mat = get("matched", cell(r, json_incref(cpu), k));
			char name[12];

			json_decref(cpu);
			if (!rec && !rep)
				continue;
			snprintf(name, sizeof(name), c < r->nr_cpus ? "%u" : "all", c);
			printf("%-4s %-11s %10.0f %10.0f %10.0f %9.4f\n", name, reason_short[k], rec,
			       rep, mat, rec + rep - mat > 0 ? mat / (rec + rep - mat) : 1.0);
		}
	print_timing(r);
	for (size_t i = 0; i < r->nr_classes && i < 10; i++)
		printf("  %8.0f  %s\n", get("mismatch_class",
					   json_pack("{s:s,s:s,s:s}", "profile", r->profile,
						     "machine", r->machine, "class",
						     r->classes[i].cls)), r->classes[i].cls);
}

static void print_whatif(struct replay_result **res, unsigned int n, bool virt)
{
	static const char *const col[] = { "flush_requests", "ipis", "hypercall_targets",
					   "switch_flushes", "full_flushes", "partial_flushes",
					   "remote_flush_funcs" };

	printf("\n%-20s %-28s %9s %8s %9s %9s %9s %9s %9s", "profile", "machine", "flushes",
	       "IPIs", "hypercall", "sw_flush", "full", "partial", "remote_fn");
	if (virt)
		printf(" %12s", "flush_cpu_us");
	printf(" %9s %8s\n", "agreement", "host s");
	for (unsigned int i = 0; i < n; i++) {
		const struct replay_result *r = res[i];

		if (!r)
			continue;
		printf("%-20s %-28s", r->profile, r->machine);
		for (size_t k = 0; k < sizeof(col) / sizeof(col[0]); k++)
			printf(k == 1 ? " %8.0f" : " %9.0f", get(col[k], params(r)));
		if (virt)
			printf(" %12.1f", get("flush_cpu_time", params(r)));
		printf(" %9.4f %8.2f\n", get("agreement", params(r)),
		       get("replay_seconds", params(r)));
	}
}

static const char *machine;
static unsigned int why;
static bool dump;

static const struct bench_opt replay_opts[] = {
	{ .name = "machine", .arg = "WORDS", .type = BOPT_STR, .dst = &machine,
	  .help = "the recording machine (default) changed by words: pcid, nopcid,\n"
		  "invlpgb, noinvlpgb, native, kvm, hyperv, pvm; in virtual mode\n"
		  "also a cost model (default skylake-56)" },
	{ .name = "why", .arg = "N", .type = BOPT_UINT, .dst = &why, .min = 1, .max = 100000,
	  .help = "list the first N mismatching operations with the recorded\n"
		  "events around them" },
	{ .name = "dump", .type = BOPT_FLAG, .dst = &dump,
	  .help = "print the rebuilt operations and their recorded decisions" },
	BENCH_OPT_END,
};

static int replay_cmd(struct bench_env *e)
{
	struct replay_opts o = { .sz = sizeof(o), .machine = machine, .why = why > 0,
				 .why_max = why };
	struct replay_result *res[BENCH_MAX_POLICIES] = { NULL };
	unsigned int modes = bench_modes(e);
	const struct replay_info *in;
	const char *path;
	struct replay_trace *t;
	char err[1024];
	int ret = 0;

	if (!modes)
		return 2;
	if (e->nargs != 1) {
		fprintf(stderr, "tlbgen-bench replay: %s; usage: tlbgen-bench replay DIR|FILE "
			"[options]\n", e->nargs ? "one trace at a time" : "which trace? (a "
			"directory of tlbgen-trace record, or a trace.dat)");
		return 2;
	}
	if (modes == (BENCH_M_STEPPED | BENCH_M_VIRTUAL)) {
		fprintf(stderr, "tlbgen-bench replay: --mode stepped or virtual, one of them\n");
		return 2;
	}
	o.mode = modes & BENCH_M_VIRTUAL ? TLBGEN_MODE_VIRTUAL : TLBGEN_MODE_STEPPED;
	path = e->args[0];
	if (replay_trace_open(path, &t, err, sizeof(err))) {
		fprintf(stderr, "tlbgen-bench replay: %s\n", err);
		return 2;
	}
	in = replay_trace_info(t);
	if (dump) {
		replay_dump(stdout, t);
		replay_trace_free(t);
		return 0;
	}
	/* The recording kernel's own profile unless -p says otherwise. */
	if (bench_env_policies(e, (const char *const[]){ in->profile, NULL })) {
		replay_trace_free(t);
		return 2;
	}
	bench_meta_param("trace", json_string(path));
	bench_meta_param("kernel", json_string(in->release));
	bench_meta_param("machine", json_string(machine ? machine : "recorded"));
	bench_meta_param("mode", json_string(bench_mode_name(modes)));
	metric("trace_events", "events", NULL, json_pack("{s:s}", "trace", path), (double)in->events);
	metric("trace_steps", "events", NULL, json_pack("{s:s}", "trace", path), (double)in->steps);
	metric("trace_decisions", "events", NULL, json_pack("{s:s}", "trace", path),
	       (double)in->decisions);
	metric("trace_hidden_switches", "events", NULL, json_pack("{s:s}", "trace", path),
	       (double)in->hidden_switches);
	metric("trace_seconds", "s", NULL, json_pack("{s:s}", "trace", path), in->seconds);
	for (unsigned int i = 0; i < e->npol; i++) {
		/* The spec was parsed and registered once (bench_policy_parse()):
		 * the harness takes its name; the results keep the spec. */
		o.profile = e->pol[i].name;
		if (replay_run(t, &o, &res[i])) {
			ret = 1;
		} else {
			snprintf(res[i]->profile, sizeof(res[i]->profile), "%s", e->pol[i].label);
			record(res[i], o.mode);
		}
	}
	printf("trace: %s: kernel %s, %u CPUs, %.3f s, %.0f events, %.0f operations, %.0f "
	       "decisions, %.0f switches found only by the task running\n", path, in->release,
	       in->nr_cpus, get("trace_seconds", json_pack("{s:s}", "trace", path)),
	       get("trace_events", json_pack("{s:s}", "trace", path)),
	       get("trace_steps", json_pack("{s:s}", "trace", path)),
	       get("trace_decisions", json_pack("{s:s}", "trace", path)),
	       get("trace_hidden_switches", json_pack("{s:s}", "trace", path)));
	printf("recorded on: %s, %s, flush_tlb_multi %s, HZ %u; its profile: %s\n",
	       in->pcid ? "PCID" : "no PCID", in->invlpgb ? "INVLPGB" : "no INVLPGB", in->pv_flush,
	       in->hz ? in->hz : 250, in->profile);
	if (in->warnings[0])
		fprintf(stderr, "replay: warning: %s", in->warnings);
	for (unsigned int i = 0; i < e->npol; i++)
		if (res[i])
			print_check(res[i]);
	print_whatif(res, e->npol, o.mode == TLBGEN_MODE_VIRTUAL);
	for (unsigned int i = 0; i < e->npol; i++) {
		if (res[i] && why && res[i]->nr_mismatches) {
			printf("\nmismatches under %s on %s:\n", res[i]->profile, res[i]->machine);
			replay_print_why(stdout, res[i], why);
		}
		replay_result_free(res[i]);
	}
	replay_trace_free(t);
	return ret;
}

const struct bench bench_replay = {
	.name = "replay",
	.summary = "a recorded kernel's flush decisions replayed and checked; what-if per profile",
	.help = "Replay a recording of tlbgen-trace (DIR with trace.dat and its snapshot, or a\n"
		"trace.dat FILE) through the library and compare its flush decisions with the\n"
		"kernel's: per CPU and tlb_flush reason the recorded, replayed and matched\n"
		"events, and agreement = matched / (recorded + replayed - matched). Each -p\n"
		"adds a what-if row (flushes, IPIs, hypercall targets, switch-time flushes);\n"
		"the default profile is the newest built-in one at or below the recording\n"
		"kernel's version. --mode virtual adds the CPU time spent flushing.\n"
		"Exit: 0 replayed, 1 a replay failed, 2 bad arguments or a trace that cannot\n"
		"be replayed (the reason is printed). docs/replay.md.\n",
	.shared = BENCH_O_POLICY | BENCH_O_MODE | BENCH_O_JSON,
	.modes = BENCH_M_STEPPED | BENCH_M_VIRTUAL,
	.default_modes = BENCH_M_STEPPED,
	.modes_why = "a recording is replayed step by step, in its own order",
	.opts = replay_opts,
	.args = true,
	.run = replay_cmd,
};
BENCH_COMMAND(bench_replay);
