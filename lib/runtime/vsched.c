// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/vsched.c - the virtual-time scheduler: runnable CPUs in a
 * binary heap by (clock, seeded tiebreak), switches between their
 * coroutines, and sleeping and waking in virtual time.
 */
#include <stdlib.h>

#include "../core/this_cpu.h"
#include "virtual.h"

static uint64_t vt_rand(struct tlbgen_vt *vt)
{
	uint64_t x = vt->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	vt->rng = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* ---- the run queue: a binary heap by (clock, tiebreak) ---------------------------- */

static bool before(const struct tlbgen_vt *vt, unsigned int a, unsigned int b)
{
	const struct tlbgen_vcpu *x = &vt->v[a], *y = &vt->v[b];

	if (x->clock != y->clock)
		return x->clock < y->clock;
	if (x->tiebreak != y->tiebreak)
		return x->tiebreak < y->tiebreak;
	return a < b;
}

static void heap_place(struct tlbgen_vt *vt, unsigned int pos, unsigned int cpu)
{
	vt->heap[pos] = cpu;
	vt->v[cpu].heap_pos = pos;
}

static void heap_up(struct tlbgen_vt *vt, unsigned int pos)
{
	unsigned int cpu = vt->heap[pos];

	while (pos) {
		unsigned int parent = (pos - 1) / 2;

		if (!before(vt, cpu, vt->heap[parent]))
			break;
		heap_place(vt, pos, vt->heap[parent]);
		pos = parent;
	}
	heap_place(vt, pos, cpu);
}

static void heap_down(struct tlbgen_vt *vt, unsigned int pos)
{
	unsigned int cpu = vt->heap[pos];

	for (;;) {
		unsigned int l = 2 * pos + 1, best = pos, bcpu = cpu;

		if (l < vt->nr_heap && before(vt, vt->heap[l], bcpu))
			best = l, bcpu = vt->heap[l];
		if (l + 1 < vt->nr_heap && before(vt, vt->heap[l + 1], bcpu))
			best = l + 1, bcpu = vt->heap[l + 1];
		if (best == pos)
			break;
		heap_place(vt, pos, bcpu);
		pos = best;
	}
	heap_place(vt, pos, cpu);
}

void tlbgen__vt_push(struct tlbgen_vt *vt, unsigned int cpu)
{
	vt->v[cpu].tiebreak = vt_rand(vt);
	vt->v[cpu].state = VCPU_RUNNABLE;
	heap_place(vt, vt->nr_heap++, cpu);
	heap_up(vt, vt->nr_heap - 1);
}

unsigned int tlbgen__vt_pop(struct tlbgen_vt *vt)
{
	unsigned int top = vt->heap[0];

	if (--vt->nr_heap) {
		heap_place(vt, 0, vt->heap[vt->nr_heap]);
		heap_down(vt, 0);
	}
	return top;
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

/* The running CPU passes a scheduling point at its clock. */
void tlbgen__vt_sched(struct tlbgen_vt *vt, unsigned int cpu)
{
	unsigned int next;

	vt->stats.sched_points++;
	vt->v[cpu].tiebreak = vt_rand(vt);
	if (!vt->nr_heap || before(vt, cpu, vt->heap[0]))
		return;
	/* Pushing draws a new tiebreak, so the CPU may still come out first. */
	tlbgen__vt_push(vt, cpu);
	next = tlbgen__vt_pop(vt);
	if (next != cpu)
		tlbgen__vt_switch(vt, cpu, next);
	vt->v[cpu].state = VCPU_RUNNING;
}

/*
 * The running CPU sleeps until virtual time `until` (VT_NEVER: until woken),
 * or until vt_wake() wakes it earlier. Returns at the time it was resumed.
 */
void tlbgen__vt_sleep(struct tlbgen_vt *vt, unsigned int cpu, uint64_t until)
{
	struct tlbgen_vcpu *me = &vt->v[cpu];
	unsigned int next;

	vt->stats.sched_points++;
	me->sleep_from = me->clock;
	me->sleeping = true;
	if (until != VT_NEVER) {
		if (me->clock < until)
			me->clock = until;
		tlbgen__vt_push(vt, cpu);
		next = tlbgen__vt_pop(vt);
	} else {
		me->state = VCPU_BLOCKED;
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
		v->clock = t;
		v->sleep_from = 0;
		v->sleeping = true;
		tlbgen__vt_push(vt, cpu);
		return;
	}
	if (!v->sleeping)
		return;
	if (t < v->sleep_from)
		t = v->sleep_from;
	if (v->state == VCPU_BLOCKED) {
		v->clock = t;
		tlbgen__vt_push(vt, cpu);
	} else if (v->state == VCPU_RUNNABLE && t < v->clock) {
		v->clock = t;
		heap_up(vt, v->heap_pos);
	}
}

