// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay-dat.c - a trace.dat's structure checked from its bytes,
 * so that libtracecmd (which trusts every offset and size it reads) only
 * ever sees a file whose sections and CPU data lie where they say, and so
 * that what it returns can be checked against what the pages hold.
 *
 * The layout is trace-cmd's (its trace-cmd.dat.v6(5) and .v7(5) pages):
 * magic, version, endianness, long size, page size; then in v6 the
 * headers, formats, kallsyms, printk, cmdlines, CPU count, options and
 * "flyrecord" with each CPU's offset and size; in v7 a compression name and
 * the offset of the first options section, every part a section (id 2,
 * flags 2, string 4, size 8; a compressed one holds its size in the file
 * 4, uncompressed 4, data) that options point to, and each CPU's data given
 * by the BUFFER option. The pages: replay-dat-pages.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "replay-dat-internal.h"

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

/* A NUL-terminated string of at most max bytes at *p. */
static int str(struct rd *r, uint64_t *p, size_t max, const char **s, const char *what)
{
	char *err = r->err;
	size_t errlen = r->errlen;
	const unsigned char *z;

	if (*p >= r->len)
		return replay__dat_need(r, *p, 1, what);
	z = memchr(r->b + *p, 0, r->len - *p < max + 1 ? r->len - *p : max + 1);
	if (!z)
		return r->len - *p < max + 1 ? replay__dat_need(r, *p, r->len - *p + 1, what) :
					       ERR("%s at byte %llu is not a string", what,
						   (unsigned long long)*p);
	*s = (const char *)r->b + *p;
	*p = (uint64_t)(z - r->b) + 1;
	return 0;
}

static int set_cpus(struct rd *r, uint64_t n)
{
	char *err = r->err;
	size_t errlen = r->errlen;

	if (r->have_cpus && n != r->d->nr_cpus)
		return ERR("the file names %u CPUs and then %llu", r->d->nr_cpus,
			   (unsigned long long)n);
	if (!n || n > REPLAY_DAT_MAX_CPUS)
		return ERR("%llu CPUs (replay reads 1 to %u)", (unsigned long long)n,
			   REPLAY_DAT_MAX_CPUS);
	if (!r->d->cpu && !(r->d->cpu = calloc(n, sizeof(*r->d->cpu))))
		return -ENOMEM;
	r->d->nr_cpus = (unsigned int)n;
	r->have_cpus = true;
	return 0;
}


/* A section of a v7 file: its header in the file, its id, its body (a
 * compressed one decompressed into *own, which the caller frees). */
static int section(struct rd *r, uint64_t off, unsigned int id, const unsigned char **body,
		   uint64_t *size, unsigned char **own)
{
	char *err = r->err;
	size_t errlen = r->errlen;
	uint64_t n, zs, us;
	int ret;

	*own = NULL;
	if ((ret = replay__dat_need(r, off, 16, "a section header")))
		return ret;
	if (replay__dat_le(r->b + off, 2) != id)
		return ERR("the section at byte %llu is a %u, not a %u", (unsigned long long)off,
			   (unsigned int)replay__dat_le(r->b + off, 2), id);
	n = replay__dat_le(r->b + off + 8, 8);
	if ((ret = replay__dat_need(r, off + 16, n, "a section")))
		return ret;
	*body = r->b + off + 16;
	*size = n;
	if (!(replay__dat_le(r->b + off + 2, 2) & 1))	/* TRACECMD_SEC_FL_COMPRESS */
		return 0;
	if (n < 8 || (zs = replay__dat_le(*body, 4)) > n - 8 ||
	    (us = replay__dat_le(*body + 4, 4)) > (64U << 20))
		return ERR("the compressed section at byte %llu has a bad size",
			   (unsigned long long)off);
	if (!(*own = malloc(us ? us : 1)))
		return -ENOMEM;
	n = ZSTD_decompress(*own, us, *body + 8, zs);
	if (ZSTD_isError(n) || n != us) {
		free(*own);
		*own = NULL;
		return ERR("the section at byte %llu does not decompress to its %llu bytes",
			   (unsigned long long)off, (unsigned long long)us);
	}
	*body = *own;
	*size = us;
	return 0;
}

/* BUFFER (v7): data section offset 8, name, clock, page size 4, CPUs 4,
 * then per CPU id 4, offset 8, size 8. Only the top instance (name ""). */
static int opt_buffer(struct rd *r, const unsigned char *o, uint64_t size)
{
	char *err = r->err;
	size_t errlen = r->errlen;
	const unsigned char *z;
	uint64_t p, n;
	int ret;

	if (size < 10 || o[8])
		return 0;
	z = memchr(o + 9, 0, size - 9);
	if (!z)
		return ERR("the BUFFER option's clock is not a string");
	p = (uint64_t)(z - o) + 1;
	if (size - p < 8)
		return ERR("the BUFFER option ends before its CPUs");
	if (replay__dat_le(o + p, 4) != r->d->page_size)
		return ERR("the BUFFER option's page size is not the file's");
	/*
	 * trace-cmd lists only the CPUs whose buffers held data: a CPU that
	 * recorded nothing is left out, so n may be below the CPU count
	 * (TRACECMD_OPTION_CPUCOUNT); each listed id is below that count.
	 */
	n = replay__dat_le(o + p + 4, 4);
	if (!r->have_cpus && (ret = set_cpus(r, n)))
		return ret;
	if (!n || n > r->d->nr_cpus)
		return ERR("the BUFFER option lists %llu CPUs of the file's %u",
			   (unsigned long long)n, r->d->nr_cpus);
	if ((size - p - 8) / 20 < n)
		return ERR("the BUFFER option ends before its %llu CPUs", (unsigned long long)n);
	/* The data section: its header (TRACECMD_OPTION_BUFFER) in the file. */
	if ((ret = replay__dat_need(r, replay__dat_le(o, 8), 16, "the CPU data section")))
		return ret;
	if (replay__dat_le(r->b + replay__dat_le(o, 8), 2) != 3)
		return ERR("the CPU data section at byte %llu is not one",
			   (unsigned long long)replay__dat_le(o, 8));
	r->d->zstd = r->d->zstd && (replay__dat_le(r->b + replay__dat_le(o, 8) + 2, 2) & 1);
	for (uint64_t c = 0, q = p + 8; c < n; c++, q += 20) {
		uint64_t id = replay__dat_le(o + q, 4);

		if (id >= r->d->nr_cpus || r->d->cpu[id].off)
			return ERR("the BUFFER option names CPU %llu twice or out of range",
				   (unsigned long long)id);
		r->d->cpu[id].off = replay__dat_le(o + q + 4, 8);
		r->d->cpu[id].size = replay__dat_le(o + q + 12, 8);
		if (!r->d->cpu[id].off)
			return ERR("CPU %llu's data is at byte 0", (unsigned long long)id);
	}
	r->have_buffer = true;
	return 0;
}

/* One option (id, its size bytes at o) of either version. */
static int option(struct rd *r, unsigned int id, const unsigned char *o, uint64_t size)
{
	char *err = r->err;
	size_t errlen = r->errlen;
	const unsigned char *body;
	unsigned char *own;
	uint64_t n;
	int ret;

	switch (id) {
	case 5:		/* TRACECMD_OPTION_UNAME */
		n = size < sizeof(r->d->uname) ? size : sizeof(r->d->uname) - 1;
		memcpy(r->d->uname, o, n);
		r->d->uname[n] = 0;
		return 0;
	case 8:		/* TRACECMD_OPTION_CPUCOUNT */
		return size == 4 ? set_cpus(r, replay__dat_le(o, 4)) :
				   ERR("the CPU count option is %llu bytes", (unsigned long long)size);
	case 3:		/* TRACECMD_OPTION_BUFFER */
		return r->d->version >= 7 ? opt_buffer(r, o, size) : 0;
	case 16 ... 21:	/* HEADER_INFO, FTRACE_EVENTS, EVENT_FORMATS, KALLSYMS, PRINTK, CMDLINES */
		if (r->d->version < 7)
			return 0;
		if (size != 8)
			return ERR("section option %u is %llu bytes", id, (unsigned long long)size);
		ret = section(r, replay__dat_le(o, 8), id, &body, &n, &own);
		free(own);
		r->have_formats |= !ret && id == 18;
		return ret;
	}
	return 0;
}

/* A list of options (id 2, size 4, data) ending in id 0; *next: what that
 * holds (v7: the next options section, 0 for none). */
static int options(struct rd *r, const unsigned char *o, uint64_t size, uint64_t *next,
		   uint64_t at)
{
	char *err = r->err;
	size_t errlen = r->errlen;
	int ret;

	*next = 0;
	for (uint64_t p = 0;;) {
		unsigned int id;
		uint64_t n;

		if (size - p < 6)
			return ERR("truncated at byte %zu: the options at byte %llu end before "
				   "their last", r->len, (unsigned long long)at);
		id = (unsigned int)replay__dat_le(o + p, 2);
		n = replay__dat_le(o + p + 2, 4);
		if (n > size - p - 6)
			return ERR("option %u at byte %llu runs past its options' end", id,
				   (unsigned long long)(at + p));
		if (!id) {
			*next = n == 8 ? replay__dat_le(o + p + 6, 8) : 0;
			return 0;
		}
		if ((ret = option(r, id, o + p + 6, n)))
			return ret;
		p += 6 + n;
	}
}

/* v7: the chain of options sections from the header's offset. */
static int walk_v7(struct rd *r, uint64_t off)
{
	char *err = r->err;
	size_t errlen = r->errlen;
	const unsigned char *body;
	unsigned char *own;
	uint64_t n;
	int ret, sect;

	for (sect = 0; off && sect < 64; sect++) {
		if ((ret = section(r, off, 0, &body, &n, &own)))
			return ret;
		ret = options(r, body, n, &off, off + 16);
		free(own);
		if (ret)
			return ret;
	}
	if (off)
		return ERR("more than 64 options sections: they loop");
	return 0;
}

/* A v6 part: a size of sz bytes, then that many bytes. */
static int v6_part(struct rd *r, uint64_t *p, unsigned int sz, const char *what)
{
	uint64_t n;
	int ret;

	if ((ret = replay__dat_need(r, *p, sz, what)))
		return ret;
	n = replay__dat_le(r->b + *p, sz);
	if ((ret = replay__dat_need(r, *p + sz, n, what)))
		return ret;
	*p += sz + n;
	return 0;
}

/* v6: headers, ftrace and event formats, kallsyms, printk, cmdlines, CPUs,
 * options, then "flyrecord" and each CPU's offset and size. */
static int walk_v6(struct rd *r, uint64_t p)
{
	char *err = r->err;
	size_t errlen = r->errlen;
	const char *s;
	uint64_t n, m;
	int ret;

	for (int k = 0; k < 2; k++) {
		if ((ret = str(r, &p, 16, &s, "a header's name")))
			return ret;
		if (strcmp(s, k ? "header_event" : "header_page"))
			return ERR("no %s at byte %llu", k ? "header_event" : "header_page",
				   (unsigned long long)p);
		if ((ret = v6_part(r, &p, 8, "a header")))
			return ret;
	}
	if ((ret = replay__dat_need(r, p, 4, "the ftrace formats")))
		return ret;
	for (n = replay__dat_le(r->b + (p += 4) - 4, 4); n--;)
		if ((ret = v6_part(r, &p, 8, "an ftrace format")))
			return ret;
	if ((ret = replay__dat_need(r, p, 4, "the event systems")))
		return ret;
	for (n = replay__dat_le(r->b + (p += 4) - 4, 4); n--;) {
		if ((ret = str(r, &p, 256, &s, "an event system's name")) ||
		    (ret = replay__dat_need(r, p, 4, "an event system")))
			return ret;
		for (m = replay__dat_le(r->b + (p += 4) - 4, 4); m--;)
			if ((ret = v6_part(r, &p, 8, "an event format")))
				return ret;
	}
	r->have_formats = true;
	if ((ret = v6_part(r, &p, 4, "kallsyms")) || (ret = v6_part(r, &p, 4, "printk formats")) ||
	    (ret = v6_part(r, &p, 8, "the saved cmdlines")) ||
	    (ret = replay__dat_need(r, p, 4, "the CPU count")) ||
	    (ret = set_cpus(r, replay__dat_le(r->b + p, 4))))
		return ret;
	p += 4;
	if ((ret = str(r, &p, 10, &s, "the options or data")))
		return ret;
	if (!strcmp(s, "options  ")) {
		for (;;) {
			if ((ret = replay__dat_need(r, p, 2, "the options")))
				return ret;
			if (!replay__dat_le(r->b + p, 2))
				break;
			if ((ret = replay__dat_need(r, p, 6, "an option")) ||
			    (ret = replay__dat_need(r, p + 6, replay__dat_le(r->b + p + 2, 4),
						    "an option")) ||
			    (ret = option(r, (unsigned int)replay__dat_le(r->b + p, 2), r->b + p + 6,
					  replay__dat_le(r->b + p + 2, 4))))
				return ret;
			p += 6 + replay__dat_le(r->b + p + 2, 4);
		}
		p += 2;
		if ((ret = str(r, &p, 10, &s, "the data")))
			return ret;
	}
	if (strcmp(s, "flyrecord"))
		return ERR("the data is '%.10s', not flyrecord: replay reads flyrecord traces", s);
	if ((ret = replay__dat_need(r, p, 16ULL * r->d->nr_cpus, "the CPUs' data offsets")))
		return ret;
	for (unsigned int c = 0; c < r->d->nr_cpus; c++, p += 16) {
		r->d->cpu[c].off = replay__dat_le(r->b + p, 8);
		r->d->cpu[c].size = replay__dat_le(r->b + p + 8, 8);
	}
	r->have_buffer = true;
	return 0;
}

/* Magic, version, endianness, long size, page size; v7's compression. */
static int header(struct rd *r, uint64_t *p)
{
	char *err = r->err;
	size_t errlen = r->errlen;
	const char *s;
	int ret;

	if (r->len < 10 || memcmp(r->b, "\x17\x08\x44tracing", 10))
		return ERR("not a trace-cmd trace.dat file (no \\027\\010Dtracing magic)");
	*p = 10;
	if ((ret = str(r, p, 8, &s, "the file version")))
		return ret;
	if (strcmp(s, "6") && strcmp(s, "7"))
		return ERR("trace-cmd file version '%.8s': replay reads versions 6 and 7", s);
	r->d->version = (unsigned int)(*s - '0');
	if ((ret = replay__dat_need(r, *p, 6, "the header")))
		return ret;
	if (r->b[*p])
		return ERR("a big-endian trace: replay reads x86 (little-endian) ones");
	r->d->long_size = r->b[*p + 1];
	r->d->page_size = (unsigned int)replay__dat_le(r->b + *p + 2, 4);
	if (r->d->long_size != 4 && r->d->long_size != 8)
		return ERR("%u bytes in a long", r->d->long_size);
	if (r->d->page_size < 1024 || r->d->page_size > (1U << 20) ||
	    (r->d->page_size & (r->d->page_size - 1)))
		return ERR("a page size of %u bytes", r->d->page_size);
	*p += 6;
	if (r->d->version < 7)
		return 0;
	if ((ret = str(r, p, 64, &s, "the compression")))
		return ret;
	if (!strcmp(s, "zstd"))
		r->d->zstd = true;
	else if (*s && strcmp(s, "none"))
		return ERR("compressed with '%.64s': replay reads zstd or none (trace-cmd convert "
			   "--compression zstd)", s);
	if ((ret = str(r, p, 64, &s, "the compression's version")))
		return ret;
	return replay__dat_need(r, *p, 8, "the options' offset");
}

/* The CPUs' events within a day of each other: a timestamp a flipped bit
 * threw years ahead still runs in order if it is a CPU's last. */
static int span(struct rd *r)
{
	char *err = r->err;
	size_t errlen = r->errlen;
	uint64_t lo = UINT64_MAX, hi = 0;
	unsigned int clo = 0, chi = 0;

	for (unsigned int c = 0; c < r->d->nr_cpus; c++) {
		if (!r->d->cpu[c].events)
			continue;
		if (r->d->cpu[c].first_ts < lo)
			lo = r->d->cpu[c].first_ts, clo = c;
		if (r->d->cpu[c].last_ts > hi)
			hi = r->d->cpu[c].last_ts, chi = c;
	}
	if (hi > lo && hi - lo > 86400ULL * 1000000000ULL)
		return ERR("the events span %.0f s (CPU %u's first to CPU %u's last): a timestamp "
			   "is corrupt", (double)(hi - lo) / 1e9, clo, chi);
	return 0;
}

int replay__dat_check(const unsigned char *b, size_t len, struct replay_dat *d, char *err,
		      size_t errlen)
{
	struct rd r = { .b = b, .len = len, .d = d, .err = err, .errlen = errlen };
	uint64_t p;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = header(&r, &p);
	if (!ret)
		ret = d->version >= 7 ? walk_v7(&r, replay__dat_le(b + p, 8)) : walk_v6(&r, p);
	if (!ret && !d->uname[0])
		ret = ERR("the file names no kernel (no uname option)");
	if (!ret && (!r.have_cpus || !r.have_buffer))
		ret = ERR("the file has no CPU data (no %s)", d->version >= 7 ? "BUFFER option" :
								       "flyrecord");
	if (!ret && !r.have_formats)
		ret = ERR("the file has no event formats");
	if (!ret)
		ret = replay__dat_walk_cpus(&r);
	if (!ret)
		ret = span(&r);
	if (ret)
		replay__dat_free(d);
	return ret;
}

void replay__dat_free(struct replay_dat *d)
{
	free(d->cpu);
	d->cpu = NULL;
	d->nr_cpus = 0;
}
