// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/tlbgen-bench.c - the driver: global options (wherever they stand),
 * the command, its options through the one parser, its results directory,
 * and the run.
 * Usage: tlbgen-bench [global options] [COMMAND [options]]   (tlbgen-bench --help)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "commands.h"
#include "driver/env.h"
#include "driver/opt.h"
#include "driver/output.h"
#include "driver/results.h"
#include "run/run.h"

/* bench/driver/plugin.c: dlopen() PATH, which registers user policies. */
int bench_plugin_load(const char *path);
void bench_plugin_help(FILE *f);

static void usage(FILE *f)
{
	fprintf(f, "usage: tlbgen-bench [--plugin PATH]... [--out DIR | --no-out] [COMMAND [options]]\n"
		"       tlbgen-bench --version | --help\n\ncommands:\n");
	for (const struct bench *const *c = bench_command_list(); *c; c++)
		fprintf(f, "  %-12s %s\n", (*c)->name, (*c)->summary);
	fprintf(f,
"\nglobal options, before or after the command:\n"
"  --plugin PATH  load user policies from a shared object (repeatable)\n"
"  --out DIR      keep the run's results in DIR: a new directory, or an\n"
"                 empty one (meta.json, results.json, plots, CSV); a\n"
"                 directory that holds anything is refused. Default:\n"
"                 tlbgen-results/COMMAND-YYYYMMDDTHHMMSSZ/ here\n"
"  --no-out       keep no results directory\n"
"  --version      print the version and exit\n"
"With no command, seed000 runs (with any options given).\n"
"'tlbgen-bench COMMAND --help' documents each command.\n"
"Exit: 0 ok, 1 failed run, 2 bad arguments.\n");
}

struct globals {
	const char *out;
	bool no_out;
};

/* The index of the command in argv: the first word that is no option and
 * no global option's value (0: none). */
static int command_index(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--plugin") || !strcmp(argv[i], "--out"))
			i++;
		else if (argv[i][0] != '-')
			return i;
	}
	return 0;
}

/* Take --plugin, --out and --no-out out of argv (up to "--"), loading the
 * plugins: before any policy is resolved, wherever they stood. A tool's
 * own --out (merge's) is left to it. */
static int take_globals(int *argc, char **argv, struct globals *g)
{
	int i = 1, ci = command_index(*argc, argv);
	const struct bench *cmd = ci ? bench_find(argv[ci]) : NULL;

	while (i < *argc && strcmp(argv[i], "--")) {
		const char *a = argv[i], *val = NULL;
		int used = 0;

		if (cmd && cmd->tool && i > ci && strncmp(a, "--plugin", 8)) {
			i++;
			continue;
		}

		if (!strcmp(a, "--plugin") || !strcmp(a, "--out")) {
			if (i + 1 >= *argc) {
				fprintf(stderr, "tlbgen-bench: %s needs %s\n", a,
					a[2] == 'p' ? "a path" : "a directory");
				return -EINVAL;
			}
			val = argv[i + 1];
			used = 2;
		} else if (!strncmp(a, "--plugin=", 9) || !strncmp(a, "--out=", 6)) {
			val = strchr(a, '=') + 1;
			used = 1;
		} else if (!strcmp(a, "--no-out")) {
			g->no_out = true;
			used = 1;
		}
		if (!used) {
			i++;
			continue;
		}
		if (!strncmp(a, "--plugin", 8) && bench_plugin_load(val))
			return -EINVAL;
		if (!strncmp(a, "--out", 5))
			g->out = val;
		memmove(&argv[i], &argv[i + used], (size_t)(*argc - i - used + 1) * sizeof(*argv));
		*argc -= used;
		if (i < ci)
			ci -= used;
	}
	if (g->out && g->no_out) {
		fprintf(stderr, "tlbgen-bench: --out and --no-out exclude each other\n");
		return -EINVAL;
	}
	return 0;
}

/* --json -: the JSON alone on stdout, the text report on stderr. */
static FILE *json_to_stdout(void)
{
	int fd = dup(STDOUT_FILENO);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f)
		return NULL;
	fflush(stdout);
	dup2(STDERR_FILENO, STDOUT_FILENO);
	bench_set_stdout(f);
	return f;
}

static int run_command(const struct bench *cmd, int argc, char **argv, int full_argc,
		       char **full_argv, const struct globals *g)
{
	struct bench_env *e = bench_env();
	FILE *json_out = NULL;
	int ret, err;

	if (!cmd->tool && bench_results_begin(cmd->name, full_argc, full_argv, g->out, g->no_out))
		return 2;
	e->cmd = cmd;
	e->commands = bench_command_list();
	ret = bench_opt_parse(cmd, argc, argv, &e->nargs, &e->given);
	e->args = argv + 1;
	if (!ret && e->json && !strcmp(e->json, "-") && !(json_out = json_to_stdout()))
		ret = -EIO;
	if (!ret && cmd->prepare)
		ret = cmd->prepare(e);
	if (!ret)
		ret = cmd->run ? cmd->run(e) : bench_run_ops(e);
	else
		ret = ret > 0 ? 0 : 2;	/* --help, or a bad argument */
	fflush(stdout);
	if (ret != 2 && e->json)
		ret |= bench_json_dump(bench_results_json(), e->json) ? 1 : 0;
	err = cmd->tool ? 0 : bench_results_end(ret);
	if (json_out)
		fclose(json_out);
	return err && !ret ? 1 : ret;
}

int main(int argc, char **argv)
{
	/* argv as given, for meta.json: the option parsers reorder argv. */
	char **full_argv = malloc(((size_t)argc + 1) * sizeof(*argv));
	const struct bench *cmd;
	struct globals g = { 0 };
	int full_argc = argc, ret;

	if (!full_argv)
		return 1;
	memcpy(full_argv, argv, ((size_t)argc + 1) * sizeof(*argv));
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf("%s\n", bench_version());
		ret = 0;
	} else if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		ret = 0;
	} else if (take_globals(&argc, argv, &g)) {
		ret = 2;
	} else if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		/* --plugin PATH --help: the tool's help and what the plugins brought. */
		usage(stdout);
		bench_plugin_help(stdout);
		ret = 0;
	} else {
		/* No command: the seed-000 reproduction, with any options given. */
		if (argc < 2 || argv[1][0] == '-') {
			cmd = bench_find("seed000");
			argv[0] = (char *)"seed000";
			ret = run_command(cmd, argc, argv, full_argc, full_argv, &g);
		} else if ((cmd = bench_find(argv[1]))) {
			ret = run_command(cmd, argc - 1, argv + 1, full_argc, full_argv, &g);
		} else {
			fprintf(stderr, "tlbgen-bench: unknown command '%s'; the commands:", argv[1]);
			for (const struct bench *const *c = bench_command_list(); *c; c++)
				fprintf(stderr, " %s", (*c)->name);
			fputc('\n', stderr);
			ret = 2;
		}
	}
	free(full_argv);
	return ret;
}
