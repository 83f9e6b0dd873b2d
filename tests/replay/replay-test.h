/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/replay/replay-test.h - what the replay tests share: the fixtures'
 * directory, a fixture opened, a replay run, one reason's agreement.
 */
#ifndef TLBGEN_TESTS_REPLAY_TEST_H
#define TLBGEN_TESTS_REPLAY_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include <replay.h>
#include <replay-internal.h>

static const char *fixtures;	/* argv[1]: this directory */

static inline struct replay_trace *open_fixture(const char *name)
{
	char path[4096], err[1024];
	struct replay_trace *t = NULL;

	snprintf(path, sizeof(path), "%s/%s", fixtures, name);
	if (replay_trace_open(path, &t, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	return t;
}

static inline struct replay_result *run(const struct replay_trace *t, const char *profile,
					const char *machine, enum tlbgen_mode mode)
{
	struct replay_opts o = { .sz = sizeof(o), .profile = profile, .machine = machine,
				 .mode = mode };
	struct replay_result *r = NULL;

	assert_int_equal(replay_run(t, &o, &r), 0);
	assert_non_null(r);
	return r;
}

static inline double reason_agreement(const struct replay_result *r, int reason)
{
	const struct replay_counts *x = &r->total[reason];
	uint64_t den = x->recorded + x->replayed - x->matched;

	return den ? (double)x->matched / (double)den : 1.0;
}

#endif
