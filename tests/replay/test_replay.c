// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/replay/test_replay.c - the committed recordings (this project's
 * PVM guest, Linux 6.18, recorded by bench/tlbgen-trace; README in this
 * directory) replayed through harness/replay/replay.c: the recording kernel's
 * profile is picked from the trace's version, the model agrees with the
 * kernel's decisions, and bad input is refused with its reason. The KVM
 * guests' recordings and bare traces: test_replay_guests.c.
 *
 * argv[1]: this directory (the fixtures).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "replay-test.h"

/* What the snapshot says, and the profile the version picks. */
static void test_info(void **state)
{
	struct replay_trace *t = open_fixture("tlbflush-1t-sleep");
	const struct replay_info *in = replay_trace_info(t);

	(void)state;
	assert_string_equal(in->profile, "v6.18");	/* 6.18.44: the newest <= it */
	assert_int_equal(in->nr_cpus, 2);
	assert_false(in->pcid);
	assert_string_equal(in->pv_flush, "pvm");
	assert_int_equal(in->hz, 250);
	assert_true(in->snapshot);
	assert_true(in->events > 1000);
	assert_int_equal(in->lost, 0);
	replay_trace_free(t);
}

/*
 * Under the recording kernel's profile and machine: every recorded decision
 * is counted once, and they agree. Thresholds: 0.97 agreement per
 * trace; two threads flushing one mm (tlbflush-2t) lose some partial/full
 * decisions in stepped mode, where another CPU's untraced inc_mm_tlb_gen()
 * cannot land inside a flush; virtual time interleaves them.
 */
static void check_fixture(const char *name, double stepped_min, double virtual_min)
{
	struct replay_trace *t = open_fixture(name);
	const struct replay_info *in = replay_trace_info(t);
	struct replay_result *r = run(t, NULL, NULL, TLBGEN_MODE_STEPPED);
	struct replay_result *v = run(t, NULL, NULL, TLBGEN_MODE_VIRTUAL);
	uint64_t recorded = 0;

	for (int k = 0; k < REPLAY_REASONS; k++)
		recorded += r->total[k].recorded;
	assert_int_equal(recorded, in->decisions);
	print_message("%s: stepped %.4f virtual %.4f (reason 0 %.4f, 3 %.4f, 4 %.4f)\n", name,
		      r->agreement, v->agreement, reason_agreement(r, 0), reason_agreement(r, 3),
		      reason_agreement(r, 4));
	if (r->agreement < stepped_min || v->agreement < virtual_min)
		fail_msg("%s: agreement %.4f stepped, %.4f virtual", name, r->agreement,
			 v->agreement);
	/* A flush_tlb_multi() is always one: the mask is the model's own. */
	assert_true(reason_agreement(r, 4) >= 0.999);
	/* This guest flushes other CPUs by hypercall: no IPI, no remote flush_tlb_func(). */
	assert_int_equal(r->ipis, 0);
	assert_int_equal(r->remote_flush_funcs, 0);
	assert_int_equal(r->total[1].recorded, 0);
	assert_int_equal(r->warns, 0);
	assert_true(v->flush_cpu_us > 0);
	replay_result_free(r);
	replay_result_free(v);
	replay_trace_free(t);
}

static void test_fork_exec(void **state)
{
	(void)state;
	check_fixture("fork-exec", 0.99, 0.99);
}

static void test_1t_sleep(void **state)
{
	(void)state;
	check_fixture("tlbflush-1t-sleep", 0.99, 0.99);
}

static void test_2t(void **state)
{
	(void)state;
	check_fixture("tlbflush-2t", 0.95, 0.97);
}

/*
 * What if: the same work on a machine with PCID and native IPIs. The other
 * thread runs the mm (2t), so flushes IPI it and its flush_tlb_func() runs;
 * PCID keeps ASIDs across switches, so fewer switches flush.
 */
static void test_what_if(void **state)
{
	struct replay_trace *t = open_fixture("tlbflush-2t");
	struct replay_result *rec = run(t, NULL, NULL, TLBGEN_MODE_STEPPED);
	struct replay_result *nat = run(t, "v6.18", "pcid,native", TLBGEN_MODE_STEPPED);
	struct replay_result *again = run(t, "v6.18", "pcid,native", TLBGEN_MODE_STEPPED);
	struct replay_result *old = run(t, "v5.17", NULL, TLBGEN_MODE_STEPPED);

	(void)state;
	assert_int_equal(rec->flush_requests, nat->flush_requests);
	assert_true(rec->hypercall_targets > 0);
	assert_int_equal(nat->hypercall_targets, 0);
	assert_true(nat->ipis > 0);
	assert_int_equal(nat->remote_flush_funcs, nat->ipis);	/* one callback per IPI */
	assert_true(nat->switch_flushes < rec->switch_flushes);
	assert_string_equal(nat->machine, "pcid,native");
	/* Deterministic. */
	assert_int_equal(again->ipis, nat->ipis);
	assert_memory_equal(again->total, nat->total, sizeof(nat->total));
	/* v5.17 clears mm_cpumask at switch-out: its flushes stay local more
	 * often than this 6.18 kernel's, which never trims a remote bit here. */
	assert_true(old->total[4].replayed < rec->total[4].replayed);
	assert_true(old->agreement < rec->agreement);
	replay_result_free(rec);
	replay_result_free(nat);
	replay_result_free(again);
	replay_result_free(old);
	replay_trace_free(t);
}

/*
 * A recorded remote flush lasts from its reason 4 to the exit of the last
 * csd it queued, each matched by target and csd: built by hand, flush A
 * (cpu 0 at 100 ns, csds to cpus 1 and 2, exits at 600 and 900 amid
 * another csd's exit on cpu 1) lasts 800 ns; flush B (cpu 3 at 1000, its
 * target's exit never seen) and flush C (no csd queued: a KVM guest's
 * preempted targets are flagged) are not timed.
 */
static void test_timing_match(void **state)
{
	struct rev ev[] = {
		{ .ts = 100, .cpu = 0, .kind = EV_TLB, .a = TLBGEN_TLB_REMOTE_SEND_IPI },
		{ .ts = 110, .cpu = 0, .kind = EV_CSD_QUEUE, .a = 1, .c = 0xa1 },
		{ .ts = 120, .cpu = 0, .kind = EV_CSD_QUEUE, .a = 2, .c = 0xa2 },
		{ .ts = 130, .cpu = 0, .kind = EV_CSD_ENTRY, .c = 0 },
		{ .ts = 400, .cpu = 1, .kind = EV_CSD_EXIT, .c = 0xb1 },
		{ .ts = 600, .cpu = 1, .kind = EV_CSD_EXIT, .c = 0xa1 },
		{ .ts = 900, .cpu = 2, .kind = EV_CSD_EXIT, .c = 0xa2 },
		{ .ts = 1000, .cpu = 3, .kind = EV_TLB, .a = TLBGEN_TLB_REMOTE_SEND_IPI },
		{ .ts = 1010, .cpu = 3, .kind = EV_CSD_QUEUE, .a = 1, .c = 0xc1 },
		{ .ts = 1100, .cpu = 1, .kind = EV_CSD_EXIT, .c = 0xa1 + 7 },
		{ .ts = 2000, .cpu = 2, .kind = EV_TLB, .a = TLBGEN_TLB_REMOTE_SEND_IPI },
		{ .ts = 2100, .cpu = 2, .kind = EV_TLB, .a = TLBGEN_TLB_LOCAL_MM_SHOOTDOWN },
	};
	struct replay_trace t = { .ev = ev, .nr_ev = sizeof(ev) / sizeof(ev[0]) };
	double v[] = { 5, 1, 4, 2, 3, 10, 9, 8, 7, 6 };
	struct replay_timing s;
	double *ns = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(replay__timing_recorded(&t, &ns, &n), 0);
	assert_int_equal(n, 1);
	assert_true(ns[0] == 800.0);
	free(ns);
	replay__timing_summary(v, 10, &s);
	assert_int_equal(s.n, 10);
	assert_true(s.p50_ns == 5.0 && s.p90_ns == 9.0);
}

/*
 * The KVM guest's two-thread recording has csd events: its remote flushes
 * are timed (each one a reason 4 of the recording), and in virtual time the
 * model times as many within 1%, each its own flush that another CPU ran a
 * callback of; stepped mode times none of the model's.
 */
static void test_timing_kvm(void **state)
{
	struct replay_trace *t = open_fixture("tlbflush-2t-pcid");
	struct replay_result *v = run(t, NULL, "skylake-56", TLBGEN_MODE_VIRTUAL);
	struct replay_result *s = run(t, NULL, NULL, TLBGEN_MODE_STEPPED);
	const struct replay_timing *rec = &v->recorded_remote, *mod = &v->model_remote;

	(void)state;
	assert_true(rec->n > 1000 && rec->n <= v->total[TLBGEN_TLB_REMOTE_SEND_IPI].recorded);
	assert_true(rec->p50_ns > 0 && rec->p50_ns <= rec->p90_ns);
	assert_true(mod->n * 100 >= rec->n * 99 && mod->n * 100 <= rec->n * 101);
	assert_true(mod->p50_ns > 0 && mod->p50_ns <= mod->p90_ns);
	assert_int_equal(s->model_remote.n, 0);
	assert_int_equal(s->recorded_remote.n, rec->n);
	replay_result_free(v);
	replay_result_free(s);
	replay_trace_free(t);
}

/*
 * One operation's decisions are matched CPU by CPU: on one CPU in order
 * (a remote flush taken before the local call is another sequence than
 * after it), across CPUs in any order (they ran at once; the order the
 * trace interleaves them in is the machine's timing).
 */
static uint64_t match_one(const uint8_t *rr, const uint16_t *rc, const uint8_t *pr,
			  const uint16_t *pc, unsigned int n)
{
	struct replay_trace t = { 0 };
	struct step st = { .kind = ST_FLUSH, .cpu = 0, .dec_first = 0 };
	struct rdec dec[4];
	struct pdec pd[4];
	struct replay_opts o = { .sz = sizeof(o) };
	struct replay_result *res = calloc(1, sizeof(*res));
	uint64_t matched;

	assert_non_null(res);
	for (unsigned int i = 0; i < n; i++) {
		dec[i] = (struct rdec){ .next = i + 1 < n ? i + 1 : REPLAY_NONE, .cpu = rc[i],
					.reason = rr[i], .pages = 1 };
		pd[i] = (struct pdec){ .step = 0, .seq = i, .cpu = pc[i], .reason = pr[i],
				       .pages = 1 };
	}
	st.dec_last = n - 1;
	t.info.nr_cpus = 2;
	t.st = &st;
	t.nr_st = 1;
	t.dec = dec;
	t.nr_dec = n;
	assert_int_equal(replay__match(&t, pd, n, &o, res), 0);
	matched = 0;
	for (int k = 0; k < REPLAY_REASONS; k++)
		matched += res->total[k].matched;
	replay_result_free(res);
	return matched;
}

static void test_match_order(void **state)
{
	/* kernel: 4 on CPU 0, the remote 1 on CPU 1, then CPU 0's local 3 */
	static const uint8_t r_cross[] = { 4, 1, 3 }, p_cross[] = { 4, 3, 1 };
	static const uint16_t rc_cross[] = { 0, 1, 0 }, pc_cross[] = { 0, 0, 1 };
	/* on CPU 0 alone: another flush's remote 1, then the local 3 */
	static const uint8_t r_same[] = { 4, 1, 3 }, p_same[] = { 4, 3, 1 };
	static const uint16_t c_same[] = { 0, 0, 0 };

	(void)state;
	assert_int_equal(match_one(r_cross, rc_cross, p_cross, pc_cross, 3), 3);
	assert_int_equal(match_one(r_same, c_same, p_same, c_same, 3), 2);
}

/* Bad machine words and profiles are refused; nothing is replayed. */
static void test_bad_opts(void **state)
{
	struct replay_trace *t = open_fixture("fork-exec");
	struct replay_opts o = { .sz = sizeof(o), .machine = "skylake-56" };
	struct replay_result *r = NULL;

	(void)state;
	assert_int_equal(replay_run(t, &o, &r), -EINVAL);	/* a cost model needs virtual */
	o.machine = "pcid,warp-drive";
	o.mode = TLBGEN_MODE_VIRTUAL;
	assert_int_equal(replay_run(t, &o, &r), -ENOENT);	/* not a machine model */
	o.machine = NULL;
	o.profile = "v9.99-nonexistent";
	assert_int_equal(replay_run(t, &o, &r), -ENOENT);
	o.profile = NULL;
	o.mode = TLBGEN_MODE_THREADED;
	assert_int_equal(replay_run(t, &o, &r), -EINVAL);
	assert_null(r);
	replay_trace_free(t);
}

/* A copy of a fixture's trace.dat, changed by `edit`, must be refused with `want`. */
static void refused(const char *what, long cut, const char *from, const char *to,
		    const char *want)
{
	char src[4096], dst[] = "/tmp/tlbgen-replay-XXXXXX", err[1024];
	struct replay_trace *t = NULL;
	FILE *in, *out;
	char *buf;
	long n;
	int fd;

	snprintf(src, sizeof(src), "%s/tlbflush-2t/trace.dat", fixtures);
	in = fopen(src, "rb");
	assert_non_null(in);
	fseek(in, 0, SEEK_END);
	n = ftell(in);
	rewind(in);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, in), (size_t)n);
	fclose(in);
	if (from) {
		/* Patch the kernel's uname in the options, same length. */
		char *p = memmem(buf, (size_t)n, from, strlen(from));

		assert_non_null(p);
		memcpy(p, to, strlen(to));
	}
	fd = mkstemp(dst);
	assert_true(fd >= 0);
	out = fdopen(fd, "wb");
	assert_int_equal(fwrite(buf, 1, (size_t)(n - cut), out), (size_t)(n - cut));
	fclose(out);
	free(buf);
	assert_true(replay_trace_open(dst, &t, err, sizeof(err)) < 0);
	assert_null(t);
	unlink(dst);
	if (!strstr(err, want))
		fail_msg("%s: the message '%s' does not say '%s'", what, err, want);
}

static void test_bad_input(void **state)
{
	char err[1024], path[4096];
	struct replay_trace *t = NULL;

	(void)state;
	assert_int_equal(replay_trace_open("/nonexistent/trace.dat", &t, err, sizeof(err)), -ENOENT);
	snprintf(path, sizeof(path), "%s/README", fixtures);
	assert_true(replay_trace_open(path, &t, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "not a trace-cmd"));
	refused("cut in the data", 60000, NULL, NULL, "truncated at byte 95356");
	refused("cut in the options", 300, NULL, NULL, "truncated at byte 155056");
	refused("arm64", 0, "vm 6.18.44-fc-v1252 x86_64", "vm 6.18.44-fc-v1252 mips64", "mips64");
	refused("too old", 0, "vm 6.18.44-fc-v1252", "vm 4.19.44-fc-v1252", "4.19.44");
	assert_null(t);
}

/* machine.txt: a bad line refuses the file naming line and field, and
 * leaves the machine as it was; a good file changes it. */
static void test_machine_txt(void **state)
{
	static const char *const bad[][2] = {
		{ "pcid 1\ninvlpgb 2\n", "line 2: invlpgb '2' is not 0 or 1" },
		{ "pcid 1\nfrobnicate 1\n", "line 2: unknown key 'frobnicate'" },
		{ "hz 25x\n", "line 1: hz '25x'" },
		{ "cpus 0\n", "line 1: cpus '0' is not 1 to" },
		{ "\x01\x02\x03\n", "line 1: '\x01\x02\x03' has no value" },
	};
	char dir[] = "/tmp/tlbgen-machine-XXXXXX", path[64], err[512];
	struct replay_info in = { .pcid = false, .hz = 100 }, was;
	FILE *f;

	(void)state;
	snprintf(in.pv_flush, sizeof(in.pv_flush), "native");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/machine.txt", dir);
	assert_int_equal(replay__read_machine(&in, dir, err, sizeof(err)), 0);	/* none */
	assert_false(in.snapshot);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(bad[i][0], f);
		fclose(f);
		was = in;
		assert_int_equal(replay__read_machine(&in, dir, err, sizeof(err)), -EINVAL);
		assert_memory_equal(&in, &was, sizeof(in));
		if (!strstr(err, bad[i][1]))
			fail_msg("'%s': the message '%s' does not say '%s'", bad[i][0], err, bad[i][1]);
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("# a comment\n\npcid 1\npv_flush_tlb_multi kvm\nhz 1000\n", f);
	fclose(f);
	assert_int_equal(replay__read_machine(&in, dir, err, sizeof(err)), 0);
	assert_true(in.pcid && in.snapshot);
	assert_int_equal(in.hz, 1000);
	assert_string_equal(in.pv_flush, "kvm");
	unlink(path);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_info),
		cmocka_unit_test(test_fork_exec),
		cmocka_unit_test(test_1t_sleep),
		cmocka_unit_test(test_2t),
		cmocka_unit_test(test_what_if),
		cmocka_unit_test(test_timing_match),
		cmocka_unit_test(test_timing_kvm),
		cmocka_unit_test(test_match_order),
		cmocka_unit_test(test_bad_opts),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_machine_txt),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURE-DIR\n", argv[0]);
		return 2;
	}
	fixtures = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
