// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/observers/coherence.c - a MESI line-state model fed by the trace hooks.
 *
 * One entry per cacheline id in an open-addressing hash table. A line is
 * either owned (one CPU in E or M) or shared (a bitmap of S holders) or
 * nowhere. That is all MESI needs to decide, per access, whether another
 * cache had to be involved: the transfer counts aa44284960 was argued over.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <tlbgen/coherence.h>

#include "coherence.h"

enum line_state { LINE_NOWHERE = 0, LINE_OWNED, LINE_SHARED };

/*
 * 32 bytes, two to a cacheline: the table is probed once per access of a
 * virtual-time run, at random, so its size is what the host's caches see.
 * Up to 64 CPUs the sharers are a word in the entry, not a block of their
 * own another miss away.
 */
struct line {
	uintptr_t id;
	uint64_t busy_until;	/* virtual time: a transfer of it is in progress */
	union {
		uint64_t word;	/* nr_cpus <= 64 */
		uint64_t *bits;	/* nr_cpus bits */
	} sharers;
	uint16_t owner;		/* LINE_OWNED */
	uint16_t nr_sharers;	/* LINE_SHARED */
	bool used;
	bool dirty;		/* owner holds it M (else E) */
	uint8_t state;		/* enum line_state */
};

_Static_assert(TLBGEN_MAX_CPUS <= UINT16_MAX, "a line's owner and sharer count are 16 bits");

struct tlbgen_coherence {
	unsigned int nr_cpus;
	size_t words;			/* bitmap words per line */
	pthread_mutex_t lock;
	struct line *lines;
	size_t cap, used;		/* cap is a power of two */
	const uint16_t *socket;		/* optional: socket of each CPU */
	/* counts[cpu * TLBGEN_LINE_NR + kind]; NULL: uncounted, into scratch */
	struct tlbgen_coherence_counts *counts;
	struct tlbgen_coherence_counts scratch;
};

static const char *const line_names[TLBGEN_LINE_NR] = {
	[TLBGEN_LINE_MM_TLB_GEN] = "tlb_gen",
	[TLBGEN_LINE_MM_CPUMASK] = "mm_cpumask",
	[TLBGEN_LINE_MM_TRIM] = "next_trim_cpumask",
	[TLBGEN_LINE_TLBSTATE] = "cpu_tlbstate",
	[TLBGEN_LINE_TLBSTATE_SHARED] = "is_lazy",
	[TLBGEN_LINE_FLUSH_TLB_INFO] = "flush_tlb_info",
	[TLBGEN_LINE_CALL_QUEUE] = "call_queue",
	[TLBGEN_LINE_CSD] = "csd",
};

TLBGEN_API const char *tlbgen_line_name(enum tlbgen_line line)
{
	return (unsigned int)line < TLBGEN_LINE_NR ? line_names[line] : NULL;
}

/* Zeroed, cacheline-aligned: no entry straddles two lines. */
static struct line *alloc_lines(size_t n)
{
	struct line *l = aligned_alloc(64, n * sizeof(*l));

	if (l)
		memset(l, 0, n * sizeof(*l));
	return l;
}

TLBGEN_API int tlbgen_coherence__create(unsigned int nr_cpus, struct tlbgen_coherence **out)
{
	struct tlbgen_coherence *c;

	if (!out || !nr_cpus || nr_cpus > TLBGEN_MAX_CPUS)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->nr_cpus = nr_cpus;
	c->words = (nr_cpus + 63) / 64;
	c->cap = 64;
	c->lines = alloc_lines(c->cap);
	c->counts = calloc((size_t)nr_cpus * TLBGEN_LINE_NR, sizeof(*c->counts));
	if (!c->lines || !c->counts) {
		free(c->lines);
		free(c->counts);
		free(c);
		return -ENOMEM;
	}
	pthread_mutex_init(&c->lock, NULL);
	*out = c;
	return 0;
}

static uint64_t *sharers(const struct tlbgen_coherence *c, struct line *l)
{
	return c->words == 1 ? &l->sharers.word : l->sharers.bits;
}

static void free_lines(const struct tlbgen_coherence *c)
{
	for (size_t i = 0; c->words > 1 && i < c->cap; i++)
		if (c->lines[i].used)
			free(c->lines[i].sharers.bits);
}

TLBGEN_API void tlbgen_coherence__destroy(struct tlbgen_coherence *c)
{
	if (!c)
		return;
	free_lines(c);
	free(c->lines);
	free(c->counts);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static size_t hash_id(uintptr_t id)
{
	uint64_t x = (uint64_t)id;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x;
}

static struct line *probe(struct line *lines, size_t cap, uintptr_t id)
{
	size_t i = hash_id(id) & (cap - 1);

	while (lines[i].used && lines[i].id != id)
		i = (i + 1) & (cap - 1);
	return &lines[i];
}

static int grow(struct tlbgen_coherence *c)
{
	size_t ncap = c->cap * 2;
	struct line *n = alloc_lines(ncap);

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < c->cap; i++)
		if (c->lines[i].used)
			*probe(n, ncap, c->lines[i].id) = c->lines[i];
	free(c->lines);
	c->lines = n;
	c->cap = ncap;
	return 0;
}

static struct line *lookup(struct tlbgen_coherence *c, uintptr_t id)
{
	struct line *l;

	if ((c->used + 1) * 4 > c->cap * 3 && grow(c))
		return NULL;
	l = probe(c->lines, c->cap, id);
	if (!l->used) {
		l->sharers.word = 0;
		if (c->words > 1) {
			l->sharers.bits = calloc(c->words, sizeof(uint64_t));
			if (!l->sharers.bits)
				return NULL;
		}
		l->used = true;
		l->id = id;
		l->state = LINE_NOWHERE;
		c->used++;
	}
	return l;
}

static bool test_bit(const uint64_t *b, unsigned int n)
{
	return b[n / 64] >> (n % 64) & 1;
}

static void set_bit(uint64_t *b, unsigned int n)
{
	b[n / 64] |= 1ULL << (n % 64);
}

static void clear_sharers(const struct tlbgen_coherence *c, struct line *l)
{
	if (c->words == 1)
		l->sharers.word = 0;
	else
		memset(l->sharers.bits, 0, c->words * sizeof(uint64_t));
}

static void make_owner(struct tlbgen_coherence *c, struct line *l, unsigned int cpu, bool dirty)
{
	clear_sharers(c, l);
	l->nr_sharers = 0;
	l->state = LINE_OWNED;
	l->owner = (uint16_t)cpu;
	l->dirty = dirty;
}

/*
 * Where the other sharers of l are, seen from `cpu`: `all` asks whether
 * every one is on cpu's socket (a write waits for every invalidation ack),
 * else whether any is (a read takes the nearest copy).
 */
static bool sharers_near(const struct tlbgen_coherence *c, struct line *l, unsigned int cpu,
			 bool all)
{
	if (!c->socket)
		return true;
	for (size_t w = 0; w < c->words; w++) {
		uint64_t bits = sharers(c, l)[w];

		while (bits) {
			unsigned int s = (unsigned int)(w * 64) + (unsigned int)__builtin_ctzll(bits);
			bool same = c->socket[s] == c->socket[cpu];

			bits &= bits - 1;
			if (s == cpu)
				continue;
			if (all && !same)
				return false;
			if (!all && same)
				return true;
		}
	}
	return all;
}

static bool near(const struct tlbgen_coherence *c, unsigned int a, unsigned int b)
{
	return !c->socket || c->socket[a] == c->socket[b];
}

int tlbgen__coherence_access(struct tlbgen_coherence *c, unsigned int cpu,
			     enum tlbgen_line kind, uintptr_t id, enum tlbgen_access_op op,
			     struct tlbgen_coherence_xfer *x)
{
	struct tlbgen_coherence_counts *n;
	struct line *l;
	bool write = op != TLBGEN_OP_READ;

	l = lookup(c, id);
	if (!l)
		return -ENOMEM;
	n = c->counts ? &c->counts[(size_t)cpu * TLBGEN_LINE_NR + kind] : &c->scratch;
	n->accesses++;
	*x = (struct tlbgen_coherence_xfer){ .kind = TLBGEN_XFER_HIT, .near = true,
					     .busy_until = &l->busy_until };

	switch (l->state) {
	case LINE_NOWHERE:
		n->cold_misses++;
		x->kind = TLBGEN_XFER_MEMORY;
		make_owner(c, l, cpu, write);
		break;
	case LINE_OWNED:
		if (l->owner == cpu) {
			/* Hit; a write to E is the silent E -> M. */
			l->dirty |= write;
			break;
		}
		n->transfers++;
		n->invalidations += write;
		x->kind = TLBGEN_XFER_FROM_OWNER;
		x->near = near(c, cpu, l->owner);
		if (write) {
			n->ownership++;
			make_owner(c, l, cpu, true);
		} else {
			/* The owner supplies the data and both end up S. */
			n->downgrades++;
			l->state = LINE_SHARED;
			clear_sharers(c, l);
			set_bit(sharers(c, l), l->owner);
			set_bit(sharers(c, l), cpu);
			l->nr_sharers = 2;
			l->dirty = false;
		}
		break;
	case LINE_SHARED:
		if (test_bit(sharers(c, l), cpu)) {
			if (!write)
				break;
			if (l->nr_sharers > 1) {
				/* S -> M: invalidate every other copy. */
				n->transfers++;
				n->upgrades++;
				n->invalidations += l->nr_sharers - 1;
				x->kind = TLBGEN_XFER_UPGRADE;
				x->invalidated = l->nr_sharers - 1;
				x->near = sharers_near(c, l, cpu, true);
			}
			make_owner(c, l, cpu, true);
			break;
		}
		n->transfers++;
		x->kind = TLBGEN_XFER_FROM_SHARED;
		x->near = sharers_near(c, l, cpu, write);
		if (write) {
			n->ownership++;
			n->invalidations += l->nr_sharers;
			x->invalidated = l->nr_sharers;
			make_owner(c, l, cpu, true);
		} else {
			n->shared_reads++;
			set_bit(sharers(c, l), cpu);
			l->nr_sharers++;
		}
		break;
	}
	return 0;
}

void tlbgen__coherence_set_sockets(struct tlbgen_coherence *c, const uint16_t *socket)
{
	c->socket = socket;
}

void tlbgen__coherence_uncounted(struct tlbgen_coherence *c)
{
	free(c->counts);
	c->counts = NULL;
}

TLBGEN_API int tlbgen_coherence__line_access(struct tlbgen_coherence *c, unsigned int cpu,
					     enum tlbgen_line kind, uintptr_t id,
					     enum tlbgen_access_op op)
{
	struct tlbgen_coherence_xfer x;
	int err;

	if (!c || cpu >= c->nr_cpus || (unsigned int)kind >= TLBGEN_LINE_NR ||
	    (unsigned int)op > TLBGEN_OP_RMW)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	err = tlbgen__coherence_access(c, cpu, kind, id, op, &x);
	pthread_mutex_unlock(&c->lock);
	return err;
}

static void hook_line_access(void *ctx, unsigned int cpu, enum tlbgen_line line, uintptr_t id,
			     enum tlbgen_access_op op)
{
	(void)tlbgen_coherence__line_access(ctx, cpu, line, id, op);
}

TLBGEN_API int tlbgen_coherence__trace_ops(struct tlbgen_coherence *c,
					   struct tlbgen_trace_ops *ops)
{
	if (!c || !ops)
		return -EINVAL;
	memset(ops, 0, sizeof(*ops));
	ops->sz = sizeof(*ops);
	ops->line_access = hook_line_access;
	ops->ctx = c;
	return 0;
}

static void add_counts(struct tlbgen_coherence_counts *a, const struct tlbgen_coherence_counts *b)
{
	a->accesses += b->accesses;
	a->transfers += b->transfers;
	a->downgrades += b->downgrades;
	a->shared_reads += b->shared_reads;
	a->upgrades += b->upgrades;
	a->ownership += b->ownership;
	a->invalidations += b->invalidations;
	a->cold_misses += b->cold_misses;
}

TLBGEN_API int tlbgen_coherence__counts(const struct tlbgen_coherence *c, enum tlbgen_line line,
					int cpu, struct tlbgen_coherence_counts *out)
{
	struct tlbgen_coherence *m = (struct tlbgen_coherence *)c;

	if (!c || !out || (unsigned int)line > TLBGEN_LINE_NR || cpu < -1 ||
	    (cpu >= 0 && (unsigned int)cpu >= c->nr_cpus))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&m->lock);
	for (unsigned int p = 0; c->counts && p < c->nr_cpus; p++) {
		if (cpu >= 0 && p != (unsigned int)cpu)
			continue;
		for (unsigned int k = 0; k < TLBGEN_LINE_NR; k++)
			if (line == TLBGEN_LINE_NR || k == (unsigned int)line)
				add_counts(out, &c->counts[(size_t)p * TLBGEN_LINE_NR + k]);
	}
	pthread_mutex_unlock(&m->lock);
	return 0;
}

TLBGEN_API uint64_t tlbgen_coherence__transfers(const struct tlbgen_coherence *c,
						enum tlbgen_line line, int cpu)
{
	struct tlbgen_coherence_counts n;

	return tlbgen_coherence__counts(c, line, cpu, &n) ? 0 : n.transfers;
}

TLBGEN_API long tlbgen_coherence__nr_lines(const struct tlbgen_coherence *c)
{
	return c ? (long)c->used : -EINVAL;
}

TLBGEN_API int tlbgen_coherence__reset(struct tlbgen_coherence *c, bool forget_lines)
{
	if (!c)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	if (c->counts)
		memset(c->counts, 0, (size_t)c->nr_cpus * TLBGEN_LINE_NR * sizeof(*c->counts));
	if (forget_lines) {
		free_lines(c);
		memset(c->lines, 0, c->cap * sizeof(*c->lines));
		c->used = 0;
	}
	pthread_mutex_unlock(&c->lock);
	return 0;
}
