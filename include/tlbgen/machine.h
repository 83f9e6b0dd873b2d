/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/machine.h - machine models for the virtual-time mode: topology and
 * what each coherence transition and each kernel event costs, in cycles.
 *
 * A model is data, like a profile: a built-in by name ("skylake-56",
 * "skylake-56-pti", "skx-2s-80"), the host measured at run time ("host"),
 * or either with fields replaced: "skylake-56:ipi_latency=1500,sockets=1".
 * The built-ins' numbers and their sources are in docs/machines.md.
 */
#ifndef TLBGEN_MACHINE_H
#define TLBGEN_MACHINE_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tlbgen_machine {
	size_t sz;			/* sizeof(struct tlbgen_machine) */
	char name[32];
	unsigned int sockets;		/* emulated CPU i sits on socket i / cores_per_socket */
	unsigned int cores_per_socket;	/* (modulo sockets): see threads_per_core */
	unsigned int mhz;		/* cycles -> time */
	/* Coherence: one access, by what the MESI directory had to do. */
	uint32_t hit;			/* line here in a sufficient state */
	uint32_t same_socket;		/* from another cache on this socket */
	uint32_t cross_socket;		/* from another socket */
	uint32_t memory;		/* from DRAM */
	uint32_t rmw;			/* extra for a locked RMW */
	uint32_t inval_sharer;		/* extra per other copy invalidated */
	/* Events. */
	uint32_t ipi_send;		/* the sender's ICR write */
	uint32_t ipi_latency;		/* send to arrival at the target */
	uint32_t irq_entry;		/* taking an interrupt */
	uint32_t irq_exit;		/* returning from it */
	uint32_t invlpg;		/* one single-page invalidation */
	uint32_t cr3_write;		/* a full flush of one PCID */
	uint32_t refill;		/* a TLB miss: page walk and fill */
	uint32_t syscall;		/* entry and exit of one system call */
	uint32_t page_fault;		/* a minor fault's entry, handling and exit */
	uint32_t ptl;			/* the page-table lock, uncontended */
	uint32_t zap;			/* clearing one PTE and freeing its page */
	uint32_t user_work;		/* user code between two operations */
	uint32_t spin;			/* one cpu_relax() of a wait loop */
	/* AMD broadcast invalidation (system opts invlpgb); a model whose sz
	 * ends before them gets skylake-56's figures. */
	uint32_t invlpgb;		/* issuing one INVLPGB (it does not wait) */
	uint32_t tlbsync;		/* TLBSYNC: until every CPU completed them */
	/* A model whose sz ends before it gets 0. */
	uint32_t fill_hold;		/* the home's time per fill of a Shared copy: fills
					 * asked for together queue; 0: side by side */
	/* The model has sockets * cores_per_socket * threads_per_core CPUs,
	 * numbered as Linux numbers an Intel box: first one thread of every
	 * core, socket after socket, then the siblings in the same order, so
	 * CPU i's sibling is i + sockets * cores_per_socket and the socket rule
	 * above holds for both. Siblings share no cache and no pipeline here:
	 * each costs as a core. 0, what a struct zeroed before this field
	 * existed holds in its place (it fills tail padding, so sz is the
	 * same), means 1, as does a model whose sz ends before it. */
	uint32_t threads_per_core;	/* SMT threads per core, 0..8 */
	/* Dither, per mille (0..900): each tlbgen_vtime__event() of a syscall,
	 * page_fault, zap or zap_batched costs its figure times a factor drawn
	 * uniformly from [1 - j/1000, 1 + j/1000], on a stream of the CPU's own seeded
	 * by the system's seed, so a run stays reproducible. A noiseless model
	 * can lock its CPUs into one of a few phase patterns that a real
	 * machine's noise would move it between. The built-ins keep 0, exact
	 * costs: no measurement of their kernels' spread was found. A model
	 * whose sz ends before it gets 0. n events of one call share a draw. */
	uint32_t work_jitter;
	/* The completion wait of a broadcast invalidation (TLBSYNC; arm64's
	 * DSB ISH after TLBI ...IS) waits for every CPU of the shareability
	 * domain: tlbsync + tlbsync_per_cpu * the system's CPUs. It takes the
	 * place of a reserved word, so the struct keeps its size; 0 (what a
	 * caller's zeroed reserved word holds) adds nothing. */
	uint32_t tlbsync_per_cpu;
	/* One page of a long zap_pte_range() run, as munmap() of a large
	 * mapping does it: the PTE cleared, rmap and dirty bit, the folio
	 * queued in the mmu_gather's batch and put at its end, without zap's
	 * per-call share (TLBGEN_VT_ZAP_BATCHED). 0, or a model whose sz ends
	 * before it: as zap. */
	uint32_t zap_batched;
	/* Since TLBGEN_0.8: the work under the lruvec's lru_lock for one folio,
	 * put on the LRU (lru_add(): its LRU flag, list and size counters) or
	 * taken off it as it is freed (lruvec_del_folio()); the lock's own
	 * line costs as a kernel word. 0, or a model whose sz ends before it:
	 * no LRU lock at all (TLBGEN_VT_LRU_FOLIO costs nothing and the
	 * workload layer takes no lru_lock). */
	uint32_t lru_folio;
};

/*
 * tlbgen_machine_lookup - resolve `spec` ("NAME" or "NAME:field=value,...")
 * into *out. "host" measures this machine (a CAS ping-pong on one line
 * between two threads, a getppid() round trip, a fault and a madvise();
 * about 50 ms); "host-kernel" is "host" with this machine's kernel IPI
 * (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) round trips from two
 * threads it starts; about 0.2 s more; the process stays registered for
 * private expedited membarrier). Errors: -EINVAL (NULL,
 * malformed spec, value out of range: the message names the field),
 * -ENOENT (unknown name or field: the valid ones are printed), -EAGAIN
 * ("host" measured no line transfer, or "host-kernel" no IPI: fewer than
 * two CPUs in the calling thread's affinity, or no membarrier). *out is
 * untouched on error. Thread-safe.
 */
TLBGEN_API int tlbgen_machine_lookup(const char *spec, struct tlbgen_machine *out);

/*
 * tlbgen_machine_names - the built-in model names into names[0..n); returns
 * how many exist. -EINVAL for names == NULL with n > 0. Thread-safe.
 */
TLBGEN_API int tlbgen_machine_names(const char **names, size_t n);

/*
 * tlbgen_machine_describe - "name: sockets=2,cores_per_socket=14,..." into
 * buf, snprintf-style; returns the length it needs. -EINVAL for a NULL or
 * invalid model. Thread-safe.
 */
TLBGEN_API int tlbgen_machine_describe(const struct tlbgen_machine *m, char *buf, size_t len);

/*
 * One figure's stated range (tlbgen_machine_ranges()): the built-in's value
 * lies in [low, high]. `basis` is "sources" (the figure's sources disagree,
 * this is their spread) or "estimate" (no source; the range is stated).
 */
struct tlbgen_machine_range {
	const char *field;		/* a field name as tlbgen_machine_describe() prints it */
	unsigned long low, high;
	const char *basis;
};

/*
 * tlbgen_machine_ranges - the stated ranges of built-in model `name`'s
 * figures into out[0..n); returns how many it has (a figure with no range
 * is a single sourced value and is not listed). Errors: -EINVAL (NULL name,
 * or NULL out with n > 0), -ENOENT (not a built-in: "host" is measured and
 * has none). Static data: the strings live as long as the library.
 * Thread-safe.
 */
TLBGEN_API int tlbgen_machine_ranges(const char *name, struct tlbgen_machine_range *out, size_t n);

#ifdef __cplusplus
}
#endif
#endif
