// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Machine and boot features (system opts) that pick a kernel's path: the
 * riscv board whose IPIs come from SBI, so that remote fences go by SBI.
 * The arm64 REPEAT_TLBI erratum is in tests/batch/test_versions.c.
 */
#include "tlbgen-test.h"

/*
 * A riscv batched unmap of one page that CPUs 1 and 2 hold, under v6.8:
 * by IPIs (the flush callback on each target), or on a board whose IPIs
 * come from SBI by one SBI remote fence (no callback, no IPI of Linux's).
 * `how`: the machine feature, the choice kernel specs name, or neither.
 */
static void riscv_unmap(const char *how, uint64_t *ipis, uint64_t *avoided, uint64_t *remote)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 3, .profile = "v6.8", .seed = 42,
		    .mode = TLBGEN_MODE_STEPPED, .riscv_sbi_rfence = !strcmp(how, "machine"));
	struct tlbgen_system *sys = t_sys_opts(&o);
	struct tlbgen_mm *mm = t_mm(sys, 16);
	struct tlbgen_unmap_batch *u;

	assert_int_equal(tlbgen_system__set_choices(sys, "batch_arch=riscv"), 0);
	if (!strcmp(how, "choice"))
		assert_int_equal(tlbgen_system__set_choice(sys, "riscv_rfence", "sbi"), 0);
	assert_int_equal(tlbgen_unmap_batch__create(sys, &u), 0);
	t_switch_all(sys, 0, 2, mm);
	for (unsigned int c = 1; c < 3; c++)
		assert_int_equal(tlbgen_access(sys, c, PG(2)), 0);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_try_to_unmap_one(sys, 0, u, mm, PG(2), TLBGEN_TTU_BATCH_FLUSH,
						 TLBGEN_PTE_ACCESSIBLE), 1);
	assert_int_equal(tlbgen_try_to_unmap_flush(sys, 0, u), 1);
	t_idle(sys);
	for (unsigned int c = 1; c < 3; c++)
		assert_int_equal(tlbgen_access(sys, c, PG(2)), 0);	/* gone */
	*ipis = t_sys_stat(sys, TLBGEN_STAT_IPI_SENT);
	*avoided = t_sys_stat(sys, TLBGEN_STAT_IPI_AVOIDED);
	*remote = t_sys_stat(sys, TLBGEN_STAT_FLUSH_FUNC_REMOTE);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_unmap_batch__destroy(u), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_riscv_sbi_rfence(void **state)
{
	uint64_t ipis, avoided, remote;

	(void)state;
	riscv_unmap("none", &ipis, &avoided, &remote);
	assert_int_equal(ipis, 2);
	assert_int_equal(avoided, 0);
	assert_int_equal(remote, 2);
	riscv_unmap("machine", &ipis, &avoided, &remote);
	assert_int_equal(ipis, 0);
	assert_int_equal(avoided, 2);
	assert_int_equal(remote, 0);
	riscv_unmap("choice", &ipis, &avoided, &remote);
	assert_int_equal(ipis, 0);
	assert_int_equal(avoided, 2);
	assert_int_equal(remote, 0);
}

/* Bytes past the last known field of the opts must be zero. */
static void test_opts_tail(void **state)
{
	struct {
		struct tlbgen_system_opts o;
		char tail[8];
	} big;
	struct tlbgen_system *sys = NULL;

	(void)state;
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.riscv_sbi_rfence = true;
	assert_int_equal(tlbgen_system__create(&big.o, &sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	big.tail[3] = 1;
	assert_int_equal(tlbgen_system__create(&big.o, &sys), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_riscv_sbi_rfence),
		cmocka_unit_test(test_opts_tail),
	};

	return cmocka_run_group_tests_name("machine_features", tests, NULL, NULL);
}
