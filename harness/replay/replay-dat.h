/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harness/replay/replay-dat.h - the structure of a trace-cmd trace.dat (file
 * versions 6 and 7), checked from its bytes before libtracecmd reads it:
 * the header, every section and option within the file, each CPU's data
 * within the file, and each CPU's ring-buffer pages walked (events counted,
 * timestamps in order, the kernel's missed-events flag).
 */
#ifndef TLBGEN_HARNESS_REPLAY_DAT_H
#define TLBGEN_HARNESS_REPLAY_DAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most CPUs a trace.dat may name (each CPU's pages are walked). */
#define REPLAY_DAT_MAX_CPUS 1024U

struct replay_dat_cpu {
	uint64_t off, size;		/* its data in the file */
	uint64_t bytes;			/* its pages, uncompressed */
	uint64_t events;		/* data events its pages hold */
	uint64_t missed_pages;		/* pages the kernel flagged RB_MISSED_EVENTS */
	uint64_t first_ts, last_ts;	/* of its events (0, 0: none) */
};

struct replay_dat {
	unsigned int version;		/* 6 or 7 */
	unsigned int long_size;		/* 4 or 8 */
	unsigned int page_size;
	unsigned int nr_cpus;
	bool zstd;			/* the CPUs' data is zstd-compressed */
	char uname[256];		/* "Linux host 6.18.44 x86_64" */
	struct replay_dat_cpu *cpu;	/* [nr_cpus], malloc()ed */
};

/*
 * replay__dat_check - check the LEN bytes of a trace.dat at B and fill *D
 * (free with replay__dat_free(); on error D holds nothing to free).
 * Returns 0, or -EINVAL with the reason in err: "truncated at byte N: ...",
 * a section or option that runs past its end, a CPU's data outside the
 * file, a page whose events run past its data, "CPU k timestamps go
 * backwards at event i". Reads nothing outside B. Thread-safe.
 */
int replay__dat_check(const unsigned char *b, size_t len, struct replay_dat *d, char *err,
		      size_t errlen);
void replay__dat_free(struct replay_dat *d);

#endif
