// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The workload layer's kernel lines beside mmap_lock's own use, in virtual
 * time: the fault's prefetch of mmap_lock's line.
 */
#include "wl-vsys.h"

struct lrun {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	struct tlbgen_wl *wl;
};

/* A virtual system of `cpus` CPUs on `machine` with `choices` over latest. */
static void lrun_setup(struct lrun *r, unsigned int cpus, const char *machine,
		       const char *choices)
{
	memset(r, 0, sizeof(*r));
	wl_vsys_create(machine, cpus, &r->sys, &r->mm, &r->wl);
	assert_int_equal(tlbgen_system__set_choices(r->sys, choices), 0);
}

/* Run `fn` on CPUs 0 .. cpus-1 to the end; the work time of the run. */
static uint64_t lrun_run(struct lrun *r, unsigned int cpus,
			 int (*fn)(struct tlbgen_system *, unsigned int, void *))
{
	struct tlbgen_vtime_stats st = { .sz = sizeof(st) };
	int ret;

	for (unsigned int c = 0; c < cpus; c++)
		assert_int_equal(tlbgen_cpu__spawn(r->sys, c, fn, r), 0);
	assert_int_equal(tlbgen_vtime__run(r->sys, UINT64_MAX), 0);
	for (unsigned int c = 0; c < cpus; c++) {
		assert_int_equal(tlbgen_cpu__join(r->sys, c, &ret), 0);
		assert_int_equal(ret, 0);
	}
	assert_int_equal(tlbgen_vtime__stats(r->sys, &st), 0);
	return st.time[TLBGEN_VT_TIME_WORK];
}

static void lrun_teardown(struct lrun *r)
{
	assert_int_equal(tlbgen_oracle__violations(r->sys), 0);
	tlbgen_wl__destroy(r->wl);
	assert_int_equal(tlbgen_system__destroy(r->sys), 0);
}

/*
 * x86's exc_page_fault() did prefetchw(&mm->mmap_lock) until 1701771d3069:
 * two CPUs faulting under the VMA lock alone still pass mmap_lock's line
 * between them. CPU 0 faults first and finds the line unowned (a hit);
 * CPU 1's prefetch then fetches it from CPU 0. Without the prefetch, or
 * with arm64's fault handler or batch hooks, neither fault touches the line.
 */
static int prefetch_faulter(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct lrun *r = arg;
	unsigned long addr = (unsigned long)cpu << TLBGEN_PAGE_SHIFT;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	if (!err)
		err = tlbgen_pte_set(sys, cpu, r->mm, addr, TLBGEN_PTEF_NONE);
	if (!err && cpu)
		err = tlbgen_vtime__spend(sys, cpu, 1000);	/* CPU 0 faults first */
	return err ? err : tlbgen_wl__fault(r->wl, cpu, r->mm, addr, TLBGEN_MAP_ANON,
					    TLBGEN_WL_FAULT_WRITE);
}

static uint64_t prefetch_work(const char *choices)
{
	uint64_t w[TLBGEN_WL_STAT_NR], work;
	struct lrun r;

	lrun_setup(&r, 2, "skylake-56", choices);
	work = lrun_run(&r, 2, prefetch_faulter);
	assert_int_equal(tlbgen_wl__stats(r.wl, -1, w, TLBGEN_WL_STAT_NR), TLBGEN_WL_STAT_NR);
	assert_int_equal(w[TLBGEN_WL_STAT_FAULTS], 2);
	assert_int_equal(w[TLBGEN_WL_STAT_MMAP_LOCK_WAITS], 0);
	lrun_teardown(&r);
	return work;
}

static void test_fault_prefetchw(void **state)
{
	struct tlbgen_machine m;
	uint64_t none, pre;

	(void)state;
	assert_int_equal(tlbgen_machine_lookup("skylake-56", &m), 0);
	none = prefetch_work("vma_lock_fault=all,fault_prefetchw=none");
	pre = prefetch_work("vma_lock_fault=all,fault_prefetchw=mmap_lock");
	assert_int_equal(pre - none, m.hit + m.same_socket);
	assert_int_equal(prefetch_work("vma_lock_fault=all,fault_prefetchw=mmap_lock,fault_arch=arm64"),
			 prefetch_work("vma_lock_fault=all,fault_prefetchw=none,fault_arch=arm64"));
	assert_int_equal(prefetch_work("vma_lock_fault=all,fault_prefetchw=mmap_lock,batch_arch=arm64"),
			 prefetch_work("vma_lock_fault=all,fault_prefetchw=none,batch_arch=arm64"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_prefetchw),
	};

	return cmocka_run_group_tests_name("workload-lines", tests, NULL, NULL);
}
