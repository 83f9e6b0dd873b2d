// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Machine and boot features (system opts) that pick a kernel's path: the
 * tlbi=ipi boot switch (abe7c8b09bd7, v7.2), which a kernel without it
 * ignores; and the riscv board whose IPIs come from SBI, so that remote
 * fences go by SBI. The arm64 REPEAT_TLBI erratum is in
 * tests/batch/test_versions.c, riscv's Svinval in tests/faults.
 */
#include "invlpgb-fx.h"

/*
 * An mm on CPUs 0..3 of a machine with INVLPGB, booted with tlbi=ipi or
 * not: flush one page three times (the first flush hands out the global
 * ASID), then once more, counted.
 */
static void tlbi_flush(const char *profile, const char *choices, bool tlbi_ipi,
		       uint64_t *invlpgb, uint64_t *ipis, int *asid)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = NCPU, .profile = profile, .seed = 7,
		    .mode = TLBGEN_MODE_STEPPED, .invlpgb = true, .tlbi_ipi = tlbi_ipi);
	struct tlbgen_system *sys = t_sys_opts(&o);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	if (choices)
		assert_int_equal(tlbgen_system__set_choices(sys, choices), 0);
	four_cpu_flush(sys, mm, invlpgb, ipis, asid);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_tlbi_ipi(void **state)
{
	static const struct {
		const char *profile, *choices;
		bool tlbi_ipi, broadcast;
	} cases[] = {
		{ "v7.1", NULL, true, true },		/* no tlbi= yet: ignored */
		{ "v7.2", NULL, true, false },		/* abe7c8b09bd7 */
		{ "v7.2", NULL, false, true },		/* not on the boot line */
		{ "latest", NULL, true, false },
		{ "v7.1", "tlbi_cmdline=yes", true, false },	/* the choice alone */
		{ "v7.2", "tlbi_cmdline=no", true, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t invlpgb, ipis;
		int asid;

		tlbi_flush(cases[i].profile, cases[i].choices, cases[i].tlbi_ipi, &invlpgb, &ipis,
			   &asid);
		if (cases[i].broadcast) {
			assert_true(asid >= TLBGEN_TLB_NR_DYN_ASIDS);
			assert_int_equal(invlpgb, 1);
			assert_int_equal(ipis, 0);
		} else {
			assert_int_equal(asid, 0);
			assert_int_equal(invlpgb, 0);
			assert_int_equal(ipis, 3);	/* CPUs 1..3 */
		}
	}
}

/* tlbi=ipi turns INVLPGB off: refused while global ASIDs are in use. */
static void test_tlbi_ipi_switch_busy(void **state)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = NCPU, .profile = "v7.1", .seed = 7,
		    .mode = TLBGEN_MODE_STEPPED, .invlpgb = true, .tlbi_ipi = true);
	struct tlbgen_system *sys = t_sys_opts(&o);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	(void)state;
	assert_true(global_mm(sys, mm) >= TLBGEN_TLB_NR_DYN_ASIDS);
	assert_int_equal(tlbgen_system__set_profile(sys, "v7.2"), -EBUSY);
	assert_string_equal(tlbgen_system__profile(sys), "v7.1");
	exit_mm(sys, mm);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

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
		cmocka_unit_test(test_tlbi_ipi),
		cmocka_unit_test(test_tlbi_ipi_switch_busy),
		cmocka_unit_test(test_riscv_sbi_rfence),
		cmocka_unit_test(test_opts_tail),
	};

	return cmocka_run_group_tests_name("machine_features", tests, NULL, NULL);
}
