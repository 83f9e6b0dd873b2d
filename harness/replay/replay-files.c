// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay-files.c - the files bench/tlbgen-trace writes beside
 * trace.dat: machine.txt (checked field by field), tasks.txt and tgids.txt
 * (the thread groups), command.txt (the events each CPU lost).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay-internal.h"

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

/* A whole decimal number in [lo, hi]. */
static bool number(const char *s, unsigned long lo, unsigned long hi, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !errno && !*end && *v >= lo && *v <= hi;
}

/* One "key value" line of machine.txt into m. */
static int machine_field(struct replay_info *m, const char *key, const char *val, char *err,
			 size_t errlen)
{
	static const char *const pv[] = { "native", "kvm", "hyperv", "pvm", "unknown" };
	unsigned long v;

	if (!strcmp(key, "pcid") || !strcmp(key, "invlpgb")) {
		if (!number(val, 0, 1, &v))
			return ERR("%s '%s' is not 0 or 1", key, val);
		*(key[0] == 'p' ? &m->pcid : &m->invlpgb) = v;
	} else if (!strcmp(key, "pv_flush_tlb_multi")) {
		for (size_t i = 0; i < sizeof(pv) / sizeof(pv[0]); i++)
			if (!strcmp(val, pv[i]))
				return snprintf(m->pv_flush, sizeof(m->pv_flush), "%s", val), 0;
		return ERR("pv_flush_tlb_multi '%s' is none of native, kvm, hyperv, pvm, unknown",
			   val);
	} else if (!strcmp(key, "hz")) {
		/* 0: not measured; else CONFIG_HZ as measured (100 .. 1000). */
		if (!number(val, 0, 10000, &v) || (v && v < 24))
			return ERR("hz '%s' is not 0 or a tick rate of 24 to 10000", val);
		m->hz = (unsigned int)v;
	} else if (!strcmp(key, "cpus")) {
		if (!number(val, 1, TLBGEN_MAX_CPUS, &v))
			return ERR("cpus '%s' is not 1 to %u", val, TLBGEN_MAX_CPUS);
	} else if (!strcmp(key, "machine")) {
		if (strcmp(val, "x86_64"))
			return ERR("machine '%s': replay models x86_64 only", val);
	} else if (!strcmp(key, "trace_clock")) {
		if (strspn(val, "abcdefghijklmnopqrstuvwxyz_-") != strlen(val))
			return ERR("trace_clock '%s' is not a clock's name", val);
	} else if (strcmp(key, "release")) {
		return ERR("unknown key '%s'", key);
	}
	return 0;
}

/*
 * machine.txt: "key value" lines (release, machine, cpus, pcid, invlpgb,
 * pv_flush_tlb_multi, hz, trace_clock; blank lines and # comments). A
 * line that is not one of them, or a value out of its range, refuses the
 * file naming line and field; in is changed only when every line holds.
 * No machine.txt: 0, nothing changed.
 */
int replay__read_machine(struct replay_info *in, const char *dir, char *err, size_t errlen)
{
	char path[4096], line[512], key[64], val[256], extra[8], why[512];
	struct replay_info m = *in;
	unsigned int nr = 0;
	int n, ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%.4000s/machine.txt", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		nr++;
		if (!strchr(line, '\n') && !feof(f)) {
			ret = ERR("%s line %u: longer than %zu bytes", path, nr, sizeof(line) - 2);
			break;
		}
		n = sscanf(line, "%63s %255s %7s", key, val, extra);
		if (n <= 0 || key[0] == '#')
			continue;
		if (n != 2)
			ret = ERR("%s line %u: '%s' %s", path, nr, key,
				  n == 1 ? "has no value" : "has more than one value");
		else if (machine_field(&m, key, val, why, sizeof(why)))
			ret = ERR("%s line %u: %s", path, nr, why);
	}
	fclose(f);
	if (ret)
		return ret;
	m.snapshot = true;
	*in = m;
	return 0;
}

/* tasks.txt ("tid tgid kthread comm"), then tgids.txt ("pid tgid"). */
int replay__read_tasks(struct replay_trace *t, const char *dir)
{
	char path[4096], line[256], comm[64];
	size_t cap = 0, ccap = 0;
	FILE *f;

	for (int pass = 0; pass < 2; pass++) {
		snprintf(path, sizeof(path), "%.4000s/%s", dir, pass ? "tgids.txt" : "tasks.txt");
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			int tid, tgid, kt = 0, n;

			comm[0] = 0;
			n = pass ? sscanf(line, "%d %d", &tid, &tgid) :
				   sscanf(line, "%d %d %d %63s", &tid, &tgid, &kt, comm);
			if (n < 2)
				continue;
			if (replay__grow((void **)&t->snap, &cap, t->nr_snap, sizeof(*t->snap)) ||
			    replay__grow((void **)&t->comm, &ccap, t->nr_snap, sizeof(*t->comm))) {
				fclose(f);
				return -ENOMEM;
			}
			t->snap[t->nr_snap] = (struct rtask_snap){ tid, tgid, (uint8_t)kt };
			snprintf(t->comm[t->nr_snap], sizeof(t->comm[0]), "%s", comm);
			t->nr_snap++;
		}
		fclose(f);
	}
	return 0;
}

/* "lost C N" lines of command.txt: the kernel's overrun counters. */
uint64_t replay__read_lost(const char *dir)
{
	char path[4096], line[256];
	uint64_t lost = 0;
	unsigned long long n;
	FILE *f;
	int c;

	snprintf(path, sizeof(path), "%.4000s/command.txt", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "lost %d %llu", &c, &n) == 2)
			lost += n;
	fclose(f);
	return lost;
}
