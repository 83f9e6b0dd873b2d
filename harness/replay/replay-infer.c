// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay-infer.c - a bare trace.dat has no machine.txt: read
 * the machine's flush path off the kernel's own tlb_flush events.
 *
 *  - Remote flushes: native_flush_tlb_multi() traces TLB_REMOTE_SEND_IPI
 *    (4) and each CPU its IPI reached traces TLB_REMOTE_SHOOTDOWN (1) in
 *    flush_tlb_func(), unless it returned early with nothing to do. Many
 *    reason 4s and not one reason 1 mean a hypervisor flushed the other
 *    CPUs: PVM's hypercall after the initiator's own flush_tlb_func()
 *    (its reason 2 or 3 follows the 4), Hyper-V's with none.
 *  - PCID: without it, switch_mm_irqs_off() flushes on every load of
 *    another mm's CR3 (choose_new_asid() sets need_flush when the CPU has
 *    no PCID): TLB_FLUSH_ON_TASK_SWITCH (0) with TLB_FLUSH_ALL; with PCID
 *    a switch back to an mm whose ASID slot the CPU still holds traces
 *    reason 0 with 0 pages, no flush.
 * Too few events to tell leave the defaults (PCID, native IPIs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay-internal.h"

#define INFER_MIN	8	/* events of a kind before a verdict */

/* Whether switch step `s` flushed: switch_mm_irqs_off() traces reason 0
 * on every CR3 load, with TLB_FLUSH_ALL when it flushed and 0 when not. */
static bool switch_flushed(const struct replay_trace *t, const struct step *s)
{
	for (uint32_t d = s->dec_first; d != REPLAY_NONE; d = t->dec[d].next)
		if (t->dec[d].reason == TLBGEN_TLB_FLUSH_ON_TASK_SWITCH && t->dec[d].pages < 0)
			return true;
	return false;
}

/* The reason of the next tlb_flush on ev[i]'s CPU before it switches, or -1. */
static int next_local(const struct replay_trace *t, size_t i)
{
	for (size_t j = i + 1; j < t->nr_ev; j++) {
		const struct rev *e = &t->ev[j];

		if (e->cpu != t->ev[i].cpu)
			continue;
		if (e->kind == EV_SWITCH)
			return -1;
		if (e->kind == EV_TLB)
			return e->a;
	}
	return -1;
}

static void infer_pv(struct replay_trace *t, char *why, size_t len)
{
	uint64_t n4 = 0, n1 = 0, own = 0;

	for (size_t i = 0; i < t->nr_ev; i++) {
		const struct rev *e = &t->ev[i];
		int next;

		if (e->kind != EV_TLB)
			continue;
		if (e->a == TLBGEN_TLB_REMOTE_SHOOTDOWN)
			n1++;
		if (e->a != TLBGEN_TLB_REMOTE_SEND_IPI)
			continue;
		n4++;
		next = next_local(t, i);
		own += next == TLBGEN_TLB_LOCAL_SHOOTDOWN || next == TLBGEN_TLB_LOCAL_MM_SHOOTDOWN;
	}
	if (n4 < INFER_MIN || n1)
		return;
	snprintf(t->info.pv_flush, sizeof(t->info.pv_flush), "%s", own * 2 >= n4 ? "pvm" : "hyperv");
	snprintf(why, len, "remote flushes by hypercall (%s: %llu reason 4, no reason 1, %llu "
		 "followed by the initiator's own flush)", t->info.pv_flush,
		 (unsigned long long)n4, (unsigned long long)own);
}

/*
 * A switch to another mm that does not flush proves PCID. A switch back
 * to an mm this CPU left at most TLB_NR_DYN_ASIDS - 1 switches ago, with
 * no flush of that mm since, needs no flush with PCID (the ASID still
 * holds its generation); if all such clean returns flush, there is none.
 * A mm that keeps flushing (another thread's madvise()) makes every
 * return flush either way, so only clean returns count against PCID.
 */
#define DYN_ASIDS	6	/* TLB_NR_DYN_ASIDS */

struct pcid_count {
	uint64_t sw, unflushed, clean, clean_fl;
};

static void count_switch(const struct replay_trace *t, const struct step *s, size_t i,
			 uint32_t *left, const uint32_t *last_flush, const uint64_t *nsw,
			 uint64_t *left_nsw, struct pcid_count *k)
{
	size_t slot = (size_t)s->cpu * t->nr_mm + (size_t)s->mm;
	bool flushed = switch_flushed(t, s);

	(void)i;
	k->sw++;
	k->unflushed += !flushed;
	if (left[slot] != REPLAY_NONE && (last_flush[s->mm] == REPLAY_NONE ||
					 last_flush[s->mm] < left[slot]) &&
	    nsw[s->cpu] - left_nsw[slot] < DYN_ASIDS) {
		k->clean++;
		k->clean_fl += flushed;
	}
}

static void infer_pcid(struct replay_trace *t, char *why, size_t len)
{
	unsigned int nr = t->info.nr_cpus;
	size_t cells = (size_t)nr * t->nr_mm;
	int32_t *loaded = malloc(nr * sizeof(*loaded));
	uint32_t *left = cells <= (1U << 24) ? malloc(cells * sizeof(*left)) : NULL;
	uint64_t *left_nsw = left ? malloc(cells * sizeof(*left_nsw)) : NULL;
	uint32_t *last_flush = malloc((t->nr_mm + 1) * sizeof(*last_flush));
	uint64_t *nsw = calloc(nr, sizeof(*nsw));
	struct pcid_count k = { 0 };

	if (!loaded || !left || !left_nsw || !last_flush || !nsw)
		goto out;	/* no verdict: the defaults stand */
	for (size_t c = 0; c < cells; c++)
		left[c] = REPLAY_NONE;
	for (size_t m = 0; m <= t->nr_mm; m++)
		last_flush[m] = REPLAY_NONE;
	for (unsigned int c = 0; c < nr; c++)
		loaded[c] = t->seed ? t->seed[c].mm : -1;
	for (size_t i = 0; i < t->nr_st; i++) {
		const struct step *s = &t->st[i];

		if (s->kind == ST_FLUSH && s->mm >= 0 && (size_t)s->mm < t->nr_mm)
			last_flush[s->mm] = (uint32_t)i;
		if (s->cpu >= nr || (s->kind != ST_SWITCH && s->kind != ST_LEAVE))
			continue;
		if (s->kind == ST_SWITCH && (s->mm < 0 || s->mm == loaded[s->cpu] ||
					    (size_t)s->mm >= t->nr_mm))
			continue;
		if (loaded[s->cpu] >= 0 && (size_t)loaded[s->cpu] < t->nr_mm) {
			size_t was = (size_t)s->cpu * t->nr_mm + (size_t)loaded[s->cpu];

			left[was] = (uint32_t)i;
			left_nsw[was] = nsw[s->cpu];
		}
		if (s->kind == ST_SWITCH) {
			count_switch(t, s, i, left, last_flush, nsw, left_nsw, &k);
			nsw[s->cpu]++;
		}
		loaded[s->cpu] = s->kind == ST_SWITCH ? s->mm : -1;
	}
	if (k.unflushed >= 2 || k.clean < INFER_MIN || k.clean_fl * 100 < k.clean * 95)
		goto out;
	t->info.pcid = false;
	snprintf(why, len, "no PCID (every switch to another mm flushed, %llu of them; %llu "
		 "returns to an mm unflushed since)", (unsigned long long)k.sw,
		 (unsigned long long)k.clean);
out:
	free(loaded);
	free(left);
	free(left_nsw);
	free(last_flush);
	free(nsw);
}

void replay__infer_machine(struct replay_trace *t)
{
	char pv[160] = "", pcid[120] = "";
	size_t n = strlen(t->info.warnings);

	if (t->info.snapshot)
		return;
	infer_pv(t, pv, sizeof(pv));
	infer_pcid(t, pcid, sizeof(pcid));
	if ((pv[0] || pcid[0]) && n + 1 < sizeof(t->info.warnings))
		snprintf(t->info.warnings + n, sizeof(t->info.warnings) - n,
			 "inferred from the trace's tlb_flush events: %s%s%s\n", pcid,
			 pv[0] && pcid[0] ? "; " : "", pv);
}
