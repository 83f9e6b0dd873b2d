// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/driver/calibrate-file.c - `--calibrate FILE`: a user's measured base rate
 * on their box, read and checked against the run it calibrates. The file
 * (docs/validation.md, "Calibrated, as a user with the box would"):
 *
 *   { "workload": "tlb_flush2", "machine": "skx-2s-80:cores_per_socket=26",
 *     "shape": "threads", "tasks": 104, "per_task_ops": 7276 }
 *
 * Every field must match the run: a calibration on another workload,
 * machine or task count would fix the wrong per-op term.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calibrate-file.h"

static int bad(const char *path, const char *field, const char *why)
{
	fprintf(stderr, "tlbgen-bench: --calibrate %s: %s: %s\n", path, field, why);
	return 2;
}

static const char *str(json_t *doc, const char *f)
{
	return json_string_value(json_object_get(doc, f));
}

static bool has_threads(const struct bench_env *e, unsigned int n)
{
	for (unsigned int i = 0; i < e->nthreads; i++)
		if (e->threads[i] == n)
			return true;
	return false;
}

static int check(const struct bench_env *e, json_t *doc, const char *path, const char *workload,
		 const char *machine, struct bench_cal_file *c)
{
	const char *w = str(doc, "workload"), *m = str(doc, "machine"), *s = str(doc, "shape");
	json_t *t = json_object_get(doc, "tasks"), *r = json_object_get(doc, "per_task_ops");
	unsigned int shapes = e->shapes ? e->shapes : BENCH_M_THREADS;
	char want[160];

	if (!w || strcmp(w, workload)) {
		snprintf(want, sizeof(want), "%s, where the run is %s", w ? w : "missing", workload);
		return bad(path, "workload", want);
	}
	if (!m || strcmp(m, machine) || strlen(m) >= sizeof(c->machine)) {
		snprintf(want, sizeof(want), "%.60s, where the run's machine is %.60s",
			 m ? m : "missing", machine);
		return bad(path, "machine", want);
	}
	if (!s || (strcmp(s, "threads") && strcmp(s, "processes")))
		return bad(path, "shape", "neither threads nor processes");
	c->processes = !strcmp(s, "processes");
	if (!(shapes & (c->processes ? BENCH_M_PROCESSES : BENCH_M_THREADS)))
		return bad(path, "shape", "not a shape the run has (--shape)");
	if (!json_is_integer(t) || json_integer_value(t) < 1 ||
	    !has_threads(e, (unsigned int)json_integer_value(t)))
		return bad(path, "tasks", "not one of the run's task counts (-t)");
	c->tasks = (unsigned int)json_integer_value(t);
	if (!json_is_number(r) || !(json_number_value(r) > 0) || !isfinite(json_number_value(r)))
		return bad(path, "per_task_ops", "not a positive number (ops/s per task)");
	c->per_task_ops = json_number_value(r);
	snprintf(c->machine, sizeof(c->machine), "%s", m);
	return 0;
}

int bench_cal_file_load(const struct bench_env *e, const char *workload, const char *machine,
			struct bench_cal_file *out)
{
	const char *path = e->calibrate_path;
	struct bench_cal_file c = { 0 };
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr);
	int err;

	if (!doc) {
		fprintf(stderr, "tlbgen-bench: --calibrate %s: %s%s\n", path, jerr.text,
			jerr.line > 0 ? "" : " (not a readable JSON file)");
		return 2;
	}
	err = json_is_object(doc) ? check(e, doc, path, workload, machine, &c)
				  : bad(path, "(top level)", "not a JSON object");
	json_decref(doc);
	if (!err)
		*out = c;
	return err;
}
