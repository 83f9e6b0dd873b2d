// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/arch/arch.c - the architecture the profile's batch_arch names, and
 * the public arch_tlbbatch_*() entry points, which check their arguments,
 * keep the batch's generic bookkeeping and call that architecture's hooks.
 */
#include <errno.h>
#include <stdlib.h>

#include "../core/access.h"
#include "../core/check.h"
#include "../observers/oracle.h"
#include "arch.h"
#include "arm64/tlbflush.h"
#include "powerpc/radix.h"
#include "riscv/tlbflush.h"
#include "x86/mm/tlb.h"

static const struct tlbgen_arch_ops *const arch_ops[BATCH_ARCH_NR] = {
	[BATCH_ARCH_X86] = &tlbgen__x86_arch_ops,
	[BATCH_ARCH_ARM64] = &tlbgen__arm64_arch_ops,
	[BATCH_ARCH_RISCV] = &tlbgen__riscv_arch_ops,
};

const struct tlbgen_arch_ops *tlbgen__arch_ops(const struct tlbgen_system *sys)
{
	return arch_ops[sys->profile.batch_arch];
}

int tlbgen__arch_supported(const struct tlbgen_system *sys)
{
	const struct tlbgen_arch_ops *ops = tlbgen__arch_ops(sys);

	return ops->supported ? ops->supported(sys) : 0;
}

bool tlbgen__arch_batching(const struct tlbgen_system *sys)
{
	const struct tlbgen_arch_ops *ops = tlbgen__arch_ops(sys);

	return !sys->profile.no_batched_unmap && (!ops->batching || ops->batching(sys));
}

/* The hooks exist only where the arch selects batching. */
static int batching_check(const struct tlbgen_system *sys)
{
	int err = tlbgen__arch_supported(sys);

	if (err)
		return err;
	return tlbgen__arch_batching(sys) ? 0 : -EOPNOTSUPP;
}

TLBGEN_API int tlbgen_tlbbatch__create(struct tlbgen_system *sys, struct tlbgen_tlbbatch **out)
{
	struct tlbgen_tlbbatch *b;

	if (!tlbgen__sys_valid(sys) || !out)
		return -EINVAL;
	b = calloc(1, sizeof(*b) + sys->mask_longs * sizeof(atomic_ulong));
	if (!b)
		return -ENOMEM;
	b->magic = TLBGEN_BATCH_MAGIC;
	b->sys = sys;
	*out = b;
	return 0;
}

static bool batch_ok(const struct tlbgen_tlbbatch *b)
{
	return b && b->magic == TLBGEN_BATCH_MAGIC;
}

TLBGEN_API int tlbgen_tlbbatch__destroy(struct tlbgen_tlbbatch *b)
{
	if (!batch_ok(b))
		return -EINVAL;
	if (b->inflight)
		return -EBUSY;
	for (unsigned int i = 0; i < b->nr_cover; i++)
		tlbgen__mm_unpin(b->cover[i].mm);
	b->magic = 0;
	free(b->cover);
	free(b->inval);
	free(b);
	return 0;
}

static int batch_check(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_tlbbatch *b)
{
	int err = tlbgen__check_initiator(sys, cpu);

	if (err)
		return err;
	if (!batch_ok(b) || b->sys != sys)
		return -EINVAL;
	return b->inflight ? -EBUSY : 0;
}

/* Remember that the batch holds mm (pinned until flushed) and its seq. */
static int batch_note_cover(struct tlbgen_tlbbatch *b, struct tlbgen_mm *mm, uint64_t seq)
{
	for (unsigned int i = 0; i < b->nr_cover; i++) {
		if (b->cover[i].mm == mm) {
			if (seq > b->cover[i].seq)
				b->cover[i].seq = seq;
			return 0;
		}
	}
	if (b->nr_cover == b->cap_cover) {
		unsigned int cap = b->cap_cover ? 2 * b->cap_cover : 4;
		void *p = realloc(b->cover, cap * sizeof(*b->cover));

		if (!p)
			return -ENOMEM;
		b->cover = p;
		b->cap_cover = cap;
	}
	b->cover[b->nr_cover++] = (struct tlbgen_batch_cover){ mm, seq };
	tlbgen__mm_pin(mm);
	return 0;
}

TLBGEN_API int tlbgen_arch_tlbbatch_add_pending(struct tlbgen_system *sys, unsigned int cpu,
						struct tlbgen_tlbbatch *b, struct tlbgen_mm *mm,
						unsigned long start, unsigned long end)
{
	uint64_t seq;
	int err = batch_check(sys, cpu, b);

	if (err)
		return err;
	if (!tlbgen__mm_valid(sys, mm) || mm == sys->init_mm || start >= end ||
	    end > (mm->priv.nr_pages << TLBGEN_PAGE_SHIFT))
		return -EINVAL;
	err = batching_check(sys);
	if (err)
		return err;
	seq = tlbgen__oracle_seq(mm);
	err = batch_note_cover(b, mm, seq);
	if (err)
		return err;
	err = tlbgen__arch_ops(sys)->tlbbatch_add_pending(sys, cpu, b, mm, start, end, seq);
	if (err)
		return err;
	b->unmapped_pages = true;
	return 0;
}

TLBGEN_API int tlbgen_arch_tlbbatch_flush(struct tlbgen_system *sys, unsigned int cpu,
					  struct tlbgen_tlbbatch *b)
{
	int err = batch_check(sys, cpu, b);

	if (err)
		return err;
	err = batching_check(sys);
	if (err)
		return err;
	tlbgen__arch_ops(sys)->tlbbatch_flush(sys, cpu, b);
	return 0;
}

TLBGEN_API int tlbgen_tlbbatch__cpumask_weight(const struct tlbgen_tlbbatch *b)
{
	if (!batch_ok(b))
		return -EINVAL;
	return tlbgen__private_mask_weight(b->cpumask, b->sys->mask_longs);
}

TLBGEN_API int tlbgen_tlbbatch__pending_tlbi(const struct tlbgen_tlbbatch *b)
{
	if (!batch_ok(b))
		return -EINVAL;
	return (int)b->nr_inval;
}
