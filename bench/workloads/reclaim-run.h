/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/workloads/reclaim-run.h - seed 002's MADV_PAGEOUT reclaim, run once per
 * variant (bench/workloads/reclaim-run.c): stepped for counts, threaded for time.
 */
#ifndef TLBGEN_BENCH_RECLAIM_RUN_H
#define TLBGEN_BENCH_RECLAIM_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <tlbgen/tlbgen.h>

/* What the K other threads of the mm do: sleep (idle, lazy in the mm) or run it. */
enum rc_state { RC_SLEEP, RC_BUSY };

struct rc_cfg {
	unsigned long pages;		/* paged out and refaulted per round */
	unsigned long work_ns;		/* threaded: the rest of reclaim per page */
	unsigned int rounds;
	bool dirty;			/* dirty PTEs: flushed before the IO */
	bool invlpgb, no_pcid;		/* the machine's features (--invlpgb, --no-pcid) */
	const char *profile;		/* the profile's name for tlbgen */
	const struct tlbgen_machine *machine;	/* virtual time's model */
};

struct rc_counts {
	uint64_t flushes, ipis, remote, tlbi, dsb;
	long violations;
	int err;
};

/* Stepped, the oracle on, IPIs delivered after each flush: the counts of
 * c->rounds rounds under batch_arch=arch, batched_unmap on or off (out->err
 * set when the run could not be made). */
void rc_stepped(const struct rc_cfg *c, int state, unsigned int k, const char *arch,
		bool batched, struct rc_counts *out);
/* Threaded, the oracle off: ns per paged-out page, or a negative value on error. */
double rc_threaded(const struct rc_cfg *c, int state, unsigned int k, const char *arch,
		   bool batched);
/* Virtual time on c->machine, the oracle on: the reclaimer's ns of virtual
 * time per paged-out page (negative on error), and the run's counts. */
double rc_virtual(const struct rc_cfg *c, int state, unsigned int k, const char *arch,
		  bool batched, struct rc_counts *out);

#endif
