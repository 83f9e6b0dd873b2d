// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/system.c - system lifecycle: emulated CPUs, init_mm, the clock, option
 * validation and diagnostics.
 */
#include <stdio.h>
#include <time.h>

#include "tlbgen_config.h"
#if HAVE_LIBNUMA
#include <numa.h>
#endif

#include "internal.h"

static struct tlbgen_mm switching_marker;
/* LOADED_MM_SWITCHING: an address that is never a real mm. */
struct tlbgen_mm *const LOADED_MM_SWITCHING = &switching_marker;

static int default_print(enum tlbgen_print_level level, const char *fmt, va_list ap)
{
	if (level == TLBGEN_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static _Atomic(tlbgen_print_fn_t) print_fn = default_print;

TLBGEN_API tlbgen_print_fn_t tlbgen_set_print(tlbgen_print_fn_t fn)
{
	return atomic_exchange(&print_fn, fn);
}

void tlbgen__pr(enum tlbgen_print_level level, const char *fmt, ...)
{
	tlbgen_print_fn_t fn = atomic_load(&print_fn);
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	fn(level, fmt, ap);
	va_end(ap);
}

TLBGEN_API const char *tlbgen_version(void)
{
	return TLBGEN_VERSION_STRING;
}

TLBGEN_API unsigned int tlbgen_version_number(void)
{
	return TLBGEN_VERSION_NUMBER;
}

/* libbpf's OPTS_VALID: bytes the library does not know about must be zero. */
int tlbgen__opts_valid(const void *opts, size_t user_sz, size_t known_sz)
{
	const char *p = opts;

	if (user_sz < sizeof(size_t))
		return -EINVAL;
	for (size_t i = known_sz; i < user_sz; i++)
		if (p[i])
			return -EINVAL;
	return 0;
}

/* ---- clock ----------------------------------------------------------------- */

#define TLBGEN_DEFAULT_HZ 1000

uint64_t tlbgen__jiffies(const struct tlbgen_system *sys)
{
	struct timespec ts;

	if (sys->clock.jiffies)
		return sys->clock.jiffies(sys->clock.ctx);
	if (sys->mode == TLBGEN_MODE_STEPPED)
		return atomic_load_explicit(&((struct tlbgen_system *)sys)->virt_jiffies,
					    memory_order_relaxed);
	/* Tick-granular like the kernel's jiffies, and a vDSO read of a few ns
	 * rather than ~35 ns on every should_trim_cpumask(). */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)(ts.tv_sec - sys->clock_base.tv_sec) * sys->clock.hz +
	       (uint64_t)((ts.tv_nsec - sys->clock_base.tv_nsec) / (1000000000L / sys->clock.hz));
}

unsigned int tlbgen__hz(const struct tlbgen_system *sys)
{
	return sys->clock.hz;
}

TLBGEN_API int tlbgen_system__jiffies(const struct tlbgen_system *sys, uint64_t *out)
{
	if (!tlbgen_sys_valid(sys) || !out)
		return -EINVAL;
	*out = tlbgen__jiffies(sys);
	return 0;
}

TLBGEN_API int tlbgen_system__hz(const struct tlbgen_system *sys)
{
	return tlbgen_sys_valid(sys) ? (int)sys->clock.hz : -EINVAL;
}

TLBGEN_API int tlbgen_clock_advance(struct tlbgen_system *sys, uint64_t jiffies)
{
	if (!tlbgen_sys_valid(sys))
		return -EINVAL;
	if (sys->clock.jiffies || sys->mode != TLBGEN_MODE_STEPPED)
		return -EOPNOTSUPP;
	atomic_fetch_add_explicit(&sys->virt_jiffies, jiffies, memory_order_relaxed);
	return 0;
}

/* ---- CPUs ------------------------------------------------------------------ */

/*
 * Per-CPU state on the node of the CPU's thread (threaded mode, libnuma
 * available), else cache-aligned heap. A one-line header before the object
 * remembers which, so tlbgen__free_cpu() needs no system.
 */
struct tlbgen_cpu_alloc_hdr {
	size_t total;
	int numa;
} __cacheline_aligned;

void *tlbgen__alloc_cpu(struct tlbgen_system *sys, unsigned int cpu, size_t size)
{
	struct tlbgen_cpu_alloc_hdr *h = NULL;
	size_t total;
	int node = sys ? tlbgen__rt_cpu_node(sys, cpu) : -1;

	size = (size + TLBGEN_CACHELINE - 1) & ~(size_t)(TLBGEN_CACHELINE - 1);
	total = size + sizeof(*h);
#if HAVE_LIBNUMA
	if (node >= 0) {
		h = numa_alloc_onnode(total, node);
		if (h) {
			memset(h, 0, total);
			h->numa = 1;
		}
	}
#else
	(void)node;
#endif
	if (!h) {
		h = aligned_alloc(TLBGEN_CACHELINE, total);
		if (!h)
			return NULL;
		memset(h, 0, total);
	}
	h->total = total;
	return h + 1;
}

void tlbgen__free_cpu(void *p, size_t size)
{
	struct tlbgen_cpu_alloc_hdr *h;

	(void)size;
	if (!p)
		return;
	h = (struct tlbgen_cpu_alloc_hdr *)p - 1;
#if HAVE_LIBNUMA
	if (h->numa) {
		numa_free(h, h->total);
		return;
	}
#endif
	free(h);
}

int tlbgen__check_op(const struct tlbgen_system *sys, unsigned int cpu)
{
	int err;

	if (!tlbgen_sys_valid(sys) || cpu >= sys->nr_cpus)
		return -EINVAL;
	err = sys->transport->check_cpu(sys, cpu);
	if (err)
		return err;
	/*
	 * From a cross-CPU callback (IRQs off on cpu): a nested flush would
	 * reuse this CPU's cfd mask, csds and flush_tlb_info under the one in
	 * flight, and its IRQ-enable would re-enter the queue drain. The
	 * kernel WARNs (smp_call_function_many_cond: irqs_disabled()).
	 */
	if (atomic_load_explicit(&tlbgen_cpu(sys, cpu)->priv.irqs_disabled, memory_order_relaxed))
		return -EDEADLK;
	return 0;
}

int tlbgen__check_initiator(struct tlbgen_system *sys, unsigned int cpu)
{
	int err = tlbgen__check_op(sys, cpu);

	return err ? err : tlbgen__smp_prepare(sys, cpu);
}

static void tlbgen__free_cpus(struct tlbgen_system *sys)
{
	for (unsigned int i = 0; i < sys->nr_cpus && sys->cpus; i++) {
		if (!sys->cpus[i])
			continue;
		tlbgen__smp_free_cpu(sys, i);
		tlbgen__simtlb_free(sys, i);
		tlbgen__free_cpu(sys->cpus[i], sizeof(struct tlbgen_cpu));
	}
	free(sys->cpus);
}

static int tlbgen__init_cpu(struct tlbgen_system *sys, unsigned int i)
{
	struct tlbgen_cpu *c = tlbgen__alloc_cpu(sys, i, sizeof(*c));
	int err;

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
	err = tlbgen__smp_init_cpu(sys, i);
	if (!err)
		err = tlbgen__simtlb_init(sys, i);
	return err;
}

int tlbgen__mm_alloc(struct tlbgen_system *sys, unsigned long nr_pages, struct tlbgen_mm **out);
void tlbgen__mm_free(struct tlbgen_mm *mm);

TLBGEN_API int tlbgen_system__create(const struct tlbgen_system_opts *opts,
				     struct tlbgen_system **out)
{
	struct tlbgen_system_opts o = { 0 };
	struct tlbgen_system *sys;
	int err;

	if (!opts || !out || tlbgen__opts_valid(opts, opts->sz, sizeof(o)))
		return -EINVAL;
	memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (!o.nr_cpus)
		o.nr_cpus = 4;
	if (o.nr_cpus > TLBGEN_MAX_CPUS || (o.mode != TLBGEN_MODE_STEPPED &&
					    o.mode != TLBGEN_MODE_THREADED))
		return -EINVAL;
	if (o.flags & ~(TLBGEN_SYS_NO_ORACLE | TLBGEN_SYS_NO_STATS))
		return -EINVAL;
	if (o.clock && (!o.clock->hz || o.clock->hz > 100000))
		return -EINVAL;
	if (o.tlb_sets > (1U << 16) || o.tlb_ways > 64)
		return -EINVAL;
	if (o.runtime && tlbgen__opts_valid(o.runtime, o.runtime->sz,
					    sizeof(struct tlbgen_runtime_opts)))
		return -EINVAL;

	sys = calloc(1, sizeof(*sys));
	if (!sys)
		return -ENOMEM;
	err = tlbgen__policy_lookup(o.profile ? o.profile : "latest", &sys->policy);
	if (err) {
		free(sys);
		return err;
	}
	sys->magic = TLBGEN_SYS_MAGIC;
	sys->nr_cpus = o.nr_cpus;
	sys->mode = o.mode;
	sys->flags = o.flags;
	sys->tlb_sets = o.tlb_sets ? o.tlb_sets : 64;
	sys->tlb_ways = o.tlb_ways ? o.tlb_ways : 8;
	sys->transport = o.mode == TLBGEN_MODE_STEPPED ? &tlbgen_stepped_transport
						       : &tlbgen_threaded_transport;
	sys->mask_longs = TLBGEN_MASK_LONGS(o.nr_cpus);
	sys->rng = o.seed ? o.seed : 0x9E3779B97F4A7C15ULL;
	if (o.clock)
		sys->clock = *o.clock;
	else
		sys->clock.hz = TLBGEN_DEFAULT_HZ;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &sys->clock_base);
	if (o.runtime)
		memcpy(&sys->rt_opts, o.runtime,
		       o.runtime->sz < sizeof(sys->rt_opts) ? o.runtime->sz : sizeof(sys->rt_opts));
	pthread_mutex_init(&sys->lock, NULL);

	err = -ENOMEM;
	sys->all_cpus_mask = calloc(sys->mask_longs, sizeof(*sys->all_cpus_mask));
	sys->ipi_pending_mask = calloc(sys->mask_longs, sizeof(unsigned long));
	/* Cacheline aligned: one initiator's records share no line with another's. */
	sys->flush_recs = aligned_alloc(TLBGEN_CACHELINE, (size_t)o.nr_cpus *
					TLBGEN_FLUSH_REC_PER_CPU * sizeof(*sys->flush_recs));
	if (sys->flush_recs)
		memset(sys->flush_recs, 0, (size_t)o.nr_cpus * TLBGEN_FLUSH_REC_PER_CPU *
					   sizeof(*sys->flush_recs));
	sys->cpus = calloc(o.nr_cpus, sizeof(*sys->cpus));
	if (!sys->all_cpus_mask || !sys->ipi_pending_mask || !sys->flush_recs || !sys->cpus)
		goto fail;
	for (unsigned int i = 0; i < o.nr_cpus; i++)
		cpumask_set_cpu(i, sys->all_cpus_mask);
	/* init_mm: ctx_id 1, no user pages. */
	err = tlbgen__mm_alloc(sys, 0, &sys->init_mm);
	if (err)
		goto fail;
	for (unsigned int i = 0; i < o.nr_cpus; i++) {
		err = tlbgen__init_cpu(sys, i);
		if (err)
			goto fail;
	}
	err = tlbgen__rt_create(sys);
	if (err)
		goto fail;
	*out = sys;
	return 0;
fail:
	tlbgen__rt_destroy(sys);
	tlbgen__free_cpus(sys);
	if (sys->init_mm)
		tlbgen__mm_free(sys->init_mm);
	free(sys->all_cpus_mask);
	free(sys->ipi_pending_mask);
	free(sys->flush_recs);
	pthread_mutex_destroy(&sys->lock);
	free(sys);
	return err;
}

TLBGEN_API int tlbgen_system__destroy(struct tlbgen_system *sys)
{
	if (!tlbgen_sys_valid(sys))
		return -EINVAL;
	if (atomic_load(&sys->attached_cpus) || atomic_load(&sys->waiting_cpus))
		return -EBUSY;
	tlbgen__rt_destroy(sys);
	while (sys->mm_list) {
		struct tlbgen_mm *mm = sys->mm_list;

		sys->mm_list = mm->priv.next;
		tlbgen__mm_free(mm);
	}
	tlbgen__free_cpus(sys);
	tlbgen__mm_free(sys->init_mm);
	free(sys->all_cpus_mask);
	free(sys->ipi_pending_mask);
	free(sys->flush_recs);
	pthread_mutex_destroy(&sys->lock);
	sys->magic = 0;
	free(sys);
	return 0;
}

TLBGEN_API int tlbgen_system__nr_cpus(const struct tlbgen_system *sys)
{
	return tlbgen_sys_valid(sys) ? (int)sys->nr_cpus : -EINVAL;
}

TLBGEN_API int tlbgen_system__mode(const struct tlbgen_system *sys)
{
	return tlbgen_sys_valid(sys) ? (int)sys->mode : -EINVAL;
}

TLBGEN_API long tlbgen_system__warns(const struct tlbgen_system *sys)
{
	return tlbgen_sys_valid(sys) ? atomic_load_explicit(&sys->nr_warns, memory_order_relaxed)
				     : -EINVAL;
}

TLBGEN_API int tlbgen_system__set_trace(struct tlbgen_system *sys,
					const struct tlbgen_trace_ops *ops)
{
	struct tlbgen_trace_ops o = { 0 };

	if (!tlbgen_sys_valid(sys))
		return -EINVAL;
	if (ops && (ops->sz < sizeof(size_t) ||
		    tlbgen__opts_valid(ops, ops->sz, sizeof(o))))
		return -EINVAL;
	if (atomic_load(&sys->waiting_cpus) || atomic_load(&sys->attached_cpus))
		return -EBUSY;
	if (ops)
		memcpy(&o, ops, ops->sz < sizeof(o) ? ops->sz : sizeof(o));
	sys->trace = o;
	sys->tracing = ops != NULL;
	return 0;
}

/* ---- CPU state queries ------------------------------------------------------- */

TLBGEN_API int tlbgen_cpu__tlbstate(const struct tlbgen_system *sys, unsigned int cpu,
				    struct tlbgen_cpu_tlbstate *out)
{
	const struct tlbgen_cpu *c;
	struct tlbgen_mm *mm;

	if (!tlbgen_sys_valid(sys) || cpu >= sys->nr_cpus || !out)
		return -EINVAL;
	c = tlbgen_cpu(sys, cpu);
	mm = atomic_load_explicit(&((struct tlbgen_cpu *)c)->tlbstate.loaded_mm,
				  memory_order_acquire);
	memset(out, 0, sizeof(*out));
	out->loaded_mm_switching = mm == LOADED_MM_SWITCHING;
	out->loaded_mm_ctx_id = out->loaded_mm_switching ? 0 : mm->context.ctx_id;
	out->loaded_mm_asid = c->tlbstate.loaded_mm_asid;
	out->next_asid = c->tlbstate.next_asid;
	out->is_lazy = atomic_load_explicit(&((struct tlbgen_cpu *)c)->shared.is_lazy,
					    memory_order_relaxed);
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

	if (!tlbgen_sys_valid(sys) || cpu >= sys->nr_cpus || (mm && !tlbgen_mm_valid(sys, mm)))
		return -EINVAL;
	cur = atomic_load_explicit(&tlbgen_cpu(sys, cpu)->tlbstate.loaded_mm,
				   memory_order_acquire);
	return cur == (mm ? mm : sys->init_mm);
}

TLBGEN_API int tlbgen_cpu__local_tlb_gen(const struct tlbgen_system *sys, unsigned int cpu,
					 uint64_t *out)
{
	const struct tlbgen_cpu *c;

	if (!tlbgen_sys_valid(sys) || cpu >= sys->nr_cpus || !out)
		return -EINVAL;
	c = tlbgen_cpu(sys, cpu);
	*out = c->tlbstate.ctxs[c->tlbstate.loaded_mm_asid].tlb_gen;
	return 0;
}
