// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/core/machine-host.c - the "host" machine model, measured on this
 * machine when looked up: its line transfer, system call, fault and
 * madvise(), the figures the threaded mode's own work costs here.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../base/compiler.h"
#include "../base/printk.h"
#include "machine.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct pingpong {
	_Atomic uint64_t line __cacheline_aligned;
	unsigned int rounds;
	int cpu;		/* the pong side's real CPU, -1 anywhere */
};

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* The pong side: CAS each odd value to the next even one, retrying. */
static void *pong(void *arg)
{
	struct pingpong *p = arg;

	pin(p->cpu);
	for (uint64_t i = 1; i <= p->rounds; i++) {
		uint64_t want;

		do
			want = 2 * i - 1;
		while (!atomic_compare_exchange_weak_explicit(&p->line, &want, 2 * i,
							      memory_order_acq_rel,
							      memory_order_relaxed));
	}
	return NULL;
}

#define PINGPONG_WARMUP	200	/* rounds not timed: the pong thread starting */

/*
 * Half a ping-pong round trip between two threads pinned to two of our
 * CPUs, each retrying a CAS of one line until it finds the other's value:
 * a locked RMW taking the line from the other cache, the model's transfer,
 * measured as the built-ins' figure was (core-to-core-latency's CAS test).
 * A load-and-store ping-pong is an upgrade and a read miss per half, two
 * transfers to the model (1.6 CAS halves on a 2-vCPU Zen 5 guest). The
 * clock starts after PINGPONG_WARMUP rounds: a VM takes up to milliseconds
 * to start the pong thread on its CPU.
 */
static uint64_t transfer_ps_once(void)
{
	struct pingpong p = { .rounds = 20000 + PINGPONG_WARMUP, .cpu = -1 };
	cpu_set_t saved;
	int first = -1;
	pthread_t t;
	uint64_t t0, t1;

	if (pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved))
		CPU_ZERO(&saved);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &saved))
			continue;
		if (first < 0) {
			first = c;
		} else {
			p.cpu = c;
			break;
		}
	}
	/* One CPU: two spinning threads on it would hand over only when the
	 * scheduler preempts one, and there is no transfer to measure. */
	if (p.cpu < 0)
		return 0;
	pin(first);
	if (pthread_create(&t, NULL, pong, &p)) {
		pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
		return 0;
	}
	t0 = 0;
	for (uint64_t i = 1; i <= p.rounds; i++) {
		uint64_t want;

		/* Start once the last untimed round's answer is here, so that
		 * the clock covers exactly the timed rounds' halves. */
		if (i == PINGPONG_WARMUP + 1) {
			while (atomic_load_explicit(&p.line, memory_order_acquire) != 2 * (i - 1))
				;
			t0 = mono_ns();
		}
		do
			want = 2 * i - 2;
		while (!atomic_compare_exchange_weak_explicit(&p.line, &want, 2 * i - 1,
							      memory_order_acq_rel,
							      memory_order_relaxed));
	}
	/* The last round ends when the pong side's answer is here. */
	while (atomic_load_explicit(&p.line, memory_order_acquire) != 2 * (uint64_t)p.rounds)
		;
	t1 = mono_ns();
	pthread_join(t, NULL);
	pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	/* In picoseconds: a transfer is some 20 ns here, and whole
	 * nanoseconds would cost up to 5% of it. */
	return (t1 - t0) * 1000 / (2 * (p.rounds - PINGPONG_WARMUP));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of nine: a shared host preempts its vCPUs now and then. */
static uint64_t measure_transfer_ps(void)
{
	uint64_t v[9];

	for (int i = 0; i < 9; i++)
		v[i] = transfer_ps_once();
	qsort(v, 9, sizeof(v[0]), cmp_u64);
	return v[4];
}

static uint64_t measure_syscall_ns(void)
{
	uint64_t t0 = mono_ns();

	for (int i = 0; i < 20000; i++)
		syscall(SYS_getppid);
	return (mono_ns() - t0) / 20000;
}

/*
 * will-it-scale tlb_flush1's own work on this kernel: a store that faults
 * a page in, then madvise(MADV_DONTNEED) of it (zap, local flush, free).
 */
static int measure_fault_zap_ns(uint64_t *fault, uint64_t *madv)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t f = 0, z = 0;
	const int n = 2000;

	if (p == MAP_FAILED)
		return -1;
	for (int i = 0; i < n; i++) {
		uint64_t t0 = mono_ns(), t1, t2;

		*(volatile char *)p = 1;
		t1 = mono_ns();
		madvise(p, 4096, MADV_DONTNEED);
		t2 = mono_ns();
		f += t1 - t0;
		z += t2 - t1;
	}
	munmap(p, 4096);
	*fault = f / n;
	*madv = z / n;
	return 0;
}

/*
 * zap_batched: munmap() of a shared memfd mapping whose every page was
 * written, per page; the least of three. What page_fault3's munmap() of
 * its file does to each page (docs/machines.md, zap_batched). 0: failed.
 */
static uint64_t measure_zap_batched_ns(void)
{
	const size_t pages = 4096, len = pages * 4096;
	int fd = memfd_create("tlbgen-zap", MFD_CLOEXEC);
	uint64_t best = 0;

	if (fd < 0)
		return 0;
	for (int r = 0; r < 3 && !ftruncate(fd, (off_t)len); r++) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		uint64_t t0;

		if (p == MAP_FAILED)
			break;
		for (size_t i = 0; i < len; i += 4096)
			((volatile char *)p)[i] = 1;
		t0 = mono_ns();
		munmap(p, len);
		t0 = (mono_ns() - t0) / pages;
		best = !best || t0 < best ? t0 : best;
	}
	close(fd);
	return best;
}

/* The clock from /proc/cpuinfo; 2000 MHz when it says nothing. */
static unsigned int host_mhz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	double mhz = 0;

	if (!f)
		return 2000;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
			break;
	fclose(f);
	return mhz >= 100 && mhz <= 10000 ? (unsigned int)mhz : 2000;
}

/*
 * "host": this machine as the threaded mode sees it: one socket of nproc
 * cores; a transfer and the poll backend's IPI (a queue line going across)
 * are one measured CAS ping-pong half; a system call is a measured getppid();
 * a minor fault, a one-page madvise(MADV_DONTNEED) and a long munmap()'s
 * zap per page are measured too.
 * The rest keeps skylake-56's figures (no way to measure them from here).
 */
int tlbgen__machine_measure_host(struct tlbgen_machine *m, const struct tlbgen_machine *base)
{
	uint64_t xfer /* ps */, sys_ns, fault_ns = 0, madv_ns = 0;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	memcpy(m, base, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "host");
	m->mhz = host_mhz();
	m->sockets = 1;
	m->cores_per_socket = n > 0 && n <= (long)TLBGEN_MAX_CPUS ? (unsigned int)n : 1;
	m->threads_per_core = 1;	/* nproc counts every thread as a core */
	xfer = measure_transfer_ps();
	sys_ns = measure_syscall_ns();
	if (!xfer) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: machine host: no line transfer measured (fewer than "
			   "two CPUs in this thread's affinity?)\n");
		return -EAGAIN;
	}
	m->same_socket = m->cross_socket = (uint32_t)((xfer * m->mhz + 500000) / 1000000);
	m->ipi_latency = m->same_socket;
	m->ipi_send = 0;
	m->irq_entry = m->irq_exit = 0;
	/* INVLPG alone: nothing says the host's kernel runs PTI. arch/x86/mm/
	 * tlb.c (a5102476a24b): "Each single flush is about 100 ns". */
	m->invlpg = NS(100, m->mhz);
	m->syscall = NS(sys_ns, m->mhz);
	if (!measure_fault_zap_ns(&fault_ns, &madv_ns)) {
		m->page_fault = NS(fault_ns, m->mhz);
		m->zap = madv_ns > sys_ns ? NS(madv_ns - sys_ns, m->mhz) : 0;
	}
	m->zap_batched = NS(measure_zap_batched_ns(), m->mhz);	/* 0: as zap */
	return 0;
}
