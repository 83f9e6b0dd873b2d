// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/virtual.c - the virtual-time transport: emulated CPUs are
 * coroutines with clocks on the caller's thread; a discrete-event scheduler
 * always resumes the CPU with the lowest clock (ties broken by the seed).
 *
 * Every traced shared-line access is a scheduling point priced by a MESI
 * directory and the machine model; an IPI arrives ipi_latency after it was
 * sent and is taken at the target's next moment with IRQs on; csd_lock_wait()
 * and the idle loop sleep in virtual time until a csd unlock or an IPI wakes
 * them, as a spinning CPU would see the line change. A CPU runs only when its
 * clock is the lowest: it never observes a write made at a later virtual time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../base/compiler.h"
#include "../base/prandom.h"
#include "../core/access.h"
#include "../core/check.h"
#include "../core/irqflags.h"
#include "../core/machine.h"
#include "../core/this_cpu.h"
#include "../kernel/smp.h"
#include "../observers/coherence.h"
#include "virtual.h"

#define VT_STACK	(256 * 1024)

static inline struct tlbgen_vt *vt_of(const struct tlbgen_system *sys)
{
	return sys->rt;
}

/* ---- interrupts ------------------------------------------------------------------------ */

/* Take the IPI that has arrived, if IRQs are on: entry, the queue, exit. */
void tlbgen__vt_take_arrived_ipis(struct tlbgen_vt *vt, unsigned int cpu)
{
	struct tlbgen_vcpu *me = &vt->v[cpu];
	const struct tlbgen_machine *m = &vt->sys->machine;

	if (me->ipi_at > me->clock || tlbgen__irqs_disabled(vt->sys, cpu))
		return;
	me->ipi_at = VT_NEVER;
	vt->stats.ipis_taken++;
	if (me->sb_len)
		tlbgen__vt_sb_drain(vt, cpu, "interrupt entry serialises");
	tlbgen__vt_charge(vt, me, TLBGEN_VT_TIME_IRQ, m->irq_entry);
	tlbgen__flush_smp_call_function_queue(vt->sys, cpu, -1);
	/* IRET is serialising: the handler's stores (csd_unlock()) commit. */
	if (me->sb_len)
		tlbgen__vt_sb_drain(vt, cpu, "IRET serialises");
	tlbgen__vt_charge(vt, me, TLBGEN_VT_TIME_IRQ, m->irq_exit);
}

/* ---- the execution hooks: accesses and costs -------------------------------------------- */

static uint64_t xfer_cost(const struct tlbgen_machine *m, const struct tlbgen_coherence_xfer *x,
			  enum tlbgen_access_op op)
{
	uint64_t c;

	switch (x->kind) {
	case TLBGEN_XFER_HIT:
		c = m->hit;
		break;
	case TLBGEN_XFER_MEMORY:
		c = m->memory;
		break;
	default:
		c = x->near ? m->same_socket : m->cross_socket;
		c += (uint64_t)m->inval_sharer * x->invalidated;
		break;
	}
	return c + (op == TLBGEN_OP_RMW ? m->rmw : 0);
}

/*
 * One access: its cost from the directory. A transfer that involves the
 * line's owner (taking it from an E/M holder, or taking ownership: an
 * upgrade, a write to a shared line) holds the line, since a line has one
 * owner at a time and such requests queue at its home: one that asks while
 * another is under way starts when that one ends. Filling a Shared copy
 * holds nothing, fills are served side by side; but a fill asked for while
 * the owner's copy is still on its way to the first reader waits for it to
 * arrive: a directory holds off requests for a line busy with a transaction
 * (Lenoski et al., the DASH protocol, ISCA 1990). A machine's fill_hold,
 * if any, is how long each fill occupies the line's home, so that fills
 * asked for together queue. Then a scheduling point.
 */
static void vt_access(struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_line line,
		      uintptr_t id, enum tlbgen_access_op op)
{
	struct tlbgen_vt *vt = vt_of(sys);
	struct tlbgen_coherence_xfer x;
	struct tlbgen_vcpu *me;
	uint64_t cost;
	bool holds;

	(void)cpu;	/* the accessor names the running CPU; charge that one */
	cpu = vt->current;
	if (cpu >= sys->nr_cpus)
		return;	/* the host between runs: no time passes */
	me = &vt->v[cpu];
	/* A locked RMW drains the store buffer before it executes. */
	if (op == TLBGEN_OP_RMW && me->sb_len)
		tlbgen__vt_sb_drain(vt, cpu, "locked RMW");
	if (tlbgen__coherence_access(vt->dir, cpu, line, id, op, &x))
		x = (struct tlbgen_coherence_xfer){ .kind = TLBGEN_XFER_MEMORY };
	cost = xfer_cost(&sys->machine, &x, op);
	holds = x.kind == TLBGEN_XFER_FROM_OWNER || x.kind == TLBGEN_XFER_UPGRADE ||
		(x.kind == TLBGEN_XFER_FROM_SHARED && op != TLBGEN_OP_READ);
	if (x.busy_until && (holds || x.kind == TLBGEN_XFER_FROM_SHARED)) {
		if (me->clock < *x.busy_until) {
			vt->stats.line_waits++;
			vt->stats.line_time[line] += *x.busy_until - me->clock;
			tlbgen__vt_charge(vt, me, TLBGEN_VT_TIME_LINE_WAIT,
					  *x.busy_until - me->clock);
		}
		if (holds)
			*x.busy_until = me->clock + cost;
		else if (sys->machine.fill_hold)
			*x.busy_until = me->clock + sys->machine.fill_hold;
	}
	if (x.kind != TLBGEN_XFER_HIT && x.kind != TLBGEN_XFER_MEMORY)
		vt->stats.transfers[line]++;
	vt->stats.line_time[line] += cost;
	tlbgen__vt_charge(vt, me, TLBGEN_VT_TIME_LINE, cost);
	tlbgen__vt_sb_tick(vt, cpu);
	tlbgen__vt_sched(vt, cpu);
	tlbgen__vt_take_ipis(vt, cpu);
	/* No scheduling point from here to the load itself. */
	if (op == TLBGEN_OP_READ && vt->chooser.note)
		tlbgen__vt_sb_check_read(vt, cpu, line, id);
}

/* A kernel word's access (runtime/vkword.c), spent with IRQs as they are. */
static void vt_kword(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_kword *w,
		     enum tlbgen_kword_op op)
{
	struct tlbgen_vt *vt = vt_of(sys);

	if (cpu < sys->nr_cpus && cpu == vt->current)
		tlbgen__vt_spend(vt, cpu, tlbgen__vt_kword_cost(sys, cpu, w, op));
}

static void vt_spend_hook(struct tlbgen_system *sys, unsigned int cpu, uint64_t cycles)
{
	struct tlbgen_vt *vt = vt_of(sys);

	(void)cpu;
	if (vt->current < sys->nr_cpus)
		tlbgen__vt_charge(vt, &vt->v[vt->current], TLBGEN_VT_TIME_TLB, cycles);
}

/* jiffies from the running CPU's clock (the host's view: the latest clock). */
static uint64_t vt_jiffies(const struct tlbgen_system *sys)
{
	const struct tlbgen_vt *vt = vt_of(sys);
	uint64_t now = vt->current < sys->nr_cpus ? vt->v[vt->current].clock : vt->stats.now;

	return now / ((uint64_t)sys->machine.mhz * 1000000 / sys->clock.hz);
}

static void vt_fence(struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_fence_kind why)
{
	struct tlbgen_vt *vt = vt_of(sys);

	if (cpu == TLBGEN_CPU_RUNNING)
		cpu = vt->current;
	if (cpu >= sys->nr_cpus || cpu != vt->current || !vt->v[cpu].sb_len)
		return;
	/*
	 * The loads before the CR3 write (switch_mm_irqs_off()'s tlb_gen read)
	 * may complete while older stores still wait: other CPUs may run
	 * between them and the drain. A scheduling point only under TSO with
	 * stores waiting, so sc executions are scheduled as before.
	 */
	if (why == TLBGEN_FENCE_CR3)
		tlbgen__vt_sched(vt, cpu);
	tlbgen__vt_sb_drain(vt, cpu, tlbgen__vt_fence_why(why));
}

static const struct tlbgen_exec_hooks vt_hooks = {
	.access = vt_access,
	.spend = vt_spend_hook,
	.jiffies = vt_jiffies,
	.store = tlbgen__vt_sb_store,
	.load = tlbgen__vt_sb_load,
	.fence = vt_fence,
	.ipi_skipped = tlbgen__vt_ipi_skipped,
	.kword = vt_kword,
	.serial = tlbgen__vt_serial,
};

/* Work `cycles`; IPIs arriving meanwhile are taken on time if IRQs are on. */
void tlbgen__vt_spend(struct tlbgen_vt *vt, unsigned int cpu, uint64_t cycles)
{
	struct tlbgen_vcpu *me = &vt->v[cpu];
	uint64_t end = me->clock + cycles;

	while (me->clock < end || me->ipi_at <= me->clock) {
		bool irqs_off = tlbgen__irqs_disabled(vt->sys, cpu);
		uint64_t t0;

		if (irqs_off || me->ipi_at > me->clock) {
			/* With IRQs off an IPI that arrives waits for the work's
			 * end (spin_lock_irqsave()'s section): it does not cut it. */
			uint64_t until = !irqs_off && me->ipi_at < end ? me->ipi_at : end;

			if (me->clock >= until)
				break;
			tlbgen__vt_sleep(vt, cpu, until, TLBGEN_VT_TIME_WORK);
			continue;
		}
		t0 = me->clock;
		tlbgen__vt_take_ipis(vt, cpu);
		if (me->clock == t0)
			break;
		end += me->clock - t0;	/* the handler took that long */
	}
	if (!cycles)
		tlbgen__vt_sched(vt, cpu);
}

/* ---- the transport ------------------------------------------------------------------------ */

static void vt_send_ipi(struct tlbgen_system *sys, unsigned int from, unsigned int target)
{
	struct tlbgen_vt *vt = vt_of(sys);
	const struct tlbgen_machine *m = &sys->machine;
	struct tlbgen_vcpu *src = &vt->v[from], *t = &vt->v[target];
	uint64_t at;

	/* The ICR write: the kernel fences before it (weak_wrmsr_fence() for
	 * x2APIC), so the sender's stores are visible before the IPI lands. */
	if (src->sb_len)
		tlbgen__vt_sb_drain(vt, from, "IPI send");
	tlbgen__vt_charge(vt, src, TLBGEN_VT_TIME_SEND, m->ipi_send);
	at = src->clock + m->ipi_latency;
	if (vt->socket[from] != vt->socket[target] && m->cross_socket > m->same_socket)
		at += m->cross_socket - m->same_socket;
	if (at < t->ipi_at)
		t->ipi_at = at;
	tlbgen__vt_wake(vt, target, at);
}

static void vt_csd_unlocked(struct tlbgen_system *sys, unsigned int src)
{
	struct tlbgen_vt *vt = vt_of(sys);

	if (vt->v[src].waiting && vt->current < sys->nr_cpus)
		tlbgen__vt_wake(vt, src, vt->v[vt->current].clock);
}

static void vt_irq_enable(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_vt *vt = vt_of(sys);

	if (cpu == vt->current)
		tlbgen__vt_take_ipis(vt, cpu);
}

/*
 * csd_lock_wait() in virtual time: re-read the csds; while one is locked,
 * sleep until its target unlocks it (the line changes) or an IPI arrives,
 * then pause once (cpu_relax()) and read again.
 */
static void vt_wait(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_vt *vt = vt_of(sys);
	struct tlbgen_vcpu *me = &vt->v[cpu];

	for (;;) {
		tlbgen__vt_take_ipis(vt, cpu);
		if (tlbgen__smp_all_acked(sys, cpu))
			break;
		vt->stats.wait_blocks++;
		me->waiting = true;
		tlbgen__vt_sleep(vt, cpu, me->ipi_at, TLBGEN_VT_TIME_CSD_WAIT);
		me->waiting = false;
		tlbgen__vt_charge(vt, me, TLBGEN_VT_TIME_CSD_WAIT, sys->machine.spin);
	}
	tlbgen__smp_wait_done(sys, cpu);
}

static int vt_check_cpu(const struct tlbgen_system *sys, unsigned int cpu)
{
	return tlbgen__this_thread_is(sys, cpu) ? 0 : -EPERM;
}

/* An emulated CPU's life: its program if it has one, then the idle loop. */
static void vcpu_main(void *arg)
{
	struct tlbgen_vcpu *me = arg;
	struct tlbgen_vt *vt = me->vt;

	me->sleeping = false;
	for (;;) {
		if (me->has_program && !me->program_started) {
			me->program_started = true;
			me->ret = me->fn ? me->fn(vt->sys, me->id, me->arg) : 0;
			me->finished = true;
		}
		if (me->ipi_at <= me->clock) {
			tlbgen__vt_take_ipis(vt, me->id);
			continue;
		}
		/* do_idle(): sleep until an interrupt. */
		tlbgen__vt_sleep(vt, me->id, me->ipi_at, TLBGEN_VT_TIME_IDLE);
	}
}

static void vt_free(struct tlbgen_vt *vt)
{
	if (!vt)
		return;
	for (unsigned int i = 0; vt->v && i < vt->sys->nr_cpus; i++)
		if (vt->v[i].started)
			tlbgen__coro_free(&vt->v[i].coro);
	tlbgen_coherence__destroy(vt->dir);
	free(vt->v);
	free(vt->heap);
	free(vt->socket);
	free(vt->opts);
	free(vt);
}

static int vt_create(struct tlbgen_system *sys)
{
	const struct tlbgen_machine *m = &sys->machine;
	struct tlbgen_vt *vt = calloc(1, sizeof(*vt));

	if (!vt)
		return -ENOMEM;
	vt->sys = sys;
	vt->v = calloc(sys->nr_cpus, sizeof(*vt->v));
	vt->heap = calloc(sys->nr_cpus, sizeof(*vt->heap) + sizeof(*vt->heap_pos));
	vt->socket = calloc(sys->nr_cpus, sizeof(*vt->socket));
	if (!vt->v || !vt->heap || !vt->socket ||
	    tlbgen_coherence__create(sys->nr_cpus, &vt->dir)) {
		vt_free(vt);
		return -ENOMEM;
	}
	vt->heap_pos = (unsigned int *)&vt->heap[sys->nr_cpus];
	for (unsigned int i = 0; i < sys->nr_cpus; i++) {
		vt->v[i].vt = vt;
		vt->v[i].id = i;
		vt->v[i].ipi_at = VT_NEVER;
		/* work_jitter's stream (vevent.c), one per CPU and seed. */
		vt->v[i].work_rng = tlbgen__prandom_seed(sys->rng + 0x632BE59BD9B4E019ULL * (i + 1));
		/* Sockets filled in order, as Linux numbers CPUs on these boxes. */
		vt->socket[i] = (uint16_t)(i / m->cores_per_socket % m->sockets);
	}
	tlbgen__coherence_set_sockets(vt->dir, vt->socket);
	tlbgen__coherence_uncounted(vt->dir);
	tlbgen__coro_init_thread(&vt->host);
	vt->current = sys->nr_cpus;
	vt->rng = sys->rng;
	vt->stack_size = VT_STACK;
	vt->cpu_main = vcpu_main;
	vt->csd_committed = tlbgen__vt_csd_committed;
	vt->stats.sz = sizeof(vt->stats);
	sys->rt = vt;
	sys->exec = &vt_hooks;
	return 0;
}

static void vt_destroy(struct tlbgen_system *sys)
{
	vt_free(vt_of(sys));
	sys->rt = NULL;
	sys->exec = NULL;
}

const struct tlbgen_transport tlbgen__virtual_transport = {
	.create = vt_create,
	.destroy = vt_destroy,
	.send_ipi = vt_send_ipi,
	.wait = vt_wait,
	.csd_unlocked = vt_csd_unlocked,
	.irq_enable = vt_irq_enable,
	.check_cpu = vt_check_cpu,
};

/* ---- the API ----------------------------------------------------------------------------- */

struct tlbgen_vt *tlbgen__vt_valid(const struct tlbgen_system *sys)
{
	return tlbgen__sys_valid(sys) && sys->mode == TLBGEN_MODE_VIRTUAL ? vt_of(sys) : NULL;
}

int tlbgen__vt_spawn(struct tlbgen_system *sys, unsigned int cpu, tlbgen_cpu_fn fn, void *arg)
{
	struct tlbgen_vcpu *v = &vt_of(sys)->v[cpu];

	if (tlbgen__tls.sys || (v->has_program && !v->finished))
		return -EBUSY;
	v->fn = fn;
	v->arg = arg;
	v->ret = 0;
	v->has_program = true;
	v->program_started = false;
	v->finished = false;
	return 0;
}

int tlbgen__vt_should_stop(const struct tlbgen_system *sys, unsigned int cpu)
{
	const struct tlbgen_vt *vt = vt_of(sys);

	return vt->v[cpu].clock >= vt->stop_at;
}

int tlbgen__vt_join(struct tlbgen_system *sys, unsigned int cpu, int *ret)
{
	struct tlbgen_vcpu *v = &vt_of(sys)->v[cpu];

	if (tlbgen__tls.sys)
		return -EDEADLK;
	if (!v->has_program)
		return -ESRCH;
	if (!v->finished)
		return -EBUSY;
	if (ret)
		*ret = v->ret;
	v->has_program = false;
	return 0;
}

TLBGEN_API int tlbgen_vtime__run(struct tlbgen_system *sys, uint64_t until)
{
	struct tlbgen_vt *vt = tlbgen__vt_valid(sys);
	int err = 0;

	if (!vt)
		return -EINVAL;
	if (tlbgen__tls.sys)
		return -EBUSY;
	vt->stop_at = until;
	for (unsigned int i = 0; i < sys->nr_cpus; i++) {
		struct tlbgen_vcpu *v = &vt->v[i];

		if (!v->has_program || v->program_started)
			continue;
		if (v->state == VCPU_UNBORN)
			tlbgen__vt_push(vt, i);
		else
			tlbgen__vt_wake(vt, i, v->clock);
	}
	if (!vt->nr_heap)
		return 0;
	tlbgen__tls.sys = sys;
	tlbgen__vt_switch(vt, sys->nr_cpus, tlbgen__vt_first(vt));
	tlbgen__tls.sys = NULL;
	tlbgen__tls.cpu = -1;
	for (unsigned int i = 0; i < sys->nr_cpus; i++) {
		if (vt->v[i].clock > vt->stats.now)
			vt->stats.now = vt->v[i].clock;
		if (vt->v[i].waiting)
			err = -EDEADLK;
	}
	return err;
}

TLBGEN_API int tlbgen_vtime__spend(struct tlbgen_system *sys, unsigned int cpu, uint64_t cycles)
{
	struct tlbgen_vt *vt = tlbgen__vt_valid(sys);
	int err;

	if (!vt)
		return -EINVAL;
	err = tlbgen__check_op(sys, cpu);
	if (err)
		return err;
	tlbgen__vt_spend(vt, cpu, cycles);
	return 0;
}
