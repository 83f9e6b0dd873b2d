// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/hardening/fuzz_explore.c - libFuzzer target: a byte string is read
 * as the explorer's operation language (xpl_decode) and run on a stepped
 * system under a correct profile, with the explorer's assertions (oracle,
 * kernel WARNs, local_tlb_gen <= mm_tlb_gen, partial flush only at
 * local + 1 == mm). Any failure prints the minimised trace and aborts, so
 * libFuzzer saves the input under -artifact_prefix.
 *
 * Byte 0 picks the profile (v5.17, v6.0, latest; TLBGEN_FUZZ_PROFILE pins
 * one), byte 1 the CPU and mm counts, byte 2 the TLB geometry and scheduler
 * seed, then 4 bytes per operation.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <tlbgen/tlbgen.h>

#include "explore_engine.h"

#define FUZZ_MAX_OPS 256

static const char *profiles[3] = { "v5.17", "v6.0", "latest" };
static unsigned int nr_profiles = 3;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *p = getenv("TLBGEN_FUZZ_PROFILE");

	(void)argc;
	(void)argv;
	if (p && *p) {
		profiles[0] = p;
		nr_profiles = 1;
	}
	tlbgen_set_print(NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xop ops[FUZZ_MAX_OPS];
	struct xcfg cfg;
	struct xfail f;
	size_t n = xpl_decode(data, size, &cfg, profiles, nr_profiles, ops, FUZZ_MAX_OPS);

	if (!n)
		return 0;
	if (xpl_run(&cfg, ops, n, &f, NULL) == XF_NONE)
		return 0;
	fprintf(stderr, "fuzz_explore: %s at op %zu: %s\n", xpl_kind_name(f.kind), f.op, f.msg);
	if (f.kind != XF_SETUP) {
		enum xfail_kind k = f.kind;

		n = xpl_minimise(&cfg, ops, n, k);
		fprintf(stderr, "minimised trace (%zu ops):\n", n);
		xpl_print_trace(stderr, &cfg, ops, n);
	}
	abort();
}
