/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harness/replay/replay-tasks.h - the rebuild's bookkeeping (replay-tasks.c):
 * tasks by pid, the mms and their users, each CPU's state, the operations
 * (steps) and which recorded decisions each caused. replay-build.c follows
 * the kernel's order of events over it.
 */
#ifndef TLBGEN_HARNESS_REPLAY_TASKS_H
#define TLBGEN_HARNESS_REPLAY_TASKS_H

#include "replay-internal.h"

#define CLONE_VM	0x00000100
#define CLONE_THREAD	0x00010000

struct task {
	int32_t pid, tgid;
	int32_t mm;		/* -1: none (kernel thread, or after exit_mm()) */
	int32_t oldmm;		/* the mm exit_mm() or exec left */
	int32_t dead_mm;	/* an mm whose exit_mmap() this task runs */
	uint8_t kthread;
};

struct cpust {
	int32_t loaded;		/* mm the CPU has loaded: -1 init_mm, -2 unknown */
	uint32_t await_switch;	/* a switch step whose reload may come next */
	int32_t await_prev;
	uint32_t req;		/* a flush request whose local part may come */
	uint8_t in_local;	/* its local flush_tlb_func() is running */
	uint32_t remote_req;	/* native: a request whose flush_tlb_func() runs here */
	int32_t temp_saved;	/* mm before use_temporary_mm(), -2: none */
	uint8_t started;	/* seed decided */
	int32_t cur;		/* current task */
};

struct builder {
	struct replay_trace *t;
	struct task *tasks;
	size_t nr_tasks, cap_tasks;
	uint32_t *hash;		/* pid -> tasks index + 1 (open addressing) */
	size_t hash_size;
	int32_t *users;		/* tasks using each mm */
	size_t cap_users;
	struct cpust *cs;
	uint64_t *csd_key;	/* native: csd -> request step */
	uint32_t *csd_val;
	bool have_csd;
	int32_t poking;		/* the temporary mm, -1 until used */
};

int replay__new_mm(struct builder *b, int32_t owner, bool pre);
struct rtask_snap *replay__snap_of(const struct replay_trace *t, int32_t pid, size_t *idx);
uint32_t *replay__slot(struct builder *b, int32_t pid);
int replay__rehash(struct builder *b);
struct task *replay__add_task(struct builder *b, int32_t pid, int32_t tgid, int32_t mm, bool kt);
struct task *replay__task(struct builder *b, int32_t pid, bool kthread_name);
int64_t replay__add_step(struct builder *b, const struct rev *e, uint32_t ev, enum step_kind kind,
			int32_t mm, long pages);
int replay__attach(struct builder *b, uint32_t step, const struct rev *e, uint32_t ev);
void replay__put_mm(struct builder *b, struct task *k, int32_t mm);
int32_t replay__flush_mm(struct builder *b, const struct task *k, const struct cpust *c,
			int reason);
int replay__mark_exec_switches(struct replay_trace *t);
void replay__finish_seeds(struct builder *b);

#endif
