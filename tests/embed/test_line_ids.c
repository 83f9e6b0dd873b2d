// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/embed/test_line_ids.c - trace line ids (tlbgen/trace.h) are
 * ordinals, so the same stepped run hashes the same in two processes whose
 * heaps differ (and, as a control, does not with address ids); a destroyed
 * mm's lines are forgotten; tlbgen_line_name() is where the hooks are.
 */
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "tlbgen-test.h"

extern char **environ;

#define NR 6

/* splitmix64 */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* ---- stable line ids ------------------------------------------------------------ */

struct hash {
	uint64_t h;
	uint64_t events;
	uintptr_t max_id;
	bool bad_id;	/* 0, or not a multiple of 64 */
	uintptr_t gen_id;	/* the last tlb_gen line seen */
};

static void mix(struct hash *x, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8) {	/* FNV-1a */
		x->h ^= v & 0xff;
		x->h *= 0x100000001b3ULL;
	}
	x->events++;
}

static void h_line(void *ctx, unsigned int cpu, enum tlbgen_line line, uintptr_t id,
		   enum tlbgen_access_op op)
{
	struct hash *x = ctx;

	mix(x, 1);
	mix(x, cpu);
	mix(x, (uint64_t)line);
	mix(x, (uint64_t)id);
	mix(x, (uint64_t)op);
	if (!id || id % 64)
		x->bad_id = true;
	if (id > x->max_id)
		x->max_id = id;
	if (line == TLBGEN_LINE_MM_TLB_GEN)
		x->gen_id = id;
}

static void h_send(void *ctx, unsigned int from, unsigned int to)
{
	mix(ctx, 2);
	mix(ctx, from);
	mix(ctx, to);
}

static void h_recv(void *ctx, unsigned int cpu, unsigned int from)
{
	mix(ctx, 3);
	mix(ctx, cpu);
	mix(ctx, from);
}

static void h_flush(void *ctx, unsigned int cpu, enum tlbgen_flush_kind kind,
		    unsigned long pages)
{
	mix(ctx, 4);
	mix(ctx, cpu);
	mix(ctx, (uint64_t)kind);
	mix(ctx, pages);
}

/*
 * A seeded stepped run with mms created and destroyed along the way; the
 * hash of every trace event. `pad` small allocations first move the heap.
 */
static uint64_t traced_run(enum tlbgen_line_ids ids, unsigned int pad, struct hash *x)
{
	TLBGEN_OPTS(tlbgen_trace_ops, ops, .line_access = h_line, .ipi_send = h_send,
		    .ipi_receive = h_recv, .flush = h_flush, .ctx = x);
	void **keep = calloc(pad + 1, sizeof(*keep));
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm[3];
	uint64_t s = 99;

	assert_non_null(keep);
	for (unsigned int i = 0; i < pad; i++)
		keep[i] = malloc(48 + i % 200);
	memset(x, 0, sizeof(*x));
	x->h = 0xcbf29ce484222325ULL;
	sys = t_sys("latest", NR, 5);
	assert_int_equal(tlbgen_system__set_line_ids(sys, ids), 0);
	assert_int_equal(tlbgen_system__set_trace(sys, &ops), 0);
	for (unsigned int i = 0; i < 3; i++)
		mm[i] = t_mm(sys, 32);
	for (int i = 0; i < 3000; i++) {
		uint64_t r = rnd(&s);
		unsigned int cpu = (unsigned int)(r % NR), k = (unsigned int)((r >> 8) % 16);
		unsigned int j = (unsigned int)((r >> 16) % 3);

		if (k < 4)
			(void)tlbgen_switch_mm(sys, cpu, mm[j]);
		else if (k < 8)
			(void)tlbgen_flush_tlb_page(sys, cpu, mm[j], PG((r >> 24) % 32));
		else if (k < 9)
			(void)tlbgen_enter_lazy_tlb(sys, cpu);
		else if (k < 10 && i % 7 == 0) {	/* an mm dies, another is born */
			for (unsigned int c = 0; c < NR; c++)
				if (tlbgen_cpu__loaded_mm_is(sys, c, mm[j]) == 1)
					(void)tlbgen_switch_mm(sys, c, NULL);
			t_idle(sys);
			if (tlbgen_mm__destroy(mm[j]) == 0)
				mm[j] = t_mm(sys, 32);
		} else
			(void)tlbgen_step(sys);
	}
	t_idle(sys);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	for (unsigned int i = 0; i < pad; i++)
		free(keep[i]);
	free(keep);
	return x->h;
}

/*
 * The coherence model fed by a run without mm teardown, with ordinals or
 * with addresses: an id names the same line either way, so every kind's
 * counts and the number of lines are identical.
 */
static void mesi_run(enum tlbgen_line_ids ids, struct tlbgen_coherence_counts *out, long *lines)
{
	struct tlbgen_coherence *c;
	struct tlbgen_trace_ops ops;
	struct tlbgen_system *sys = t_sys("v6.14", NR, 8);
	struct tlbgen_mm *mm[2] = { t_mm(sys, 16), t_mm(sys, 16) };
	uint64_t s = 21;

	assert_int_equal(tlbgen_coherence__create(NR, &c), 0);
	assert_int_equal(tlbgen_coherence__trace_ops(c, &ops), 0);
	assert_int_equal(tlbgen_system__set_line_ids(sys, ids), 0);
	assert_int_equal(tlbgen_system__set_trace(sys, &ops), 0);
	for (int i = 0; i < 3000; i++) {
		uint64_t r = rnd(&s);
		unsigned int cpu = (unsigned int)(r % NR), k = (unsigned int)((r >> 8) % 8);
		struct tlbgen_mm *m = mm[(r >> 16) % 2];

		if (k < 2)
			(void)tlbgen_switch_mm(sys, cpu, m);
		else if (k < 5)
			(void)tlbgen_flush_tlb_page(sys, cpu, m, PG((r >> 24) % 16));
		else if (k < 6)
			(void)tlbgen_enter_lazy_tlb(sys, cpu);
		else
			(void)tlbgen_step(sys);
	}
	t_idle(sys);
	for (unsigned int l = 0; l < TLBGEN_LINE_NR; l++)
		assert_int_equal(tlbgen_coherence__counts(c, (enum tlbgen_line)l, -1, &out[l]), 0);
	*lines = tlbgen_coherence__nr_lines(c);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	tlbgen_coherence__destroy(c);
}

static void test_same_lines_either_way(void **state)
{
	struct tlbgen_coherence_counts a[TLBGEN_LINE_NR], b[TLBGEN_LINE_NR];
	long la, lb;

	(void)state;
	mesi_run(TLBGEN_LINE_IDS_STABLE, a, &la);
	mesi_run(TLBGEN_LINE_IDS_ADDRESS, b, &lb);
	assert_true(la > 10);
	assert_int_equal(la, lb);
	assert_true(a[TLBGEN_LINE_MM_TLB_GEN].transfers > 0);
	for (unsigned int l = 0; l < TLBGEN_LINE_NR; l++)
		assert_memory_equal(&a[l], &b[l], sizeof(a[l]));
}

static const char *self;

/* Run this program again with `--trace-hash IDS PAD`; its hash. */
static uint64_t hash_in_child(enum tlbgen_line_ids ids, unsigned int pad)
{
	char a_ids[16], a_pad[16], out[64] = { 0 };
	char *argv[] = { (char *)self, (char *)"--trace-hash", a_ids, a_pad, NULL };
	posix_spawn_file_actions_t fa;
	int fd[2], status;
	pid_t pid;
	ssize_t n;

	snprintf(a_ids, sizeof(a_ids), "%d", (int)ids);
	snprintf(a_pad, sizeof(a_pad), "%u", pad);
	assert_int_equal(pipe(fd), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	assert_int_equal(posix_spawn(&pid, self, &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	n = read(fd[0], out, sizeof(out) - 1);
	close(fd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(n > 0);
	return strtoull(out, NULL, 16);
}

static void test_trace_hash_across_processes(void **state)
{
	uint64_t a, b;

	(void)state;
	a = hash_in_child(TLBGEN_LINE_IDS_STABLE, 0);
	b = hash_in_child(TLBGEN_LINE_IDS_STABLE, 3000);
	assert_true(a == b);
	/* The control: the same two runs with address ids do differ, so the
	 * equality above is the ids' doing, not two identical heaps. */
	a = hash_in_child(TLBGEN_LINE_IDS_ADDRESS, 0);
	b = hash_in_child(TLBGEN_LINE_IDS_ADDRESS, 3000);
	assert_true(a != b);
}

static void test_line_ids(void **state)
{
	struct hash x;
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	uintptr_t first;
	TLBGEN_OPTS(tlbgen_trace_ops, ops, .line_access = h_line, .ctx = &x);

	(void)state;
	traced_run(TLBGEN_LINE_IDS_STABLE, 0, &x);
	assert_false(x.bad_id);
	assert_true(x.events > 10000);
	/* Ordinals: far fewer distinct lines than events, numbered densely. */
	assert_true(x.max_id / 64 < 2000);

	/* A destroyed mm's lines are forgotten: its successor, even at the
	 * same address, gets a new tlb_gen line id. */
	memset(&x, 0, sizeof(x));
	sys = t_sys("latest", 2, 1);
	assert_int_equal(tlbgen_system__set_trace(sys, &ops), 0);
	mm = t_mm(sys, 8);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, 0), 0);
	first = x.gen_id;
	assert_true(first != 0);
	assert_int_equal(tlbgen_mm__destroy(mm), 0);
	mm = t_mm(sys, 8);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, 0), 0);
	assert_true(x.gen_id > first);
	t_idle(sys);

	assert_int_equal(tlbgen_system__set_line_ids(sys, (enum tlbgen_line_ids)7), -EINVAL);
	assert_int_equal(tlbgen_system__set_line_ids(NULL, TLBGEN_LINE_IDS_STABLE), -EINVAL);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	/* The line-name helper where the hooks are declared. */
	assert_string_equal(tlbgen_line_name(TLBGEN_LINE_MM_TLB_GEN), "tlb_gen");
	assert_null(tlbgen_line_name(TLBGEN_LINE_NR));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_ids),
		cmocka_unit_test(test_same_lines_either_way),
		cmocka_unit_test(test_trace_hash_across_processes),
	};

	if (argc == 4 && !strcmp(argv[1], "--trace-hash")) {
		struct hash x;

		printf("%016llx\n", (unsigned long long)traced_run(
				(enum tlbgen_line_ids)atoi(argv[2]), (unsigned int)atoi(argv[3]), &x));
		return 0;
	}
	self = "/proc/self/exe";
	return cmocka_run_group_tests(tests, NULL, NULL);
}
