// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/tools/jobs.c - `tlbgen-bench jobs -- COMMAND...`: what -j buys. The
 * command runs with -j 1 and with -j N, in the order 1 N N 1 so that a
 * drift of the host's speed falls on both alike, each run's wall time
 * measured; the ratio is N's time over 1's. The runs' results.json are
 * compared too: -j must not change a figure (timing figures aside).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "driver/common.h"
#include "driver/env.h"
#include "driver/results.h"

static unsigned int with_jobs;

static const struct bench_opt jobs_opts[] = {
	{ .name = "with", .arg = "N", .type = BOPT_UINT, .dst = &with_jobs, .min = 2, .max = 1024,
	  .help = "the -j to compare with -j 1 (default: online CPUs, at least 2)" },
	BENCH_OPT_END,
};

/* Run this program with args + "-j J --json PATH --no-out"; its wall time. */
static int run_once(struct bench_env *e, unsigned int j, const char *json, double *secs)
{
	char **argv = calloc((size_t)e->nargs + 8, sizeof(*argv));
	char jb[16], exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uint64_t t0;
	int st, k = 0;
	pid_t pid;

	if (!argv || n <= 0) {
		free(argv);
		return -ENOMEM;
	}
	exe[n] = 0;
	snprintf(jb, sizeof(jb), "%u", j);
	argv[k++] = exe;
	argv[k++] = (char *)"--no-out";
	for (int i = 0; i < e->nargs; i++)
		argv[k++] = e->args[i];
	argv[k++] = (char *)"-j";
	argv[k++] = jb;
	argv[k++] = (char *)"--json";
	argv[k++] = (char *)json;
	t0 = bench_now_ns();
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		if (devnull >= 0)
			dup2(devnull, STDOUT_FILENO);
		execv(exe, argv);
		_exit(127);
	}
	free(argv);
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -errno;
	*secs = (bench_now_ns() - t0) / 1e9;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -ECHILD;
}

/* The metrics of a results.json but its timing ones, as one JSON text. */
static char *figures(const char *path)
{
	json_t *doc = json_load_file(path, 0, NULL), *m, *keep = json_array();
	size_t i;
	char *s;

	json_array_foreach(json_object_get(doc, "metrics"), i, m) {
		const char *name = json_string_value(json_object_get(m, "name"));

		if (name && strcmp(name, "host_seconds"))
			json_array_append(keep, m);
	}
	s = json_dumps(keep, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(keep);
	json_decref(doc);
	return s;
}

static int jobs_run(struct bench_env *e)
{
	unsigned int n = with_jobs ? with_jobs : (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	static const unsigned int order[4] = { 0, 1, 1, 0 };	/* -j 1, -j n, -j n, -j 1 */
	double t[2] = { 0, 0 }, s;
	char tmpl[] = "/tmp/tlbgen-jobs-XXXXXX", path[2][64];
	char *fig[2] = { NULL, NULL };
	json_t *pa;
	int err = 0;

	if (n < 2)
		n = 2;
	if (!e->nargs) {
		fprintf(stderr, "tlbgen-bench jobs: give the command to time: jobs -- COMMAND...\n");
		return 2;
	}
	if (!mkdtemp(tmpl))
		return 1;
	for (unsigned int k = 0; k < 2; k++)
		snprintf(path[k], sizeof(path[k]), "%s/j%u.json", tmpl, k ? n : 1);
	for (unsigned int r = 0; !err && r < 4; r++) {
		err = run_once(e, order[r] ? n : 1, path[order[r]], &s);
		t[order[r]] += s;
		fprintf(stderr, "jobs: -j %u: %.1f s\n", order[r] ? n : 1, s);
	}
	if (err) {
		fprintf(stderr, "tlbgen-bench jobs: the command failed (%s)\n", strerror(-err));
		return 1;
	}
	for (unsigned int k = 0; k < 2; k++) {
		fig[k] = figures(path[k]);
		unlink(path[k]);
	}
	rmdir(tmpl);
	pa = json_pack("{s:i}", "jobs", (int)n);
	bench_metric("wall_seconds_j1", "s (two runs)", "lower", pa, t[0]);
	bench_metric("wall_seconds_jn", "s (two runs)", "lower", pa, t[1]);
	bench_metric("wall_ratio", "-j N time / -j 1 time", "lower", pa, t[1] / t[0]);
	bench_metric("same_figures", "1 if every figure is the same", NULL, pa,
		     fig[0] && fig[1] && !strcmp(fig[0], fig[1]));
	bench_metric_get("wall_ratio", pa, &s);
	printf("jobs: -j 1 %.1f s, -j %u %.1f s (two runs each, order 1 %u %u 1): ratio %.2f\n",
	       t[0], n, t[1], n, n, s);
	bench_metric_get("same_figures", pa, &s);
	printf("jobs: results.json of -j 1 and -j %u: %s\n", n,
	       s ? "the same figures" : "DIFFERENT figures");
	json_decref(pa);
	free(fig[0]);
	free(fig[1]);
	return s ? 0 : 1;
}

const struct bench bench_jobs = {
	.name = "jobs",
	.summary = "time a command with -j 1 and -j N side by side; its figures must not change",
	.help = "Runs `tlbgen-bench COMMAND...` (after --) with -j 1 and -j N in the order\n"
		"1 N N 1, and prints the wall-time ratio N / 1 and whether the two\n"
		"results.json hold the same figures (timing aside). Exit 1 if they differ.\n"
		"Example: tlbgen-bench jobs -- seed000 --mode virtual\n",
	.shared = BENCH_O_JSON,
	.opts = jobs_opts,
	.run = jobs_run,
	.args = true,
};
BENCH_COMMAND(bench_jobs);
