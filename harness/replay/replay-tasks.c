// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay-tasks.c - the rebuild's bookkeeping: tasks by pid, the
 * mms and their users, the operations and the decisions they caused, the
 * exec switches found per task, and each CPU's starting state.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay-tasks.h"
int replay__new_mm(struct builder *b, int32_t owner, bool pre)
{
	struct replay_trace *t = b->t;

	if (replay__grow((void **)&t->mm, &t->cap_mm, t->nr_mm, sizeof(*t->mm)) ||
	    replay__grow((void **)&b->users, &b->cap_users, t->nr_mm, sizeof(*b->users)))
		return -ENOMEM;
	t->mm[t->nr_mm] = (struct rmm){ .owner = owner, .preexisting = pre };
	b->users[t->nr_mm] = 0;
	return (int)t->nr_mm++;
}

struct rtask_snap *replay__snap_of(const struct replay_trace *t, int32_t pid, size_t *idx)
{
	/* tasks.txt first (it has the kernel-thread flag), then tgids.txt. */
	for (size_t i = 0; i < t->nr_snap; i++)
		if (t->snap[i].tid == pid) {
			if (idx)
				*idx = i;
			return &t->snap[i];
		}
	return NULL;
}

uint32_t *replay__slot(struct builder *b, int32_t pid)
{
	size_t h = ((uint32_t)pid * 2654435761u) & (b->hash_size - 1);

	while (b->hash[h] && b->tasks[b->hash[h] - 1].pid != pid)
		h = (h + 1) & (b->hash_size - 1);
	return &b->hash[h];
}

int replay__rehash(struct builder *b)
{
	size_t n = b->hash_size ? b->hash_size * 2 : 4096;

	free(b->hash);
	b->hash = calloc(n, sizeof(*b->hash));
	if (!b->hash)
		return -ENOMEM;
	b->hash_size = n;
	for (size_t i = 0; i < b->nr_tasks; i++)
		*replay__slot(b, b->tasks[i].pid) = (uint32_t)i + 1;
	return 0;
}

struct task *replay__add_task(struct builder *b, int32_t pid, int32_t tgid, int32_t mm, bool kt)
{
	struct task *k;

	if ((b->nr_tasks + 1) * 2 > b->hash_size && replay__rehash(b))
		return NULL;
	if (replay__grow((void **)&b->tasks, &b->cap_tasks, b->nr_tasks, sizeof(*b->tasks)))
		return NULL;
	k = &b->tasks[b->nr_tasks];
	*k = (struct task){ .pid = pid, .tgid = tgid, .mm = mm, .oldmm = -1, .dead_mm = -1,
			    .kthread = kt };
	*replay__slot(b, pid) = (uint32_t)++b->nr_tasks;
	if (mm >= 0)
		b->users[mm]++;
	return k;
}

/*
 * A task the trace has not introduced: from the snapshot (its thread group's
 * mm, or none for a kernel thread), else a guess from its name; unknown user
 * tasks are their own thread group.
 */
struct task *replay__task(struct builder *b, int32_t pid, bool kthread_name)
{
	uint32_t *s = replay__slot(b, pid);
	struct rtask_snap *sn;
	struct task *leader;
	size_t idx = 0;
	int32_t tgid = pid;
	bool kt;
	int mm;

	if (*s)
		return &b->tasks[*s - 1];
	sn = replay__snap_of(b->t, pid, &idx);
	/* tgids.txt entries have no flag: their name decides. */
	kt = pid == 0 || (sn ? sn->kthread || (!b->t->comm[idx][0] && kthread_name) : kthread_name);
	if (sn)
		tgid = sn->tgid;
	if (kt)
		return replay__add_task(b, pid, tgid, -1, true);
	if (tgid != pid) {
		leader = replay__task(b, tgid, false);
		if (!leader)
			return NULL;
		if (leader->mm >= 0)
			return replay__add_task(b, pid, tgid, leader->mm, false);
	}
	mm = replay__new_mm(b, tgid, true);
	return mm < 0 ? NULL : replay__add_task(b, pid, tgid, mm, false);
}

int64_t replay__add_step(struct builder *b, const struct rev *e, uint32_t ev, enum step_kind kind,
			int32_t mm, long pages)
{
	struct replay_trace *t = b->t;

	if (replay__grow((void **)&t->st, &t->cap_st, t->nr_st, sizeof(*t->st)))
		return -ENOMEM;
	t->st[t->nr_st] = (struct step){ .ts = e->ts, .ev = ev, .cpu = e->cpu, .kind = (uint8_t)kind,
					 .mm = mm, .pid = e->pid, .pages = pages, .stride = 12,
					 .dec_first = REPLAY_NONE, .dec_last = REPLAY_NONE };
	return (int64_t)t->nr_st++;
}

int replay__attach(struct builder *b, uint32_t step, const struct rev *e, uint32_t ev)
{
	struct replay_trace *t = b->t;
	struct step *s = &t->st[step];

	if (replay__grow((void **)&t->dec, &t->cap_dec, t->nr_dec, sizeof(*t->dec)))
		return -ENOMEM;
	t->dec[t->nr_dec] = (struct rdec){ .next = REPLAY_NONE, .ev = ev, .cpu = e->cpu,
					   .reason = (uint8_t)e->a, .pages = (long)e->c };
	if (s->dec_last == REPLAY_NONE)
		s->dec_first = (uint32_t)t->nr_dec;
	else
		t->dec[s->dec_last].next = (uint32_t)t->nr_dec;
	s->dec_last = (uint32_t)t->nr_dec++;
	return 0;
}

/* An mm loses a user; the last one's exit_mmap() comes from `k`. */
void replay__put_mm(struct builder *b, struct task *k, int32_t mm)
{
	if (mm >= 0 && --b->users[mm] == 0)
		k->dead_mm = mm;
}

/* The mm a flush request of `k` on CPU c is for. */
int32_t replay__flush_mm(struct builder *b, const struct task *k, const struct cpust *c,
			int reason)
{
	if (c->loaded >= 0 && b->t->mm[c->loaded].poking)
		return c->loaded;
	/* flush_tlb_func() locally: f->mm is the loaded mm. */
	if (reason == 3 && c->loaded >= 0)
		return c->loaded;
	if (k->dead_mm >= 0)
		return k->dead_mm;		/* exit_mmap() of an mm exec or exit left */
	if (k->mm >= 0)
		return k->mm;
	if (k->oldmm >= 0)
		return k->oldmm;
	return c->loaded >= 0 ? c->loaded : -1;	/* a kernel thread: its lazy mm */
}

/*
 * A task runs on a CPU the trace did not switch it to (this recording
 * machine leaves such switches out, reloads included): switch the model to
 * it too, with its decisions not compared, since the kernel's were not
 * recorded.
 */
int replay__mark_exec_switches(struct replay_trace *t)
{
	size_t size = 4096;
	struct { int32_t pid; uint32_t ev; } *h = calloc(size, sizeof(*h));
	uint32_t *await = calloc(t->info.nr_cpus, sizeof(*await));
	int32_t *prev = calloc(t->info.nr_cpus, sizeof(*prev));

	if (!h || !await || !prev) {
		free(h);
		free(await);
		free(prev);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nr_ev; i++) {
		struct rev *e = &t->ev[i];
		size_t k;

		if (e->kind == EV_SWITCH) {
			await[e->cpu] = 1;
			prev[e->cpu] = e->a;
			continue;
		}
		if (e->kind == EV_TLB) {
			bool own = await[e->cpu] && e->a == 0 && e->pid == prev[e->cpu];

			await[e->cpu] = 0;
			if (own || e->a != 0)
				continue;
			/* Remember it under its task (a small table: pids that
			 * collide just lose the older candidate). */
			k = ((uint32_t)e->pid * 2654435761u) % size;
			h[k].pid = e->pid;
			h[k].ev = (uint32_t)i + 1;
			continue;
		}
		if (e->kind != EV_EXEC)
			continue;
		k = ((uint32_t)e->a * 2654435761u) % size;
		if (h[k].pid == e->a && h[k].ev) {
			t->ev[h[k].ev - 1].b = 1;
			h[k].ev = 0;
		}
	}
	free(h);
	free(await);
	free(prev);
	return 0;
}

/* CPUs idle when the trace begins: lazy on the mm their first user switch
 * did not reload, else on init_mm. Pre-existing mms flushed remotely first
 * start in every CPU's mask. */
void replay__finish_seeds(struct builder *b)
{
	struct replay_trace *t = b->t;
	uint8_t *done = calloc(t->info.nr_cpus, 1);

	for (size_t i = 0; i < t->nr_st && done; i++) {
		struct step *s = &t->st[i];

		if (done[s->cpu] || t->seed[s->cpu].mm >= 0) {
			done[s->cpu] = 1;
			continue;
		}
		if (s->kind == ST_SWITCH) {
			if (s->dec_first == REPLAY_NONE)
				t->seed[s->cpu] = (struct rseed){ .mm = s->mm, .lazy = 1 };
			done[s->cpu] = 1;
		}
	}
	free(done);
}

