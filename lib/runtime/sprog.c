// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/sprog.c - programs on a stepped system: each CPU's program
 * (tlbgen_cpu__spawn()) is a coroutine on the host thread, and
 * tlbgen_stepped__run() interleaves them with IPI deliveries by the
 * system's seeded scheduler. A program runs whole kernel functions: it
 * yields only where the kernel would let another CPU in - at the top of
 * its loop (tlbgen_cpu__should_stop()), in csd_lock_wait() until its
 * targets have answered, and while it sleeps (the workload layer's locks).
 */
#include <errno.h>
#include <stdlib.h>

#include "../base/coro.h"
#include "../core/check.h"
#include "../core/this_cpu.h"
#include "runtime.h"
#include "sprog.h"

#define SPROG_STACK	(256 * 1024)

enum sp_state { SP_NONE = 0, SP_READY, SP_WAITING, SP_BLOCKED, SP_DONE };

struct sp_cpu {
	struct tlbgen_coro coro;
	tlbgen_cpu_fn fn;
	void *arg;
	int ret;
	enum sp_state state;
	bool started;
	atomic_bool *cond;		/* SP_BLOCKED: runnable again once true */
};

struct sp {
	struct tlbgen_coro host;
	struct sp_cpu *p;
	unsigned int current;		/* nr_cpus: the host */
	bool stop;			/* the budget is spent: programs wind down */
};

static struct sp *sp_of(const struct tlbgen_system *sys)
{
	return sys->mode == TLBGEN_MODE_STEPPED ? sys->rt : NULL;
}

static struct sp *sp_get(struct tlbgen_system *sys)
{
	struct sp *sp = sys->rt;

	if (sp)
		return sp;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return NULL;
	sp->p = calloc(sys->nr_cpus, sizeof(*sp->p));
	if (!sp->p) {
		free(sp);
		return NULL;
	}
	sp->current = sys->nr_cpus;
	tlbgen__coro_init_thread(&sp->host);
	sys->rt = sp;
	return sp;
}

void tlbgen__sprog_free(struct tlbgen_system *sys)
{
	struct sp *sp = sys->rt;

	if (!sp)
		return;
	for (unsigned int c = 0; c < sys->nr_cpus; c++)
		if (sp->p[c].started)
			tlbgen__coro_free(&sp->p[c].coro);
	free(sp->p);
	free(sp);
	sys->rt = NULL;
}

static void sp_main(void *arg)
{
	struct tlbgen_system *sys = ((void **)arg)[0];
	unsigned int cpu = (unsigned int)(uintptr_t)((void **)arg)[1];
	struct sp *sp = sys->rt;
	struct sp_cpu *p = &sp->p[cpu];

	free(arg);
	p->ret = p->fn(sys, cpu, p->arg);
	p->state = SP_DONE;
	sp->current = sys->nr_cpus;
	tlbgen__coro_switch(&p->coro, &sp->host);
	__builtin_unreachable();
}

/* From a program: back to the scheduler until it resumes this one. */
static void sp_yield(struct tlbgen_system *sys, struct sp *sp, unsigned int cpu)
{
	sp->current = sys->nr_cpus;
	tlbgen__coro_switch(&sp->p[cpu].coro, &sp->host);
}

/* Is `cpu` the running program (and not the host)? */
bool tlbgen__sprog_running(const struct tlbgen_system *sys, unsigned int cpu)
{
	const struct sp *sp = sp_of(sys);

	return sp && sp->current == cpu;
}

/* stepped_wait() from a program: yield until the last target answered. */
void tlbgen__sprog_wait(struct tlbgen_system *sys, unsigned int cpu)
{
	struct sp *sp = sys->rt;

	sp->p[cpu].state = SP_WAITING;
	while (tlbgen__cpu(sys, cpu)->priv.waiting)
		sp_yield(sys, sp, cpu);
	sp->p[cpu].state = SP_READY;
}

int tlbgen__stepped_block(struct tlbgen_system *sys, unsigned int cpu, atomic_bool *cond)
{
	struct sp *sp = sp_of(sys);

	if (!sp || sp->current != cpu)
		return -EPERM;
	sp->p[cpu].cond = cond;
	sp->p[cpu].state = SP_BLOCKED;
	while (!atomic_load(cond) && !sp->stop)
		sp_yield(sys, sp, cpu);
	sp->p[cpu].state = SP_READY;
	sp->p[cpu].cond = NULL;
	return atomic_load(cond) ? 0 : 1;
}

int tlbgen__stepped_wake(struct tlbgen_system *sys, unsigned int cpu, unsigned int target)
{
	(void)sys;
	(void)cpu;
	(void)target;
	return 0;	/* the sleeper's condition is set: the scheduler sees it */
}

int tlbgen__sprog_spawn(struct tlbgen_system *sys, unsigned int cpu, tlbgen_cpu_fn fn, void *arg)
{
	struct sp *sp = sp_get(sys);
	struct sp_cpu *p;

	if (!sp)
		return -ENOMEM;
	if (!fn)
		return -EINVAL;
	p = &sp->p[cpu];
	if (p->state != SP_NONE && p->state != SP_DONE)
		return -EBUSY;
	if (p->started) {
		tlbgen__coro_free(&p->coro);
		p->started = false;
	}
	p->fn = fn;
	p->arg = arg;
	p->ret = 0;
	p->state = SP_READY;
	return 0;
}

int tlbgen__sprog_should_stop(struct tlbgen_system *sys, unsigned int cpu)
{
	struct sp *sp = sp_of(sys);

	if (!sp || sp->p[cpu].state == SP_NONE)
		return 0;
	/* The top of a program's loop: another CPU may run first. */
	if (sp->current == cpu)
		sp_yield(sys, sp, cpu);
	return sp->stop;
}

int tlbgen__sprog_join(struct tlbgen_system *sys, unsigned int cpu, int *ret)
{
	struct sp *sp = sp_of(sys);
	struct sp_cpu *p;

	if (!sp || sp->p[cpu].state == SP_NONE)
		return -ESRCH;
	if (sp->current < sys->nr_cpus)
		return -EDEADLK;
	p = &sp->p[cpu];
	if (p->state != SP_DONE)
		return -EBUSY;
	if (ret)
		*ret = p->ret;
	if (p->started)
		tlbgen__coro_free(&p->coro);
	p->started = false;
	p->state = SP_NONE;
	return 0;
}

/* Resume `cpu`'s program until it yields or returns. */
static int sp_resume(struct tlbgen_system *sys, struct sp *sp, unsigned int cpu)
{
	struct sp_cpu *p = &sp->p[cpu];

	if (!p->started) {
		void **boot = malloc(2 * sizeof(*boot));

		if (!boot)
			return -ENOMEM;
		boot[0] = sys;
		boot[1] = (void *)(uintptr_t)cpu;
		if (tlbgen__coro_init(&p->coro, SPROG_STACK, sp_main, boot)) {
			free(boot);
			return -ENOMEM;
		}
		p->started = true;
	}
	sp->current = cpu;
	tlbgen__coro_switch(&sp->host, &p->coro);
	return 0;
}

static bool sp_runnable(const struct tlbgen_system *sys, unsigned int cpu, const struct sp_cpu *p,
			bool stop)
{
	switch (p->state) {
	case SP_READY:
		return true;
	case SP_WAITING:	/* its last target has answered */
		return !tlbgen__cpu(sys, cpu)->priv.waiting;
	case SP_BLOCKED:
		return stop || atomic_load(p->cond);
	default:
		return false;
	}
}

int tlbgen__sprog_begin(struct tlbgen_system *sys)
{
	struct sp *sp = sp_of(sys);

	if (!sp)
		return 1;	/* no program was spawned */
	if (sp->current < sys->nr_cpus)
		return -EBUSY;
	sp->stop = false;
	return 0;
}

unsigned int tlbgen__sprog_runnable(struct tlbgen_system *sys, bool stop, unsigned int *cand,
				    bool *busy)
{
	struct sp *sp = sp_of(sys);
	unsigned int n = 0;

	sp->stop = stop;
	*busy = false;
	for (unsigned int c = 0; c < sys->nr_cpus; c++) {
		*busy |= sp->p[c].state != SP_NONE && sp->p[c].state != SP_DONE;
		if (sp_runnable(sys, c, &sp->p[c], stop))
			cand[n++] = c;
	}
	return n;
}

int tlbgen__sprog_resume(struct tlbgen_system *sys, unsigned int cpu)
{
	return sp_resume(sys, sp_of(sys), cpu);
}
