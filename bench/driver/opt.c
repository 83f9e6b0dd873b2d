// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/driver/opt.c - the one option parser of tlbgen-bench: a getopt_long table
 * built from the shared options and a command's own rows, the values
 * checked by type, and --help printed from the same rows.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common.h"
#include "env.h"
#include "opt.h"
#include "threaded-opts.h"

#define MAX_OPTS	128

struct table {
	const struct bench_opt *row[MAX_OPTS];
	struct option lo[MAX_OPTS + 1];
	char shorts[2 * MAX_OPTS + 2];
	unsigned int n;
};

static int add(struct table *t, const struct bench_opt *o)
{
	if (t->n >= MAX_OPTS)
		return -E2BIG;
	t->row[t->n] = o;
	t->lo[t->n] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL,
				       (int)(256 + t->n) };
	if (o->key) {
		size_t l = strlen(t->shorts);

		t->shorts[l] = (char)o->key;
		if (o->arg)
			t->shorts[l + 1] = ':';
	}
	t->n++;
	return 0;
}

static bool own(const struct bench *cmd, const char *name)
{
	for (const struct bench_opt *o = cmd->opts; o && o->name; o++)
		if (!strcmp(o->name, name))
			return true;
	return false;
}

static int build(struct table *t, const struct bench *cmd)
{
	int err = 0;

	memset(t, 0, sizeof(*t));
	t->shorts[0] = ':';	/* missing arguments reported as ':' */
	/* A command's own option wins over a shared one of the same name it
	 * does not take (replay's --machine is words, not a machine model). */
	for (const struct bench_opt *o = cmd->opts; !err && o && o->name; o++)
		err = add(t, o);
	for (const struct bench_opt *o = bench_shared_opts; !err && o->name; o++)
		if (!own(cmd, o->name))
			err = add(t, o);
	for (const struct bench_opt *o = bench_threaded_opts; !err && cmd->ops && o->name; o++)
		err = add(t, o);
	return err;
}

static int set(const struct bench_opt *o, const char *opt, const char *arg)
{
	unsigned long long v;
	int err;

	switch (o->type) {
	case BOPT_FLAG:
		*(bool *)o->dst = true;
		return 0;
	case BOPT_STR:
		*(const char **)o->dst = arg;
		return 0;
	case BOPT_FN:
		return o->fn(opt, arg);
	case BOPT_UINT:
	case BOPT_U64:
		err = bench_parse_ull(opt, arg, o->min, o->max, &v);
		if (err)
			return err;
		if (o->type == BOPT_UINT)
			*(unsigned int *)o->dst = (unsigned int)v;
		else
			*(uint64_t *)o->dst = v;
		return 0;
	}
	return -EINVAL;
}

/* The options a command takes, on one line, for a refusal. */
static void list_opts(FILE *f, const struct bench *cmd)
{
	fprintf(f, "tlbgen-bench %s takes:", cmd->name);
	for (const struct bench_opt *o = bench_shared_opts; o->name; o++)
		if ((o->shared & cmd->shared) && o->help && !own(cmd, o->name))
			fprintf(f, " --%s", o->name);
	for (const struct bench_opt *o = cmd->opts; o && o->name; o++)
		if (o->help)
			fprintf(f, " --%s", o->name);
	for (const struct bench_opt *o = bench_threaded_opts; cmd->ops && o->name; o++)
		fprintf(f, " --%s", o->name);
	fprintf(f, " (and --out, --no-out, --plugin, --help)\n");
}

int bench_opt_parse(const struct bench *cmd, int argc, char **argv, int *nargs,
		    unsigned int *given)
{
	struct table *t = malloc(sizeof(*t));
	int opt, err, pos = 0;
	char name[80];

	if (!t)
		return -ENOMEM;
	err = build(t, cmd);
	*given = 0;
	optind = 1;
	opterr = 0;
	while (!err && (opt = getopt_long(argc, argv, t->shorts, t->lo, NULL)) != -1) {
		const struct bench_opt *o = NULL;

		if (opt == 1) {	/* not reached: '+'/'-' are not in shorts */
			continue;
		} else if (opt == '?' || opt == ':') {
			const char *bad = argv[optind - 1];

			if (optopt && optopt < 256)
				fprintf(stderr, "tlbgen-bench %s: -%c %s\n", cmd->name, optopt,
					opt == ':' ? "needs an argument" : "is not an option");
			else
				fprintf(stderr, "tlbgen-bench %s: %s: %s\n", cmd->name, bad,
					opt == ':' ? "needs an argument" : "is not an option");
			list_opts(stderr, cmd);
			err = -EINVAL;
			break;
		} else if (opt >= 256) {
			o = t->row[opt - 256];
		} else {
			/* A command's own -X before a shared -X it does not take. */
			for (unsigned int i = 0; i < t->n; i++)
				if (t->row[i]->key == opt &&
				    (!o || (o->shared && !(o->shared & cmd->shared))))
					o = t->row[i];
		}
		if (!o) {
			err = -EINVAL;
			break;
		}
		if (!strcmp(o->name, "help")) {
			bench_opt_usage(stdout, cmd);
			free(t);
			return 1;
		}
		snprintf(name, sizeof(name), "--%s", o->name);
		if (o->shared && !(o->shared & cmd->shared)) {
			fprintf(stderr, "tlbgen-bench %s: takes no %s\n", cmd->name, name);
			list_opts(stderr, cmd);
			err = -EINVAL;
			break;
		}
		*given |= o->shared;
		err = set(o, name, optarg);
	}
	/* getopt_long() moved the positional arguments to the end. */
	for (int i = optind; !err && i < argc; i++)
		argv[++pos] = argv[i];
	if (!err && pos && !cmd->args) {
		fprintf(stderr, "tlbgen-bench %s: unexpected argument '%s'\n", cmd->name, argv[1]);
		err = -EINVAL;
	}
	*nargs = pos;
	free(t);
	return err;
}

static void usage_row(FILE *f, const struct bench_opt *o)
{
	char head[64];
	const char *h = o->help, *nl;

	if (o->key)
		snprintf(head, sizeof(head), "-%c, --%s%s%s", o->key, o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
	else
		snprintf(head, sizeof(head), "    --%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
	fprintf(f, "  %-24s", head);
	if (strlen(head) > 24)
		fprintf(f, "\n  %-24s", "");
	for (bool first = true; h && *h; first = false) {
		nl = strchr(h, '\n');
		if (!first)
			fprintf(f, "  %-24s", "");
		fprintf(f, " %.*s\n", (int)(nl ? nl - h : (long)strlen(h)), h);
		h = nl ? nl + 1 : NULL;
	}
	if (o->help_data)
		o->help_data(f, "                           ");
}

void bench_opt_usage(FILE *f, const struct bench *cmd)
{
	fprintf(f, "usage: tlbgen-bench %s [options]%s\n  %s\n", cmd->name,
		cmd->args ? " ARG..." : "", cmd->summary);
	if (cmd->help)
		fprintf(f, "\n%s", cmd->help);
	if (cmd->opts && cmd->opts->name) {
		fprintf(f, "\noptions of %s:\n", cmd->name);
		for (const struct bench_opt *o = cmd->opts; o->name; o++)
			if (o->help)
				usage_row(f, o);
	}
	if (cmd->ops && (cmd->modes & BENCH_M_THREADED)) {
		fprintf(f, "\noptions of the threads and processes modes:\n");
		for (const struct bench_opt *o = bench_threaded_opts; o->name; o++)
			usage_row(f, o);
	}
	for (const struct bench_opt *o = bench_shared_opts, *first = NULL; o->name; o++) {
		if (!(o->shared & cmd->shared) || !o->help)
			continue;
		if (!first)
			fprintf(f, "\nshared options it takes:\n");
		first = o;
		usage_row(f, o);
	}
	fprintf(f, "\nglobal options: --out DIR, --no-out, --plugin PATH, --help "
		"(tlbgen-bench --help)\n");
}
