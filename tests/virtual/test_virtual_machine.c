// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/virtual/test_virtual_machine.c - the virtual-time mode's machine
 * model: a machine's work_jitter dithers the kernel events it names,
 * reproducibly; machine specs that are wrong are refused by name, and
 * virtual-time calls on a stepped system or from the host fail.
 */
#include "virtual-fx.h"

/* ---- work_jitter: events dithered on the CPU's seeded stream --------------------------------- */

#define JIT_N	2000

struct jit {
	enum tlbgen_vt_event ev;
	uint64_t took[JIT_N];
};

/* CPU 0 draws too, or not: CPU 1's draws must not depend on it. */
static struct jit busy0 = { .ev = TLBGEN_VT_PAGE_FAULT };

static int jit_prog(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct jit *j = arg;
	uint64_t t0, t1;

	for (unsigned int i = 0; i < JIT_N; i++) {
		if (tlbgen_vtime__now(sys, cpu, &t0) || tlbgen_vtime__event(sys, cpu, j->ev, 1) ||
		    tlbgen_vtime__now(sys, cpu, &t1))
			return -1;
		j->took[i] = t1 - t0;
	}
	return 0;
}

static void jit_run2(const char *machine, uint64_t seed, struct jit *j, bool with_cpu0)
{
	struct tlbgen_system *sys = vsys(2, "v6.0", seed, machine);
	int ret;

	assert_int_equal(tlbgen_cpu__spawn(sys, 1, jit_prog, j), 0);
	if (with_cpu0)
		assert_int_equal(tlbgen_cpu__spawn(sys, 0, jit_prog, &busy0), 0);
	assert_int_equal(tlbgen_vtime__run(sys, ~0ULL), 0);
	assert_int_equal(tlbgen_cpu__join(sys, 1, &ret), 0);
	assert_int_equal(ret, 0);
	if (with_cpu0) {
		assert_int_equal(tlbgen_cpu__join(sys, 0, &ret), 0);
		assert_int_equal(ret, 0);
	}
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void jit_run(const char *machine, uint64_t seed, struct jit *j)
{
	jit_run2(machine, seed, j, false);
}

/* Every draw of j within +-20% of `c`, spread over it, its mean kept. */
static void assert_dithered(const struct jit *j, uint64_t c)
{
	uint64_t lo = ~0ULL, hi = 0, sum = 0;

	for (unsigned int i = 0; i < JIT_N; i++) {
		lo = j->took[i] < lo ? j->took[i] : lo;
		hi = j->took[i] > hi ? j->took[i] : hi;
		sum += j->took[i];
	}
	print_message("event %d at work_jitter=200: %llu..%llu cycles, mean %.1f\n", (int)j->ev,
		      (unsigned long long)lo, (unsigned long long)hi, (double)sum / JIT_N);
	assert_true(lo >= c * 8 / 10 && hi <= c * 12 / 10);
	assert_true(lo < c * 82 / 100 && hi > c * 118 / 100);
	assert_true(sum > c * 99 / 100 * JIT_N && sum < c * 101 / 100 * JIT_N);
}

/* skylake-56: page_fault and zap 5000 cycles, syscall 847, ptl 25, user_work 10. */
static void test_work_jitter(void **state)
{
	static const char jit[] = "skylake-56:work_jitter=200";
	static const struct { enum tlbgen_vt_event ev; uint64_t c; bool dithered; } evs[] = {
		{ TLBGEN_VT_PAGE_FAULT, 5000, true }, { TLBGEN_VT_ZAP, 5000, true },
		{ TLBGEN_VT_SYSCALL, 847, true }, { TLBGEN_VT_PTL, 25, false },
		{ TLBGEN_VT_USER_WORK, 10, false },
	};
	static struct jit a, b, c, d, e, beside;

	(void)state;
	for (unsigned int k = 0; k < sizeof(evs) / sizeof(evs[0]); k++) {
		a.ev = b.ev = evs[k].ev;
		jit_run(jit, 7, &a);
		jit_run("skylake-56", 7, &b);
		for (unsigned int i = 0; i < JIT_N; i++)
			assert_int_equal(b.took[i], evs[k].c);	/* work_jitter 0: exact */
		if (!evs[k].dithered) {
			for (unsigned int i = 0; i < JIT_N; i++)
				assert_int_equal(a.took[i], evs[k].c);
			continue;
		}
		assert_dithered(&a, evs[k].c);
	}
	/* Same seed, same draws; the next seed (its low bit), other draws;
	 * CPU 1's draws whether or not CPU 0 draws beside it. */
	a.ev = b.ev = c.ev = d.ev = e.ev = beside.ev = TLBGEN_VT_PAGE_FAULT;
	jit_run(jit, 8, &a);
	jit_run(jit, 8, &b);
	jit_run(jit, 9, &c);
	jit_run(jit, 10, &d);
	jit_run(jit, 11, &e);
	jit_run2(jit, 8, &beside, true);
	assert_memory_equal(a.took, b.took, sizeof(a.took));
	assert_memory_not_equal(a.took, c.took, sizeof(a.took));
	assert_memory_not_equal(d.took, e.took, sizeof(d.took));
	assert_memory_equal(a.took, beside.took, sizeof(a.took));
}

/* A failing call changes nothing: from a cross-CPU callback (IRQs off) an
 * event is -EDEADLK, and the CPU's next draw is the one it would have had. */
struct jit_err {
	uint64_t next;
	int err;
};

static void jit_cb(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	((struct jit_err *)arg)->err = tlbgen_vtime__event(sys, cpu, TLBGEN_VT_PAGE_FAULT, 1);
}

static int jit_err_prog(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct jit_err *j = arg;
	uint64_t t0, t1;

	if (j->err == 1 && tlbgen_smp_call_function_single(sys, cpu, cpu, jit_cb, j))
		return -1;
	tlbgen_vtime__now(sys, cpu, &t0);
	if (tlbgen_vtime__event(sys, cpu, TLBGEN_VT_PAGE_FAULT, 1))
		return -1;
	tlbgen_vtime__now(sys, cpu, &t1);
	j->next = t1 - t0;
	return 0;
}

static void test_work_jitter_error_keeps_stream(void **state)
{
	struct jit_err with = { .err = 1 }, without = { .err = 0 };
	struct tlbgen_system *sys;
	int ret;

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct jit_err *j = k ? &without : &with;

		sys = vsys(2, "v6.0", 3, "skylake-56:work_jitter=200");
		assert_int_equal(tlbgen_cpu__spawn(sys, 1, jit_err_prog, j), 0);
		assert_int_equal(tlbgen_vtime__run(sys, ~0ULL), 0);
		assert_int_equal(tlbgen_cpu__join(sys, 1, &ret), 0);
		assert_int_equal(ret, 0);
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
	assert_int_equal(with.err, -EDEADLK);
	assert_int_equal(with.next, without.next);
}

/* ---- machine specs and misuse ----------------------------------------------------------------- */

/* A long munmap()'s zap per page is a figure a spec sets like any other;
 * the built-in x86 models have one, the others none (0: as zap). */
static void test_machine_zap_batched(void **state)
{
	struct tlbgen_machine m;
	char buf[1024];

	(void)state;
	assert_int_equal(tlbgen_machine_lookup("skylake-56:zap_batched=7", &m), 0);
	assert_int_equal(m.zap_batched, 7);
	assert_true(tlbgen_machine_describe(&m, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, ",zap_batched=7"));
	assert_int_equal(tlbgen_machine_lookup("skylake-56:zap_batched=100000001", &m), -EINVAL);
	assert_int_equal(m.zap_batched, 7);
	assert_int_equal(tlbgen_machine_lookup("skx-2s-80", &m), 0);
	assert_int_equal(m.zap_batched, 290);
	assert_int_equal(tlbgen_machine_lookup("arm64-128", &m), 0);
	assert_int_equal(m.zap_batched, 0);
}

static void test_machine_parser(void **state)
{
	struct tlbgen_machine m, keep;
	char buf[1024];

	(void)state;
	tlbgen_set_print(t_quiet_print);
	assert_int_equal(tlbgen_machine_lookup("skylake-56", &m), 0);
	/* 2 sockets x 14 cores x 2 threads (lib/core/machine.c). */
	assert_int_equal(m.sockets * m.cores_per_socket * m.threads_per_core, 56);
	assert_int_equal(m.threads_per_core, 2);
	assert_int_equal(m.work_jitter, 0);		/* built-ins: exact costs */
	assert_int_equal(tlbgen_machine_lookup("skylake-56:work_jitter=900", &m), 0);
	assert_int_equal(m.work_jitter, 900);
	assert_int_equal(tlbgen_machine_lookup("skylake-56:ipi_latency=1234,sockets=1", &m), 0);
	assert_int_equal(m.ipi_latency, 1234);
	assert_int_equal(m.sockets, 1);
	assert_true(tlbgen_machine_describe(&m, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "ipi_latency=1234"));
	keep = m;
	assert_int_equal(tlbgen_machine_lookup("skylake-99", &m), -ENOENT);
	assert_int_equal(tlbgen_machine_lookup("skylake-56:nosuch=1", &m), -ENOENT);
	assert_int_equal(tlbgen_machine_lookup("skylake-56:mhz=abc", &m), -EINVAL);
	assert_int_equal(tlbgen_machine_lookup("skylake-56:mhz=0", &m), -EINVAL);
	assert_int_equal(tlbgen_machine_lookup("skylake-56:mhz=-5", &m), -EINVAL);
	assert_int_equal(tlbgen_machine_lookup("skylake-56:threads_per_core=9", &m), -EINVAL);
	assert_int_equal(tlbgen_machine_lookup("skylake-56:work_jitter=901", &m), -EINVAL);
	assert_int_equal(tlbgen_machine_lookup("skylake-56:reserved=0", &m), -ENOENT);
	assert_int_equal(tlbgen_machine_lookup("skylake-56:ipi_latency", &m), -EINVAL);
	assert_int_equal(tlbgen_machine_lookup("skylake-56:", &m), -EINVAL);
	assert_int_equal(tlbgen_machine_lookup(NULL, &m), -EINVAL);
	assert_memory_equal(&m, &keep, sizeof(m));	/* untouched on error */
	/* The messages name what was wrong. */
	t_capture_start();
	assert_int_equal(tlbgen_machine_lookup("skylake-56:ipi_latncy=5", &m), -ENOENT);
	assert_non_null(strstr(t_capture_stop(), "ipi_latncy"));
	t_capture_start();
	assert_int_equal(tlbgen_machine_lookup("skylake-56:threads_per_core=9", &m), -EINVAL);
	assert_non_null(strstr(t_capture_stop(), "threads_per_core"));
	tlbgen_set_print(NULL);
}

/*
 * "host-kernel": "host" with this machine's kernel IPI round trip (a
 * membarrier() IPI less the call without one) as ipi_latency, less the
 * csd line's three transfers; its fields take overrides as any model's.
 * A kernel IPI costs more than one line transfer anywhere it exists.
 * Where membarrier or a second CPU is missing it says so (-EAGAIN).
 */
static void test_machine_host_kernel(void **state)
{
	struct tlbgen_machine m;
	int err;

	(void)state;
	err = tlbgen_machine_lookup("host-kernel", &m);
	if (err == -EAGAIN)
		skip();
	assert_int_equal(err, 0);
	assert_string_equal(m.name, "host-kernel");
	assert_int_equal(m.sockets, 1);
	assert_int_equal(m.ipi_send, 0);
	assert_true(m.ipi_latency > m.same_socket);
	/* measured again: a machine that got busy meanwhile refuses too */
	err = tlbgen_machine_lookup("host-kernel:ipi_latency=4321,ipi_send=7", &m);
	if (err == -EAGAIN)
		skip();
	assert_int_equal(err, 0);
	assert_int_equal(m.ipi_latency, 4321);
	assert_int_equal(m.ipi_send, 7);
}

static void test_misuse(void **state)
{
	struct tlbgen_system *st = t_sys("latest", 2, 1), *v;
	struct tlbgen_machine m;
	uint64_t now;

	(void)state;
	tlbgen_set_print(t_quiet_print);
	assert_int_equal(tlbgen_vtime__run(st, 1000), -EINVAL);
	assert_int_equal(tlbgen_vtime__run(NULL, 1000), -EINVAL);
	assert_int_equal(tlbgen_machine_lookup("skylake-56", &m), 0);
	m.mhz = 0;
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_VIRTUAL,
			    .machine = &m);
		assert_int_equal(tlbgen_system__create(&o, &v), -EINVAL);
	}
	assert_int_equal(tlbgen_machine_lookup("skylake-56", &m), 0);
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_STEPPED,
			    .machine = &m);
		assert_int_equal(tlbgen_system__create(&o, &v), -EINVAL);
	}
	/* A caller built before threads_per_core passes the same sz with 0 in
	 * the field's place (it was tail padding): accepted, one per core. */
	assert_int_equal(tlbgen_machine_lookup("skylake-56", &m), 0);
	m.threads_per_core = 0;
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_VIRTUAL,
			    .machine = &m);
		char buf[1024];

		assert_int_equal(tlbgen_system__create(&o, &v), 0);
		assert_int_equal(tlbgen_system__destroy(v), 0);
		assert_true(tlbgen_machine_describe(&m, buf, sizeof(buf)) > 0);
		assert_non_null(strstr(buf, "threads_per_core=0"));
	}
	/* tlbsync_per_cpu (the old reserved word) past its maximum is refused. */
	assert_int_equal(tlbgen_machine_lookup("skylake-56", &m), 0);
	m.tlbsync_per_cpu = 100001;
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_VIRTUAL,
			    .machine = &m);
		char buf[64];

		assert_int_equal(tlbgen_system__create(&o, &v), -EINVAL);
		assert_int_equal(tlbgen_machine_describe(&m, buf, sizeof(buf)), -EINVAL);
	}
	/* A caller's struct that ends before work_jitter: what lies past its
	 * sz is not read, so the system's model keeps exact costs. */
	assert_int_equal(tlbgen_machine_lookup("skylake-56:work_jitter=500", &m), 0);
	m.sz = offsetof(struct tlbgen_machine, work_jitter);
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_VIRTUAL,
			    .machine = &m);
		struct tlbgen_machine got;

		assert_int_equal(tlbgen_system__create(&o, &v), 0);
		assert_int_equal(tlbgen_vtime__machine(v, &got), 0);
		assert_int_equal(got.work_jitter, 0);
		assert_int_equal(got.threads_per_core, 2);
		assert_int_equal(tlbgen_system__destroy(v), 0);
	}
	v = vsys(2, "latest", 1, NULL);
	assert_int_equal(tlbgen_vtime__spend(v, 0, 10), -EPERM);	/* the host is no CPU */
	assert_int_equal(tlbgen_switch_mm(v, 0, NULL), -EPERM);
	assert_int_equal(tlbgen_vtime__now(v, 2, &now), -EINVAL);
	assert_int_equal(tlbgen_vtime__event(v, 0, TLBGEN_VT_EVENT_NR, 1), -EINVAL);
	assert_int_equal(tlbgen_cpu__join(v, 0, NULL), -ESRCH);
	tlbgen_system__destroy(v);
	tlbgen_system__destroy(st);
	tlbgen_set_print(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_work_jitter),
		cmocka_unit_test(test_work_jitter_error_keeps_stream),
		cmocka_unit_test(test_machine_parser),
		cmocka_unit_test(test_machine_zap_batched),
		cmocka_unit_test(test_machine_host_kernel),
		cmocka_unit_test(test_misuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
