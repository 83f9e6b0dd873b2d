// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/vsched.c - the virtual-time scheduler: runnable CPUs in a
 * binary heap by (clock, seeded tiebreak), switches between their
 * coroutines, and sleeping and waking in virtual time.
 */
#include <stdlib.h>

#include "../base/prandom.h"
#include "../core/this_cpu.h"
#include "virtual.h"

static uint64_t vt_rand(struct tlbgen_vt *vt)
{
	return tlbgen__prandom(&vt->rng);
}

/* ---- the run queue: a binary heap by (clock, tiebreak) ---------------------------- */

/*
 * The heap holds each runnable CPU's keys beside its number, so that a
 * sift compares within the heap's own lines and never reaches into the
 * CPUs' state (a struct tlbgen_vcpu is a dozen lines, a store buffer
 * among them); heap_pos[] is apart for the same reason. (clock, tiebreak,
 * cpu) is a strict order: the earliest CPU is one and the same whatever
 * the heap's shape, so that shape is free to differ between two ways of
 * reaching the same set.
 */
static bool ent_before(const struct tlbgen_vt_heap_ent *x, const struct tlbgen_vt_heap_ent *y)
{
	if (x->clock != y->clock)
		return x->clock < y->clock;
	if (x->tiebreak != y->tiebreak)
		return x->tiebreak < y->tiebreak;
	return x->cpu < y->cpu;
}

static struct tlbgen_vt_heap_ent ent_of(const struct tlbgen_vt *vt, unsigned int cpu)
{
	return (struct tlbgen_vt_heap_ent){ vt->v[cpu].clock, vt->v[cpu].tiebreak, cpu };
}

static void heap_place(struct tlbgen_vt *vt, unsigned int pos, struct tlbgen_vt_heap_ent e)
{
	vt->heap[pos] = e;
	vt->heap_pos[e.cpu] = pos;
}

static void heap_up(struct tlbgen_vt *vt, unsigned int pos)
{
	struct tlbgen_vt_heap_ent e = vt->heap[pos];

	while (pos) {
		unsigned int parent = (pos - 1) / 2;

		if (!ent_before(&e, &vt->heap[parent]))
			break;
		heap_place(vt, pos, vt->heap[parent]);
		pos = parent;
	}
	heap_place(vt, pos, e);
}

/* Put `e` at `pos` and sift it down. */
static void heap_down_with(struct tlbgen_vt *vt, unsigned int pos, struct tlbgen_vt_heap_ent e)
{
	for (;;) {
		unsigned int l = 2 * pos + 1, best = l;

		if (l >= vt->nr_heap)
			break;
		if (l + 1 < vt->nr_heap && ent_before(&vt->heap[l + 1], &vt->heap[l]))
			best = l + 1;
		if (!ent_before(&vt->heap[best], &e))
			break;
		heap_place(vt, pos, vt->heap[best]);
		pos = best;
	}
	heap_place(vt, pos, e);
}

void tlbgen__vt_push(struct tlbgen_vt *vt, unsigned int cpu)
{
	vt->v[cpu].tiebreak = vt_rand(vt);
	vt->v[cpu].state = VCPU_RUNNABLE;
	heap_place(vt, vt->nr_heap++, ent_of(vt, cpu));
	heap_up(vt, vt->nr_heap - 1);
}

/* Take `cpu` out of the heap wherever it is. */
static void heap_remove(struct tlbgen_vt *vt, unsigned int cpu)
{
	unsigned int pos = vt->heap_pos[cpu];
	struct tlbgen_vt_heap_ent last = vt->heap[--vt->nr_heap];

	if (pos == vt->nr_heap)
		return;
	heap_down_with(vt, pos, last);
	heap_up(vt, vt->heap_pos[last.cpu]);
}

unsigned int tlbgen__vt_pop(struct tlbgen_vt *vt)
{
	unsigned int top = vt->heap[0].cpu;

	if (--vt->nr_heap)
		heap_down_with(vt, 0, vt->heap[vt->nr_heap]);
	return top;
}

/* A CPU's clock moved back while it waits in the heap (tlbgen__vt_wake()). */
static void heap_earlier(struct tlbgen_vt *vt, unsigned int cpu)
{
	unsigned int pos = vt->heap_pos[cpu];

	vt->heap[pos].clock = vt->v[cpu].clock;
	heap_up(vt, pos);
}

/* ---- switching ------------------------------------------------------------------------ */

static struct tlbgen_coro *coro_of(struct tlbgen_vt *vt, unsigned int cpu)
{
	return cpu < vt->sys->nr_cpus ? &vt->v[cpu].coro : &vt->host;
}

/* Leave `from` (a CPU, or the host) for `to` (a CPU, or the host). */
void tlbgen__vt_switch(struct tlbgen_vt *vt, unsigned int from, unsigned int to)
{
	struct tlbgen_vcpu *t = to < vt->sys->nr_cpus ? &vt->v[to] : NULL;

	if (t && !t->started) {
		/* A CPU's coroutine is made the first time it runs: 8192 idle
		 * CPUs cost no stacks until an IPI reaches them. */
		if (tlbgen__coro_init(&t->coro, vt->stack_size, vt->cpu_main, t))
			abort();	/* an mmap of a stack failed mid-run: nothing sane to return to */
		t->started = true;
	}
	if (t)
		t->state = VCPU_RUNNING;
	vt->current = to;
	tlbgen__tls.cpu = t ? (int)to : -1;
	vt->stats.switches++;
	tlbgen__coro_switch(coro_of(vt, from), coro_of(vt, to));
}

/* ---- scheduling by a chooser (tlbgen_vtime__set_chooser()) --------------------------- */

static bool in_heap(const struct tlbgen_vt *vt, unsigned int cpu)
{
	unsigned int pos = vt->heap_pos[cpu];

	return pos < vt->nr_heap && vt->heap[pos].cpu == cpu;
}

/*
 * Ask the chooser what happens next at `cur`'s scheduling point (`cur` is
 * nr_cpus for the host, or `cur_runs` false when it sleeps): drains are
 * done here, the CPU to run is returned (nr_cpus: none is runnable), out of
 * the heap, with `cur` put in it when it could have gone on.
 */
static unsigned int vt_choose(struct tlbgen_vt *vt, unsigned int cur, bool cur_runs)
{
	unsigned int nr = vt->sys->nr_cpus, n, pick;
	struct tlbgen_vt_option *o = vt->opts;

	for (;;) {
		n = 0;
		if (cur_runs)
			o[n++] = (struct tlbgen_vt_option){ TLBGEN_VT_RUN, cur };
		else if (vt->nr_heap)
			o[n++] = (struct tlbgen_vt_option){ TLBGEN_VT_RUN, vt->heap[0].cpu };
		for (unsigned int i = 0; i < nr; i++)
			if (in_heap(vt, i) && i != o[0].cpu)
				o[n++] = (struct tlbgen_vt_option){ TLBGEN_VT_RUN, i };
		if (!n) {
			/* Nothing can run: time passes, every buffer drains. */
			bool drained = false;

			for (unsigned int i = 0; i < nr; i++)
				if (vt->v[i].sb_len) {
					tlbgen__vt_sb_drain(vt, i, "the system went idle");
					drained = true;
				}
			/* A csd_unlock() that reached memory woke its waiter. */
			if (drained && vt->nr_heap)
				continue;
			return nr;
		}
		for (unsigned int i = 0; i < nr; i++)
			if (vt->v[i].sb_len)
				o[n++] = (struct tlbgen_vt_option){ TLBGEN_VT_DRAIN, i };
		pick = vt->chooser.choose(vt->chooser.ctx, cur, o, n);
		if (pick >= n)
			pick = 0;
		if (o[pick].kind == TLBGEN_VT_DRAIN) {
			tlbgen__vt_sb_drain_one(vt, o[pick].cpu, "chosen");
			continue;
		}
		pick = o[pick].cpu;
		if (pick == cur && cur_runs)
			return cur;
		heap_remove(vt, pick);
		if (cur_runs)
			tlbgen__vt_push(vt, cur);
		return pick;
	}
}

unsigned int tlbgen__vt_first(struct tlbgen_vt *vt)
{
	return vt->chooser.choose ? vt_choose(vt, vt->sys->nr_cpus, false) : tlbgen__vt_pop(vt);
}

/* The running CPU passes a scheduling point at its clock. */
void tlbgen__vt_sched(struct tlbgen_vt *vt, unsigned int cpu)
{
	struct tlbgen_vt_heap_ent me;
	unsigned int next;

	vt->stats.sched_points++;
	vt->v[cpu].tiebreak = vt_rand(vt);
	if (vt->chooser.choose) {
		next = vt_choose(vt, cpu, true);
		if (next != cpu)
			tlbgen__vt_switch(vt, cpu, next);
		vt->v[cpu].state = VCPU_RUNNING;
		return;
	}
	me = ent_of(vt, cpu);
	if (!vt->nr_heap || ent_before(&me, &vt->heap[0]))
		return;
	/*
	 * What a push and a pop would do, in one sift: the push draws a new
	 * tiebreak, so the CPU may still come out first; else the earliest
	 * leaves the heap and this CPU takes its place.
	 */
	vt->v[cpu].tiebreak = me.tiebreak = vt_rand(vt);
	if (ent_before(&me, &vt->heap[0]))
		return;
	next = vt->heap[0].cpu;
	vt->v[cpu].state = VCPU_RUNNABLE;
	heap_down_with(vt, 0, me);
	tlbgen__vt_switch(vt, cpu, next);
	vt->v[cpu].state = VCPU_RUNNING;
}

/*
 * The running CPU sleeps until virtual time `until` (VT_NEVER: until woken),
 * or until vt_wake() wakes it earlier. Returns at the time it was resumed.
 */
void tlbgen__vt_sleep(struct tlbgen_vt *vt, unsigned int cpu, uint64_t until,
		      enum tlbgen_vt_time kind)
{
	struct tlbgen_vcpu *me = &vt->v[cpu];
	unsigned int next;

	vt->stats.sched_points++;
	/* While it sleeps its stores commit; under a chooser, other CPUs may
	 * run first, after its last loads and before the commits (a lazy
	 * return's tlb_gen load has no CR3 write after it). Only in a timed
	 * sleep (work), which an IPI sent meanwhile shortens: a wake before
	 * the CPU sleeps would be lost on a csd wait or the idle loop. */
	if (me->sb_len && vt->chooser.choose && !me->waiting && until != VT_NEVER) {
		tlbgen__vt_sched(vt, cpu);
		if (me->ipi_at < until)
			until = me->ipi_at > me->clock ? me->ipi_at : me->clock;
	}
	if (me->sb_len)
		tlbgen__vt_sb_drain(vt, cpu, "the CPU sleeps");
	me->sleep_from = me->clock;
	me->sleep_kind = kind;
	me->sleeping = true;
	if (until != VT_NEVER) {
		/* Charged now, so that a run that ends while it sleeps still
		 * sums to the clock; an earlier wake gives the rest back. */
		if (me->clock < until)
			tlbgen__vt_charge(vt, me, kind, until - me->clock);
		tlbgen__vt_push(vt, cpu);
		next = vt->chooser.choose ? vt_choose(vt, cpu, false) : tlbgen__vt_pop(vt);
	} else {
		me->state = VCPU_BLOCKED;
		if (vt->chooser.choose)
			next = vt_choose(vt, cpu, false);
		else
			next = vt->nr_heap ? tlbgen__vt_pop(vt) : vt->sys->nr_cpus;
	}
	if (next != cpu)
		tlbgen__vt_switch(vt, cpu, next);
	me->sleeping = false;
	me->state = VCPU_RUNNING;
}

/* Wake a sleeping CPU at time t (never before it went to sleep). */
void tlbgen__vt_wake(struct tlbgen_vt *vt, unsigned int cpu, uint64_t t)
{
	struct tlbgen_vcpu *v = &vt->v[cpu];

	if (v->state == VCPU_UNBORN) {
		/* A CPU that never ran idles from time 0. */
		vt->stats.time[TLBGEN_VT_TIME_IDLE] += t - v->clock;
		v->clock = t;
		v->sleep_from = 0;
		v->sleep_kind = TLBGEN_VT_TIME_IDLE;
		v->sleeping = true;
		tlbgen__vt_push(vt, cpu);
		return;
	}
	if (!v->sleeping)
		return;
	if (t < v->sleep_from)
		t = v->sleep_from;
	if (v->state == VCPU_BLOCKED) {
		tlbgen__vt_charge(vt, v, v->sleep_kind, t - v->clock);
		tlbgen__vt_push(vt, cpu);
	} else if (v->state == VCPU_RUNNABLE && t < v->clock) {
		vt->stats.time[v->sleep_kind] -= v->clock - t;
		v->clock = t;
		heap_earlier(vt, cpu);
	}
}

/* A buffered csd_unlock() reached memory: the initiator's csd_lock_wait()
 * sees it, as vt_csd_unlocked() makes it see an unbuffered one. */
void tlbgen__vt_csd_committed(struct tlbgen_vt *vt, unsigned int src, uint64_t t)
{
	if (vt->v[src].waiting)
		tlbgen__vt_wake(vt, src, t);
}
