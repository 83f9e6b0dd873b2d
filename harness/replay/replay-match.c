// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay-match.c - match the model's decisions against the
 * recorded ones: per operation and CPU, the longest common subsequence of
 * the two lists of (reason, pages), so events are matched one to one and
 * in each CPU's order; counts per CPU and reason; the mismatching
 * operations by class.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay-internal.h"

#define MAXL 16		/* decisions per operation compared (more are counted, unmatched) */

static int cmp_pd(const void *a, const void *b)
{
	const struct pdec *x = a, *y = b;

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *const kind_name[] = {
	[ST_SWITCH] = "switch", [ST_LAZY] = "lazy", [ST_LEAVE] = "leave_mm",
	[ST_FLUSH] = "flush", [ST_MM_DEAD] = "exit_mmap", [ST_ORPHAN] = "unexplained",
};

static void pages_str(char *buf, size_t len, long pages)
{
	if (pages < 0)
		snprintf(buf, len, "all");
	else if (pages == 0)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%ld", pages);
}

/* "0:all 3:1" ... exact pages for the record, "n" for a class. */
static void list_str(char *buf, size_t len, const uint8_t *reason, const long *pages,
		     const uint16_t *cpu, int n, bool cls, unsigned int step_cpu)
{
	size_t off = 0;

	buf[0] = 0;
	if (!n)
		snprintf(buf, len, "-");
	for (int i = 0; i < n && off + 1 < len; i++) {
		char p[24];

		if (cls && pages[i] > 0)
			snprintf(p, sizeof(p), "n");
		else
			pages_str(p, sizeof(p), pages[i]);
		off += (size_t)snprintf(buf + off, len - off, "%s%s%u:%s", i ? " " : "",
					cpu[i] != step_cpu ? "remote " : "", reason[i], p);
	}
}

static void around(const struct replay_trace *t, const struct step *s, char *buf, size_t len)
{
	size_t off = 0, from = s->ev;
	int before = 0, after = 0;

	while (from > 0 && before < 4) {
		from--;
		before += t->ev[from].cpu == s->cpu;
	}
	for (size_t i = from; i < t->nr_ev && after < 4 && off + 1 < len; i++) {
		const struct rev *e = &t->ev[i];

		if (e->cpu != s->cpu)
			continue;
		if (i > s->ev)
			after++;
		off += (size_t)snprintf(buf + off, len - off, "%s%+.6f ", i == s->ev ? "*" : "",
					((double)e->ts - (double)s->ts) / 1e9);
		switch (e->kind) {
		case EV_SWITCH:
			off += (size_t)snprintf(buf + off, len - off, "switch %d->%d; ", e->a, e->b);
			break;
		case EV_TLB:
			off += (size_t)snprintf(buf + off, len - off, "tlb_flush %d:%lld by %d; ",
						e->a, (long long)e->c, e->pid);
			break;
		case EV_NEWTASK:
			off += (size_t)snprintf(buf + off, len - off, "newtask %d flags %llx; ", e->a,
						(unsigned long long)e->c);
			break;
		case EV_EXEC:
			off += (size_t)snprintf(buf + off, len - off, "exec %d; ", e->a);
			break;
		case EV_EXIT:
			off += (size_t)snprintf(buf + off, len - off, "exit %d; ", e->a);
			break;
		case EV_EXIT_MMAP:
			off += (size_t)snprintf(buf + off, len - off, "exit_mmap by %d; ", e->pid);
			break;
		default:
			off += (size_t)snprintf(buf + off, len - off, "csd%s; ",
						e->kind == EV_CSD_ENTRY ? " entry" :
						e->kind == EV_CSD_EXIT ? " exit" : " queue");
			break;
		}
		if (off >= len)
			break;
	}
}

static int add_class(struct replay_result *res, size_t *cap, const char *cls)
{
	for (size_t i = 0; i < res->nr_classes; i++)
		if (!strcmp(res->classes[i].cls, cls)) {
			res->classes[i].steps++;
			return 0;
		}
	if (replay__grow((void **)&res->classes, cap, res->nr_classes, sizeof(*res->classes)))
		return -ENOMEM;
	snprintf(res->classes[res->nr_classes].cls, sizeof(res->classes[0].cls), "%s", cls);
	res->classes[res->nr_classes++].steps = 1;
	return 0;
}

static int cmp_class(const void *a, const void *b)
{
	const struct replay_class *x = a, *y = b;

	return x->steps > y->steps ? -1 : x->steps < y->steps ? 1 : strcmp(x->cls, y->cls);
}

/*
 * The recorded decisions of a step (reason, pages, CPU: r*) against the
 * model's (p*): the longest common subsequence, walked back to count each
 * matched decision per CPU and reason. Returns how many matched.
 */
static int match_one_cpu(struct replay_result *res, unsigned int n, const uint8_t *rr,
			 const long *rp, const uint16_t *rc, int nr, const uint8_t *pr,
			 const long *pp, const uint16_t *pc, int np)
{
	uint8_t lcs[MAXL + 1][MAXL + 1];
	int matched = 0;

	for (int i = nr; i >= 0; i--)
		for (int j = np; j >= 0; j--) {
			if (i == nr || j == np)
				lcs[i][j] = 0;
			else if (rr[i] == pr[j] && rp[i] == pp[j] && rc[i] == pc[j])
				lcs[i][j] = lcs[i + 1][j + 1] + 1;
			else
				lcs[i][j] = lcs[i + 1][j] > lcs[i][j + 1] ? lcs[i + 1][j] :
									    lcs[i][j + 1];
		}
	for (int i = 0, j = 0; i < nr && j < np;) {
		if (rr[i] == pr[j] && rp[i] == pp[j] && rc[i] == pc[j]) {
			if (rc[i] < n && rr[i] < REPLAY_REASONS)
				res->per_cpu[rc[i] * REPLAY_REASONS + rr[i]].matched++;
			matched++;
			i++;
			j++;
		} else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
			i++;
		} else {
			j++;
		}
	}
	return matched;
}

/*
 * One operation's decisions, matched CPU by CPU: in order on each CPU,
 * where order is the kernel's program order (a remote flush taken before
 * the local one is not the same decision sequence as after it); in any
 * order across CPUs, which ran concurrently and whose interleaving is the
 * machine's timing, not a flush decision.
 */
static int match_lists(struct replay_result *res, unsigned int n, const uint8_t *rr,
		       const long *rp, const uint16_t *rc, int nr, const uint8_t *pr,
		       const long *pp, const uint16_t *pc, int np)
{
	uint8_t r1[MAXL], p1[MAXL];
	long r2[MAXL], p2[MAXL];
	uint16_t r3[MAXL], p3[MAXL], done[2 * MAXL];
	int matched = 0, nd = 0;

	for (int k = 0; k < nr + np; k++) {
		uint16_t cpu = k < nr ? rc[k] : pc[k - nr];
		int a = 0, b = 0, seen = 0;

		for (int i = 0; i < nd; i++)
			seen |= done[i] == cpu;
		if (seen)
			continue;
		done[nd++] = cpu;
		for (int i = 0; i < nr; i++)
			if (rc[i] == cpu) {
				r1[a] = rr[i];
				r2[a] = rp[i];
				r3[a++] = cpu;
			}
		for (int j = 0; j < np; j++)
			if (pc[j] == cpu) {
				p1[b] = pr[j];
				p2[b] = pp[j];
				p3[b++] = cpu;
			}
		matched += match_one_cpu(res, n, r1, r2, r3, a, p1, p2, p3, b);
	}
	return matched;
}

/* Per reason over every CPU, and the agreement: matched over the union. */
static void sum_totals(struct replay_result *res, unsigned int n)
{
	uint64_t num = 0, den = 0;

	for (unsigned int r = 0; r < REPLAY_REASONS; r++) {
		for (unsigned int c = 0; c < n; c++) {
			const struct replay_counts *x = &res->per_cpu[c * REPLAY_REASONS + r];

			res->total[r].recorded += x->recorded;
			res->total[r].replayed += x->replayed;
			res->total[r].matched += x->matched;
		}
		num += res->total[r].matched;
		den += res->total[r].recorded + res->total[r].replayed - res->total[r].matched;
	}
	res->agreement = den ? (double)num / (double)den : 1.0;
}

int replay__match(const struct replay_trace *t, struct pdec *pd, size_t nr_pd,
		  const struct replay_opts *o, struct replay_result *res)
{
	unsigned int n = t->info.nr_cpus;
	size_t p = 0, ccap = 0, mcap = 0, keep = o->why_max ? o->why_max : 1000;

	res->per_cpu = calloc((size_t)n * REPLAY_REASONS, sizeof(*res->per_cpu));
	if (!res->per_cpu)
		return -ENOMEM;
	if (nr_pd)
		qsort(pd, nr_pd, sizeof(*pd), cmp_pd);
	for (size_t si = 0; si < t->nr_st; si++) {
		const struct step *s = &t->st[si];
		uint8_t rr[MAXL], pr[MAXL];
		long rp[MAXL], pp[MAXL];
		uint16_t rc[MAXL], pc[MAXL];
		int nr = 0, np = 0, matched;

		for (uint32_t d = s->dec_first; d != REPLAY_NONE; d = t->dec[d].next) {
			const struct rdec *x = &t->dec[d];

			if (x->cpu < n && x->reason < REPLAY_REASONS)
				res->per_cpu[x->cpu * REPLAY_REASONS + x->reason].recorded++;
			if (nr < MAXL) {
				rr[nr] = x->reason;
				rp[nr] = x->pages;
				rc[nr++] = x->cpu;
			}
		}
		if (s->unrecorded) {
			/* Nothing recorded to compare the model's decisions with. */
			for (; p < nr_pd && pd[p].step == si; p++)
				;
			continue;
		}
		for (; p < nr_pd && pd[p].step == si; p++) {
			if (pd[p].cpu < n)
				res->per_cpu[pd[p].cpu * REPLAY_REASONS + pd[p].reason].replayed++;
			if (np < MAXL) {
				pr[np] = pd[p].reason;
				pp[np] = pd[p].pages;
				pc[np++] = pd[p].cpu;
			}
		}
		if (!nr && !np)
			continue;
		matched = match_lists(res, n, rr, rp, rc, nr, pr, pp, pc, np);
		if (matched == nr && matched == np)
			continue;
		res->mismatch_steps++;
		{
			char rs[96], ps[96], cls[80], rcl[28], pcl[28];

			list_str(rcl, sizeof(rcl), rr, rp, rc, nr, true, s->cpu);
			list_str(pcl, sizeof(pcl), pr, pp, pc, np, true, s->cpu);
			snprintf(cls, sizeof(cls), "%.11s: kernel %.25s, model %.25s", kind_name[s->kind], rcl, pcl);
			if (add_class(res, &ccap, cls))
				return -ENOMEM;
			if (!o->why || res->nr_mismatches >= keep)
				continue;
			if (replay__grow((void **)&res->mismatches, &mcap, res->nr_mismatches,
					 sizeof(*res->mismatches)))
				return -ENOMEM;
			struct replay_mismatch *m = &res->mismatches[res->nr_mismatches++];

			memset(m, 0, sizeof(*m));
			list_str(rs, sizeof(rs), rr, rp, rc, nr, false, s->cpu);
			list_str(ps, sizeof(ps), pr, pp, pc, np, false, s->cpu);
			m->step = si;
			m->cpu = s->cpu;
			m->t = (double)s->ts / 1e9;
			snprintf(m->recorded, sizeof(m->recorded), "%s", rs);
			snprintf(m->replayed, sizeof(m->replayed), "%s", ps);
			snprintf(m->cls, sizeof(m->cls), "%s", cls);
			if (s->kind == ST_FLUSH)
				snprintf(m->what, sizeof(m->what), "flush of mm %d, %ld pages%s (pid %d)",
					 s->mm, s->pages, s->freed ? ", freed tables" : "", s->pid);
			else
				snprintf(m->what, sizeof(m->what), "%s mm %d (pid %d)",
					 kind_name[s->kind], s->mm, s->pid);
			around(t, s, m->around, sizeof(m->around));
		}
	}
	sum_totals(res, n);
	if (res->nr_classes)
		qsort(res->classes, res->nr_classes, sizeof(*res->classes), cmp_class);
	return 0;
}

void replay_print_why(FILE *f, const struct replay_result *r, size_t max)
{
	for (size_t i = 0; i < r->nr_mismatches && i < max; i++) {
		const struct replay_mismatch *m = &r->mismatches[i];

		fprintf(f, "step %llu cpu %u t=%.6f %s\n  kernel: %s\n  model:  %s\n  around: %s\n",
			(unsigned long long)m->step, m->cpu, m->t, m->what, m->recorded, m->replayed,
			m->around);
	}
}

void replay_dump(FILE *f, const struct replay_trace *t)
{
	for (size_t i = 0; i < t->nr_st; i++) {
		const struct step *s = &t->st[i];

		fprintf(f, "%zu t=%.6f cpu %u %s mm %d pid %d pages %ld%s:", i, (double)s->ts / 1e9,
			s->cpu, kind_name[s->kind], s->mm, s->pid, s->pages, s->freed ? " freed" : "");
		for (uint32_t d = s->dec_first; d != REPLAY_NONE; d = t->dec[d].next)
			fprintf(f, " %s%u:%ld", t->dec[d].cpu != s->cpu ? "remote " : "",
				t->dec[d].reason, t->dec[d].pages);
		fprintf(f, "\n");
	}
}
