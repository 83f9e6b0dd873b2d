/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/commands.h - the registry of commands (bench/commands.c). */
#ifndef TLBGEN_BENCH_COMMANDS_H
#define TLBGEN_BENCH_COMMANDS_H

#include "bench.h"

/* Every registered command, NULL-terminated, in --help's order (built on
 * the first call, exit 1 when out of memory; not thread-safe before it
 * returns once). */
const struct bench *const *bench_command_list(void);
/* The command `name`, or NULL. */
const struct bench *bench_find(const char *name);

#endif
