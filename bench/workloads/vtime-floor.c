// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/vtime-floor.c - the floor of tlbgen-bench vtime: one scheduling
 * point of a discrete-event simulation of CPUs sharing cachelines, written
 * bare. What any engine of this kind must do per shared-line access: find
 * the line's directory entry, price the access by who holds the line,
 * advance the CPU's clock, and resume whichever CPU is now earliest (a
 * coroutine switch when that is another one). No store buffer, no IPIs,
 * no statistics, no tie-break draws: what is left is the floor.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "../../lib/base/coro.h"
#include "vtime-floor.h"

#define VF_STACK	(64 * 1024)
#define VF_LINE		64
#define VF_NOBODY	UINT32_MAX

struct vf;

struct vf_cpu {
	uint64_t clock;
	unsigned int id;
	struct vf *f;
	struct tlbgen_coro coro;
};

struct vf_heap {
	uint64_t clock;
	unsigned int cpu;
};

struct vf_dir {
	uintptr_t id;		/* the line's address; 0: a free slot */
	uint32_t owner;
};

struct vf {
	struct vf_cpu *c;
	unsigned int n;
	struct vf_heap *heap;	/* every CPU but the running one */
	unsigned int nr_heap;
	struct vf_dir *dir;
	size_t cap;		/* a power of two */
	unsigned char *lines;	/* nr_lines cachelines */
	unsigned int nr_lines;
	uint64_t rng, left, switches;
	uint64_t hit, transfer, memory;
	struct tlbgen_coro host;
};

static uint64_t vf_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static struct vf_dir *vf_lookup(struct vf *f, uintptr_t id)
{
	uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ULL;
	size_t i = (size_t)(h >> 40) & (f->cap - 1);

	while (f->dir[i].id && f->dir[i].id != id)
		i = (i + 1) & (f->cap - 1);
	if (!f->dir[i].id) {
		f->dir[i].id = id;
		f->dir[i].owner = VF_NOBODY;
	}
	return &f->dir[i];
}

/* The heap's top replaced by `e`, sifted down. */
static void vf_replace_top(struct vf *f, struct vf_heap e)
{
	unsigned int pos = 0;

	for (;;) {
		unsigned int l = 2 * pos + 1, best = l;

		if (l >= f->nr_heap)
			break;
		if (l + 1 < f->nr_heap && f->heap[l + 1].clock < f->heap[l].clock)
			best = l + 1;
		if (f->heap[best].clock >= e.clock)
			break;
		f->heap[pos] = f->heap[best];
		pos = best;
	}
	f->heap[pos] = e;
}

/* One CPU: a shared-line access per point, until the points run out. */
static void vf_main(void *arg)
{
	struct vf_cpu *me = arg;
	struct vf *f = me->f;

	for (;;) {
		uint64_t r;
		struct vf_dir *d;
		unsigned int line;

		if (!f->left) {
			tlbgen__coro_switch(&me->coro, &f->host);
			continue;
		}
		f->left--;
		/* Half its own line (its cpu_tlbstate, a csd), half any line. */
		r = vf_rand(&f->rng);
		line = r & 1 ? me->id : (unsigned int)((r >> 1) % f->nr_lines);
		d = vf_lookup(f, (uintptr_t)(f->lines + (size_t)line * VF_LINE));
		me->clock += d->owner == me->id ? f->hit
			     : d->owner == VF_NOBODY ? f->memory : f->transfer;
		d->owner = me->id;
		if (f->nr_heap && f->heap[0].clock < me->clock) {
			unsigned int next = f->heap[0].cpu;

			vf_replace_top(f, (struct vf_heap){ me->clock, me->id });
			f->switches++;
			tlbgen__coro_switch(&me->coro, &f->c[next].coro);
		}
	}
}

static void vf_free(struct vf *f)
{
	for (unsigned int i = 0; f->c && i < f->n; i++)
		if (f->c[i].coro.stack)
			tlbgen__coro_free(&f->c[i].coro);
	free(f->c);
	free(f->heap);
	free(f->dir);
	free(f->lines);
}

static double thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int vfloor_run(unsigned int cpus, unsigned int lines, uint64_t points,
	       const struct tlbgen_machine *m, uint64_t seed, struct vfloor_result *out)
{
	struct vf f = { .n = cpus, .nr_lines = lines, .left = points,
			.rng = seed | 1, .hit = m->hit, .transfer = m->same_socket,
			.memory = m->memory };
	double t0;
	int err = 0;

	if (!cpus || lines < cpus)
		return -EINVAL;
	for (f.cap = 16; f.cap < 4 * (size_t)f.nr_lines; f.cap *= 2)
		;
	f.c = calloc(cpus, sizeof(*f.c));
	f.heap = calloc(cpus, sizeof(*f.heap));
	f.dir = calloc(f.cap, sizeof(*f.dir));
	f.lines = aligned_alloc(VF_LINE, (size_t)f.nr_lines * VF_LINE);
	if (!f.c || !f.heap || !f.dir || !f.lines)
		err = -ENOMEM;
	for (unsigned int i = 0; !err && i < cpus; i++) {
		f.c[i].id = i;
		f.c[i].f = &f;
		err = tlbgen__coro_init(&f.c[i].coro, VF_STACK, vf_main, &f.c[i]);
		/* CPU 0 runs first; the others wait in the heap at time 0. */
		if (i)
			f.heap[f.nr_heap++] = (struct vf_heap){ 0, i };
	}
	if (err) {
		vf_free(&f);
		return err;
	}
	tlbgen__coro_init_thread(&f.host);
	t0 = thread_ns();
	tlbgen__coro_switch(&f.host, &f.c[0].coro);
	out->ns = thread_ns() - t0;
	out->points = points;
	out->switches = f.switches;
	vf_free(&f);
	return 0;
}
