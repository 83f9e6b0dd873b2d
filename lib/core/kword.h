/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/kword.h - kernel words outside the flush policy that the
 * workload layer's kernel paths share between CPUs: a lock's count, a
 * counter, and the rw_semaphore built on one (mm->mmap_lock).
 */
#ifndef TLBGEN_CORE_KWORD_H
#define TLBGEN_CORE_KWORD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../base/compiler.h"

/*
 * A word of kernel state that the flush policy does not read but a
 * workload's kernel paths RMW from every CPU: a lock's count, a counter.
 * Its own line. In virtual time an access costs as a transfer from the
 * CPU that wrote it last, and one in flight holds the line.
 */
struct tlbgen_kword {
	atomic_long val;
	int last;		/* virtual: the CPU that wrote it last, -1: none yet */
	uint64_t busy_until;	/* virtual: when the transfer in flight ends */
} __cacheline_aligned;

/* How a CPU touches a kernel word's line (the exec hook's `op`). */
enum tlbgen_kword_op {
	TLBGEN_KWORD_READ,	/* atomic_long_read() */
	TLBGEN_KWORD_RMW,	/* a locked RMW: the line owned, a full barrier */
	TLBGEN_KWORD_PREFETCHW,	/* prefetchw(): the line fetched for ownership,
				 * the value untouched, no barrier */
	TLBGEN_KWORD_STORE,	/* a plain (release) store: the line owned, no
				 * RMW, no barrier; the value is the caller's */
};

/*
 * A rw_semaphore (kernel/locking/rwsem.c): the count word, and the wait
 * queue, FIFO, that wait_lock protects (here: a spinlock in threaded mode;
 * the stepped and virtual modes run one CPU at a time).
 */
struct tlbgen_rwsem {
	struct tlbgen_kword count;
	atomic_flag wait_lock;
	unsigned int readers;		/* read holders */
	int writer;			/* the CPU holding it for write, or -1 */
	unsigned int *q;		/* waiting CPUs, a ring of nr_cpus */
	bool *q_write;			/* per ring slot: waits for write */
	unsigned int head, n;
	atomic_bool *granted;		/* per CPU: the lock was handed to it */
};

#endif
