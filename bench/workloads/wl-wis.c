// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/wl-wis.c - will-it-scale's TLB tests as workloads: one op is one
 * iteration of the test's loop, made of the library's kernel-side
 * operations (tlbgen/workload.h), so it runs in every mode.
 *
 *   tlb_flush1   a private file mapping: write the page, madvise(MADV_DONTNEED)
 *                it, read it back. The read is a read fault whose
 *                do_fault_around() maps the rest of its 64 KiB block
 *                read-only, so the next page's write is a COW that
 *                wp_page_copy() flushes: two flushes per op on 15 pages in 16.
 *   tlb_flush2   a private anonymous 1 MiB: write, madvise, read back (the
 *                zero page); munmap() and mmap() again every 256 pages.
 *   tlb_flush3   a shared file mapping: as tlb_flush1, but the write after
 *                the read back makes the PTE writable without a flush.
 *   page_fault1  128 MiB of private anonymous memory: a write fault per
 *                page (do_anonymous_page(), no flush), munmap() at the end.
 *   page_fault2  a private file mapping: a write fault per page
 *                (do_cow_fault(): a private copy, no flush).
 *   page_fault3  a shared file mapping: a write fault per page.
 *   mmap1        mmap() of 128 MiB of anonymous memory and munmap() of it,
 *                untouched: mmap_lock for write twice, no PTE, no flush.
 * The file tests and page_fault1 walk 128 MiB and munmap() it at the end. Each task walks
 * its file block by block, and the model maps every block at the task's
 * same 16 pages (clearing them, as a fresh block's PTEs are none): the
 * TLB then sees what it would of one block, and the mm needs no page
 * table for all 128 MiB of every task's file.
 */

#include "bench.h"

#define FAULT_AROUND_PAGES	16	/* fault_around_bytes: 64 KiB */
#define FILE_PAGES		32768	/* 128 MiB */
#define ANON_PAGES		256	/* tests/tlb_flush2.c: MEMORYSIZE 1 MiB */

/* The next block of the file, at the task's window: its PTEs are none. */
static int next_block(struct bench_task *t)
{
	return bench_region_none(t, FAULT_AROUND_PAGES);
}

/*
 * munmap() of the whole file at the end of a pass, and the test's mmap()
 * of it again: past the ceiling, one full flush; its page tables go (the
 * only VMA in them). Every page of the file is mapped by then, and all
 * but the window's are zapped without PTEs of the model's: unseen pages.
 */
int bench_wis_remap_file(struct bench_task *t, enum bench_wis_pages pages)
{
	TLBGEN_OPTS(tlbgen_wl_munmap_opts, o, .free_tables = true,
		    .unseen_pages = FILE_PAGES - FAULT_AROUND_PAGES,
		    .unseen_dirty_file = pages == BENCH_WIS_DIRTY_FILE,
		    .unseen_anon = pages == BENCH_WIS_ANON);
	int err;

	t->page = 0;
	err = tlbgen_wl__munmap_opts(t->wl, t->cpu, t->mm, bench_page_addr(t, 0),
				     (unsigned long)FILE_PAGES << TLBGEN_PAGE_SHIFT, &o);
	if (err)
		return err;
	/* The test counted the last page before its munmap(): a run that
	 * ends while the mmap() sleeps on mmap_lock still has it. */
	err = tlbgen_wl__mmap(t->wl, t->cpu, t->mm);
	return err > 0 ? 0 : err;
}

/* page_fault3 wrote every page of its shared file: dirty; tlb_flush1/3
 * read each back after its madvise(), so their pages are clean; and
 * page_fault1/2's written pages are anonymous. */
static int end_of_file(struct bench_task *t, enum bench_wis_pages pages)
{
	return ++t->page < FILE_PAGES ? 0 : bench_wis_remap_file(t, pages);
}

/*
 * Task i starts i/tasks of the way through its file, at a block's start,
 * so that the tasks' munmap()s are spread, as in a long run's steady
 * state, and not all due together 32768 pages after the start.
 */
int bench_wis_file_start(struct bench_task *t)
{
	t->page = (unsigned long)t->cpu * FILE_PAGES / t->tasks;
	t->page -= t->page % FAULT_AROUND_PAGES;
	return 0;
}

/* One op of tlb_flush1 or tlb_flush3 on a file mapping of kind `map`. */
static int file_flush_op(struct bench_task *t, unsigned int map)
{
	unsigned long j = t->page % FAULT_AROUND_PAGES, addr = bench_page_addr(t, j);
	int err = j ? 0 : next_block(t);

	/* *(addr) = 1 */
	if (!err)
		err = tlbgen_wl__fault(t->wl, t->cpu, t->mm, addr, map, TLBGEN_WL_FAULT_WRITE);
	if (!err)
		err = tlbgen_wl__madvise_dontneed(t->wl, t->cpu, t->mm, addr, TLBGEN_PAGE_SIZE);
	/* assert(*(addr) == 0) */
	if (!err)
		err = tlbgen_wl__fault(t->wl, t->cpu, t->mm, addr, map, 0);
	if (!err)
		err = tlbgen_wl__user_work(t->wl, t->cpu, 1);
	return err ? err : end_of_file(t, BENCH_WIS_CLEAN_FILE);
}

static int tlb_flush1_op(struct bench_task *t)
{
	return file_flush_op(t, TLBGEN_MAP_FILE);
}

static int tlb_flush3_op(struct bench_task *t)
{
	return file_flush_op(t, TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED);
}

/* Two faults, madvise()'s syscall, PTL and zap, and the user work. */
static uint64_t file_flush_cycles(const struct tlbgen_machine *m)
{
	return 2 * (uint64_t)m->page_fault + m->syscall + m->ptl + m->zap + m->user_work;
}

const struct bench_ops bench_tlb_flush1_ops = {
	.desc = "TLB flush of separate file private mapping",
	.region_pages = FILE_PAGES, .op_cycles = file_flush_cycles, .start = bench_wis_file_start,
	.op = tlb_flush1_op,
	.flushes = true, .flushes_note = "madvise's, and wp_page_copy()'s on 15 pages in 16",
};

const struct bench_ops bench_tlb_flush3_ops = {
	.desc = "TLB flush of separate file shared mapping",
	.region_pages = FILE_PAGES, .op_cycles = file_flush_cycles, .start = bench_wis_file_start,
	.op = tlb_flush3_op,
	.flushes = true,
};

/*
 * tlb_flush2: each task starts at page i * 256 / tasks of its region, so
 * the tasks' munmap()s are spread, as in a long run's steady state. The
 * region is the test's fresh mmap(): no PTEs yet (a new mm's are present,
 * read-only), so a first write is do_anonymous_page(), not a COW flush.
 */
static int tlb_flush2_start(struct bench_task *t)
{
	t->page = (unsigned long)t->cpu * ANON_PAGES / t->tasks;
	return bench_region_none(t, ANON_PAGES);
}

static int tlb_flush2_op(struct bench_task *t)
{
	unsigned long addr = bench_page_addr(t, t->page);
	int err = tlbgen_wl__user_work(t->wl, t->cpu, 1);

	if (!err)
		err = tlbgen_wl__fault(t->wl, t->cpu, t->mm, addr, TLBGEN_MAP_ANON,
				       TLBGEN_WL_FAULT_WRITE);
	if (!err)
		err = tlbgen_wl__madvise_dontneed(t->wl, t->cpu, t->mm, addr, TLBGEN_PAGE_SIZE);
	if (!err)
		err = tlbgen_wl__fault(t->wl, t->cpu, t->mm, addr, TLBGEN_MAP_ANON, 0);
	if (err || ++t->page < ANON_PAGES)
		return err;
	/*
	 * munmap() and mmap() again. With one mm per task the region's page
	 * tables go with it; threads' regions are neighbours in one mm, so
	 * free_pgtables() keeps the shared PTE page (freed_tables false).
	 */
	t->page = 0;
	err = tlbgen_wl__munmap(t->wl, t->cpu, t->mm, bench_page_addr(t, 0),
				(unsigned long)ANON_PAGES << TLBGEN_PAGE_SHIFT, t->processes);
	if (!err)
		err = tlbgen_wl__mmap(t->wl, t->cpu, t->mm);
	/*
	 * The test counted this page's iteration before its munmap(): a run
	 * that ends while the remap sleeps on mmap_lock still has it.
	 */
	return err > 0 ? 0 : err;
}

const struct bench_ops bench_tlb_flush2_ops = {
	.desc = "TLB flush of anonymous memory private mapping",
	.region_pages = ANON_PAGES, .start = tlb_flush2_start, .op = tlb_flush2_op,
	.flushes = true,
};

/*
 * One write fault of the page_fault tests, on a mapping of kind `map`,
 * then the end of the pass: munmap() of 128 MiB whose pages the test all
 * wrote. Only page_fault3's are dirty pages of a file (its MAP_SHARED
 * file's page cache); page_fault1's and 2's are private anonymous pages
 * (page_fault2's are do_cow_fault()'s copies of the file's pages).
 */
static int write_fault_op(struct bench_task *t, unsigned int map)
{
	unsigned long j = t->page % FAULT_AROUND_PAGES;
	int err = j ? 0 : next_block(t);

	if (!err)
		err = tlbgen_wl__fault(t->wl, t->cpu, t->mm, bench_page_addr(t, j), map,
				       TLBGEN_WL_FAULT_WRITE);
	if (err)
		return err;
	return end_of_file(t, map == (TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED) ? BENCH_WIS_DIRTY_FILE
									 : BENCH_WIS_ANON);
}

static int page_fault1_op(struct bench_task *t)
{
	return write_fault_op(t, TLBGEN_MAP_ANON);
}

static int page_fault2_op(struct bench_task *t)
{
	return write_fault_op(t, TLBGEN_MAP_FILE);
}

static int page_fault3_op(struct bench_task *t)
{
	return write_fault_op(t, TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED);
}

static uint64_t page_fault3_cycles(const struct tlbgen_machine *m)
{
	return m->page_fault;
}

/* tests/page_fault1.c: MAP_PRIVATE | MAP_ANONYMOUS, 4 KiB pages (no THP). */
const struct bench_ops bench_page_fault1_ops = {
	.desc = "Anonymous memory page fault",
	.region_pages = FILE_PAGES, .op_cycles = page_fault3_cycles, .start = bench_wis_file_start,
	.op = page_fault1_op,
};

/* tests/page_fault2.c: MAP_PRIVATE of a 128 MiB file. */
const struct bench_ops bench_page_fault2_ops = {
	.desc = "Separate file private mapping page fault",
	.region_pages = FILE_PAGES, .op_cycles = page_fault3_cycles, .start = bench_wis_file_start,
	.op = page_fault2_op,
};

const struct bench_ops bench_page_fault3_ops = {
	.desc = "Separate file shared mapping page fault",
	.region_pages = FILE_PAGES, .op_cycles = page_fault3_cycles, .start = bench_wis_file_start,
	.op = page_fault3_op,
};

/*
 * mmap1: the mapping is never touched, so the munmap() finds no page table
 * and its mmu_gather nothing to flush; what remains is mmap_lock taken
 * for write twice and the VMA's setup and teardown.
 */
static int mmap1_op(struct bench_task *t)
{
	int err = tlbgen_wl__mmap(t->wl, t->cpu, t->mm);

	if (err)
		return err > 0 ? 0 : err;
	return tlbgen_wl__munmap(t->wl, t->cpu, t->mm, bench_page_addr(t, 0),
				 (unsigned long)FAULT_AROUND_PAGES << TLBGEN_PAGE_SHIFT, false);
}

/* A fresh mapping's PTEs are none (a new mm's are present, read-only). */
static int mmap1_start(struct bench_task *t)
{
	return next_block(t);
}

const struct bench_ops bench_mmap1_ops = {
	.desc = "Anonymous memory mmap/munmap of 128MB",
	.region_pages = FAULT_AROUND_PAGES, .start = mmap1_start, .op = mmap1_op,
};
