// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/profile.c - kernel profiles as data.
 *
 * A choice is a named policy knob with named values; a profile is a base
 * profile plus a "key=value,..." string; user profiles add function
 * overrides. Nothing outside this file knows kernel version numbers: the
 * model code only reads the choices.
 */
#include <stdio.h>

#include "internal.h"

struct tlbgen_choice_value {
	const char *name;
	int value;
};

struct tlbgen_choice {
	const char *name;
	size_t offset;				/* into struct tlbgen_policy */
	const struct tlbgen_choice_value *values; /* NULL: a non-negative long */
	const char *help;
};

#define V(n, v) { n, v }
#define END { NULL, 0 }

static const struct tlbgen_choice_value gen_read_v[] = {
	V("always", GEN_READ_ALWAYS), V("deferred", GEN_READ_DEFERRED),
	V("never", GEN_READ_NEVER), END };
static const struct tlbgen_choice_value early_v[] = {
	V("none", EARLY_RETURN_NONE), V("unguarded", EARLY_RETURN_UNGUARDED),
	V("guarded", EARLY_RETURN_GUARDED), END };
static const struct tlbgen_choice_value wrong_mm_v[] = {
	V("remote", WRONG_MM_REMOTE), V("remote-clear", WRONG_MM_REMOTE_CLEAR),
	V("all-clear", WRONG_MM_ALL_CLEAR), END };
static const struct tlbgen_choice_value cpumask_v[] = {
	V("clear-on-switch", CPUMASK_CLEAR_ON_SWITCH), V("lazy", CPUMASK_LAZY), END };
static const struct tlbgen_choice_value ipi_cond_v[] = {
	V("tlb_is_not_lazy", IPI_COND_TLB_IS_NOT_LAZY),
	V("should_flush_tlb", IPI_COND_SHOULD_FLUSH_TLB), END };
static const struct tlbgen_choice_value trim_v[] = {
	V("none", TRIM_NONE), V("per-hz", TRIM_PER_HZ), END };
static const struct tlbgen_choice_value onoff_v[] = { V("off", 0), V("on", 1), END };
static const struct tlbgen_choice_value sm_check_v[] = {
	V("always", 1), V("debug_vm", 0), END };
static const struct tlbgen_choice_value place_sw_v[] = { V("late", 0), V("early", 1), END };
static const struct tlbgen_choice_value batch_arch_v[] = {
	V("x86", BATCH_ARCH_X86), V("arm64", BATCH_ARCH_ARM64), V("riscv", BATCH_ARCH_RISCV), END };
static const struct tlbgen_choice_value batched_unmap_v[] = { V("on", 0), V("off", 1), END };
static const struct tlbgen_choice_value batched_pending_v[] = {
	V("flush_tlb_mm", 0), V("dsb", 1), END };
static const struct tlbgen_choice_value place_v[] = {
	V("flush_tlb_mm_range", CEILING_IN_FLUSH_TLB_MM_RANGE),
	V("get_flush_tlb_info", CEILING_IN_GET_FLUSH_TLB_INFO), END };

static const struct tlbgen_choice_value ceiling_cmp_v[] = {
	V("gt", TLBGEN_CEILING_GT), V("ge", TLBGEN_CEILING_GE), END };
static const struct tlbgen_choice_value spurious_hook_v[] = {
	V("generic", TLBGEN_SPURIOUS_GENERIC), V("noop", TLBGEN_SPURIOUS_NOOP),
	V("local", TLBGEN_SPURIOUS_LOCAL), END };

#define C(n, field, vals, h) { n, offsetof(struct tlbgen_policy, field), vals, h }
static const struct tlbgen_choice choices[] = {
	C("mm_tlb_gen_read", gen_read, gen_read_v,
	  "when flush_tlb_func reads mm->context.tlb_gen (aa44284960 defers it)"),
	C("early_return", early_return, early_v,
	  "skip if f->new_tlb_gen <= local_tlb_gen (aa44284960; 8f1d56f64f8d guards gen 0)"),
	C("wrong_mm", wrong_mm, wrong_mm_v,
	  "f->mm != loaded_mm: remote-only return (<=6.13), clear bit (209954cbc7d0), initiator too (953753db887f)"),
	C("mm_cpumask", cpumask_mode, cpumask_v,
	  "clear the bit at switch-out (<=6.13) or leave it (209954cbc7d0)"),
	C("ipi_cond", ipi_cond, ipi_cond_v,
	  "per-target IPI condition: tlb_is_not_lazy (d39268ad24c0) or should_flush_tlb (6db2526c1d69)"),
	C("trim_cpumask", trim, trim_v,
	  "IPI CPUs that left the mm once per HZ (6db2526c1d69)"),
	C("loaded_mm_switching", switching, onoff_v,
	  "should_flush_tlb() IPIs a CPU whose loaded_mm is LOADED_MM_SWITCHING, after smp_rmb() (fea4e317f9e7)"),
	C("switching_write", switching_early, place_sw_v,
	  "LOADED_MM_SWITCHING written after choose_new_asid (late) or before the tlb_gen read (early; "
	  "the order stable trees lacked, Stephen Dolan, Oct 2025)"),
	C("switch_mm_barrier", switch_mm_barrier, onoff_v,
	  "smp_mb() in switch_mm when the cpumask bit is already set (83b0177a6c48)"),
	C("same_mm_cpumask_check", same_mm_cpumask_check, sm_check_v,
	  "switch to the same mm tests (and repairs) the cpumask bit: always, or only under "
	  "CONFIG_DEBUG_VM (7e33001b8b9a), i.e. not in a production kernel"),
	C("ceiling_place", ceiling_place, place_v,
	  "where the range ceiling is applied (4a02ed8e1cc3 moved it)"),
	C("tlb_single_page_flush_ceiling", tlb_single_page_flush_ceiling, NULL,
	  "x86 range ceiling in stride units, strict >"),
	C("batch_arch", batch_arch, batch_arch_v,
	  "arch hooks of the batched unmap: x86 (tlb_gen + cpumask), arm64 (TLBI now, DSB at flush), riscv (seed 002)"),
	C("batched_unmap", no_batched_unmap, batched_unmap_v,
	  "ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH: off = flush every unmapped page at once (the baseline)"),
	C("arm64_repeat_tlbi", arm64_repeat_tlbi, onoff_v,
	  "ARM64_WORKAROUND_REPEAT_TLBI: arm64 never defers, every TLBI is issued twice"),
	C("batched_pending", batched_pending_dsb, batched_pending_v,
	  "arm64 arch_flush_tlb_batched_pending: flush_tlb_mm (4b634918384c) or a DSB only (before it)"),
	C("ppc_tlb_single_page_flush_ceiling", ppc_tlb_single_page_flush_ceiling, NULL,
	  "powerpc radix global (tlbie) ceiling in pages: 33 (debugfs)"),
	C("ppc_tlb_local_single_page_flush_ceiling", ppc_tlb_local_single_page_flush_ceiling, NULL,
	  "powerpc radix local (tlbiel) ceiling in pages: POWER9_TLB_SETS_RADIX * 2 = 256 (debugfs)"),
	C("ppc_ceiling_cmp", ppc_ceiling_cmp, ceiling_cmp_v,
	  "powerpc radix global test: gt (mainline nr_pages > ceiling) or ge (Aneesh's 2021 RFC, with 32)"),
	C("riscv_tlb_flush_all_threshold", riscv_tlb_flush_all_threshold, NULL,
	  "riscv: full flush if DIV_ROUND_UP(size, stride) > 64"),
	C("arm64_max_dvm_ops", arm64_max_dvm_ops, NULL,
	  "arm64 without FEAT_TLBIRANGE: full flush if (end - start) >= MAX_DVM_OPS * stride (512)"),
	C("flush_tlb_fix_spurious_fault", spurious_hook, spurious_hook_v,
	  "generic: cross-CPU flush_tlb_page; noop: x86/arm64; local: one local page (Catalin's 2020 proposal)"),
	C("spurious_skip_tried", spurious_skip_tried, onoff_v,
	  "skip the spurious-fault flush on FAULT_FLAG_TRIED (b7333b58f358)"),
};

struct tlbgen_profile_def {
	const char *name;
	const char *base;
	const char *choices;
};

static const struct tlbgen_profile_def builtin[] = {
	/* Nadav Amit's baseline "v5.17+": with the d39268ad24c0 revert. */
	{ "v5.17", NULL,
	  "ppc_tlb_single_page_flush_ceiling=33,ppc_tlb_local_single_page_flush_ceiling=256,"
	  "ppc_ceiling_cmp=gt,riscv_tlb_flush_all_threshold=64,arm64_max_dvm_ops=512,"
	  "flush_tlb_fix_spurious_fault=noop,spurious_skip_tried=on,"
	  "mm_tlb_gen_read=always,early_return=none,wrong_mm=remote,mm_cpumask=clear-on-switch,"
	  "ipi_cond=tlb_is_not_lazy,trim_cpumask=none,loaded_mm_switching=off,switching_write=late,"
	  "switch_mm_barrier=off,same_mm_cpumask_check=always,ceiling_place=flush_tlb_mm_range,"
	  "tlb_single_page_flush_ceiling=33,"
	  "batch_arch=x86,batched_unmap=on,arm64_repeat_tlbi=off,batched_pending=flush_tlb_mm" },
	/* aa44284960 exactly as first merged: the batch-flush skip (Hugh Dickins' segfaults). */
	{ "v6.0-aa44284960", "v5.17", "mm_tlb_gen_read=deferred,early_return=unguarded" },
	{ "v6.0", "v5.17", "mm_tlb_gen_read=deferred,early_return=guarded" },
	/* Lazy mm_cpumask series; still has the two 2025 ordering windows. */
	{ "v6.14", "v6.0",
	  "wrong_mm=all-clear,mm_cpumask=lazy,ipi_cond=should_flush_tlb,trim_cpumask=per-hz,"
	  "same_mm_cpumask_check=debug_vm" },
	{ "latest", "v6.14",
	  "loaded_mm_switching=on,switching_write=early,switch_mm_barrier=on,"
	  "ceiling_place=get_flush_tlb_info" },
};

#define TLBGEN_MAX_USER_PROFILES 64
static struct tlbgen_policy user_profiles[TLBGEN_MAX_USER_PROFILES];
static unsigned int nr_user_profiles;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

static void list_profiles(void)
{
	char buf[1024];
	size_t off = 0;

	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? ", " : "",
					builtin[i].name);
	for (unsigned int i = 0; i < nr_user_profiles && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, ", %s",
					user_profiles[i].name);
	tlbgen__pr(TLBGEN_WARN, "tlbgen: valid profiles: %s\n", buf);
}

static const struct tlbgen_choice *find_choice(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(choices); i++)
		if (strlen(choices[i].name) == len && !strncmp(choices[i].name, name, len))
			return &choices[i];
	return NULL;
}

static void list_choices(void)
{
	tlbgen__pr(TLBGEN_WARN, "tlbgen: valid choices:\n");
	for (size_t i = 0; i < ARRAY_SIZE(choices); i++) {
		char vals[256] = "";
		size_t off = 0;

		if (!choices[i].values)
			snprintf(vals, sizeof(vals), "an integer >= 0");
		for (const struct tlbgen_choice_value *v = choices[i].values; v && v->name; v++)
			off += (size_t)snprintf(vals + off, sizeof(vals) - off, "%s%s",
						v == choices[i].values ? "" : "|", v->name);
		tlbgen__pr(TLBGEN_WARN, "  %s = %s  (%s)\n", choices[i].name, vals, choices[i].help);
	}
}

static int set_one(struct tlbgen_policy *p, const char *key, size_t klen, const char *val,
		   size_t vlen)
{
	const struct tlbgen_choice *c = find_choice(key, klen);
	char vbuf[64];

	if (!c) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: unknown choice '%.*s'\n", (int)klen, key);
		list_choices();
		return -ENOENT;
	}
	if (vlen >= sizeof(vbuf))
		vlen = sizeof(vbuf) - 1;
	memcpy(vbuf, val, vlen);
	vbuf[vlen] = 0;
	if (!c->values) {
		char *end;
		long v = strtol(vbuf, &end, 0);

		if (!vlen || *end || v < 0) {
			tlbgen__pr(TLBGEN_WARN, "tlbgen: %s needs an integer >= 0, not '%s'\n",
				   c->name, vbuf);
			return -EINVAL;
		}
		*(long *)((char *)p + c->offset) = v;
		return 0;
	}
	for (const struct tlbgen_choice_value *v = c->values; v->name; v++) {
		if (!strcmp(v->name, vbuf)) {
			*(int *)((char *)p + c->offset) = v->value;
			return 0;
		}
	}
	tlbgen__pr(TLBGEN_WARN, "tlbgen: unknown value '%s' for choice %s\n", vbuf, c->name);
	list_choices();
	return -ENOENT;
}

/* Apply "k=v,k=v" to *p; all or nothing. */
int tlbgen__policy_apply_choices(struct tlbgen_policy *p, const char *s)
{
	struct tlbgen_policy tmp = *p;

	while (s && *s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		const char *eq = memchr(s, '=', len);
		int err;

		if (!eq) {
			tlbgen__pr(TLBGEN_WARN, "tlbgen: expected key=value in '%.*s'\n", (int)len, s);
			return -EINVAL;
		}
		err = set_one(&tmp, s, (size_t)(eq - s), eq + 1, len - (size_t)(eq - s) - 1);
		if (err)
			return err;
		s = comma ? comma + 1 : NULL;
	}
	*p = tmp;
	return 0;
}

static int builtin_lookup(const char *name, struct tlbgen_policy *out, int depth)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++) {
		if (strcmp(builtin[i].name, name))
			continue;
		memset(out, 0, sizeof(*out));
		if (builtin[i].base && depth < 8) {
			int err = builtin_lookup(builtin[i].base, out, depth + 1);

			if (err)
				return err;
		}
		snprintf(out->name, sizeof(out->name), "%s", name);
		return tlbgen__policy_apply_choices(out, builtin[i].choices);
	}
	return -ENOENT;
}

/* Resolve a profile name without printing. */
static int lookup_quiet(const char *name, struct tlbgen_policy *out)
{
	int err = builtin_lookup(name, out, 0);

	if (err != -ENOENT)
		return err;
	pthread_mutex_lock(&registry_lock);
	for (unsigned int i = 0; i < nr_user_profiles; i++) {
		if (!strcmp(user_profiles[i].name, name)) {
			*out = user_profiles[i];
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	return err;
}

int tlbgen__policy_lookup(const char *name, struct tlbgen_policy *out)
{
	int err;

	if (!name)
		return -EINVAL;
	err = lookup_quiet(name, out);
	if (err == -ENOENT) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: unknown profile '%s'\n", name);
		pthread_mutex_lock(&registry_lock);
		list_profiles();
		pthread_mutex_unlock(&registry_lock);
	}
	return err;
}

TLBGEN_API int tlbgen_policy_register(const char *name, const char *base, const char *choices_s,
				      const struct tlbgen_policy_ops *ops)
{
	struct tlbgen_policy p;
	struct tlbgen_policy_ops o = { 0 };
	int err;

	if (!name || !*name || strlen(name) >= sizeof(p.name) || strchr(name, ','))
		return -EINVAL;
	if (ops) {
		if (ops->sz < offsetof(struct tlbgen_policy_ops, flush_decide) ||
		    tlbgen__opts_valid(ops, ops->sz, sizeof(o)))
			return -EINVAL;
		memcpy(&o, ops, ops->sz < sizeof(o) ? ops->sz : sizeof(o));
	}
	err = tlbgen__policy_lookup(base ? base : "latest", &p);
	if (err)
		return err;
	err = tlbgen__policy_apply_choices(&p, choices_s);
	if (err)
		return err;
	snprintf(p.name, sizeof(p.name), "%s", name);
	if (o.flush_decide)
		p.flush_decide = o.flush_decide;
	if (o.ipi_cond)
		p.ipi_cond_fn = o.ipi_cond;
	if (o.flush_decide || o.ipi_cond)
		p.priv = o.priv;

	pthread_mutex_lock(&registry_lock);
	err = 0;
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++)
		if (!strcmp(builtin[i].name, name))
			err = -EEXIST;
	for (unsigned int i = 0; i < nr_user_profiles; i++)
		if (!strcmp(user_profiles[i].name, name))
			err = -EEXIST;
	if (!err && nr_user_profiles == TLBGEN_MAX_USER_PROFILES)
		err = -ENOSPC;
	if (!err)
		user_profiles[nr_user_profiles++] = p;
	pthread_mutex_unlock(&registry_lock);
	return err;
}

TLBGEN_API int tlbgen_policy_unregister(const char *name)
{
	int err = -ENOENT;

	if (!name)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++)
		if (!strcmp(builtin[i].name, name))
			return -EPERM;
	pthread_mutex_lock(&registry_lock);
	for (unsigned int i = 0; i < nr_user_profiles; i++) {
		if (!strcmp(user_profiles[i].name, name)) {
			user_profiles[i] = user_profiles[--nr_user_profiles];
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	return err;
}

TLBGEN_API int tlbgen_profile_names(const char **names, size_t n)
{
	size_t k = 0;

	if (!names && n)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++, k++)
		if (k < n)
			names[k] = builtin[i].name;
	pthread_mutex_lock(&registry_lock);
	for (unsigned int i = 0; i < nr_user_profiles; i++, k++)
		if (k < n)
			names[k] = user_profiles[i].name;
	pthread_mutex_unlock(&registry_lock);
	return (int)k;
}

TLBGEN_API int tlbgen_choice_names(const char **names, size_t n)
{
	if (!names && n)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(choices) && i < n; i++)
		names[i] = choices[i].name;
	return (int)ARRAY_SIZE(choices);
}

TLBGEN_API int tlbgen_choice_values(const char *choice, const char **values, size_t n)
{
	const struct tlbgen_choice *c;
	int k = 0;

	if (!choice || (!values && n))
		return -EINVAL;
	c = find_choice(choice, strlen(choice));
	if (!c)
		return -ENOENT;
	for (const struct tlbgen_choice_value *v = c->values; v && v->name; v++, k++)
		if ((size_t)k < n)
			values[k] = v->name;
	return k;
}

static int tlbgen__policy_mutable(const struct tlbgen_system *sys)
{
	if (!tlbgen_sys_valid(sys))
		return -EINVAL;
	if (atomic_load(&sys->waiting_cpus) || atomic_load(&sys->attached_cpus))
		return -EBUSY;
	return 0;
}

TLBGEN_API int tlbgen_system__set_profile(struct tlbgen_system *sys, const char *name)
{
	struct tlbgen_policy p;
	int err = tlbgen__policy_mutable(sys);

	if (err)
		return err;
	if (!name)
		return -EINVAL;
	err = tlbgen__policy_lookup(name, &p);
	if (!err)
		sys->policy = p;
	return err;
}

TLBGEN_API int tlbgen_system__set_choices(struct tlbgen_system *sys, const char *s)
{
	int err = tlbgen__policy_mutable(sys);

	if (err)
		return err;
	if (!s)
		return -EINVAL;
	return tlbgen__policy_apply_choices(&sys->policy, s);
}

TLBGEN_API int tlbgen_system__set_choice(struct tlbgen_system *sys, const char *choice,
					 const char *value)
{
	struct tlbgen_policy tmp;
	int err = tlbgen__policy_mutable(sys);

	if (err)
		return err;
	if (!choice || !value)
		return -EINVAL;
	tmp = sys->policy;
	err = set_one(&tmp, choice, strlen(choice), value, strlen(value));
	if (!err)
		sys->policy = tmp;
	return err;
}

TLBGEN_API const char *tlbgen_system__get_choice(const struct tlbgen_system *sys,
						 const char *choice)
{
	static _Thread_local char num[32];
	const struct tlbgen_choice *c;
	int v;

	if (!tlbgen_sys_valid(sys) || !choice)
		return NULL;
	c = find_choice(choice, strlen(choice));
	if (!c)
		return NULL;
	if (!c->values) {
		snprintf(num, sizeof(num), "%ld", *(const long *)((const char *)&sys->policy + c->offset));
		return num;
	}
	v = *(const int *)((const char *)&sys->policy + c->offset);
	for (const struct tlbgen_choice_value *cv = c->values; cv->name; cv++)
		if (cv->value == v)
			return cv->name;
	return NULL;
}

TLBGEN_API const char *tlbgen_system__profile(const struct tlbgen_system *sys)
{
	return tlbgen_sys_valid(sys) ? sys->policy.name : NULL;
}

TLBGEN_API int tlbgen_system__describe_policy(const struct tlbgen_system *sys, char *buf,
					      size_t len)
{
	size_t off = 0;

	if (!tlbgen_sys_valid(sys) || (!buf && len))
		return -EINVAL;
	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(choices); i++) {
		int n = snprintf(off < len ? buf + off : NULL, off < len ? len - off : 0, "%s%s=%s",
				 i ? "," : "", choices[i].name,
				 tlbgen_system__get_choice(sys, choices[i].name));
		off += (size_t)n;
	}
	if (sys->policy.flush_decide || sys->policy.ipi_cond_fn) {
		int n = snprintf(off < len ? buf + off : NULL, off < len ? len - off : 0,
				 ",user_ops=%s%s", sys->policy.flush_decide ? "flush_decide" : "",
				 sys->policy.ipi_cond_fn ? "+ipi_cond" : "");
		off += (size_t)n;
	}
	return (int)off;
}
