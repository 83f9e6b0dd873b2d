// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay-build.c - rebuild the recorded run from its events: tasks
 * and their address spaces, each CPU's operations in order, and which
 * recorded tlb_flush event each operation caused.
 *
 * Kernel order this follows (v6.18):
 *  - context_switch(): sched_switch, then switch_mm_irqs_off() (its
 *    tlb_flush reason 0 comes next on the CPU, traced while prev is still
 *    current) or enter_lazy_tlb() for a kernel thread or idle (nothing);
 *  - copy_process(): task_newtask with the clone flags (CLONE_VM shares the
 *    mm, CLONE_THREAD the thread group; otherwise dup_mm() or, for a kernel
 *    thread's child, none);
 *  - exec: exec_mmap() switches to the new mm (reason 0) and mmput()s the
 *    old one (its exit_mmap() flushes) before sched_process_exec;
 *  - exit: sched_process_exit, then exit_mm() (enter_lazy_tlb() on the mm)
 *    and, for its last user, exit_mmap(): flushes of the mm while the CPU
 *    is lazy on it (reason 4 and a local reason 0 or 5; without other CPUs
 *    in mm_cpumask a lone reason 0), then the mmap:exit_mmap event;
 *  - a flush request: native_flush_tlb_multi() traces reason 4 and runs the
 *    initiator's flush_tlb_func() as a local csd call (csd_function_entry
 *    with csd NULL) whose decision comes next; a local-only one is a lone
 *    reason 3 (2 without an mm).
 *  - switches no sched_switch announces: use_temporary_mm() for text_poke()
 *    (and kthread_use_mm()) and its way back, idle's leave_mm().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay-tasks.h"

static int hidden_switch(struct builder *b, const struct rev *e, uint32_t ev, struct task *k)
{
	struct cpust *c = &b->cs[e->cpu];
	int64_t s;

	c->cur = k->pid;
	b->t->info.hidden_switches++;
	if (k->mm < 0) {
		s = replay__add_step(b, e, ev, ST_LAZY, -1, 0);
	} else {
		s = replay__add_step(b, e, ev, ST_SWITCH, k->mm, 0);
		c->loaded = k->mm;
	}
	if (s < 0)
		return -ENOMEM;
	b->t->st[s].unrecorded = 1;
	return 0;
}

static int on_switch(struct builder *b, const struct rev *e, uint32_t ev)
{
	struct cpust *c = &b->cs[e->cpu];
	struct task *prev = replay__task(b, e->a, e->d & 2), *next = replay__task(b, e->b, e->d & 1);
	int64_t s;

	if (!prev || !next)
		return -ENOMEM;
	if (c->cur >= 0 && c->cur != e->a && hidden_switch(b, e, ev, prev))
		return -ENOMEM;
	c->await_switch = c->req = c->remote_req = REPLAY_NONE;
	c->in_local = 0;
	if (!c->started) {
		c->started = 1;
		if (prev->mm >= 0) {
			b->t->seed[e->cpu] = (struct rseed){ .mm = prev->mm, .lazy = 0 };
			c->loaded = prev->mm;
		}
	}
	c->cur = e->b;
	if (next->mm < 0) {
		/* A kernel thread, idle, or a task past exit_mm(). */
		return replay__add_step(b, e, ev, ST_LAZY, -1, 0) < 0 ? -ENOMEM : 0;
	}
	s = replay__add_step(b, e, ev, ST_SWITCH, next->mm, 0);
	if (s < 0)
		return -ENOMEM;
	c->await_switch = (uint32_t)s;
	c->await_prev = e->a;
	c->loaded = next->mm;
	return 0;
}

/* A reason 0 that no sched_switch explains. */
static int unannounced_switch(struct builder *b, const struct rev *e, uint32_t ev)
{
	struct cpust *c = &b->cs[e->cpu];
	struct task *k = replay__task(b, e->pid, false);
	int64_t s;
	int32_t mm;

	if (!k)
		return -ENOMEM;
	if (e->b == 1) {
		/* exec_mmap(): the new mm. */
		int nm = replay__new_mm(b, k->tgid, false);

		if (nm < 0)
			return -ENOMEM;
		replay__put_mm(b, k, k->mm);
		k->mm = nm;
		k->kthread = 0;
		b->users[nm]++;
		s = replay__add_step(b, e, ev, ST_SWITCH, nm, 0);
		c->loaded = nm;
	} else if (k->mm < 0 && (k->oldmm >= 0 || k->dead_mm >= 0) && !k->kthread) {
		/* exit_mmap() flushing alone on a CPU lazy on the mm: its
		 * flush_tlb_func() switches to init_mm. */
		mm = k->dead_mm >= 0 ? k->dead_mm : k->oldmm;
		s = replay__add_step(b, e, ev, ST_FLUSH, mm, -1);
		if (s >= 0)
			b->t->st[s].freed = 1;
		c->loaded = -1;
	} else if (c->temp_saved != -2) {
		/* unuse_temporary_mm(): back to what ran before. */
		s = replay__add_step(b, e, ev, c->temp_saved >= 0 ? ST_SWITCH : ST_LEAVE, c->temp_saved, 0);
		c->loaded = c->temp_saved;
		c->temp_saved = -2;
	} else if (e->pid == 0) {
		s = replay__add_step(b, e, ev, ST_LEAVE, -1, 0);	/* idle: leave_mm() */
		c->loaded = -1;
	} else {
		/* use_temporary_mm() (text_poke()) or kthread_use_mm(). */
		if (b->poking < 0) {
			b->poking = replay__new_mm(b, -1, false);
			if (b->poking < 0)
				return -ENOMEM;
			b->t->mm[b->poking].poking = 1;
		}
		c->temp_saved = c->loaded >= 0 ? c->loaded : -1;
		s = replay__add_step(b, e, ev, ST_SWITCH, b->poking, 0);
		c->loaded = b->poking;
	}
	return s < 0 ? -ENOMEM : replay__attach(b, (uint32_t)s, e, ev);
}

/*
 * A local flush traced with 0 pages: nr_invalidate is the range in stride
 * units, and a range shorter than its stride is 0 of them. x86's
 * tlb_flush() takes the stride from what the gather cleared
 * (tlb_get_unmap_shift()): PAGE_SHIFT if any PTE, else PMD_SHIFT if a pmd.
 * free_pgtables() freeing a PTE table starts pte_free_tlb() with
 * tlb_flush_pmd_range() over one page (cleared_pmds) and sets
 * freed_tables; a gather that cleared no PTE besides is PMD_SHIFT-strided,
 * while the reason 4 before it counts PAGE_SHIFT pages. The stride that
 * makes `pages` pages 0 strides: PMD_SHIFT, or PUD_SHIFT past 2 MiB. With
 * freed_tables, native_flush_tlb_multi() calls every CPU in the mask,
 * lazy ones too (on_each_cpu_mask(), not should_flush_tlb()). A local
 * flush that found its generation done returns before any trace, so 0
 * strides is the only way a reason 3 traces 0.
 */
static uint8_t zero_strides(long pages)
{
	return pages < 512 ? 21 : 30;
}

static int on_tlb(struct builder *b, const struct rev *e, uint32_t ev)
{
	struct cpust *c = &b->cs[e->cpu];
	struct task *k;
	int64_t s;
	int32_t mm;

	if (!c->started) {
		/* A task that runs when the trace begins, its mm loaded. */
		c->started = 1;
		k = replay__task(b, e->pid, false);
		if (!k)
			return -ENOMEM;
		if (k->mm >= 0) {
			b->t->seed[e->cpu] = (struct rseed){ .mm = k->mm, .lazy = 0 };
			c->loaded = k->mm;
		}
	}
	if (c->await_switch != REPLAY_NONE) {
		uint32_t sw = c->await_switch;

		c->await_switch = REPLAY_NONE;
		if (e->a == 0 && e->pid == c->await_prev)
			return replay__attach(b, sw, e, ev);
	}
	if (c->req != REPLAY_NONE) {
		uint32_t rq = c->req;
		struct step *q = &b->t->st[rq];
		bool local = b->have_csd ? c->in_local :
			     e->a == 0 || e->a == 5 || e->a == 2 ||
			     (e->a == 3 && (e->c == q->pages || e->c == -1 || e->c == 0));

		c->req = REPLAY_NONE;
		c->in_local = 0;
		if (local) {
			/* The local flush_tlb_func() found the CPU lazy or on
			 * another mm: only a freed-tables flush runs it there. */
			if (e->a == 0 || e->a == 5)
				q->freed = 1;
			/* No mm: arch_tlbbatch_flush() of a batched unmap. */
			if (e->a == 2)
				q->batch = 1;
			/* Fewer strides than pages: a huge-page range
			 * (nr_invalidate is in stride units). */
			if (e->a == 3 && e->c == 0 && q->pages > 0) {
				q->stride = zero_strides(q->pages);
				q->freed = 1;
			}
			if (e->a == 3 && e->c > 0 && q->pages > e->c) {
				long ratio = q->pages / (long)e->c;

				while (ratio > 1 && q->stride < 30) {
					ratio >>= 1;
					q->stride++;
				}
			}
			if (e->a == 0)
				c->loaded = -1;
			return replay__attach(b, rq, e, ev);
		}
	}
	if (c->remote_req != REPLAY_NONE && (e->a == 1 || e->a == 0 || e->a == 5)) {
		uint32_t rq = c->remote_req;

		c->remote_req = REPLAY_NONE;
		if (e->a == 0)
			c->loaded = -1;
		/* should_flush_tlb() refuses a lazy target (0) and one that
		 * runs another mm (5), except for the mm's once-a-second
		 * cpumask trim (5); a flush that freed page tables bypasses it
		 * (on_each_cpu_mask() calls every CPU in the mask). Rebuilt
		 * with freed_tables, the model calls that CPU either way. */
		if (e->a == 0 || e->a == 5)
			b->t->st[rq].freed = 1;
		return replay__attach(b, rq, e, ev);
	}
	if (e->a == 0)
		return unannounced_switch(b, e, ev);
	k = replay__task(b, e->pid, false);
	if (!k)
		return -ENOMEM;
	if (c->cur >= 0 && c->cur != e->pid && e->pid && hidden_switch(b, e, ev, k))
		return -ENOMEM;
	mm = replay__flush_mm(b, k, c, (int)e->a);
	if ((e->a == 4 || e->a == 3 || e->a == 2) && mm >= 0) {
		long pages = e->c == 0 ? 1 : (long)e->c;

		s = replay__add_step(b, e, ev, ST_FLUSH, mm, pages);
		if (s < 0)
			return -ENOMEM;
		/* A lone reason 2: a batch flushed on its only CPU. */
		b->t->st[s].batch = e->a == 2;
		if (e->a == 3 && e->c == 0) {
			b->t->st[s].stride = zero_strides(1);
			b->t->st[s].freed = 1;
		}
		if (e->a == 4) {
			c->req = (uint32_t)s;
			b->t->st[s].csd_known = b->have_csd && b->t->info.nr_cpus <= 64;
			if (!b->t->mm[mm].first_remote && b->t->mm[mm].preexisting)
				b->t->mm[mm].first_remote = 2;	/* 2: reason 4 came first */
		} else if (!b->t->mm[mm].first_remote) {
			b->t->mm[mm].first_remote = 1;
		}
		return replay__attach(b, (uint32_t)s, e, ev);
	}
	/* A remote decision without its csd, a request of no known mm:
	 * recorded, not replayed. */
	s = replay__add_step(b, e, ev, ST_ORPHAN, -1, 0);
	return s < 0 ? -ENOMEM : replay__attach(b, (uint32_t)s, e, ev);
}

static int on_newtask(struct builder *b, const struct rev *e)
{
	struct task *parent = replay__task(b, e->pid, false), *child;
	uint64_t flags = (uint64_t)e->c;
	int32_t mm = -1, tgid = e->a;

	if (!parent)
		return -ENOMEM;
	if (*replay__slot(b, e->a)) {
		/* A pid reused: the old task is gone; keep it out of the way. */
		b->tasks[*replay__slot(b, e->a) - 1].pid = INT32_MIN + (int32_t)b->nr_tasks;
		if (replay__rehash(b))
			return -ENOMEM;
	}
	if (flags & CLONE_THREAD)
		tgid = parent->tgid;
	if (flags & CLONE_VM)
		mm = parent->mm;
	else if (parent->mm >= 0 && (mm = replay__new_mm(b, tgid, false)) < 0)
		return -ENOMEM;
	child = replay__add_task(b, e->a, tgid, mm, parent->kthread && mm < 0);
	return child ? 0 : -ENOMEM;
}

static int on_task_exit(struct builder *b, const struct rev *e, uint32_t ev)
{
	struct task *k = replay__task(b, e->a, false);

	if (!k)
		return -ENOMEM;
	if (k->mm < 0)
		return 0;
	/* exit_mm(): enter_lazy_tlb() on the mm, then mmput(). */
	k->oldmm = k->mm;
	k->mm = -1;
	replay__put_mm(b, k, k->oldmm);
	return replay__add_step(b, e, ev, ST_LAZY, -1, 0) < 0 ? -ENOMEM : 0;
}

static int on_exit_mmap(struct builder *b, const struct rev *e, uint32_t ev)
{
	struct task *k = replay__task(b, e->pid, false);
	int32_t mm;

	if (!k || k->dead_mm < 0)
		return k ? 0 : -ENOMEM;
	mm = k->dead_mm;
	k->dead_mm = -1;
	return replay__add_step(b, e, ev, ST_MM_DEAD, mm, 0) < 0 ? -ENOMEM : 0;
}

static uint32_t *csd_slot(struct builder *b, uint64_t csd)
{
	size_t h = (csd >> 5) & 1023;

	b->csd_key[h] = csd;
	return &b->csd_val[h];
}

static void on_csd(struct builder *b, const struct rev *e)
{
	struct cpust *c = &b->cs[e->cpu];

	switch (e->kind) {
	case EV_CSD_ENTRY:
		if (!e->c && c->req != REPLAY_NONE)
			c->in_local = 1;
		else if (e->c && b->csd_key[(e->c >> 5) & 1023] == (uint64_t)e->c)
			c->remote_req = b->csd_val[(e->c >> 5) & 1023];
		break;
	case EV_CSD_EXIT:
		if (!e->c && c->in_local) {
			c->in_local = 0;
			c->req = REPLAY_NONE;
		}
		break;
	case EV_CSD_QUEUE:
		if (c->req != REPLAY_NONE) {
			*csd_slot(b, (uint64_t)e->c) = c->req;
			if (e->a >= 0 && e->a < 64)
				b->t->st[c->req].csd_mask |= 1ull << e->a;
		}
		break;
	}
}

/*
 * Exec's reload precedes sched_process_exec, and the task may be switched
 * out and back (even to another CPU) between the two: the exec'ing task's
 * latest reload that no sched_switch explains is its exec_mmap() (ev.b = 1).
 */
int replay__build(struct replay_trace *t, char *err, size_t errlen)
{
	struct builder b = { .t = t, .poking = -1 };
	int ret = -ENOMEM;

	b.cs = calloc(t->info.nr_cpus, sizeof(*b.cs));
	t->seed = calloc(t->info.nr_cpus, sizeof(*t->seed));
	b.csd_key = calloc(1024, sizeof(*b.csd_key));
	b.csd_val = calloc(1024, sizeof(*b.csd_val));
	if (!b.cs || !t->seed || !b.csd_key || !b.csd_val || replay__rehash(&b))
		goto out;
	for (unsigned int c = 0; c < t->info.nr_cpus; c++) {
		b.cs[c] = (struct cpust){ .loaded = -2, .await_switch = REPLAY_NONE,
					  .req = REPLAY_NONE, .remote_req = REPLAY_NONE,
					  .temp_saved = -2, .cur = -1 };
		t->seed[c] = (struct rseed){ .mm = -1 };
	}
	if (replay__mark_exec_switches(t))
		goto out;
	for (size_t i = 0; i < t->nr_ev; i++)
		if (t->ev[i].kind == EV_CSD_ENTRY && !t->ev[i].c) {
			b.have_csd = true;
			break;
		}
	for (size_t i = 0; i < t->nr_ev; i++) {
		const struct rev *e = &t->ev[i];
		uint32_t ev = (uint32_t)i;

		if (e->cpu >= t->info.nr_cpus) {
			snprintf(err, errlen, "event %zu on CPU %u of %u", i, e->cpu, t->info.nr_cpus);
			ret = -EINVAL;
			goto out;
		}
		switch (e->kind) {
		case EV_SWITCH: ret = on_switch(&b, e, ev); break;
		case EV_TLB: ret = on_tlb(&b, e, ev); break;
		case EV_NEWTASK: ret = on_newtask(&b, e); break;
		case EV_EXIT: ret = on_task_exit(&b, e, ev); break;
		case EV_EXIT_MMAP: ret = on_exit_mmap(&b, e, ev); break;
		case EV_EXEC: ret = 0; break;
		default: on_csd(&b, e); ret = 0; break;
		}
		if (ret) {
			snprintf(err, errlen, "out of memory rebuilding the run");
			goto out;
		}
	}
	replay__finish_seeds(&b);
	t->info.steps = t->nr_st;
	t->info.decisions = t->nr_dec;
	if (!b.have_csd)
		snprintf(t->info.warnings + strlen(t->info.warnings),
			 sizeof(t->info.warnings) - strlen(t->info.warnings),
			 "no csd events: a flush's local decision is told from the next request by "
			 "its reason and pages (record csd:* for certainty)\n");
	ret = 0;
out:
	free(b.cs);
	free(b.tasks);
	free(b.hash);
	free(b.users);
	free(b.csd_key);
	free(b.csd_val);
	return ret;
}
