/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/profile.h - kernel profiles and policy choices.
 *
 * A profile is data: a named set of choices ("mm_tlb_gen_read=deferred",
 * "early_return=guarded", ...), each replaceable on its own, plus optional
 * user functions for the two decisions the kernel keeps changing:
 *  - flush_tlb_func()'s generation decision (tlbgen_flush_decide_fn);
 *  - the per-target IPI condition, tlb_is_not_lazy()/should_flush_tlb()
 *    (tlbgen_ipi_cond_fn).
 * The built-in profiles (one per kernel release that changed a choice, and
 * `latest`, the newest) are listed by tlbgen_profile_names(); docs/versions.md
 * shows each one's choices.
 * Users register their own with tlbgen_policy_register(); a registered name
 * is accepted wherever a built-in one is.
 */
#ifndef TLBGEN_PROFILE_H
#define TLBGEN_PROFILE_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* flush_tlb_func()'s decision ------------------------------------------- */

enum tlbgen_flush_verdict {
	TLBGEN_VERDICT_SKIP = 0,	/* early return: no flush, local gen kept */
	TLBGEN_VERDICT_UP_TO_DATE,	/* local == mm: nothing to flush */
	TLBGEN_VERDICT_PARTIAL,		/* invalidate [start, end) by stride */
	TLBGEN_VERDICT_FULL,		/* flush_tlb_local() */
};

/* What flush_tlb_func() sees: f (flush_tlb_info) and the local generation. */
struct tlbgen_flush_req {
	uint64_t new_tlb_gen;		/* f->new_tlb_gen (0: TLB_GENERATION_INVALID) */
	uint64_t local_tlb_gen;		/* ctxs[loaded_mm_asid].tlb_gen */
	unsigned long start, end;	/* end == TLBGEN_TLB_FLUSH_ALL: full */
	unsigned int stride_shift;
	bool has_mm;			/* f->mm != NULL */
	bool local;			/* running on the initiating CPU */
};

struct tlbgen_gen_reader;

/*
 * tlbgen_read_mm_tlb_gen - atomic64_read(&loaded_mm->context.tlb_gen) from
 * inside a flush_decide function: counted (TLBGEN_STAT_TLB_GEN_READ) and
 * traced as a read of the mm's tlb_gen cacheline. The first call reads; later
 * calls in the same decision return the same value uncounted (the kernel
 * reads it into a local variable once). Returns 0 for a NULL reader.
 * Only valid during the flush_decide call it was handed to, on that CPU.
 */
TLBGEN_API uint64_t tlbgen_read_mm_tlb_gen(struct tlbgen_gen_reader *r);

/*
 * A flush decision. Return the verdict; for PARTIAL and FULL store the
 * generation the CPU has caught up to in *new_local (the kernel stores the
 * mm_tlb_gen it read). Called with "IRQs off" on the target CPU.
 */
typedef enum tlbgen_flush_verdict (*tlbgen_flush_decide_fn)(
	const struct tlbgen_flush_req *req, struct tlbgen_gen_reader *r,
	uint64_t *new_local, void *priv);

/* The per-target IPI condition ---------------------------------------- */

enum tlbgen_ipi_verdict {
	TLBGEN_IPI_SEND = 0,
	TLBGEN_IPI_SKIP_LAZY,
	TLBGEN_IPI_SKIP_NOT_LOADED,
	TLBGEN_IPI_SKIP_NOT_TRIMMED,
};

struct tlbgen_ipi_target;

/*
 * Accessors for an IPI condition, each one load of the target's state (or of
 * flush_tlb_info), traced as a read by the initiator in the order the
 * condition calls them (loaded_mm is loaded once per target and reused):
 *  tlbgen_ipi_target__is_lazy - cpu_tlbstate_shared.is_lazy of the target;
 *  tlbgen_ipi_target__loaded_mm_is_target - its loaded_mm == f->mm;
 *  tlbgen_ipi_target__loaded_mm_is_switching - its loaded_mm ==
 *    LOADED_MM_SWITCHING (fea4e317f9e7);
 *  tlbgen_ipi_target__flush_has_mm - f->mm != NULL (not a batch or kernel
 *    flush);
 *  tlbgen_ipi_target__trim_cpumask - f->trim_cpumask, the initiator's
 *    should_trim_cpumask() verdict for this flush (6db2526c1d69);
 *  tlbgen_ipi_target__smp_rmb - smp_rmb() between two of the loads above.
 * A NULL target reads as false. Only valid during the ipi_cond call it was
 * handed to, on the initiating CPU's thread.
 */
TLBGEN_API bool tlbgen_ipi_target__is_lazy(struct tlbgen_ipi_target *t);
TLBGEN_API bool tlbgen_ipi_target__loaded_mm_is_target(struct tlbgen_ipi_target *t);
TLBGEN_API bool tlbgen_ipi_target__loaded_mm_is_switching(struct tlbgen_ipi_target *t);
TLBGEN_API bool tlbgen_ipi_target__flush_has_mm(struct tlbgen_ipi_target *t);
TLBGEN_API bool tlbgen_ipi_target__trim_cpumask(struct tlbgen_ipi_target *t);
/* tlbgen_ipi_target__smp_rmb: see above. */
TLBGEN_API void tlbgen_ipi_target__smp_rmb(struct tlbgen_ipi_target *t);

/*
 * tlbgen_ipi_target__cpu - the emulated CPU the condition is asked about
 * (0 .. nr_cpus - 1), as the kernel's smp_cond_func_t receives it as its
 * first argument; no load, so nothing is traced. -EINVAL for NULL.
 */
TLBGEN_API int tlbgen_ipi_target__cpu(const struct tlbgen_ipi_target *t);

/*
 * An IPI condition: asked once per CPU of the flush's mask, the initiating
 * CPU included when it is in the mask (smp_call_function_many_cond() asks
 * cond_func about the local CPU too, SCF_RUN_LOCAL): skipping it skips the
 * initiator's own flush_tlb_func().
 */
typedef enum tlbgen_ipi_verdict (*tlbgen_ipi_cond_fn)(struct tlbgen_ipi_target *t, void *priv);

struct tlbgen_policy_ops {
	size_t sz;			/* sizeof(struct tlbgen_policy_ops) */
	tlbgen_flush_decide_fn flush_decide;	/* NULL: the base profile's */
	tlbgen_ipi_cond_fn ipi_cond;		/* NULL: the base profile's */
	void *priv;			/* passed to both */
};

/* Registry ------------------------------------------------------------- */

/*
 * tlbgen_policy_register - register profile `name`: the base profile's
 * choices, then `choices` ("key=value,key=value", may be NULL), then `ops`
 * (may be NULL). Errors: -EINVAL (NULL/empty name, bad ops->sz), -EEXIST
 * (name taken), -ENOENT (unknown base, choice or value: the valid ones are
 * printed), -ENOSPC (registry full, 64 entries). Process-wide; thread-safe.
 */
TLBGEN_API int tlbgen_policy_register(const char *name, const char *base,
				      const char *choices,
				      const struct tlbgen_policy_ops *ops);

/*
 * tlbgen_policy_unregister - remove user profile `name`. Systems already
 * running it keep their copy (and its ops: keep the functions loaded).
 * Errors: -EINVAL (NULL), -ENOENT (not registered), -EPERM (a built-in).
 * Process-wide; thread-safe.
 */
TLBGEN_API int tlbgen_policy_unregister(const char *name);

/*
 * tlbgen_profile_origin - where built-in profile `name` comes from: *base
 * its predecessor (NULL for the oldest), *note what else its kernel release
 * changed in the modelled code and which bodies were read (NULL if none).
 * Either pointer may be NULL. Returns 0, -EINVAL (NULL name) or -ENOENT
 * (not a built-in, e.g. a registered profile). Thread-safe.
 */
TLBGEN_API int tlbgen_profile_origin(const char *name, const char **base, const char **note);

/*
 * tlbgen_profile_names - fill names[0..n) with the known profile names
 * (built-in first). Returns the total number known (which may exceed n),
 * or -EINVAL for NULL names with n > 0. The names of user profiles stay
 * valid until they are unregistered. Thread-safe.
 */
TLBGEN_API int tlbgen_profile_names(const char **names, size_t n);

/*
 * tlbgen_choice_names - fill names[0..n) with the choice keys. Returns the
 * total. tlbgen_choice_values() does the same for one key's values
 * (-ENOENT for an unknown key). Thread-safe.
 */
TLBGEN_API int tlbgen_choice_names(const char **names, size_t n);
TLBGEN_API int tlbgen_choice_values(const char *choice, const char **values, size_t n);

/*
 * tlbgen_choice_describe - the architecture whose code `choice` changes
 * ("x86", "arm64", "riscv", "powerpc", or "all") into *arch and a one-line
 * description into *help (either may be NULL; static strings). Returns 1
 * for an integer choice, 0 for one with named values, -EINVAL (NULL
 * choice), -ENOENT (unknown). Thread-safe.
 */
TLBGEN_API int tlbgen_choice_describe(const char *choice, const char **arch, const char **help);

/*
 * tlbgen_choice_value_origin - where a named value of `choice` comes from:
 * *commit is the kernel commit that introduced it ("-" if it predates every
 * built-in profile or never was in mainline), *since the first release that
 * has it ("<= v5.17", "v6.4", "not in mainline"). Either pointer may be
 * NULL; static strings. Returns 0, -EINVAL (NULL choice or value), -ENOENT
 * (unknown choice or value, or an integer choice). Thread-safe.
 */
TLBGEN_API int tlbgen_choice_value_origin(const char *choice, const char *value,
					  const char **commit, const char **since);

/*
 * tlbgen_system__set_profile - switch the system to profile `name`
 * (resets the ceiling to the profile's). Errors: -EINVAL, -ENOENT (valid
 * names printed), -EBUSY while a flush is in flight or threads are attached.
 * Not thread-safe against other calls on the same system (policy is changed
 * only while no CPU runs, which -EBUSY enforces).
 */
TLBGEN_API int tlbgen_system__set_profile(struct tlbgen_system *sys, const char *name);

/*
 * tlbgen_system__set_choice - set one choice ("mm_tlb_gen_read", "never").
 * Errors: -EINVAL (NULL, or a bad integer), -ENOENT (valid keys or values
 * printed), -EBUSY as above. Thread-safety as tlbgen_system__set_profile().
 */
TLBGEN_API int tlbgen_system__set_choice(struct tlbgen_system *sys, const char *choice,
					 const char *value);

/*
 * tlbgen_system__set_choices - several at once, "k=v,k=v". All or nothing.
 * Errors and thread-safety as tlbgen_system__set_choice().
 */
TLBGEN_API int tlbgen_system__set_choices(struct tlbgen_system *sys, const char *choices);

/*
 * tlbgen_system__get_choice - the current value name of `choice`, or NULL
 * for a NULL argument or an unknown choice. Integer choices are formatted
 * into a thread-local buffer, valid until the thread's next call.
 * Thread-safe.
 */
TLBGEN_API const char *tlbgen_system__get_choice(const struct tlbgen_system *sys,
						 const char *choice);

/*
 * tlbgen_system__profile - name of the profile last selected (owned by the
 * system), or NULL for a NULL system. Thread-safe.
 */
TLBGEN_API const char *tlbgen_system__profile(const struct tlbgen_system *sys);

/*
 * tlbgen_system__describe_policy - write "k=v,k=v..." for every choice into
 * buf (snprintf semantics), plus ",user_ops=..." when the profile has user
 * functions. Returns the length needed, or -EINVAL (NULL system, NULL buf
 * with len > 0). Thread-safe.
 */
TLBGEN_API int tlbgen_system__describe_policy(const struct tlbgen_system *sys, char *buf,
					      size_t len);

#ifdef __cplusplus
}
#endif
#endif
