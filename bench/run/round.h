/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/run/round.h - one timed round on real threads (bench/run/round.c). */
#ifndef TLBGEN_BENCH_ROUND_H
#define TLBGEN_BENCH_ROUND_H

#include "threaded.h"

/* One round: 0 or -errno; *r's samples are allocated (free them). */
int bench_round_run(const struct bench_round_opts *o, struct bench_round_result *r);
void bench_round_result_free(struct bench_round_result *r);

#endif
