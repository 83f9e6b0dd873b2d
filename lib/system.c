// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/system.c - the top of the library: a system is assembled here from
 * the layers below (transport, emulated CPUs, init_mm, profile, observers)
 * and taken apart again. Nothing below calls up into this file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/mm/tlb.h"
#include "base/alloc.h"
#include "base/printk.h"
#include "core/access.h"
#include "core/check.h"
#include "core/clock.h"
#include "kernel/smp.h"
#include "mm/mm.h"
#include "observers/simtlb.h"
#include "core/machine.h"
#include "runtime/runtime.h"
#include "runtime/virtual.h"

static void tlbgen__free_cpus(struct tlbgen_system *sys)
{
	for (unsigned int i = 0; i < sys->nr_cpus && sys->cpus; i++) {
		if (!sys->cpus[i])
			continue;
		tlbgen__smp_free_cpu(sys, i);
		tlbgen__simtlb_free(sys, i);
	}
	free(sys->cpus);
}

static int tlbgen__init_cpu(struct tlbgen_system *sys, unsigned int i)
{
	struct tlbgen_cpu *c = tlbgen__cpu_alloc(sys, i,
						 tlbgen__arena_odd_lines(sizeof(*c), TLBGEN_CACHELINE));

	if (!c)
		return -ENOMEM;
	sys->cpus[i] = c;
	c->priv.id = i;
	/* cpu_tlbstate's static initialiser: init_mm, next_asid 1, and slot 0
	 * already holding init_mm (as the boot CPU's CR3 does). */
	atomic_init(&c->tlbstate.loaded_mm, sys->init_mm);
	c->tlbstate.next_asid = 1;
	c->tlbstate.cr4 = ~0UL;
	c->tlbstate.ctxs[0].ctx_id = sys->init_mm->context.ctx_id;
	return 0;
}

/* The CPU's other blocks: cfd masks and csds (kernel/smp.c), simulated TLB. */
static int tlbgen__init_cpu_blocks(struct tlbgen_system *sys, unsigned int i)
{
	int err = tlbgen__smp_init_cpu(sys, i);

	return err ? err : tlbgen__simtlb_init(sys, i);
}

/* The INVLPGB fields: each bad one is named, state untouched. */
static int check_invlpgb_opts(const struct tlbgen_system_opts *o)
{
	if (o->global_asids > TLBGEN_GLOBAL_ASIDS_MAX || (o->global_asids && !o->invlpgb)) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: system opts: global_asids = %u: need 0..%u, "
			   "and invlpgb\n", o->global_asids, TLBGEN_GLOBAL_ASIDS_MAX);
		return -EINVAL;
	}
	if (o->invlpgb_count_max > 65536 || (o->invlpgb_count_max && !o->invlpgb)) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: system opts: invlpgb_count_max = %u: need "
			   "0..65536, and invlpgb\n", o->invlpgb_count_max);
		return -EINVAL;
	}
	return 0;
}

/* Everything tlbgen_system__create() may have built, whatever it reached. */
static void system_free(struct tlbgen_system *sys)
{
	if (sys->transport->destroy)
		sys->transport->destroy(sys);
	while (sys->mm_list) {
		struct tlbgen_mm *mm = sys->mm_list;

		sys->mm_list = mm->priv.next;
		tlbgen__mm_free(mm);
	}
	tlbgen__global_asid_destroy(sys);
	tlbgen__free_cpus(sys);
	if (sys->init_mm)
		tlbgen__mm_free(sys->init_mm);
	free(sys->all_cpus_mask);
	tlbgen__rankmap_free(&sys->ipi_pending);
	free(sys->flush_recs);
	tlbgen__arena_destroy(&sys->arena);
	pthread_mutex_destroy(&sys->lock);
	tlbgen__line_ids_destroy(&sys->line_ids);
	sys->magic = 0;
	free(sys);
}

/* The fields tlbgen_system__create() checks before it allocates anything. */
static int check_system_opts(const struct tlbgen_system_opts *o)
{
	if (o->nr_cpus > TLBGEN_MAX_CPUS || (o->mode != TLBGEN_MODE_STEPPED &&
					     o->mode != TLBGEN_MODE_THREADED &&
					     o->mode != TLBGEN_MODE_VIRTUAL))
		return -EINVAL;
	if (o->machine && (o->mode != TLBGEN_MODE_VIRTUAL || tlbgen__machine_valid(o->machine)))
		return -EINVAL;
	if (o->flags & ~(TLBGEN_SYS_NO_ORACLE | TLBGEN_SYS_NO_STATS))
		return -EINVAL;
	if (o->clock && (!o->clock->hz || o->clock->hz > 100000))
		return -EINVAL;
	if (o->tlb_sets > (1U << 16) || o->tlb_ways > 64)
		return -EINVAL;
	if (o->runtime && TLBGEN_OPTS_VALID(o->runtime, tlbgen_runtime_opts, yields_before_sleep))
		return -EINVAL;
	return check_invlpgb_opts(o);
}

/* Virtual time: the machine model, and the TLB costs derived from it. */
static void system_init_machine(struct tlbgen_system *sys, const struct tlbgen_system_opts *o)
{
	/* A caller's shorter struct keeps skylake-56's later fields. */
	tlbgen_machine_lookup("skylake-56", &sys->machine);
	if (o->machine)
		TLBGEN_OPTS_COPY(&sys->machine, o->machine);
	/* ... except its SMT: a model that does not say has one thread
	 * per core, not skylake-56's two. */
	if (o->machine && (o->machine->sz < offsetofend(struct tlbgen_machine, threads_per_core) ||
			   !o->machine->threads_per_core))
		sys->machine.threads_per_core = 1;
	/* ... and the LRU's lock: a model from before lru_folio has none. */
	if (o->machine && o->machine->sz < offsetofend(struct tlbgen_machine, lru_folio))
		sys->machine.lru_folio = 0;
	sys->machine.sz = sizeof(sys->machine);
	/* The TLB costs the observers charge come from the machine. */
	sys->cost_model.sz = sizeof(sys->cost_model);
	sys->cost_model.inv_page_cycles = sys->machine.invlpg;
	sys->cost_model.full_flush_cycles = sys->machine.cr3_write;
	sys->cost_model.refill_cycles = sys->machine.refill;
	sys->cost_model.mhz = sys->machine.mhz;
	sys->cost_model.invlpgb_cycles = sys->machine.invlpgb;
	/* The wait covers every CPU of the domain: the system's. */
	sys->cost_model.tlbsync_cycles = sys->machine.tlbsync +
					 sys->machine.tlbsync_per_cpu * o->nr_cpus;
}

/* Everything taken from the options that allocates nothing that can fail. */
static void system_init_params(struct tlbgen_system *sys, const struct tlbgen_system_opts *o)
{
	sys->magic = TLBGEN_SYS_MAGIC;
	sys->nr_cpus = o->nr_cpus;
	sys->mode = o->mode;
	sys->flags = o->flags;
	sys->tlb_sets = o->tlb_sets ? o->tlb_sets : 64;
	sys->tlb_ways = o->tlb_ways ? o->tlb_ways : 8;
	sys->transport = o->mode == TLBGEN_MODE_STEPPED  ? &tlbgen__stepped_transport :
			 o->mode == TLBGEN_MODE_THREADED ? &tlbgen__threaded_transport :
							   &tlbgen__virtual_transport;
	if (o->mode == TLBGEN_MODE_VIRTUAL)
		system_init_machine(sys, o);
	sys->mask_longs = TLBGEN_MASK_LONGS(o->nr_cpus);
	sys->rng = o->seed ? o->seed : 0x9E3779B97F4A7C15ULL;
	if (o->clock)
		sys->clock = *o->clock;
	else
		sys->clock.hz = TLBGEN_DEFAULT_HZ;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &sys->clock_base);
	if (o->runtime)
		TLBGEN_OPTS_COPY(&sys->rt_opts, o->runtime);
	pthread_mutex_init(&sys->lock, NULL);
	tlbgen__line_ids_init(&sys->line_ids);
	/* Threaded: first touches follow the real interleaving, so ordinals
	 * would not repeat anyway, and their table would serialise every
	 * traced access of every CPU thread. Stepped and virtual time run on
	 * the one host thread: no lock. */
	sys->line_ids.addresses = o->mode == TLBGEN_MODE_THREADED;
	sys->line_ids.shared = o->mode == TLBGEN_MODE_THREADED;
	tlbgen__arena_init(&sys->arena);
}

/* The per-system tables sized by nr_cpus; any failure is -ENOMEM. */
static int system_alloc_tables(struct tlbgen_system *sys, unsigned int nr_cpus)
{
	sys->all_cpus_mask = calloc(sys->mask_longs, sizeof(*sys->all_cpus_mask));
	/* Cacheline aligned: one initiator's records share no line with another's. */
	sys->flush_recs = aligned_alloc(TLBGEN_CACHELINE, (size_t)nr_cpus *
					TLBGEN_FLUSH_REC_PER_CPU * sizeof(*sys->flush_recs));
	if (sys->flush_recs)
		memset(sys->flush_recs, 0, (size_t)nr_cpus * TLBGEN_FLUSH_REC_PER_CPU *
					   sizeof(*sys->flush_recs));
	_Static_assert(TLBGEN_MAX_CPUS <= TLBGEN_RANKMAP_MAX_BITS, "ipi_pending holds every CPU");
	sys->cpus = calloc(nr_cpus, sizeof(*sys->cpus));
	if (!sys->all_cpus_mask || !sys->flush_recs || !sys->cpus ||
	    tlbgen__rankmap_init(&sys->ipi_pending, nr_cpus))
		return -ENOMEM;
	for (unsigned int i = 0; i < nr_cpus; i++)
		cpumask_set_cpu(i, sys->all_cpus_mask);
	return 0;
}

/* init_mm, then every emulated CPU that starts out running it. */
static int system_init_cpus(struct tlbgen_system *sys, unsigned int nr_cpus)
{
	/* init_mm: ctx_id 1, no user pages. */
	int err = tlbgen__mm_alloc(sys, 0, &sys->init_mm);

	if (err)
		return err;
	/*
	 * Every struct tlbgen_cpu first, then the other blocks: a delivery
	 * touches the target's struct, rarely its cfd masks or TLB, so the
	 * structs sit back to back in the arena, each on its own lines.
	 */
	for (unsigned int i = 0; i < nr_cpus; i++) {
		err = tlbgen__init_cpu(sys, i);
		if (err)
			return err;
	}
	for (unsigned int i = 0; i < nr_cpus; i++) {
		err = tlbgen__init_cpu_blocks(sys, i);
		if (err)
			return err;
	}
	return 0;
}

TLBGEN_API int tlbgen_system__create(const struct tlbgen_system_opts *opts,
				     struct tlbgen_system **out)
{
	struct tlbgen_system_opts o = { 0 };
	struct tlbgen_system *sys;
	int err;

	if (!opts || !out || TLBGEN_OPTS_VALID(opts, tlbgen_system_opts, riscv_svinval))
		return -EINVAL;
	TLBGEN_OPTS_COPY(&o, opts);
	if (!o.nr_cpus)
		o.nr_cpus = 4;
	err = check_system_opts(&o);
	if (err)
		return err;

	sys = calloc(1, sizeof(*sys));
	if (!sys)
		return -ENOMEM;
	err = tlbgen__profile_lookup(o.profile ? o.profile : "latest", &sys->profile);
	if (err) {
		free(sys);
		return err;
	}
	system_init_params(sys, &o);

	err = system_alloc_tables(sys, o.nr_cpus);
	if (err)
		goto fail;
	err = system_init_cpus(sys, o.nr_cpus);
	if (err)
		goto fail;
	sys->invlpgb = o.invlpgb;
	sys->no_pcid = o.no_pcid;
	sys->arm64_repeat_tlbi = o.arm64_repeat_tlbi;
	sys->riscv_sbi_rfence = o.riscv_sbi_rfence;
	sys->tlbi_ipi = o.tlbi_ipi;
	sys->riscv_svinval = o.riscv_svinval;
	if (o.invlpgb) {
		err = tlbgen__global_asid_init(sys, o.global_asids, o.invlpgb_count_max);
		if (err)
			goto fail;
	}
	if (sys->transport->create) {
		err = sys->transport->create(sys);
		if (err)
			goto fail;
	}
	*out = sys;
	return 0;
fail:
	system_free(sys);
	return err;
}

TLBGEN_API int tlbgen_system__destroy(struct tlbgen_system *sys)
{
	if (!tlbgen__sys_valid(sys))
		return -EINVAL;
	if (atomic_load(&sys->attached_cpus) || atomic_load(&sys->waiting_cpus))
		return -EBUSY;
	system_free(sys);
	return 0;
}

TLBGEN_API int tlbgen_system__nr_cpus(const struct tlbgen_system *sys)
{
	return tlbgen__sys_valid(sys) ? (int)sys->nr_cpus : -EINVAL;
}

TLBGEN_API int tlbgen_system__mode(const struct tlbgen_system *sys)
{
	return tlbgen__sys_valid(sys) ? (int)sys->mode : -EINVAL;
}

TLBGEN_API long tlbgen_system__warns(const struct tlbgen_system *sys)
{
	return tlbgen__sys_valid(sys) ? atomic_load_explicit(&sys->nr_warns, memory_order_relaxed)
				     : -EINVAL;
}

TLBGEN_API int tlbgen_system__set_trace(struct tlbgen_system *sys,
					const struct tlbgen_trace_ops *ops)
{
	struct tlbgen_trace_ops o = { 0 };

	if (!tlbgen__sys_valid(sys))
		return -EINVAL;
	if (ops && (ops->sz < sizeof(size_t) || TLBGEN_OPTS_VALID(ops, tlbgen_trace_ops, ctx)))
		return -EINVAL;
	if (tlbgen__check_quiescent(sys))
		return -EBUSY;
	if (ops)
		TLBGEN_OPTS_COPY(&o, ops);
	sys->trace = o;
	sys->tracing = ops != NULL;
	return 0;
}

TLBGEN_API int tlbgen_system__set_line_ids(struct tlbgen_system *sys, enum tlbgen_line_ids ids)
{
	if (!tlbgen__sys_valid(sys) ||
	    (ids != TLBGEN_LINE_IDS_STABLE && ids != TLBGEN_LINE_IDS_ADDRESS))
		return -EINVAL;
	if (tlbgen__check_quiescent(sys))
		return -EBUSY;
	sys->line_ids.addresses = ids == TLBGEN_LINE_IDS_ADDRESS;
	return 0;
}

/* The user's flush-done callback, marked as running so that an operation
 * it starts gets -EDEADLK (tlbgen__check_op()), as one from a cross-CPU
 * callback does. In threaded mode callbacks of several initiators run at
 * once, each on its own CPU's thread: only the initiator is marked. */
static void flush_done_guard(void *ctx, unsigned int initiator)
{
	struct tlbgen_system *sys = ctx;
	struct tlbgen_cpu *c = tlbgen__cpu(sys, initiator);
	bool shared = sys->mode != TLBGEN_MODE_THREADED;

	c->priv.in_flush_done = true;
	if (shared)
		sys->user_done.running = true;
	sys->user_done.fn(sys->user_done.ctx, initiator);
	if (shared)
		sys->user_done.running = false;
	c->priv.in_flush_done = false;
}

TLBGEN_API int tlbgen_system__set_flush_done(struct tlbgen_system *sys, tlbgen_flush_done_fn fn,
					     void *ctx)
{
	if (!tlbgen__sys_valid(sys))
		return -EINVAL;
	if (tlbgen__check_quiescent(sys))
		return -EBUSY;
	sys->user_done.fn = fn;
	sys->user_done.ctx = fn ? ctx : NULL;
	sys->flush_done = fn ? flush_done_guard : NULL;
	sys->flush_done_ctx = fn ? sys : NULL;
	return 0;
}

/* ---- CPU state queries ------------------------------------------------------- */

TLBGEN_API int tlbgen_cpu__tlbstate(const struct tlbgen_system *sys, unsigned int cpu,
				    struct tlbgen_cpu_tlbstate *out)
{
	const struct tlbgen_cpu *c;
	struct tlbgen_mm *mm;

	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus || !out)
		return -EINVAL;
	c = tlbgen__cpu(sys, cpu);
	mm = tlbgen__peek_loaded_mm(sys, cpu);
	memset(out, 0, sizeof(*out));
	out->loaded_mm_switching = mm == LOADED_MM_SWITCHING;
	out->loaded_mm_ctx_id = out->loaded_mm_switching ? 0 : mm->context.ctx_id;
	out->loaded_mm_asid = tlbgen__this_loaded_mm_asid(sys, cpu);
	out->next_asid = c->tlbstate.next_asid;
	out->is_lazy = tlbgen__this_is_lazy(sys, cpu);
	for (int i = 0; i < TLBGEN_TLB_NR_DYN_ASIDS; i++) {
		out->ctxs[i].ctx_id = c->tlbstate.ctxs[i].ctx_id;
		out->ctxs[i].tlb_gen = c->tlbstate.ctxs[i].tlb_gen;
	}
	return 0;
}

TLBGEN_API int tlbgen_cpu__loaded_mm_is(const struct tlbgen_system *sys, unsigned int cpu,
					const struct tlbgen_mm *mm)
{
	struct tlbgen_mm *cur;

	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus || (mm && !tlbgen__mm_valid(sys, mm)))
		return -EINVAL;
	cur = atomic_load_explicit(&tlbgen__cpu(sys, cpu)->tlbstate.loaded_mm,
				   memory_order_acquire);
	return cur == (mm ? mm : sys->init_mm);
}

TLBGEN_API int tlbgen_cpu__local_tlb_gen(const struct tlbgen_system *sys, unsigned int cpu,
					 uint64_t *out)
{
	const struct tlbgen_cpu *c;
	uint16_t asid;

	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus || !out)
		return -EINVAL;
	c = tlbgen__cpu(sys, cpu);
	asid = tlbgen__this_loaded_mm_asid(sys, cpu);
	/* A global ASID has no generation: INVLPGB keeps it current. */
	*out = tlbgen__is_global_asid(asid) ? 0 : c->tlbstate.ctxs[asid].tlb_gen;
	return 0;
}
