/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/driver/env.h - the shared options of every command (bench/driver/env.c): their
 * table, the run's environment, and the resolution of policies and
 * machines.
 */
#ifndef TLBGEN_BENCH_ENV_H
#define TLBGEN_BENCH_ENV_H

#include "bench.h"

/* The table of shared options. */
extern const struct bench_opt bench_shared_opts[];

/* A policy spec into *out: 0, or -errno after a message naming what was
 * wrong: the unknown profile (and the profiles), or the choice and its
 * valid values. */
int bench_policy_parse(const char *spec, struct bench_policy *out);
/* The run's environment (one per process). */
struct bench_env *bench_env(void);
/* Resolve --machine (or `def` when none was given): 0, or -EINVAL after a
 * message naming the argument. */
int bench_env_machine(struct bench_env *e, const char *def);
/* Resolve the -p specs given, or `defs` (NULL-terminated) when none was:
 * 0 or -EINVAL (message printed). */
int bench_env_policies(struct bench_env *e, const char *const *defs);
/* The name of one BENCH_M_* mode ("?" for anything else). */
const char *bench_mode_name(unsigned int mode);
/* Record in meta.json the machine features every system of the run was made
 * with (invlpgb, no_pcid) and, where the run has virtual time in `modes`,
 * the machine model's full description. */
void bench_env_meta_machine(const struct bench_env *e, unsigned int modes);

#endif
