// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/replay/fuzz_replay.c - libFuzzer target over the replay's reader:
 * bytes that start as a trace.dat does (seeds: the committed recordings)
 * are checked by replay__dat_check(); other bytes are one CPU's ring-buffer
 * pages (seeds: the recordings' pages, uncompressed by trace-cmd convert
 * in tests/run-all.sh) walked by replay__dat_walk_cpus(); all bytes are
 * also a child's output checked by replay__child_decode()
 * (harness/replay-dat*.c, replay-child.c). None
 * may crash or read outside the bytes (ASan, UBSan), and an input they
 * accept must hold what acceptance promises:
 *  - a trace.dat: 1 to REPLAY_DAT_MAX_CPUS CPUs, a power-of-two page, a
 *    kernel named, each CPU's data inside the file, as many whole pages as
 *    its bytes, at most one event per 8 bytes of them, its timestamps
 *    first <= last and all CPUs within a day; and the same file cut one
 *    byte short of its last CPU's data, or anywhere before it, refused as
 *    truncated (a mutation that cuts or shifts the data is never a
 *    silent success);
 *  - pages: all of them walked, at most one event per 8 bytes, the
 *    timestamps first <= last;
 *  - a child's output: events on the CPUs the file has, in order per CPU,
 *    as many as the pages hold.
 * A broken promise aborts, so libFuzzer saves the input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay-dat-internal.h"
#include "replay-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PROMISE(c, ...) do { if (!(c)) { fprintf(stderr, "fuzz_replay: " __VA_ARGS__); \
	fputc('\n', stderr); abort(); } } while (0)

static void accepted(const uint8_t *data, size_t size, const struct replay_dat *d)
{
	uint64_t end = 0, lo = UINT64_MAX, hi = 0;
	struct replay_dat cut;
	char err[1024];
	size_t at;

	PROMISE(d->nr_cpus >= 1 && d->nr_cpus <= REPLAY_DAT_MAX_CPUS, "%u CPUs", d->nr_cpus);
	PROMISE(d->page_size && !(d->page_size & (d->page_size - 1)), "page %u", d->page_size);
	PROMISE(d->uname[0], "no uname");
	for (unsigned int c = 0; c < d->nr_cpus; c++) {
		const struct replay_dat_cpu *p = &d->cpu[c];

		PROMISE(p->off <= size && p->size <= size - p->off, "CPU %u outside the file", c);
		PROMISE(p->bytes % d->page_size == 0, "CPU %u: part of a page", c);
		PROMISE(p->events <= p->bytes / 8, "CPU %u: %llu events in %llu bytes", c,
			(unsigned long long)p->events, (unsigned long long)p->bytes);
		PROMISE(p->first_ts <= p->last_ts, "CPU %u: first after last", c);
		if (p->size && p->off + p->size > end)
			end = p->off + p->size;
		if (p->events) {
			lo = p->first_ts < lo ? p->first_ts : lo;
			hi = p->last_ts > hi ? p->last_ts : hi;
		}
	}
	PROMISE(hi <= lo || hi - lo <= 86400ULL * 1000000000ULL, "a span over a day");
	if (!end)
		return;
	/* Cut one byte short of the data's end, and somewhere before it. */
	for (int k = 0; k < 2; k++) {
		at = k ? (size_t)(end - 1) * data[size / 2] / 256 : (size_t)end - 1;
		PROMISE(replay__dat_check(data, at, &cut, err, sizeof(err)) != 0,
			"cut at %zu of %llu: accepted", at, (unsigned long long)end);
		PROMISE(at < 10 || strstr(err, "truncated at byte"), "cut at %zu: '%s'", at, err);
	}
}

/* The bytes as one CPU's 4096-byte pages of a 64-bit kernel. */
static void pages(const uint8_t *data, size_t size)
{
	struct replay_dat_cpu cpu = { .size = size / 4096 * 4096 };
	struct replay_dat d = { .version = 7, .long_size = 8, .page_size = 4096, .nr_cpus = 1,
				.cpu = &cpu };
	char err[1024] = "";
	struct rd r = { .b = data, .len = size, .d = &d, .err = err, .errlen = sizeof(err) };

	if (replay__dat_walk_cpus(&r)) {
		PROMISE(err[0], "pages refused without a reason");
		return;
	}
	PROMISE(cpu.bytes == cpu.size, "%llu of %llu bytes walked", (unsigned long long)cpu.bytes,
		(unsigned long long)cpu.size);
	PROMISE(cpu.events <= cpu.bytes / 8, "%llu events in %llu bytes",
		(unsigned long long)cpu.events, (unsigned long long)cpu.bytes);
	PROMISE(cpu.first_ts <= cpu.last_ts, "first after last");
}

/* The bytes as a child's output, against a file of 2 CPUs with 3 events
 * on CPU 0 and 1 on CPU 1. */
static void child_output(const uint8_t *data, size_t size)
{
	struct replay_dat_cpu cpu[2] = { { .events = 3 }, { .events = 1 } };
	struct replay_dat d = { .nr_cpus = 2, .cpu = cpu };
	struct replay_trace t;
	uint64_t last[2] = { 0, 0 }, n[2] = { 0, 0 };
	char err[1024];

	memset(&t, 0, sizeof(t));
	if (replay__child_decode(&t, data, size, &d, err, sizeof(err)))
		return;
	for (size_t i = 0; i < t.nr_ev; i++) {
		PROMISE(t.ev[i].cpu < 2 && t.ev[i].kind < EV_NR, "event %zu: CPU %u", i, t.ev[i].cpu);
		PROMISE(!n[t.ev[i].cpu]++ || t.ev[i].ts >= last[t.ev[i].cpu], "event %zu backwards", i);
		last[t.ev[i].cpu] = t.ev[i].ts;
	}
	free(t.ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay_dat d;
	char err[1024];
	int ret;

	err[0] = 0;
	child_output(data, size);
	if (size < 10 || memcmp(data, "\x17\x08\x44tracing", 10)) {
		pages(data, size);
		return 0;
	}
	ret = replay__dat_check(data, size, &d, err, sizeof(err));
	PROMISE(ret == 0 || ret == -EINVAL || ret == -ENOMEM, "returned %d", ret);
	PROMISE(ret != -EINVAL || err[0], "refused without a reason");
	if (!ret) {
		accepted(data, size, &d);
		replay__dat_free(&d);
	}
	return 0;
}
