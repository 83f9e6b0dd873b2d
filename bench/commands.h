/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/commands.h - the registry of commands (bench/commands.c). */
#ifndef TLBGEN_BENCH_COMMANDS_H
#define TLBGEN_BENCH_COMMANDS_H

#include "bench.h"

/* Every command, NULL-terminated. */
extern const struct bench *const bench_commands[];
/* The command `name`, or NULL. */
const struct bench *bench_find(const char *name);

#endif
