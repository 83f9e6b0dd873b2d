// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/run/run.c - an op-based workload through the generic runners: which
 * modes it runs in, the defaults its options take, and each mode's sweep.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "driver/env.h"
#include "driver/calibrate-file.h"
#include "report/report-stepped.h"
#include "report/report-virtual.h"
#include "report/report.h"
#include "run.h"
#include "threaded-run.h"

static const unsigned int mode_order[] = { BENCH_M_STEPPED, BENCH_M_THREADS, BENCH_M_PROCESSES,
					   BENCH_M_VIRTUAL };

unsigned int bench_modes(const struct bench_env *e)
{
	const struct bench *cmd = e->cmd;
	unsigned int bad = e->modes & ~cmd->modes;

	if (!e->modes)
		return cmd->default_modes ? cmd->default_modes : cmd->modes;
	if (!bad)
		return e->modes;
	for (size_t i = 0; i < 4; i++)
		if (bad & mode_order[i]) {
			fprintf(stderr, "tlbgen-bench %s: --mode %s has no meaning here%s%s; it runs "
				"in:", cmd->name, bench_mode_name(mode_order[i]),
				cmd->modes_why ? ": " : "", cmd->modes_why ? cmd->modes_why : "");
			break;
		}
	for (size_t i = 0; i < 4; i++)
		if (cmd->modes & mode_order[i])
			fprintf(stderr, " %s", bench_mode_name(mode_order[i]));
	fputc('\n', stderr);
	return 0;
}

/* Task counts when -t was not given: 1..nproc threaded, 8 stepped, and on a
 * model 1, a quarter, half and all but one of its CPUs. */
static void default_threads(struct bench_env *e, unsigned int mode)
{
	unsigned int v[4], n = 0;

	if (e->nthreads)
		return;
	if (mode & BENCH_M_THREADED) {
		long nproc = sysconf(_SC_NPROCESSORS_ONLN);

		for (long i = 1; i <= nproc && n < BENCH_MAX_THREADS; i++)
			e->threads[e->nthreads++] = (unsigned int)i;
		return;
	}
	if (mode == BENCH_M_STEPPED) {
		e->threads[e->nthreads++] = 8;
		return;
	}
	v[n++] = 1;
	v[n++] = bench_machine_cpus(&e->machine) / 4;
	v[n++] = bench_machine_cpus(&e->machine) / 2;
	v[n++] = bench_machine_cpus(&e->machine) - 1;
	for (unsigned int i = 0; i < n; i++)
		if (v[i] && (!e->nthreads || v[i] > e->threads[e->nthreads - 1]))
			e->threads[e->nthreads++] = v[i];
}

/* A model cannot run more tasks than it has CPUs: one task per CPU. */
int bench_check_threads(const struct bench_env *e)
{
	unsigned int cpus = bench_machine_cpus(&e->machine);

	for (unsigned int i = 0; i < e->nthreads; i++)
		if (e->threads[i] > cpus) {
			fprintf(stderr, "tlbgen-bench %s: --threads %u: machine %s has %u CPUs\n",
				e->cmd->name, e->threads[i], e->machine.name, cpus);
			return -EINVAL;
		}
	return 0;
}

int bench_run_ops(struct bench_env *e)
{
	static const char *const defs[] = { "v5.17", "v6.0", NULL };
	const struct bench *cmd = e->cmd;
	unsigned int modes = bench_modes(e), shapes = e->shapes ? e->shapes : BENCH_M_THREADS;
	struct bench_cal_file cal;
	int ret = 0;

	if (!modes || bench_env_policies(e, defs))
		return 2;
	if (!e->jobs)
		e->jobs = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	if ((e->given & BENCH_O_MACHINE) && !(modes & (BENCH_M_VIRTUAL | BENCH_M_THREADED))) {
		fprintf(stderr, "tlbgen-bench %s: --machine has no meaning in stepped mode "
			"(counts only)\n", cmd->name);
		return 2;
	}
	if ((e->given & BENCH_O_CALIBRATE) && modes != BENCH_M_VIRTUAL) {
		fprintf(stderr, "tlbgen-bench %s: --calibrate calibrates the virtual-time model: "
			"give --mode virtual alone\n", cmd->name);
		return 2;
	}
	for (size_t i = 0; i < 4; i++) {
		unsigned int m = mode_order[i];

		if (!(modes & m) || (m == BENCH_M_PROCESSES && (modes & BENCH_M_THREADS)))
			continue;
		if (m & BENCH_M_THREADED) {
			ret |= bench_threaded_run(e, cmd->name, cmd->ops, modes & BENCH_M_THREADED);
			continue;
		}
		if (m == BENCH_M_VIRTUAL &&
		    (bench_env_machine(e, "skylake-56") || (default_threads(e, m), 0) ||
		     bench_check_threads(e)))
			return 2;
		default_threads(e, m);
		if (m == BENCH_M_VIRTUAL && (e->given & BENCH_O_CALIBRATE) &&
		    bench_cal_file_load(e, cmd->name, e->machine_spec ? e->machine_spec
								      : "skylake-56", &cal))
			return 2;
		for (unsigned int s = BENCH_M_THREADS; s <= BENCH_M_PROCESSES; s <<= 1) {
			struct bench_vtable t = { .workload = cmd->name, .ops = cmd->ops,
						  .machine = e->machine_spec ? e->machine_spec
									     : "skylake-56",
						  .flushes_note = cmd->ops->flushes_note,
						  .cal = (e->given & BENCH_O_CALIBRATE) ? &cal : NULL };

			if (!(shapes & s))
				continue;
			if (m == BENCH_M_STEPPED)
				ret |= bench_stable_run(e, cmd->name, cmd->ops, s == BENCH_M_PROCESSES);
			else
				ret |= bench_vtable_run(e, &t, s == BENCH_M_PROCESSES);
		}
	}
	return ret;
}
