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
#include <errno.h>
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

/* The reason of the next tlb_flush on ev[i]'s CPU before it switches, or
 * -1: the initiator's own flush follows its reason 4 within microseconds,
 * so a millisecond bounds the scan (a Hyper-V guest's never comes). */
static int next_local(const struct replay_trace *t, size_t i)
{
	for (size_t j = i + 1; j < t->nr_ev && t->ev[j].ts - t->ev[i].ts <= 1000000; j++) {
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

static void count_switch(const struct replay_trace *t, const struct step *s,
			 uint32_t *left, const uint32_t *last_flush, const uint64_t *nsw,
			 uint64_t *left_nsw, struct pcid_count *k)
{
	size_t slot = (size_t)s->cpu * t->nr_mm + (size_t)s->mm;
	bool flushed = switch_flushed(t, s);

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
			count_switch(t, s, left, last_flush, nsw, left_nsw, &k);
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

/* ---- thread groups ------------------------------------------------------------------ */

/*
 * A bare trace names no thread group of the tasks alive when it began. A
 * reason 1 (TLB_REMOTE_SHOOTDOWN) is traced by flush_tlb_func() only when
 * the CPU's loaded mm is the flush's (another mm traces reason 5), so the
 * user task it interrupted, or the one whose mm an idle CPU holds lazily,
 * shares the mm of the task that traced the reason 4 just before on
 * another CPU: the two are one thread group.
 */
#define GROUP_WINDOW_NS	1000000ULL	/* the reason 4 at most 1 ms before */

struct uf {
	int32_t *pid, *parent;
	size_t n, cap;
	uint32_t *hash;		/* pid -> index + 1, open addressing */
	size_t hsize;		/* a power of two, over 2 n */
	int err;
};

static uint32_t *uf_slot(struct uf *u, int32_t pid)
{
	size_t h = ((uint32_t)pid * 2654435761u) & (u->hsize - 1);

	while (u->hash[h] && u->pid[u->hash[h] - 1] != pid)
		h = (h + 1) & (u->hsize - 1);
	return &u->hash[h];
}

static int uf_rehash(struct uf *u)
{
	size_t n = u->hsize ? u->hsize * 2 : 1024;
	uint32_t *h = calloc(n, sizeof(*h));

	if (!h)
		return -ENOMEM;
	free(u->hash);
	u->hash = h;
	u->hsize = n;
	for (size_t i = 0; i < u->n; i++)
		*uf_slot(u, u->pid[i]) = (uint32_t)i + 1;
	return 0;
}

static int uf_root(const struct uf *u, size_t i)
{
	while (u->parent[i] != (int32_t)i)
		i = (size_t)u->parent[i];
	return (int)i;
}

static int uf_find(struct uf *u, int32_t pid, bool add)
{
	uint32_t *s;
	size_t cap = u->cap;

	if (u->hsize && *(s = uf_slot(u, pid)))
		return uf_root(u, *s - 1);
	if (!add)
		return -1;
	if (((u->n + 1) * 2 > u->hsize && uf_rehash(u)) ||
	    replay__grow((void **)&u->pid, &u->cap, u->n, sizeof(*u->pid))) {
		u->err = -ENOMEM;
		return -1;
	}
	if (u->cap != cap || !u->parent) {
		int32_t *p = realloc(u->parent, u->cap * sizeof(*p));

		if (!p) {
			u->err = -ENOMEM;
			return -1;
		}
		u->parent = p;
	}
	u->pid[u->n] = pid;
	u->parent[u->n] = (int32_t)u->n;
	*uf_slot(u, pid) = (uint32_t)u->n + 1;
	return (int)u->n++;
}

static void uf_union(struct uf *u, int32_t a, int32_t b)
{
	int x = uf_find(u, a, true), y = uf_find(u, b, true);

	if (x >= 0 && y >= 0 && x != y)
		u->parent[x > y ? x : y] = x < y ? x : y;	/* the first seen roots it */
}

/* The user task whose mm CPU c has loaded at event e, or 0. */
static int32_t mm_task(const struct rev *e, const int32_t *cur, const int32_t *last_user)
{
	return cur[e->cpu] > 0 ? cur[e->cpu] : last_user[e->cpu];
}

#define CLONE_THREAD_FLAG	0x00010000	/* include/uapi/linux/sched.h */

static void collect_groups(const struct replay_trace *t, struct uf *u)
{
	unsigned int nr = t->info.nr_cpus;
	int32_t *cur = calloc(nr, sizeof(*cur)), *last_user = calloc(nr, sizeof(*last_user));
	struct { uint64_t ts; int32_t pid; } *last4 = calloc(nr, sizeof(*last4));

	for (size_t i = 0; cur && last_user && last4 && i < t->nr_ev; i++) {
		const struct rev *e = &t->ev[i];
		int32_t me, init = 0;
		uint64_t best = 0;

		if (e->cpu >= nr)
			continue;
		if (e->kind == EV_NEWTASK && (e->c & CLONE_THREAD_FLAG) && e->pid > 0) {
			uf_union(u, e->pid, e->a);	/* a thread: its parent's group */
			continue;
		}
		if (e->kind == EV_SWITCH) {
			cur[e->cpu] = e->b > 0 && !(e->d & 1) ? e->b : 0;
			if (cur[e->cpu])
				last_user[e->cpu] = cur[e->cpu];
			continue;
		}
		if (e->kind != EV_TLB)
			continue;
		if (e->a == TLBGEN_TLB_REMOTE_SEND_IPI) {
			last4[e->cpu].ts = e->ts + 1;
			last4[e->cpu].pid = e->pid;
			continue;
		}
		if (e->a != TLBGEN_TLB_REMOTE_SHOOTDOWN)
			continue;
		me = mm_task(e, cur, last_user);
		for (unsigned int c = 0; c < nr; c++)
			if (c != e->cpu && last4[c].ts > best && last4[c].ts <= e->ts + 1 &&
			    e->ts + 1 - last4[c].ts <= GROUP_WINDOW_NS) {
				best = last4[c].ts;
				init = last4[c].pid;
			}
		if (me > 0 && init > 0 && me != init)
			uf_union(u, me, init);
	}
	free(cur);
	free(last_user);
	free(last4);
}

static int cmp_pid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/* The pids the trace created (task_newtask), sorted; NULL on -ENOMEM. */
static int32_t *born_pids(const struct replay_trace *t, size_t *n)
{
	int32_t *v = malloc((t->nr_ev + 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < t->nr_ev; i++)
		if (t->ev[i].kind == EV_NEWTASK)
			v[(*n)++] = t->ev[i].a;
	if (v)
		qsort(v, *n, sizeof(*v), cmp_pid);
	return v;
}

/* One snapshot line: tid in tgid's group, its kind left to its name. */
static int add_snap(struct replay_trace *t, size_t *cap, size_t *ccap, int32_t tid, int32_t tgid)
{
	if (replay__grow((void **)&t->snap, cap, t->nr_snap, sizeof(*t->snap)) ||
	    replay__grow((void **)&t->comm, ccap, t->nr_snap, sizeof(*t->comm)))
		return -ENOMEM;
	t->snap[t->nr_snap] = (struct rtask_snap){ tid, tgid, 0 };
	t->comm[t->nr_snap][0] = 0;
	t->nr_snap++;
	return 0;
}

int replay__infer_groups(struct replay_trace *t)
{
	struct uf u = { 0 };
	size_t cap = 0, ccap = 0, joined = 0, nb = 0;
	int32_t *born = NULL, *leader = NULL;
	int err;

	if (t->info.snapshot || t->nr_snap)
		return 0;
	collect_groups(t, &u);
	err = u.err;
	born = err ? NULL : born_pids(t, &nb);
	leader = born ? calloc(u.n + 1, sizeof(*leader)) : NULL;
	if (!err && !leader)
		err = -ENOMEM;
	/* Each group's leader: the smallest pid the trace did not create. */
	for (size_t i = 0; !err && i < u.n; i++) {
		int r = uf_root(&u, i);

		if (!bsearch(&u.pid[i], born, nb, sizeof(*born), cmp_pid) &&
		    (!leader[r] || u.pid[i] < leader[r]))
			leader[r] = u.pid[i];
	}
	for (size_t i = 0; !err && i < u.n; i++) {
		int32_t l = leader[uf_root(&u, i)];

		if (!l || l == u.pid[i] || bsearch(&u.pid[i], born, nb, sizeof(*born), cmp_pid))
			continue;
		err = add_snap(t, &cap, &ccap, u.pid[i], l);
		joined++;
	}
	free(born);
	free(leader);
	free(u.pid);
	free(u.parent);
	free(u.hash);
	if (!err && joined) {
		size_t n = strlen(t->info.warnings);

		snprintf(t->info.warnings + n, sizeof(t->info.warnings) - n,
			 "inferred from remote shootdowns: %zu tasks alive at the start joined to "
			 "another's thread group\n", joined);
	}
	return err;
}
