/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/workloads/vtime-floor.h - the floor of tlbgen-bench vtime (bench/workloads/vtime-floor.c):
 * one virtual-time scheduling point written bare, with no library around
 * it. N coroutines (lib/base/coro.c, the switch the engine uses); at each
 * point the running one looks its line up in a directory (an open-addressed
 * table keyed by the line's address), takes ownership, advances its clock
 * by the transfer's cost and hands over to the earliest CPU of a binary
 * heap by clock, when that is another one.
 */
#ifndef TLBGEN_BENCH_VTIME_FLOOR_H
#define TLBGEN_BENCH_VTIME_FLOOR_H

#include <stdint.h>
#include <tlbgen/machine.h>

struct vfloor_result {
	uint64_t points;	/* scheduling points passed */
	uint64_t switches;	/* coroutine switches among them */
	double ns;		/* this thread's CPU time over them */
};

/* Run `points` bare scheduling points among `cpus` coroutines over `lines`
 * cachelines (at least `cpus`), the costs from `m` (hit, same_socket,
 * memory), the lines' choice seeded by `seed`. 0, -EINVAL or -ENOMEM. */
int vfloor_run(unsigned int cpus, unsigned int lines, uint64_t points,
	       const struct tlbgen_machine *m, uint64_t seed, struct vfloor_result *out);

#endif
