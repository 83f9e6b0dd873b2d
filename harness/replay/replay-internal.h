/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harness/replay/replay-internal.h - the replay's own structures: the events read
 * from trace.dat (replay-read.c), the run rebuilt from them
 * (replay-build.c), and what replay.c drives and matches.
 */
#ifndef TLBGEN_HARNESS_REPLAY_INTERNAL_H
#define TLBGEN_HARNESS_REPLAY_INTERNAL_H

#include "replay.h"

/* The recorded events replay reads; everything else is skipped. */
enum rev_kind {
	EV_SWITCH = 0,	/* sched_switch: a = prev, b = next, c = prev_state */
	EV_TLB,		/* tlb_flush: a = reason, c = pages (-1: TLB_FLUSH_ALL) */
	EV_NEWTASK,	/* task_newtask: a = child, c = clone_flags */
	EV_EXEC,	/* sched_process_exec: a = pid */
	EV_EXIT,	/* sched_process_exit: a = pid, c = group_dead */
	EV_EXIT_MMAP,	/* exit_mmap: c = mm pointer */
	EV_CSD_ENTRY,	/* csd_function_entry: c = csd (0: a local run), d = func */
	EV_CSD_EXIT,	/* csd_function_exit */
	EV_CSD_QUEUE,	/* csd_queue_cpu: a = target, c = csd */
	EV_NR,
};

struct rev {
	uint64_t ts;		/* ns from the first event */
	int64_t c;
	uint64_t d;
	int32_t pid;		/* common_pid: the task current on cpu */
	int32_t a, b;
	uint16_t cpu;
	uint8_t kind;
};

enum step_kind {
	ST_SWITCH = 0,	/* switch_mm() to mm (-1: init_mm) */
	ST_LAZY,	/* enter_lazy_tlb(): a kernel thread or idle, or exit_mm() */
	ST_LEAVE,	/* leave_mm(): idle lost the TLB */
	ST_FLUSH,	/* flush_tlb_mm_range(mm, pages or ALL, freed) */
	ST_MM_DEAD,	/* exit_mmap() ended: mm goes when no CPU holds it */
	ST_ORPHAN,	/* holds recorded decisions no operation explains */
};

/* A recorded tlb_flush decision, chained per step. */
struct rdec {
	uint32_t next;		/* next decision of the same step, UINT32_MAX: none */
	uint32_t ev;		/* its event */
	uint16_t cpu;
	uint8_t reason;
	long pages;
};

struct step {
	uint64_t ts;
	uint32_t ev;		/* the event it was rebuilt from */
	uint32_t dec_first, dec_last;	/* recorded decisions, UINT32_MAX: none */
	int32_t mm;		/* mm id, -1 for init_mm or none */
	int32_t pid;
	long pages;		/* ST_FLUSH: pages, -1 for TLB_FLUSH_ALL */
	uint16_t cpu;
	uint8_t kind;
	uint8_t freed;		/* ST_FLUSH: freed_tables */
	uint8_t unrecorded;	/* the kernel's decisions here were not traced */
	uint8_t stride;		/* ST_FLUSH: stride_shift (12, or 21 for huge pages) */
	uint8_t batch;		/* ST_FLUSH: arch_tlbbatch_flush() (mm NULL) */
	uint8_t csd_known;	/* ST_FLUSH of a reason 4, csd events recorded: */
	uint64_t csd_mask;	/* ... the CPUs (< 64) it queued a csd to */
};

/* An address space of the recorded run. */
struct rmm {
	int32_t owner;		/* tgid that created it (for messages) */
	uint8_t preexisting;	/* alive when recording began */
	uint8_t first_remote;	/* its first flush went to other CPUs (reason 4) */
	uint8_t poking;		/* the temporary mm of text_poke()/kthread_use_mm() */
};

/* Each CPU's state when the trace begins. */
struct rseed {
	int32_t mm;		/* -1: init_mm */
	uint8_t lazy;
};

struct replay_trace {
	struct replay_info info;
	struct rev *ev;
	size_t nr_ev, cap_ev;
	struct step *st;
	size_t nr_st, cap_st;
	struct rdec *dec;
	size_t nr_dec, cap_dec;
	struct rmm *mm;
	size_t nr_mm, cap_mm;
	struct rseed *seed;		/* [nr_cpus] */
	uint64_t start_mask_cpus;	/* CPUs each preexisting mm is seeded in */
	/* Snapshot (tasks.txt / tgids.txt): tid, tgid, kernel thread. */
	struct rtask_snap { int32_t tid, tgid; uint8_t kthread; } *snap;
	size_t nr_snap;
	char (*comm)[16];		/* comm per snapshot entry (kernel-thread guess) */
};

/* replay-read.c: fill ev[] and info from the files. */
int replay__read(struct replay_trace *t, const char *path, char *err, size_t errlen);
/* replay-build.c: rebuild st[], dec[], mm[] and seed[] from ev[]. */
int replay__build(struct replay_trace *t, char *err, size_t errlen);

/* A decision the model took during step `step`. */
struct pdec {
	uint32_t step;
	uint32_t seq;
	uint16_t cpu;
	uint8_t reason;
	long pages;
};

/* The machine a run replays on, and its words for the result table. */
struct replay_machine {
	bool pcid, invlpgb;
	char pv[16];
	char cost[64];
	char desc[96];
};

/* replay-machine.c: the recording's machine changed by `spec`'s words;
 * -EINVAL naming the word that is none of them. */
int replay__parse_machine(const struct replay_info *in, const char *spec, enum tlbgen_mode mode,
			  struct replay_machine *m);

/* A remote decision the kernel traced: when `cpu` took step's IPI. */
struct replay_delivery {
	uint64_t ts;
	uint32_t step;
	uint16_t cpu;
};

/* replay-deliver.c: every ST_FLUSH's remote decisions, by time (*out to
 * free; -ENOMEM); whether step's recorded decisions include one of cpu's. */
int replay__deliveries(const struct replay_trace *t, struct replay_delivery **out, size_t *nr);
bool replay__delivery_recorded(const struct replay_trace *t, uint32_t step, unsigned int cpu);
/* Under KVM's pv flush: mark preempted, for step s, each CPU its recorded
 * flush queued no csd to; the mask of those marked. Then resume them. */
uint64_t replay__preempt_unqueued(struct tlbgen_system *sys, const struct replay_trace *t,
				  const struct step *s);
void replay__resume_flagged(struct tlbgen_system *sys, uint64_t flagged);

/* replay-match.c: match pd[] (sorted here) against the recorded decisions. */
int replay__match(const struct replay_trace *t, struct pdec *pd, size_t nr_pd,
		  const struct replay_opts *o, struct replay_result *res);

/* replay-tracecmd.c, in the child: libtracecmd's events into t->ev, every
 * record counted per CPU. */
int replay__tracecmd_read(struct replay_trace *t, const char *file, uint64_t *records,
			  unsigned int nr_cpus, char *err, size_t errlen);
struct replay_dat;
/* replay-child.c: replay__tracecmd_read() in a child, its events checked
 * against the file's pages (dat) and copied into t->ev. */
int replay__child_read(struct replay_trace *t, const char *file, const struct replay_dat *dat,
		       char *err, size_t errlen);
/* What the child sent (len bytes at buf), checked against dat: the same
 * CPUs, as many events per CPU as the pages hold, timestamps in order per
 * CPU. -EINVAL with the reason, t untouched, when any check fails. */
int replay__child_decode(struct replay_trace *t, const unsigned char *buf, size_t len,
			 const struct replay_dat *dat, char *err, size_t errlen);

/* replay-files.c: machine.txt (0 and nothing changed when absent; -EINVAL
 * naming line and field), tasks.txt and tgids.txt, command.txt's lost events. */
int replay__read_machine(struct replay_info *in, const char *dir, char *err, size_t errlen);
int replay__read_tasks(struct replay_trace *t, const char *dir);
uint64_t replay__read_lost(const char *dir);

/* A comm that looks like a kernel thread's (tasks no snapshot names). */
bool replay__kthread_name(const char *comm);

/* Grow an array to hold one more element: 0 or -ENOMEM. */
int replay__grow(void **p, size_t *cap, size_t nr, size_t size);

/* replay-infer.c: without machine.txt, PCID and the remote flush path from
 * the trace's own tlb_flush events (a warning line says what was found). */
void replay__infer_machine(struct replay_trace *t);
/* Before the rebuild of a bare trace: tasks alive at its start that a
 * remote shootdown shows sharing an mm, as snapshot lines. 0 or -ENOMEM. */
int replay__infer_groups(struct replay_trace *t);

/* replay-timing.c: remote flushes' durations, recorded and modelled. */
struct replay_model_timing {
	struct tlbgen_system *sys;
	uint64_t *start;		/* [nr_cpus] the open flush's reason 4, cycles */
	bool *remote;			/* [nr_cpus] another CPU ran one of its callbacks */
	double *ns;
	size_t n, cap;
	double mhz;
	int err;
};
/* Each recorded reason-4 flush whose csds are all seen: 0 or -ENOMEM. */
int replay__timing_recorded(const struct replay_trace *t, double **ns, size_t *n);
int replay__timing_init(struct replay_model_timing *mt, struct tlbgen_system *sys,
			unsigned int nr_cpus, double mhz);
/* From the decision hook: a reason 4 opens the initiator's flush. */
void replay__timing_decision(struct replay_model_timing *mt,
			     const struct tlbgen_flush_decision *d);
/* The trace hook ipi_receive: `cpu` ran a callback of `from`'s flush. */
void replay__timing_receive(void *ctx, unsigned int cpu, unsigned int from);
/* The flush-done callback (ctx: the struct replay_model_timing). */
void replay__timing_done(void *ctx, unsigned int initiator);
void replay__timing_free(struct replay_model_timing *mt);
/* Median and p90 of ns[0..n) (sorted in place). */
void replay__timing_summary(double *ns, size_t n, struct replay_timing *out);

#define REPLAY_NONE UINT32_MAX

#endif
