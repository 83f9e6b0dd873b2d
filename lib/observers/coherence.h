/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/observers/coherence.h - the MESI model as the virtual-time mode uses
 * it: one access, and what it cost in coherence terms.
 */
#ifndef TLBGEN_OBSERVERS_COHERENCE_H
#define TLBGEN_OBSERVERS_COHERENCE_H

#include <stdbool.h>
#include <stdint.h>

#include <tlbgen/coherence.h>

enum tlbgen_xfer_kind {
	TLBGEN_XFER_HIT = 0,		/* in this cache in a sufficient state */
	TLBGEN_XFER_MEMORY,		/* nowhere: from memory */
	TLBGEN_XFER_FROM_OWNER,		/* E/M in another cache */
	TLBGEN_XFER_FROM_SHARED,	/* S elsewhere, not here (a write invalidates them) */
	TLBGEN_XFER_UPGRADE,		/* S here and elsewhere, written: invalidate the others */
};

struct tlbgen_coherence_xfer {
	enum tlbgen_xfer_kind kind;
	bool near;			/* the data (or the farthest ack) is on our socket */
	unsigned int invalidated;	/* other copies invalidated */
	uint64_t *busy_until;		/* the line's: until when a transfer occupies it */
};

/* One access, counted as tlbgen_coherence__line_access() counts it; the
 * caller serialises (no lock taken). 0 or -ENOMEM. */
int tlbgen__coherence_access(struct tlbgen_coherence *c, unsigned int cpu,
			     enum tlbgen_line kind, uintptr_t id, enum tlbgen_access_op op,
			     struct tlbgen_coherence_xfer *x);
/* socket[cpu] for every CPU (kept, not copied), for `near`; NULL: one socket. */
void tlbgen__coherence_set_sockets(struct tlbgen_coherence *c, const uint16_t *socket);
/* Count nothing per CPU and line kind (the virtual mode keeps its own
 * figures): nr_cpus * TLBGEN_LINE_NR counters, 4 MiB at 8192 CPUs, freed;
 * tlbgen_coherence__counts() then reads zeros. */
void tlbgen__coherence_uncounted(struct tlbgen_coherence *c);

#endif
