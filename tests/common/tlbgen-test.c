// SPDX-License-Identifier: LGPL-2.1-or-later
/* tests/common/tlbgen-test.c - see tlbgen-test.h. */
#include <stdlib.h>

#include "tlbgen-test.h"

struct tlbgen_system *t_sys_opts(const struct tlbgen_system_opts *opts)
{
	struct tlbgen_system *sys = NULL;

	assert_int_equal(tlbgen_system__create(opts, &sys), 0);
	assert_non_null(sys);
	return sys;
}

struct tlbgen_system *t_sys_threaded(unsigned int n, const struct tlbgen_runtime_opts *rt,
				     const char *profile)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = n, .mode = TLBGEN_MODE_THREADED,
		    .profile = profile, .runtime = rt);

	return t_sys_opts(&o);
}

void t_two_start(struct t_two *t, const struct tlbgen_runtime_opts *rt, tlbgen_cpu_fn fn)
{
	t->sys = t_sys_threaded(2, rt, "latest");
	assert_int_equal(tlbgen_mm__create(t->sys, 4, &t->mm), 0);
	assert_int_equal(tlbgen_cpu__spawn(t->sys, 1, fn, t), 0);
	assert_int_equal(tlbgen_cpu__attach(t->sys, 0), 0);
	while (!atomic_load(&t->ready))
		sched_yield();
}

void t_two_stop(struct t_two *t)
{
	assert_int_equal(tlbgen_cpu__detach(t->sys, 0), 0);
	assert_int_equal(tlbgen_system__destroy(t->sys), 0);
}

struct tlbgen_system *t_sys(const char *profile, unsigned int nr_cpus, uint64_t seed)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = nr_cpus, .profile = profile,
		    .seed = seed, .mode = TLBGEN_MODE_STEPPED);

	return t_sys_opts(&o);
}

struct tlbgen_system *t_sys_mode(unsigned int n, enum tlbgen_mode mode, const char *profile,
				 const char *choices)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = n, .mode = mode, .profile = profile,
		    .seed = 42);
	struct tlbgen_system *sys = t_sys_opts(&o);

	if (choices)
		assert_int_equal(tlbgen_system__set_choices(sys, choices), 0);
	return sys;
}

struct tlbgen_mm *t_mm(struct tlbgen_system *sys, unsigned long nr_pages)
{
	struct tlbgen_mm *mm = NULL;

	assert_int_equal(tlbgen_mm__create(sys, nr_pages, &mm), 0);
	assert_non_null(mm);
	return mm;
}

uint64_t t_cpu_stat(const struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_stat s)
{
	uint64_t v[TLBGEN_STAT_NR];

	assert_int_equal(tlbgen_stats__cpu(sys, cpu, v, TLBGEN_STAT_NR), TLBGEN_STAT_NR);
	return v[s];
}

uint64_t t_sys_stat(const struct tlbgen_system *sys, enum tlbgen_stat s)
{
	uint64_t v[TLBGEN_STAT_NR];

	assert_int_equal(tlbgen_stats__system(sys, v, TLBGEN_STAT_NR), TLBGEN_STAT_NR);
	return v[s];
}

uint64_t t_mm_stat(const struct tlbgen_mm *mm, enum tlbgen_stat s)
{
	uint64_t v[TLBGEN_STAT_NR];

	assert_int_equal(tlbgen_stats__mm(mm, v, TLBGEN_STAT_NR), TLBGEN_STAT_NR);
	return v[s];
}

uint64_t t_mm_gen(const struct tlbgen_mm *mm)
{
	uint64_t g = ~0ULL;

	assert_int_equal(tlbgen_mm__tlb_gen(mm, &g), 0);
	return g;
}

uint64_t t_local_gen(const struct tlbgen_system *sys, unsigned int cpu)
{
	uint64_t g = ~0ULL;

	assert_int_equal(tlbgen_cpu__local_tlb_gen(sys, cpu, &g), 0);
	return g;
}

struct tlbgen_cpu_tlbstate t_state(const struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu_tlbstate s;

	assert_int_equal(tlbgen_cpu__tlbstate(sys, cpu, &s), 0);
	return s;
}

void t_switch_all(struct tlbgen_system *sys, unsigned int first, unsigned int last,
		  struct tlbgen_mm *mm)
{
	for (unsigned int c = first; c <= last; c++)
		assert_int_equal(tlbgen_switch_mm(sys, c, mm), 0);
}

int t_idle(struct tlbgen_system *sys)
{
	int n = tlbgen_run_until_idle(sys);

	assert_true(n >= 0);
	return n;
}

int t_vt_tlb_flush1_op(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
		       unsigned long addr)
{
	int err = tlbgen_vtime__event(sys, cpu, TLBGEN_VT_PAGE_FAULT, 1);

	err = err ?: tlbgen_pte_change(sys, cpu, mm, addr);
	err = err ?: (tlbgen_access(sys, cpu, addr) < 0);
	err = err ?: tlbgen_vtime__event(sys, cpu, TLBGEN_VT_SYSCALL, 1);
	err = err ?: tlbgen_pte_change(sys, cpu, mm, addr);
	return err ?: tlbgen_flush_tlb_page(sys, cpu, mm, addr);
}

int t_quiet_print(enum tlbgen_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int t_warn_print(enum tlbgen_print_level level, const char *fmt, va_list ap)
{
	if (level != TLBGEN_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* ---- recorder ------------------------------------------------------------- */

static void rec_push(struct t_rec *r, struct t_event e)
{
	if (r->nr == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		struct t_event *p = realloc(r->ev, cap * sizeof(*p));

		assert_non_null(p);
		r->ev = p;
		r->cap = cap;
	}
	r->ev[r->nr++] = e;
	if (r->hook)
		r->hook(r, &r->ev[r->nr - 1]);
}

static void rec_line(void *ctx, unsigned int cpu, enum tlbgen_line line, uintptr_t id,
		     enum tlbgen_access_op op)
{
	struct t_rec *r = ctx;

	(void)id;	/* an address: differs between runs, never recorded */
	if (r->lines)
		rec_push(r, (struct t_event){ .kind = EV_LINE, .sub = (uint8_t)line,
					      .op = (uint8_t)op, .a = (uint16_t)cpu });
}

static void rec_send(void *ctx, unsigned int from, unsigned int to)
{
	rec_push(ctx, (struct t_event){ .kind = EV_IPI_SEND, .a = (uint16_t)from,
					.b = (uint16_t)to });
}

static void rec_recv(void *ctx, unsigned int cpu, unsigned int from)
{
	rec_push(ctx, (struct t_event){ .kind = EV_IPI_RECV, .a = (uint16_t)cpu,
					.b = (uint16_t)from });
}

static void rec_flush(void *ctx, unsigned int cpu, enum tlbgen_flush_kind kind,
		      unsigned long pages)
{
	rec_push(ctx, (struct t_event){ .kind = EV_FLUSH, .sub = (uint8_t)kind,
					.a = (uint16_t)cpu, .n = pages });
}

void t_rec_install(struct tlbgen_system *sys, struct t_rec *r, bool lines)
{
	TLBGEN_OPTS(tlbgen_trace_ops, ops, .line_access = rec_line, .ipi_send = rec_send,
		    .ipi_receive = rec_recv, .flush = rec_flush, .ctx = r);

	r->lines = lines;
	assert_int_equal(tlbgen_system__set_trace(sys, &ops), 0);
}

void t_rec_clear(struct t_rec *r)
{
	r->nr = 0;
}

void t_rec_free(struct t_rec *r)
{
	free(r->ev);
	r->ev = NULL;
	r->nr = r->cap = 0;
}

long t_rec_find(const struct t_rec *r, size_t from, uint8_t kind, int sub, int op, int a, int b)
{
	for (size_t i = from; i < r->nr; i++) {
		const struct t_event *e = &r->ev[i];

		if (e->kind == kind && (sub < 0 || e->sub == sub) && (op < 0 || e->op == op) &&
		    (a < 0 || e->a == a) && (b < 0 || e->b == b))
			return (long)i;
	}
	return -1;
}

/* ---- message capture ------------------------------------------------------- */

static char cap_buf[16384];
static size_t cap_len;

static int cap_print(enum tlbgen_print_level level, const char *fmt, va_list ap)
{
	int n;

	(void)level;
	if (cap_len >= sizeof(cap_buf) - 1)
		return 0;
	n = vsnprintf(cap_buf + cap_len, sizeof(cap_buf) - cap_len, fmt, ap);
	if (n > 0)
		cap_len += (size_t)n < sizeof(cap_buf) - cap_len ? (size_t)n
								 : sizeof(cap_buf) - 1 - cap_len;
	return n;
}

static tlbgen_print_fn_t cap_prev;

void t_capture_start(void)
{
	cap_len = 0;
	cap_buf[0] = 0;
	cap_prev = tlbgen_set_print(cap_print);
}

const char *t_capture_stop(void)
{
	tlbgen_set_print(cap_prev);
	return cap_buf;
}

/* ---- the overlapping-flush workload ------------------------------------------ */

static uint64_t wl_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

#define WL_PAGES 32

/* One scheduler step; the mm tlb_gen reads it causes are remote flush_tlb_func reads. */
static bool wl_step(struct tlbgen_system *sys, struct t_wl_result *out)
{
	uint64_t before = t_sys_stat(sys, TLBGEN_STAT_TLB_GEN_READ);

	if (tlbgen_step(sys) < 0)
		return false;
	out->remote_reads += t_sys_stat(sys, TLBGEN_STAT_TLB_GEN_READ) - before;
	return true;
}

/*
 * All CPUs run one mm (switches done before the counters are reset, since
 * switch_mm reads tlb_gen too). Each round every CPU that is not waiting
 * either zaps-and-flushes one page (pte change + flush_tlb_page, like
 * MADV_DONTNEED in tlb_flush1/2) or touches a page; then the seeded scheduler
 * delivers 0-2 CPUs' queues, so flushes pile up on the targets' queues. No
 * workload decision depends on the policy, so every column sees the same
 * queueing and delivery order; only flush_tlb_func's decisions differ.
 * Reads made inside tlbgen_step() are by remote flush_tlb_func calls only
 * (no CPU is lazy, so no switch_mm runs there); reads made inside
 * flush_tlb_page() are the initiator's local flush_tlb_func.
 */
void t_workload(const struct t_wl_params *p, struct t_wl_result *out)
{
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	uint64_t s = p->wl_seed ? p->wl_seed : 1;

	memset(out, 0, sizeof(*out));
	sys = t_sys(p->profile, p->nr_cpus, p->sys_seed);
	if (p->choices)
		assert_int_equal(tlbgen_system__set_choices(sys, p->choices), 0);
	mm = t_mm(sys, WL_PAGES);
	t_switch_all(sys, 0, p->nr_cpus - 1, mm);
	for (unsigned int c = 0; c < p->nr_cpus; c++)
		for (unsigned int pg = 0; pg < WL_PAGES; pg++)
			assert_true(tlbgen_access(sys, c, PG(pg)) >= 0);
	assert_true(p->nr_cpus <= T_WL_MAX_CPUS);
	t_rec_install(sys, &out->rec, p->record_lines);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_oracle__reset(sys), 0);

	for (unsigned int r = 0; r < p->rounds; r++) {
		unsigned int steps;

		for (unsigned int c = 0; c < p->nr_cpus; c++) {
			uint64_t x = wl_rand(&s);
			unsigned long page = (x >> 16) % WL_PAGES;

			if (tlbgen_cpu__is_waiting(sys, c))
				continue;
			if (x % 3 == 0) {
				uint64_t before = t_sys_stat(sys, TLBGEN_STAT_TLB_GEN_READ);

				assert_int_equal(tlbgen_pte_change(sys, c, mm, PG(page)), 0);
				assert_int_equal(tlbgen_flush_tlb_page(sys, c, mm, PG(page)), 0);
				out->local_reads += t_sys_stat(sys, TLBGEN_STAT_TLB_GEN_READ) - before;
				out->flushes++;
			} else {
				assert_true(tlbgen_access(sys, c, PG(page)) >= 0);
			}
		}
		for (unsigned int c = 0; c < p->nr_cpus; c++) {
			int q = tlbgen_cpu__pending_calls(sys, c);

			assert_true(q >= 0);
			if ((uint64_t)q > out->max_queue)
				out->max_queue = (uint64_t)q;
		}
		steps = (unsigned int)(wl_rand(&s) % 3);
		for (unsigned int i = 0; i < steps && wl_step(sys, out); i++)
			;
	}
	while (wl_step(sys, out))
		;
	for (unsigned int c = 0; c < p->nr_cpus; c++) {
		assert_int_equal(tlbgen_cpu__is_waiting(sys, c), 0);
		for (unsigned int pg = 0; pg < WL_PAGES; pg++)
			assert_true(tlbgen_access(sys, c, PG(pg)) >= 0);
	}

	out->violations = tlbgen_oracle__violations(sys);
	assert_int_equal(tlbgen_stats__system(sys, out->stats, TLBGEN_STAT_NR), TLBGEN_STAT_NR);
	for (unsigned int c = 0; c < p->nr_cpus; c++)
		assert_int_equal(tlbgen_stats__cpu(sys, c, out->cpu_stats[c], TLBGEN_STAT_NR),
				 TLBGEN_STAT_NR);
	out->remote_calls = out->stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE];
	out->early_skip = out->stats[TLBGEN_STAT_EARLY_SKIP];
	out->up_to_date = out->stats[TLBGEN_STAT_UP_TO_DATE];
	out->full = out->stats[TLBGEN_STAT_FULL_FLUSH];
	out->partial = out->stats[TLBGEN_STAT_PARTIAL_FLUSH];
	out->pages = out->stats[TLBGEN_STAT_PAGES_INVALIDATED];
	out->ipis = out->stats[TLBGEN_STAT_IPI_SENT];
	out->calls_queued = out->stats[TLBGEN_STAT_CALL_QUEUED];
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

void t_wl_print(const char *column, const struct t_wl_params *p, const struct t_wl_result *r)
{
	printf("%-36s %-24s %6.3f %12llu %10llu %10llu %8llu %8llu %8llu %6llu %6ld\n", column,
	       p->choices ? p->choices : "-",
	       r->remote_calls ? (double)r->remote_reads / (double)r->remote_calls : 0.0,
	       (unsigned long long)r->remote_calls, (unsigned long long)r->remote_reads,
	       (unsigned long long)r->early_skip, (unsigned long long)r->up_to_date,
	       (unsigned long long)r->full, (unsigned long long)r->partial,
	       (unsigned long long)r->ipis, r->violations);
}
