// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * consumer.c - an external program built against libtlbgen, either installed
 * (pkg-config) or as a Meson subproject. It uses only the public API and
 * checks what an embedder relies on: the loaded library's version matches
 * the headers' major, a user policy registers and runs, a flush reaches
 * another CPU, and the oracle is quiet.
 */
#include <stdio.h>
#include <tlbgen/tlbgen.h>

static enum tlbgen_flush_verdict always_full(const struct tlbgen_flush_req *req,
					     struct tlbgen_gen_reader *r, uint64_t *new_local,
					     void *priv)
{
	(void)req;
	(void)priv;
	*new_local = tlbgen_read_mm_tlb_gen(r);
	return TLBGEN_VERDICT_FULL;
}

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "consumer: check failed: %s\n", #cond); \
			return 1;                                                \
		}                                                                \
	} while (0)

int main(void)
{
	const struct tlbgen_policy_ops ops = { .sz = sizeof(ops), .flush_decide = always_full };
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .profile = "consumer-full");
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	uint64_t st[TLBGEN_STAT_NR];

	CHECK(tlbgen_version_number() >> 16 == TLBGEN_VERSION_MAJOR);
	CHECK(tlbgen_policy_register("consumer-full", "v6.0", NULL, &ops) == 0);
	CHECK(tlbgen_system__create(&o, &sys) == 0);
	CHECK(tlbgen_mm__create(sys, 8, &mm) == 0);
	CHECK(tlbgen_switch_mm(sys, 0, mm) == 0 && tlbgen_switch_mm(sys, 1, mm) == 0);
	CHECK(tlbgen_access(sys, 1, 0) == 0);
	CHECK(tlbgen_pte_change(sys, 0, mm, 0) == 0);
	CHECK(tlbgen_flush_tlb_page(sys, 0, mm, 0) == 0);
	CHECK(tlbgen_run_until_idle(sys) == 1);
	CHECK(tlbgen_access(sys, 1, 0) == 0);	/* flushed: a miss, not a stale hit */
	CHECK(tlbgen_oracle__violations(sys) == 0);
	CHECK(tlbgen_stats__cpu(sys, 1, st, TLBGEN_STAT_NR) == TLBGEN_STAT_NR);
	CHECK(st[TLBGEN_STAT_FULL_FLUSH] == 1);	/* the user decision ran */
	CHECK(tlbgen_system__destroy(sys) == 0);
	printf("consumer: libtlbgen %s OK\n", tlbgen_version());
	return 0;
}
