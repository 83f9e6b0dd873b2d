// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/scale.c - stepped mode as the emulated machine grows.
 *
 * One mm loaded on every CPU, one-page flushes (flush_tlb_page) from CPU 0,
 * so every shootdown has nr_cpus - 1 remote targets and one local flush.
 * Each shootdown is delivered either by the seeded scheduler
 * (tlbgen_run_until_idle) or by the host calling tlbgen_deliver(cpu) for
 * every target in turn; the two styles alternate within each repetition so
 * that both see the same machine noise. A third style, tlbgen_deliver() over
 * the targets in a fixed shuffled order, has no scheduler at all: it is the
 * cost of visiting the targets in a random order, the floor of any uniform
 * scheduler at sizes whose per-CPU state outgrows the caches. Per CPU count
 * the medians of the
 * repetitions are printed, with the ratio to the 64-CPU row (and to the
 * 128-CPU row for 8192): linear scaling is the ratio of the CPU counts.
 *
 * Times are the CPU time of the benchmark thread (user and system), so
 * that other tenants of a shared host inflate them less than wall time;
 * --wall measures wall time instead.
 *
 * Creation is measured in a child process per configuration (fork), so
 * that memory the parent freed earlier cannot hide the figure: wall time of
 * tlbgen_system__create() and the growth of the resident set (statm),
 * without the oracle and its simulated TLB (TLBGEN_SYS_NO_ORACLE) and with.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "common.h"
#include "output.h"
#include "results.h"

int bench_scale_main(int argc, char **argv);

static const unsigned int scale_cpus[] = { 64, 128, 256, 1024, 4096, 8192 };
#define NR_ROWS (sizeof(scale_cpus) / sizeof(scale_cpus[0]))
#define MAX_REPS 64

struct scale_cfg {
	bool wall;			/* wall time, not thread CPU time */
	unsigned int reps;
	unsigned long targets;		/* flush_tlb_func calls per style per repetition */
	unsigned int max_cpus;
	unsigned long long seed;
	const char *profile;
};

struct scale_row {
	unsigned int cpus;
	unsigned long shootdowns;	/* per style per repetition */
	struct tlbgen_system *sys;	/* alive from setup to the last repetition */
	struct tlbgen_mm *mm;
	unsigned int *order;		/* the shuffled targets */
	double rep_ns[3][MAX_REPS];	/* per style, per repetition, per shootdown */
	double idle_ns, direct_ns, shuf_ns;		/* median per shootdown */
	double ratio[3];		/* median over repetitions of this row against
					 * the reference row (64; 128 for 8192) */
	double ratio_lo[3], ratio_hi[3];	/* ... lowest and highest repetition */
	unsigned int ref_cpus;		/* the reference row's CPUs; 0 for a reference */
	double idle_func, direct_func, shuf_func;	/* flush_tlb_func per shootdown */
	double create_ms[2];		/* [0] no oracle/TLB, [1] with */
	double rss_per_cpu[2];		/* bytes */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tlbgen-bench scale [options]\n"
		"  stepped mode at 64..8192 CPUs: one mm on every CPU, one-page flushes\n"
		"  from CPU 0, delivered by tlbgen_run_until_idle, by tlbgen_deliver(cpu)\n"
		"  in a loop, and by tlbgen_deliver() over the targets in a shuffled order\n"
		"  (a random order's cost without a scheduler); creation time and resident\n"
		"  memory per CPU. The oracle is off for the shootdowns.\n"
		"  --reps N        repetitions; medians are printed (15)\n"
		"  --targets N     flush_tlb_func calls per style per repetition (200000)\n"
		"  --max-cpus N    skip the rows above N CPUs (8192)\n"
		"  --profile P     policy (v6.0)\n"
		"  --seed N        scheduler seed (1)\n"
		"  --wall          wall time (default: CPU time of the benchmark thread)\n"
		"  --json FILE     write every figure as JSON\n");
}

static bool use_wall;

static uint64_t now_ns(void)
{
	struct timespec ts;

	if (use_wall)
		return bench_now_ns();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Resident bytes of this process (/proc/self/statm, second field). */
static long resident_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long size, res = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		res = -1;
	fclose(f);
	return res < 0 ? -1 : res * sysconf(_SC_PAGESIZE);
}

/* In a child: create (and keep) a system, report time and resident growth. */
static int measure_create(unsigned int cpus, unsigned int flags, const char *profile,
			  double *ms, double *rss)
{
	double res[2] = { -1, -1 };
	int fd[2], status;
	pid_t pid;

	if (pipe(fd))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -errno;
	}
	if (pid == 0) {
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = cpus, .mode = TLBGEN_MODE_STEPPED,
			    .profile = profile, .flags = flags);
		struct tlbgen_system *sys;
		long r0 = resident_bytes(), r1;
		uint64_t t0 = now_ns(), t1;
		int err = tlbgen_system__create(&o, &sys);

		t1 = now_ns();
		r1 = resident_bytes();
		if (!err && r0 >= 0 && r1 >= 0) {
			res[0] = (double)(t1 - t0) / 1e6;
			res[1] = (double)(r1 - r0) / cpus;
		}
		if (write(fd[1], res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(err ? 1 : 0);
	}
	close(fd[1]);
	if (read(fd[0], res, sizeof(res)) != sizeof(res))
		res[0] = -1;
	close(fd[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    res[0] < 0)
		return -EIO;
	*ms = res[0];
	*rss = res[1];
	return 0;
}

static uint64_t flush_funcs(const struct tlbgen_system *sys)
{
	uint64_t st[TLBGEN_STAT_NR];

	if (tlbgen_stats__system(sys, st, TLBGEN_STAT_NR) < 0)
		return 0;
	return st[TLBGEN_STAT_FLUSH_FUNC];
}

enum scale_style { BY_SCHEDULER, BY_HOST, BY_HOST_SHUFFLED };

/* Each style's "delivery" in results.json. */
static const char *const style_name[3] = { "run_until_idle", "deliver", "deliver_shuffled" };

/*
 * One shootdown from CPU 0, delivered by the scheduler or by the host, in
 * CPU order or in the order of order[0 .. cpus - 1) (the targets shuffled).
 */
static int shootdown(struct tlbgen_system *sys, struct tlbgen_mm *mm, unsigned int cpus,
		     enum scale_style style, const unsigned int *order)
{
	int err = tlbgen_flush_tlb_page(sys, 0, mm, 0);

	if (err)
		return err;
	if (style == BY_SCHEDULER)
		return tlbgen_run_until_idle(sys) == (int)cpus - 1 ? 0 : -EIO;
	for (unsigned int i = 0; i < cpus - 1; i++) {
		if (tlbgen_deliver(sys, style == BY_HOST ? i + 1 : order[i]) != 1)
			return -EIO;
	}
	return 0;
}

static int timed(struct tlbgen_system *sys, struct tlbgen_mm *mm, struct scale_row *r,
		 enum scale_style style, const unsigned int *order, double *ns, double *funcs)
{
	uint64_t f0 = flush_funcs(sys), t0 = now_ns(), t1;
	int err = 0;

	for (unsigned long i = 0; i < r->shootdowns && !err; i++)
		err = shootdown(sys, mm, r->cpus, style, order);
	t1 = now_ns();
	*ns = (double)(t1 - t0) / (double)r->shootdowns;
	*funcs = (double)(flush_funcs(sys) - f0) / (double)r->shootdowns;
	return err;
}

static const struct scale_row *find_row(const struct scale_row *rows, unsigned int n,
					unsigned int cpus)
{
	for (unsigned int i = 0; i < n; i++)
		if (rows[i].cpus == cpus)
			return &rows[i];
	return NULL;
}

/* A row's system, its mm on every CPU, the shuffled order, warmed up. */
static int setup_row(const struct scale_cfg *c, struct scale_row *r)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = r->cpus, .mode = TLBGEN_MODE_STEPPED,
		    .profile = c->profile, .flags = TLBGEN_SYS_NO_ORACLE, .seed = c->seed);
	uint64_t rng = c->seed;
	int err;

	r->order = malloc((r->cpus - 1) * sizeof(*r->order));
	if (!r->order)
		return -ENOMEM;
	/* Fisher-Yates over the targets 1 .. cpus - 1, xorshift64 from --seed. */
	for (unsigned int i = 0; i < r->cpus - 1; i++)
		r->order[i] = i + 1;
	for (unsigned int i = r->cpus - 2; i > 0; i--) {
		unsigned int j, t;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		j = (unsigned int)(rng % (i + 1));
		t = r->order[i];
		r->order[i] = r->order[j];
		r->order[j] = t;
	}
	r->shootdowns = c->targets / r->cpus ? c->targets / r->cpus : 1;
	err = tlbgen_system__create(&o, &r->sys);
	if (err)
		return err;
	err = tlbgen_mm__create(r->sys, 1, &r->mm);
	for (unsigned int cpu = 0; cpu < r->cpus && !err; cpu++)
		err = tlbgen_switch_mm(r->sys, cpu, r->mm);
	/* Warm up: CPU 0's csds are allocated on its first flush. */
	for (int i = 0; i < 3 && !err; i++)
		err = shootdown(r->sys, r->mm, r->cpus, (enum scale_style)i, r->order);
	return err;
}

static void teardown_row(struct scale_row *r)
{
	if (r->sys)
		tlbgen_system__destroy(r->sys);
	free(r->order);
	r->sys = NULL;
	r->order = NULL;
}

/* One repetition of a row: the three styles in turn, each after one
 * untimed shootdown that brings its lines back from the previous row's. */
static int rep_row(struct scale_row *r, unsigned int rep)
{
	static const enum scale_style styles[3] = { BY_SCHEDULER, BY_HOST, BY_HOST_SHUFFLED };
	double *funcs[3] = { &r->idle_func, &r->direct_func, &r->shuf_func };
	int err = 0;

	for (int k = 0; k < 3 && !err; k++) {
		err = shootdown(r->sys, r->mm, r->cpus, styles[k], r->order);
		if (!err)
			err = timed(r->sys, r->mm, r, styles[k], r->order, &r->rep_ns[k][rep],
				    funcs[k]);
	}
	return err;
}

/*
 * Medians per row, and each ratio as the median over repetitions of the
 * two rows' times in the same repetition: the rows of one repetition are
 * measured one after the other, so a drift of the host's speed between
 * repetitions cancels out of the ratio.
 */
static void summarise(const struct scale_cfg *c, struct scale_row *rows, unsigned int n)
{
	const struct scale_row *base = find_row(rows, n, 64), *b128 = find_row(rows, n, 128);
	double lo, hi, q[MAX_REPS];

	for (unsigned int i = 0; i < n; i++) {
		struct scale_row *r = &rows[i];
		const struct scale_row *ref = r->cpus == 8192 && b128 ? b128 : base;
		double *med[3] = { &r->idle_ns, &r->direct_ns, &r->shuf_ns };

		r->ref_cpus = ref && ref != r ? ref->cpus : 0;

		for (int k = 0; k < 3; k++) {
			bench_min_med_max(r->rep_ns[k], c->reps, &lo, med[k], &hi);
			r->ratio[k] = r->ratio_lo[k] = r->ratio_hi[k] = 0;
			if (!ref || ref == r)
				continue;
			for (unsigned int rep = 0; rep < c->reps; rep++)
				q[rep] = r->rep_ns[k][rep] / ref->rep_ns[k][rep];
			bench_min_med_max(q, c->reps, &r->ratio_lo[k], &r->ratio[k], &r->ratio_hi[k]);
		}
	}
}

static int run_create(const struct scale_cfg *c, struct scale_row *r)
{
	for (int with = 0; with < 2; with++) {
		double ms[MAX_REPS], rss[MAX_REPS], lo, hi;

		for (unsigned int rep = 0; rep < c->reps; rep++) {
			int err = measure_create(r->cpus, with ? 0 : TLBGEN_SYS_NO_ORACLE,
						 c->profile, &ms[rep], &rss[rep]);

			if (err)
				return err;
		}
		bench_min_med_max(ms, c->reps, &lo, &r->create_ms[with], &hi);
		bench_min_med_max(rss, c->reps, &lo, &r->rss_per_cpu[with], &hi);
	}
	return 0;
}

/* The median ratio per style, with the lowest and highest repetition's. */
static void print_ratios(const char *what, const struct scale_row *r)
{
	static const char *const style[3] = { "run_until_idle", "deliver", "shuffled" };

	printf("%s:", what);
	for (int k = 0; k < 3; k++)
		printf(" %s %.1fx (%.1f..%.1f)%s", style[k], r->ratio[k], r->ratio_lo[k],
		       r->ratio_hi[k], k < 2 ? "," : "");
	printf(" (linear 64x; median and range over the repetitions)\n");
}

static void print_table(const struct scale_cfg *c, const struct scale_row *rows, unsigned int n)
{
	const struct scale_row *base = find_row(rows, n, 64), *b128 = find_row(rows, n, 128);

	printf("scale: %s, stepped, oracle off, one mm on every CPU, one-page flushes from CPU 0\n"
	       "  %s, medians of %u repetitions; ns/tgt = ns per flush_tlb_func call;\n"
	       "  ratio = cost of a shootdown relative to the 64-CPU row (linear: cpus/64),\n"
	       "  /128 = relative to the 128-CPU row, each the median over repetitions of\n"
	       "  the two rows measured in the same repetition; create and KiB/cpu (resident growth) with\n"
	       "  TLBGEN_SYS_NO_ORACLE, +tlb with the oracle and its simulated TLB\n",
	       c->profile, c->wall ? "wall time" : "thread CPU time", c->reps);
	printf("%5s | %11s %7s %7s %8s | %11s %7s %7s %8s | %9s %9s | %9s %9s\n", "cpus",
	       "idle us/sd", "ns/tgt", "ratio", "Mfunc/s", "deliver us", "ns/tgt", "ratio",
	       "Mfunc/s", "create ms", "KiB/cpu", "+tlb ms", "KiB/cpu");
	for (unsigned int i = 0; i < n; i++) {
		const struct scale_row *r = &rows[i];
		char ri[16] = "-", rd[16] = "-";

		if (r->ref_cpus) {
			snprintf(ri, sizeof(ri), "%s%.1f", r->ref_cpus == 128 ? "/128 " : "", r->ratio[0]);
			snprintf(rd, sizeof(rd), "%s%.1f", r->ref_cpus == 128 ? "/128 " : "", r->ratio[1]);
		}
		printf("%5u | %11.2f %7.1f %7s %8.1f | %11.2f %7.1f %7s %8.1f | %9.1f %9.1f | %9.1f %9.1f\n",
		       r->cpus, r->idle_ns / 1e3, r->idle_ns / r->idle_func, ri,
		       r->idle_func / r->idle_ns * 1e3, r->direct_ns / 1e3,
		       r->direct_ns / r->direct_func, rd, r->direct_func / r->direct_ns * 1e3,
		       r->create_ms[0], r->rss_per_cpu[0] / 1024, r->create_ms[1],
		       r->rss_per_cpu[1] / 1024);
	}
	if (base) {
		const struct scale_row *r4096 = find_row(rows, n, 4096), *r8192 = find_row(rows, n, 8192);

		printf("shuffled: tlbgen_deliver() over the targets in a shuffled order, no scheduler,"
		       " ns/tgt:");
		for (unsigned int i = 0; i < n; i++)
			printf(" %u:%.1f", rows[i].cpus, rows[i].shuf_ns / rows[i].shuf_func);
		printf("\n");
		if (r4096)
			print_ratios("4096 vs 64", r4096);
		if (r8192 && b128)
			print_ratios("8192 vs 128", r8192);
	}
}

/* Every figure into results.json (and --json FILE), one metric per cell. */
static int record(const char *path, const struct scale_cfg *c, const struct scale_row *rows,
		  unsigned int n)
{
	bench_meta_seed(c->seed);
	bench_meta_policy(c->profile, c->profile);
	bench_meta_param("clock", json_string(c->wall ? "wall" : "thread_cpu"));
	bench_meta_param("reps", json_integer(c->reps));
	bench_meta_param("targets", json_integer((json_int_t)c->targets));
	for (unsigned int i = 0; i < n; i++) {
		const struct scale_row *r = &rows[i];
		json_t *idle = json_pack("{s:i,s:s}", "cpus", r->cpus, "delivery",
					 style_name[BY_SCHEDULER]);
		json_t *dir = json_pack("{s:i,s:s}", "cpus", r->cpus, "delivery",
					style_name[BY_HOST]);
		json_t *shuf = json_pack("{s:i,s:s}", "cpus", r->cpus, "delivery",
					 style_name[BY_HOST_SHUFFLED]);
		json_t *cr = json_pack("{s:i}", "cpus", r->cpus);

		bench_metric("ns_per_shootdown", "ns", "lower", idle, r->idle_ns);
		bench_metric("ns_per_target", "ns", "lower", idle, r->idle_ns / r->idle_func);
		bench_metric("flush_func_per_sec", "calls/s", "higher", idle,
			     r->idle_func / r->idle_ns * 1e9);
		bench_metric("ns_per_shootdown", "ns", "lower", dir, r->direct_ns);
		bench_metric("ns_per_target", "ns", "lower", dir, r->direct_ns / r->direct_func);
		bench_metric("flush_func_per_sec", "calls/s", "higher", dir,
			     r->direct_func / r->direct_ns * 1e9);
		bench_metric("ns_per_shootdown", "ns", "lower", shuf, r->shuf_ns);
		bench_metric("ns_per_target", "ns", "lower", shuf, r->shuf_ns / r->shuf_func);
		/* Against the reference row of the same repetition. */
		for (int k = 0; k < 3 && r->ref_cpus; k++) {
			json_t *pr = json_pack("{s:i,s:s,s:i}", "cpus", r->cpus, "delivery",
					       style_name[k], "reference_cpus", r->ref_cpus);

			bench_metric("shootdown_ratio", "x", "lower", pr, r->ratio[k]);
			bench_metric("shootdown_ratio_lowest_rep", "x", "lower", pr, r->ratio_lo[k]);
			bench_metric("shootdown_ratio_highest_rep", "x", "lower", pr, r->ratio_hi[k]);
			json_decref(pr);
		}
		bench_metric("create_ms", "ms", "lower", cr, r->create_ms[0]);
		bench_metric("resident_bytes_per_cpu", "bytes", "lower", cr, r->rss_per_cpu[0]);
		bench_metric("create_ms_with_tlb", "ms", "lower", cr, r->create_ms[1]);
		bench_metric("resident_bytes_per_cpu_with_tlb", "bytes", "lower", cr,
			     r->rss_per_cpu[1]);
		json_decref(idle);
		json_decref(dir);
		json_decref(shuf);
		json_decref(cr);
	}
	return path && bench_json_dump(bench_results_json(), path) ? -1 : 0;
}

enum { O_REPS = 256, O_TARGETS, O_MAX_CPUS, O_PROFILE, O_SEED, O_JSON, O_WALL };

int bench_scale_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "reps", required_argument, NULL, O_REPS },
		{ "targets", required_argument, NULL, O_TARGETS },
		{ "max-cpus", required_argument, NULL, O_MAX_CPUS },
		{ "profile", required_argument, NULL, O_PROFILE },
		{ "seed", required_argument, NULL, O_SEED },
		{ "json", required_argument, NULL, O_JSON },
		{ "wall", no_argument, NULL, O_WALL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* 15 repetitions, about 3 s: on a shared host a burst of another
	 * tenant's load spoils one repetition's large rows, and the median
	 * of 5 moved by up to 10% from run to run. */
	struct scale_cfg c = { .reps = 15, .targets = 200000, .max_cpus = 8192, .seed = 1,
			       .profile = "v6.0" };
	struct scale_row rows[NR_ROWS];
	const char *json = NULL;
	unsigned int n = 0, failed = 0;
	int opt, err = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		int err = 0;

		switch (opt) {
		case O_REPS: err = bench_parse_uint("--reps", optarg, 1, MAX_REPS, &c.reps); break;
		case O_TARGETS:
			err = bench_parse_ulong("--targets", optarg, 1, 100000000, &c.targets);
			break;
		case O_MAX_CPUS:
			err = bench_parse_uint("--max-cpus", optarg, 64, 8192, &c.max_cpus);
			break;
		case O_PROFILE: c.profile = optarg; break;
		case O_SEED: err = bench_parse_ull("--seed", optarg, 1, ~0ULL, &c.seed); break;
		case O_JSON: json = optarg; break;
		case O_WALL: c.wall = true; break;
		case 'h': usage(stdout); return 0;
		default: goto bad;
		}
		if (err)
			goto bad;
	}
	if (optind != argc)
		goto bad;
	if (json && bench_check_output("--json", json))
		return 2;
	use_wall = c.wall;
	{
		/* A bad --profile is a usage error, not a failed run. */
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_STEPPED,
			    .profile = c.profile);
		struct tlbgen_system *sys;

		if (tlbgen_system__create(&o, &sys))
			goto bad;
		tlbgen_system__destroy(sys);
	}

	for (unsigned int i = 0; i < NR_ROWS; i++) {
		if (scale_cpus[i] > c.max_cpus)
			continue;
		memset(&rows[n], 0, sizeof(rows[n]));
		rows[n++].cpus = scale_cpus[i];
	}
	/* Creation first, while this process has freed nothing a child could reuse. */
	for (unsigned int i = 0; i < n; i++) {
		err = run_create(&c, &rows[i]);
		if (err) {
			fprintf(stderr, "tlbgen-bench scale: creating %u CPUs: %s\n", rows[i].cpus,
				strerror(-err));
			return 1;
		}
	}
	/* Every row's system first; then each repetition runs every row. */
	for (unsigned int i = 0; i < n && !err; i++) {
		err = setup_row(&c, &rows[i]);
		failed = i;
	}
	for (unsigned int rep = 0; rep < c.reps && !err; rep++)
		for (unsigned int i = 0; i < n && !err; i++) {
			err = rep_row(&rows[i], rep);
			failed = i;
		}
	for (unsigned int i = 0; i < n; i++)
		teardown_row(&rows[i]);
	if (err) {
		fprintf(stderr, "tlbgen-bench scale: %u CPUs: %s\n", rows[failed].cpus,
			strerror(-err));
		return 1;
	}
	summarise(&c, rows, n);
	print_table(&c, rows, n);
	if (record(json, &c, rows, n))
		return 1;
	return 0;
bad:
	usage(stderr);
	return 2;
}
