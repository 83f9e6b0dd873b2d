// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/presets/corpus.c - the validation corpus read and checked: every field of
 * every row before any row runs, so that a bad row fails by name.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "corpus.h"
#include "driver/env.h"

extern const struct bench_ops bench_tlb_flush1_ops, bench_tlb_flush2_ops, bench_tlb_flush3_ops,
	bench_page_fault1_ops, bench_page_fault2_ops, bench_page_fault3_ops, bench_mmap1_ops;

const struct corpus_workload corpus_workloads[] = {
	{ "tlb_flush1", CORPUS_WIS, "ops/s per task", &bench_tlb_flush1_ops },
	{ "tlb_flush2", CORPUS_WIS, "ops/s per task", &bench_tlb_flush2_ops },
	{ "tlb_flush3", CORPUS_WIS, "ops/s per task", &bench_tlb_flush3_ops },
	{ "page_fault1", CORPUS_WIS, "ops/s per task", &bench_page_fault1_ops },
	{ "page_fault2", CORPUS_WIS, "ops/s per task", &bench_page_fault2_ops },
	{ "page_fault3", CORPUS_WIS, "ops/s per task", &bench_page_fault3_ops },
	{ "mmap1", CORPUS_WIS, "ops/s per task", &bench_mmap1_ops },
	{ "swap_bench", CORPUS_SWAP, "pages/s", NULL },
	{ NULL, 0, NULL, NULL },
};

static const char *const arches[] = { "x86", "arm64", "riscv", "powerpc", NULL };

/* Where a message points: the row's id once known, else its index. */
struct where {
	const char *what;
	unsigned int i;
	const char *id;
};

static int bad(const struct where *w, const char *field, const char *why)
{
	if (w->id)
		fprintf(stderr, "tlbgen-bench: %s: row '%s': field '%s': %s\n", w->what, w->id,
			field, why);
	else
		fprintf(stderr, "tlbgen-bench: %s: row %u: field '%s': %s\n", w->what, w->i, field,
			why);
	return -EINVAL;
}

/* obj.a or obj.a.b ("a.b"): the member, or NULL. */
static json_t *member(json_t *obj, const char *path)
{
	char head[32];
	const char *dot = strchr(path, '.');

	if (!dot)
		return json_object_get(obj, path);
	if ((size_t)(dot - path) >= sizeof(head))
		return NULL;
	memcpy(head, path, (size_t)(dot - path));
	head[dot - path] = 0;
	return member(json_object_get(obj, head), dot + 1);
}

static int get_str(const struct where *w, json_t *row, const char *f, const char **out)
{
	json_t *v = member(row, f);

	if (!v)
		return bad(w, f, "missing");
	if (!json_is_string(v) || !*json_string_value(v))
		return bad(w, f, "not a non-empty string");
	*out = json_string_value(v);
	return 0;
}

static int get_num(const struct where *w, json_t *row, const char *f, double lo, double hi,
		   double *out)
{
	json_t *v = member(row, f);
	char why[96];

	if (!v)
		return bad(w, f, "missing");
	if (!json_is_number(v))
		return bad(w, f, "not a number");
	*out = json_number_value(v);
	if (!isfinite(*out) || *out < lo || *out > hi) {
		snprintf(why, sizeof(why), "%g is outside %g..%g", *out, lo, hi);
		return bad(w, f, why);
	}
	return 0;
}

static int get_uint(const struct where *w, json_t *row, const char *f, unsigned int lo,
		    unsigned int hi, unsigned int *out)
{
	double d;
	int err = get_num(w, row, f, lo, hi, &d);

	if (err)
		return err;
	if (d != floor(d))
		return bad(w, f, "not a whole number");
	*out = (unsigned int)d;
	return 0;
}

static int get_bool(const struct where *w, json_t *row, const char *f, bool *out)
{
	json_t *v = member(row, f);

	if (!v)
		return bad(w, f, "missing");
	if (!json_is_boolean(v))
		return bad(w, f, "not true or false");
	*out = json_is_true(v);
	return 0;
}

/* The model: buildable, and the topology and clock the source states. */
static int check_machine(const struct where *w, struct corpus_row *r)
{
	struct tlbgen_machine m;
	char why[160];

	if (tlbgen_machine_lookup(r->model, &m))
		return bad(w, "machine.model", "no such model or field (tlbgen-bench --machine)");
	if (m.sockets != r->sockets || m.cores_per_socket != r->cores_per_socket ||
	    (m.threads_per_core ? m.threads_per_core : 1) != r->threads_per_core ||
	    m.mhz != r->mhz) {
		snprintf(why, sizeof(why), "the model is %u x %u x %u at %u MHz, the source's "
			 "machine %u x %u x %u at %u MHz", m.sockets, m.cores_per_socket,
			 m.threads_per_core ? m.threads_per_core : 1, m.mhz, r->sockets,
			 r->cores_per_socket, r->threads_per_core, r->mhz);
		return bad(w, "machine.model", why);
	}
	if (r->tasks > bench_machine_cpus(&m))
		return bad(w, "tasks", "more tasks than the machine has CPUs");
	return 0;
}

/*
 * A policy spec: the same spec an earlier row gave is reused, so that a
 * corpus registers each distinct spec as a profile once (the registry
 * holds TLBGEN_MAX_USER_PROFILES).
 */
static int check_policy(const struct where *w, const char *field, const char *spec,
			struct bench_policy *p, const struct corpus_row *prev, unsigned int nprev)
{
	for (unsigned int i = 0; i < nprev; i++)
		for (unsigned int k = 0; k < 2; k++)
			if (!strcmp(k ? prev[i].patch : prev[i].base, spec)) {
				*p = prev[i].pol[k];
				return 0;
			}
	if (bench_policy_parse(spec, p))
		return bad(w, field, "not a profile or profile:choice=value spec (message above)");
	return 0;
}

static int get_workload(const struct where *w, json_t *row, struct corpus_row *r)
{
	const char *name, *shape;
	int err = get_str(w, row, "workload", &name) ?: get_str(w, row, "shape", &shape);

	if (err)
		return err;
	r->wl = NULL;
	for (const struct corpus_workload *k = corpus_workloads; k->name; k++)
		if (!strcmp(k->name, name))
			r->wl = k;
	if (!r->wl)
		return bad(w, "workload", "not a corpus workload (tlb_flush1/2/3, page_fault1/2/3, "
			   "mmap1, swap_bench)");
	if (strcmp(shape, "threads") && strcmp(shape, "processes"))
		return bad(w, "shape", "neither threads nor processes");
	r->processes = !strcmp(shape, "processes");
	if (member(row, "kernel.per_vma_lock"))
		return bad(w, "kernel.per_vma_lock", "no longer read: which faults take only the "
			   "VMA's lock is the profile's vma_lock_fault choice");
	if (r->wl->kind == CORPUS_SWAP) {
		err = get_uint(w, row, "pages", 1, 4096, &r->pages) ?:
		      get_uint(w, row, "lazy", 0, 255, &r->lazy);
		if (!err && (r->tasks != 1 || r->processes))
			err = bad(w, "tasks", "swap_bench is one task (threads shape)");
	}
	return err;
}

/* An optional member: absent leaves *out as it is. */
static int opt_bool(const struct where *w, json_t *row, const char *f, bool *out)
{
	return member(row, f) ? get_bool(w, row, f, out) : 0;
}

static int opt_str(const struct where *w, json_t *row, const char *f, const char **out)
{
	return member(row, f) ? get_str(w, row, f, out) : 0;
}

/* The optional "window": both lengths and the reason, or nothing. */
static int get_window(const struct where *w, json_t *row, struct corpus_row *r)
{
	if (!json_object_get(row, "window"))
		return 0;
	return get_uint(w, row, "window.warmup_ms", 0, 60000, &r->warm_ms) ?:
	       get_uint(w, row, "window.ms", 1, 60000, &r->ms) ?:
	       get_str(w, row, "window.why", &r->window_why);
}

static int get_entry(const struct where *w, json_t *row, struct corpus_row *r)
{
	if (!json_object_get(row, "entry"))
		return 0;
	r->has_entry = true;
	return get_str(w, row, "entry.model", &r->entry_model) ?:
	       get_num(w, row, "entry.rate", 0, 1e12, &r->entry_rate) ?:
	       get_num(w, row, "entry.change_pct", -100, 1e6, &r->entry_change_pct);
}

/* Row r from `row`; prev[0..nprev) are the rows already loaded. */
static int load_row(const struct where *w0, json_t *row, struct corpus_row *r,
		    const struct corpus_row *prev, unsigned int nprev)
{
	struct where w = *w0;
	const char *unit;
	int err;

	if (!json_is_object(row))
		return bad(&w, "(row)", "not an object");
	memset(r, 0, sizeof(*r));
	err = get_str(&w, row, "id", &r->id);
	if (err)
		return err;
	w.id = r->id;
	err = get_str(&w, row, "arch", &r->arch) ?:
	      get_str(&w, row, "machine.model", &r->model) ?:
	      get_str(&w, row, "machine.part", &r->part) ?:
	      get_uint(&w, row, "machine.sockets", 1, 64, &r->sockets) ?:
	      get_uint(&w, row, "machine.cores_per_socket", 1, 8192, &r->cores_per_socket) ?:
	      get_uint(&w, row, "machine.threads_per_core", 1, 8, &r->threads_per_core) ?:
	      get_uint(&w, row, "machine.mhz", 100, 10000, &r->mhz) ?:
	      get_uint(&w, row, "tasks", 1, BENCH_MAX_THREADS, &r->tasks) ?:
	      get_workload(&w, row, r) ?:
	      get_str(&w, row, "kernel.base", &r->base) ?:
	      get_str(&w, row, "kernel.patch", &r->patch) ?:
	      get_str(&w, row, "kernel.commit", &r->commit) ?:
	      get_num(&w, row, "measured.base_rate", 1e-9, 1e12, &r->base_rate) ?:
	      get_str(&w, row, "measured.unit", &unit) ?:
	      get_num(&w, row, "measured.change_pct", -100, 1e6, &r->change_pct) ?:
	      get_str(&w, row, "source", &r->source) ?:
	      opt_str(&w, row, "note", &r->note) ?:
	      opt_bool(&w, row, "machine.invlpgb", &r->invlpgb) ?:
	      get_window(&w, row, r) ?:
	      get_entry(&w, row, r);
	if (err)
		return err;
	for (unsigned int i = 0; arches[i]; i++)
		if (!strcmp(arches[i], r->arch))
			goto arch_ok;
	return bad(&w, "arch", "not x86, arm64, riscv or powerpc");
arch_ok:
	if (strcmp(unit, r->wl->unit))
		return bad(&w, "measured.unit", r->wl->kind == CORPUS_WIS
			   ? "must be \"ops/s per task\" for a will-it-scale workload"
			   : "must be \"pages/s\" for swap_bench");
	return check_machine(&w, r) ?:
	       check_policy(&w, "kernel.base", r->base, &r->pol[0], prev, nprev) ?:
	       check_policy(&w, "kernel.patch", r->patch, &r->pol[1], prev, nprev);
}

/* Check the rows of c->doc into c->rows: 0, or -EINVAL (message printed). */
static int load_rows(const char *what, struct corpus *c)
{
	json_t *rows = json_object_get(c->doc, "rows");
	int err = 0;

	if (!json_is_array(rows) || !json_array_size(rows)) {
		fprintf(stderr, "tlbgen-bench: %s: no \"rows\" array of rows\n", what);
		return -EINVAL;
	}
	c->nrows = (unsigned int)json_array_size(rows);
	c->rows = calloc(c->nrows, sizeof(*c->rows));
	if (!c->rows)
		return -ENOMEM;
	for (unsigned int i = 0; i < c->nrows && !err; i++) {
		struct where w = { .what = what, .i = i };

		err = load_row(&w, json_array_get(rows, i), &c->rows[i], c->rows, i);
		for (unsigned int j = 0; j < i && !err; j++)
			if (!strcmp(c->rows[j].id, c->rows[i].id)) {
				w.id = c->rows[i].id;
				err = bad(&w, "id", "used by an earlier row");
			}
	}
	return err;
}

/* doc (owned) checked into *c; on failure *c is left empty. */
static int load_doc(json_t *doc, const json_error_t *jerr, const char *what, struct corpus *c)
{
	int err;

	memset(c, 0, sizeof(*c));
	if (!doc) {
		/* jansson's line is -1 when the file could not be opened at all */
		if (jerr->line > 0)
			fprintf(stderr, "tlbgen-bench: %s: not JSON: %s (line %d)\n", what,
				jerr->text, jerr->line);
		else
			fprintf(stderr, "tlbgen-bench: %s: %s\n", what, jerr->text);
		return -EINVAL;
	}
	c->doc = doc;
	err = load_rows(what, c);
	if (err)
		corpus_free(c);
	return err;
}

int corpus_load(const char *text, const char *what, struct corpus *c)
{
	json_error_t jerr;

	return load_doc(json_loads(text, 0, &jerr), &jerr, what, c);
}

int corpus_load_file(const char *path, struct corpus *c)
{
	json_error_t jerr;

	return load_doc(json_load_file(path, 0, &jerr), &jerr, path, c);
}

void corpus_free(struct corpus *c)
{
	free(c->rows);
	json_decref(c->doc);
	memset(c, 0, sizeof(*c));
}
