// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/transport.c - tlbgen-bench transport: the threaded runtime's IPI
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
 * Every round also times the operation's floor (bench/workloads/transport-floor.c):
 * the same kernel/smp.c lines written bare. "over floor", the median of the
 * per-round library/floor ratios, is the library's own overhead.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "driver/common.h"
#include "driver/results.h"
#include "run/run.h"
#include "transport-floor.h"

static const char *const kind_name[K_NR] = {
	"ipi round trip", "1-target flush v6.0", "1-target flush latest",
};
static const char *const kind_profile[K_NR] = { "latest", "v6.0", "latest" };
/* The targets of the transport issue, as ratios to the ping-pong. */
static const double kind_target[K_NR] = { 1.5, 2.5, 2.5 };
/* Both threads on one core: the emulated round trip against a yield. */
#define OVERSUB_NAME	"oversubscribed ipi rt"
#define OVERSUB_TARGET	3.0

struct session {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	enum transport_kind kind;
	bool oversub;
	unsigned int rounds, iters;
	_Alignas(64) atomic_ulong pp;		/* the ping-pong line */
	struct floor fl;
	_Alignas(64) atomic_int ready;
	atomic_bool done;
	atomic_bool left;			/* CPU 1 is back on init_mm */
	double *op_ns, *base_ns, *floor_ns;
};

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
		transport_relax(s->oversub);
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
			transport_relax(s->oversub);
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
	floor_init(&s->fl);
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

/* Options ------------------------------------------------------------------ */

/* Many short rounds: a ~10 ms stall (host preemption; and, while the queue
 * was a wfcqueue, its blocking splice sleeping 10 ms when it caught an
 * enqueue half done) spoils one round, and the median drops it. */
static struct {
	unsigned int rounds, iters;
	int hosts[2];
} o = { .rounds = 301, .iters = 500, .hosts = { -1, -1 } };

/* --cpus A,B: two real CPU numbers. */
static int opt_cpus(const char *opt, const char *arg)
{
	size_t n1 = strspn(arg, "0123456789"), n2 = arg[n1] == ',' ?
		strspn(arg + n1 + 1, "0123456789") : 0;
	unsigned int v[2];
	char first[16];

	if (!n1 || !n2 || arg[n1 + 1 + n2] || n1 >= sizeof(first)) {
		fprintf(stderr, "tlbgen-bench: %s: '%s' is not two numbers A,B\n", opt, arg);
		return -EINVAL;
	}
	memcpy(first, arg, n1);
	first[n1] = 0;
	if (bench_parse_uint(opt, first, 0, INT_MAX, &v[0]) ||
	    bench_parse_uint(opt, arg + n1 + 1, 0, INT_MAX, &v[1]))
		return -EINVAL;
	o.hosts[0] = (int)v[0];
	o.hosts[1] = (int)v[1];
	return 0;
}

static const struct bench_opt transport_opts[] = {
	{ .name = "rounds", .arg = "N", .type = BOPT_UINT, .dst = &o.rounds, .min = 1, .max = 1000,
	  .help = "interleaved rounds (301)" },
	{ .name = "iters", .arg = "N", .type = BOPT_UINT, .dst = &o.iters, .min = 1,
	  .max = 10000000, .help = "round trips per measurement (500)" },
	{ .name = "cpus", .arg = "A,B", .type = BOPT_FN, .fn = opt_cpus,
	  .help = "the two real CPUs (default: the first two allowed)" },
	BENCH_OPT_END,
};

/* Results ------------------------------------------------------------------ */

/* results.json: the round trips of one measurement, their medians, the
 * median ratios and the target. */
static void record(json_t *pa, const struct session *s, double target)
{
	double ma, mb, mf, ratio, floor_ratio, over;

	ratio = median_ratio(s->op_ns, s->base_ns, s->rounds, &ma, &mb);
	floor_ratio = median_ratio(s->floor_ns, s->base_ns, s->rounds, &mf, &mb);
	over = median_ratio(s->op_ns, s->floor_ns, s->rounds, &ma, &mf);
	bench_metric_samples("ns_per_round_trip", "ns", "lower", pa, s->op_ns, s->rounds);
	bench_metric_samples("baseline_ns_per_round_trip", "ns", "lower", pa, s->base_ns,
			     s->rounds);
	bench_metric_samples("floor_ns_per_round_trip", "ns", "lower", pa, s->floor_ns,
			     s->rounds);
	bench_metric("median_ns_per_round_trip", "ns", "lower", pa, ma);
	bench_metric("median_baseline_ns_per_round_trip", "ns", "lower", pa, mb);
	bench_metric("median_floor_ns_per_round_trip", "ns", "lower", pa, mf);
	bench_metric("ratio_to_baseline", "ratio (median of rounds)", "lower", pa, ratio);
	bench_metric("target_ratio_to_baseline", "ratio", NULL, pa, target);
	bench_metric("floor_ratio_to_baseline", "ratio (median of rounds)", "lower", pa,
		     floor_ratio);
	bench_metric("ratio_to_floor", "ratio (median of rounds)", "lower", pa, over);
}

static double get(const char *name, json_t *pa)
{
	double v = 0;

	bench_metric_get(name, pa, &v);
	return v;
}

/* One row of the table, from results.json; true when above its target. */
static bool print_row(const char *what, const char *baseline, json_t *pa)
{
	double ratio = get("ratio_to_baseline", pa), target = get("target_ratio_to_baseline", pa);

	printf("%-24s %7.0f %13s %8.0f %6.2fx %4s%.1fx %7.2fx %9.2fx\n", what,
	       get("median_ns_per_round_trip", pa), baseline,
	       get("median_baseline_ns_per_round_trip", pa), ratio, "<=", target,
	       get("floor_ratio_to_baseline", pa), get("ratio_to_floor", pa));
	return ratio > target;
}

/* One measurement: its session, recorded, printed. 0, or 1 after a message. */
static int measure(int k, const int hosts[2], bool *above)
{
	struct session *s = aligned_alloc(64, sizeof(*s));
	int two[2] = { hosts[0], k == K_NR ? hosts[0] : hosts[1] }, err = -ENOMEM;
	const char *what = k == K_NR ? OVERSUB_NAME : kind_name[k];
	const char *baseline = k == K_NR ? "sched_yield" : "ping-pong";
	json_t *pa;

	if (!s)
		goto fail;
	memset(s, 0, sizeof(*s));
	s->kind = k == K_NR ? K_IPI : (enum transport_kind)k;
	s->oversub = k == K_NR;
	s->rounds = o.rounds;
	s->iters = s->oversub ? (o.iters / 8 ? o.iters / 8 : 1) : o.iters;
	s->op_ns = calloc(o.rounds, sizeof(double));
	s->base_ns = calloc(o.rounds, sizeof(double));
	s->floor_ns = calloc(o.rounds, sizeof(double));
	err = s->op_ns && s->base_ns && s->floor_ns ? run_session(s, two) : -ENOMEM;
	if (!err) {
		pa = json_pack("{s:s,s:s}", "measurement", what, "baseline", baseline);
		record(pa, s, k == K_NR ? OVERSUB_TARGET : kind_target[k]);
		*above |= print_row(what, baseline, pa);
		json_decref(pa);
	}
	free(s->op_ns);
	free(s->base_ns);
	free(s->floor_ns);
	free(s);
fail:
	if (err)
		fprintf(stderr, "transport: %s failed: %d\n", k == K_NR ? "oversubscribed" : what,
			err);
	return err ? 1 : 0;
}

static int transport_run(struct bench_env *e)
{
	int allowed[2], hosts[2] = { o.hosts[0], o.hosts[1] };
	bool above = false;

	if (!bench_modes(e))
		return 2;
	if (hosts[0] < 0) {
		int n = bench_allowed_cpus(allowed, 2);

		hosts[0] = n > 0 ? allowed[0] : 0;
		hosts[1] = n > 1 ? allowed[1] : hosts[0];
	}
	tlbgen_set_print(NULL);	/* the oversubscription notice is expected here */
	bench_meta_policy("v6.0", "v6.0");
	bench_meta_policy("latest", "latest");
	bench_meta_param("rounds", json_integer(o.rounds));
	bench_meta_param("iters", json_integer(o.iters));
	bench_meta_param("cpus", json_pack("[i,i]", hosts[0], hosts[1]));
	printf("transport: CPUs %d,%d; %u interleaved rounds x %u round trips; medians\n",
	       hosts[0], hosts[1], o.rounds, o.iters);
	printf("%-24s %7s %22s %7s %7s %8s %10s\n", "measurement", "ns/rt", "baseline ns/rt",
	       "ratio", "target", "floor", "over floor");
	for (int k = 0; k < K_NR + 1; k++)
		if (measure(k, hosts, &above))
			return 1;
	printf("floor: the same kernel/smp.c lines written bare, no library (see the source)\n");
	if (above)
		printf("note: a ratio above its target (reported, not an error)\n");
	return 0;
}

const struct bench bench_transport = {
	.name = "transport",
	.summary = "threaded runtime: IPI / 1-target flush round trips vs cacheline ping-pong",
	.help = "Emulated IPI (tlbgen_smp_call_function_single() of an empty callback) and\n"
		"1-target flush_tlb_mm_range() round trips (v6.0, latest) against a raw\n"
		"cacheline ping-pong between the same two pinned threads: the median of\n"
		"interleaved per-round ratios, with its target; then both threads on one\n"
		"core against a sched_yield() hand-off. Each round also times the floor:\n"
		"the same kernel/smp.c lines written bare (bench/workloads/transport-floor.c), and\n"
		"the library over it. A ratio above its target is reported, not an error.\n",
	.shared = BENCH_O_MODE | BENCH_O_JSON,
	.modes = BENCH_M_THREADS,
	.modes_why = "it times the threaded runtime's IPIs on this host's cores",
	.opts = transport_opts,
	.run = transport_run,
};
BENCH_COMMAND(bench_transport);
