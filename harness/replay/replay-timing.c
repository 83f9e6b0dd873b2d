// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay-timing.c - how long a remote flush took, in the
 * recording and in the model: from the initiator's TLB_REMOTE_SEND_IPI
 * (reason 4, traced as native_flush_tlb_multi() starts) to the moment the
 * last CPU it queued a csd to left flush_tlb_func() (that csd's
 * csd_function_exit). The recording gives it from its csd events
 * (csd_queue_cpu on the initiator names each target and its csd); the
 * model, in virtual time, from the same decision to the initiator's
 * flush-done callback, which runs when its csd_lock_wait() for the last
 * target ends; only the flushes some other CPU ran a callback of count,
 * as only those have csd events in the recording.
 */
#include <errno.h>
#include <stdlib.h>

#include "replay-internal.h"

/* A flush's targets are found within this much trace after its reason 4. */
#define TIMING_WINDOW_NS	10000000ULL	/* 10 ms */
#define TIMING_MAX_TARGETS	64

static int push(double **v, size_t *n, size_t *cap, double x)
{
	if (replay__grow((void **)v, cap, *n, sizeof(**v)))
		return -ENOMEM;
	(*v)[(*n)++] = x;
	return 0;
}

/*
 * The flush of reason-4 event ev[i]: its csd_queue_cpu events on the same
 * CPU up to that CPU's next csd run or tlb_flush, then each target's exit
 * of that csd. Returns the duration in ns, or -1 when it queued none (a
 * KVM guest flags preempted vCPUs instead of IPIing them) or a target's
 * exit is past the window or the trace.
 */
static double one_flush(const struct replay_trace *t, size_t i)
{
	struct queued { int32_t cpu; int64_t csd; bool done; } q[TIMING_MAX_TARGETS];
	const struct rev *s = &t->ev[i];
	unsigned int nq = 0, left;
	uint64_t last = 0;
	size_t j;

	for (j = i + 1; j < t->nr_ev && t->ev[j].ts - s->ts <= TIMING_WINDOW_NS; j++) {
		const struct rev *e = &t->ev[j];

		if (e->cpu != s->cpu)
			continue;
		if (e->kind == EV_CSD_ENTRY || e->kind == EV_TLB || e->kind == EV_SWITCH)
			break;
		if (e->kind == EV_CSD_QUEUE && nq < TIMING_MAX_TARGETS)
			q[nq++] = (struct queued){ e->a, e->c, false };
	}
	if (!nq)
		return -1;
	left = nq;
	for (j = i + 1; left && j < t->nr_ev && t->ev[j].ts - s->ts <= TIMING_WINDOW_NS; j++) {
		const struct rev *e = &t->ev[j];

		if (e->kind != EV_CSD_EXIT)
			continue;
		for (unsigned int k = 0; k < nq; k++)
			if (!q[k].done && q[k].cpu == e->cpu && q[k].csd == e->c) {
				q[k].done = true;
				left--;
				last = e->ts;
				break;
			}
	}
	return left ? -1 : (double)(last - s->ts);
}

int replay__timing_recorded(const struct replay_trace *t, double **ns, size_t *n)
{
	size_t cap = 0;

	*ns = NULL;
	*n = 0;
	for (size_t i = 0; i < t->nr_ev; i++) {
		double d;

		if (t->ev[i].kind != EV_TLB || t->ev[i].a != TLBGEN_TLB_REMOTE_SEND_IPI)
			continue;
		d = one_flush(t, i);
		if (d >= 0 && push(ns, n, &cap, d)) {
			free(*ns);
			*ns = NULL;
			*n = 0;
			return -ENOMEM;
		}
	}
	return 0;
}

int replay__timing_init(struct replay_model_timing *mt, struct tlbgen_system *sys,
			unsigned int nr_cpus, double mhz)
{
	*mt = (struct replay_model_timing){ .sys = sys, .mhz = mhz };
	mt->start = malloc(nr_cpus * sizeof(*mt->start));
	if (!mt->start)
		return -ENOMEM;
	mt->remote = calloc(nr_cpus, sizeof(*mt->remote));
	if (!mt->remote)
		return -ENOMEM;
	for (unsigned int c = 0; c < nr_cpus; c++)
		mt->start[c] = UINT64_MAX;
	return 0;
}

void replay__timing_receive(void *ctx, unsigned int cpu, unsigned int from)
{
	struct replay_model_timing *mt = ctx;

	if (mt->start && cpu != from && mt->start[from] != UINT64_MAX)
		mt->remote[from] = true;
}

void replay__timing_decision(struct replay_model_timing *mt, const struct tlbgen_flush_decision *d)
{
	uint64_t now;

	if (mt->start && d->reason == TLBGEN_TLB_REMOTE_SEND_IPI &&
	    !tlbgen_vtime__now(mt->sys, d->initiator, &now))
		mt->start[d->initiator] = now;
}

void replay__timing_done(void *ctx, unsigned int initiator)
{
	struct replay_model_timing *mt = ctx;
	uint64_t now;

	if (!mt->start || mt->start[initiator] == UINT64_MAX ||
	    tlbgen_vtime__now(mt->sys, initiator, &now))
		return;
	if (mt->remote[initiator] &&
	    push(&mt->ns, &mt->n, &mt->cap, (double)(now - mt->start[initiator]) * 1000.0 / mt->mhz))
		mt->err = -ENOMEM;
	mt->start[initiator] = UINT64_MAX;
	mt->remote[initiator] = false;
}

void replay__timing_free(struct replay_model_timing *mt)
{
	free(mt->start);
	free(mt->remote);
	free(mt->ns);
	*mt = (struct replay_model_timing){ 0 };
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile p (0..100] of v[0..n), sorted here. */
static double pct(double *v, size_t n, double p)
{
	size_t k = (size_t)(p / 100.0 * (double)n + 0.999999);

	return v[(k ? k : 1) - 1];
}

void replay__timing_summary(double *ns, size_t n, struct replay_timing *out)
{
	*out = (struct replay_timing){ .n = n };
	if (!n)
		return;
	qsort(ns, n, sizeof(*ns), cmp_double);
	out->p50_ns = pct(ns, n, 50);
	out->p90_ns = pct(ns, n, 90);
}
