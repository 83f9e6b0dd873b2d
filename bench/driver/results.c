// SPDX-License-Identifier: LGPL-2.1-or-later
/* bench/driver/results.c - the results directory of a run: meta.json, results.json. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "common.h"
#include "output.h"
#include "host.h"
#include "results.h"
#include "bench-version.h"
#include "bench-version.h"

#include "bench-version.h"

#include "bench-version.h"

static struct {
	bool active;
	char dir[PATH_MAX];	/* "" when none is kept */
	bool made_parent;	/* we created tlbgen-results/ */
	bool made_dir;		/* we created dir: only then removed when unused */
	char workload[64];
	json_t *cmdline;	/* array of strings */
	json_t *meta_params;	/* object */
	json_t *metrics;	/* array */
	json_t *results;	/* the results.json document */
	bool have_seed;
	uint64_t seed;
	struct {
		char profile[48], label[160];
	} pol[64];
	unsigned int npol;
	char started[32];
} run;

const char *bench_version(void)
{
	return "tlbgen-bench " TLBGEN_BENCH_VERSION " (git " TLBGEN_BENCH_GIT ")";
}

static void utc_stamp(char *buf, size_t len, const char *fmt)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, fmt, &tm);
}

static int make_dir(const char *path)
{
	if (mkdir(path, 0777) == 0)
		return 0;
	return -errno;
}

/* Where default result directories go: $TLBGEN_RESULTS_DIR (run.sh sets it
 * to the build directory's when called from inside the source tree), else
 * tlbgen-results under the current directory. */
static const char *results_root(void)
{
	const char *r = getenv("TLBGEN_RESULTS_DIR");

	return r && *r ? r : "tlbgen-results";
}

/* The default <root>/<workload>-<stamp>[-N], created. */
static int make_default_dir(void)
{
	char stamp[32];
	int err;

	utc_stamp(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ");
	/*
	 * Another run in the same directory that keeps nothing removes the
	 * root it made (bench_results_end()) and may do so between our two
	 * mkdir()s: the root is then made again, a few times at most.
	 */
	for (unsigned int tries = 0; tries < 8; tries++) {
		err = make_dir(results_root());
		if (!err)
			run.made_parent = true;
		else if (err != -EEXIST)
			goto fail;
		for (unsigned int n = 1; n < 1000; n++) {
			if (n == 1)
				snprintf(run.dir, sizeof(run.dir), "%s/%s-%s", results_root(),
					 run.workload, stamp);
			else
				snprintf(run.dir, sizeof(run.dir), "%s/%s-%s-%u", results_root(),
					 run.workload, stamp, n);
			err = make_dir(run.dir);
			if (err != -EEXIST)
				break;
		}
		if (err != -ENOENT)
			break;
	}
	if (!err) {
		run.made_dir = true;
		return 0;
	}
fail:
	fprintf(stderr, "tlbgen-bench: --out: cannot create %s/%s-%s: %s\n", results_root(),
		run.workload, stamp, strerror(-err));
	run.dir[0] = 0;
	return err;
}

/* mkdir -p: every missing parent too. */
static int make_dirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return make_dir(buf);
}

static bool dir_empty(const char *path);

/* --out DIR: created if missing, with its parents; else an empty, writable
 * directory. A directory that holds anything is refused: a second run there
 * would replace the first one's results.json and leave its CSV beside. */
static int make_given_dir(const char *dir)
{
	struct stat st;
	int err;

	if (strlen(dir) >= sizeof(run.dir) || !*dir) {
		fprintf(stderr, "tlbgen-bench: --out: '%s' is not a usable directory name\n", dir);
		return -EINVAL;
	}
	snprintf(run.dir, sizeof(run.dir), "%s", dir);
	err = make_dirs(dir);
	run.made_dir = !err;
	if (err == -EEXIST) {
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			err = -ENOTDIR;
		else if (access(dir, W_OK | X_OK))
			err = -errno;
		else if (!dir_empty(dir)) {
			fprintf(stderr, "tlbgen-bench: --out: %s is not empty; results are never "
				"written over another run's: give a new or empty directory\n", dir);
			run.dir[0] = 0;
			return -EEXIST;
		} else
			err = 0;
	}
	if (err) {
		fprintf(stderr, "tlbgen-bench: --out: %s: %s\n", dir, strerror(-err));
		run.dir[0] = 0;
	}
	return err;
}

int bench_results_begin(const char *workload, int argc, char **argv, const char *dir,
			bool dir_disabled)
{
	memset(&run, 0, sizeof(run));
	run.active = true;
	snprintf(run.workload, sizeof(run.workload), "%s", workload);
	utc_stamp(run.started, sizeof(run.started), "%Y-%m-%dT%H:%M:%SZ");
	run.cmdline = json_array();
	run.meta_params = json_object();
	run.metrics = json_array();
	for (int i = 0; i < argc; i++)
		json_array_append_new(run.cmdline, json_string(argv[i]));
	if (dir_disabled)
		return 0;
	return dir ? make_given_dir(dir) : make_default_dir();
}

const char *bench_results_dir(void)
{
	return run.dir[0] ? run.dir : NULL;
}

bool bench_results_path(char *buf, size_t len, const char *name)
{
	if (!run.dir[0]) {
		if (len)
			buf[0] = 0;
		return false;
	}
	return (size_t)snprintf(buf, len, "%s/%s", run.dir, name) < len;
}

void bench_meta_seed(uint64_t seed)
{
	run.have_seed = true;
	run.seed = seed;
}

void bench_meta_policy(const char *profile, const char *label)
{
	if (!run.active)
		return;
	for (unsigned int i = 0; i < run.npol; i++)
		if (!strcmp(run.pol[i].profile, profile) && !strcmp(run.pol[i].label, label))
			return;
	if (run.npol >= sizeof(run.pol) / sizeof(run.pol[0]))
		return;
	snprintf(run.pol[run.npol].profile, sizeof(run.pol[0].profile), "%s", profile);
	snprintf(run.pol[run.npol].label, sizeof(run.pol[0].label), "%s", label);
	run.npol++;
}

void bench_meta_param(const char *key, json_t *value)
{
	if (run.active && value)
		json_object_set_new(run.meta_params, key, value);
	else
		json_decref(value);
}

json_t *bench_meta_param_get(const char *key)
{
	return run.active ? json_object_get(run.meta_params, key) : NULL;
}

/* Metrics ------------------------------------------------------------------ */

/* JSON has no NaN or infinity: an undefined figure is null. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *metric_new(const char *name, const char *unit, const char *better,
			  json_t *params)
{
	json_t *m = json_object();

	json_object_set_new(m, "name", json_string(name));
	json_object_set_new(m, "unit", json_string(unit));
	json_object_set(m, "params", params ? params : json_object());
	if (better)
		json_object_set_new(m, "better", json_string(better));
	return m;
}

void bench_metric(const char *name, const char *unit, const char *better, json_t *params,
		  double value)
{
	json_t *m;

	if (!run.active)
		return;
	m = metric_new(name, unit, better, params);
	json_object_set_new(m, "statistic", json_string("value"));
	json_object_set_new(m, "value", num(value));
	json_array_append_new(run.metrics, m);
}

void bench_metric_samples(const char *name, const char *unit, const char *better,
			  json_t *params, const double *v, size_t n)
{
	json_t *m, *s;
	double mean, sd;

	if (!run.active)
		return;
	m = metric_new(name, unit, better, params);
	s = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(s, num(v[i]));
	bench_mean_sd(v, n, &mean, &sd);
	json_object_set_new(m, "statistic", json_string("mean"));
	json_object_set_new(m, "value", n ? num(mean) : json_null());
	json_object_set_new(m, "sd", n > 1 ? num(sd) : json_null());
	json_object_set_new(m, "samples", s);
	json_array_append_new(run.metrics, m);
}

void bench_metric_mean(const char *name, const char *unit, const char *better, json_t *params,
		       double mean, const double *v, size_t n)
{
	bench_metric_samples(name, unit, better, params, v, n);
	if (run.active && n)
		json_object_set_new(json_array_get(run.metrics, json_array_size(run.metrics) - 1),
				    "value", num(mean));
}

void bench_metric_round_samples(const char *name, const char *unit, const char *better,
				json_t *params, const double *v, size_t n,
				const unsigned int *round_sizes, size_t rounds)
{
	json_t *sizes = json_array();
	size_t sum = 0;

	bench_metric_samples(name, unit, better, params, v, n);
	if (!run.active || !sizes)
		goto out;
	for (size_t r = 0; r < rounds; r++) {
		sum += round_sizes[r];
		json_array_append_new(sizes, json_integer(round_sizes[r]));
	}
	if (rounds && sum == n)
		json_object_set(json_array_get(run.metrics, json_array_size(run.metrics) - 1),
				"round_sizes", sizes);
out:
	json_decref(sizes);
}

void bench_metric_stats(const char *prefix, json_t *params, const uint64_t *stats)
{
	char name[128];

	for (int i = 0; i < TLBGEN_STAT_NR; i++) {
		snprintf(name, sizeof(name), "%s%s", prefix, tlbgen_stat_name((enum tlbgen_stat)i));
		bench_metric(name, "events", NULL, params, (double)stats[i]);
	}
}

bool bench_metric_get(const char *name, json_t *params, double *out)
{
	size_t i;
	json_t *m;

	json_array_foreach(run.metrics, i, m) {
		json_t *v = json_object_get(m, "value");

		if (strcmp(json_string_value(json_object_get(m, "name")), name) ||
		    !json_equal(json_object_get(m, "params"), params))
			continue;
		*out = json_is_number(v) ? json_number_value(v) : NAN;
		return true;
	}
	*out = NAN;
	return false;
}

size_t bench_metric_samples_get(const char *name, json_t *params, double *out, size_t max)
{
	size_t i, n = 0;
	json_t *m, *v;

	json_array_foreach(run.metrics, i, m) {
		size_t k;

		if (strcmp(json_string_value(json_object_get(m, "name")), name) ||
		    !json_equal(json_object_get(m, "params"), params))
			continue;
		json_array_foreach(json_object_get(m, "samples"), k, v)
			if (n < max)
				out[n++] = json_is_number(v) ? json_number_value(v) : NAN;
		break;
	}
	return n;
}

json_t *bench_results_json(void)
{
	if (!run.results) {
		run.results = json_object();
		json_object_set_new(run.results, "schema", json_string(BENCH_RESULTS_SCHEMA));
		json_object_set_new(run.results, "schema_version",
				    json_integer(BENCH_RESULTS_SCHEMA_VERSION));
		json_object_set_new(run.results, "workload", json_string(run.workload));
		json_object_set(run.results, "metrics", run.metrics);
	}
	return run.results;
}

/* meta.json ------------------------------------------------------------------ */

static json_t *describe(const char *profile)
{
	TLBGEN_OPTS(tlbgen_system_opts, so, .nr_cpus = 2, .mode = TLBGEN_MODE_STEPPED,
		    .profile = profile);
	struct tlbgen_system *sys;
	json_t *d;
	int n;

	if (tlbgen_system__create(&so, &sys))
		return json_null();
	n = tlbgen_system__describe_policy(sys, NULL, 0);
	if (n < 0) {
		tlbgen_system__destroy(sys);
		return json_null();
	}
	char *buf = malloc((size_t)n + 1);

	if (buf && tlbgen_system__describe_policy(sys, buf, (size_t)n + 1) >= 0)
		d = json_string(buf);
	else
		d = json_null();
	free(buf);
	tlbgen_system__destroy(sys);
	return d;
}

static json_t *meta_json(int status)
{
	json_t *m = json_object(), *pols = json_array();

	json_object_set_new(m, "schema", json_string(BENCH_META_SCHEMA));
	json_object_set_new(m, "schema_version", json_integer(BENCH_RESULTS_SCHEMA_VERSION));
	json_object_set_new(m, "tool", json_pack("{s:s,s:s,s:s}", "name", "tlbgen-bench",
						 "version", TLBGEN_BENCH_VERSION, "git_describe",
						 TLBGEN_BENCH_GIT));
	json_object_set_new(m, "workload", json_string(run.workload));
	json_object_set(m, "command_line", run.cmdline);
	json_object_set_new(m, "date", json_string(run.started));
	json_object_set_new(m, "seed", run.have_seed ? json_integer((json_int_t)run.seed) :
				   json_null());
	json_object_set_new(m, "exit_status", json_integer(status));
	json_object_set_new(m, "host", bench_host_json());
	for (unsigned int i = 0; i < run.npol; i++)
		json_array_append_new(pols, json_pack("{s:s,s:s,s:o}", "label", run.pol[i].label,
						      "profile", run.pol[i].profile,
						      "choices", describe(run.pol[i].profile)));
	json_object_set_new(m, "policies", pols);
	json_object_set(m, "params", run.meta_params);
	return m;
}

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

int bench_results_end(int status)
{
	char path[PATH_MAX + 16];
	int err = 0;

	if (!run.active)
		return 0;
	if (run.dir[0] && json_array_size(run.metrics) == 0 && dir_empty(run.dir)) {
		/* --help, bad arguments, or a workload that failed before measuring. */
		if (run.made_dir)
			rmdir(run.dir);
		if (run.made_parent)
			rmdir(results_root());
	} else if (run.dir[0]) {
		json_t *meta = meta_json(status);

		snprintf(path, sizeof(path), "%s/meta.json", run.dir);
		err = bench_json_dump(meta, path);
		json_decref(meta);
		snprintf(path, sizeof(path), "%s/results.json", run.dir);
		if (!err)
			err = bench_json_dump(bench_results_json(), path);
		/* On stderr: stdout stays the same from run to run where the
		 * figures are deterministic; the directory's name is not. */
		if (!err)
			fprintf(stderr, "results: %s/\n", run.dir);
	}
	json_decref(run.results);
	json_decref(run.metrics);
	json_decref(run.meta_params);
	json_decref(run.cmdline);
	memset(&run, 0, sizeof(run));
	return err;
}
