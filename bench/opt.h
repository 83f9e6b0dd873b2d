/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/opt.h - tlbgen-bench's one option parser: the shared options every
 * command may take (policies, mode, machine, threads, seeds, durations,
 * output), and the options a command adds, each as a row of a table.
 * Parsing, --help and the refusal of an option a command does not take all
 * come from the same rows.
 */
#ifndef TLBGEN_BENCH_OPT_H
#define TLBGEN_BENCH_OPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum bench_opt_type {
	BOPT_FLAG = 0,		/* bool *dst = true */
	BOPT_UINT,		/* unsigned int *dst in [min, max] */
	BOPT_U64,		/* uint64_t *dst in [min, max] */
	BOPT_STR,		/* const char **dst = the argument */
	BOPT_FN,		/* fn(option, argument): 0 or -EINVAL (message printed) */
};

struct bench_opt {
	const char *name;	/* long name, without "--" */
	int key;		/* short option character, 0: none */
	const char *arg;	/* the argument's name in --help; NULL: a flag */
	const char *help;	/* one or more lines, without the leading blanks */
	enum bench_opt_type type;
	void *dst;
	unsigned long long min, max;
	int (*fn)(const char *opt, const char *arg);
	unsigned int shared;	/* a shared option: its BENCH_O_* bit; 0 for a command's own */
};

#define BENCH_OPT_END { .name = NULL }

/*
 * Parse argv[1..argc) (argv[0] is the command's name) against the shared
 * options whose bit is in `shared` and the command's `own` table. Options
 * and arguments may mix; "--" ends the options. Positional arguments are
 * left, in order, in argv[1..*nargs]. A shared option the command does not
 * take is refused by name, with the options it does take. Returns 0, 1
 * after --help (printed to stdout), or -EINVAL after a message on stderr.
 * *given gets the BENCH_O_* bits of the shared options that were given.
 */
struct bench;
int bench_opt_parse(const struct bench *cmd, int argc, char **argv, int *nargs,
		    unsigned int *given);

/* --help of a command: its summary and help text, then its options. */
void bench_opt_usage(FILE *f, const struct bench *cmd);

/* The table of shared options (bench/env.c), and the options of the
 * threads and processes modes that every op-based workload takes
 * (bench/threaded.c). */
extern const struct bench_opt bench_shared_opts[];
extern const struct bench_opt bench_threaded_opts[];

#endif
