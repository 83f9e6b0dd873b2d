// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/scale-measure.c - the measurements of tlbgen-bench scale.
 *
 * One mm loaded on every CPU, one-page flushes (flush_tlb_page) from CPU 0,
 * so every shootdown has nr_cpus - 1 remote targets and one local flush.
 * Each shootdown is delivered either by the seeded scheduler
 * (tlbgen_run_until_idle) or by the host calling tlbgen_deliver(cpu) for
 * every target in turn; the two styles alternate within each repetition so
 * that both see the same machine noise. A third style, tlbgen_deliver() over
 * the targets in a fixed shuffled order, has no scheduler at all: it is the
 * cost of visiting the targets in a random order, the floor of any uniform
 * scheduler at sizes whose per-CPU state outgrows the caches.
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
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/common.h"
#include "scale-measure.h"

static uint64_t now_ns(const struct scale_cfg *c)
{
	struct timespec ts;

	if (c->wall)
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
static int measure_create(const struct scale_cfg *c, unsigned int cpus, unsigned int flags,
			  double *ms, double *rss)
{
	double res[2] = { -1, -1 };
	int fd[2], status;
	pid_t pid;

	if (pipe(fd))
		return -errno;
	fflush(stdout);		/* nothing buffered is written twice */
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -errno;
	}
	if (pid == 0) {
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = cpus, .mode = TLBGEN_MODE_STEPPED,
			    .profile = c->profile, .flags = flags);
		struct tlbgen_system *sys;
		long r0 = resident_bytes(), r1;
		uint64_t t0 = now_ns(c), t1;
		int err = tlbgen_system__create(&o, &sys);

		t1 = now_ns(c);
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

int scale_create(const struct scale_cfg *c, struct scale_row *r)
{
	for (int with = 0; with < 2; with++) {
		double ms[SCALE_MAX_REPS], rss[SCALE_MAX_REPS], lo, hi;

		for (unsigned int rep = 0; rep < c->reps; rep++) {
			int err = measure_create(c, r->cpus, with ? 0 : TLBGEN_SYS_NO_ORACLE,
						 &ms[rep], &rss[rep]);

			if (err)
				return err;
		}
		bench_min_med_max(ms, c->reps, &lo, &r->create_ms[with], &hi);
		bench_min_med_max(rss, c->reps, &lo, &r->rss_per_cpu[with], &hi);
	}
	return 0;
}

static uint64_t flush_funcs(const struct tlbgen_system *sys)
{
	uint64_t st[TLBGEN_STAT_NR];

	if (tlbgen_stats__system(sys, st, TLBGEN_STAT_NR) < 0)
		return 0;
	return st[TLBGEN_STAT_FLUSH_FUNC];
}

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

static int timed(const struct scale_cfg *c, struct scale_row *r, enum scale_style style,
		 double *ns)
{
	uint64_t f0 = flush_funcs(r->sys), t0 = now_ns(c), t1;
	int err = 0;

	for (unsigned long i = 0; i < r->shootdowns && !err; i++)
		err = shootdown(r->sys, r->mm, r->cpus, style, r->order);
	t1 = now_ns(c);
	*ns = (double)(t1 - t0) / (double)r->shootdowns;
	r->func[style] = (double)(flush_funcs(r->sys) - f0) / (double)r->shootdowns;
	return err;
}

const struct scale_row *scale_find_row(const struct scale_row *rows, unsigned int n,
				       unsigned int cpus)
{
	for (unsigned int i = 0; i < n; i++)
		if (rows[i].cpus == cpus)
			return &rows[i];
	return NULL;
}

int scale_setup_row(const struct scale_cfg *c, struct scale_row *r)
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
	r->shootdowns = c->targets / r->cpus ? (unsigned long)(c->targets / r->cpus) : 1;
	err = tlbgen_system__create(&o, &r->sys);
	if (err)
		return err;
	err = tlbgen_mm__create(r->sys, 1, &r->mm);
	for (unsigned int cpu = 0; cpu < r->cpus && !err; cpu++)
		err = tlbgen_switch_mm(r->sys, cpu, r->mm);
	/* Warm up: CPU 0's csds are allocated on its first flush. */
	for (int i = 0; i < SCALE_STYLES && !err; i++)
		err = shootdown(r->sys, r->mm, r->cpus, (enum scale_style)i, r->order);
	return err;
}

void scale_teardown_row(struct scale_row *r)
{
	if (r->sys)
		tlbgen_system__destroy(r->sys);
	free(r->order);
	r->sys = NULL;
	r->order = NULL;
}

/* Each style after one untimed shootdown that brings its lines back from
 * the previous row's. */
int scale_rep_row(const struct scale_cfg *c, struct scale_row *r, unsigned int rep)
{
	int err = 0;

	for (int k = 0; k < SCALE_STYLES && !err; k++) {
		err = shootdown(r->sys, r->mm, r->cpus, (enum scale_style)k, r->order);
		if (!err)
			err = timed(c, r, (enum scale_style)k, &r->rep_ns[k][rep]);
	}
	return err;
}

/*
 * Each ratio is the median over repetitions of the two rows' times in the
 * same repetition: the rows of one repetition are measured one after the
 * other, so a drift of the host's speed between repetitions cancels out of
 * the ratio.
 */
void scale_summarise(const struct scale_cfg *c, struct scale_row *rows, unsigned int n)
{
	const struct scale_row *base = scale_find_row(rows, n, 64);
	const struct scale_row *b128 = scale_find_row(rows, n, 128);
	double lo, hi, q[SCALE_MAX_REPS];

	for (unsigned int i = 0; i < n; i++) {
		struct scale_row *r = &rows[i];
		const struct scale_row *ref = r->cpus == 8192 && b128 ? b128 : base;

		r->ref_cpus = ref && ref != r ? ref->cpus : 0;
		for (int k = 0; k < SCALE_STYLES; k++) {
			bench_min_med_max(r->rep_ns[k], c->reps, &lo, &r->ns[k], &hi);
			r->ratio[k] = r->ratio_lo[k] = r->ratio_hi[k] = 0;
			if (!ref || ref == r)
				continue;
			for (unsigned int rep = 0; rep < c->reps; rep++)
				q[rep] = r->rep_ns[k][rep] / ref->rep_ns[k][rep];
			bench_min_med_max(q, c->reps, &r->ratio_lo[k], &r->ratio[k],
					  &r->ratio_hi[k]);
		}
	}
}
