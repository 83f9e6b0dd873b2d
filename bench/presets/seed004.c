// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/presets/seed004.c - seed 004 (Aneesh Kumar K.V.'s RFC "powerpc/book3s64/
 * radix: Upgrade va tlbie to PID tlbie if we cross PMD_SIZE", Aug 2021) as a
 * preset in virtual time on the power10 model: the thread's tlbie test
 * (as Aneesh described it: for () { shmat(); fillshm(); shmdt(); } over
 * 256 MB) under the global ceiling as mainline has it (33, nr_pages > c),
 * as the seed's box read it before the run (34) and as the patch sets it
 * (32, >=), beside the seed's rate of work and tlbie stalls.
 *
 * shmdt() of a shared mapping flushes under the PTL once per page table
 * (zap_pte_range()'s force_flush for dirty shared pages, 1cf35d47712d):
 * with 64 KiB pages a page table maps 2 MiB, 32 pages, so each is one
 * __radix__flush_tlb_range() of 32 pages: 32 tlbies below the ceiling,
 * one PID tlbie at or above it. A model page stands for a 64 KiB page.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "driver/env.h"
#include "report/report-virtual.h"
#include "report/report.h"
#include "driver/results.h"
#include "run/run.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SHM_PAGES	4096	/* 256 MB of 64 KiB pages */
#define PT_PAGES	32	/* one page table: 2 MiB */

static const char *const col_spec[] = {
	"latest:ppc_tlb_single_page_flush_ceiling=34,ppc_ceiling_cmp=ge",
	"latest:ppc_tlb_single_page_flush_ceiling=32,ppc_ceiling_cmp=ge",
	"latest:ppc_tlb_single_page_flush_ceiling=33,ppc_ceiling_cmp=gt",
	NULL,
};
static const char *const col_label[] = { "box 34", "patch 32 >=", "mainline 33 >" };

/* The seed's figures: its first three seconds of each run, perf stat -I 1000. */
static const double seed_rate[] = { 176, 313, 0 };	/* "Rate of work", first second */
static const double seed_stall_g[] = { 1.798, 0.111, 0 };	/* PM_EXEC_STALL_TLBIE, G/s */
static const double seed_cycles_g[] = { 4.199, 4.206, 0 };	/* cycles, G/s */

static bool interval;
static unsigned int interval_runs = 1;

static const struct bench_opt seed004_opts[] = {
	{ .name = "interval", .type = BOPT_FLAG, .dst = &interval,
	  .help = "after the table, each figure of the machine with a stated range\n"
		  "(docs/machines.md) at its low and its high end, one at a time:\n"
		  "each column's interval and the figures that widen it most" },
	{ .name = "interval-runs", .arg = "N", .type = BOPT_UINT, .dst = &interval_runs,
	  .min = 1, .max = 128, .help = "--interval: seeds per rerun (default 1: one task, no IPIs)" },
	BENCH_OPT_END,
};

static double ref(bool processes, unsigned int threads, unsigned int k)
{
	(void)processes;
	(void)threads;
	return k < ARRAY_SIZE(seed_rate) ? seed_rate[k] : 0;
}

static unsigned long addr_of(const struct bench_task *t, unsigned long p)
{
	return (t->base + p) << TLBGEN_PAGE_SHIFT;
}

/* shmdt(): the VMA's PTEs cleared a page table at a time, each flushed
 * under its PTL before the next. */
static int shmdt(struct bench_task *t)
{
	int err = tlbgen_vtime__event(t->sys, t->cpu, TLBGEN_VT_SYSCALL, 1);

	if (!err)
		err = tlbgen_wl__mmap_write_lock(t->wl, t->cpu, t->mm);
	for (unsigned long s = 0; !err && s < SHM_PAGES; s += PT_PAGES) {
		err = tlbgen_vtime__event(t->sys, t->cpu, TLBGEN_VT_PTL, 1);
		for (unsigned long p = s; !err && p < s + PT_PAGES; p++)
			err = tlbgen_pte_set(t->sys, t->cpu, t->mm, addr_of(t, p), TLBGEN_PTEF_NONE);
		if (!err)
			err = tlbgen_vtime__event(t->sys, t->cpu, TLBGEN_VT_ZAP, PT_PAGES);
		if (!err)
			err = tlbgen_ppc_radix_flush_tlb_range(t->sys, t->cpu, t->mm, addr_of(t, s),
							       addr_of(t, s + PT_PAGES),
							       TLBGEN_PAGE_SHIFT, NULL);
		err = err < 0 ? err : 0;
	}
	return err ? err : tlbgen_wl__mmap_write_unlock(t->wl, t->cpu, t->mm);
}

/*
 * One iteration on CPU 0. CPU 1 is the test's other thread: it ran the mm
 * and waits, so its CPU stays in mm_cpumask and every flush is global
 * (tlbie), as the seed's PM_EXEC_STALL_TLBIE shows they were; it returns
 * at once (1: it does no op).
 */
static int tlbie_op(struct bench_task *t)
{
	int err;

	if (t->cpu)
		return 1;
	err = tlbgen_wl__mmap(t->wl, t->cpu, t->mm);			/* shmat() */
	for (unsigned long p = 0; !err && p < SHM_PAGES; p++) {		/* fillshm() */
		err = tlbgen_wl__fault(t->wl, t->cpu, t->mm, addr_of(t, p),
				       TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED, TLBGEN_WL_FAULT_WRITE);
		if (!err)
			err = tlbgen_wl__user_work(t->wl, t->cpu, 1);
	}
	return err ? err : shmdt(t);
}

const struct bench_ops bench_tlbie_test_ops = {
	.region_pages = SHM_PAGES,
	.desc = "tlbie test: shmat, fill, shmdt of 256 MB",
	.op = tlbie_op,
	.flushes = true,
	.flushes_note = "one per 2 MiB page table of shmdt()",
};

/*
 * The tlbie stalls per second of the one busy CPU, from what was recorded:
 * the flushes per op (radix.c counts a per-page flush as partial, a PID
 * flush as full; each partial one is a page table's 32 tlbies) at the
 * machine's tlbie figures. The CPU's "tlb" time also holds its refills.
 */
static void record_stalls(struct bench_env *e, const char *machine)
{
	const struct tlbgen_machine *m = &e->machine;
	double ghz = m->mhz / 1000.0;

	printf("# tlbie stalls (the flushing CPU's cycles in tlbie per second, of %.2f G; the "
	       "seed's PM_EXEC_STALL_TLBIE of its cycles):\n", ghz);
	for (unsigned int k = 0; k < e->npol; k++) {
		json_t *pa = json_pack("{s:s,s:s,s:s,s:s,s:i,s:s}", "workload", "seed004", "mode",
				       "virtual", "machine", machine, "shape", "threads", "threads",
				       (int)e->threads[0], "policy", col_label[k]);
		double part, full, ops, g, pct, sp = 0;

		bench_metric_get("flush_tlb_func_per_op_partial", pa, &part);
		bench_metric_get("flush_tlb_func_per_op_full", pa, &full);
		bench_metric_get("ops_per_sec", pa, &ops);
		g = (part * PT_PAGES * m->invlpg + full * m->cr3_write) * ops / 1e9;
		bench_metric("tlbie_stall_gcycles_per_s", "G cycles/s", "lower", pa, g);
		bench_metric("tlbie_stall_pct", "% of the CPU's cycles", "lower", pa, 100 * g / ghz);
		bench_metric("tlbies_per_op", "tlbie instructions/op", "lower", pa,
			     part * PT_PAGES + full);
		if (seed_stall_g[k]) {
			sp = 100 * seed_stall_g[k] / seed_cycles_g[k];
			bench_metric("seed_tlbie_stall_gcycles_per_s", "G cycles/s", NULL, pa,
				     seed_stall_g[k]);
			bench_metric("seed_cycles_gcycles_per_s", "G cycles/s", NULL, pa,
				     seed_cycles_g[k]);
			bench_metric("seed_tlbie_stall_pct", "% of the CPU's cycles", NULL, pa, sp);
		}
		bench_metric_get("tlbie_stall_pct", pa, &pct);
		bench_metric_get("tlbie_stall_gcycles_per_s", pa, &g);
		printf("#   %-14s model %.3f G (%.1f%%)", col_label[k], g, pct);
		if (seed_stall_g[k])
			printf("  seed %.3f G of %.3f G (%.1f%%)", seed_stall_g[k], seed_cycles_g[k],
			       sp);
		printf("\n");
		json_decref(pa);
	}
}

static int seed004_run(struct bench_env *e)
{
	bool user = e->given & BENCH_O_POLICY;
	struct bench_vtable t = {
		.workload = "seed004", .ops = &bench_tlbie_test_ops,
		.title = "seed 004: the tlbie test (shmat, fill, shmdt of 256 MB)",
		.machine = e->machine_spec ? e->machine_spec : "power10",
		.label = col_label,
		.ref = ref,
		.model_line = "model: iterations/s of the model (one task; a second CPU in "
			      "mm_cpumask makes every flush a tlbie); seed: the thread's \"Rate of "
			      "work\" (first second); model - seed: the model's error, %",
		.flushes_note = bench_tlbie_test_ops.flushes_note,
		.interval_runs = interval ? interval_runs : 0,
		.no_ipi_accounts = true,
	};
	int ret;

	if (user) {
		fprintf(stderr, "tlbgen-bench seed004: its columns are the seed's three ceilings; "
			"-p is not taken (tlbie_test over the driver takes none either)\n");
		return 2;
	}
	if (!bench_modes(e) || bench_env_policies(e, col_spec) || bench_env_machine(e, t.machine))
		return 2;
	if (e->nthreads > 1 || (e->nthreads && e->threads[0] != 2)) {
		fprintf(stderr, "tlbgen-bench seed004: -t: 2 only (the test's task and the thread "
			"that keeps a second CPU in mm_cpumask)\n");
		return 2;
	}
	e->threads[0] = 2;
	e->nthreads = 1;
	/* One task and no IPIs: every seed gives the same run. */
	if (!e->runs)
		e->runs = 1;
	if (!(e->given & BENCH_O_TIME)) {
		e->ms = 60;
		e->warmup_ms = 10;
	}
	if (!e->jobs)
		e->jobs = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	if (bench_check_threads(e))
		return 2;
	ret = bench_vtable_run(e, &t, false);
	if (!ret)
		record_stalls(e, t.machine);
	return ret;
}

const struct bench bench_seed004 = {
	.name = "seed004",
	.summary = "seed 004: powerpc radix tlbie ceiling 34 -> 32 (>=), the tlbie test on "
		   "power10 (virtual)",
	.help = "Seed 004 (Aneesh Kumar K.V., RFC 2021: a ranged global flush of a PMD's\n"
		"32 pages becomes one PID tlbie: ceiling 32 with >=). The thread's tlbie\n"
		"test, shmat + fill + shmdt of 256 MB of 64 KiB pages, on the power10 model\n"
		"under the box's ceiling 34, the patch's 32 (>=) and mainline's 33 (>):\n"
		"iterations per second beside the seed's \"Rate of work\", and the share of\n"
		"the CPU's cycles stalled on tlbie beside PM_EXEC_STALL_TLBIE.\n",
	.shared = BENCH_O_WORKLOAD,
	.modes = BENCH_M_VIRTUAL,
	.default_modes = BENCH_M_VIRTUAL,
	.opts = seed004_opts,
	.modes_why = "it is a machine model's table (the tlbie broadcast is only costed in "
		     "virtual time)",
	.run = seed004_run,
};
BENCH_COMMAND(bench_seed004);
