/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/system.h - a system: N emulated CPUs, their TLB state, the call
 * queues between them, one init_mm, and the policy (profile) they run.
 */
#ifndef TLBGEN_SYSTEM_H
#define TLBGEN_SYSTEM_H

#include <stdarg.h>
#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tlbgen_mode {
	/* One host thread drives every emulated CPU; IPIs are queued and
	 * delivered only when the host asks (tlbgen/stepped.h). Deterministic. */
	TLBGEN_MODE_STEPPED = 0,
	/* Each emulated CPU is a pthread (tlbgen/runtime.h); IPIs are real
	 * cross-thread calls and waits spin on real atomics. */
	TLBGEN_MODE_THREADED = 1,
	/* Every emulated CPU is a coroutine with a virtual clock; each shared
	 * access is a scheduling point costed by a machine model
	 * (tlbgen/vtime.h, tlbgen/machine.h). Deterministic. */
	TLBGEN_MODE_VIRTUAL = 2,
};

/*
 * Injectable clock. `jiffies` returns the current jiffy count; `hz` is HZ.
 * When no clock is given, HZ is 1000 and jiffies start at 0 when the system
 * is created: stepped systems use a virtual jiffy counter moved only by
 * tlbgen_clock_advance(), threaded systems CLOCK_MONOTONIC_COARSE
 * (tick-granular, as jiffies are: it advances in steps of the host kernel's
 * tick, e.g. 4 jiffies at a time at hz = 1000 on a HZ=250 host). A new mm's
 * next_trim_cpumask is jiffies + HZ, so under a trimming profile nothing is
 * trimmed in the first second of the clock.
 */
struct tlbgen_clock {
	uint64_t (*jiffies)(void *ctx);
	void *ctx;
	unsigned int hz;
};

/* System flags. */
#define TLBGEN_SYS_NO_ORACLE	(1U << 0)	/* no simulated TLB checks (pure speed) */
#define TLBGEN_SYS_NO_STATS	(1U << 1)	/* no per-CPU counters on hot paths */

/* The kernel's global_asid_available at boot: MAX_ASID_AVAILABLE (4094)
 * - TLB_NR_DYN_ASIDS - 1. */
#define TLBGEN_GLOBAL_ASIDS_MAX		4087U

struct tlbgen_system_opts {
	size_t sz;		/* sizeof(struct tlbgen_system_opts) */
	unsigned int nr_cpus;	/* 1 .. TLBGEN_MAX_CPUS; 0 means 4 */
	enum tlbgen_mode mode;
	const char *profile;	/* built-in or registered policy; NULL = "latest" */
	uint64_t seed;		/* stepped scheduler seed */
	unsigned int flags;	/* TLBGEN_SYS_* */
	unsigned int tlb_sets;	/* simulated TLB geometry; 0 = 64 sets */
	unsigned int tlb_ways;	/*                        0 = 8 ways  */
	const struct tlbgen_clock *clock;
	/* Threaded-mode options (IPI backend, placement) live in
	 * struct tlbgen_runtime_opts; pointer may be NULL for defaults. */
	const struct tlbgen_runtime_opts *runtime;
	/* Virtual mode: the machine model (NULL: "skylake-56"); copied. */
	const struct tlbgen_machine *machine;
	/*
	 * AMD broadcast TLB invalidation (X86_FEATURE_INVLPGB): the machine has
	 * INVLPGB and TLBSYNC. Off by default, as on Intel. A profile whose
	 * `invlpgb` choice is on-when-available then hands global ASIDs to mms
	 * active on more than 3 CPUs and flushes them without IPIs. With the
	 * oracle in threaded mode each simulated TLB takes a lock, since a
	 * TLBSYNC edits every CPU's.
	 */
	bool invlpgb;
	/*
	 * Global ASIDs the allocator may hand out at once (global_asid_available):
	 * 0 = the kernel's 4087, MAX_ASID_AVAILABLE (4094, 12 PCID bits, no PTI)
	 * - TLB_NR_DYN_ASIDS - 1; else 1 .. 4087, a smaller space for tests of
	 * depletion and reuse. Only with invlpgb.
	 */
	unsigned int global_asids;
	/* invlpgb_count_max (CPUID 0x80000008 EDX[15:0] + 1): pages one INVLPGB
	 * covers; 0 = 8 (an assumption: the value is per part), else 1 .. 65536.
	 * Only with invlpgb. */
	unsigned int invlpgb_count_max;
	/*
	 * The machine lacks PCID (X86_FEATURE_PCID clear, or booted with
	 * "nopcid"): choose_new_asid() always takes ASID 0 and flushes, so
	 * every switch_mm_irqs_off() to another mm reloads CR3 with a flush.
	 * False (the default) is a machine with PCID and the kernel's six
	 * dynamic ASIDs per CPU.
	 */
	bool no_pcid;
	/*
	 * Machine and boot features that decide which of a kernel's paths
	 * runs; false (the default) is a machine without them. Each is the
	 * hardware's or the boot line's, not a kernel version's: a profile's
	 * choices say whether its kernel acts on it.
	 *
	 * arm64_repeat_tlbi: the CPUs have an erratum of
	 * ARM64_WORKAROUND_REPEAT_TLBI (arm64_repeat_tlbi_list in
	 * arch/arm64/kernel/cpu_errata.c). What the kernel does about it is the
	 * choice arm64_repeat_tlbi_sync. The choice arm64_repeat_tlbi=on, kept
	 * for the kernel specs that name it, means the same.
	 */
	bool arm64_repeat_tlbi;
	/*
	 * riscv_sbi_rfence: the board's S-mode IPIs come from the SBI IPI
	 * extension (no ACLINT SSWI or IMSIC), so the IPI driver leaves the
	 * kernel sending remote sfence.vma by sbi_remote_sfence_vma_asid()
	 * (riscv_use_ipi_for_rfence() false), as on the HiFive Unmatched. The
	 * choice riscv_rfence=sbi, kept for the kernel specs that name it,
	 * means the same.
	 */
	bool riscv_sbi_rfence;
	/*
	 * tlbi_ipi: booted with "tlbi=ipi" (abe7c8b09bd7, v7.2). A kernel with
	 * the switch (choice tlbi_cmdline=yes) then leaves INVLPGB unused on a
	 * machine that has it and flushes by IPIs; an older kernel does not
	 * know the parameter and uses INVLPGB as before.
	 */
	bool tlbi_ipi;
	/*
	 * riscv_svinval: the harts have Svinval (sinval.vma, sfence.w.inval,
	 * sfence.inval.ir). A kernel with 905be00304bd (choice
	 * riscv_umc_svinval=on) then uses them in update_mmu_cache().
	 */
	bool riscv_svinval;
};

/*
 * tlbgen_system__create - allocate a system of opts->nr_cpus emulated CPUs,
 * all running init_mm, with the policy named by opts->profile.
 * Returns 0 and stores the system in *out, or:
 *  -EINVAL  NULL argument, bad sz, nr_cpus out of range, unknown mode,
 *           global_asids or invlpgb_count_max out of range or set without
 *           invlpgb (the message names the field),
 *  -ENOENT  unknown profile name (the valid names are printed),
 *  -ENOMEM  allocation failure.
 * Thread-safe (distinct systems are independent).
 */
TLBGEN_API int tlbgen_system__create(const struct tlbgen_system_opts *opts,
				     struct tlbgen_system **out);

/*
 * tlbgen_system__destroy - free a system and every mm still attached to it.
 * Returns 0, -EINVAL for NULL, or -EBUSY when threads are still attached
 * (threaded mode) or a CPU is waiting for acknowledgements (stepped mode).
 * Not thread-safe against other calls on the same system.
 */
TLBGEN_API int tlbgen_system__destroy(struct tlbgen_system *sys);

/* tlbgen_system__nr_cpus - number of emulated CPUs, or -EINVAL. Thread-safe. */
TLBGEN_API int tlbgen_system__nr_cpus(const struct tlbgen_system *sys);

/* tlbgen_system__mode - the system's mode, or -EINVAL. Thread-safe. */
TLBGEN_API int tlbgen_system__mode(const struct tlbgen_system *sys);

/*
 * tlbgen_system__jiffies - the current jiffies of the system clock.
 * Returns 0 and stores it, or -EINVAL. Thread-safe.
 */
TLBGEN_API int tlbgen_system__jiffies(const struct tlbgen_system *sys, uint64_t *out);

/* tlbgen_system__hz - HZ of the system clock, or -EINVAL. Thread-safe. */
TLBGEN_API int tlbgen_system__hz(const struct tlbgen_system *sys);

/*
 * tlbgen_system__warns - how many times the model hit one of the kernel's
 * WARN conditions (local_tlb_gen > mm_tlb_gen, f->new_tlb_gen > mm_tlb_gen,
 * a partial flush without a generation, a running CPU missing from
 * mm_cpumask). Correct profiles keep it at 0. Returns the count, or -EINVAL.
 * Thread-safe.
 */
TLBGEN_API long tlbgen_system__warns(const struct tlbgen_system *sys);

/*
 * tlbgen_clock_advance - move the built-in virtual clock forward by `jiffies`.
 * -EINVAL for NULL, -EOPNOTSUPP when the system uses an injected or the
 * monotonic clock. Thread-safe (atomic add).
 */
TLBGEN_API int tlbgen_clock_advance(struct tlbgen_system *sys, uint64_t jiffies);

/* Diagnostics ------------------------------------------------------------ */

enum tlbgen_print_level { TLBGEN_WARN, TLBGEN_INFO, TLBGEN_DEBUG };
typedef int (*tlbgen_print_fn_t)(enum tlbgen_print_level level,
				 const char *fmt, va_list ap);

/*
 * tlbgen_set_print - route the library's messages (unknown names with their
 * valid alternatives, watchdog reports, oversubscription notices) to `fn`;
 * NULL silences them. Returns the previous callback. Default: stderr for
 * TLBGEN_WARN and TLBGEN_INFO. Process-wide; thread-safe.
 */
TLBGEN_API tlbgen_print_fn_t tlbgen_set_print(tlbgen_print_fn_t fn);

#ifdef __cplusplus
}
#endif
#endif
