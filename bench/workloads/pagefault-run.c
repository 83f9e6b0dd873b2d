// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/pagefault-run.c - seed 003's loop, once: each task maps its region,
 * writes every page (a write fault; with probability retry_pct the first
 * attempt drops the lock for balance_dirty_pages() and returns
 * VM_FAULT_RETRY, 89b15332af7c, and the arch handler retries with
 * FAULT_FLAG_TRIED), then munmaps it (a full flush). On real threads;
 * stepped: one host thread takes the tasks' faults in turn, page by page,
 * and delivers the IPIs each one sent before the next; or in virtual time,
 * the fault's kernel work charged from the machine model.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "driver/common.h"
#include "pagefault-run.h"

#define PF_MAX_TASKS	256
#define WR (TLBGEN_FAULT_FLAG_WRITE | TLBGEN_FAULT_FLAG_ALLOW_RETRY | TLBGEN_FAULT_FLAG_USER | \
	    TLBGEN_FAULT_FLAG_KILLABLE)

struct pf_run {
	const struct pf_cfg *c;
	struct tlbgen_system *sys;
	struct tlbgen_mm *mms[PF_MAX_TASKS];	/* one per task (processes) or one (threads) */
	bool shared_mm;
	bool oracle;
	bool stepped;			/* IPIs delivered after each fault */
	bool virtual;			/* the kernel's work charged in virtual time */
	struct pf_task *tasks;
	atomic_uint ready, done;
	atomic_int err;
};

struct pf_task {
	struct pf_run *run;
	unsigned int cpu;
	uint64_t ops, rng;
	uint64_t end;			/* virtual: the clock at its last op */
	pthread_t th;
};

static struct tlbgen_mm *task_mm(const struct pf_task *t)
{
	return t->run->shared_mm ? t->run->mms[0] : t->run->mms[t->cpu];
}

static unsigned long task_base(const struct pf_task *t)
{
	return t->run->shared_mm ? t->cpu * t->run->c->pages : 0;
}

/* c[i] = 0 of page p: the write fault, retried once when it asked to be. */
static int write_page(struct pf_task *t, unsigned long p)
{
	struct pf_run *r = t->run;
	unsigned long addr = p * TLBGEN_PAGE_SIZE;
	unsigned int flags = WR;
	int err;

	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	if (t->rng % 100 < r->c->retry_pct)
		flags |= TLBGEN_FAULT_MODEL_THROTTLE;
	/* Each attempt is a fault: the exception and handle_mm_fault()'s work. */
	err = r->virtual ? tlbgen_vtime__event(r->sys, t->cpu, TLBGEN_VT_PAGE_FAULT, 1) : 0;
	if (!err)
		err = tlbgen_handle_mm_fault(r->sys, t->cpu, task_mm(t), addr, flags);
	if (r->stepped)
		tlbgen_run_until_idle(r->sys);
	if (err == (int)TLBGEN_VM_FAULT_RETRY && r->virtual)
		err = tlbgen_vtime__event(r->sys, t->cpu, TLBGEN_VT_PAGE_FAULT, 1) ?:
		      (int)TLBGEN_VM_FAULT_RETRY;
	if (err == (int)TLBGEN_VM_FAULT_RETRY)
		err = tlbgen_handle_mm_fault(r->sys, t->cpu, task_mm(t), addr,
					     flags | TLBGEN_FAULT_FLAG_TRIED);
	/* Stepped, a flush returns once its IPIs are delivered, as in the kernel. */
	if (r->stepped)
		tlbgen_run_until_idle(r->sys);
	/* The store reads the new translation (no simulated TLB without the oracle). */
	if (err >= 0 && r->oracle && tlbgen_access(r->sys, t->cpu, addr) < 0)
		err = -EIO;
	if (err >= 0)
		t->ops++;		/* (*iterations)++ */
	return err < 0 ? err : 0;
}

/* munmap(c, MEMSIZE): zap, then one flush of the whole region. */
static int unmap_all(struct pf_task *t)
{
	struct pf_run *r = t->run;
	unsigned long base = task_base(t);

	if (r->virtual && (tlbgen_vtime__event(r->sys, t->cpu, TLBGEN_VT_SYSCALL, 1) ||
			   tlbgen_vtime__event(r->sys, t->cpu, TLBGEN_VT_ZAP, r->c->pages)))
		return -EIO;
	for (unsigned long p = base; p < base + r->c->pages; p++)
		tlbgen_pte_set(r->sys, t->cpu, task_mm(t), p * TLBGEN_PAGE_SIZE, TLBGEN_PTEF_NONE);
	return tlbgen_flush_tlb_mm_range(r->sys, t->cpu, task_mm(t), base * TLBGEN_PAGE_SIZE,
					 (base + r->c->pages) * TLBGEN_PAGE_SIZE,
					 TLBGEN_PAGE_SHIFT, true);
}

static void *task(void *arg)
{
	struct pf_task *t = arg;
	struct pf_run *r = t->run;
	const struct pf_cfg *c = r->c;
	int err;

	if ((err = tlbgen_cpu__attach(r->sys, t->cpu)) ||
	    (err = tlbgen_switch_mm(r->sys, t->cpu, task_mm(t)))) {
		atomic_store(&r->err, err);
		atomic_fetch_add(&r->ready, 1);
		atomic_fetch_add(&r->done, 1);
		return NULL;
	}
	atomic_fetch_add(&r->ready, 1);
	while (atomic_load(&r->ready) < c->cpus)
		tlbgen_poll(r->sys, t->cpu);
	for (unsigned int l = 0; l < c->loops && !atomic_load(&r->err); l++) {
		for (unsigned long p = task_base(t); p < task_base(t) + c->pages; p++) {
			err = write_page(t, p);
			if (err) {
				atomic_store(&r->err, err);
				break;
			}
			tlbgen_poll(r->sys, t->cpu);
		}
		unmap_all(t);
	}
	atomic_fetch_add(&r->done, 1);
	while (atomic_load(&r->done) < c->cpus)	/* keep taking IPIs until all are done */
		tlbgen_poll(r->sys, t->cpu);
	tlbgen_cpu__detach(r->sys, t->cpu);
	return NULL;
}

/* The tasks on pthreads: 0 or -errno. */
static int run_threads(struct pf_run *r, struct pf_task *tasks)
{
	const struct pf_cfg *c = r->c;

	for (unsigned int i = 0; i < c->cpus; i++) {
		if (pthread_create(&tasks[i].th, NULL, task, &tasks[i])) {
			atomic_store(&r->err, -EAGAIN);
			for (unsigned int j = 0; j < i; j++)
				pthread_join(tasks[j].th, NULL);
			return -EAGAIN;
		}
	}
	for (unsigned int i = 0; i < c->cpus; i++)
		pthread_join(tasks[i].th, NULL);
	return atomic_load(&r->err);
}

/* The tasks stepped: page p of every task in turn, each fault's IPIs
 * delivered before the next; then each task's munmap. 0 or -errno. */
static int run_stepped(struct pf_run *r, struct pf_task *tasks)
{
	const struct pf_cfg *c = r->c;
	int err = 0;

	for (unsigned int i = 0; !err && i < c->cpus; i++)
		err = tlbgen_switch_mm(r->sys, i, task_mm(&tasks[i]));
	for (unsigned int l = 0; !err && l < c->loops; l++) {
		for (unsigned long p = 0; !err && p < c->pages; p++)
			for (unsigned int i = 0; !err && i < c->cpus; i++)
				err = write_page(&tasks[i], task_base(&tasks[i]) + p);
		for (unsigned int i = 0; !err && i < c->cpus; i++) {
			err = unmap_all(&tasks[i]);
			tlbgen_run_until_idle(r->sys);
		}
	}
	return err;
}

/* A task in virtual time: its loops, then its clock. Task i starts i/tasks
 * of a fault late: tasks started together with equal costs would run in
 * lock step, where a real run's drift apart. */
static int vtask(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct pf_run *r = arg;
	struct pf_task *t = &r->tasks[cpu];
	const struct pf_cfg *c = r->c;
	int err = tlbgen_switch_mm(sys, cpu, task_mm(t));

	if (!err)
		err = tlbgen_vtime__spend(sys, cpu, c->machine->page_fault * cpu / c->cpus);
	for (unsigned int l = 0; !err && l < c->loops; l++) {
		for (unsigned long p = task_base(t); !err && p < task_base(t) + c->pages; p++)
			err = write_page(t, p);
		if (!err)
			err = unmap_all(t);
	}
	if (!err)
		err = tlbgen_vtime__now(sys, cpu, &t->end);
	return err;
}

/* The tasks as programs of the virtual system: 0 or -errno. */
static int run_virtual(struct pf_run *r)
{
	int err = 0, ret;

	for (unsigned int i = 0; !err && i < r->c->cpus; i++)
		err = tlbgen_cpu__spawn(r->sys, i, vtask, r);
	if (!err)
		err = tlbgen_vtime__run(r->sys, ~0ULL);
	for (unsigned int i = 0; i < r->c->cpus; i++)
		if (!tlbgen_cpu__join(r->sys, i, &ret) && ret && !err)
			err = ret;
	return err;
}

int pf_run_once(const struct pf_cfg *c, enum pf_mode mode, bool shared_mm, const char *hook,
		bool after, unsigned int round, struct pf_result *res)
{
	bool stepped = mode == PF_STEPPED;
	/* arm64's broadcast TLBIs edit remote simulated TLBs only when stepped. */
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = c->cpus,
		    .mode = stepped ? TLBGEN_MODE_STEPPED : mode == PF_VIRTUAL ? TLBGEN_MODE_VIRTUAL
								    : TLBGEN_MODE_THREADED,
		    .profile = c->profile, .seed = 3,
		    .machine = mode == PF_VIRTUAL ? c->machine : NULL, .invlpgb = c->invlpgb,
		    .no_pcid = c->no_pcid,
		    .flags = mode == PF_THREADED && !strcmp(c->arch, "arm64") ? TLBGEN_SYS_NO_ORACLE
									      : 0);
	struct pf_run *r = calloc(1, sizeof(*r));
	struct pf_task *tasks = calloc(c->cpus, sizeof(*tasks));
	unsigned int nmm = shared_mm ? 1 : c->cpus;
	unsigned long npages = shared_mm ? c->pages * c->cpus : c->pages;
	uint64_t t0;
	int err = -ENOMEM;

	if (!r || !tasks || c->cpus > PF_MAX_TASKS || round >= PF_MAX_ROUNDS)
		goto out_free;
	if (mode == PF_VIRTUAL)		/* the model's CPUs, the tasks on the first */
		o.nr_cpus = c->machine->sockets * c->machine->cores_per_socket *
			    (c->machine->threads_per_core ? c->machine->threads_per_core : 1);
	*r = (struct pf_run){ .c = c, .shared_mm = shared_mm, .stepped = stepped,
			      .virtual = mode == PF_VIRTUAL, .tasks = tasks,
			      .oracle = !(o.flags & TLBGEN_SYS_NO_ORACLE) };
	err = tlbgen_system__create(&o, &r->sys);
	if (err)
		goto out_free;
	if ((err = tlbgen_system__set_choice(r->sys, "fault_arch", c->arch)) ||
	    (hook && (err = tlbgen_system__set_choice(r->sys, "flush_tlb_fix_spurious_fault", hook))) ||
	    (err = tlbgen_system__set_choice(r->sys, "spurious_skip_tried", after ? "on" : "off")))
		goto out;
	if (c->spend && mode == PF_THREADED) {
		struct tlbgen_cost_model m;

		tlbgen_cost_model_default(&m);
		m.spend = true;
		if ((err = tlbgen_system__set_cost_model(r->sys, &m)))
			goto out;
	}
	for (unsigned int i = 0; i < nmm; i++) {
		if ((err = tlbgen_mm__create(r->sys, npages, &r->mms[i])))
			goto out;
		for (unsigned long p = 0; p < npages; p++)	/* a fresh mapping: pte_none */
			tlbgen_pte_set(r->sys, 0, r->mms[i], p * TLBGEN_PAGE_SIZE, TLBGEN_PTEF_NONE);
	}
	for (unsigned int i = 0; i < c->cpus; i++)
		tasks[i] = (struct pf_task){ .run = r, .cpu = i,
					     .rng = 0x9E3779B97F4A7C15ULL * (i + 1) };
	t0 = bench_now_ns();
	err = stepped ? run_stepped(r, tasks) : mode == PF_VIRTUAL ? run_virtual(r)
								 : run_threads(r, tasks);
	if (err)
		goto out;
	res->ops = 0;
	for (unsigned int i = 0; i < c->cpus; i++)
		res->ops += tasks[i].ops;
	if (mode == PF_THREADED)
		res->ops_per_sec[round] = (double)res->ops / ((double)(bench_now_ns() - t0) / 1e9);
	if (mode == PF_VIRTUAL) {	/* over the last task's end: the run's length */
		uint64_t end = 1;

		for (unsigned int i = 0; i < c->cpus; i++)
			end = tasks[i].end > end ? tasks[i].end : end;
		res->ops_per_sec[round] = (double)res->ops / (end / (c->machine->mhz * 1e6));
	}
	tlbgen_stats__system(r->sys, res->st, TLBGEN_STAT_NR);
	tlbgen_fault_stats__system(r->sys, res->fst, TLBGEN_FAULT_STAT_NR);
	res->violations = r->oracle ? tlbgen_oracle__violations(r->sys) : 0;
out:
	tlbgen_system__destroy(r->sys);
out_free:
	free(tasks);
	free(r);
	return err;
}
