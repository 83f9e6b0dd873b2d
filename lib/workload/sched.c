// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/workload/sched.c - the scheduler's side of a workload: schedule() to
 * another task, a kernel thread or the idle task; a task that sleeps (its
 * CPU runs the idle task in a hardware idle state) and the wake that ends it.
 */
#include <errno.h>
#include <time.h>

#include "../runtime/runtime.h"
#include "../runtime/sprog.h"
#include "wl-internal.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The idle states of a Skylake-SP (drivers/idle/intel_idle.c, skx_cstates[]):
 * exit latency and target residency in us; C6 has CPUIDLE_FLAG_TLB_FLUSHED,
 * so cpuidle_enter_state() calls leave_mm() before it.
 */
static const struct { unsigned int exit_us, residency_us; bool tlb_flushed; } cstate[] = {
	{ 2, 2, false }, { 10, 20, false }, { 133, 600, true },
};

/* Threaded: the idle loop, IRQs on, until *cond; the time it took in ns. */
static uint64_t idle_until(struct tlbgen_system *sys, unsigned int cpu, atomic_bool *cond)
{
	uint64_t t0 = now_ns();

	while (!atomic_load_explicit(cond, memory_order_acquire))
		if (tlbgen_poll(sys, cpu) <= 0)
			cpu_relax();
	return now_ns() - t0;
}

int tlbgen__wl_sleep_on(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
			atomic_bool *cond)
{
	struct tlbgen_system *sys = wl->sys;
	struct tlbgen_wl_cpu *wc = &wl->cpu[cpu];
	uint64_t per_us = wl->mode == TLBGEN_MODE_VIRTUAL ? sys->machine.mhz : 1000;
	unsigned int k = 0;
	int r = 0, err;

	if (wl->mode == TLBGEN_MODE_STEPPED && !tlbgen__sprog_running(sys, cpu))
		return -EPERM;	/* only a program can sleep on a stepped system */
	/*
	 * The governor: the deepest state whose target residency the CPU's
	 * previous sleep covered. The menu governor predicts from the recent
	 * idle periods; one period is the simplest such predictor.
	 */
	for (unsigned int i = 0; i < ARRAY_SIZE(cstate); i++)
		if (wc->last_sleep >= (uint64_t)cstate[i].residency_us * per_us)
			k = i;
	err = tlbgen_enter_lazy_tlb(sys, cpu);
	if (!err && cstate[k].tlb_flushed) {
		tlbgen__wl_count(wl, cpu, TLBGEN_WL_STAT_C6, 1);
		err = tlbgen_leave_mm(sys, cpu);
	}
	while (!err && !atomic_load_explicit(cond, memory_order_acquire) && r != 1) {
		uint64_t slept = 0;

		switch (wl->mode) {
		case TLBGEN_MODE_VIRTUAL:
			wc->asleep = !tlbgen_vtime__now(sys, cpu, &wc->asleep_since);
			r = tlbgen_vtime__block(sys, cpu, UINT64_MAX,
						(uint64_t)cstate[k].exit_us * per_us, &slept);
			if (r < 0)
				err = r;
			tlbgen__wl_count(wl, cpu, TLBGEN_WL_STAT_SLEEP_CYCLES, slept);
			wc->asleep = false;
			break;
		case TLBGEN_MODE_THREADED:
			slept = idle_until(sys, cpu, cond);
			break;
		default:
			r = tlbgen__stepped_block(sys, cpu, cond);
			if (r < 0)
				err = r;
			break;
		}
		wc->last_sleep = slept;
		tlbgen__wl_count(wl, cpu, TLBGEN_WL_STAT_SLEEPS, 1);
	}
	if (!err)
		err = tlbgen_switch_mm(sys, cpu, mm);
	return err ? err : atomic_load(cond) ? 0 : 1;
}

int tlbgen__wl_wake(struct tlbgen_wl *wl, unsigned int cpu, unsigned int target)
{
	if (wl->mode == TLBGEN_MODE_VIRTUAL)
		return tlbgen_vtime__wake(wl->sys, cpu, target);
	if (wl->mode == TLBGEN_MODE_STEPPED)
		return tlbgen__stepped_wake(wl->sys, cpu, target);
	return 0;	/* threaded: the sleeper polls its condition */
}

TLBGEN_API int tlbgen_wl__sleep(struct tlbgen_wl *wl, unsigned int cpu)
{
	struct tlbgen_mm *mm;
	int err = tlbgen__wl_check(wl, cpu), r;

	if (err)
		return err;
	mm = tlbgen__this_loaded_mm(wl->sys, cpu);
	if (mm == wl->sys->init_mm || mm == LOADED_MM_SWITCHING)
		return -EINVAL;	/* a kernel thread does not sleep here */
	r = tlbgen__wl_sleep_on(wl, cpu, mm, &wl->cpu[cpu].woken);
	if (r == 0)
		atomic_store(&wl->cpu[cpu].woken, false);
	return r;
}

TLBGEN_API int tlbgen_wl__wake(struct tlbgen_wl *wl, unsigned int cpu, unsigned int target)
{
	int err = tlbgen__wl_check(wl, cpu);

	if (err)
		return err;
	if (target >= wl->nr_cpus || target == cpu)
		return -EINVAL;
	atomic_store_explicit(&wl->cpu[target].woken, true, memory_order_release);
	return tlbgen__wl_wake(wl, cpu, target);
}

TLBGEN_API int tlbgen_wl__context_switch(struct tlbgen_wl *wl, unsigned int cpu,
					 struct tlbgen_mm *next)
{
	int err = tlbgen__wl_check(wl, cpu);

	if (err)
		return err;
	if (!next)
		return tlbgen_enter_lazy_tlb(wl->sys, cpu);
	if (!tlbgen__mm_valid(wl->sys, next))
		return -EINVAL;
	return tlbgen_switch_mm(wl->sys, cpu, next);
}
