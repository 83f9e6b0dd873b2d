// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/vtime.c - tlbgen-bench vtime: the virtual-time engine's cost per
 * scheduling point against its floor, side by side in one run.
 *
 * In interleaved rounds: the library on a fixed workload, one virtual cell
 * of will-it-scale tlb_flush1 (threads, v6.0), then the floor
 * (bench/workloads/vtime-floor.c: one point written bare, a coroutine switch, a
 * directory lookup, a clock update and the pick of the earliest CPU) on
 * as many CPUs and among as many cachelines as the cell touched (the csds
 * alone are one per pair of CPUs): a lookup in a directory of 2000 lines
 * is not one in a directory of 100. Each is timed by the host thread's CPU time (the other
 * processes on a shared host do not count) and divided by its points. The
 * median of the per-round engine/floor ratios is the engine's overhead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver/common.h"
#include "driver/env.h"
#include "driver/results.h"
#include "run/run-virtual.h"
#include "run/run.h"
#include "vtime-floor.h"

extern const struct bench_ops bench_tlb_flush1_ops;

static struct {
	unsigned int cpus, rounds, us;
	unsigned int points;
} o = { .cpus = 55, .rounds = 5, .us = 1000, .points = 1000000 };

static const struct bench_opt vtime_opts[] = {
	{ .name = "cpus", .arg = "N", .type = BOPT_UINT, .dst = &o.cpus, .min = 2, .max = 256,
	  .help = "virtual CPUs of the floor, threads of the workload (55)" },
	{ .name = "rounds", .arg = "N", .type = BOPT_UINT, .dst = &o.rounds, .min = 1,
	  .max = 1000, .help = "interleaved rounds (5)" },
	{ .name = "us", .arg = "N", .type = BOPT_UINT, .dst = &o.us, .min = 10,
	  .max = 10000000, .help = "virtual microseconds of the workload per round, after\n"
				  "as long again of warmup (1000)" },
	{ .name = "points", .arg = "N", .type = BOPT_UINT, .dst = &o.points, .min = 1000,
	  .max = 1000000000, .help = "the floor's scheduling points per round (1000000)" },
	BENCH_OPT_END,
};

struct vtime_round {
	double floor_ns, engine_ns;		/* per point */
	double floor_switches, engine_switches;	/* per point */
	double engine_points;
	unsigned int lines;			/* the engine's; the floor's too */
};

static double thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The library: one cell of tlb_flush1, its points and switches read back. */
static int engine_round(const struct bench_env *e, uint64_t seed, struct vtime_round *r)
{
	struct bench_vspec s = { .ops = &bench_tlb_flush1_ops, .m = &e->machine,
				 .profile = "v6.0", .threads = o.cpus, .invlpgb = e->invlpgb,
				 .no_pcid = e->no_pcid, .warm_ms = o.us / 1000.0,
				 .ms = o.us / 1000.0, .seed = seed };
	struct bench_vcell c;
	double t0 = thread_ns();
	int err = bench_vcell_run(&s, &c);

	if (err)
		return err;
	r->engine_ns = thread_ns() - t0;
	if (!c.points)
		return -ERANGE;
	r->engine_points = (double)c.points;
	r->lines = c.lines > o.cpus ? (unsigned int)c.lines : o.cpus;
	r->engine_ns /= (double)c.points;
	r->engine_switches = (double)c.switches / (double)c.points;
	return 0;
}

static int floor_round(const struct bench_env *e, uint64_t seed, struct vtime_round *r)
{
	struct vfloor_result f;
	int err = vfloor_run(o.cpus, r->lines, o.points, &e->machine, seed, &f);

	if (err)
		return err;
	r->floor_ns = f.ns / (double)f.points;
	r->floor_switches = (double)f.switches / (double)f.points;
	return 0;
}

static double median(double *v, unsigned int n)
{
	double lo, med, hi;

	bench_min_med_max(v, n, &lo, &med, &hi);
	return med;
}

static double get(const char *name, json_t *pa)
{
	double v = 0;

	bench_metric_get(name, pa, &v);
	return v;
}

/* results.json: every round's figures, their medians, the median ratio. */
static void record(const struct vtime_round *r, json_t *pa)
{
	double *v = calloc(5 * (size_t)o.rounds, sizeof(*v));
	double *fl = v, *en = v + o.rounds, *ra = v + 2 * o.rounds, *fs = v + 3 * o.rounds,
	       *es = v + 4 * o.rounds;

	if (!v)
		return;
	for (unsigned int i = 0; i < o.rounds; i++) {
		fl[i] = r[i].floor_ns;
		en[i] = r[i].engine_ns;
		ra[i] = r[i].engine_ns / r[i].floor_ns;
		fs[i] = r[i].floor_switches;
		es[i] = r[i].engine_switches;
	}
	bench_metric_samples("floor_ns_per_point", "ns", "lower", pa, fl, o.rounds);
	bench_metric_samples("engine_ns_per_point", "ns", "lower", pa, en, o.rounds);
	bench_metric("engine_points_per_round", "scheduling points", NULL, pa,
		     r[0].engine_points);
	bench_metric("lines", "cachelines", NULL, pa, r[0].lines);
	bench_metric("median_floor_ns_per_point", "ns", "lower", pa, median(fl, o.rounds));
	bench_metric("median_engine_ns_per_point", "ns", "lower", pa, median(en, o.rounds));
	bench_metric("ratio_to_floor", "ratio (median of rounds)", "lower", pa,
		     median(ra, o.rounds));
	bench_metric("floor_switches_per_point", "switches", NULL, pa, median(fs, o.rounds));
	bench_metric("engine_switches_per_point", "switches", NULL, pa, median(es, o.rounds));
	free(v);
}

static int vtime_run(struct bench_env *e)
{
	struct vtime_round *r;
	json_t *pa;
	int err = 0;

	if (bench_env_machine(e, "skylake-56"))
		return 2;
	if (!e->machine.mhz) {
		fprintf(stderr, "tlbgen-bench vtime: --machine off: the engine needs a model\n");
		return 2;
	}
	if (o.cpus > bench_machine_cpus(&e->machine)) {
		fprintf(stderr, "tlbgen-bench vtime: --cpus %u: the machine has %u CPUs\n", o.cpus,
			bench_machine_cpus(&e->machine));
		return 2;
	}
	r = calloc(o.rounds, sizeof(*r));
	if (!r)
		return 1;
	bench_env_meta_machine(e, BENCH_M_VIRTUAL);
	bench_meta_seed(e->seed);
	bench_meta_policy("v6.0", "v6.0");
	bench_meta_param("rounds", json_integer(o.rounds));
	bench_meta_param("cpus", json_integer(o.cpus));
	bench_meta_param("us", json_integer(o.us));
	bench_meta_param("points", json_integer(o.points));
	/* Interleaved: a host that slows down mid-run slows both alike. */
	for (unsigned int i = 0; !err && i < o.rounds; i++) {
		err = engine_round(e, e->seed + i, &r[i]);
		if (!err)
			err = floor_round(e, e->seed + i, &r[i]);
	}
	if (err) {
		fprintf(stderr, "tlbgen-bench vtime: a round failed: %s\n", strerror(-err));
		free(r);
		return 1;
	}
	pa = json_pack("{s:s,s:i}", "workload", "tlb_flush1", "cpus", o.cpus);
	record(r, pa);
	printf("vtime: %u CPUs, %u interleaved rounds; host thread CPU time per scheduling "
	       "point, medians\n", o.cpus, o.rounds);
	printf("%-34s %9s %16s\n", "", "ns/point", "switches/point");
	printf("%-34s %9.1f %16.3f\n", "floor (bare: switch, lookup, clock)",
	       get("median_floor_ns_per_point", pa), get("floor_switches_per_point", pa));
	printf("%-34s %9.1f %16.3f\n", "engine (tlb_flush1, v6.0)",
	       get("median_engine_ns_per_point", pa), get("engine_switches_per_point", pa));
	printf("engine over floor: %.2fx (median of the rounds' ratios); %.0f points per "
	       "engine round, %.0f lines each\n", get("ratio_to_floor", pa),
	       get("engine_points_per_round", pa), get("lines", pa));
	json_decref(pa);
	free(r);
	return 0;
}

const struct bench bench_vtime = {
	.name = "vtime",
	.summary = "virtual time: the engine's host ns per scheduling point against a bare floor",
	.help = "The virtual-time engine's cost per scheduling point (every shared-line\n"
		"access is one) against its floor, in interleaved rounds of one run: the\n"
		"floor is one point written bare (bench/workloads/vtime-floor.c: a coroutine switch\n"
		"between --cpus coroutines, a directory lookup of the line, a clock update,\n"
		"the earliest CPU picked from a heap) among as many lines as the engine's\n"
		"round touched; the engine runs one virtual cell of tlb_flush1 (threads,\n"
		"v6.0) on as many CPUs. Both are timed by the host\n"
		"thread's CPU time; the ratio is the median of the rounds' ratios.\n",
	.shared = BENCH_O_MACHINE | BENCH_O_SEED | BENCH_O_JSON,
	.opts = vtime_opts,
	.run = vtime_run,
};
BENCH_COMMAND(bench_vtime);
