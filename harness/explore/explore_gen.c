// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/explore/explore_gen.c - the stepped explorer's generator (operations
 * drawn from a seed while they run, looking at the state) and the
 * fuzzer's decoder (see explore_engine.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "explore_internal.h"
#include "explore_preempt.h"

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

/* A covering flush for an mm with PTE changes pending (always when
 * closing, else 25% each): whether one was emitted. */
static bool gen_obligation(struct xctx *x, struct gen *g, struct xop *o, bool closing)
{
	int cpu;

	for (unsigned int m = 1; m <= x->cfg->nr_mms; m++) {
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
		return true;
	}
	return false;
}

/* The flush of a CPU's pending arch batch, or of its deferred unmaps:
 * whether one was emitted. */
static bool gen_pending_flush(struct xctx *x, struct gen *g, struct xop *o, bool closing)
{
	unsigned int n = x->cfg->nr_cpus;

	for (unsigned int c = 0; c < n; c++) {
		if (g->batch_pend[c] && !tlbgen_cpu__is_waiting(x->sys, c) &&
		    (closing || explore_rn(&g->s, 100) < 25)) {
			o->kind = XOP_BATCH_FLUSH;
			o->cpu = (uint8_t)c;
			g->batch_pend[c] = false;
			return true;
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
			return true;
		}
	}
	return false;
}

/* A free op's kind, by its share of the draws. */
static unsigned int gen_kind(struct gen *g)
{
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
	return kind;
}

/*
 * The CPU of a free op of kind o->kind: one that can run it, when there
 * is one (an access with no CPU running a user mm becomes a switch_mm).
 * False when nobody can and the op became a step instead.
 */
static bool gen_cpu(struct xctx *x, struct gen *g, struct xop *o)
{
	unsigned int n = x->cfg->nr_cpus, kind = o->kind;
	int cpu;

	if (xpl__is_cpu_op(kind) || kind == XOP_PTE_CHANGE) {
		cpu = pick_cpu(x, g, kind == XOP_ACCESS);
		if (cpu < 0 && kind == XOP_ACCESS)
			cpu = pick_cpu(x, g, false), o->kind = kind = XOP_SWITCH_MM;
		if (cpu < 0) {
			/* Everyone waits (or 3%: probe the -EBUSY path). */
			if (explore_rn(&g->s, 2)) {
				o->kind = XOP_STEP;
				return false;
			}
			cpu = (int)explore_rn(&g->s, n);
		} else if (explore_rn(&g->s, 100) < 3) {
			cpu = (int)explore_rn(&g->s, n);
		}
		o->cpu = (uint8_t)cpu;
	} else {
		o->cpu = (uint8_t)explore_rn(&g->s, n);
	}
	return true;
}

/* A PTE change's page (and mm), recorded as pending for a covering flush. */
static void gen_pte_change(struct xctx *x, struct gen *g, struct xop *o)
{
	unsigned int m;

	/* Prefer an mm that is loaded somewhere. */
	if (explore_rn(&g->s, 4)) {
		struct tlbgen_cpu_tlbstate ts;

		tlbgen_cpu__tlbstate(x->sys, explore_rn(&g->s, x->cfg->nr_cpus), &ts);
		int i = xpl__find_mm(x, ts.loaded_mm_ctx_id);

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
}

/* A free op's mm and the arguments of its kind. */
static void gen_args(struct xctx *x, struct gen *g, struct xop *o)
{
	unsigned int n = x->cfg->nr_cpus, nm = x->cfg->nr_mms;

	o->mm = (uint8_t)explore_rn(&g->s, nm);
	switch (o->kind) {
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
	case XOP_PTE_CHANGE:
		gen_pte_change(x, g, o);
		break;
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

static void gen_op(struct xctx *x, struct gen *g, struct xop *o, bool closing)
{
	memset(o, 0, sizeof(*o));
	/* Obligations first: a PTE change must be followed by a covering flush. */
	if (gen_obligation(x, g, o, closing) || gen_pending_flush(x, g, o, closing))
		return;
	if (closing) {
		/* The last ops of a run: let every waiting CPU finish. */
		o->kind = XOP_STEP;
		return;
	}
	if (xpl_preempt_gen(x->sys, x->cfg->nr_cpus, x->cfg->nr_mms, &g->s, explore_rn, o))
		return;
	o->kind = (uint8_t)gen_kind(g);
	if (gen_cpu(x, g, o))
		gen_args(x, g, o);
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
	if (xpl__setup(&x, cfg, f, st))
		return f->kind;
	st->runs++;
	for (i = 0; i < n && f->kind == XF_NONE; i++) {
		x.cur = i;
		/* Close the run: every PTE change gets its covering flush, as
		 * the kernel requires, before the ops run out. */
		gen_op(&x, &g, &ops[i], i + 2 * (cfg->nr_mms + cfg->nr_cpus) + 2 >= n);
		if (xpl_verbose) {
			char buf[160];

			xpl__describe(buf, sizeof(buf), cfg, &ops[i]);
			fprintf(stderr, "  %3zu  %s\n", i, buf);
		}
		xpl__exec_op(&x, &ops[i]);
		st->ops++;
		xpl__check_invariants(&x);
	}
	/* Ops after a failure are not generated: mark them as no-ops. */
	for (; i < n; i++)
		ops[i] = (struct xop){ .kind = XOP_CLOCK };
	if (f->kind == XF_NONE) {
		x.cur = n;
		xpl__final_audit(&x);
	}
	xpl__teardown(&x);
	return f->kind;
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
