// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/tso/tso_scen.c - the memory-model explorer's scenarios: small
 * programs of 2-4 CPUs, each one of the kernel's real interleavings around
 * a TLB shootdown, judged by the oracle (a translation used after a flush
 * that covered it returned) and the kernel's WARNs.
 */
#include <stdlib.h>
#include <string.h>

#include "tso_run.h"

/* ---- the steps the programs are made of ---------------------------------------------------- */

void tx_ev_add(struct txrun *r, unsigned int cpu, bool dev, const char *text)
{
	struct txev *e;

	if (!r->record || r->nev == TX_MAX_EVENTS)
		return;
	e = &r->ev[r->nev++];
	e->cpu = cpu;
	e->deviation = dev;
	snprintf(e->text, sizeof(e->text), "%s", text);
}

int tx_wait_flushes(struct txrun *r, unsigned int cpu, unsigned int n)
{
	int err = 0;

	/* Bounded: a flush that never returns is the oracle's business, not a hang. */
	for (int i = 0; !err && r->flushes_done < n && i < 8; i++)
		err = tlbgen_vtime__spend(r->sys, cpu, TX_WAIT);
	return err;
}

/* Change P's PTE and flush it: the flush_tlb_page() of a PTE change. */
static int change_and_flush(struct txrun *r, unsigned int cpu, unsigned long page)
{
	char buf[96];
	int err;

	snprintf(buf, sizeof(buf), "CPU%u changes %s's PTE and calls flush_tlb_page(mm A, %s)",
		 cpu, page == TX_PAGE ? "P" : "Q", page == TX_PAGE ? "P" : "Q");
	tx_ev_add(r, cpu, false, buf);
	err = tlbgen_pte_change(r->sys, cpu, r->mm_a, page);
	err = err ?: tlbgen_flush_tlb_page(r->sys, cpu, r->mm_a, page);
	snprintf(buf, sizeof(buf), "CPU%u's flush_tlb_page() returned", cpu);
	tx_ev_add(r, cpu, false, buf);
	r->flushes_done++;
	return err;
}

/* Touch `page` of the running mm; any use of a stale translation is the oracle's. */
static int touch(struct txrun *r, unsigned int cpu, unsigned long page)
{
	int ret = tlbgen_access(r->sys, cpu, page);
	char buf[64];

	snprintf(buf, sizeof(buf), "CPU%u touches %s: TLB %s", cpu, page == TX_PAGE ? "P" : "Q",
		 ret == 1 ? "hit" : "miss");
	tx_ev_add(r, cpu, false, buf);
	return ret < 0 ? ret : 0;
}

static int on_a(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;

	return tlbgen_switch_mm(sys, cpu, r->mm_a);
}

/* Ran mm A, touched P and Q (its TLB holds them), switched to mm B: with
 * the lazy mm_cpumask (209954cbc7d0) it stays in A's mask. */
static int ran_a(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm_a);

	err = err ?: (tlbgen_access(sys, cpu, TX_PAGE) < 0);
	err = err ?: (tlbgen_access(sys, cpu, TX_PAGE_Q) < 0);
	return err ?: tlbgen_switch_mm(sys, cpu, r->mm_b);
}

/* Runs mm A, touched P and Q. */
static int runs_a(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm_a);

	err = err ?: (tlbgen_access(sys, cpu, TX_PAGE) < 0);
	return err ?: (tlbgen_access(sys, cpu, TX_PAGE_Q) < 0);
}

/* Runs mm A, touched P and Q, then a kernel thread borrowed A: lazy. */
static int lazy_on_a(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	return runs_a(sys, cpu, arg) ?: tlbgen_enter_lazy_tlb(sys, cpu);
}

/* ---- switch_mm against a flush (83b0177a6c48, fea4e317f9e7) --------------------------------- */

static int flush_p(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	(void)sys;
	return change_and_flush(arg, cpu, TX_PAGE);
}

static int switch_to_a(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;
	char buf[96];
	int err;

	snprintf(buf, sizeof(buf), "CPU%u calls switch_mm(mm A) (its bit in A's mm_cpumask is set)",
		 cpu);
	tx_ev_add(r, cpu, false, buf);
	r->in_switch = cpu == 1;
	err = tlbgen_switch_mm(sys, cpu, r->mm_a);
	r->in_switch = false;
	/* Until the flush returned: any later use of P must be fresh. */
	err = err ?: tx_wait_flushes(r, cpu, 1);
	return err ?: touch(r, cpu, TX_PAGE);
}

static void explain_switch(FILE *out, const struct txrun *r)
{
	bool lacks_83 = !strcmp(r->barrier, "off");
	bool no_switching = !strcmp(r->switching, "off"), late = !strcmp(r->sw_write, "late");
	bool lacks_fea = no_switching || late;
	bool tso = r->cfg->model == TLBGEN_MEMORY_TSO;

	fprintf(out, "what happened: ");
	if (r->skipped)
		fprintf(out, "CPU0's should_flush_tlb() read CPU1's loaded_mm = %s%s%s%s and sent "
			"no IPI; ", r->read_loaded[0] ? r->read_loaded : "?",
			r->held[0] ? " from memory while CPU1's store buffer still held " : "",
			r->held, r->held[0] ? "" : "");
	if (!r->switch_flushed)
		fprintf(out, "CPU1's switch_mm() read mm A's tlb_gen before CPU0's "
			"inc_mm_tlb_gen() and did not flush; ");
	fprintf(out, "so CPU1 kept P's old translation past the flush.\n");

	if (lacks_fea) {
		fprintf(out, "window: fea4e317f9e7 (%s%s%s): CPU1 was between its tlb_gen read "
			"and its CR3 write, and ", no_switching ? "loaded_mm_switching=off" : "",
			no_switching && late ? ", " : "", late ? "switching_write=late" : "");
		if (late)
			fprintf(out, "LOADED_MM_SWITCHING is stored only after that read, so the "
				"flusher could still see the previous mm%s", no_switching ? "; " : "");
		if (no_switching)
			fprintf(out, "should_flush_tlb() does not IPI a CPU whose loaded_mm is "
				"LOADED_MM_SWITCHING");
		fprintf(out, "; no store buffer is needed (sc fails too).\n");
	}
	if (lacks_83 && !lacks_fea)
		fprintf(out, "window: 83b0177a6c48 (CVE-2025-40174, switch_mm_barrier=off): "
			"CPU1's bit in mm_cpumask(A) was already set, so no locked RMW and no "
			"smp_mb() orders its LOADED_MM_SWITCHING store before its tlb_gen load; "
			"%s\n", tso ? "x86's store buffer let the load pass the store (the "
			"store-buffering pattern), so both CPUs read old values." :
			"(under sc this cannot happen).");
	else if (lacks_83)
		fprintf(out, "also open in this profile: 83b0177a6c48 (CVE-2025-40174, "
			"switch_mm_barrier=off): with fea4e317f9e7 alone, the LOADED_MM_SWITCHING "
			"store can still sit in CPU1's store buffer past its tlb_gen load when "
			"its mm_cpumask bit is already set; both fixes are needed under tso.\n");
	if (!lacks_83 && !lacks_fea)
		fprintf(out, "window: none of the two known ones (the profile has 83b0177a6c48 "
			"and fea4e317f9e7): a new ordering bug in this policy.\n");
}


/* ---- a lazy CPU returns to its mm while another flushes ------------------------------------- */

/* should_flush_tlb() skips a lazy CPU; switch_mm_irqs_off() back to the
 * same mm stores is_lazy = false, then smp_mb(), then reads tlb_gen: one
 * side or the other must see the flush. */
static int lazy_return(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;
	int err;

	tx_ev_add(r, cpu, false, "CPU1 returns from lazy mode: switch_mm(mm A), the mm it kept");
	r->in_switch = true;
	err = tlbgen_switch_mm(sys, cpu, r->mm_a);
	r->in_switch = false;
	err = err ?: tx_wait_flushes(r, cpu, 1);
	return err ?: touch(r, cpu, TX_PAGE);
}

static void explain_lazy(FILE *out, const struct txrun *r)
{
	fprintf(out, "what happened: %s%sso CPU1 came back to mm A with P's old translation.\n",
		r->lazy_held ? "CPU0's should_flush_tlb() read CPU1's is_lazy = true from memory "
		"while CPU1's store buffer held false, and skipped it as lazy; " : "",
		r->skipped ? "CPU0 sent CPU1 no IPI; " : "");
	if (r->lazy_held && r->cfg->model == TLBGEN_MEMORY_TSO)
		fprintf(out, "window: the smp_mb() between switch_mm_irqs_off()'s is_lazy = false "
			"store and its tlb_gen load on the return from lazy mode (it pairs with "
			"inc_mm_tlb_gen()): without it the load passed the store.\n");
}

/* ---- the once-per-HZ trim of mm_cpumask against a flush (6db2526c1d69) ---------------------- */

/* The trim is due: CPU0's flush IPIs CPU1, which left A, so its
 * flush_tlb_func() clears its bit, while CPU2 switches to A and must still
 * be flushed. */
static int trim_setup0(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;
	struct tlbgen_machine m;
	int err = tlbgen_switch_mm(sys, cpu, r->mm_a);

	/* Past mm->context.next_trim_cpumask (jiffies + HZ at the last trim):
	 * 1.1 s of CPU0's virtual time. */
	err = err ?: tlbgen_vtime__machine(sys, &m);
	return err ?: tlbgen_vtime__spend(sys, cpu, (uint64_t)m.mhz * 1100000);
}

/* ---- batched unmap against a switch (mm/rmap.c, arch_tlbbatch_*) ----------------------------- */

static int batch_unmap(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;
	int err;

	tx_ev_add(r, cpu, false, "CPU0 unmaps P: PTE cleared, arch_tlbbatch_add_pending(mm A, P)");
	err = tlbgen_pte_change(sys, cpu, r->mm_a, TX_PAGE);
	err = err ?: tlbgen_arch_tlbbatch_add_pending(sys, cpu, r->batch, r->mm_a, TX_PAGE,
						     TX_PAGE + TLBGEN_PAGE_SIZE);
	err = err ?: tlbgen_arch_tlbbatch_flush(sys, cpu, r->batch);
	tx_ev_add(r, cpu, false, "CPU0's arch_tlbbatch_flush() returned");
	r->flushes_done++;
	return err;
}

/* ---- flush_tlb_kernel_range() alongside a user flush and a switch ----------------------------- */

static int kernel_flush(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;
	unsigned long start = 0xffffffff81000000UL;
	int err;

	tx_ev_add(r, cpu, false, "CPU2 calls flush_tlb_kernel_range() (IPIs every CPU)");
	err = tlbgen_flush_tlb_kernel_range(sys, cpu, start, start + 4 * TLBGEN_PAGE_SIZE);
	tx_ev_add(r, cpu, false, "CPU2's flush_tlb_kernel_range() returned");
	return err;
}

/* ---- the csd lock between two callers and a target (kernel/smp.c) --------------------------- */

/* Two flushes back to back: the first one's csd_lock_wait() returns once
 * the target's csd_unlock() reached memory, then csd_lock() reuses the csd,
 * while CPU1 queues its own csd on CPU2. */
static int flush_p_then_q(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	(void)sys;
	return change_and_flush(arg, cpu, TX_PAGE) ?: change_and_flush(arg, cpu, TX_PAGE_Q);
}

static int flush_q(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	(void)sys;
	return change_and_flush(arg, cpu, TX_PAGE_Q);
}

static int csd_target(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;
	int err = tx_wait_flushes(r, cpu, 3);

	(void)sys;
	return err ?: touch(r, cpu, TX_PAGE) ?: touch(r, cpu, TX_PAGE_Q);
}

/* ---- the INVLPGB transition to a global ASID against a flush (4afeb0ed1753) -------------------- */

/* A flush on an mm active on 4 CPUs hands it a global ASID
 * (consider_global_asid(), CPU0 at jiffy 0); the next flush is by INVLPGB,
 * and finish_asid_transition() IPIs the CPUs whose loaded_mm_asid is not
 * the global one yet, while CPU1 leaves A and comes back to it. */
static int invlpgb_flush(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;
	int err = 0;

	(void)sys;
	for (int i = 0; !err && i < 2; i++)
		err = change_and_flush(r, cpu, TX_PAGE);
	return err;
}

static int invlpgb_switch(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;
	int err;

	tx_ev_add(r, cpu, false, "CPU1 switches to mm B and back to A while A moves to a "
		  "global ASID");
	err = tlbgen_switch_mm(sys, cpu, r->mm_b);
	err = err ?: tlbgen_switch_mm(sys, cpu, r->mm_a);
	err = err ?: tx_wait_flushes(r, cpu, 2);
	return err ?: touch(r, cpu, TX_PAGE);
}

static int invlpgb_user(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct txrun *r = arg;
	int err = tx_wait_flushes(r, cpu, 2);

	(void)sys;
	return err ?: touch(r, cpu, TX_PAGE);
}

/* ---- the table ------------------------------------------------------------------------------- */

const struct txscen tx_scenarios[] = {
	{ "switch_mm", "switch_mm(A) on CPU1 against flush_tlb_page(A, P) on CPU0", 2, false,
	  { on_a, ran_a }, { flush_p, switch_to_a },
	  "CPU0 runs mm A; CPU1 ran mm A, touched page P (its TLB holds P), switched to mm B "
	  "and stays in mm_cpumask(A)", explain_switch, 3 },
	{ "lazy_return", "a lazy CPU1 returns to mm A while CPU0 flushes P", 2, false,
	  { on_a, lazy_on_a }, { flush_p, lazy_return },
	  "CPU0 runs mm A; CPU1 ran mm A, touched P and went lazy (is_lazy, still on A)",
	  explain_lazy, 3 },
	{ "trim", "the once-per-HZ mm_cpumask trim against CPU2's switch to A, 3 CPUs", 3,
	  false, { trim_setup0, ran_a, ran_a }, { flush_p, NULL, switch_to_a },
	  "CPU0 runs mm A; CPUs 1 and 2 ran A, touched P, switched to B (both in "
	  "mm_cpumask(A)); the trim is due", NULL, 2 },
	{ "batch", "batched unmap (add_pending, then the batch flush) against a switch", 2,
	  false, { on_a, ran_a }, { batch_unmap, switch_to_a },
	  "CPU0 runs mm A; CPU1 ran mm A, touched P, switched to mm B", NULL, 3 },
	{ "kernel_range", "flush_tlb_kernel_range() on CPU2 while CPU0 flushes P and CPU1 "
	  "switches to A", 3, false, { on_a, ran_a, on_a }, { flush_p, switch_to_a, kernel_flush },
	  "CPUs 0 and 2 run mm A; CPU1 ran A, touched P, switched to B", explain_switch, 2 },
	{ "csd", "two callers (CPU0 twice, CPU1 once) queue csds on CPU2: csd_lock/unlock", 3,
	  false, { runs_a, runs_a, runs_a }, { flush_p_then_q, flush_q, csd_target },
	  "CPUs 0, 1 and 2 run mm A and touched P and Q", NULL, 2 },
	{ "invlpgb", "A gets a global ASID (asid_transition) while CPU1 leaves A and comes "
	  "back, 4 CPUs with INVLPGB", 4, true, { runs_a, runs_a, runs_a, runs_a },
	  { invlpgb_flush, invlpgb_switch, invlpgb_user, invlpgb_user },
	  "CPUs 0 to 3 run mm A and touched P and Q", NULL, 1 },
};

const unsigned int tx_nr_scenarios = sizeof(tx_scenarios) / sizeof(tx_scenarios[0]);

const struct txscen *tx_scen_find(const char *name)
{
	if (!name)
		return &tx_scenarios[0];
	for (unsigned int i = 0; i < tx_nr_scenarios; i++)
		if (!strcmp(name, tx_scenarios[i].name))
			return &tx_scenarios[i];
	return NULL;
}

int tx_scenario_names(const char **names, size_t n)
{
	for (unsigned int i = 0; i < tx_nr_scenarios && i < n; i++)
		names[i] = tx_scenarios[i].name;
	return (int)tx_nr_scenarios;
}

unsigned int tx_default_bound(const char *scenario)
{
	const struct txscen *s = tx_scen_find(scenario);

	return s ? s->bound : 0;
}
