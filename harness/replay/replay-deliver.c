// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay-deliver.c - when a stepped replay delivers the
 * model's IPIs: at the times the kernel's targets took theirs.
 *
 * A target takes a flush IPI when its IRQs are next on, which may be after
 * it switched away (to the idle task, lazily) or after it started a flush
 * of its own. Delivered before the next operation, the model's target
 * would run flush_tlb_func() in the state it had at the send, where the
 * kernel's ran it in the state it had at its csd entry: a lazy target
 * traces a switch to init_mm there (reason 0), a running one a remote
 * flush (reason 1). The trace dates each remote decision, so the replay
 * delivers at that date. And under KVM's pv flush, the CPUs a flush queued
 * no csd to were preempted vCPUs, flagged instead.
 */
#include <errno.h>
#include <stdlib.h>

#include "replay-internal.h"

static int by_ts(const void *a, const void *b)
{
	const struct replay_delivery *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* A decision another CPU traced for step s's flush: its flush_tlb_func()
 * (reason 1), or the switch to init_mm or the wrong-mm return it made
 * instead (reasons 0 and 5). */
static bool remote_decision(const struct step *s, const struct rdec *d)
{
	return d->cpu != s->cpu && (d->reason == 1 || d->reason == 0 || d->reason == 5);
}

int replay__deliveries(const struct replay_trace *t, struct replay_delivery **out, size_t *nr)
{
	struct replay_delivery *dl = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nr = 0;
	for (size_t i = 0; i < t->nr_st; i++) {
		const struct step *s = &t->st[i];

		if (s->kind != ST_FLUSH)
			continue;
		for (uint32_t d = s->dec_first; d != UINT32_MAX; d = t->dec[d].next) {
			if (!remote_decision(s, &t->dec[d]))
				continue;
			if (n == cap) {
				size_t c = cap ? 2 * cap : 256;
				struct replay_delivery *g = realloc(dl, c * sizeof(*dl));

				if (!g) {
					free(dl);
					return -ENOMEM;
				}
				dl = g;
				cap = c;
			}
			dl[n++] = (struct replay_delivery){ .ts = t->ev[t->dec[d].ev].ts,
							    .step = (uint32_t)i,
							    .cpu = t->dec[d].cpu };
		}
	}
	if (n)
		qsort(dl, n, sizeof(*dl), by_ts);
	*out = dl;
	*nr = n;
	return 0;
}

bool replay__delivery_recorded(const struct replay_trace *t, uint32_t step, unsigned int cpu)
{
	const struct step *s = &t->st[step];

	for (uint32_t d = s->dec_first; d != UINT32_MAX; d = t->dec[d].next)
		if (t->dec[d].cpu == cpu && remote_decision(s, &t->dec[d]))
			return true;
	return false;
}

/*
 * kvm_flush_tlb_multi() flags a preempted vCPU (KVM_VCPU_FLUSH_TLB, the
 * host flushes it before it runs again) and IPIs only the others: a CPU the
 * recorded flush queued no csd to, where the model would call it, was
 * preempted then. Mark every CPU the flush did not queue to preempted for
 * the step (one the model skips anyway is not called either way).
 */
uint64_t replay__preempt_unqueued(struct tlbgen_system *sys, const struct replay_trace *t,
				  const struct step *s)
{
	uint64_t flagged = 0;

	if (s->kind != ST_FLUSH || !s->csd_known)
		return 0;
	for (unsigned int c = 0; c < t->info.nr_cpus; c++)
		if (c != s->cpu && !(s->csd_mask & (1ull << c)) && !tlbgen_vcpu__preempt(sys, c))
			flagged |= 1ull << c;
	return flagged;
}

void replay__resume_flagged(struct tlbgen_system *sys, uint64_t flagged)
{
	for (unsigned int c = 0; flagged; c++, flagged >>= 1)
		if (flagged & 1)
			tlbgen_vcpu__resume(sys, c);
}
