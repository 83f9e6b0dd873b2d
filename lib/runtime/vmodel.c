// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/vmodel.c - the virtual mode's memory model: x86-TSO store
 * buffers for the plain per-CPU stores the flush code races on
 * (cpu_tlbstate.loaded_mm, cpu_tlbstate_shared.is_lazy), and the notes a
 * chooser gets to explain an execution in kernel terms.
 *
 * Why these two: switch_mm_irqs_off() publishes loaded_mm (and clears
 * is_lazy) with plain movs, and should_flush_tlb() on another CPU reads
 * them after its inc_mm_tlb_gen(). That is the store-buffering pattern of
 * 83b0177a6c48: without an mfence (or a locked RMW) between the store and
 * the tlb_gen load, x86 lets the load pass the store, and both CPUs read
 * old values.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/access.h"
#include "../core/check.h"
#include "../core/this_cpu.h"
#include "virtual.h"

static const char *const field_name[] = {
	[TLBGEN_SB_LOADED_MM] = "cpu_tlbstate.loaded_mm",
	[TLBGEN_SB_IS_LAZY] = "cpu_tlbstate_shared.is_lazy",
};

static void value_name(const struct tlbgen_system *sys, enum tlbgen_sb_field f, uintptr_t v,
		       char *buf, size_t len)
{
	const struct tlbgen_mm *mm = (const struct tlbgen_mm *)v;

	if (f == TLBGEN_SB_IS_LAZY)
		snprintf(buf, len, "%s", v ? "true" : "false");
	else if (mm == LOADED_MM_SWITCHING)
		snprintf(buf, len, "LOADED_MM_SWITCHING");
	else if (mm == sys->init_mm)
		snprintf(buf, len, "init_mm");
	else
		snprintf(buf, len, "mm ctx %llu", (unsigned long long)mm->context.ctx_id);
}

void tlbgen__vt_note(struct tlbgen_vt *vt, unsigned int cpu, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (!vt->chooser.note)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	vt->chooser.note(vt->chooser.ctx, cpu, buf);
}

/* ---- the store buffer: a FIFO per CPU --------------------------------------------- */

static void sb_commit_oldest(struct tlbgen_vt *vt, unsigned int cpu)
{
	struct tlbgen_vcpu *me = &vt->v[cpu];
	struct tlbgen_sb_entry *e = &me->sb[me->sb_head];

	struct tlbgen_cpu *c = tlbgen__cpu(vt->sys, cpu);

	/* The same stores tlbgen__loaded_mm_write() and tlbgen__is_lazy_write() make. */
	if (e->f == TLBGEN_SB_LOADED_MM)
		atomic_store_explicit(&c->tlbstate.loaded_mm, (struct tlbgen_mm *)e->val,
				      memory_order_release);
	else
		atomic_store_explicit(&c->shared.is_lazy, e->val != 0, memory_order_relaxed);
	me->sb_head = (me->sb_head + 1) % VT_SB_SIZE;
	me->sb_len--;
}

static void sb_note_drain(struct tlbgen_vt *vt, unsigned int cpu, unsigned int n, const char *why)
{
	const struct tlbgen_vcpu *me = &vt->v[cpu];
	char val[48];

	for (unsigned int i = 0; vt->chooser.note && i < n; i++) {
		const struct tlbgen_sb_entry *e = &me->sb[(me->sb_head + i) % VT_SB_SIZE];

		value_name(vt->sys, e->f, e->val, val, sizeof(val));
		tlbgen__vt_note(vt, cpu, "CPU%u's store %s = %s reaches memory (%s)", cpu,
				field_name[e->f], val, why);
	}
}

void tlbgen__vt_sb_drain(struct tlbgen_vt *vt, unsigned int cpu, const char *why)
{
	struct tlbgen_vcpu *me = &vt->v[cpu];

	sb_note_drain(vt, cpu, me->sb_len, why);
	while (me->sb_len)
		sb_commit_oldest(vt, cpu);
}

void tlbgen__vt_sb_drain_one(struct tlbgen_vt *vt, unsigned int cpu, const char *why)
{
	if (!vt->v[cpu].sb_len)
		return;
	sb_note_drain(vt, cpu, 1, why);
	sb_commit_oldest(vt, cpu);
}

void tlbgen__vt_sb_tick(struct tlbgen_vt *vt, unsigned int cpu)
{
	struct tlbgen_vcpu *me = &vt->v[cpu];

	if (vt->chooser.choose)
		return;	/* the chooser decides when */
	while (me->sb_len && me->sb[me->sb_head].commit_at <= me->clock)
		sb_commit_oldest(vt, cpu);
}

/* The cpu_tlbstate field of CPU `o` that line `id` holds, or -1. */
static int field_of_line(const struct tlbgen_system *sys, unsigned int o, enum tlbgen_line line,
			 uintptr_t id)
{
	const struct tlbgen_cpu *c = tlbgen__cpu(sys, o);
	uintptr_t mask = ~(uintptr_t)(TLBGEN_CACHELINE - 1);

	if (line == TLBGEN_LINE_TLBSTATE && ((uintptr_t)&c->tlbstate & mask) == id)
		return TLBGEN_SB_LOADED_MM;
	if (line == TLBGEN_LINE_TLBSTATE_SHARED && ((uintptr_t)&c->shared & mask) == id)
		return TLBGEN_SB_IS_LAZY;
	return -1;
}

void tlbgen__vt_sb_check_read(struct tlbgen_vt *vt, unsigned int cpu, enum tlbgen_line line,
			      uintptr_t id)
{
	struct tlbgen_system *sys = vt->sys;

	if (!vt->chooser.note)
		return;
	for (unsigned int o = 0; o < sys->nr_cpus; o++) {
		const struct tlbgen_vcpu *v = &vt->v[o];
		int f = o == cpu ? -1 : field_of_line(sys, o, line, id);
		char mem[48], buf[48];
		uintptr_t m;

		if (f < 0)
			continue;
		m = f == TLBGEN_SB_LOADED_MM
			    ? (uintptr_t)tlbgen__peek_loaded_mm(sys, o)
			    : (uintptr_t)atomic_load(&tlbgen__cpu(sys, o)->shared.is_lazy);
		value_name(sys, f, m, mem, sizeof(mem));
		buf[0] = 0;
		for (unsigned int i = v->sb_len; i-- > 0;) {
			const struct tlbgen_sb_entry *e = &v->sb[(v->sb_head + i) % VT_SB_SIZE];

			if ((int)e->f == f) {
				value_name(sys, e->f, e->val, buf, sizeof(buf));
				break;
			}
		}
		if (buf[0])
			tlbgen__vt_note(vt, cpu,
					"CPU%u reads CPU%u's %s = %s from memory while CPU%u's "
					"store buffer still holds %s",
					cpu, o, field_name[f], mem, o, buf);
		else
			tlbgen__vt_note(vt, cpu, "CPU%u reads CPU%u's %s = %s", cpu, o,
					field_name[f], mem);
		return;
	}
}

/* ---- the execution hooks ---------------------------------------------------------------- */

bool tlbgen__vt_sb_store(struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_sb_field f,
			 uintptr_t val)
{
	struct tlbgen_vt *vt = sys->rt;
	struct tlbgen_vcpu *me;
	char buf[48];

	if (vt->model != TLBGEN_MEMORY_TSO || cpu != vt->current)
		return false;
	me = &vt->v[cpu];
	if (me->sb_len == VT_SB_SIZE)
		sb_commit_oldest(vt, cpu);
	me->sb[(me->sb_head + me->sb_len) % VT_SB_SIZE] = (struct tlbgen_sb_entry){
		.f = f, .val = val, .commit_at = me->clock + sys->machine.same_socket,
	};
	me->sb_len++;
	value_name(sys, f, val, buf, sizeof(buf));
	tlbgen__vt_note(vt, cpu, "CPU%u stores %s = %s: it waits in CPU%u's store buffer", cpu,
			field_name[f], buf, cpu);
	return true;
}

/* Store-to-load forwarding: the newest buffered store to the field. */
bool tlbgen__vt_sb_load(const struct tlbgen_system *sys, unsigned int cpu,
			enum tlbgen_sb_field f, uintptr_t *val)
{
	const struct tlbgen_vt *vt = sys->rt;
	const struct tlbgen_vcpu *me;

	if (vt->model != TLBGEN_MEMORY_TSO || cpu >= sys->nr_cpus)
		return false;
	me = &vt->v[cpu];
	for (unsigned int i = me->sb_len; i-- > 0;) {
		const struct tlbgen_sb_entry *e = &me->sb[(me->sb_head + i) % VT_SB_SIZE];

		if (e->f == f) {
			*val = e->val;
			return true;
		}
	}
	return false;
}

void tlbgen__vt_ipi_skipped(struct tlbgen_system *sys, unsigned int cpu, unsigned int target)
{
	tlbgen__vt_note(sys->rt, cpu, "CPU%u's should_flush_tlb() sends CPU%u no IPI", cpu,
			target);
}

/* ---- the API -------------------------------------------------------------------------------- */

static struct tlbgen_vt *vt_settable(struct tlbgen_system *sys)
{
	if (!tlbgen__sys_valid(sys) || sys->mode != TLBGEN_MODE_VIRTUAL)
		return NULL;
	return sys->rt;
}

TLBGEN_API int tlbgen_vtime__set_memory_model(struct tlbgen_system *sys,
					      enum tlbgen_memory_model model)
{
	struct tlbgen_vt *vt = vt_settable(sys);

	if (!vt || (model != TLBGEN_MEMORY_SC && model != TLBGEN_MEMORY_TSO))
		return -EINVAL;
	if (tlbgen__tls.sys)
		return -EBUSY;
	for (unsigned int i = 0; model == TLBGEN_MEMORY_SC && i < sys->nr_cpus; i++)
		tlbgen__vt_sb_drain(vt, i, "the model is now sc");
	vt->model = model;
	return 0;
}

TLBGEN_API int tlbgen_vtime__set_chooser(struct tlbgen_system *sys,
					 const struct tlbgen_vt_chooser *c)
{
	struct tlbgen_vt *vt = vt_settable(sys);

	if (!vt || (c && (c->sz < sizeof(*c) || !c->choose)))
		return -EINVAL;
	if (tlbgen__tls.sys)
		return -EBUSY;
	if (!c) {
		vt->chooser = (struct tlbgen_vt_chooser){ 0 };
		return 0;
	}
	if (!vt->opts) {
		vt->opts = calloc(2 * (size_t)sys->nr_cpus, sizeof(*vt->opts));
		if (!vt->opts)
			return -ENOMEM;
	}
	vt->chooser = *c;
	return 0;
}
