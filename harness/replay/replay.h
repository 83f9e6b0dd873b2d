/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harness/replay/replay.h - replay a real kernel's recorded TLB work through the
 * library and compare the decisions (docs/replay.md).
 *
 * A recording (bench/tlbgen-trace: trace.dat plus the task snapshot and
 * machine description beside it, or a bare trace.dat) is read with
 * libtracecmd and libtraceevent and rebuilt into a run: an mm per address
 * space (thread groups and CLONE_VM children share one), kernel threads and
 * idle as lazy TLB, fork, exec and exit in the kernel's order, each CPU's
 * switches, and every flush request from its initiating CPU's own events.
 * replay_run() drives that run through tlbgen_switch_mm(),
 * tlbgen_flush_tlb_mm_range() and flush_tlb_func() under a profile and a
 * machine, collects the model's decisions (tlbgen/decision.h) and matches
 * them one to one, in order, against the recorded tlb_flush events.
 *
 * Used by `tlbgen-bench replay` and by tests/replay. Not thread-safe: one
 * trace or result per caller at a time (distinct objects are independent).
 */
#ifndef TLBGEN_HARNESS_REPLAY_H
#define TLBGEN_HARNESS_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tlbgen/tlbgen.h>

#define REPLAY_REASONS TLBGEN_NR_TLB_FLUSH_REASONS

struct replay_trace;

/* What the recording says about its machine and what had to be inferred. */
struct replay_info {
	char release[64];		/* uname -r of the recording kernel */
	unsigned int version[3];	/* its major, minor, patch */
	unsigned int nr_cpus;
	bool pcid;			/* the machine had PCID */
	bool invlpgb;			/* ... INVLPGB */
	char pv_flush[16];		/* native, kvm, hyperv, pvm */
	unsigned int hz;		/* 0: unknown (250 is assumed) */
	bool snapshot;			/* tasks.txt and machine.txt were there */
	uint64_t events;		/* events read from trace.dat */
	uint64_t steps;			/* operations rebuilt from them */
	uint64_t decisions;		/* tlb_flush events */
	uint64_t lost;			/* events the kernel dropped (0 to replay) */
	uint64_t hidden_switches;	/* tasks found running with no switch to them */
	double seconds;			/* span of the trace */
	char profile[48];		/* the newest profile <= the kernel version */
	char warnings[1024];		/* what was inferred, one line each */
};

/*
 * replay_trace_open - read PATH: a directory holding trace.dat (and the
 * snapshot tlbgen-trace writes beside it) or a trace.dat file. On error
 * returns a negative errno and writes the reason into err (a file that is
 * not a trace, "no trace.dat in DIR", "truncated at byte N", a corrupt
 * section, page or timestamp, an event count libtracecmd and the pages
 * disagree on, libtracecmd crashing on it (it runs in a child process), a
 * machine.txt line it cannot take, an event replay needs missing and the
 * option that adds it, a non-x86 or too-old kernel with its version, lost
 * events): nothing is replayed from a partial trace.
 */
int replay_trace_open(const char *path, struct replay_trace **out, char *err, size_t errlen);
void replay_trace_free(struct replay_trace *t);
const struct replay_info *replay_trace_info(const struct replay_trace *t);

/* What a run replays under. */
struct replay_opts {
	size_t sz;			/* sizeof(struct replay_opts) */
	/* A profile's name, built in or registered (tlbgen_policy_register():
	 * tlbgen-bench registers each -p spec once); NULL: the recording
	 * kernel's (info.profile). */
	const char *profile;
	/*
	 * The machine: NULL or "" for the recording one (its PCID, INVLPGB and
	 * flush_tlb_multi); else comma-separated words that change it: pcid,
	 * nopcid, invlpgb, noinvlpgb, native, kvm, hyperv, pvm; in virtual mode
	 * any other word is the cost model (tlbgen_machine_lookup(), default
	 * skylake-56).
	 */
	const char *machine;
	enum tlbgen_mode mode;		/* TLBGEN_MODE_STEPPED or TLBGEN_MODE_VIRTUAL */
	bool why;			/* keep the mismatches (replay_result.mismatches) */
	unsigned int why_max;		/* at most this many (0: 1000) */
};

struct replay_counts {
	uint64_t recorded, replayed, matched;
};

/* One step whose decisions differ, with its recorded neighbourhood. */
struct replay_mismatch {
	uint64_t step;			/* index of the operation */
	unsigned int cpu;
	double t;			/* seconds into the trace */
	char what[96];			/* the operation ("switch to mm 12 (pid 4711)") */
	char recorded[96], replayed[96];	/* "0:-1 3:1" (reason:pages) */
	char cls[80];			/* its class (struct replay_class) */
	char around[512];		/* the events around it on its CPU */
};

/* Mismatching steps of one kind, e.g. "switch: kernel 0:all, model -". */
struct replay_class {
	char cls[80];
	uint64_t steps;
};

/* Remote flushes' durations, ns: from reason 4 to the last target's csd exit. */
struct replay_timing {
	size_t n;			/* flushes timed */
	double p50_ns, p90_ns;		/* nearest-rank median and 90th percentile */
};

struct replay_result {
	char profile[48];
	char machine[96];
	unsigned int nr_cpus;
	struct replay_counts *per_cpu;	/* [nr_cpus * REPLAY_REASONS] */
	struct replay_counts total[REPLAY_REASONS];
	double agreement;		/* matched / (recorded + replayed - matched) */
	/* What the work cost under this profile and machine. */
	uint64_t flush_requests;	/* flush_tlb_mm_range() calls */
	uint64_t ipis;			/* IPIs sent */
	uint64_t hypercall_targets;	/* CPUs a hypervisor flushed */
	uint64_t pv_flagged;		/* preempted vCPUs kvm_flush_tlb_multi() flagged */
	uint64_t switch_flushes;	/* CR3 loads that flushed */
	uint64_t full_flushes, partial_flushes;
	uint64_t remote_flush_funcs;	/* flush_tlb_func() on a non-initiator */
	uint64_t warns;			/* kernel WARN conditions the model hit */
	double flush_cpu_us;		/* virtual: CPU time in flushing, microseconds */
	double seconds;			/* host time of the run */
	/* The recording's remote flushes (with its csd events), and the
	 * model's (virtual mode; n 0 in stepped mode). */
	struct replay_timing recorded_remote, model_remote;
	/* Virtual mode: the cost model's IPI as looked up (a measured model's
	 * figures differ from run to run), ns; 0 in stepped mode. */
	double model_ipi_send_ns, model_ipi_latency_ns;
	struct replay_mismatch *mismatches;
	size_t nr_mismatches;
	uint64_t mismatch_steps;	/* steps that differ (all of them, kept or not) */
	struct replay_class *classes;	/* every mismatching step, by class, most first */
	size_t nr_classes;
};

/*
 * replay_run - replay `t` under `o`; *out gets a result to free with
 * replay_result_free(). Errors: -EINVAL (bad opts, unknown machine word),
 * -ENOENT (unknown profile), -ENOMEM; a message goes to stderr.
 */
int replay_run(const struct replay_trace *t, const struct replay_opts *o,
	       struct replay_result **out);
void replay_result_free(struct replay_result *r);

/* Print every rebuilt operation of `t` and its recorded decisions (debugging). */
void replay_dump(FILE *f, const struct replay_trace *t);

/* Print the mismatches of `r` (at most `max`) to `f`. */
void replay_print_why(FILE *f, const struct replay_result *r, size_t max);

#endif
