// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/transport.c - tlbgen-bench transport: the threaded runtime's IPI
 * transport against the hardware it runs on.
 *
 * Two emulated CPUs on two pinned threads. In interleaved rounds CPU 0
 * measures a raw cacheline ping-pong with CPU 1 and then one of:
 *   ipi        an emulated IPI round trip: tlbgen_smp_call_function_single()
 *              of an empty callback, waiting (csd, queue, IPI, ack);
 *   flush-v6.0 a 1-target flush_tlb_mm_range() round trip under v6.0;
 *   flush-latest the same under latest.
 * Each round gives a ratio to the ping-pong of the same round (the host may
 * move vCPUs between near and far placements mid-run: only interleaved
 * ratios mean anything); the median ratio is reported. Then both threads on
 * ONE core: the emulated IPI round trip against a sched_yield() hand-off.
 *
 * Every round also times the operation's floor: the same kernel/smp.c lines
 * written bare, with no library around them (a liburcu lfstack and one
 * csd; for a flush also the tlb_gen RMW, the flush_tlb_info line reached
 * through the csd and, for the 6.14+ should_flush_tlb(), the read of the
 * target's cpu_tlbstate line). The floor is what this hardware charges for
 * the lines the kernel's layout moves; "over floor", the median of the
 * per-round library/floor ratios, is the library's own overhead.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/lfstack.h>

#include "bench.h"
#include "common.h"
#include "results.h"

/* The out-of-line push, as lib/smp.c uses (the inline one trips UBSan). */
#undef cds_lfs_push
extern bool cds_lfs_push(cds_lfs_stack_ptr_t s, struct cds_lfs_node *node);

/* lfstack publishes through inline asm TSan cannot see; say what it does
 * (the library's smp.c does the same). */
#if defined(__SANITIZE_THREAD__)
#define FLOOR_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FLOOR_TSAN 1
#endif
#endif
#ifdef FLOOR_TSAN
#include <sanitizer/tsan_interface.h>


#define floor_tsan_release(p) __tsan_release((void *)(p))
#define floor_tsan_acquire(p) __tsan_acquire((void *)(p))
#else
#define floor_tsan_release(p) do { } while (0)
#define floor_tsan_acquire(p) do { } while (0)
#endif

int bench_transport_main(int argc, char **argv);

enum kind { K_IPI, K_FLUSH_V60, K_FLUSH_LATEST, K_NR };

static const char *const kind_name[K_NR] = {
	"ipi round trip", "1-target flush v6.0", "1-target flush latest",
};
static const char *const kind_profile[K_NR] = { "latest", "v6.0", "latest" };
/* The targets of the transport issue, as ratios to the ping-pong. */
static const double kind_target[K_NR] = { 1.5, 2.5, 2.5 };

/*
 * The floors: kernel/smp.c's lines with nothing else. CPU 1's
 * call_single_queue, CPU 0's csd for CPU 1, CPU 0's flush_tlb_info, the
 * mm's tlb_gen and CPU 1's local generation, each on its own line as in
 * the kernel (and in the library). As in the kernel, the target finds f
 * through the csd it found through the queue: three dependent misses.
 */
struct floor_info {
	unsigned long start, end, new_tlb_gen;
} __attribute__((aligned(64)));

struct floor_csd {
	struct cds_lfs_node node;
	atomic_uint flags;
	struct floor_info *info;	/* NULL: an empty call */
} __attribute__((aligned(64)));

struct floor {
	_Alignas(64) struct __cds_lfs_stack llist;
	struct floor_csd csd;
	struct floor_info info;
	_Alignas(64) atomic_ulong tlb_gen;
	/* CPU 1's cpu_tlbstate line: loaded_mm, and the ctxs[] generation it
	 * writes on every flush (one line in the kernel's struct tlb_state). */
	_Alignas(64) void *_Atomic loaded_mm;
	unsigned long local_tlb_gen, partial;
};

struct session {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	enum kind kind;
	bool oversub;
	unsigned int rounds, iters;
	_Alignas(64) atomic_ulong pp;		/* the ping-pong line */
	struct floor fl;
	_Alignas(64) atomic_int ready;
	atomic_bool done;
	atomic_bool left;			/* CPU 1 is back on init_mm */
	double *op_ns, *base_ns, *floor_ns;
};

static inline void relax(bool oversub)
{
	if (oversub)
		sched_yield();
#if defined(__x86_64__) || defined(__i386__)
	else
		__builtin_ia32_pause();
#endif
}

/* The bare flush_tlb_func(): read f and the mm's generation, catch up. */
static void floor_flush_func(struct floor *f, const struct floor_info *info)
{
	unsigned long mm_gen = atomic_load_explicit(&f->tlb_gen, memory_order_relaxed);

	if (info->new_tlb_gen == f->local_tlb_gen + 1 && info->new_tlb_gen == mm_gen &&
	    info->end > info->start)
		f->partial++;
	f->local_tlb_gen = mm_gen;
}

/* The bare __flush_smp_call_function_queue() on CPU 1. */
static bool floor_poll(struct floor *f)
{
	struct cds_lfs_head *head;
	struct cds_lfs_node *node, *n;

	if (cds_lfs_empty(&f->llist))
		return false;
	head = __cds_lfs_pop_all(&f->llist);
	floor_tsan_acquire(&f->llist);
	if (!head)
		return true;
	/* One initiator, one csd: nothing to reverse. */
	cds_lfs_for_each_safe(head, node, n)
	{
		struct floor_csd *csd = caa_container_of(node, struct floor_csd, node);

		__builtin_prefetch(csd, 1, 3);
		if (csd->info)
			floor_flush_func(f, csd->info);
		atomic_store_explicit(&csd->flags, 0, memory_order_release);
	}
	return true;
}

/*
 * CPU 0: the bare smp_call_function_single() (K_IPI) or flush_tlb_mm_range()
 * with its one target; under latest, should_flush_tlb() also reads the
 * target's loaded_mm.
 */
static void floor_call(struct floor *f, enum kind kind, bool oversub)
{
	if (kind != K_IPI) {
		unsigned long gen = atomic_fetch_add(&f->tlb_gen, 1) + 1;

		f->info.start = 0;
		f->info.end = TLBGEN_PAGE_SIZE;
		f->info.new_tlb_gen = gen;
		if (kind == K_FLUSH_LATEST &&
		    !atomic_load_explicit(&f->loaded_mm, memory_order_relaxed))
			return;
	}
	while (atomic_load_explicit(&f->csd.flags, memory_order_acquire))
		relax(oversub);
	atomic_store_explicit(&f->csd.flags, 1, memory_order_relaxed);
	f->csd.info = kind != K_IPI ? &f->info : NULL;
	floor_tsan_release(&f->llist);
	cds_lfs_push(&f->llist, &f->csd.node);
	while (atomic_load_explicit(&f->csd.flags, memory_order_acquire))
		relax(oversub);
}

/* CPU 1: answer ping-pongs, take IPIs (an IRQ-enable point every turn). */
static int responder(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct session *s = arg;
	unsigned long last = 0;

	if (s->mm && tlbgen_switch_mm(sys, cpu, s->mm))
		return 1;
	atomic_store(&s->ready, 1);
	while (!atomic_load_explicit(&s->done, memory_order_relaxed)) {
		unsigned long v = atomic_load_explicit(&s->pp, memory_order_acquire);

		if (v != last && (v & 1)) {
			atomic_store_explicit(&s->pp, v + 1, memory_order_release);
			last = v + 1;
			continue;
		}
		if (tlbgen_poll(sys, cpu) > 0 || floor_poll(&s->fl))
			continue;
		relax(s->oversub);
	}
	tlbgen_switch_mm(sys, cpu, NULL);
	atomic_store(&s->left, true);
	return 0;
}

static uint64_t pingpong(struct session *s, unsigned int n)
{
	unsigned long v = atomic_load_explicit(&s->pp, memory_order_relaxed);
	uint64_t t0 = bench_now_ns();

	for (unsigned int i = 0; i < n; i++) {
		atomic_store_explicit(&s->pp, v + 1, memory_order_release);
		while (atomic_load_explicit(&s->pp, memory_order_acquire) != v + 2)
			relax(s->oversub);
		v += 2;
	}
	return bench_now_ns() - t0;
}

static void empty_call(struct tlbgen_system *sys, unsigned int cpu, void *info)
{
	(void)sys;
	(void)cpu;
	(void)info;
}

static uint64_t floor_op(struct session *s, unsigned int n)
{
	uint64_t t0 = bench_now_ns();

	for (unsigned int i = 0; i < n; i++)
		floor_call(&s->fl, s->kind, s->oversub);
	return bench_now_ns() - t0;
}

static uint64_t op(struct session *s, struct tlbgen_system *sys, unsigned int n)
{
	uint64_t t0 = bench_now_ns();

	for (unsigned int i = 0; i < n; i++) {
		int err = s->kind == K_IPI
			? tlbgen_smp_call_function_single(sys, 0, 1, empty_call, NULL)
			: tlbgen_flush_tlb_mm_range(sys, 0, s->mm, 0, TLBGEN_PAGE_SIZE,
						    TLBGEN_PAGE_SHIFT, false);
		if (err)
			return 0;
	}
	return bench_now_ns() - t0;
}

static int driver(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct session *s = arg;

	(void)cpu;
	while (!atomic_load(&s->ready))
		tlbgen_poll(sys, 0);
	/* warm up both paths */
	pingpong(s, s->iters / 4 + 1);
	floor_op(s, s->iters / 4 + 1);
	if (!op(s, sys, s->iters / 4 + 1))
		return 1;
	for (unsigned int r = 0; r < s->rounds; r++) {
		uint64_t b = pingpong(s, s->iters), f = floor_op(s, s->iters);
		uint64_t o = op(s, sys, s->iters);

		if (!o)
			return 1;
		s->base_ns[r] = (double)b / s->iters;
		s->floor_ns[r] = (double)f / s->iters;
		s->op_ns[r] = (double)o / s->iters;
	}
	atomic_store(&s->done, true);
	/* exit_mmap's flush while CPU 1 still idles (and answers IPIs): a
	 * lazily-left CPU clears its mm_cpumask bit, the mm can go. */
	while (!atomic_load(&s->left))
		tlbgen_poll(sys, 0);
	if (s->mm)
		tlbgen_flush_tlb_mm(sys, 0, s->mm);
	return 0;
}

static int run_session(struct session *s, const int *hosts)
{
	TLBGEN_OPTS(tlbgen_runtime_opts, rt, .cpu_list = hosts, .nr_cpu_list = 2);
	TLBGEN_OPTS(tlbgen_system_opts, so, .nr_cpus = 2, .mode = TLBGEN_MODE_THREADED,
		    .profile = kind_profile[s->kind], .runtime = &rt,
		    .flags = TLBGEN_SYS_NO_ORACLE | TLBGEN_SYS_NO_STATS);
	int r0 = 1, r1 = 1, err;

	err = tlbgen_system__create(&so, &s->sys);
	if (err)
		return err;
	s->mm = NULL;
	if (s->kind != K_IPI && tlbgen_mm__create(s->sys, 16, &s->mm))
		return -ENOMEM;
	__cds_lfs_init(&s->fl.llist);
	cds_lfs_node_init(&s->fl.csd.node);
	atomic_init(&s->fl.csd.flags, 0);
	atomic_init(&s->fl.tlb_gen, 0);
	atomic_init(&s->fl.loaded_mm, &s->fl);
	atomic_store(&s->pp, 0);
	atomic_store(&s->ready, 0);
	atomic_store(&s->done, false);
	atomic_store(&s->left, false);
	if (tlbgen_cpu__spawn(s->sys, 1, responder, s) || tlbgen_cpu__spawn(s->sys, 0, driver, s))
		return -EAGAIN;
	tlbgen_cpu__join(s->sys, 0, &r0);
	atomic_store(&s->done, true);
	tlbgen_cpu__join(s->sys, 1, &r1);
	if (s->mm && tlbgen_mm__destroy(s->mm))
		r0 = 1;
	tlbgen_system__destroy(s->sys);
	return r0 || r1 ? -EIO : 0;
}

/* Median of the per-round ratios a[i] / b[i]; medians of a and b too. */
static double median_ratio(const double *a, const double *b, unsigned int n, double *ma,
			   double *mb)
{
	double *r = malloc(n * sizeof(*r)), lo, hi, med = 0;

	if (!r)
		return 0;
	for (unsigned int i = 0; i < n; i++)
		r[i] = a[i] / b[i];
	bench_min_med_max(r, n, &lo, &med, &hi);
	bench_min_med_max(a, n, &lo, ma, &hi);
	bench_min_med_max(b, n, &lo, mb, &hi);
	free(r);
	return med;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: tlbgen-bench transport [--rounds N] [--iters N] [--cpus A,B]\n"
		   "  emulated IPI / 1-target flush round trips vs a raw cacheline ping-pong\n"
		   "  between the same two pinned threads (median of interleaved per-round\n"
		   "  ratios), then both on one core vs a sched_yield() hand-off. Each round\n"
		   "  also times the floor: the same kernel/smp.c lines written bare.\n"
		   "  --rounds N   interleaved rounds (default 301)\n"
		   "  --iters N    round trips per measurement (default 500)\n"
		   "  --cpus A,B   the two real CPUs (default: the first two allowed)\n");
}

/* --cpus A,B: two real CPU numbers. */
static int parse_cpu_pair(const char *arg, int hosts[2])
{
	size_t n1 = strspn(arg, "0123456789"), n2 = arg[n1] == ',' ?
		strspn(arg + n1 + 1, "0123456789") : 0;
	unsigned int v[2];
	char first[16];

	if (!n1 || !n2 || arg[n1 + 1 + n2] || n1 >= sizeof(first)) {
		fprintf(stderr, "tlbgen-bench: --cpus: '%s' is not two numbers A,B\n", arg);
		return -EINVAL;
	}
	memcpy(first, arg, n1);
	first[n1] = 0;
	if (bench_parse_uint("--cpus", first, 0, INT_MAX, &v[0]) ||
	    bench_parse_uint("--cpus", arg + n1 + 1, 0, INT_MAX, &v[1]))
		return -EINVAL;
	hosts[0] = (int)v[0];
	hosts[1] = (int)v[1];
	return 0;
}

/* results.json: the round trips of one measurement, and its ratios. */
static void record(const char *what, const char *baseline, const struct session *s,
		   double ratio, double floor_ratio, double over)
{
	json_t *pa = json_pack("{s:s,s:s}", "measurement", what, "baseline", baseline);

	bench_metric_samples("ns_per_round_trip", "ns", "lower", pa, s->op_ns, s->rounds);
	bench_metric_samples("baseline_ns_per_round_trip", "ns", "lower", pa, s->base_ns,
			     s->rounds);
	bench_metric_samples("floor_ns_per_round_trip", "ns", "lower", pa, s->floor_ns,
			     s->rounds);
	bench_metric("ratio_to_baseline", "ratio (median of rounds)", "lower", pa, ratio);
	bench_metric("floor_ratio_to_baseline", "ratio (median of rounds)", "lower", pa,
		     floor_ratio);
	bench_metric("ratio_to_floor", "ratio (median of rounds)", "lower", pa, over);
	json_decref(pa);
}

int bench_transport_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "iters", required_argument, NULL, 'i' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* Many short rounds: a ~10 ms stall (host preemption; and, while the
	 * queue was a wfcqueue, its blocking splice sleeping 10 ms when it
	 * caught an enqueue half done) spoils one round, and the median drops
	 * it. */
	unsigned int rounds = 301, iters = 500;
	int hosts[2] = { -1, -1 }, allowed[2], c, fail = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (bench_parse_uint("--rounds", optarg, 1, 1000, &rounds)) {
				usage(stderr);
				return 2;
			}
			break;
		case 'i':
			if (bench_parse_uint("--iters", optarg, 1, 10000000, &iters)) {
				usage(stderr);
				return 2;
			}
			break;
		case 'c':
			if (parse_cpu_pair(optarg, hosts)) {
				usage(stderr);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !rounds || rounds > 1000 || !iters || iters > 10000000) {
		usage(stderr);
		return 2;
	}
	if (hosts[0] < 0) {
		int n = bench_allowed_cpus(allowed, 2);

		hosts[0] = n > 0 ? allowed[0] : 0;
		hosts[1] = n > 1 ? allowed[1] : hosts[0];
	}
	tlbgen_set_print(NULL);	/* the oversubscription notice is expected here */
	bench_meta_policy("v6.0", "v6.0");
	bench_meta_policy("latest", "latest");
	bench_meta_param("rounds", json_integer(rounds));
	bench_meta_param("iters", json_integer(iters));
	printf("transport: CPUs %d,%d; %u interleaved rounds x %u round trips; medians\n",
	       hosts[0], hosts[1], rounds, iters);
	printf("%-24s %7s %22s %7s %7s %8s %10s\n", "measurement", "ns/rt", "baseline ns/rt",
	       "ratio", "target", "floor", "over floor");
	for (int k = 0; k < K_NR + 1; k++) {
		struct session *s = aligned_alloc(64, sizeof(*s));
		int two[2] = { hosts[0], k == K_NR ? hosts[0] : hosts[1] };
		double ma, mb, mf, ratio, floor_ratio, over;
		int err;

		if (!s)
			return 1;
		memset(s, 0, sizeof(*s));
		s->kind = k == K_NR ? K_IPI : (enum kind)k;
		s->oversub = k == K_NR;
		s->rounds = rounds;
		s->iters = s->oversub ? (iters / 8 ? iters / 8 : 1) : iters;
		s->op_ns = calloc(rounds, sizeof(double));
		s->base_ns = calloc(rounds, sizeof(double));
		s->floor_ns = calloc(rounds, sizeof(double));
		if (!s->op_ns || !s->base_ns || !s->floor_ns)
			return 1;
		err = run_session(s, two);
		if (err) {
			fprintf(stderr, "transport: %s failed: %d\n",
				k == K_NR ? "oversubscribed" : kind_name[k], err);
			return 1;
		}
		ratio = median_ratio(s->op_ns, s->base_ns, rounds, &ma, &mb);
		floor_ratio = median_ratio(s->floor_ns, s->base_ns, rounds, &mf, &mb);
		over = median_ratio(s->op_ns, s->floor_ns, rounds, &ma, &mf);
		if (k == K_NR) {
			printf("%-24s %7.0f %13s %8.0f %6.2fx %4s%.1fx %7.2fx %9.2fx\n",
			       "oversubscribed ipi rt", ma, "sched_yield", mb, ratio, "<=", 3.0,
			       floor_ratio, over);
			fail |= ratio > 3.0;
		} else {
			printf("%-24s %7.0f %13s %8.0f %6.2fx %4s%.1fx %7.2fx %9.2fx\n", kind_name[k],
			       ma, "ping-pong", mb, ratio, "<=", kind_target[k], floor_ratio, over);
			fail |= ratio > kind_target[k];
		}
		record(k == K_NR ? "oversubscribed ipi rt" : kind_name[k],
		       k == K_NR ? "sched_yield" : "ping-pong", s, ratio, floor_ratio, over);
		free(s->op_ns);
		free(s->base_ns);
		free(s->floor_ns);
		free(s);
	}
	printf("floor: the same kernel/smp.c lines written bare, no library (see the source)\n");
	if (fail)
		printf("note: a ratio above its target (reported, not an error)\n");
	return 0;
}
