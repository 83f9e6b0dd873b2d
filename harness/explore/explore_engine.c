// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/explore/explore_engine.c - randomized schedule explorer over
 * stepped mode (see explore_engine.h for the contract).
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <tlbgen/tlbgen.h>

#include "explore_internal.h"
#include "explore_preempt.h"

int xpl_verbose;


static const char *const xop_names[XOP_NR] = {
	[XOP_SWITCH_MM] = "switch_mm",		[XOP_ENTER_LAZY] = "enter_lazy_tlb",
	[XOP_LEAVE_MM] = "leave_mm",		[XOP_FLUSH_RANGE] = "flush_tlb_mm_range",
	[XOP_FLUSH_MM] = "flush_tlb_mm",	[XOP_KERNEL_FLUSH] = "flush_tlb_kernel_range",
	[XOP_BATCH_ADD] = "arch_tlbbatch_add_pending",
	[XOP_BATCH_FLUSH] = "arch_tlbbatch_flush",
	[XOP_ACCESS] = "access",		[XOP_PTE_CHANGE] = "pte_change",
	[XOP_DELIVER] = "deliver",		[XOP_DELIVER_FROM] = "deliver_from",
	[XOP_STEP] = "step",			[XOP_CLOCK] = "clock_advance",
	[XOP_UNMAP_ONE] = "try_to_unmap_one",	[XOP_UNMAP_FLUSH] = "try_to_unmap_flush",
	[XOP_BATCHED_PENDING] = "flush_tlb_batched_pending",
	[XOP_PREEMPT] = "preempt_waiter",
};

const char *xop_name(unsigned int kind)
{
	return kind < XOP_NR ? xop_names[kind] : "?";
}

const char *xpl_kind_name(enum xfail_kind k)
{
	static const char *const n[] = { "none", "oracle violation", "kernel WARN",
					 "local_tlb_gen > mm_tlb_gen", "bad partial flush",
					 "unexpected errno", "setup" };
	return (unsigned int)k < sizeof(n) / sizeof(n[0]) ? n[k] : "?";
}

static void fail(struct xctx *x, enum xfail_kind k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(struct xctx *x, enum xfail_kind k, const char *fmt, ...)
{
	va_list ap;

	if (x->f->kind != XF_NONE)
		return;
	x->f->kind = k;
	x->f->op = x->cur;
	va_start(ap, fmt);
	vsnprintf(x->f->msg, sizeof(x->f->msg), fmt, ap);
	va_end(ap);
}

int xpl__find_mm(const struct xctx *x, uint64_t ctx_id)
{
	for (unsigned int i = 1; i <= x->cfg->nr_mms; i++)
		if (x->ctx_id[i] == ctx_id)
			return (int)i;
	return -1;
}

static uint64_t mm_gen(const struct xctx *x, int i)
{
	uint64_t g = 0;

	tlbgen_mm__tlb_gen(x->mm[i], &g);
	return g;
}

/*
 * Trace hook: a partial flush is about to invalidate pages on `cpu`; its
 * local generation is not yet updated. The kernel's condition for taking
 * the partial path is new == local + 1 == mm_tlb_gen; in stepped mode nobody
 * can bump mm_tlb_gen in between, so local + 1 == mm_tlb_gen must hold now.
 */
static void on_flush(void *ctx, unsigned int cpu, enum tlbgen_flush_kind kind,
		     unsigned long pages)
{
	struct xctx *x = ctx;
	struct tlbgen_cpu_tlbstate ts;
	int i;

	(void)pages;
	if (kind != TLBGEN_FLUSH_KIND_PARTIAL || x->partial_bad || !x->partial_check)
		return;
	x->st->partial_checks++;
	if (tlbgen_cpu__tlbstate(x->sys, cpu, &ts) ||
	    ts.loaded_mm_asid >= TLBGEN_TLB_NR_DYN_ASIDS) {
		x->partial_bad = true;
		snprintf(x->partial_msg, sizeof(x->partial_msg),
			 "cpu %u: partial flush with no readable tlbstate", cpu);
		return;
	}
	i = xpl__find_mm(x, ts.loaded_mm_ctx_id);
	if (i < 0 || ts.ctxs[ts.loaded_mm_asid].tlb_gen + 1 != mm_gen(x, i)) {
		x->partial_bad = true;
		snprintf(x->partial_msg, sizeof(x->partial_msg),
			 "cpu %u: partial flush with local_tlb_gen %" PRIu64
			 " and mm_tlb_gen %" PRIu64 " (ctx %" PRIu64 ")",
			 cpu, ts.ctxs[ts.loaded_mm_asid].tlb_gen, i < 0 ? 0 : mm_gen(x, i),
			 ts.loaded_mm_ctx_id);
	}
}

void xpl__teardown(struct xctx *x)
{
	if (!x->sys)
		return;
	xpl_preempt_settle(x->sys, x->cfg->nr_cpus);
	tlbgen_run_until_idle(x->sys);
	for (unsigned int c = 0; c < XPL_MAX_CPUS; c++) {
		if (x->batch[c])
			tlbgen_tlbbatch__destroy(x->batch[c]);
		if (x->ubc[c])
			tlbgen_unmap_batch__destroy(x->ubc[c]);
	}
	tlbgen_system__destroy(x->sys);
	x->sys = NULL;
}

/* Does batch_arch select ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH in this profile? */
static bool batching_present(struct tlbgen_system *sys, const char *arch)
{
	const char *off = tlbgen_system__get_choice(sys, "batched_unmap");
	char key[32];
	const char *v;

	if (!arch || (off && !strcmp(off, "off")))
		return false;
	if (!strcmp(arch, "x86"))
		return true;
	snprintf(key, sizeof(key), "%s_batched_unmap", arch);
	v = tlbgen_system__get_choice(sys, key);
	return v && !strcmp(v, "on");
}

int xpl__setup(struct xctx *x, const struct xcfg *cfg, struct xfail *f, struct xstats *st)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = cfg->nr_cpus, .mode = TLBGEN_MODE_STEPPED,
		    .profile = cfg->profile, .seed = cfg->sys_seed, .tlb_sets = cfg->tlb_sets,
		    .tlb_ways = cfg->tlb_ways);
	TLBGEN_OPTS(tlbgen_trace_ops, tr, .flush = on_flush);
	int err;

	memset(x, 0, sizeof(*x));
	memset(f, 0, sizeof(*f));
	x->cfg = cfg;
	x->f = f;
	x->st = st;
	tr.ctx = x;
	if (cfg->nr_cpus < 2 || cfg->nr_cpus > XPL_MAX_CPUS || cfg->nr_mms < 1 ||
	    cfg->nr_mms > XPL_MAX_MMS) {
		fail(x, XF_SETUP, "bad configuration");
		return -EINVAL;
	}
	err = tlbgen_system__create(&o, &x->sys);
	if (!err && cfg->choices)
		err = tlbgen_system__set_choices(x->sys, cfg->choices);
	for (unsigned int i = 1; !err && i <= cfg->nr_mms; i++) {
		err = tlbgen_mm__create(x->sys, XPL_NR_PAGES, &x->mm[i]);
		x->ctx_id[i] = err ? 0 : tlbgen_mm__ctx_id(x->mm[i]);
	}
	for (unsigned int c = 0; !err && c < cfg->nr_cpus; c++) {
		err = tlbgen_tlbbatch__create(x->sys, &x->batch[c]);
		if (!err)
			err = tlbgen_unmap_batch__create(x->sys, &x->ubc[c]);
	}
	if (!err) {
		/* arm64/riscv batch hooks flush ranges without generations:
		 * the partial-flush condition is x86's flush_tlb_func() only. */
		const char *arch = tlbgen_system__get_choice(x->sys, "batch_arch");

		x->partial_check = !arch || !strcmp(arch, "x86");
		x->batching = batching_present(x->sys, arch);
		err = tlbgen_system__set_trace(x->sys, &tr);
	}
	if (err) {
		fail(x, XF_SETUP, "setup failed: %d (profile %s, choices %s)", err, cfg->profile,
		     cfg->choices ? cfg->choices : "-");
		xpl__teardown(x);
	}
	return err;
}

void xpl__check_invariants(struct xctx *x)
{
	long v = tlbgen_oracle__violations(x->sys), w;
	struct tlbgen_cpu_tlbstate ts;

	if (v > 0) {
		struct tlbgen_violation viol;
		char buf[400] = "";

		if (!tlbgen_oracle__violation(x->sys, 0, &viol))
			tlbgen_oracle__format(&viol, buf, sizeof(buf));
		x->st->violations_found++;
		fail(x, XF_ORACLE, "%s", buf);
		return;
	}
	if (x->partial_bad) {
		fail(x, XF_PARTIAL, "%s", x->partial_msg);
		return;
	}
	w = tlbgen_system__warns(x->sys);
	if (w != x->warns_expected) {
		fail(x, XF_WARN, "%ld kernel WARN condition(s) hit, %ld expected", w,
		     x->warns_expected);
		return;
	}
	/* WARN_ON_ONCE(local_tlb_gen > mm_tlb_gen), for every ASID slot. */
	for (unsigned int c = 0; c < x->cfg->nr_cpus; c++) {
		if (tlbgen_cpu__tlbstate(x->sys, c, &ts)) {
			fail(x, XF_ERRNO, "tlbgen_cpu__tlbstate(%u) failed", c);
			return;
		}
		for (int a = 0; a < TLBGEN_TLB_NR_DYN_ASIDS; a++) {
			int i = xpl__find_mm(x, ts.ctxs[a].ctx_id);

			if (i > 0 && ts.ctxs[a].tlb_gen > mm_gen(x, i)) {
				fail(x, XF_GEN, "cpu %u asid %d: local_tlb_gen %" PRIu64
				     " > mm_tlb_gen %" PRIu64 " (ctx %" PRIu64 ")", c, a,
				     ts.ctxs[a].tlb_gen, mm_gen(x, i), ts.ctxs[a].ctx_id);
				return;
			}
		}
	}
}

void xpl__op_range(const struct xop *o, unsigned long *start, unsigned long *end,
		   unsigned int *shift)
{
	unsigned long first = o->a % XPL_NR_PAGES, last;

	*shift = (o->flags & XOP_F_STRIDE21) ? 21 : 12;
	if (o->b == 0) {
		*start = 0;
		*end = TLBGEN_TLB_FLUSH_ALL;
		return;
	}
	last = first + (o->b % XPL_NR_PAGES) + 1;
	if (last > XPL_NR_PAGES)
		last = XPL_NR_PAGES;
	if (*shift == 21) {
		/* A 2 MiB stride flushes huge-page-aligned ranges. */
		first &= ~511UL;
		last = (last + 511) & ~511UL;
		if (last > XPL_NR_PAGES)
			last = XPL_NR_PAGES;
	}
	*start = first << TLBGEN_PAGE_SHIFT;
	*end = last << TLBGEN_PAGE_SHIFT;
}

bool xpl__is_cpu_op(unsigned int kind)
{
	switch (kind) {
	case XOP_DELIVER: case XOP_DELIVER_FROM: case XOP_STEP: case XOP_CLOCK:
	case XOP_PTE_CHANGE: case XOP_PREEMPT:
		return false;
	default:
		return true;
	}
}

/*
 * The library call of an op that the common checks of xpl__exec_op()
 * judge: mm switches, flushes, batches, PTE changes, unmaps and the clock
 * (leave_mm()'s documented WARN counted here).
 */
static long exec_call(struct xctx *x, const struct xop *o, unsigned int cpu, int waiting,
		      const struct tlbgen_cpu_tlbstate *ts)
{
	struct tlbgen_system *sys = x->sys;
	struct tlbgen_mm *mm = x->mm[1 + o->mm % x->cfg->nr_mms];
	unsigned long start, end;
	unsigned int shift;
	long ret;

	xpl__op_range(o, &start, &end, &shift);
	switch (o->kind) {
	case XOP_SWITCH_MM:
		return tlbgen_switch_mm(sys, cpu, o->mm % (x->cfg->nr_mms + 1) ?
					x->mm[o->mm % (x->cfg->nr_mms + 1)] : NULL);
	case XOP_ENTER_LAZY:
		return tlbgen_enter_lazy_tlb(sys, cpu);
	case XOP_LEAVE_MM:
		ret = tlbgen_leave_mm(sys, cpu);
		/* Documented: a CPU that is not lazy WARNs, then switches. */
		if (!waiting && ret == 0 && !ts->is_lazy && ts->loaded_mm_ctx_id != 1)
			x->warns_expected++;
		return ret;
	case XOP_FLUSH_RANGE:
		return tlbgen_flush_tlb_mm_range(sys, cpu, mm, start, end, shift,
						 o->flags & XOP_F_FREED);
	case XOP_FLUSH_MM:
		return tlbgen_flush_tlb_mm(sys, cpu, mm);
	case XOP_KERNEL_FLUSH:
		return tlbgen_flush_tlb_kernel_range(sys, cpu, start, end);
	case XOP_BATCH_ADD:
		return tlbgen_arch_tlbbatch_add_pending(sys, cpu, x->batch[cpu], mm,
							end == TLBGEN_TLB_FLUSH_ALL ? 0 : start,
							end == TLBGEN_TLB_FLUSH_ALL ?
							XPL_NR_PAGES << TLBGEN_PAGE_SHIFT : end);
	case XOP_BATCH_FLUSH:
		return tlbgen_arch_tlbbatch_flush(sys, cpu, x->batch[cpu]);
	case XOP_PTE_CHANGE:
		return tlbgen_pte_change(sys, cpu, mm, (unsigned long)(o->a % XPL_NR_PAGES)
						       << TLBGEN_PAGE_SHIFT);
	case XOP_CLOCK:
		return tlbgen_clock_advance(sys, o->a % 512);
	case XOP_UNMAP_ONE:
		/* Always an accessible PTE: the caller never claims a TLB
		 * cannot hold it. Returns 1 deferred, 0 flushed. */
		return tlbgen_try_to_unmap_one(sys, cpu, x->ubc[cpu], mm,
					       (unsigned long)(o->a % XPL_NR_PAGES) << TLBGEN_PAGE_SHIFT,
					       o->flags & XOP_F_BATCH ? TLBGEN_TTU_BATCH_FLUSH : 0,
					       TLBGEN_PTE_ACCESSIBLE |
					       (o->flags & XOP_F_DIRTY ? TLBGEN_PTE_DIRTY : 0));
	case XOP_UNMAP_FLUSH:
		return o->flags & XOP_F_DIRTY ? tlbgen_try_to_unmap_flush_dirty(sys, cpu, x->ubc[cpu])
					      : tlbgen_try_to_unmap_flush(sys, cpu, x->ubc[cpu]);
	case XOP_BATCHED_PENDING:
		return tlbgen_flush_tlb_batched_pending(sys, cpu, mm, NULL);
	}
	return 0;
}

/* Execute one op; returns the library's return value (for the trace). */
long xpl__exec_op(struct xctx *x, const struct xop *o)
{
	struct tlbgen_system *sys = x->sys;
	unsigned int n = x->cfg->nr_cpus, cpu = o->cpu % n;
	int waiting = tlbgen_cpu__is_waiting(sys, cpu);
	struct tlbgen_cpu_tlbstate ts;
	long ret = 0;

	if (o->kind >= XOP_NR) {
		fail(x, XF_ERRNO, "bad op kind %u", o->kind);
		return -EINVAL;
	}
	if (o->kind == XOP_PTE_CHANGE && waiting)
		return 0;	/* a CPU spinning in csd_lock_wait() edits no page table */
	tlbgen_cpu__tlbstate(sys, cpu, &ts);

	/* The ops with results of their own first, then the common checks. */
	switch (o->kind) {
	case XOP_ACCESS:
		ret = tlbgen_access(sys, cpu, (unsigned long)(o->a % XPL_NR_PAGES)
					      << TLBGEN_PAGE_SHIFT);
		if (!waiting) {
			bool running = !ts.is_lazy && ts.loaded_mm_ctx_id > 1;

			if (running ? (ret != 0 && ret != 1) : ret != -ESRCH)
				fail(x, XF_ERRNO, "access on cpu %u returned %ld (running=%d)",
				     cpu, ret, running);
			return ret;
		}
		break;
	case XOP_DELIVER:
		ret = tlbgen_deliver(sys, cpu);
		if (ret < 0)
			fail(x, XF_ERRNO, "deliver(%u) returned %ld", cpu, ret);
		return ret;
	case XOP_DELIVER_FROM:
		ret = tlbgen_deliver_from(sys, cpu, o->b % n);
		if (ret != 1 && ret != -ENOENT)
			fail(x, XF_ERRNO, "deliver_from(%u, %u) returned %ld", cpu, o->b % n, ret);
		return ret;
	case XOP_STEP:
		ret = tlbgen_step(sys);
		if (ret < 0 && ret != -ENOENT)
			fail(x, XF_ERRNO, "step returned %ld", ret);
		return ret;
	case XOP_PREEMPT:
		if (xpl_preempt_op(sys, cpu, &ret))
			fail(x, XF_ERRNO, "preempt_waiter(%u) returned %ld", cpu, ret);
		return ret;
	default:
		ret = exec_call(x, o, cpu, waiting, &ts);
		break;
	}
	if ((o->kind == XOP_BATCH_ADD || o->kind == XOP_BATCH_FLUSH) && !x->batching &&
	    !waiting) {
		/* Documented: the hooks do not exist where the arch does not batch. */
		if (ret != -EOPNOTSUPP)
			fail(x, XF_ERRNO, "%s without batching returned %ld, not -EOPNOTSUPP",
			     xop_name(o->kind), ret);
		return ret;
	}
	if (xpl__is_cpu_op(o->kind) && waiting) {
		/* Documented: -EBUSY, nothing done, while waiting for acks. */
		if (ret != -EBUSY)
			fail(x, XF_ERRNO, "%s on waiting cpu %u returned %ld, not -EBUSY",
			     xop_name(o->kind), cpu, ret);
		else
			x->st->ebusy++;
		return ret;
	}
	if (ret != 0 && !(ret == 1 && o->kind >= XOP_UNMAP_ONE))
		fail(x, XF_ERRNO, "%s on cpu %u returned %ld", xop_name(o->kind), cpu, ret);
	return ret;
}

void xpl__final_audit(struct xctx *x)
{
	if (xpl_preempt_settle(x->sys, x->cfg->nr_cpus) ||
	    tlbgen_run_until_idle(x->sys) < 0) {
		fail(x, XF_ERRNO, "run_until_idle failed");
		return;
	}
	for (unsigned int c = 0; c < x->cfg->nr_cpus; c++) {
		if (tlbgen_cpu__is_waiting(x->sys, c) != 0)
			fail(x, XF_ERRNO, "cpu %u still waiting after run_until_idle", c);
		tlbgen_oracle__audit_cpu(x->sys, c);
	}
	xpl__check_invariants(x);
}

enum xfail_kind xpl_run(const struct xcfg *cfg, const struct xop *ops, size_t n,
			struct xfail *f, struct xstats *st)
{
	struct xstats dummy = { 0 };
	struct xctx x;

	if (!st)
		st = &dummy;
	if (xpl__setup(&x, cfg, f, st))
		return f->kind;
	st->runs++;
	for (size_t i = 0; i < n && f->kind == XF_NONE; i++) {
		x.cur = i;
		xpl__exec_op(&x, &ops[i]);
		st->ops++;
		xpl__check_invariants(&x);
	}
	if (f->kind == XF_NONE) {
		x.cur = n;
		xpl__final_audit(&x);
	}
	xpl__teardown(&x);
	return f->kind;
}

/* ---- minimiser -------------------------------------------------------- */

static bool still_fails(const struct xcfg *cfg, const struct xop *ops, size_t n,
			enum xfail_kind kind)
{
	struct xfail f;

	return xpl_run(cfg, ops, n, &f, NULL) == kind;
}

size_t xpl_minimise(const struct xcfg *cfg, struct xop *ops, size_t n, enum xfail_kind kind)
{
	struct xop *tmp = malloc((n + 1) * sizeof(*ops));
	struct xfail f;
	size_t chunk;
	bool progress;

	if (!tmp)
		return n;
	/* Everything after the failing op is irrelevant. */
	if (xpl_run(cfg, ops, n, &f, NULL) == kind && f.op + 1 < n)
		n = f.op + 1;
	/* ddmin-style: drop chunks, halving their size, then single ops
	 * until no single op can go. */
	for (chunk = n / 2 ? n / 2 : 1;; chunk = chunk / 2 ? chunk / 2 : 1) {
		progress = false;
		for (size_t i = 0; i < n;) {
			size_t k = i + chunk <= n ? chunk : n - i;

			memcpy(tmp, ops, i * sizeof(*ops));
			memcpy(tmp + i, ops + i + k, (n - i - k) * sizeof(*ops));
			if (n - k > 0 && still_fails(cfg, tmp, n - k, kind)) {
				memcpy(ops, tmp, (n - k) * sizeof(*ops));
				n -= k;
				progress = true;
			} else {
				i += k;
			}
		}
		if (chunk == 1 && !progress)
			break;
	}
	free(tmp);
	return n;
}
