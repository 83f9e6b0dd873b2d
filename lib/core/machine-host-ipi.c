// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/core/machine-host-ipi.c - the "host-kernel" model: "host" with this
 * machine's kernel IPI in place of the threaded mode's polling one.
 *
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) IPIs every other CPU that
 * runs a thread of the caller's mm, through smp_call_function_many() with
 * wait (the csd engine a TLB flush uses), and returns once each ran
 * ipi_mb(). With a second thread spinning on another CPU, one call costs a
 * system call, the send (a VM exit per ICR write in a guest), the delivery,
 * the target's interrupt and csd unlock, and the caller seeing the unlock;
 * with that thread asleep (its CPU idle, whose mm is not ours) no IPI is
 * sent and the call costs the system call alone. The difference of the two
 * medians is the kernel's IPI round trip here (the middle of three rounds).
 *
 * What it leaves behind: the process stays registered for private
 * expedited membarrier (registration cannot be undone; the first costs a
 * synchronize_rcu()). Each call also IPIs the CPUs that run the caller's
 * other threads at the time, in both states, which disturbs them and can
 * make the figure high on a busy multi-threaded program.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "../base/compiler.h"
#include "../base/printk.h"
#include "machine.h"

#define IPI_CALLS	1000	/* timed calls per state (about 15 ms with IPIs on a guest) */
#define IPI_WARMUP	50
#define IPI_ROUNDS	3	/* both states, alternating; the median round's difference */

struct ipi_probe {
	int cpu[2];			/* the caller's CPU and the target's */
	atomic_int spin;		/* the target spins (1) or sleeps (0) */
	atomic_ulong ticks;		/* the spinning target's progress */
	atomic_int stop;
	uint64_t median[IPI_ROUNDS][2];	/* ns per call: target asleep, spinning */
	int err;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The target: runs our mm on its CPU while `spin`, else sleeps there. */
static void *target(void *arg)
{
	struct ipi_probe *p = arg;
	const struct timespec ms = { .tv_nsec = 1000000 };

	if (pin_to(p->cpu[1]))
		p->err = -EAGAIN;	/* on the caller's CPU it would measure nothing */
	while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
		if (atomic_load_explicit(&p->spin, memory_order_relaxed))
			atomic_fetch_add_explicit(&p->ticks, 1, memory_order_relaxed);
		else
			nanosleep(&ms, NULL);
	}
	return NULL;
}

/*
 * The median call in ns. While the target spins, only calls across which
 * it made progress count: a target the scheduler took off its CPU (a busy
 * machine) is sent no IPI, and the call would time the system call alone.
 * 0 when fewer than half of them count.
 */
static uint64_t median_call_ns(struct ipi_probe *p, bool spinning, uint64_t *v)
{
	int n = 0;

	for (int i = 0; i < IPI_WARMUP + IPI_CALLS; i++) {
		unsigned long k0 = atomic_load_explicit(&p->ticks, memory_order_relaxed);
		uint64_t t0 = now_ns(), t1;

		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
		t1 = now_ns();
		if (i < IPI_WARMUP ||
		    (spinning && atomic_load_explicit(&p->ticks, memory_order_relaxed) == k0))
			continue;
		v[n++] = t1 - t0;
	}
	if (n < IPI_CALLS / 2)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/* The caller, on a thread of its own so that no user thread is re-pinned. */
static void *caller(void *arg)
{
	struct ipi_probe *p = arg;
	const struct timespec settle = { .tv_nsec = 20000000 };	/* the target's state holds */
	uint64_t *v = malloc(IPI_CALLS * sizeof(*v));
	pthread_t t;

	if (!v || pthread_create(&t, NULL, target, p)) {
		free(v);
		p->err = -EAGAIN;
		return NULL;
	}
	if (pin_to(p->cpu[0]))
		p->err = -EAGAIN;
	for (int r = 0; r < IPI_ROUNDS && !p->err; r++)
		for (int s = 0; s < 2; s++) {
			atomic_store(&p->spin, s);
			nanosleep(&settle, NULL);
			p->median[r][s] = median_call_ns(p, s, v);
		}
	atomic_store(&p->stop, 1);
	pthread_join(t, NULL);
	free(v);
	return NULL;
}

/* The kernel's IPI round trip in ns, or 0 when it cannot be measured here
 * (fewer than two CPUs to run on, no membarrier). */
static uint64_t measure_kernel_ipi_ns(void)
{
	struct ipi_probe p = { .cpu = { -1, -1 } };
	cpu_set_t set;
	uint64_t d[IPI_ROUNDS];
	pthread_t t;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0, k = 0; c < CPU_SETSIZE && k < 2; c++)
		if (CPU_ISSET(c, &set))
			p.cpu[k++] = c;
	if (p.cpu[1] < 0 ||
	    syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0))
		return 0;
	if (pthread_create(&t, NULL, caller, &p))
		return 0;
	pthread_join(t, NULL);
	if (p.err)
		return 0;
	/* A guest's vCPUs are moved and preempted: one round can be off by a
	 * fifth; the middle one of three is steadier. */
	for (int r = 0; r < IPI_ROUNDS; r++) {
		if (!p.median[r][1])
			return 0;	/* the target was not running for most calls */
		d[r] = p.median[r][1] > p.median[r][0] ? p.median[r][1] - p.median[r][0] : 0;
	}
	qsort(d, IPI_ROUNDS, sizeof(d[0]), cmp_u64);
	return d[IPI_ROUNDS / 2];
}

/*
 * "host-kernel": "host", and an IPI that costs what this machine's kernel
 * IPI costs. The model's round trip is the send, the latency, the target's
 * csd read and unlock and the initiator's read of it (three transfers of
 * the csd's line); the measured round trip less those three transfers is
 * charged as ipi_latency, with ipi_send 0 as in "host": from user space the
 * send (an exit on a guest) and the delivery cannot be told apart.
 */
int tlbgen__machine_measure_host_kernel(struct tlbgen_machine *m, const struct tlbgen_machine *base)
{
	uint64_t rtt = measure_kernel_ipi_ns(), csd;
	int err = tlbgen__machine_measure_host(m, base);

	if (err)
		return err;
	snprintf(m->name, sizeof(m->name), "host-kernel");
	if (!rtt) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: machine host-kernel: no kernel IPI measured "
			   "(membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) unavailable, fewer than "
			   "two CPUs in this thread's affinity, a thread not pinned to one, or its "
			   "spinning target kept off its CPU by other work)\n");
		return -EAGAIN;
	}
	csd = 3ull * m->same_socket;
	m->ipi_latency = NS(rtt, m->mhz) > csd + m->same_socket ? (uint32_t)(NS(rtt, m->mhz) - csd)
								 : m->same_socket;
	return 0;
}
