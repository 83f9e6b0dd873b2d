// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/replay.c - `tlbgen-bench replay`: a real kernel's recorded TLB work
 * (bench/tlbgen-trace) replayed under the recording kernel's profile and
 * machine, its decisions checked one to one against the kernel's, and the
 * same work's cost under other profiles and machines (docs/replay.md). The
 * engine is harness/replay.c; this file parses the options, records every
 * figure into results.json and prints it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <replay.h>

#include "results.h"

#define MAX_PROFILES 16

static void usage(FILE *f)
{
	fprintf(f,
"usage: tlbgen-bench replay DIR|FILE [-p PROFILE]... [--machine M] [--mode stepped|virtual]\n"
"                           [--why [N]]\n"
"Replay a recording of tlbgen-trace (DIR with trace.dat and its snapshot, or a\n"
"trace.dat FILE) through the library and compare its flush decisions with the\n"
"kernel's: per CPU and tlb_flush reason the recorded, replayed and matched\n"
"events, and agreement = matched / (recorded + replayed - matched).\n"
"  -p PROFILE        replay under PROFILE (repeatable; NAME or NAME:choice=value,...);\n"
"                    default: the newest built-in profile at or below the\n"
"                    recording kernel's version. Each prints a what-if row:\n"
"                    flushes, IPIs, hypercall targets, switch-time flushes\n"
"  --machine M       the recording machine (default) changed by words: pcid,\n"
"                    nopcid, invlpgb, noinvlpgb, native, kvm, hyperv, pvm;\n"
"                    with --mode virtual also a cost model (skylake-56)\n"
"  --mode virtual    in virtual time: adds the CPU time spent flushing\n"
"  --why [N]         list the first N (default 20) mismatching operations with\n"
"                    the recorded events around them\n"
"  --dump            print the rebuilt operations and their recorded decisions\n"
"Exit: 0 replayed, 1 a replay failed, 2 bad arguments or a trace that cannot\n"
"be replayed (the reason is printed).\n");
}

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

		metric("reason_agreement", "ratio", "higher",
		       json_pack("{s:s,s:s,s:i}", "profile", r->profile, "machine", r->machine,
				 "reason", (int)k), den ? (double)x->matched / (double)den : 1.0);
	}
	metric("agreement", "ratio", "higher", params(r), r->agreement);
	metric("flush_requests", "events", NULL, params(r), (double)r->flush_requests);
	metric("ipis", "events", "lower", params(r), (double)r->ipis);
	metric("hypercall_targets", "events", "lower", params(r), (double)r->hypercall_targets);
	metric("switch_flushes", "events", "lower", params(r), (double)r->switch_flushes);
	metric("full_flushes", "events", "lower", params(r), (double)r->full_flushes);
	metric("partial_flushes", "events", NULL, params(r), (double)r->partial_flushes);
	metric("remote_flush_funcs", "events", "lower", params(r), (double)r->remote_flush_funcs);
	metric("warns", "events", "lower", params(r), (double)r->warns);
	metric("mismatch_steps", "events", "lower", params(r), (double)r->mismatch_steps);
	metric("replay_seconds", "s", "lower", params(r), r->seconds);
	if (mode == TLBGEN_MODE_VIRTUAL)
		metric("flush_cpu_time", "us", "lower", params(r), r->flush_cpu_us);
	for (size_t i = 0; i < r->nr_classes; i++)
		metric("mismatch_class", "steps", "lower",
		       json_pack("{s:s,s:s,s:s}", "profile", r->profile, "machine", r->machine,
				 "class", r->classes[i].cls), (double)r->classes[i].steps);
}

static void print_check(const struct replay_result *r)
{
	printf("\n%s on %s: agreement %.4f, %llu operations differ\n", r->profile, r->machine,
	       r->agreement, (unsigned long long)r->mismatch_steps);
	printf("%-4s %-11s %10s %10s %10s %9s\n", "cpu", "reason", "recorded", "replayed",
	       "matched", "agree");
	for (unsigned int c = 0; c <= r->nr_cpus; c++)
		for (unsigned int k = 0; k < REPLAY_REASONS; k++) {
			const struct replay_counts *x = c < r->nr_cpus ?
				&r->per_cpu[c * REPLAY_REASONS + k] : &r->total[k];
			uint64_t den = x->recorded + x->replayed - x->matched;
			char cpu[12];

			if (!x->recorded && !x->replayed)
				continue;
			snprintf(cpu, sizeof(cpu), c < r->nr_cpus ? "%u" : "all", c);
			printf("%-4s %-11s %10llu %10llu %10llu %9.4f\n", cpu, reason_short[k],
			       (unsigned long long)x->recorded, (unsigned long long)x->replayed,
			       (unsigned long long)x->matched,
			       den ? (double)x->matched / (double)den : 1.0);
		}
	for (size_t i = 0; i < r->nr_classes && i < 10; i++)
		printf("  %8llu  %s\n", (unsigned long long)r->classes[i].steps, r->classes[i].cls);
}

static int parse(int argc, char **argv, const char **path, const char **profiles,
		 int *nprof, struct replay_opts *o, int *why)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if ((!strcmp(a, "-p") || !strcmp(a, "--profile")) && v) {
			if (*nprof == MAX_PROFILES) {
				fprintf(stderr, "replay: at most %d profiles\n", MAX_PROFILES);
				return -1;
			}
			profiles[(*nprof)++] = v;
			i++;
		} else if (!strcmp(a, "--machine") && v) {
			o->machine = v;
			i++;
		} else if (!strcmp(a, "--mode") && v && (!strcmp(v, "stepped") || !strcmp(v, "virtual"))) {
			o->mode = v[0] == 's' ? TLBGEN_MODE_STEPPED : TLBGEN_MODE_VIRTUAL;
			i++;
		} else if (!strcmp(a, "--why")) {
			*why = 20;
			if (v && v[0] >= '0' && v[0] <= '9') {
				*why = atoi(v);
				i++;
			}
		} else if (!strcmp(a, "--dump")) {
			*why = -1;
		} else if (a[0] != '-' && !*path) {
			*path = a;
		} else {
			fprintf(stderr, "replay: bad argument '%s'\n", a);
			return -1;
		}
	}
	if (!*path) {
		fprintf(stderr, "replay: which trace? (a directory of tlbgen-trace record, or a trace.dat)\n");
		return -1;
	}
	return 0;
}

int bench_replay_main(int argc, char **argv);
int bench_replay_main(int argc, char **argv)
{
	const char *path = NULL, *profiles[MAX_PROFILES];
	struct replay_opts o = { .sz = sizeof(o), .mode = TLBGEN_MODE_STEPPED };
	struct replay_trace *t;
	const struct replay_info *in;
	char err[1024];
	int nprof = 0, why = 0, ret = 0;

	if (parse(argc, argv, &path, profiles, &nprof, &o, &why)) {
		usage(stderr);
		return 2;
	}
	if (replay_trace_open(path, &t, err, sizeof(err))) {
		fprintf(stderr, "replay: %s\n", err);
		return 2;
	}
	in = replay_trace_info(t);
	if (why < 0) {
		replay_dump(stdout, t);
		replay_trace_free(t);
		return 0;
	}
	if (!nprof)
		profiles[nprof++] = in->profile;
	o.why = why > 0;
	o.why_max = why > 0 ? (unsigned int)why : 0;
	bench_meta_param("trace", json_string(path));
	bench_meta_param("kernel", json_string(in->release));
	metric("trace_events", "events", NULL, json_pack("{s:s}", "trace", path), (double)in->events);
	metric("trace_steps", "events", NULL, json_pack("{s:s}", "trace", path), (double)in->steps);
	metric("trace_decisions", "events", NULL, json_pack("{s:s}", "trace", path),
	       (double)in->decisions);
	printf("trace: %s: kernel %s, %u CPUs, %.3f s, %llu events, %llu operations, %llu decisions\n",
	       path, in->release, in->nr_cpus, in->seconds, (unsigned long long)in->events,
	       (unsigned long long)in->steps, (unsigned long long)in->decisions);
	printf("recorded on: %s, %s, flush_tlb_multi %s, HZ %u; its profile: %s\n",
	       in->pcid ? "PCID" : "no PCID", in->invlpgb ? "INVLPGB" : "no INVLPGB", in->pv_flush,
	       in->hz ? in->hz : 250, in->profile);
	if (in->warnings[0])
		fprintf(stderr, "replay: warning: %s", in->warnings);

	struct replay_result *res[MAX_PROFILES] = { NULL };

	bench_meta_param("machine", json_string(o.machine ? o.machine : "recorded"));
	bench_meta_param("mode", json_string(o.mode == TLBGEN_MODE_VIRTUAL ? "virtual" : "stepped"));
	for (int i = 0; i < nprof; i++) {
		char base[64];

		o.profile = profiles[i];
		snprintf(base, sizeof(base), "%.*s", (int)strcspn(profiles[i], ":"), profiles[i]);
		bench_meta_policy(base, profiles[i]);
		if (replay_run(t, &o, &res[i])) {
			ret = 1;
			continue;
		}
		record(res[i], o.mode);
	}
	for (int i = 0; i < nprof; i++)
		if (res[i])
			print_check(res[i]);
	printf("\n%-20s %-28s %9s %8s %9s %9s %9s %9s %9s", "profile", "machine", "flushes",
	       "IPIs", "hypercall", "sw_flush", "full", "partial", "remote_fn");
	if (o.mode == TLBGEN_MODE_VIRTUAL)
		printf(" %12s", "flush_cpu_us");
	printf(" %9s %8s\n", "agreement", "seconds");
	for (int i = 0; i < nprof; i++) {
		const struct replay_result *r = res[i];

		if (!r)
			continue;
		printf("%-20s %-28s %9llu %8llu %9llu %9llu %9llu %9llu %9llu", r->profile, r->machine,
		       (unsigned long long)r->flush_requests, (unsigned long long)r->ipis,
		       (unsigned long long)r->hypercall_targets,
		       (unsigned long long)r->switch_flushes, (unsigned long long)r->full_flushes,
		       (unsigned long long)r->partial_flushes,
		       (unsigned long long)r->remote_flush_funcs);
		if (o.mode == TLBGEN_MODE_VIRTUAL)
			printf(" %12.1f", r->flush_cpu_us);
		printf(" %9.4f %8.2f\n", r->agreement, r->seconds);
	}
	for (int i = 0; i < nprof; i++) {
		if (res[i] && why > 0 && res[i]->nr_mismatches) {
			printf("\nmismatches under %s on %s:\n", res[i]->profile, res[i]->machine);
			replay_print_why(stdout, res[i], (size_t)why);
		}
		replay_result_free(res[i]);
	}
	replay_trace_free(t);
	return ret;
}
