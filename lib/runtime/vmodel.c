// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/vmodel.c - the virtual mode's memory model: an x86-TSO
 * store buffer per CPU, one FIFO for every plain store the access layer
 * makes to state other CPUs read (cpu_tlbstate.loaded_mm, loaded_mm_asid,
 * cpu_tlbstate_shared.is_lazy, next_trim_cpumask, the csd flags, the
 * global ASID and asid_transition), and the notes a chooser gets to
 * explain an execution in kernel terms.
 *
 * The pattern it exists for is store buffering, as in 83b0177a6c48:
 * switch_mm_irqs_off() publishes loaded_mm with a plain mov and then loads
 * tlb_gen; without an mfence (or a locked RMW) between them x86 lets the
 * load pass the store, and both CPUs read old values. Entries commit in
 * order, so no store ever becomes visible before an earlier one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/access.h"
#include "../core/check.h"
#include "../core/this_cpu.h"
#include "virtual.h"

static const char *const field_name[TLBGEN_SB_NR] = {
	[TLBGEN_SB_LOADED_MM] = "cpu_tlbstate.loaded_mm",
	[TLBGEN_SB_IS_LAZY] = "cpu_tlbstate_shared.is_lazy",
	[TLBGEN_SB_LOADED_MM_ASID] = "cpu_tlbstate.loaded_mm_asid",
	[TLBGEN_SB_NEXT_TRIM] = "mm->context.next_trim_cpumask",
	[TLBGEN_SB_CSD_FLAGS] = "csd->node.u_flags (csd_lock)",
	[TLBGEN_SB_CSD_UNLOCK] = "csd->node.u_flags (csd_unlock)",
	[TLBGEN_SB_GLOBAL_ASID] = "mm->context.global_asid",
	[TLBGEN_SB_ASID_TRANSITION] = "mm->context.asid_transition",
};

static void value_name(const struct tlbgen_system *sys, enum tlbgen_sb_field f, uint64_t v,
		       char *buf, size_t len)
{
	const struct tlbgen_mm *mm = (const struct tlbgen_mm *)(uintptr_t)v;

	if (f == TLBGEN_SB_IS_LAZY || f == TLBGEN_SB_ASID_TRANSITION)
		snprintf(buf, len, "%s", v ? "true" : "false");
	else if (f != TLBGEN_SB_LOADED_MM)
		snprintf(buf, len, "%llu", (unsigned long long)v);
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
	struct tlbgen_sb_entry e = me->sb[me->sb_head];

	/* The store the accessor would have made, as a release (x86 stores are). */
	switch (e.size) {
	case 1:
		__atomic_store_n((uint8_t *)e.addr, (uint8_t)e.val, __ATOMIC_RELEASE);
		break;
	case 2:
		__atomic_store_n((uint16_t *)e.addr, (uint16_t)e.val, __ATOMIC_RELEASE);
		break;
	case 4:
		__atomic_store_n((uint32_t *)e.addr, (uint32_t)e.val, __ATOMIC_RELEASE);
		break;
	default:
		__atomic_store_n((uint64_t *)e.addr, e.val, __ATOMIC_RELEASE);
		break;
	}
	me->sb_head = (me->sb_head + 1) % VT_SB_SIZE;
	me->sb_len--;
	/* csd_unlock() reached memory: the initiator's csd_lock_wait() sees it. */
	if (e.f == TLBGEN_SB_CSD_UNLOCK) {
		const struct tlbgen_csd *csd = caa_container_of((atomic_uint *)e.addr,
								struct tlbgen_csd, u_flags);
		unsigned int now = vt->current < vt->sys->nr_cpus ? vt->current : cpu;

		vt->csd_committed(vt, csd->src, vt->v[now].clock);
	}
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

			if ((int)e->f == f && (e->f != TLBGEN_SB_LOADED_MM ||
					       e->addr == &tlbgen__cpu(sys, o)->tlbstate.loaded_mm)) {
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
			 void *addr, unsigned int size, uint64_t val)
{
	struct tlbgen_vt *vt = sys->rt;
	struct tlbgen_vcpu *me;
	char buf[48];

	if (cpu == TLBGEN_CPU_RUNNING)
		cpu = vt->current;
	if (vt->model != TLBGEN_MEMORY_TSO || cpu != vt->current || cpu >= sys->nr_cpus)
		return false;
	me = &vt->v[cpu];
	if (me->sb_len == VT_SB_SIZE)
		sb_commit_oldest(vt, cpu);
	me->sb[(me->sb_head + me->sb_len) % VT_SB_SIZE] = (struct tlbgen_sb_entry){
		.f = f, .addr = addr, .size = size, .val = val,
		.commit_at = me->clock + sys->machine.same_socket,
	};
	me->sb_len++;
	value_name(sys, f, val, buf, sizeof(buf));
	tlbgen__vt_note(vt, cpu, "CPU%u stores %s = %s: it waits in CPU%u's store buffer", cpu,
			field_name[f], buf, cpu);
	return true;
}

/* Store-to-load forwarding: the newest buffered store to the field. */
bool tlbgen__vt_sb_load(const struct tlbgen_system *sys, unsigned int cpu, const void *addr,
			uint64_t *val)
{
	const struct tlbgen_vt *vt = sys->rt;
	const struct tlbgen_vcpu *me;

	if (cpu == TLBGEN_CPU_RUNNING)
		cpu = vt->current;
	if (vt->model != TLBGEN_MEMORY_TSO || cpu >= sys->nr_cpus)
		return false;
	me = &vt->v[cpu];
	for (unsigned int i = me->sb_len; i-- > 0;) {
		const struct tlbgen_sb_entry *e = &me->sb[(me->sb_head + i) % VT_SB_SIZE];

		if (e->addr == addr) {
			*val = e->val;
			return true;
		}
	}
	return false;
}

const char *tlbgen__vt_fence_why(enum tlbgen_fence_kind why)
{
	static const char *const name[] = {
		[TLBGEN_FENCE_SMP_MB] = "smp_mb()",
		[TLBGEN_FENCE_CR3] = "the CR3 write serialises",
		[TLBGEN_FENCE_LOCKED] = "locked RMW",
		[TLBGEN_FENCE_PTE] = "a PTE write is kept in order",
	};

	return name[why];
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
