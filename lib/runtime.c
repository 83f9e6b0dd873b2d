// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime.c - the threaded transport: emulated CPUs are pthreads,
 * attached by the user or spawned (and pinned) by the library.
 *
 * kernel/smp.c's semantics stay in smp.c; this file decides how an "IPI"
 * reaches its target and how an initiator waits:
 *  - an IPI is a non-empty call queue plus, if the target sleeps, a futex
 *    wake, and with the signal backend a pthread_kill(); the handler runs
 *    the queue unless the CPU has IRQs off, in which case the IPI is taken
 *    at the next irq-enable point (tlbgen__rt_irq_enabled);
 *  - waits spin (servicing the waiter's own queue, so two CPUs flushing
 *    each other never deadlock), then sched_yield(), then sleep on a futex
 *    woken by the csd unlock; a watchdog reports a csd that stays locked
 *    too long, as csd_lock_wait_toolong() does.
 */
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "tlbgen_config.h"
#if HAVE_LIBNUMA
#include <numa.h>
#endif

#include "internal.h"

struct tlbgen_tls {
	struct tlbgen_system *sys;
	int cpu;
};

/* initial-exec: the signal handler reads it; no lazy TLS allocation there. */
static _Thread_local struct tlbgen_tls tls __attribute__((tls_model("initial-exec"))) =
	{ NULL, -1 };

#define TLBGEN_DEFAULT_SPINS		256
#define TLBGEN_OVERSUB_SPINS		16
#define TLBGEN_DEFAULT_YIELDS		512
#define TLBGEN_DEFAULT_WATCHDOG_MS	5000
#define TLBGEN_IDLE_SLEEP_MS		50
#define TLBGEN_IPI_SIGNAL_OFFSET	5	/* SIGRTMIN + 5 */

/* Per emulated CPU, allocated on its node. The first line is read by
 * wakers (sleeping) and written only when the CPU goes to sleep. */
struct tlbgen_rt_cpu {
	atomic_uint futex;		/* wake sequence */
	atomic_uint sleeping;
	atomic_int kick_refs;		/* senders between "thread valid" and pthread_kill */
	atomic_bool thread_valid;	/* `thread` may be signalled */
	pthread_t thread;
	/* spawned threads */
	atomic_bool stop __cacheline_aligned;
	atomic_bool spawned;
	pthread_t spawn_thread;
	tlbgen_cpu_fn fn;
	void *arg;
	int ret;
	struct tlbgen_system *sys;
	unsigned int cpu;
} __cacheline_aligned;

struct tlbgen_rt {
	int *host;			/* real CPU per emulated CPU */
	int *node;			/* its NUMA node, -1 unknown */
	unsigned int nr_host;		/* distinct real CPUs used */
	bool oversubscribed;
	bool numa;
	unsigned int spins, yields, watchdog_ms;
	_Atomic uint64_t watchdog_reports, signals_sent, signals_handled, signals_deferred,
		yields_done, futex_sleeps;
};

static inline struct tlbgen_rt *rt_of(const struct tlbgen_system *sys)
{
	return sys->rt;
}

static inline struct tlbgen_rt_cpu *rtc(const struct tlbgen_system *sys, unsigned int cpu)
{
	return tlbgen_cpu(sys, cpu)->priv.rt;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

static inline void rt_inc(_Atomic uint64_t *c)
{
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- futex sleep / wake ------------------------------------------------------ */

static void futex_wait_ms(atomic_uint *word, unsigned int val, unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

/*
 * Wake `cpu` if it sleeps. The caller made its condition true first; the
 * fence pairs with the one in rt_sleep() (SB: either the sleeper sees the
 * condition, or we see `sleeping`).
 */
static void rt_wake(struct tlbgen_rt_cpu *r)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&r->sleeping, memory_order_relaxed)) {
		atomic_fetch_add_explicit(&r->futex, 1, memory_order_relaxed);
		syscall(SYS_futex, &r->futex, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	}
}

/* Sleep unless cond(sys, cpu) turns true; woken by rt_wake() or the timeout. */
static void rt_sleep(struct tlbgen_system *sys, unsigned int cpu,
		     bool (*cond)(struct tlbgen_system *, unsigned int), unsigned int ms)
{
	struct tlbgen_rt_cpu *r = rtc(sys, cpu);
	unsigned int seq = atomic_load_explicit(&r->futex, memory_order_relaxed);

	atomic_store_explicit(&r->sleeping, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	if (!cond(sys, cpu)) {
		rt_inc(&rt_of(sys)->futex_sleeps);
		futex_wait_ms(&r->futex, seq, ms);
	}
	atomic_store_explicit(&r->sleeping, 0, memory_order_relaxed);
}

/* ---- IRQs: taking IPIs ------------------------------------------------------- */

static inline bool queue_nonempty(struct tlbgen_cpu *c)
{
	return !tlbgen__queue_empty(&c->queue);
}

/* Run the queue until it stays empty (an IPI that arrived during the drain
 * is taken right after, as at local_irq_restore()). */
static int rt_take_ipis(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen_cpu(sys, cpu);
	int ran = 0;

	/* ipi_pending/irq_deferred are not written here: initiators would then
	 * miss on this line on every send. The queue itself is the IPI. */
	while (queue_nonempty(c))
		ran += tlbgen_flush_smp_call_function_queue(sys, cpu, -1);
	return ran;
}

/* An IRQ-enable point: take pending IPIs unless IRQs are off. */
void tlbgen__rt_irq_enabled(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c;

	if (sys->mode != TLBGEN_MODE_THREADED)
		return;
	c = tlbgen_cpu(sys, cpu);
	if (atomic_load_explicit(&c->priv.irqs_disabled, memory_order_relaxed))
		return;
	/* The polling backend needs no flag: a non-empty queue is the IPI. */
	if (likely(!queue_nonempty(c)))
		return;
	rt_take_ipis(sys, cpu);
}

/*
 * The IPI handler (signal backend). Async-signal-safe enough: no malloc, no
 * locks; it reads only initial-exec TLS and the CPU's own state. With IRQs
 * off it only notes the IPI; the irq-enable point takes it.
 */
static void rt_ipi_handler(int sig)
{
	struct tlbgen_system *sys = tls.sys;
	int saved_errno = errno;
	struct tlbgen_cpu *c;

	(void)sig;
	if (!sys || tls.cpu < 0)
		return;
	c = tlbgen_cpu(sys, (unsigned int)tls.cpu);
	if (atomic_load_explicit(&c->priv.irqs_disabled, memory_order_relaxed)) {
		atomic_store_explicit(&c->priv.irq_deferred, 1, memory_order_relaxed);
		rt_inc(&rt_of(sys)->signals_deferred);
	} else {
		rt_inc(&rt_of(sys)->signals_handled);
		rt_take_ipis(sys, (unsigned int)tls.cpu);
	}
	errno = saved_errno;
}

static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;
static bool sig_installed;

static int rt_install_handler(void)
{
	struct sigaction sa = { 0 };
	int err = 0;

	pthread_mutex_lock(&sig_lock);
	if (!sig_installed) {
		sa.sa_handler = rt_ipi_handler;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGRTMIN + TLBGEN_IPI_SIGNAL_OFFSET, &sa, NULL))
			err = -errno;
		else
			sig_installed = true;
	}
	pthread_mutex_unlock(&sig_lock);
	return err;
}

/* pthread_kill() only while the thread is known to be attached (alive). */
static void rt_kick(struct tlbgen_system *sys, unsigned int target)
{
	struct tlbgen_rt_cpu *r = rtc(sys, target);

	atomic_fetch_add_explicit(&r->kick_refs, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&r->thread_valid, memory_order_seq_cst)) {
		rt_inc(&rt_of(sys)->signals_sent);
		pthread_kill(r->thread, SIGRTMIN + TLBGEN_IPI_SIGNAL_OFFSET);
	}
	atomic_fetch_sub_explicit(&r->kick_refs, 1, memory_order_release);
}

/* ---- the transport ----------------------------------------------------------- */

static void threaded_send_ipi(struct tlbgen_system *sys, unsigned int from, unsigned int target)
{
	(void)from;
	/* The non-empty queue is the IPI (no pending flag: one line less per
	 * round trip); a signal interrupts, a futex wake ends a sleep. */
	if (sys->rt_opts.backend == TLBGEN_IPI_SIGNAL)
		rt_kick(sys, target);
	rt_wake(rtc(sys, target));
}

/* A csd of `src` was unlocked: wake it if it went to sleep waiting. */
static void threaded_csd_unlocked(struct tlbgen_system *sys, unsigned int src)
{
	rt_wake(rtc(sys, src));
}

static bool wait_done_or_ipi(struct tlbgen_system *sys, unsigned int cpu)
{
	return queue_nonempty(tlbgen_cpu(sys, cpu)) || tlbgen__smp_all_acked(sys, cpu);
}

static const char *func_name(tlbgen_smp_call_func_t f, char *buf, size_t len)
{
	if (f == tlbgen_flush_tlb_func)
		return "flush_tlb_func";
	snprintf(buf, len, "func %p", (void *)(uintptr_t)f);
	return buf;
}

/* csd_lock_wait_toolong(): say who does not answer, with what, since when. */
static void rt_watchdog_report(struct tlbgen_system *sys, unsigned int cpu, uint64_t since,
			       uint64_t now)
{
	struct tlbgen_cpu *c = tlbgen_cpu(sys, cpu);
	unsigned int t;
	char buf[48];

	rt_inc(&rt_of(sys)->watchdog_reports);
	for_each_bit(t, c->priv.cfd_mask, sys->nr_cpus) {
		struct tlbgen_csd *csd = &c->priv.csds[t];

		if (!(atomic_load_explicit(&csd->u_flags, memory_order_acquire) & CSD_FLAG_LOCK))
			continue;
		tlbgen__pr(TLBGEN_WARN,
			   "tlbgen: csd: cpu %u: IPI to cpu %u not acknowledged for %llu ms: "
			   "%s(info %p) queued at %llu.%06llu s (CLOCK_MONOTONIC)%s\n",
			   cpu, t, (unsigned long long)((now - since) / 1000000u),
			   func_name(csd->func, buf, sizeof(buf)), csd->info,
			   (unsigned long long)(since / 1000000000u),
			   (unsigned long long)(since % 1000000000u / 1000u),
			   atomic_load_explicit(&tlbgen_cpu(sys, t)->priv.attached,
						memory_order_relaxed) ? "" : " (cpu not attached)");
	}
}

static void threaded_wait(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen_cpu(sys, cpu);
	struct tlbgen_rt *rt = rt_of(sys);
	unsigned int spins = 0, yields = 0;
	uint64_t since = 0, next_report = 0;
	tlbgen_done_fn done;

	while (!tlbgen__smp_all_acked(sys, cpu)) {
		/* An irq-enable point: two CPUs flushing each other make progress. */
		tlbgen__rt_irq_enabled(sys, cpu);
		if (spins < rt->spins) {
			spins++;
			cpu_relax();
			continue;
		}
		if (!since) {
			since = now_ns();
			next_report = since + (uint64_t)rt->watchdog_ms * 1000000u;
		}
		if (yields < rt->yields) {
			yields++;
			rt_inc(&rt->yields_done);
			sched_yield();
		} else {
			rt_sleep(sys, cpu, wait_done_or_ipi,
				 rt->watchdog_ms < 10 ? rt->watchdog_ms : 10);
		}
		if ((yields & 63) == 0 || yields >= rt->yields) {
			uint64_t now = now_ns();

			if (now >= next_report) {
				rt_watchdog_report(sys, cpu, since, now);
				next_report = now + (uint64_t)rt->watchdog_ms * 1000000u;
			}
		}
	}
	done = c->priv.done;
	c->priv.done = NULL;
	if (done)
		done(sys, cpu, c->priv.done_arg);
}

static int threaded_check_cpu(const struct tlbgen_system *sys, unsigned int cpu)
{
	if (tls.sys != sys || tls.cpu != (int)cpu)
		return -EPERM;
	return 0;
}

const struct tlbgen_transport tlbgen_threaded_transport = {
	.send_ipi = threaded_send_ipi,
	.wait = threaded_wait,
	.csd_unlocked = threaded_csd_unlocked,
	.check_cpu = threaded_check_cpu,
};

/* ---- placement ----------------------------------------------------------------- */

static int read_sysfs_int(unsigned int cpu, const char *what)
{
	char path[128];
	FILE *f;
	int v = -1;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/%s", cpu, what);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static int cpu_node(int hcpu, bool numa)
{
#if HAVE_LIBNUMA
	if (numa)
		return numa_node_of_cpu(hcpu);
#else
	(void)hcpu;
	(void)numa;
#endif
	return -1;
}

/* One real CPU per core of our affinity, nodes interleaved. */
static int default_hosts(bool numa, int *list, unsigned int *nr)
{
	cpu_set_t set;
	int *pkg, *core, *node;
	unsigned int n = 0, out = 0;
	int maxnode = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	pkg = calloc(CPU_SETSIZE, sizeof(int));
	core = calloc(CPU_SETSIZE, sizeof(int));
	node = calloc(CPU_SETSIZE, sizeof(int));
	if (!pkg || !core || !node) {
		free(pkg);
		free(core);
		free(node);
		return -ENOMEM;
	}
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int p, k;
		bool dup = false;

		if (!CPU_ISSET(c, &set))
			continue;
		p = read_sysfs_int((unsigned int)c, "physical_package_id");
		k = read_sysfs_int((unsigned int)c, "core_id");
		for (unsigned int i = 0; i < n && k >= 0; i++)
			if (pkg[i] == p && core[i] == k)
				dup = true;
		if (dup)
			continue;	/* an SMT sibling of a core we have */
		pkg[n] = p;
		core[n] = k;
		node[n] = cpu_node(c, numa);
		if (node[n] > maxnode)
			maxnode = node[n];
		list[n++] = c;
	}
	/* Round-robin over nodes: CPU 0 on node 0, CPU 1 on node 1, ... */
	{
		int *tmp = malloc(n * sizeof(int) + 1);
		bool *used = calloc(n + 1, sizeof(bool));

		if (!tmp || !used) {
			free(tmp);
			free(used);
			free(pkg);
			free(core);
			free(node);
			return -ENOMEM;
		}
		while (out < n) {
			for (int nd = -1; nd <= maxnode; nd++) {
				for (unsigned int i = 0; i < n; i++) {
					if (used[i] || node[i] != nd)
						continue;
					used[i] = true;
					tmp[out++] = list[i];
					break;
				}
			}
		}
		memcpy(list, tmp, n * sizeof(int));
		free(tmp);
		free(used);
	}
	free(pkg);
	free(core);
	free(node);
	*nr = n;
	return 0;
}

/* Compute sys->rt and the placement; called early by tlbgen__alloc_cpu too. */
static int rt_placement(struct tlbgen_system *sys)
{
	const struct tlbgen_runtime_opts *o = &sys->rt_opts;
	struct tlbgen_rt *rt;
	int *list;
	unsigned int nr = 0, distinct = 0;
	cpu_set_t seen;
	int err;

	if (sys->rt)
		return 0;
	rt = calloc(1, sizeof(*rt));
	list = calloc(CPU_SETSIZE, sizeof(int));
	if (!rt || !list) {
		free(rt);
		free(list);
		return -ENOMEM;
	}
#if HAVE_LIBNUMA
	rt->numa = numa_available() >= 0;
#endif
	if (o->cpu_list && o->nr_cpu_list) {
		if (o->nr_cpu_list > CPU_SETSIZE) {
			err = -EINVAL;
			goto fail;
		}
		for (unsigned int i = 0; i < o->nr_cpu_list; i++) {
			if (o->cpu_list[i] < 0 || o->cpu_list[i] >= CPU_SETSIZE) {
				err = -EINVAL;
				goto fail;
			}
			list[i] = o->cpu_list[i];
		}
		nr = o->nr_cpu_list;
	} else if (o->cpu_list || o->nr_cpu_list) {
		err = -EINVAL;
		goto fail;
	} else {
		err = default_hosts(rt->numa, list, &nr);
		if (err)
			goto fail;
		if (!nr) {
			list[0] = 0;
			nr = 1;
		}
	}
	rt->host = calloc(sys->nr_cpus, sizeof(int));
	rt->node = calloc(sys->nr_cpus, sizeof(int));
	if (!rt->host || !rt->node) {
		err = -ENOMEM;
		goto fail;
	}
	CPU_ZERO(&seen);
	for (unsigned int i = 0; i < nr; i++) {
		if (!CPU_ISSET(list[i], &seen))
			distinct++;
		CPU_SET(list[i], &seen);
	}
	for (unsigned int i = 0; i < sys->nr_cpus; i++) {
		rt->host[i] = list[i % nr];
		rt->node[i] = cpu_node(rt->host[i], rt->numa);
	}
	rt->nr_host = distinct;
	rt->oversubscribed = sys->nr_cpus > distinct;
	free(list);
	sys->rt = rt;
	return 0;
fail:
	free(rt->host);
	free(rt->node);
	free(rt);
	free(list);
	return err;
}

/* The NUMA node for `cpu`'s per-CPU state, or -1 (stepped, no libnuma). */
int tlbgen__rt_cpu_node(struct tlbgen_system *sys, unsigned int cpu)
{
	if (sys->mode != TLBGEN_MODE_THREADED || rt_placement(sys))
		return -1;
	return rt_of(sys)->numa ? rt_of(sys)->node[cpu] : -1;
}

int tlbgen__rt_create(struct tlbgen_system *sys)
{
	static atomic_bool said_oversubscribed;
	struct tlbgen_rt *rt;
	int err;

	if (sys->mode != TLBGEN_MODE_THREADED)
		return 0;
	if (sys->rt_opts.backend != TLBGEN_IPI_POLL && sys->rt_opts.backend != TLBGEN_IPI_SIGNAL)
		return -EINVAL;
	err = rt_placement(sys);
	if (err)
		return err;
	rt = rt_of(sys);
	rt->watchdog_ms = sys->rt_opts.watchdog_ms ? sys->rt_opts.watchdog_ms
						   : TLBGEN_DEFAULT_WATCHDOG_MS;
	rt->spins = sys->rt_opts.spin_before_yield ? sys->rt_opts.spin_before_yield
		    : rt->oversubscribed ? TLBGEN_OVERSUB_SPINS : TLBGEN_DEFAULT_SPINS;
	rt->yields = sys->rt_opts.yields_before_sleep ? sys->rt_opts.yields_before_sleep
						       : TLBGEN_DEFAULT_YIELDS;
	for (unsigned int i = 0; i < sys->nr_cpus; i++) {
		struct tlbgen_rt_cpu *r = tlbgen__alloc_cpu(sys, i, sizeof(*r));

		if (!r)
			return -ENOMEM;
		r->sys = sys;
		r->cpu = i;
		tlbgen_cpu(sys, i)->priv.rt = r;
	}
	if (sys->rt_opts.backend == TLBGEN_IPI_SIGNAL) {
		err = rt_install_handler();
		if (err)
			return err;
	}
	if (rt->oversubscribed && !atomic_exchange(&said_oversubscribed, true))
		tlbgen__pr(TLBGEN_INFO,
			   "tlbgen: oversubscribed: %u emulated CPUs on %u real CPUs; "
			   "wait loops yield and sleep instead of spinning\n",
			   sys->nr_cpus, rt->nr_host);
	return 0;
}

void tlbgen__rt_destroy(struct tlbgen_system *sys)
{
	struct tlbgen_rt *rt = rt_of(sys);

	if (!rt)
		return;
	for (unsigned int i = 0; i < sys->nr_cpus && sys->cpus; i++) {
		if (!sys->cpus[i] || !sys->cpus[i]->priv.rt)
			continue;
		tlbgen__free_cpu(sys->cpus[i]->priv.rt, sizeof(struct tlbgen_rt_cpu));
		sys->cpus[i]->priv.rt = NULL;
	}
	free(rt->host);
	free(rt->node);
	free(rt);
	sys->rt = NULL;
}

/* ---- attach / detach / poll ---------------------------------------------------- */

static bool threaded_valid(const struct tlbgen_system *sys, unsigned int cpu)
{
	return tlbgen_sys_valid(sys) && cpu < sys->nr_cpus && sys->mode == TLBGEN_MODE_THREADED &&
	       sys->rt;
}

TLBGEN_API int tlbgen_cpu__attach(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_rt_cpu *r;
	int expected = 0;

	if (!threaded_valid(sys, cpu))
		return -EINVAL;
	if (tls.sys)
		return -EBUSY;
	if (!atomic_compare_exchange_strong(&tlbgen_cpu(sys, cpu)->priv.attached, &expected, 1))
		return -EBUSY;
	atomic_fetch_add(&sys->attached_cpus, 1);
	r = rtc(sys, cpu);
	r->thread = pthread_self();
	tls.cpu = (int)cpu;
	atomic_signal_fence(memory_order_seq_cst);
	tls.sys = sys;
	atomic_store(&r->thread_valid, true);
	/* IPIs queued while nobody was attached. */
	tlbgen__rt_irq_enabled(sys, cpu);
	return 0;
}

TLBGEN_API int tlbgen_cpu__detach(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_rt_cpu *r;

	if (!threaded_valid(sys, cpu))
		return -EINVAL;
	if (tls.sys != sys || tls.cpu != (int)cpu)
		return -EPERM;
	r = rtc(sys, cpu);
	atomic_store(&r->thread_valid, false);
	/* A sender that saw the thread valid finishes its pthread_kill first. */
	while (atomic_load(&r->kick_refs))
		sched_yield();
	tlbgen__rt_irq_enabled(sys, cpu);
	tls.sys = NULL;
	atomic_signal_fence(memory_order_seq_cst);
	tls.cpu = -1;
	atomic_store(&tlbgen_cpu(sys, cpu)->priv.attached, 0);
	atomic_fetch_sub(&sys->attached_cpus, 1);
	return 0;
}

TLBGEN_API int tlbgen_poll(struct tlbgen_system *sys, unsigned int cpu)
{
	if (!tlbgen_sys_valid(sys) || cpu >= sys->nr_cpus)
		return -EINVAL;
	if (sys->mode != TLBGEN_MODE_THREADED || tls.sys != sys || tls.cpu != (int)cpu)
		return -EPERM;
	if (atomic_load_explicit(&tlbgen_cpu(sys, cpu)->priv.irqs_disabled, memory_order_relaxed))
		return 0;
	return rt_take_ipis(sys, cpu);
}

TLBGEN_API int tlbgen_this_cpu(const struct tlbgen_system *sys)
{
	if (!sys || tls.sys != sys)
		return -ENOENT;
	return tls.cpu;
}

/* ---- spawned CPUs ---------------------------------------------------------------- */

static bool idle_wake_cond(struct tlbgen_system *sys, unsigned int cpu)
{
	return queue_nonempty(tlbgen_cpu(sys, cpu)) ||
	       atomic_load_explicit(&rtc(sys, cpu)->stop, memory_order_relaxed);
}

/* do_idle(): IRQs on, take IPIs; sleep when there are none. */
static void rt_idle_loop(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_rt_cpu *r = rtc(sys, cpu);
	struct tlbgen_rt *rt = rt_of(sys);
	unsigned int spins = 0;

	while (!atomic_load_explicit(&r->stop, memory_order_acquire)) {
		if (rt_take_ipis(sys, cpu)) {
			spins = 0;
			continue;
		}
		if (spins < rt->spins) {
			spins++;
			cpu_relax();
			continue;
		}
		rt_sleep(sys, cpu, idle_wake_cond, TLBGEN_IDLE_SLEEP_MS);
		spins = 0;
	}
}

static int pin_to(int hcpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(hcpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *rt_thread(void *arg)
{
	struct tlbgen_rt_cpu *r = arg;
	struct tlbgen_system *sys = r->sys;
	unsigned int cpu = r->cpu;
	int err;

	(void)pin_to(rt_of(sys)->host[cpu]);	/* best effort: placement may be outside our mask */
	err = tlbgen_cpu__attach(sys, cpu);
	if (err) {
		r->ret = err;
		return NULL;
	}
	r->ret = r->fn ? r->fn(sys, cpu, r->arg) : 0;
	rt_idle_loop(sys, cpu);
	tlbgen_cpu__detach(sys, cpu);
	return NULL;
}

TLBGEN_API int tlbgen_cpu__spawn(struct tlbgen_system *sys, unsigned int cpu, tlbgen_cpu_fn fn,
				 void *arg)
{
	struct tlbgen_rt_cpu *r;
	bool expected = false;
	int err;

	if (!threaded_valid(sys, cpu))
		return -EINVAL;
	r = rtc(sys, cpu);
	if (atomic_load(&tlbgen_cpu(sys, cpu)->priv.attached))
		return -EBUSY;
	if (!atomic_compare_exchange_strong(&r->spawned, &expected, true))
		return -EBUSY;
	r->fn = fn;
	r->arg = arg;
	r->ret = 0;
	atomic_store(&r->stop, false);
	err = pthread_create(&r->spawn_thread, NULL, rt_thread, r);
	if (err) {
		atomic_store(&r->spawned, false);
		return -EAGAIN;
	}
	return 0;
}

TLBGEN_API int tlbgen_cpu__should_stop(const struct tlbgen_system *sys, unsigned int cpu)
{
	if (!threaded_valid(sys, cpu))
		return -EINVAL;
	return atomic_load_explicit(&rtc(sys, cpu)->stop, memory_order_acquire);
}

TLBGEN_API int tlbgen_cpu__join(struct tlbgen_system *sys, unsigned int cpu, int *ret)
{
	struct tlbgen_rt_cpu *r;

	if (!threaded_valid(sys, cpu))
		return -EINVAL;
	r = rtc(sys, cpu);
	if (!atomic_load(&r->spawned))
		return -ESRCH;
	if (pthread_equal(r->spawn_thread, pthread_self()))
		return -EDEADLK;
	atomic_store_explicit(&r->stop, true, memory_order_release);
	rt_wake(r);
	pthread_join(r->spawn_thread, NULL);
	if (ret)
		*ret = r->ret;
	atomic_store(&r->spawned, false);
	return 0;
}

TLBGEN_API int tlbgen_cpu__pin(struct tlbgen_system *sys, unsigned int cpu)
{
	if (!threaded_valid(sys, cpu))
		return -EINVAL;
	return pin_to(rt_of(sys)->host[cpu]);
}

TLBGEN_API int tlbgen_runtime__host_cpu(const struct tlbgen_system *sys, unsigned int cpu)
{
	if (!threaded_valid(sys, cpu))
		return -EINVAL;
	return rt_of(sys)->host[cpu];
}

TLBGEN_API int tlbgen_runtime__oversubscribed(const struct tlbgen_system *sys)
{
	if (!threaded_valid(sys, 0))
		return -EINVAL;
	return rt_of(sys)->oversubscribed;
}

TLBGEN_API int tlbgen_runtime__stats(const struct tlbgen_system *sys,
				     struct tlbgen_runtime_stats *out)
{
	struct tlbgen_runtime_stats s = { .sz = sizeof(s) };
	const struct tlbgen_rt *rt;

	if (!threaded_valid(sys, 0) || !out || out->sz < sizeof(size_t))
		return -EINVAL;
	rt = rt_of(sys);
	s.watchdog_reports = atomic_load(&((struct tlbgen_rt *)rt)->watchdog_reports);
	s.signals_sent = atomic_load(&((struct tlbgen_rt *)rt)->signals_sent);
	s.signals_handled = atomic_load(&((struct tlbgen_rt *)rt)->signals_handled);
	s.signals_deferred = atomic_load(&((struct tlbgen_rt *)rt)->signals_deferred);
	s.yields = atomic_load(&((struct tlbgen_rt *)rt)->yields_done);
	s.futex_sleeps = atomic_load(&((struct tlbgen_rt *)rt)->futex_sleeps);
	s.sz = out->sz;
	memcpy(out, &s, out->sz < sizeof(s) ? out->sz : sizeof(s));
	return 0;
}
