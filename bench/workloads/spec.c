// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/spec.c - `tlbgen-bench run FILE`: a user's microbenchmark
 * as a file, run like a built-in workload in every mode. The file names
 * one iteration's steps over a region of pages each task owns, with a
 * cursor that walks it (docs/workloads.md has the format):
 *
 *   name   my_flush2            # the workload's name in results.json
 *   region 256                  # pages per task, 1..65536
 *   map    anon                 # anon | file | file-shared: the faults' mapping
 *   start  spread               # 0 (every task at page 0) | spread (task i
 *                               # at i * region / tasks)
 *   step   user_work 1          # the steps of one op, in order
 *   step   write                # a write to the cursor's page
 *   step   madvise 1            # MADV_DONTNEED of 1 page from the cursor
 *   step   read
 *   step   next                 # the cursor's next page; past the end:
 *   wrap   munmap processes     # the wrap steps, the cursor back at 0
 *   wrap   mmap
 *
 * A write or read whose PTE allows it is a TLB access; else it faults
 * (tlbgen_wl__fault()), as the user's access would. Each step is a
 * tlbgen/workload.h call, so a file spelling a built-in's loop gives the
 * built-in's counts (tests/bench/spec.py checks tlb_flush2's).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "run/run.h"

#define SPEC_MAX_STEPS	32
#define SPEC_MAX_REGION	65536

enum spec_op { S_WRITE, S_READ, S_MADVISE, S_MPROTECT, S_MUNMAP, S_MMAP, S_USER_WORK, S_NEXT,
	       S_LAZY };
enum spec_free { FREE_NO, FREE_YES, FREE_PROCESSES };

struct spec_step {
	enum spec_op op;
	unsigned long n;		/* pages (madvise, mprotect), units (user_work) */
	unsigned int prot;		/* mprotect */
	enum spec_free free_tables;	/* munmap */
};

struct spec {
	char name[64];
	char path[256];
	unsigned long region;
	unsigned int map;
	bool spread;
	struct spec_step step[SPEC_MAX_STEPS], wrap[SPEC_MAX_STEPS];
	unsigned int nstep, nwrap;
};

/* One spec per run: the ops below read it. */
static struct spec spec;

/* A user access: a TLB access where the PTE allows it, else a fault. */
static int spec_touch(struct bench_task *t, bool write)
{
	unsigned long addr = bench_page_addr(t, t->page);
	int pte = tlbgen_pte__flags(t->mm, addr);
	int err;

	if (pte < 0)
		return pte;
	if (!(pte & TLBGEN_PTEF_NONE) && (!write || (pte & TLBGEN_PTEF_WRITE))) {
		err = tlbgen_access(t->sys, t->cpu, addr);
		return err == -EOPNOTSUPP || err >= 0 ? 0 : err;
	}
	return tlbgen_wl__fault(t->wl, t->cpu, t->mm, addr, spec.map,
				write ? TLBGEN_WL_FAULT_WRITE : 0);
}

static int spec_run_steps(struct bench_task *t, const struct spec_step *s, unsigned int n);

/* A range step past the task's region: the file is wrong; say so once. */
static int spec_past_end(const struct bench_task *t, const struct spec_step *s)
{
	static atomic_flag said = ATOMIC_FLAG_INIT;

	if (!atomic_flag_test_and_set(&said))
		fprintf(stderr, "tlbgen-bench run: %s: %s %lu at page %lu of task %u passes its "
			"region's end (region %lu)\n", spec.path,
			s->op == S_MADVISE ? "madvise" : "mprotect", s->n, t->page, t->cpu,
			spec.region);
	return -ERANGE;
}

static int spec_step(struct bench_task *t, const struct spec_step *s)
{
	unsigned long len = s->n << TLBGEN_PAGE_SHIFT;
	int err;

	switch (s->op) {
	case S_WRITE:
	case S_READ:
		return spec_touch(t, s->op == S_WRITE);
	case S_MADVISE:
	case S_MPROTECT:
		if (t->page + s->n > spec.region)
			return spec_past_end(t, s);
		if (s->op == S_MADVISE)
			return tlbgen_wl__madvise_dontneed(t->wl, t->cpu, t->mm,
							   bench_page_addr(t, t->page), len);
		return tlbgen_wl__mprotect(t->wl, t->cpu, t->mm, bench_page_addr(t, t->page), len,
					   s->prot, spec.map);
	case S_MUNMAP:
		return tlbgen_wl__munmap(t->wl, t->cpu, t->mm, bench_page_addr(t, 0),
					 spec.region << TLBGEN_PAGE_SHIFT,
					 s->free_tables == FREE_YES ||
					 (s->free_tables == FREE_PROCESSES && t->processes));
	case S_MMAP:
		/* 1: the run ended while it slept on mmap_lock; the op counts. */
		err = tlbgen_wl__mmap(t->wl, t->cpu, t->mm);
		return err > 0 ? 0 : err;
	case S_USER_WORK:
		return tlbgen_wl__user_work(t->wl, t->cpu, s->n);
	case S_LAZY:
		/* A kernel thread runs: enter_lazy_tlb(), then the task again. */
		err = tlbgen_wl__context_switch(t->wl, t->cpu, NULL);
		return err ? err : tlbgen_wl__context_switch(t->wl, t->cpu, t->mm);
	case S_NEXT:
		if (++t->page < spec.region)
			return 0;
		t->page = 0;
		return spec_run_steps(t, spec.wrap, spec.nwrap);
	}
	return -EINVAL;
}

static int spec_run_steps(struct bench_task *t, const struct spec_step *s, unsigned int n)
{
	int err = 0;

	for (unsigned int i = 0; !err && i < n; i++)
		err = spec_step(t, &s[i]);
	return err;
}

/* The task's region as a fresh mmap() leaves it, and its cursor. */
static int spec_start(struct bench_task *t)
{
	t->page = spec.spread ? (unsigned long)t->cpu * spec.region / t->tasks : 0;
	return bench_region_none(t, spec.region);
}

static int spec_op(struct bench_task *t)
{
	return spec_run_steps(t, spec.step, spec.nstep);
}

static struct bench_ops spec_ops = {
	.desc = "a spec file's steps",
	.start = spec_start, .op = spec_op, .flushes = true,
};

/* ---- the file ---------------------------------------------------------------------- */

struct spec_line {
	const char *path;
	unsigned int no;
	char *tok[4];
	unsigned int ntok;
};

static int spec_bad(const struct spec_line *l, const char *what)
{
	if (l->no)
		fprintf(stderr, "tlbgen-bench run: %s:%u: %s\n", l->path, l->no, what);
	else
		fprintf(stderr, "tlbgen-bench run: %s: %s\n", l->path, what);
	return -EINVAL;
}

static int spec_ulong(const struct spec_line *l, unsigned int i, unsigned long def,
		      unsigned long max, unsigned long *out)
{
	char *end;

	if (i >= l->ntok) {
		*out = def;
		return 0;
	}
	errno = 0;
	*out = strtoul(l->tok[i], &end, 10);
	if (errno || *end || l->tok[i][0] == '-' || *out < 1 || *out > max) {
		char m[160];

		snprintf(m, sizeof(m), "'%s': need a number in 1..%lu", l->tok[i], max);
		return spec_bad(l, m);
	}
	return 0;
}

static int spec_parse_step(const struct spec_line *l, struct spec_step *s)
{
	static const char *const ops[] = { "write", "read", "madvise", "mprotect", "munmap",
					   "mmap", "user_work", "next", "lazy" };
	const char *op = l->ntok > 1 ? l->tok[1] : "";
	unsigned int i, max_args[] = { 0, 0, 1, 2, 1, 0, 1, 0, 0 };

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && strcmp(op, ops[i]); i++)
		;
	if (i == sizeof(ops) / sizeof(ops[0]))
		return spec_bad(l, "unknown step (write, read, madvise [N], mprotect ro|rw [N], "
				"munmap yes|no|processes, mmap, user_work [N], next, lazy)");
	if (l->ntok - 2 > max_args[i])
		return spec_bad(l, "too many arguments");
	*s = (struct spec_step){ .op = (enum spec_op)i, .n = 1,
				 .free_tables = FREE_PROCESSES };
	if (s->op == S_MADVISE || s->op == S_USER_WORK)
		return spec_ulong(l, 2, 1, s->op == S_MADVISE ? SPEC_MAX_REGION : 1000000, &s->n);
	if (s->op == S_MPROTECT) {
		if (l->ntok < 3 || (strcmp(l->tok[2], "ro") && strcmp(l->tok[2], "rw")))
			return spec_bad(l, "mprotect: ro or rw");
		s->prot = TLBGEN_PROT_READ | (strcmp(l->tok[2], "rw") ? 0 : TLBGEN_PROT_WRITE);
		return spec_ulong(l, 3, 1, SPEC_MAX_REGION, &s->n);
	}
	if (s->op == S_MUNMAP && l->ntok > 2) {
		if (!strcmp(l->tok[2], "yes"))
			s->free_tables = FREE_YES;
		else if (!strcmp(l->tok[2], "no"))
			s->free_tables = FREE_NO;
		else if (strcmp(l->tok[2], "processes"))
			return spec_bad(l, "munmap: its page tables freed: yes, no or processes");
	}
	return 0;
}

/* One line's keyword into `s`. */
static int spec_parse_line(struct spec_line *l, struct spec *s)
{
	const char *k = l->tok[0];
	char *end;

	if (!strcmp(k, "step") || !strcmp(k, "wrap")) {
		bool w = k[0] == 'w';
		unsigned int *n = w ? &s->nwrap : &s->nstep;

		if (*n == SPEC_MAX_STEPS)
			return spec_bad(l, "more than 32 steps");
		return spec_parse_step(l, w ? &s->wrap[(*n)++] : &s->step[(*n)++]);
	}
	if (l->ntok != 2)
		return spec_bad(l, "a keyword and one value");
	if (!strcmp(k, "name")) {
		if (strlen(l->tok[1]) >= sizeof(s->name) || strspn(l->tok[1],
		    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") !=
		    strlen(l->tok[1]))
			return spec_bad(l, "name: letters, digits, '_', '-', '.', at most 63");
		strcpy(s->name, l->tok[1]);
	} else if (!strcmp(k, "region")) {
		return spec_ulong(l, 1, 0, SPEC_MAX_REGION, &s->region);
	} else if (!strcmp(k, "map")) {
		if (!strcmp(l->tok[1], "anon"))
			s->map = TLBGEN_MAP_ANON;
		else if (!strcmp(l->tok[1], "file"))
			s->map = TLBGEN_MAP_FILE;
		else if (!strcmp(l->tok[1], "file-shared"))
			s->map = TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED;
		else
			return spec_bad(l, "map: anon, file or file-shared");
	} else if (!strcmp(k, "start")) {
		if (strcmp(l->tok[1], "spread") && (strtoul(l->tok[1], &end, 10) || *end))
			return spec_bad(l, "start: 0 or spread");
		s->spread = !strcmp(l->tok[1], "spread");
	} else {
		return spec_bad(l, "unknown keyword (name, region, map, start, step, wrap)");
	}
	return 0;
}

/* Split a line at blanks, '#' to its end a comment: 0..4 tokens, or -1. */
static int spec_split(char *buf, struct spec_line *l)
{
	char *save = NULL, *t;

	buf[strcspn(buf, "#\n")] = '\0';
	l->ntok = 0;
	for (t = strtok_r(buf, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (l->ntok == 4)
			return -1;
		l->tok[l->ntok++] = t;
	}
	return 0;
}

/* FILE into *out, untouched on error: 0, or -errno after a message. */
static int spec_load(const char *path, struct spec *out)
{
	struct spec s = { .map = TLBGEN_MAP_ANON };
	struct spec_line l = { .path = path };
	char buf[512];
	FILE *f = fopen(path, "r");
	int err = 0;

	if (!f) {
		err = -errno;
		fprintf(stderr, "tlbgen-bench run: %s: %s\n", path, strerror(errno));
		return err;
	}
	while (!err && fgets(buf, sizeof(buf), f)) {
		l.no++;
		if (!strchr(buf, '\n') && !feof(f))
			err = spec_bad(&l, "line longer than 510 characters");
		else if (spec_split(buf, &l))
			err = spec_bad(&l, "more than 4 words");
		else if (l.ntok)
			err = spec_parse_line(&l, &s);
	}
	if (!err && ferror(f))
		err = spec_bad(&l, "read error");
	fclose(f);
	if (err)
		return err;
	l.no = 0;
	if (!s.region)
		return spec_bad(&l, "no 'region N' (pages per task)");
	if (!s.nstep)
		return spec_bad(&l, "no 'step': an op needs one at least");
	for (unsigned int i = 0; i < s.nwrap; i++)
		if (s.wrap[i].op == S_NEXT)
			return spec_bad(&l, "a wrap step cannot be 'next'");
	for (unsigned int i = 0; i < s.nstep; i++)
		if (s.step[i].op == S_NEXT)
			for (unsigned int j = 0; j < s.nstep; j++)
				if ((s.step[j].op == S_MADVISE || s.step[j].op == S_MPROTECT) &&
				    s.step[j].n > 1)
					return spec_bad(&l, "a step of more than 1 page beside 'next': "
							"the cursor reaches the region's last page, "
							"past which it does not fit");
	if (!s.name[0]) {
		const char *b = strrchr(path, '/');

		snprintf(s.name, sizeof(s.name), "%.*s", (int)strcspn(b ? b + 1 : path, "."),
			 b ? b + 1 : path);
	}
	snprintf(s.path, sizeof(s.path), "%s", path);
	*out = s;
	return 0;
}

static int spec_cmd_run(struct bench_env *e)
{
	static struct bench cmd;

	if (e->nargs != 1) {
		fprintf(stderr, "tlbgen-bench run: %s; usage: tlbgen-bench run FILE [options]\n",
			e->nargs ? "one spec file at a time" : "which spec file?");
		return 2;
	}
	if (spec_load(e->args[0], &spec))
		return 2;
	spec_ops.region_pages = spec.region;
	cmd = *e->cmd;
	cmd.name = spec.name;
	cmd.ops = &spec_ops;
	e->cmd = &cmd;
	return bench_run_ops(e);
}

const struct bench bench_spec = {
	.name = "run",
	.summary = "a microbenchmark of your own from a spec file (docs/workloads.md)",
	.help = "tlbgen-bench run FILE [options]: the steps of one op over each task's region\n"
		"(faults, madvise, mprotect, munmap, mmap, user work, a kernel thread's lazy\n"
		"turn, the cursor's next page),\n"
		"read from FILE and run like a built-in workload in every mode. The format is\n"
		"in docs/workloads.md; examples/tlb_flush2.spec spells will-it-scale's\n"
		"tlb_flush2 and gives its counts.\n",
	.shared = BENCH_O_WORKLOAD,
	.modes = BENCH_M_ALL,
	.default_modes = BENCH_M_THREADS,
	.ops = &spec_ops,	/* the options of op-based workloads; filled by run() */
	.run = spec_cmd_run,
	.args = true,
};
BENCH_COMMAND(bench_spec);
