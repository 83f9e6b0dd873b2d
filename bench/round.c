// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/wis.c - will-it-scale's TLB tests as emulated work.
 *
 * Per task, each operation is what one loop iteration of the kernel test
 * does to the TLB machinery:
 *   tlb_flush1/2/3: write the page (a fault, then tlbgen_access),
 *     MADV_DONTNEED zaps its PTE (tlbgen_pte_change) and flushes one page
 *     (flush_tlb_mm_range, stride PAGE_SHIFT, freed_tables false) - the
 *     whole mm with freed_tables when another task's zap of the mm is in
 *     flight (mm_tlb_flush_nested()) - then the test reads the page back
 *     (a second fault, tlbgen_access);
 *   tlb_flush1 only: its mapping is a file's, MAP_PRIVATE, so the read back
 *     is a read fault whose do_fault_around() maps the rest of the page's
 *     64 KiB block read-only; the next write, on 15 pages in 16, is a COW
 *     over a read-only PTE, which wp_page_copy() clears and flushes
 *     (ptep_clear_flush()) before the madvise flushes again;
 *   page_fault3: write the page (the fault makes the PTE writable: a PTE
 *     change that x86 does not flush).
 * After region_pages operations the task munmaps its region: every PTE
 * changes and one flush of the whole region with freed_tables (past the
 * ceiling: a full flush). Threads mode shares one mm (IPIs), processes mode
 * gives each task its own mm (flushes stay local).
 * The kernel tests' page-cache work has no model here beyond that; the
 * region is 128 MiB for the file tests, 1 MiB for tlb_flush2.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

const struct bench_wis_workload bench_wis_workloads[] = {
	/* fault_around_bytes: rounddown_pow_of_two(65536), 16 pages. */
	{ "tlb_flush1", "TLB flush of separate file private mapping", 32768, true, 16 },
	{ "tlb_flush2", "TLB flush of anonymous memory private mapping", 256, true, 0 },
	{ "tlb_flush3", "TLB flush of separate file shared mapping", 32768, true, 0 },
	{ "page_fault3", "Separate file shared mapping page fault", 32768, false, 0 },
	{ NULL, NULL, 0, false, 0 },
};

const struct bench_wis_workload *bench_wis_find(const char *name)
{
	for (const struct bench_wis_workload *w = bench_wis_workloads; w->name; w++)
		if (!strcmp(w->name, name))
			return w;
	return NULL;
}

/* will-it-scale keeps each task's counter in its own 256-byte slot. */
struct task_slot {
	_Atomic uint64_t ops;
	char pad[256 - sizeof(uint64_t)];
};

/* Per-CPU tlb_gen read classification for the accounting pass. */
struct read_acct {
	bool in_remote;
	uint64_t remote_reads, local_reads;
} __attribute__((aligned(64)));

/* mm->tlb_flush_pending of a task mm, on its own line. */
struct flush_pending {
	atomic_int v;
} __attribute__((aligned(64)));

struct round {
	const struct bench_round_opts *o;
	struct tlbgen_system *sys;
	struct tlbgen_mm **mms;
	struct flush_pending *pending;	/* per mm */
	struct task_slot *slots;
	_Atomic int ready, start, stop, done, err;
	struct tlbgen_coherence *mesi;	/* stepped account only */
	struct read_acct *acct;
};

struct task_arg {
	struct round *r;
	unsigned int i;
};

static void acct_line(void *ctx, unsigned int cpu, enum tlbgen_line line, uintptr_t id,
		      enum tlbgen_access_op op)
{
	struct round *r = ctx;
	struct read_acct *a = &r->acct[cpu];

	if (r->mesi)
		tlbgen_coherence__line_access(r->mesi, cpu, line, id, op);
	if (line == TLBGEN_LINE_MM_TLB_GEN && op == TLBGEN_OP_READ) {
		if (a->in_remote)
			a->remote_reads++;
		else
			a->local_reads++;
	} else if (line == TLBGEN_LINE_CSD && op == TLBGEN_OP_WRITE && a->in_remote) {
		/* A SYNC csd is unlocked after its callback returned. */
		a->in_remote = false;
	}
}

static void acct_receive(void *ctx, unsigned int cpu, unsigned int from)
{
	struct round *r = ctx;

	(void)from;
	r->acct[cpu].in_remote = true;
}

static int install_acct(struct round *r, unsigned int nr_cpus)
{
	struct tlbgen_trace_ops ops = { .sz = sizeof(ops) };

	r->acct = aligned_alloc(64, sizeof(*r->acct) * nr_cpus);
	if (!r->acct)
		return -ENOMEM;
	memset(r->acct, 0, sizeof(*r->acct) * nr_cpus);
	ops.line_access = acct_line;
	ops.ipi_receive = acct_receive;
	ops.ctx = r;
	return tlbgen_system__set_trace(r->sys, &ops);
}

static void sum_acct(struct round *r, unsigned int nr_cpus, uint64_t *remote, uint64_t *local)
{
	*remote = *local = 0;
	for (unsigned int i = 0; r->acct && i < nr_cpus; i++) {
		*remote += r->acct[i].remote_reads;
		*local += r->acct[i].local_reads;
	}
}

/* munmap() of the task's region: every PTE goes, one flush with freed_tables. */
static int wis_munmap(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
		      unsigned long base, unsigned long pages)
{
	int err;

	for (unsigned long p = 0; p < pages; p++) {
		err = tlbgen_pte_change(sys, cpu, mm, (base + p) << TLBGEN_PAGE_SHIFT);
		if (err)
			return err;
	}
	return tlbgen_flush_tlb_mm_range(sys, cpu, mm, base << TLBGEN_PAGE_SHIFT,
					 (base + pages) << TLBGEN_PAGE_SHIFT, TLBGEN_PAGE_SHIFT,
					 true);
}

int bench_wis_cow_flush(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			unsigned long addr)
{
	int err = tlbgen_pte_change(sys, cpu, mm, addr);

	return err ? err : tlbgen_flush_tlb_mm_range(sys, cpu, mm, addr, addr + TLBGEN_PAGE_SIZE,
						     TLBGEN_PAGE_SHIFT, false);
}

int bench_wis_zap_flush(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			unsigned long addr, bool nested)
{
	if (nested)
		return tlbgen_flush_tlb_mm_range(sys, cpu, mm, 0, TLBGEN_TLB_FLUSH_ALL,
						 TLBGEN_PAGE_SHIFT, true);
	return tlbgen_flush_tlb_mm_range(sys, cpu, mm, addr, addr + TLBGEN_PAGE_SIZE,
					 TLBGEN_PAGE_SHIFT, false);
}

static void *task_main(void *p)
{
	struct task_arg *a = p;
	struct round *r = a->r;
	const struct bench_round_opts *o = r->o;
	struct tlbgen_system *sys = r->sys;
	unsigned int cpu = a->i;
	struct tlbgen_mm *mm = o->processes ? r->mms[cpu] : r->mms[0];
	unsigned long region = o->wl->region_pages;
	unsigned long base = o->processes ? 0 : cpu * region, page = 0;
	_Atomic uint64_t *ops = &r->slots[cpu].ops;
	uint64_t n = 0;
	int err;

	if (o->nr_cpus > 0)
		bench_pin_self(o->cpus[cpu % (unsigned int)o->nr_cpus]);
	err = tlbgen_cpu__attach(sys, cpu);
	if (!err)
		err = tlbgen_switch_mm(sys, cpu, mm);
	if (err) {
		atomic_store(&r->err, err);
		atomic_store(&r->stop, 1);
	}
	atomic_fetch_add(&r->ready, 1);
	while (!atomic_load_explicit(&r->start, memory_order_acquire))
		if (!err)
			tlbgen_poll(sys, cpu);

	while (!err && !atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		unsigned long addr = (base + page) << TLBGEN_PAGE_SHIFT;

		/* *(addr + i) = 1: the fault that maps the page again; under
		 * tlb_flush1 mostly a COW whose wp_page_copy() flushes. */
		bench_burn_ns_irqs_on(sys, cpu, o->kw_fault_ns);
		err = o->trace_reads ? tlbgen_access(sys, cpu, addr) : 0;
		if (err >= 0 && o->wl->cow_block && page % o->wl->cow_block)
			err = bench_wis_cow_flush(sys, cpu, mm, addr);
		if (err >= 0)
			err = tlbgen_pte_change(sys, cpu, mm, addr);
		if (!err && o->wl->flush_per_op) {
			atomic_int *pending = &r->pending[o->processes ? cpu : 0].v;

			/* madvise(MADV_DONTNEED): zap + 1-page flush under an
			 * mmu_gather, or, when another task's gather on the mm
			 * is in flight, a flush of the whole mm with
			 * freed_tables (bench_wis_zap_flush()); then the read back
			 * faults the page in again. */
			atomic_fetch_add(pending, 1);
			bench_burn_ns_irqs_on(sys, cpu, o->kw_syscall_ns + o->kw_zap_ns);
			err = bench_wis_zap_flush(sys, cpu, mm, addr, atomic_load(pending) > 1);
			atomic_fetch_sub(pending, 1);
			bench_burn_ns_irqs_on(sys, cpu, o->kw_fault_ns);
			if (!err && o->trace_reads)
				err = tlbgen_access(sys, cpu, addr);
			if (err > 0)
				err = 0;
		}
		if (err)
			break;
		bench_burn_ns_irqs_on(sys, cpu, o->kw_user_ns);
		atomic_store_explicit(ops, ++n, memory_order_relaxed);
		if (++page == region) {
			err = wis_munmap(sys, cpu, mm, base, region);
			page = 0;
		}
		/* IRQs are on between iterations: take pending IPIs. */
		tlbgen_poll(sys, cpu);
	}
	if (err < 0) {
		atomic_store(&r->err, err);
		atomic_store(&r->stop, 1);
	}
	/* Stay an IRQ-enabled CPU until every task stopped flushing. */
	atomic_fetch_add(&r->done, 1);
	while (atomic_load(&r->done) < (int)o->tasks) {
		if (tlbgen_poll(sys, cpu) <= 0)
			bench_relax();
	}
	tlbgen_cpu__detach(sys, cpu);
	return NULL;
}

static void sleep_until(uint64_t t)
{
	uint64_t now = bench_now_ns();
	struct timespec ts;

	if (now >= t)
		return;
	ts.tv_sec = (time_t)((t - now) / 1000000000ULL);
	ts.tv_nsec = (long)((t - now) % 1000000000ULL);
	nanosleep(&ts, NULL);
}

/*
 * --invlpgb, threads mode: the tasks' mm gets its global ASID when a flush
 * of CPU 0's task (pid 0) meets jiffies % 32 == 0, and the transition ends
 * a broadcast later. Wait for both (at most 2 s), then take the counters
 * as they are: the timed period counts from there.
 */
static void invlpgb_settle(struct round *r, uint64_t *base)
{
	uint64_t until = bench_now_ns() + 2000000000ULL;
	bool tr = true;

	while (bench_now_ns() < until && !atomic_load(&r->stop) &&
	       (tlbgen_mm__global_asid(r->mms[0], &tr) <= 0 || tr))
		sched_yield();
	tlbgen_stats__system(r->sys, base, TLBGEN_STAT_NR);
}

int bench_wis_round(const struct bench_round_opts *o, struct bench_round_result *res)
{
	/*
	 * Timed rounds run without the oracle: its per-mm sequence word is a
	 * line the kernel does not have, RMW'd by every PTE change and read by
	 * every flush, and it blurred the very tlb_gen traffic being compared.
	 * The accounting pass keeps it and reports the violations. With no
	 * oracle there is no simulated TLB, so the tasks skip their accesses.
	 */
	TLBGEN_OPTS(tlbgen_system_opts, so, .nr_cpus = o->tasks, .mode = TLBGEN_MODE_THREADED,
		    .profile = o->profile, .invlpgb = o->invlpgb,
		    .flags = o->trace_reads ? 0 : TLBGEN_SYS_NO_ORACLE);
	uint64_t base_stats[TLBGEN_STAT_NR] = { 0 };
	struct round r = { .o = o };
	struct task_arg *args = NULL;
	pthread_t *th = NULL;
	unsigned int nmm = o->processes ? o->tasks : 1, started = 0;
	unsigned int max_samples = o->sample_ms ? o->duration_ms / o->sample_ms + 2 : 1;
	uint64_t *last = NULL, idle0, tot0, idle1, tot1, t0, t1, next, base_ops = 0;
	int err;

	memset(res, 0, sizeof(*res));
	err = tlbgen_system__create(&so, &r.sys);
	if (err)
		return err;
	r.mms = calloc(nmm, sizeof(*r.mms));
	r.pending = aligned_alloc(64, sizeof(*r.pending) * nmm);
	if (r.pending)
		memset(r.pending, 0, sizeof(*r.pending) * nmm);
	r.slots = aligned_alloc(256, sizeof(*r.slots) * o->tasks);
	th = calloc(o->tasks, sizeof(*th));
	args = calloc(o->tasks, sizeof(*args));
	last = calloc(o->tasks, sizeof(*last));
	res->smin = calloc(max_samples, sizeof(uint64_t));
	res->smax = calloc(max_samples, sizeof(uint64_t));
	res->stotal = calloc(max_samples, sizeof(uint64_t));
	if (!r.mms || !r.pending || !r.slots || !th || !args || !last || !res->smin || !res->smax ||
	    !res->stotal) {
		err = -ENOMEM;
		goto out;
	}
	memset(r.slots, 0, sizeof(*r.slots) * o->tasks);
	for (unsigned int i = 0; i < nmm; i++) {
		err = tlbgen_mm__create(r.sys, o->processes ? o->wl->region_pages :
					o->wl->region_pages * o->tasks, &r.mms[i]);
		if (err)
			goto out;
	}
	if (o->trace_reads && (err = install_acct(&r, o->tasks)))
		goto out;
	if (o->hw)
		bench_hw_start(o->hw, &res->hw);
	for (; started < o->tasks; started++) {
		args[started] = (struct task_arg){ &r, started };
		if (pthread_create(&th[started], NULL, task_main, &args[started])) {
			err = -EAGAIN;
			atomic_store(&r.stop, 1);
			/* Let the started tasks finish: count the missing ones done. */
			atomic_fetch_add(&r.done, (int)(o->tasks - started));
			break;
		}
	}
	while (atomic_load(&r.ready) < (int)started)
		sched_yield();
	atomic_store_explicit(&r.start, 1, memory_order_release);
	if (o->warmup_samples) {
		/* Warm-up (will-it-scale discards its first iterations): caches,
		 * TLBs and the tasks' placement settle; nothing of it is counted
		 * but the library's event counters. */
		sleep_until(bench_now_ns() + (uint64_t)o->warmup_samples *
			    (o->sample_ms ? o->sample_ms : o->duration_ms) * 1000000ULL);
		for (unsigned int i = 0; i < o->tasks; i++) {
			last[i] = atomic_load_explicit(&r.slots[i].ops, memory_order_relaxed);
			base_ops += last[i];
		}
	}
	if (o->invlpgb && !o->processes && o->tasks >= 4 &&
	    strcmp(tlbgen_system__get_choice(r.sys, "invlpgb"), "off"))
		invlpgb_settle(&r, base_stats);
	bench_proc_stat(&idle0, &tot0);
	t0 = bench_now_ns();
	next = t0;
	while (!atomic_load(&r.stop)) {
		uint64_t end = t0 + (uint64_t)o->duration_ms * 1000000ULL, now;
		double scale;

		next += (uint64_t)(o->sample_ms ? o->sample_ms : o->duration_ms) * 1000000ULL;
		if (next > end)
			next = end;
		sleep_until(next);
		now = bench_now_ns();
		scale = 1e9 / (double)(now - (next - (uint64_t)(o->sample_ms ? o->sample_ms :
					o->duration_ms) * 1000000ULL));
		if (res->nr_samples < max_samples) {
			uint64_t mn = UINT64_MAX, mx = 0, tot = 0;

			for (unsigned int i = 0; i < o->tasks; i++) {
				uint64_t v = atomic_load_explicit(&r.slots[i].ops,
								  memory_order_relaxed);
				uint64_t d = v - last[i];

				last[i] = v;
				mn = d < mn ? d : mn;
				mx = d > mx ? d : mx;
				tot += d;
			}
			res->smin[res->nr_samples] = (uint64_t)((double)mn * scale);
			res->smax[res->nr_samples] = (uint64_t)((double)mx * scale);
			res->stotal[res->nr_samples] = (uint64_t)((double)tot * scale);
			res->nr_samples++;
		}
		if (now >= end)
			break;
	}
	atomic_store(&r.stop, 1);
	t1 = bench_now_ns();
	bench_proc_stat(&idle1, &tot1);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (o->hw)
		bench_hw_stop(&res->hw);
	if (!err)
		err = atomic_load(&r.err);
	res->seconds = (double)(t1 - t0) / 1e9;
	for (unsigned int i = 0; i < o->tasks; i++)
		res->ops += atomic_load(&r.slots[i].ops);
	res->ops -= base_ops;
	res->ops_per_sec = res->seconds > 0 ? (double)res->ops / res->seconds : 0;
	res->idle_pct = tot1 > tot0 ? 100.0 * (double)(idle1 - idle0) / (double)(tot1 - tot0) : 0;
	tlbgen_stats__system(r.sys, res->stats, TLBGEN_STAT_NR);
	for (int i = 0; i < TLBGEN_STAT_NR; i++)
		res->stats[i] -= base_stats[i];
	if (o->invlpgb && !o->processes)
		res->global_asid = tlbgen_mm__global_asid(r.mms[0], NULL);
	res->violations = o->trace_reads ? tlbgen_oracle__violations(r.sys) : 0;
	sum_acct(&r, o->tasks, &res->remote_reads, &res->local_reads);
out:
	if (r.sys) {
		tlbgen_system__set_trace(r.sys, NULL);
		tlbgen_system__destroy(r.sys);
	}
	free(r.acct);
	free(r.mms);
	free(r.pending);
	free(r.slots);
	free(th);
	free(args);
	free(last);
	if (err)
		bench_round_result_free(res);
	return err;
}

void bench_round_result_free(struct bench_round_result *r)
{
	free(r->smin);
	free(r->smax);
	free(r->stotal);
	r->smin = r->smax = r->stotal = NULL;
	r->nr_samples = 0;
}

/* Stepped coherence account ------------------------------------------------ */

/*
 * The same loop in stepped mode, one host thread, threads mode (one mm).
 * A seeded scheduler interleaves the CPUs' iterations with IPI deliveries,
 * so flushes overlap as on a busy machine: a target may receive an IPI for
 * a generation it already caught up to (the early skip of aa44284960).
 * Every traced line access drives the MESI model.
 */
int bench_wis_mesi(const struct bench_wis_workload *wl, const char *profile, unsigned int ncpu,
		   uint64_t target, uint64_t seed, bool invlpgb, struct bench_mesi_result *res)
{
	TLBGEN_OPTS(tlbgen_system_opts, so, .nr_cpus = ncpu, .mode = TLBGEN_MODE_STEPPED,
		    .profile = profile, .seed = seed, .invlpgb = invlpgb);
	struct round r = { 0 };
	struct tlbgen_mm *mm = NULL;
	unsigned long region = wl->region_pages, *page = NULL;
	unsigned char *phase = NULL;
	unsigned int pending = 0;	/* the mm's tlb_flush_pending */
	uint64_t rng = seed * 2654435761ULL + 88172645463325252ULL, ops = 0;
	struct tlbgen_coherence_counts cc;
	int err;

	memset(res, 0, sizeof(*res));
	err = tlbgen_system__create(&so, &r.sys);
	if (err)
		return err;
	page = calloc(ncpu, sizeof(*page));
	phase = calloc(ncpu, 1);
	if (!page || !phase) {
		err = -ENOMEM;
		goto out;
	}
	err = tlbgen_coherence__create(ncpu, &r.mesi);
	if (!err)
		err = tlbgen_mm__create(r.sys, region * ncpu, &mm);
	for (unsigned int c = 0; !err && c < ncpu; c++)
		err = tlbgen_switch_mm(r.sys, c, mm);
	if (!err)
		err = install_acct(&r, ncpu);
	if (err)
		goto out;
	/* Count from a warm state: every CPU runs the mm, caches as they are. */
	tlbgen_stats__reset(r.sys);
	tlbgen_coherence__reset(r.mesi, false);
	while (ops < target && !err) {
		unsigned int c;

		if (bench_xorshift(&rng) % 2 && tlbgen_step(r.sys) >= 0)
			continue;
		c = (unsigned int)(bench_xorshift(&rng) % ncpu);
		if (tlbgen_cpu__is_waiting(r.sys, c)) {
			/* Spinning in csd_lock_wait() with IRQs on. */
			tlbgen_deliver(r.sys, c);
			continue;
		}
		unsigned long addr = (c * region + page[c]) << TLBGEN_PAGE_SHIFT;

		/* Phases: 0 the write (and its COW flush), 2 the zap and the
		 * madvise flush, 1 the re-fault once that flush returned. */
		if (phase[c] == 0) {
			err = tlbgen_access(r.sys, c, addr);
			phase[c] = 2;
			if (err >= 0 && wl->cow_block && page[c] % wl->cow_block) {
				err = bench_wis_cow_flush(r.sys, c, mm, addr);
				continue;
			}
		}
		if (err >= 0 && phase[c] == 2) {
			err = tlbgen_pte_change(r.sys, c, mm, addr);
			phase[c] = 0;
			if (!err && wl->flush_per_op) {
				/* The gather stays open until the flush returns. */
				pending++;
				res->nested_flushes += pending > 1;
				err = bench_wis_zap_flush(r.sys, c, mm, addr, pending > 1);
				phase[c] = 1;
				continue;
			}
		} else if (phase[c] == 1) {
			pending--;
			/* The flush has returned: the re-fault. */
			err = tlbgen_access(r.sys, c, addr);
			if (err > 0)
				err = 0;
			phase[c] = 0;
		}
		if (err)
			break;
		ops++;
		if (++page[c] == region) {
			page[c] = 0;
			err = wis_munmap(r.sys, c, mm, c * region, region);
		}
	}
	tlbgen_run_until_idle(r.sys);
	if (err)
		goto out;
	res->ops = ops;
	tlbgen_stats__system(r.sys, res->stats, TLBGEN_STAT_NR);
	res->flushes = res->stats[TLBGEN_STAT_FLUSH_INITIATED];
	res->transfers = tlbgen_coherence__transfers(r.mesi, TLBGEN_LINE_NR, -1);
	for (int k = 0; k < TLBGEN_LINE_NR; k++)
		res->line_transfers[k] = tlbgen_coherence__transfers(r.mesi, (enum tlbgen_line)k, -1);
	tlbgen_coherence__counts(r.mesi, TLBGEN_LINE_MM_TLB_GEN, -1, &cc);
	res->tlb_gen = cc;
	sum_acct(&r, ncpu, &res->remote_reads, &res->local_reads);
	res->violations = tlbgen_oracle__violations(r.sys);
out:
	if (r.sys) {
		tlbgen_system__set_trace(r.sys, NULL);
		tlbgen_system__destroy(r.sys);
	}
	tlbgen_coherence__destroy(r.mesi);
	free(r.acct);
	free(page);
	free(phase);
	return err;
}
