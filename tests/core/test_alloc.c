// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/core/test_alloc.c - per-CPU memory comes from per-node arenas
 * (lib/base/arena.c): a system that cannot get its memory is not created
 * (-ENOMEM, *out untouched) and leaves nothing mapped. Address-space limits
 * (RLIMIT_AS) make the allocations fail; each case runs in a child so the
 * limit stays there. Skipped under ASan and TSan, whose shadow memory needs
 * more address space than any such limit allows.
 */
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "../common/tlbgen-test.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Size of this process's address space, bytes (/proc/self/statm). */
static long vm_size(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long size = -1;

	if (f) {
		if (fscanf(f, "%ld", &size) != 1)
			size = -1;
		fclose(f);
	}
	return size < 0 ? -1 : size * sysconf(_SC_PAGESIZE);
}

static int create(unsigned int cpus, struct tlbgen_system **out)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = cpus, .mode = TLBGEN_MODE_STEPPED,
		    .profile = "v6.0", .flags = TLBGEN_SYS_NO_ORACLE);

	return tlbgen_system__create(&o, out);
}

/* Child: 0 when every check held, else the number of the one that failed. */
static int enomem_child(void)
{
	struct tlbgen_system *sentinel = (struct tlbgen_system *)&sentinel, *sys = sentinel;
	struct rlimit rl;
	long before;

	/* Warm up libc and the library, so the limit below is all they get. */
	if (create(4, &sys) || tlbgen_system__destroy(sys))
		return 1;
	before = vm_size();
	if (before < 0)
		return 2;
	rl.rlim_cur = rl.rlim_max = (rlim_t)before + (12 << 20);
	if (setrlimit(RLIMIT_AS, &rl))
		return 3;
	sys = sentinel;
	/* 8192 CPUs need about 35 MiB: the flush records (6 MiB) and init_mm fit,
	 * the arena runs out after mapping its first chunks. */
	if (create(8192, &sys) != -ENOMEM || sys != sentinel)
		return 4;
	if (vm_size() != before)	/* nothing left mapped */
		return 5;
	/* A small system still fits in what is left. */
	if (create(4, &sys) || sys == sentinel || tlbgen_system__destroy(sys))
		return 6;
	return 0;
}

static int run_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* Creation that runs out of memory: -ENOMEM, *out untouched, nothing mapped. */
static void test_create_enomem(void **state)
{
	(void)state;
#ifdef UNDER_ASAN
	const bool under_asan = true;
#else
	const bool under_asan = false;
#endif

	if (under_asan)
		skip();
	else
		assert_int_equal(run_child(enomem_child), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_enomem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
