/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/driver/opt.h - tlbgen-bench's one option parser: the shared options every
 * command may take (policies, mode, machine, threads, seeds, durations,
 * output), and the options a command adds, each as a row of a table.
 * Parsing, --help and the refusal of an option a command does not take all
 * come from the same rows.
 */
#ifndef TLBGEN_BENCH_OPT_H
#define TLBGEN_BENCH_OPT_H

#include "bench.h"


/*
 * Parse argv[1..argc) (argv[0] is the command's name) against the shared
 * options whose bit is in `shared` and the command's `own` table. Options
 * and arguments may mix; "--" ends the options. Positional arguments are
 * left, in order, in argv[1..*nargs]. A shared option the command does not
 * take is refused by name, with the options it does take. Returns 0, 1
 * after --help (printed to stdout), or -EINVAL after a message on stderr.
 * *given gets the BENCH_O_* bits of the shared options that were given.
 */
int bench_opt_parse(const struct bench *cmd, int argc, char **argv, int *nargs,
		    unsigned int *given);

/* --help of a command: its summary and help text, then its options. */
void bench_opt_usage(FILE *f, const struct bench *cmd);



#endif
