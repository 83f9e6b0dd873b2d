// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay-dat-pages.c - each CPU's data of a trace.dat walked page by
 * page as the kernel wrote it (kernel/trace/ring_buffer.c: a
 * buffer_data_page's timestamp and commit, then events of a 4-byte header
 * type_len:5 time_delta:27): its events counted, their timestamps in order,
 * the page's RB_MISSED_EVENTS flag; zstd-compressed data (trace-cmd file
 * version 7) as a chunk count, then chunks (size in the file 4,
 * uncompressed 4, data) of whole pages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "replay-dat-internal.h"

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

/* One ring-buffer page of CPU c: its events counted, their times in order. */
static int walk_page(struct rd *r, unsigned int c, const unsigned char *pg, uint64_t pgno)
{
	struct replay_dat_cpu *cpu = &r->d->cpu[c];
	unsigned int ls = r->d->long_size, hdr = 8 + ls;
	uint64_t ts = replay__dat_le(pg, 8), commit = replay__dat_le(pg + 8, ls), p, end;
	char *err = r->err;
	size_t errlen = r->errlen;

	/* The flags in commit's high bits: RB_MISSED_EVENTS, RB_MISSED_STORED. */
	if (commit & (1ULL << 31))
		cpu->missed_pages++;
	commit &= (1ULL << 30) - 1;
	if (commit > r->d->page_size - hdr)
		return ERR("CPU %u page %llu: %llu bytes of events in a %u-byte page", c,
			   (unsigned long long)pgno, (unsigned long long)commit, r->d->page_size);
	for (p = hdr, end = hdr + commit; p < end;) {
		uint32_t h;
		uint64_t n = 4, ev = 0;

		if (end - p < 4)
			break;
		h = (uint32_t)replay__dat_le(pg + p, 4);
		switch (h & 31) {
		case 29:	/* RINGBUF_TYPE_PADDING: the rest of the page, or array[0] */
			if (!(h >> 5))
				p = end;
			else if (end - p >= 8)
				n = 4 + replay__dat_le(pg + p + 4, 4);
			else
				n = end - p + 1;
			break;
		case 30:	/* RINGBUF_TYPE_TIME_EXTEND */
			n = 8;
			if (end - p >= 8)
				ts += (h >> 5) | replay__dat_le(pg + p + 4, 4) << 27;
			break;
		case 31:	/* RINGBUF_TYPE_TIME_STAMP: absolute */
			n = 8;
			if (end - p >= 8)
				ts = (h >> 5) | replay__dat_le(pg + p + 4, 4) << 27;
			break;
		case 0:		/* data, its length in array[0] (which it counts) */
			n = end - p >= 8 ? 4 + replay__dat_le(pg + p + 4, 4) : end - p + 1;
			ev = 1;
			ts += h >> 5;
			break;
		default:	/* data of type_len 4-byte words */
			n = 4 + 4 * (h & 31);
			ev = 1;
			ts += h >> 5;
		}
		if (p == end)
			break;
		if (n > end - p || n < 4 || n % 4)
			return ERR("CPU %u page %llu: the event at byte %llu runs past the page's "
				   "%llu bytes of events", c, (unsigned long long)pgno,
				   (unsigned long long)(p - hdr), (unsigned long long)commit);
		if (ev) {
			if (cpu->events && ts < cpu->last_ts)
				return ERR("CPU %u timestamps go backwards at event %llu (page %llu)",
					   c, (unsigned long long)cpu->events,
					   (unsigned long long)pgno);
			if (!cpu->events)
				cpu->first_ts = ts;
			cpu->last_ts = ts;
			cpu->events++;
		}
		p += n;
	}
	if (p != end)
		return ERR("CPU %u page %llu: its last event runs past the page's %llu bytes of "
			   "events", c, (unsigned long long)pgno, (unsigned long long)commit);
	return 0;
}

static int walk_pages(struct rd *r, unsigned int c, const unsigned char *p, uint64_t n)
{
	struct replay_dat_cpu *cpu = &r->d->cpu[c];
	char *err = r->err;
	size_t errlen = r->errlen;
	int ret;

	if (n % r->d->page_size)
		return ERR("CPU %u: %llu bytes of data, not whole %u-byte pages", c,
			   (unsigned long long)n, r->d->page_size);
	for (uint64_t o = 0; o < n; o += r->d->page_size) {
		ret = walk_page(r, c, p + o, (cpu->bytes + o) / r->d->page_size);
		if (ret)
			return ret;
	}
	cpu->bytes += n;
	return 0;
}

/* Compressed CPU data: a chunk count, then chunks of whole pages. */
static int walk_chunks(struct rd *r, unsigned int c, uint64_t off, uint64_t size)
{
	char *err = r->err;
	size_t errlen = r->errlen;
	uint64_t p = off + 4, nr;
	unsigned char *buf = NULL;
	int ret = 0;

	if (size == 0)
		return 0;
	if ((ret = replay__dat_need(r, off, 4, "a CPU's chunk count")))
		return ret;
	nr = replay__dat_le(r->b + off, 4);
	for (uint64_t k = 0; k < nr && !ret; k++) {
		uint64_t zs, us;
		size_t got;

		if ((ret = replay__dat_need(r, p, 8, "a chunk header")))
			break;
		zs = replay__dat_le(r->b + p, 4);
		us = replay__dat_le(r->b + p + 4, 4);
		if ((ret = replay__dat_need(r, p + 8, zs, "a chunk of CPU data")))
			break;
		if (p + 8 + zs > off + 4 + size) {
			ret = ERR("CPU %u: chunk %llu runs past its %llu bytes of data", c,
				  (unsigned long long)k, (unsigned long long)size);
			break;
		}
		if (us > (64U << 20)) {
			ret = ERR("CPU %u: chunk %llu claims %llu bytes", c, (unsigned long long)k,
				  (unsigned long long)us);
			break;
		}
		free(buf);
		buf = malloc(us ? us : 1);
		if (!buf)
			return -ENOMEM;
		got = ZSTD_decompress(buf, us, r->b + p + 8, zs);
		if (ZSTD_isError(got) || got != us) {
			ret = ERR("CPU %u: chunk %llu at byte %llu does not decompress to its %llu "
				  "bytes", c, (unsigned long long)k, (unsigned long long)p,
				  (unsigned long long)us);
			break;
		}
		ret = walk_pages(r, c, buf, us);
		p += 8 + zs;
	}
	free(buf);
	return ret;
}

/* Each CPU's data: in the file, then its pages walked. */
int replay__dat_walk_cpus(struct rd *r)
{
	char what[64];
	int ret;

	/* Every CPU's data in the file before any is walked: a file cut short
	 * is named as such whichever CPU it cut. */
	for (unsigned int c = 0; c < r->d->nr_cpus; c++) {
		snprintf(what, sizeof(what), "CPU %u's data", c);
		if ((ret = replay__dat_need(r, r->d->cpu[c].off, r->d->cpu[c].size, what)))
			return ret;
	}
	for (unsigned int c = 0; c < r->d->nr_cpus; c++) {
		struct replay_dat_cpu *cpu = &r->d->cpu[c];

		if (r->d->zstd)
			ret = walk_chunks(r, c, cpu->off, cpu->size);
		else
			ret = walk_pages(r, c, r->b + cpu->off, cpu->size);
		if (ret)
			return ret;
	}
	return 0;
}
