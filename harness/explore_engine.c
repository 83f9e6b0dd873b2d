// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/explore_engine.c - randomized schedule explorer over
 * stepped mode (see explore_engine.h for the contract).
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <tlbgen/tlbgen.h>

#include "explore_engine.h"
#include "explore_preempt.h"

int xpl_verbose;

static void describe(char *buf, size_t len, const struct xcfg *cfg, const struct xop *o);

struct xctx {
	const struct xcfg *cfg;
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm[XPL_MAX_MMS + 1];	/* [0] = NULL: init_mm */
	uint64_t ctx_id[XPL_MAX_MMS + 1];
	struct tlbgen_tlbbatch *batch[XPL_MAX_CPUS];
	struct tlbgen_unmap_batch *ubc[XPL_MAX_CPUS];	/* current->tlb_ubc */
	struct xfail *f;
	struct xstats *st;
	size_t cur;
	bool partial_bad;
	bool partial_check;	/* only x86 flushes carry generations */
	bool batching;		/* the arch_tlbbatch_*() hooks exist under this profile */
	long warns_expected;	/* leave_mm() of a CPU that is not lazy WARNs */
	char partial_msg[200];
};

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

static int find_mm(const struct xctx *x, uint64_t ctx_id)
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
	i = find_mm(x, ts.loaded_mm_ctx_id);
	if (i < 0 || ts.ctxs[ts.loaded_mm_asid].tlb_gen + 1 != mm_gen(x, i)) {
		x->partial_bad = true;
		snprintf(x->partial_msg, sizeof(x->partial_msg),
			 "cpu %u: partial flush with local_tlb_gen %" PRIu64
			 " and mm_tlb_gen %" PRIu64 " (ctx %" PRIu64 ")",
			 cpu, ts.ctxs[ts.loaded_mm_asid].tlb_gen, i < 0 ? 0 : mm_gen(x, i),
			 ts.loaded_mm_ctx_id);
	}
}

static void teardown(struct xctx *x)
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

static int setup(struct xctx *x, const struct xcfg *cfg, struct xfail *f, struct xstats *st)
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
		teardown(x);
	}
	return err;
}

static void check_invariants(struct xctx *x)
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
			int i = find_mm(x, ts.ctxs[a].ctx_id);

			if (i > 0 && ts.ctxs[a].tlb_gen > mm_gen(x, i)) {
				fail(x, XF_GEN, "cpu %u asid %d: local_tlb_gen %" PRIu64
				     " > mm_tlb_gen %" PRIu64 " (ctx %" PRIu64 ")", c, a,
				     ts.ctxs[a].tlb_gen, mm_gen(x, i), ts.ctxs[a].ctx_id);
				return;
			}
		}
	}
}

static void op_range(const struct xop *o, unsigned long *start, unsigned long *end,
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

static bool is_cpu_op(unsigned int kind)
{
	switch (kind) {
	case XOP_DELIVER: case XOP_DELIVER_FROM: case XOP_STEP: case XOP_CLOCK:
	case XOP_PTE_CHANGE: case XOP_PREEMPT:
		return false;
	default:
		return true;
	}
}

/* Execute one op; returns the library's return value (for the trace). */
static long exec_op(struct xctx *x, const struct xop *o)
{
	struct tlbgen_system *sys = x->sys;
	unsigned int n = x->cfg->nr_cpus, cpu = o->cpu % n;
	unsigned int mi = 1 + o->mm % x->cfg->nr_mms;
	struct tlbgen_mm *mm = x->mm[mi];
	int waiting = tlbgen_cpu__is_waiting(sys, cpu);
	unsigned long start, end;
	unsigned int shift;
	struct tlbgen_cpu_tlbstate ts;
	long ret = 0;

	if (o->kind >= XOP_NR) {
		fail(x, XF_ERRNO, "bad op kind %u", o->kind);
		return -EINVAL;
	}
	if (o->kind == XOP_PTE_CHANGE && waiting)
		return 0;	/* a CPU spinning in csd_lock_wait() edits no page table */
	op_range(o, &start, &end, &shift);
	tlbgen_cpu__tlbstate(sys, cpu, &ts);

	switch (o->kind) {
	case XOP_SWITCH_MM:
		ret = tlbgen_switch_mm(sys, cpu, o->mm % (x->cfg->nr_mms + 1) ?
					 x->mm[o->mm % (x->cfg->nr_mms + 1)] : NULL);
		break;
	case XOP_ENTER_LAZY:
		ret = tlbgen_enter_lazy_tlb(sys, cpu);
		break;
	case XOP_LEAVE_MM:
		ret = tlbgen_leave_mm(sys, cpu);
		/* Documented: a CPU that is not lazy WARNs, then switches. */
		if (!waiting && ret == 0 && !ts.is_lazy && ts.loaded_mm_ctx_id != 1)
			x->warns_expected++;
		break;
	case XOP_FLUSH_RANGE:
		ret = tlbgen_flush_tlb_mm_range(sys, cpu, mm, start, end, shift,
						o->flags & XOP_F_FREED);
		break;
	case XOP_FLUSH_MM:
		ret = tlbgen_flush_tlb_mm(sys, cpu, mm);
		break;
	case XOP_KERNEL_FLUSH:
		ret = tlbgen_flush_tlb_kernel_range(sys, cpu, start, end);
		break;
	case XOP_BATCH_ADD:
		ret = tlbgen_arch_tlbbatch_add_pending(sys, cpu, x->batch[cpu], mm,
						       end == TLBGEN_TLB_FLUSH_ALL ? 0 : start,
						       end == TLBGEN_TLB_FLUSH_ALL ?
						       XPL_NR_PAGES << TLBGEN_PAGE_SHIFT : end);
		break;
	case XOP_BATCH_FLUSH:
		ret = tlbgen_arch_tlbbatch_flush(sys, cpu, x->batch[cpu]);
		break;
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
	case XOP_PTE_CHANGE:
		ret = tlbgen_pte_change(sys, cpu, mm, (unsigned long)(o->a % XPL_NR_PAGES)
						      << TLBGEN_PAGE_SHIFT);
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
	case XOP_CLOCK:
		ret = tlbgen_clock_advance(sys, o->a % 512);
		break;
	case XOP_UNMAP_ONE:
		/* Always an accessible PTE: the caller never claims a TLB
		 * cannot hold it. Returns 1 deferred, 0 flushed. */
		ret = tlbgen_try_to_unmap_one(sys, cpu, x->ubc[cpu], mm,
					      (unsigned long)(o->a % XPL_NR_PAGES) << TLBGEN_PAGE_SHIFT,
					      o->flags & XOP_F_BATCH ? TLBGEN_TTU_BATCH_FLUSH : 0,
					      TLBGEN_PTE_ACCESSIBLE |
					      (o->flags & XOP_F_DIRTY ? TLBGEN_PTE_DIRTY : 0));
		break;
	case XOP_UNMAP_FLUSH:
		ret = o->flags & XOP_F_DIRTY ? tlbgen_try_to_unmap_flush_dirty(sys, cpu, x->ubc[cpu])
					     : tlbgen_try_to_unmap_flush(sys, cpu, x->ubc[cpu]);
		break;
	case XOP_BATCHED_PENDING:
		ret = tlbgen_flush_tlb_batched_pending(sys, cpu, mm, NULL);
		break;
	case XOP_PREEMPT:
		if (xpl_preempt_op(sys, cpu, &ret))
			fail(x, XF_ERRNO, "preempt_waiter(%u) returned %ld", cpu, ret);
		return ret;
	}
	if ((o->kind == XOP_BATCH_ADD || o->kind == XOP_BATCH_FLUSH) && !x->batching &&
	    !waiting) {
		/* Documented: the hooks do not exist where the arch does not batch. */
		if (ret != -EOPNOTSUPP)
			fail(x, XF_ERRNO, "%s without batching returned %ld, not -EOPNOTSUPP",
			     xop_name(o->kind), ret);
		return ret;
	}
	if (is_cpu_op(o->kind) && waiting) {
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

static void final_audit(struct xctx *x)
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
	check_invariants(x);
}

enum xfail_kind xpl_run(const struct xcfg *cfg, const struct xop *ops, size_t n,
			struct xfail *f, struct xstats *st)
{
	struct xstats dummy = { 0 };
	struct xctx x;

	if (!st)
		st = &dummy;
	if (setup(&x, cfg, f, st))
		return f->kind;
	st->runs++;
	for (size_t i = 0; i < n && f->kind == XF_NONE; i++) {
		x.cur = i;
		exec_op(&x, &ops[i]);
		st->ops++;
		check_invariants(&x);
	}
	if (f->kind == XF_NONE) {
		x.cur = n;
		final_audit(&x);
	}
	teardown(&x);
	return f->kind;
}

/* ---- generator -------------------------------------------------------- */

uint64_t explore_rnd(uint64_t *s)
{
	/* splitmix64: every seed, including 0, gives a good stream. */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned int explore_rn(uint64_t *s, unsigned int n)
{
	return (unsigned int)(explore_rnd(s) % n);
}

/* Accesses and changes concentrate on a few pages in each 2 MiB half, so
 * that TLB hits, changes and flushes meet. */
static uint32_t hot_page(uint64_t *s)
{
	unsigned int r = explore_rn(s, 10);

	if (r < 6)
		return explore_rn(s, 8);
	if (r < 9)
		return 512 + explore_rn(s, 8);
	return explore_rn(s, XPL_NR_PAGES);
}

void xpl_cfg_from_seed(struct xcfg *cfg, const char *profile, const char *choices,
		       uint64_t seed)
{
	uint64_t s = seed ^ 0x5eed5eed5eedULL;

	memset(cfg, 0, sizeof(*cfg));
	cfg->profile = profile;
	cfg->choices = choices;
	cfg->nr_cpus = 2 + explore_rn(&s, 5);		/* 2..6 */
	cfg->nr_mms = 1 + explore_rn(&s, 3);		/* 1..3 */
	if (explore_rn(&s, 4) == 0) {			/* a tiny TLB: evictions */
		cfg->tlb_sets = 2;
		cfg->tlb_ways = 2;
	}
	cfg->sys_seed = explore_rnd(&s) | 1;
}

struct gen {
	uint64_t s;
	bool pend[XPL_MAX_MMS + 1];
	uint32_t lo[XPL_MAX_MMS + 1], hi[XPL_MAX_MMS + 1];
	bool batch_pend[XPL_MAX_CPUS];
	bool ubc_pend[XPL_MAX_CPUS];
};

static int pick_cpu(struct xctx *x, struct gen *g, bool need_running)
{
	unsigned int n = x->cfg->nr_cpus, cand[XPL_MAX_CPUS], k = 0;

	for (unsigned int c = 0; c < n; c++) {
		struct tlbgen_cpu_tlbstate ts;

		if (tlbgen_cpu__is_waiting(x->sys, c))
			continue;
		if (need_running) {
			tlbgen_cpu__tlbstate(x->sys, c, &ts);
			if (ts.is_lazy || ts.loaded_mm_ctx_id <= 1)
				continue;
		}
		cand[k++] = c;
	}
	if (!k)
		return -1;
	return (int)cand[explore_rn(&g->s, k)];
}

static void gen_op(struct xctx *x, struct gen *g, struct xop *o, bool closing)
{
	unsigned int n = x->cfg->nr_cpus, nm = x->cfg->nr_mms;
	int cpu;

	memset(o, 0, sizeof(*o));
	/* Obligations first: a PTE change must be followed by a covering flush. */
	for (unsigned int m = 1; m <= nm; m++) {
		if (!g->pend[m] || (!closing && explore_rn(&g->s, 100) >= 25))
			continue;
		cpu = pick_cpu(x, g, false);
		if (cpu < 0)
			break;
		o->cpu = (uint8_t)cpu;
		o->mm = (uint8_t)(m - 1);
		o->kind = explore_rn(&g->s, 3) || !x->batching ? XOP_FLUSH_RANGE : XOP_BATCH_ADD;
		switch (explore_rn(&g->s, 6)) {
		case 0:
			o->b = 0;	/* FLUSH_ALL */
			break;
		case 1:
			o->a = g->lo[m];
			o->b = g->hi[m] - g->lo[m] + explore_rn(&g->s, 64);
			o->flags = XOP_F_STRIDE21;
			break;
		default:
			o->a = g->lo[m] > 0 && explore_rn(&g->s, 2) ? g->lo[m] - 1 : g->lo[m];
			o->b = g->hi[m] - o->a + explore_rn(&g->s, 3);
			break;
		}
		if (explore_rn(&g->s, 4) == 0)
			o->flags |= XOP_F_FREED;
		g->pend[m] = false;
		if (o->kind == XOP_BATCH_ADD)
			g->batch_pend[cpu] = true;
		return;
	}
	for (unsigned int c = 0; c < n; c++) {
		if (g->batch_pend[c] && !tlbgen_cpu__is_waiting(x->sys, c) &&
		    (closing || explore_rn(&g->s, 100) < 25)) {
			o->kind = XOP_BATCH_FLUSH;
			o->cpu = (uint8_t)c;
			g->batch_pend[c] = false;
			return;
		}
	}

	for (unsigned int c = 0; c < n; c++) {
		/* The arch promise of a deferred unmap holds once
		 * try_to_unmap_flush() returns: schedule one. */
		if (g->ubc_pend[c] && !tlbgen_cpu__is_waiting(x->sys, c) &&
		    (closing || explore_rn(&g->s, 100) < 20)) {
			o->kind = XOP_UNMAP_FLUSH;
			o->cpu = (uint8_t)c;
			o->flags = closing ? 0 : (explore_rn(&g->s, 4) == 0 ? XOP_F_DIRTY : 0);
			g->ubc_pend[c] = o->flags != 0;	/* _dirty may flush nothing */
			return;
		}
	}
	if (closing) {
		/* The last ops of a run: let every waiting CPU finish. */
		o->kind = XOP_STEP;
		return;
	}
	if (xpl_preempt_gen(x->sys, n, nm, &g->s, explore_rn, o))
		return;

	unsigned int r = explore_rn(&g->s, 100);
	unsigned int kind =
		r < 10 ? XOP_SWITCH_MM : r < 15 ? XOP_ENTER_LAZY : r < 17 ? XOP_LEAVE_MM :
		r < 25 ? XOP_FLUSH_RANGE : r < 27 ? XOP_FLUSH_MM : r < 29 ? XOP_KERNEL_FLUSH :
		r < 32 ? XOP_BATCH_ADD : r < 34 ? XOP_BATCH_FLUSH : r < 56 ? XOP_ACCESS :
		r < 66 ? XOP_PTE_CHANGE : r < 77 ? XOP_DELIVER : r < 82 ? XOP_DELIVER_FROM :
		r < 96 ? XOP_STEP : r < 97 ? XOP_CLOCK : XOP_NR;

	if (kind == XOP_NR) {
		/* 3%: the rmap batched-unmap path */
		unsigned int q = explore_rn(&g->s, 10);

		kind = q < 6 ? XOP_UNMAP_ONE : q < 8 ? XOP_UNMAP_FLUSH : XOP_BATCHED_PENDING;
	}

	o->kind = (uint8_t)kind;
	if (is_cpu_op(kind) || kind == XOP_PTE_CHANGE) {
		cpu = pick_cpu(x, g, kind == XOP_ACCESS);
		if (cpu < 0 && kind == XOP_ACCESS)
			cpu = pick_cpu(x, g, false), o->kind = kind = XOP_SWITCH_MM;
		if (cpu < 0) {
			/* Everyone waits (or 3%: probe the -EBUSY path). */
			if (explore_rn(&g->s, 2)) {
				o->kind = XOP_STEP;
				return;
			}
			cpu = (int)explore_rn(&g->s, n);
		} else if (explore_rn(&g->s, 100) < 3) {
			cpu = (int)explore_rn(&g->s, n);
		}
		o->cpu = (uint8_t)cpu;
	} else {
		o->cpu = (uint8_t)explore_rn(&g->s, n);
	}
	o->mm = (uint8_t)explore_rn(&g->s, nm);
	switch (kind) {
	case XOP_SWITCH_MM:
		o->mm = (uint8_t)explore_rn(&g->s, nm + 1);	/* 0: init_mm */
		break;
	case XOP_FLUSH_RANGE:
	case XOP_BATCH_ADD:
	case XOP_KERNEL_FLUSH: {
		unsigned int len = explore_rn(&g->s, 10);

		o->a = hot_page(&g->s);
		/* single pages, short ranges, past the ceiling, FLUSH_ALL */
		o->b = len < 4 ? 1 + len : len < 7 ? explore_rn(&g->s, 16) + 1 : len < 9 ? 40 + explore_rn(&g->s, 600) : 0;
		o->flags = (explore_rn(&g->s, 4) == 0 ? XOP_F_STRIDE21 : 0) |
			   (explore_rn(&g->s, 3) == 0 ? XOP_F_FREED : 0);
		break;
	}
	case XOP_ACCESS:
		o->a = hot_page(&g->s);
		break;
	case XOP_PTE_CHANGE: {
		unsigned int m;

		/* Prefer an mm that is loaded somewhere. */
		if (explore_rn(&g->s, 4)) {
			struct tlbgen_cpu_tlbstate ts;

			tlbgen_cpu__tlbstate(x->sys, explore_rn(&g->s, n), &ts);
			int i = find_mm(x, ts.loaded_mm_ctx_id);

			if (i > 0)
				o->mm = (uint8_t)(i - 1);
		}
		m = 1 + o->mm;
		o->a = hot_page(&g->s);
		if (!g->pend[m]) {
			g->pend[m] = true;
			g->lo[m] = g->hi[m] = o->a;
		} else {
			g->lo[m] = o->a < g->lo[m] ? o->a : g->lo[m];
			g->hi[m] = o->a > g->hi[m] ? o->a : g->hi[m];
		}
		break;
	}
	case XOP_DELIVER_FROM:
		o->b = explore_rn(&g->s, n);
		break;
	case XOP_CLOCK:
		o->a = explore_rn(&g->s, 300);
		break;
	case XOP_UNMAP_ONE:
		o->a = hot_page(&g->s);
		o->flags = (explore_rn(&g->s, 4) ? XOP_F_BATCH : 0) | (explore_rn(&g->s, 2) ? XOP_F_DIRTY : 0);
		if (o->flags & XOP_F_BATCH)
			g->ubc_pend[o->cpu] = true;
		break;
	case XOP_UNMAP_FLUSH:
		o->flags = explore_rn(&g->s, 3) == 0 ? XOP_F_DIRTY : 0;
		break;
	default:
		break;
	}
}

enum xfail_kind xpl_gen_run(const struct xcfg *cfg, uint64_t seed, struct xop *ops, size_t n,
			    struct xfail *f, struct xstats *st)
{
	struct xstats dummy = { 0 };
	struct gen g = { .s = seed };
	struct xctx x;
	size_t i;

	if (!st)
		st = &dummy;
	if (setup(&x, cfg, f, st))
		return f->kind;
	st->runs++;
	for (i = 0; i < n && f->kind == XF_NONE; i++) {
		x.cur = i;
		/* Close the run: every PTE change gets its covering flush, as
		 * the kernel requires, before the ops run out. */
		gen_op(&x, &g, &ops[i], i + 2 * (cfg->nr_mms + cfg->nr_cpus) + 2 >= n);
		if (xpl_verbose) {
			char buf[160];

			describe(buf, sizeof(buf), cfg, &ops[i]);
			fprintf(stderr, "  %3zu  %s\n", i, buf);
		}
		exec_op(&x, &ops[i]);
		st->ops++;
		check_invariants(&x);
	}
	/* Ops after a failure are not generated: mark them as no-ops. */
	for (; i < n; i++)
		ops[i] = (struct xop){ .kind = XOP_CLOCK };
	if (f->kind == XF_NONE) {
		x.cur = n;
		final_audit(&x);
	}
	teardown(&x);
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

/* ---- printing, decoding ----------------------------------------------- */

static void describe(char *buf, size_t len, const struct xcfg *cfg, const struct xop *o)
{
	unsigned long start, end;
	unsigned int shift, cpu = o->cpu % cfg->nr_cpus, mi = 1 + o->mm % cfg->nr_mms;

	op_range(o, &start, &end, &shift);
	switch (o->kind) {
	case XOP_SWITCH_MM: {
		unsigned int t = o->mm % (cfg->nr_mms + 1);

		if (t)
			snprintf(buf, len, "switch_mm(cpu %u, mm%u)", cpu, t);
		else
			snprintf(buf, len, "switch_mm(cpu %u, init_mm)", cpu);
		break;
	}
	case XOP_FLUSH_RANGE:
		if (end == TLBGEN_TLB_FLUSH_ALL)
			snprintf(buf, len, "flush_tlb_mm_range(cpu %u, mm%u, 0, FLUSH_ALL, %u, %s)",
				 cpu, mi, shift, o->flags & XOP_F_FREED ? "freed" : "-");
		else
			snprintf(buf, len, "flush_tlb_mm_range(cpu %u, mm%u, %#lx, %#lx, %u, %s)",
				 cpu, mi, start, end, shift, o->flags & XOP_F_FREED ? "freed" : "-");
		break;
	case XOP_FLUSH_MM:
		snprintf(buf, len, "flush_tlb_mm(cpu %u, mm%u)", cpu, mi);
		break;
	case XOP_KERNEL_FLUSH:
		snprintf(buf, len, "flush_tlb_kernel_range(cpu %u, %#lx, %#lx)", cpu, start, end);
		break;
	case XOP_BATCH_ADD:
		snprintf(buf, len, "arch_tlbbatch_add_pending(cpu %u, batch%u, mm%u)", cpu, cpu, mi);
		break;
	case XOP_BATCH_FLUSH:
		snprintf(buf, len, "arch_tlbbatch_flush(cpu %u, batch%u)", cpu, cpu);
		break;
	case XOP_ACCESS:
		snprintf(buf, len, "access(cpu %u, %#lx)", cpu,
			 (unsigned long)(o->a % XPL_NR_PAGES) << TLBGEN_PAGE_SHIFT);
		break;
	case XOP_PTE_CHANGE:
		snprintf(buf, len, "pte_change(cpu %u, mm%u, %#lx)", cpu, mi,
			 (unsigned long)(o->a % XPL_NR_PAGES) << TLBGEN_PAGE_SHIFT);
		break;
	case XOP_DELIVER_FROM:
		snprintf(buf, len, "deliver_from(cpu %u, src %u)", cpu, o->b % cfg->nr_cpus);
		break;
	case XOP_STEP:
		snprintf(buf, len, "step()");
		break;
	case XOP_CLOCK:
		snprintf(buf, len, "clock_advance(%u)", o->a % 512);
		break;
	case XOP_UNMAP_ONE:
		snprintf(buf, len, "try_to_unmap_one(cpu %u, ubc%u, mm%u, %#lx, %s, %s)", cpu, cpu, mi,
			 (unsigned long)(o->a % XPL_NR_PAGES) << TLBGEN_PAGE_SHIFT,
			 o->flags & XOP_F_BATCH ? "TTU_BATCH_FLUSH" : "-",
			 o->flags & XOP_F_DIRTY ? "dirty" : "clean");
		break;
	case XOP_UNMAP_FLUSH:
		snprintf(buf, len, "%s(cpu %u, ubc%u)", o->flags & XOP_F_DIRTY ?
			 "try_to_unmap_flush_dirty" : "try_to_unmap_flush", cpu, cpu);
		break;
	case XOP_BATCHED_PENDING:
		snprintf(buf, len, "flush_tlb_batched_pending(cpu %u, mm%u)", cpu, mi);
		break;
	default:
		snprintf(buf, len, "%s(cpu %u)", xop_name(o->kind), cpu);
		break;
	}
}

void xpl_print_trace(FILE *out, const struct xcfg *cfg, const struct xop *ops, size_t n)
{
	struct xstats st = { 0 };
	struct xfail f;
	struct xctx x;
	char buf[160];

	fprintf(out, "  profile %s%s%s, %u cpus, %u mms, tlb sets x ways %ux%u (0: default), sched seed %#" PRIx64 "\n",
		cfg->profile, cfg->choices ? " + " : "", cfg->choices ? cfg->choices : "",
		cfg->nr_cpus, cfg->nr_mms, cfg->tlb_sets, cfg->tlb_ways, cfg->sys_seed);
	if (setup(&x, cfg, &f, &st))
		return;
	for (size_t i = 0; i < n && f.kind == XF_NONE; i++) {
		long ret;

		x.cur = i;
		describe(buf, sizeof(buf), cfg, &ops[i]);
		ret = exec_op(&x, &ops[i]);
		check_invariants(&x);
		fprintf(out, "  %3zu  %-64s = %ld\n", i, buf, ret);
	}
	if (f.kind == XF_NONE) {
		x.cur = n;
		final_audit(&x);
		fprintf(out, "  end  deliver everything, audit every TLB\n");
	}
	if (f.kind != XF_NONE)
		fprintf(out, "  => %s after op %zu: %s\n", xpl_kind_name(f.kind), f.op, f.msg);
	teardown(&x);
}

size_t xpl_decode(const uint8_t *data, size_t len, struct xcfg *cfg,
		  const char *const *profiles, unsigned int nr_profiles,
		  struct xop *ops, size_t max)
{
	size_t n = 0;

	memset(cfg, 0, sizeof(*cfg));
	if (len < 3 || !nr_profiles)
		return 0;
	cfg->profile = profiles[data[0] % nr_profiles];
	cfg->nr_cpus = 2 + data[1] % 5;
	cfg->nr_mms = 1 + (data[1] / 5) % 3;
	/* Small TLBs: evictions happen and each exec stays cheap. */
	cfg->tlb_sets = data[2] & 1 ? 2 : 8;
	cfg->tlb_ways = data[2] & 2 ? 2 : 4;
	cfg->sys_seed = data[2] | 1;
	/* Then 4 bytes per op: kind, cpu|mm, page, arg. */
	for (size_t i = 3; i + 4 <= len && n < max; i += 4) {
		struct xop *o = &ops[n++];
		uint8_t arg = data[i + 3];

		memset(o, 0, sizeof(*o));
		o->kind = (data[i] & 0x1f) % XOP_NR;
		o->cpu = data[i + 1] & 0x0f;
		o->mm = data[i + 1] >> 4;
		o->flags = (data[i] >> 5) & 3;
		/* page: low half bytes hit the hot pages, the rest spread out */
		o->a = data[i + 2] < 192 ? (data[i + 2] & 7) + (data[i + 2] & 8 ? 512 : 0)
					 : (uint32_t)(data[i + 2] - 192) * 16;
		o->b = arg < 200 ? arg % 20 : (uint32_t)(arg - 200) * 12;
	}
	return n;
}
