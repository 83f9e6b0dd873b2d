/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/coherence.h - a MESI cacheline model fed by the trace hooks.
 *
 * The coherence account needs no PMU: every access the model makes to a
 * shared line (tlbgen/trace.h) is fed to a per-line MESI state machine that
 * counts cacheline transfers. This is the E->S / S->E traffic that Andy
 * Lutomirski and Nadav Amit argued about for aa44284960.
 *
 * Definitions (per line, per CPU: Modified, Exclusive, Shared, Invalid):
 *  - a *transfer* is an access that has to talk to another CPU's copy: a
 *    read miss while another CPU holds the line (E/M->S downgrade, or a copy
 *    from a sharer), a write to a Shared line (S->M upgrade, invalidating the
 *    others), or a write miss while another CPU holds it (ownership moves);
 *  - a *cold miss* is a miss no other cache can serve (memory);
 *  - hits, and the silent E->M on a write, cost nothing.
 * Each transfer is charged to the CPU that made the access and to the kind
 * (enum tlbgen_line) of that access.
 *
 * Usage: create with the system's CPU count, install the hooks returned by
 * tlbgen_coherence__trace_ops() with tlbgen_system__set_trace() (or call
 * tlbgen_coherence__line_access() from your own hooks), run, query.
 */
#ifndef TLBGEN_COHERENCE_H
#define TLBGEN_COHERENCE_H

#include <tlbgen/common.h>
#include <tlbgen/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tlbgen_coherence;

/* Counters of one (line kind, CPU) selection; all are event counts. */
struct tlbgen_coherence_counts {
	uint64_t accesses;	/* line_access events seen */
	uint64_t transfers;	/* downgrades + shared_reads + upgrades + ownership */
	uint64_t downgrades;	/* read miss, another CPU had it E or M: E/M -> S */
	uint64_t shared_reads;	/* read miss served by a sharer (line already S) */
	uint64_t upgrades;	/* write to a line held S: S -> M, others invalidated */
	uint64_t ownership;	/* write miss, another CPU had it: -> M here, I there */
	uint64_t invalidations;	/* copies invalidated in other CPUs' caches */
	uint64_t cold_misses;	/* miss with no copy anywhere (memory) */
};

/*
 * tlbgen_coherence__create - a model of `nr_cpus` (1 .. TLBGEN_MAX_CPUS)
 * private caches with every line Invalid everywhere.
 * Errors: -EINVAL (NULL out, nr_cpus out of range), -ENOMEM.
 * Thread-safe.
 */
TLBGEN_API int tlbgen_coherence__create(unsigned int nr_cpus, struct tlbgen_coherence **out);

/* tlbgen_coherence__destroy - free the model (NULL is a no-op). Not thread-safe
 * against other calls on the same model; remove its hooks first. */
TLBGEN_API void tlbgen_coherence__destroy(struct tlbgen_coherence *c);

/*
 * tlbgen_coherence__line_access - feed one access: `cpu` did `op` on line
 * `id` (any stable value per cacheline) of kind `line`. This has the
 * signature of struct tlbgen_trace_ops.line_access with ctx = the model.
 * Errors: -EINVAL (NULL, cpu >= nr_cpus, line or op out of range), -ENOMEM
 * (line table growth failed; nothing is counted).
 * Thread-safe (an internal lock orders concurrent accesses, as the
 * coherence protocol's serialisation point would).
 */
TLBGEN_API int tlbgen_coherence__line_access(struct tlbgen_coherence *c, unsigned int cpu,
					     enum tlbgen_line line, uintptr_t id,
					     enum tlbgen_access_op op);

/*
 * tlbgen_coherence__trace_ops - fill *ops (caller sets nothing; sz is set)
 * with hooks that feed this model: line_access only, ctx = c.
 * Errors: -EINVAL (NULL). Thread-safe.
 */
TLBGEN_API int tlbgen_coherence__trace_ops(struct tlbgen_coherence *c,
					   struct tlbgen_trace_ops *ops);

/*
 * tlbgen_coherence__counts - sum the counters of line kind `line`
 * (TLBGEN_LINE_NR: every kind) charged to `cpu` (-1: every CPU) into *out.
 * Errors: -EINVAL (NULL, line > TLBGEN_LINE_NR, cpu out of range).
 * Thread-safe.
 */
TLBGEN_API int tlbgen_coherence__counts(const struct tlbgen_coherence *c,
					enum tlbgen_line line, int cpu,
					struct tlbgen_coherence_counts *out);

/*
 * tlbgen_coherence__transfers - shorthand: transfers of kind `line`
 * (TLBGEN_LINE_NR: all) charged to `cpu` (-1: all), or 0 on bad arguments.
 * Thread-safe.
 */
TLBGEN_API uint64_t tlbgen_coherence__transfers(const struct tlbgen_coherence *c,
						enum tlbgen_line line, int cpu);

/*
 * tlbgen_coherence__nr_lines - distinct lines seen so far, or -EINVAL.
 * Thread-safe (a snapshot while accesses are being fed).
 */
TLBGEN_API long tlbgen_coherence__nr_lines(const struct tlbgen_coherence *c);

/*
 * tlbgen_coherence__reset - zero every counter. With `forget_lines` also
 * drop every line's state (all Invalid: cold caches); without it the caches
 * stay warm, so a measurement can start after a warm-up.
 * Errors: -EINVAL. Thread-safe.
 */
TLBGEN_API int tlbgen_coherence__reset(struct tlbgen_coherence *c, bool forget_lines);

/* tlbgen_line_name() is declared in tlbgen/trace.h, included above. */

#ifdef __cplusplus
}
#endif
#endif
