// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/core/invlpgb-fx.c - helpers of the AMD INVLPGB tests (invlpgb-fx.h).
 */
#include "invlpgb-fx.h"

struct tlbgen_system *inv_sys(const char *profile, bool invlpgb, unsigned int asids,
			      unsigned int count_max)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = NCPU, .profile = profile, .seed = 7,
		    .mode = TLBGEN_MODE_STEPPED, .invlpgb = invlpgb, .global_asids = asids,
		    .invlpgb_count_max = count_max);

	return t_sys_opts(&o);
}

int gasid(const struct tlbgen_mm *mm, bool *tr)
{
	int a = tlbgen_mm__global_asid(mm, tr);

	assert_true(a >= 0);
	return a;
}

void flush_page(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
		unsigned long pg)
{
	assert_int_equal(tlbgen_flush_tlb_page(sys, cpu, mm, PG(pg)), 0);
	t_idle(sys);
}

/* mm on CPUs 0..3, a flush from CPU 0 (assigns), one more (moves every CPU over). */
int global_mm(struct tlbgen_system *sys, struct tlbgen_mm *mm)
{
	bool tr;
	int a;

	t_switch_all(sys, 0, 3, mm);
	flush_page(sys, 0, mm, 1);
	a = gasid(mm, &tr);
	assert_true(a >= TLBGEN_TLB_NR_DYN_ASIDS);
	assert_true(tr);
	flush_page(sys, 0, mm, 1);
	for (unsigned int c = 0; c < 4; c++)
		assert_int_equal(t_state(sys, c).loaded_mm_asid, a);
	/* Nobody is left on a dynamic ASID: the next broadcast clears it. */
	flush_page(sys, 0, mm, 1);
	gasid(mm, &tr);
	assert_false(tr);
	return a;
}

/* mm alone on CPUs 0..3, one flush from CPU 0 (pid 0, jiffies 0): its global ASID. */
int assign_one(struct tlbgen_system *sys, struct tlbgen_mm *mm)
{
	t_switch_all(sys, 0, 3, mm);
	flush_page(sys, 0, mm, 1);
	return gasid(mm, NULL);
}

/*
 * mm on CPUs 0..3: three flushes of page 1 from CPU 0 (the first may hand
 * out a global ASID), page 2 read on CPUs 1..3, then one flush of page 2
 * with the counters reset, read again: its INVLPGBs and IPIs, and the ASID.
 */
void four_cpu_flush(struct tlbgen_system *sys, struct tlbgen_mm *mm, uint64_t *invlpgb,
		    uint64_t *ipis, int *asid)
{
	t_switch_all(sys, 0, 3, mm);
	for (int i = 0; i < 3; i++)
		flush_page(sys, 0, mm, 1);
	for (unsigned int c = 1; c < 4; c++)
		assert_int_equal(tlbgen_access(sys, c, PG(2)), 0);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	flush_page(sys, 0, mm, 2);
	for (unsigned int c = 1; c < 4; c++)
		assert_int_equal(tlbgen_access(sys, c, PG(2)), 0);
	*invlpgb = t_sys_stat(sys, TLBGEN_STAT_INVLPGB);
	*ipis = t_sys_stat(sys, TLBGEN_STAT_IPI_SENT);
	*asid = gasid(mm, NULL);
}

/* Off every CPU, then destroyed: mm_free_global_asid() marks its ASID freed. */
void exit_mm(struct tlbgen_system *sys, struct tlbgen_mm *mm)
{
	for (unsigned int cpu = 0; cpu < 4; cpu++)
		assert_int_equal(tlbgen_switch_mm(sys, cpu, NULL), 0);
	assert_int_equal(tlbgen_mm__destroy(mm), 0);
}
