// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/presets/seed003.c - seed 003 (will-it-scale page_fault3 on a 128-CPU arm64
 * server, linux-mm July/August 2020: the regression of 89b15332af7c "mm:
 * drop mmap_sem before calling balance_dirty_pages() in write fault") as a
 * preset in virtual time on the arm64-128 model: process and thread shapes
 * under five kernels - before 89b15332af7c, 89b15332af7c unfixed, Linus's
 * skip-on-retry, Catalin Marinas's local spurious flush and b7333b58f358.
 *
 * The retry rate is not a parameter. In v5.8's fault_dirty_shared_page()
 * a write fault that dirtied the page or whose VMA has ->page_mkwrite (a
 * disk file system; page_fault3 maps a file made by mkstemp() in /tmp)
 * calls maybe_unlock_mmap_for_io(), which drops mmap_lock on a first
 * attempt with FAULT_FLAG_ALLOW_RETRY and without RETRY_NOWAIT - what
 * arm64's do_page_fault() passes - and the fault returns VM_FAULT_RETRY:
 * every first write attempt retries. The arch handler loops back (no new
 * exception), takes mmap_lock again and finds the PTE already installed:
 * a spurious fault, whose flush_tlb_fix_spurious_fault() before v5.10 was
 * arm64's broadcast flush_tlb_page().
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "driver/env.h"
#include "report/report-virtual.h"
#include "report/report.h"
#include "driver/results.h"
#include "run/run.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BLOCK_PAGES	16	/* the model's window of the file, as wl-wis.c */
#define FILE_PAGES	32768	/* MEMSIZE: 128 MiB */
#define NCOL		5
#define WR (TLBGEN_FAULT_FLAG_WRITE | TLBGEN_FAULT_FLAG_ALLOW_RETRY | TLBGEN_FAULT_FLAG_USER | \
	    TLBGEN_FAULT_FLAG_KILLABLE | TLBGEN_FAULT_MODEL_THROTTLE)

/* v5.8 on arm64: the changed-PTE flush broadcast; each column its own
 * retry and spurious-fault hook. Linus's patch and b7333b58f358 both skip
 * the hook on FAULT_FLAG_TRIED for a write fault: the same choices. */
#define ARM64_V58 "latest:fault_arch=arm64,arm64_fault_flush=broadcast,"
static const char *const col_spec[] = {
	ARM64_V58 "fault_dirty_retry=off,flush_tlb_fix_spurious_fault=generic,spurious_skip_tried=off",
	ARM64_V58 "fault_dirty_retry=on,flush_tlb_fix_spurious_fault=generic,spurious_skip_tried=off",
	ARM64_V58 "fault_dirty_retry=on,flush_tlb_fix_spurious_fault=generic,spurious_skip_tried=on",
	ARM64_V58 "fault_dirty_retry=on,flush_tlb_fix_spurious_fault=local,spurious_skip_tried=off",
	ARM64_V58 "fault_dirty_retry=on,flush_tlb_fix_spurious_fault=generic,spurious_skip_tried=on",
	NULL,
};
static const char *const col_label[NCOL] = { "pre-89b15332", "89b15332", "Linus", "Catalin",
					     "b7333b58f358" };
static const unsigned int default_threads[] = { 1, 32, 64, 96, 128 };

/*
 * The seed's table (Xu Yu's rerun after resetting the box, linux-mm, Aug
 * 2020): each fix as % of the kernel before 89b15332af7c, per row, for
 * Linus's patch, Catalin's and Yang Shi's (b7333b58f358). The process rows
 * from 32 on are judged against the band 95..102%, the thread rows within
 * THREAD_SLACK points of the seed's own figure.
 */
static const struct {
	unsigned int n;
	double proc[3], thr[3];
} seed_pct[] = {
	{ 1, { 90.10, 79.20, 86.19 }, { 89.56, 88.74, 92.21 } },
	{ 32, { 98.22, 97.36, 98.91 }, { 75.45, 76.06, 75.75 } },
	{ 64, { 99.97, 100.01, 99.97 }, { 70.44, 74.53, 61.75 } },
	{ 96, { 99.95, 99.91, 100.00 }, { 67.95, 72.56, 63.88 } },
	{ 128, { 99.92, 99.93, 100.12 }, { 73.23, 73.85, 73.16 } },
};
/*
 * The one absolute figure the seed gives: Xu Yu's first run of the kernel
 * before 89b15332af7c (his table against Catalin's patch, the same box),
 * will-it-scale's total ops/s of all tasks per row.
 */
static const struct {
	unsigned int n;
	double proc, thr;
} seed_pre_ops[] = {
	{ 1, 829299, 998007 },
	{ 32, 18916718, 2020918 },
	{ 64, 18965168, 1415404 },
	{ 96, 18949438, 1622876 },
	{ 128, 18926813, 1643109 },
};

static double seed_ref(bool processes, unsigned int threads, unsigned int k)
{
	for (unsigned int i = 0; k == 0 && i < ARRAY_SIZE(seed_pre_ops); i++)
		if (seed_pre_ops[i].n == threads)
			return processes ? seed_pre_ops[i].proc : seed_pre_ops[i].thr;
	return 0;
}

#define SEED_PROC_LO	95.0
#define SEED_PROC_HI	102.0
#define THREAD_SLACK	12.0

/* The seed's figure for fix column k (2..4) at n tasks; false if none. */
static bool seed_figure(bool proc, unsigned int n, unsigned int k, double *pct)
{
	if (k < 2 || k >= NCOL)
		return false;
	for (unsigned int i = 0; i < ARRAY_SIZE(seed_pct); i++) {
		if (seed_pct[i].n == n) {
			*pct = proc ? seed_pct[i].proc[k - 2] : seed_pct[i].thr[k - 2];
			return true;
		}
	}
	return false;
}

static bool interval;
static unsigned int interval_runs = 1;

static const struct bench_opt seed003_opts[] = {
	{ .name = "interval", .type = BOPT_FLAG, .dst = &interval,
	  .help = "after each table, each figure of the machine with a stated range\n"
		  "(docs/machines.md) at its low and its high end, one at a time:\n"
		  "each column's interval and the figures that widen it most" },
	{ .name = "interval-runs", .arg = "N", .type = BOPT_UINT, .dst = &interval_runs,
	  .min = 1, .max = 128, .help = "--interval: seeds per rerun (default 1)" },
	BENCH_OPT_END,
};

static unsigned long addr_of(const struct bench_task *t, unsigned long p)
{
	return (t->base + p) << TLBGEN_PAGE_SHIFT;
}

/* c[i] = 0 on a page whose PTE is none: do_page_fault() and its retry. */
static int write_fault(struct bench_task *t, unsigned long addr)
{
	int err = tlbgen_wl__mmap_read_lock(t->wl, t->cpu, t->mm), ret;

	if (err)
		return err;
	err = tlbgen_vtime__event(t->sys, t->cpu, TLBGEN_VT_PAGE_FAULT, 1);
	ret = err ? err : tlbgen_handle_mm_fault(t->sys, t->cpu, t->mm, addr, WR);
	/* Returning VM_FAULT_RETRY, the fault had dropped mmap_lock already. */
	err = tlbgen_wl__mmap_read_unlock(t->wl, t->cpu, t->mm);
	if (ret < 0 || err || ret != (int)TLBGEN_VM_FAULT_RETRY)
		return ret < 0 ? ret : err;
	/* "goto retry": mmap_lock again, the walk to the PTE under its lock. */
	err = tlbgen_wl__mmap_read_lock(t->wl, t->cpu, t->mm);
	if (err)
		return err;
	err = tlbgen_vtime__event(t->sys, t->cpu, TLBGEN_VT_PTL, 1);
	ret = err ? err : tlbgen_handle_mm_fault(t->sys, t->cpu, t->mm, addr,
						  WR | TLBGEN_FAULT_FLAG_TRIED);
	err = tlbgen_wl__mmap_read_unlock(t->wl, t->cpu, t->mm);
	return ret < 0 ? ret : err;
}

/* One iteration: a write to the next page; a fresh block's PTEs are none
 * (the model reuses one window of the file); munmap after the last page. */
static int pf3_op(struct bench_task *t)
{
	unsigned long j = t->page % BLOCK_PAGES;
	int err = 0;

	for (unsigned long p = 0; !j && !err && p < BLOCK_PAGES; p++)
		err = tlbgen_pte_set(t->sys, t->cpu, t->mm, addr_of(t, p), TLBGEN_PTEF_NONE);
	if (!err)
		err = write_fault(t, addr_of(t, j));
	if (!err)
		err = tlbgen_wl__user_work(t->wl, t->cpu, 1);
	if (err || ++t->page < FILE_PAGES)
		return err;
	return bench_wis_remap_file(t, BENCH_WIS_DIRTY_FILE);
}

static uint64_t pf3_cycles(const struct tlbgen_machine *m)
{
	return m->page_fault;
}

static const struct bench_ops pf3_ops = {
	.region_pages = FILE_PAGES,
	.desc = "Separate file shared mapping page fault",
	.op_cycles = pf3_cycles,
	.start = bench_wis_file_start,
	.op = pf3_op,
	.flushes = true,
	.flushes_note = "spurious-fault and changed-PTE flushes, and munmap's",
};

static json_t *params(const char *machine, bool proc, unsigned int n, unsigned int k)
{
	return json_pack("{s:s,s:s,s:s,s:s,s:i,s:s}", "workload", "seed003", "mode", "virtual",
			 "machine", machine, "shape", proc ? "processes" : "threads", "threads",
			 (int)n, "policy", col_label[k]);
}

/*
 * Each column's ops/s as a share of the kernel before 89b15332af7c, the
 * seed's figure beside each fix's, the model's error against it and the
 * distance outside the judged band (0 inside), into results.json; then
 * printed from there.
 */
static void record_cell(const char *machine, bool proc, unsigned int n, unsigned int k,
			double base, double *worst)
{
	json_t *pa = params(machine, proc, n, k);
	double ops = 0, pct, seed = 0, lo, hi, off;
	bool has_seed = seed_figure(proc, n, k, &seed);

	bench_metric_get("ops_per_sec", pa, &ops);
	pct = base > 0 ? 100 * ops / base : 0;
	bench_metric("pct_of_pre", "% of pre-89b15332af7c", NULL, pa, pct);
	if (has_seed) {
		bench_metric("seed_pct_of_pre", "% of pre-89b15332af7c", NULL, pa, seed);
		bench_metric("err_points", "points", "lower", pa, pct - seed);
	}
	/* Judged from 32 tasks on: the fixes' process band, or the seed's figure. */
	if (k != 1 && n >= 32 && (proc || has_seed)) {
		lo = proc ? SEED_PROC_LO : seed - THREAD_SLACK;
		hi = proc ? SEED_PROC_HI : seed + THREAD_SLACK;
		off = pct < lo ? pct - lo : pct > hi ? pct - hi : 0;
		bench_metric("band_low_pct", "%", NULL, pa, lo);
		bench_metric("band_high_pct", "%", NULL, pa, hi);
		bench_metric("err_outside_band_points", "points", "lower", pa, off);
		*worst = off * off > *worst * *worst ? off : *worst;
	}
	json_decref(pa);
}

static void record_shares(const struct bench_env *e, const char *machine, bool proc)
{
	printf("# %s: %% of pre-89b15332 ops/s, the seed's in brackets (band: %s)\n",
	       proc ? "processes" : "threads",
	       proc ? "the fixes 95..102% from 32 on" : "the seed's figure +-12 points from 32 on");
	printf("%-8s", proc ? "procs" : "threads");
	for (unsigned int k = 1; k < NCOL; k++)
		printf(" %16s", col_label[k]);
	printf(" %10s\n", "outside");
	for (unsigned int i = 0; i < e->nthreads; i++) {
		unsigned int n = e->threads[i];
		json_t *p0 = params(machine, proc, n, 0);
		double base = 0, worst = 0, pct, seed;

		bench_metric_get("ops_per_sec", p0, &base);
		json_decref(p0);
		for (unsigned int k = 1; k < NCOL; k++)
			record_cell(machine, proc, n, k, base, &worst);
		printf("%-8u", n);
		for (unsigned int k = 1; k < NCOL; k++) {
			json_t *pa = params(machine, proc, n, k);

			bench_metric_get("pct_of_pre", pa, &pct);
			if (bench_metric_get("seed_pct_of_pre", pa, &seed))
				printf(" %6.1f%% (%5.1f%%)", pct, seed);
			else
				printf(" %15.1f%%", pct);
			json_decref(pa);
		}
		if (n >= 32)
			printf(" %+9.1f\n", worst);
		else
			printf(" %10s\n", "-");
	}
}

/*
 * The virtual time each table warms and measures, unless --ms or --warmup
 * says. A process has its own mm and file: nothing it shares moves slower
 * than its own faults, and 1 + 2 ms hold many of them. The threads of one
 * mm munmap() their 128 MiB once a pass (32768 faults, about 0.4 s of a
 * task at the rates seen) and queue on mmap_lock behind each other's
 * munmap() and mmap(): a window shorter than a pass sees one phase of
 * that, 300 + 300 ms its mean within a few percent.
 */
#define PROC_WARMUP_MS		1
#define PROC_MS			2
#define THREAD_WARMUP_MS	300
#define THREAD_MS		300

static void record_window(const struct bench_env *e, const char *machine, bool proc)
{
	json_t *pa = json_pack("{s:s,s:s,s:s}", "workload", "seed003", "machine", machine,
			       "shape", proc ? "processes" : "threads");

	bench_metric("window_warmup_ms", "ms of virtual time, not counted", NULL, pa,
		     e->warmup_ms);
	bench_metric("window_ms", "ms of virtual time measured", NULL, pa, e->ms);
	json_decref(pa);
}

static int seed003_run(struct bench_env *e)
{
	struct bench_vtable t = {
		.workload = "seed003", .ops = &pf3_ops,
		.title = "seed 003: will-it-scale page_fault3 on arm64 (89b15332af7c and its fixes)",
		.machine = e->machine_spec ? e->machine_spec : "arm64-128",
		.label = col_label,
		.ref = seed_ref,
		.model_line = "model: ops/s of the model; seed: Xu Yu's first run of the kernel "
			      "before 89b15332af7c; the fixes as % of it (below)",
		.flushes_note = pf3_ops.flushes_note,
		.no_ipi_accounts = true,
		.interval_runs = interval ? interval_runs : 0,
		.broadcast_tlbi = true,
	};
	int ret;

	if (e->given & BENCH_O_POLICY) {
		fprintf(stderr, "tlbgen-bench seed003: its columns are the seed's five kernels; "
			"-p is not taken\n");
		return 2;
	}
	if (!bench_modes(e) || bench_env_policies(e, col_spec) || bench_env_machine(e, t.machine))
		return 2;
	if (!e->nthreads) {
		memcpy(e->threads, default_threads, sizeof(default_threads));
		e->nthreads = ARRAY_SIZE(default_threads);
	}
	if (!e->runs)
		e->runs = 1;
	if (!(e->given & BENCH_O_TIME)) {
		e->ms = PROC_MS;
		e->warmup_ms = PROC_WARMUP_MS;
	}
	if (!e->jobs)
		e->jobs = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	if (bench_check_threads(e))
		return 2;
	ret = bench_vtable_run(e, &t, true);
	record_window(e, t.machine, true);
	if (!ret && !(e->given & BENCH_O_TIME)) {
		e->ms = THREAD_MS;
		e->warmup_ms = THREAD_WARMUP_MS;
	}
	if (!ret)
		ret = bench_vtable_run(e, &t, false);
	record_window(e, t.machine, false);
	if (!ret) {
		record_shares(e, t.machine, true);
		record_shares(e, t.machine, false);
	}
	return ret;
}

const struct bench bench_seed003 = {
	.name = "seed003",
	.summary = "seed 003: page_fault3 on arm64-128 before/after 89b15332af7c and three "
		   "fixes (virtual)",
	.help = "Seed 003 (will-it-scale page_fault3 on a 128-CPU arm64 server, 2020): a\n"
		"write fault per page of a shared file mapping, munmap per pass, processes\n"
		"and threads, under the kernel before 89b15332af7c, 89b15332af7c with no fix\n"
		"(every first write attempt returns VM_FAULT_RETRY, the retry's spurious\n"
		"fault broadcasts TLBI VALE1IS + DSB ISH), Linus's skip-on-retry, Catalin\n"
		"Marinas's local flush and b7333b58f358; each fix column as a share of the\n"
		"kernel before, beside the seed's.\n",
	.shared = BENCH_O_WORKLOAD,
	.modes = BENCH_M_VIRTUAL,
	.default_modes = BENCH_M_VIRTUAL,
	.opts = seed003_opts,
	.modes_why = "it is a machine model's table (the DSB ISH's wait is only costed in "
		     "virtual time)",
	.run = seed003_run,
};
BENCH_COMMAND(bench_seed003);
