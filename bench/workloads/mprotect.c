// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/mprotect.c - an mprotect() loop over N pages of private
 * anonymous memory each task wrote: one op is
 *
 *   mprotect(p, N pages, PROT_READ);               write-protect: a flush
 *   mprotect(p, N pages, PROT_READ | PROT_WRITE);
 *   p[i * page] = 1 for each of the N pages;
 *
 * The second mprotect() makes the pages writable at once from v6.0
 * (64fe24a3e05e, the profile's mprotect_writable), a PTE change x86
 * flushes; before it the PTEs stay read-only and each write takes a fault
 * that reuses the page (no copy, no flush). So a threads-shape op is two
 * flushes of N pages from v6.0 and one flush and N faults before: the
 * trade a kernel developer reads here against the task count. Above the
 * ceiling (tlb_single_page_flush_ceiling, 33 on x86) a flush is full.
 */
#include <errno.h>

#include "bench.h"

#define MPROTECT_MAX_PAGES	512

static unsigned int nr_pages = 16;

/* The task's mmap(): fresh PTEs, each page written once. */
static int mprotect_start(struct bench_task *t)
{
	int err = bench_region_none(t, nr_pages);

	for (unsigned long p = 0; !err && p < nr_pages; p++)
		err = tlbgen_wl__fault(t->wl, t->cpu, t->mm, bench_page_addr(t, p), TLBGEN_MAP_ANON,
				       TLBGEN_WL_FAULT_WRITE);
	return err;
}

static int mprotect_op(struct bench_task *t)
{
	unsigned long start = bench_page_addr(t, 0), len = (unsigned long)nr_pages << TLBGEN_PAGE_SHIFT;
	int err = tlbgen_wl__mprotect(t->wl, t->cpu, t->mm, start, len, TLBGEN_PROT_READ,
				      TLBGEN_MAP_ANON);

	if (!err)
		err = tlbgen_wl__mprotect(t->wl, t->cpu, t->mm, start, len,
					  TLBGEN_PROT_READ | TLBGEN_PROT_WRITE, TLBGEN_MAP_ANON);
	/* The writes: a TLB access where the PTE allows it (the oracle's
	 * check of the flushes), a write fault where it is still read-only. */
	for (unsigned long p = 0; !err && p < nr_pages; p++) {
		unsigned long addr = bench_page_addr(t, p);
		int pte = tlbgen_pte__flags(t->mm, addr);

		if (pte < 0) {
			err = pte;
		} else if (pte & TLBGEN_PTEF_WRITE) {
			err = tlbgen_access(t->sys, t->cpu, addr);
			err = err == -EOPNOTSUPP || err >= 0 ? 0 : err;
		} else {
			err = tlbgen_wl__fault(t->wl, t->cpu, t->mm, addr, TLBGEN_MAP_ANON,
					       TLBGEN_WL_FAULT_WRITE);
		}
		if (!err)
			err = tlbgen_wl__user_work(t->wl, t->cpu, 1);
	}
	return err;
}

static const struct bench_ops mprotect_ops = {
	.desc = "mprotect() read-only and back, then a write to each page",
	.region_pages = MPROTECT_MAX_PAGES, .start = mprotect_start, .op = mprotect_op,
	.flushes = true,
	.flushes_note = "mprotect(PROT_READ)'s, and from v6.0 mprotect(PROT_READ|PROT_WRITE)'s",
};

static const struct bench_opt mprotect_opts[] = {
	{ .name = "pages", .arg = "N", .type = BOPT_UINT, .dst = &nr_pages, .min = 1,
	  .max = MPROTECT_MAX_PAGES,
	  .help = "pages each mprotect() covers, 1..512 (default 16; above the ceiling of 33\n"
		  "an x86 flush is full)" },
	BENCH_OPT_END,
};

const struct bench bench_mprotect = {
	.name = "mprotect",
	.summary = "an mprotect() loop: N written pages read-only, back to read-write, written "
		   "again (--pages N)",
	.help = "Each op: mprotect(PROT_READ) of the task's N pages, mprotect(PROT_READ|\n"
		"PROT_WRITE) of them, a write to each (bench/workloads/mprotect.c). From\n"
		"v6.0 (64fe24a3e05e) the second mprotect() makes the pages writable, and x86\n"
		"flushes it; before, each write faults and reuses its page. Threads share one\n"
		"mm (and its mmap_lock, which mprotect() takes for write), processes each\n"
		"have one. In every mode, as the will-it-scale workloads.\n",
	.shared = BENCH_O_WORKLOAD,
	.modes = BENCH_M_ALL,
	.default_modes = BENCH_M_THREADS,
	.opts = mprotect_opts,
	.ops = &mprotect_ops,
};
BENCH_COMMAND(bench_mprotect);
