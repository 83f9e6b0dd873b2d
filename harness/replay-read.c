// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay-read.c - read a recording: trace.dat through libtracecmd
 * and libtraceevent (events, in time order over all CPUs), and the files
 * bench/tlbgen-trace writes beside it (tasks, thread groups, machine).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <trace-cmd.h>
#include <event-parse.h>

#include "replay-internal.h"

/* Exported by libtracecmd (trace-cmd-private.h, not installed by Debian). */
size_t tracecmd_get_options_offset(struct tracecmd_input *handle);
unsigned long tracecmd_get_in_file_version(struct tracecmd_input *handle);

int replay__grow(void **p, size_t *cap, size_t nr, size_t size)
{
	size_t ncap;
	void *np;

	if (nr < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 1024;
	np = realloc(*p, ncap * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

bool replay__kthread_name(const char *comm)
{
	static const char *const prefix[] = {
		"swapper", "kworker/", "ksoftirqd/", "migration/", "rcu_", "kthreadd",
		"cpuhp/", "watchdog", "kcompactd", "khugepaged", "kswapd", "oom_reaper",
		"writeback", "kblockd", "jbd2/", "irq/", "idle_inject/", "kauditd",
		"khungtaskd", "ksmd", "kdevtmpfs", "netns", "scsi_", "xfs", "ext4-",
		"btrfs", "pool_workqueue", "kvfree_rcu", "ecryptfs", "card", "napi/",
	};
	char name[17];

	snprintf(name, sizeof(name), "%.16s", comm);
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

struct evdef {
	const char *sys, *name;
	enum rev_kind kind;
	const char *f[3];	/* fields into a, b, c (NULL: none) */
	const char *fd;		/* field into d */
	int id;
	struct tep_format_field *fld[3], *fldd;
	uint64_t seen;
};

struct reader {
	struct replay_trace *t;
	struct tep_handle *tep;
	struct evdef *defs;
	size_t nr_defs;
	uint64_t first_ts;
	long long lost;
	int lost_cpu;
	uint64_t lost_ts;
	struct tep_format_field *prev_comm;
	int err;
};

#define EVDEF(s, n, k, fa, fb, fc, fdd) { .sys = s, .name = n, .kind = k, .f = { fa, fb, fc }, .fd = fdd }
static struct evdef evdefs[] = {
	EVDEF("sched", "sched_switch", EV_SWITCH, "prev_pid", "next_pid", "prev_state", "next_comm"),
	EVDEF("tlb", "tlb_flush", EV_TLB, "reason", NULL, "pages", NULL),
	EVDEF("task", "task_newtask", EV_NEWTASK, "pid", NULL, "clone_flags", NULL),
	EVDEF("sched", "sched_process_exec", EV_EXEC, "pid", NULL, NULL, NULL),
	EVDEF("sched", "sched_process_exit", EV_EXIT, "pid", NULL, "group_dead", NULL),
	EVDEF("mmap", "exit_mmap", EV_EXIT_MMAP, NULL, NULL, "mm", NULL),
	EVDEF("csd", "csd_function_entry", EV_CSD_ENTRY, NULL, NULL, "csd", "func"),
	EVDEF("csd", "csd_function_exit", EV_CSD_EXIT, NULL, NULL, "csd", "func"),
	EVDEF("csd", "csd_queue_cpu", EV_CSD_QUEUE, "cpu", NULL, "csd", "func"),
};

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct reader *r = data;
	struct replay_trace *t = r->t;
	int type = tep_data_type(r->tep, rec);
	unsigned long long v;
	struct evdef *d = NULL;
	struct rev *e;

	(void)h;
	if (rec->missed_events && !r->lost) {
		r->lost = rec->missed_events;
		r->lost_cpu = cpu;
		r->lost_ts = rec->ts;
	}
	for (size_t i = 0; i < r->nr_defs; i++)
		if (r->defs[i].id == type) {
			d = &r->defs[i];
			break;
		}
	if (!d)
		return 0;
	if (!t->nr_ev)
		r->first_ts = rec->ts;
	if (replay__grow((void **)&t->ev, &t->cap_ev, t->nr_ev, sizeof(*t->ev))) {
		r->err = -ENOMEM;
		return 1;
	}
	d->seen++;
	e = &t->ev[t->nr_ev++];
	memset(e, 0, sizeof(*e));
	e->ts = rec->ts - r->first_ts;
	e->cpu = (uint16_t)cpu;
	e->kind = (uint8_t)d->kind;
	e->pid = tep_data_pid(r->tep, rec);
	if (d->fld[0] && !tep_read_number_field(d->fld[0], rec->data, &v))
		e->a = (int32_t)v;
	if (d->fld[1] && !tep_read_number_field(d->fld[1], rec->data, &v))
		e->b = (int32_t)v;
	if (d->fld[2] && !tep_read_number_field(d->fld[2], rec->data, &v)) {
		/* pages is an unsigned long: TLB_FLUSH_ALL reads as -1. */
		e->c = (int64_t)v;
		if (d->fld[2]->size == 1)
			e->c = (uint8_t)v;
	}
	if (d->kind == EV_SWITCH) {
		/* d: bit 0 the next, bit 1 the previous task's name looks like
		 * a kernel thread's (only for tasks no snapshot names). */
		if (d->fldd && d->fldd->offset + 16 <= rec->size)
			e->d = replay__kthread_name((const char *)rec->data + d->fldd->offset);
		if (r->prev_comm && r->prev_comm->offset + 16 <= rec->size)
			e->d |= (uint64_t)replay__kthread_name((const char *)rec->data +
							       r->prev_comm->offset) << 1;
	} else if (d->fldd && !tep_read_number_field(d->fldd, rec->data, &v)) {
		e->d = v;
	}
	return 0;
}

/*
 * What libtracecmd keeps but has no getter for, from the file's options:
 * TRACECMD_OPTION_UNAME (5), the kernel's uname; and, in file version 7,
 * TRACECMD_OPTION_BUFFER (3), where each CPU's data ends, so that a file
 * cut short is refused. Version 7 options sit in sections (a 16-byte
 * header: id, flags, string id, size) chained by the 8-byte offset that
 * ends each list (option 0); version 6 options start at once. An option is
 * id (2 bytes), size (4), data.
 */
struct file_opts {
	char uname[256];
	uint64_t end;		/* the file must be at least this long */
	bool complete;		/* the last list of options was read to its end */
};

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* BUFFER: offset (8), name, clock, page size (4), cpus (4), per CPU id (4),
 * offset (8), size (8). */
static void buffer_end(const unsigned char *d, size_t size, struct file_opts *fo)
{
	size_t p = 8, n;

	for (int str = 0; str < 2; str++) {
		while (p < size && d[p])
			p++;
		p++;
	}
	if (p + 8 > size)
		return;
	n = (size_t)le(d + p + 4, 4);
	p += 8;
	for (size_t c = 0; c < n && p + 20 <= size; c++, p += 20)
		if (le(d + p + 4, 8) + le(d + p + 12, 8) > fo->end)
			fo->end = le(d + p + 4, 8) + le(d + p + 12, 8);
}

static int read_file_opts(const char *path, struct tracecmd_input *h, struct file_opts *fo)
{
	uint64_t off = tracecmd_get_options_offset(h);
	unsigned long ver = tracecmd_get_in_file_version(h);
	unsigned char hdr[6], *buf = NULL;
	FILE *f;
	int ret = -ENOENT;

	memset(fo, 0, sizeof(*fo));
	if (!off || !(f = fopen(path, "rb")))
		return -ENOENT;
	for (int sect = 0; sect < 16 && off; sect++) {
		uint64_t next = 0;

		if (fseeko(f, (off_t)off + (ver >= 7 ? 16 : 0), SEEK_SET))
			break;
		for (int n = 0; n < 256 && fread(hdr, 1, 6, f) == 6; n++) {
			unsigned int id = (unsigned int)le(hdr, 2), size = (unsigned int)le(hdr + 2, 4);
			unsigned char *nb;

			if (size > (1U << 20) || !(nb = realloc(buf, size + 1)))
				break;
			buf = nb;
			if (fread(buf, 1, size, f) != size)
				break;
			if (id == 0) {
				next = ver >= 7 && size == 8 ? le(buf, 8) : 0;
				fo->complete = !next;
				if (next || ver < 7)
					fo->end = fo->end > (uint64_t)ftello(f) ? fo->end :
										 (uint64_t)ftello(f);
				break;
			}
			if (id == 5 && size < sizeof(fo->uname)) {
				memcpy(fo->uname, buf, size);
				fo->uname[size] = 0;
				ret = 0;
			}
			if (id == 3 && ver >= 7)
				buffer_end(buf, size, fo);
			if ((uint64_t)ftello(f) > fo->end)
				fo->end = (uint64_t)ftello(f);
		}
		off = next;
	}
	free(buf);
	fclose(f);
	return ret;
}

/* "Linux host 6.18.44-fc x86_64": the release and the machine. */
static int parse_uname(struct replay_info *in, const char *uname, char *err, size_t errlen)
{
	char sys[32], host[128], rel[64], mach[32];

	if (sscanf(uname, "%31s %127s %63s %31s", sys, host, rel, mach) != 4)
		return ERR("cannot parse the kernel's uname '%s' in the trace", uname);
	snprintf(in->release, sizeof(in->release), "%s", rel);
	if (strcmp(mach, "x86_64"))
		return ERR("the trace comes from a %s kernel (%s): replay models x86 only", mach,
			   rel);
	return 0;
}

static int parse_version(struct replay_info *in, char *err, size_t errlen)
{
	if (sscanf(in->release, "%u.%u.%u", &in->version[0], &in->version[1],
		   &in->version[2]) < 2)
		return ERR("cannot read a version from the kernel release '%s'", in->release);
	/* The oldest profile is v5.17; the tracepoint's reasons are older. */
	if (in->version[0] < 5 || (in->version[0] == 5 && in->version[1] < 17))
		return ERR("kernel %s is older than v5.17, the oldest kernel the library models",
			   in->release);
	return 0;
}

static void warn(struct replay_info *in, const char *msg)
{
	size_t n = strlen(in->warnings);

	snprintf(in->warnings + n, sizeof(in->warnings) - n, "%s\n", msg);
}

/* machine.txt: "key value" lines. */
static void read_machine(struct replay_info *in, const char *dir)
{
	char path[4096], key[64], val[256], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%.4000s/machine.txt", dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %255s", key, val) != 2)
			continue;
		if (!strcmp(key, "pcid"))
			in->pcid = atoi(val);
		else if (!strcmp(key, "invlpgb"))
			in->invlpgb = atoi(val);
		else if (!strcmp(key, "pv_flush_tlb_multi"))
			snprintf(in->pv_flush, sizeof(in->pv_flush), "%.15s", val);
		else if (!strcmp(key, "hz"))
			in->hz = (unsigned int)atoi(val);
	}
	fclose(f);
	in->snapshot = true;
}

/* tasks.txt ("tid tgid kthread comm"), then tgids.txt ("pid tgid"). */
static int read_tasks(struct replay_trace *t, const char *dir)
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
static uint64_t read_lost(const char *dir)
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

static int check_events(struct replay_trace *t, struct reader *r, char *err, size_t errlen)
{
	static const char *const opt[EV_NR] = {
		[EV_SWITCH] = "-e sched:sched_switch", [EV_TLB] = "-e tlb:tlb_flush",
		[EV_NEWTASK] = "-e task:task_newtask", [EV_EXEC] = "-e sched:sched_process_exec",
		[EV_EXIT] = "-e sched:sched_process_exit",
	};

	for (size_t i = 0; i < r->nr_defs; i++) {
		struct evdef *d = &r->defs[i];

		if (d->kind > EV_EXIT)
			continue;
		if (d->id < 0)
			return ERR("the trace has no %s:%s event format: it was recorded on a kernel "
				   "without it", d->sys, d->name);
		/* A run may well fork, exec or exit nothing; but no switch or
		 * no flush at all means the event was not recorded. */
		if (!d->seen && d->kind <= EV_TLB)
			return ERR("the trace has no %s:%s event, which replay needs: record with "
				   "tlbgen-trace record, or trace-cmd record %s", d->sys, d->name,
				   opt[d->kind]);
	}
	if (!r->defs[2].seen && !r->defs[3].seen && !r->defs[4].seen)
		return ERR("the trace has no task:task_newtask, sched:sched_process_exec or "
			   "sched:sched_process_exit event: they were not recorded (record with "
			   "tlbgen-trace record, or trace-cmd record %s %s %s)", opt[EV_NEWTASK],
			   opt[EV_EXEC], opt[EV_EXIT]);
	(void)t;
	return 0;
}

int replay__read(struct replay_trace *t, const char *path, char *err, size_t errlen)
{
	struct replay_info *in = &t->info;
	char file[4096], dir[4096];
	struct file_opts fo;
	struct stat fsb;
	struct tracecmd_input *h;
	struct reader r = { .t = t, .defs = evdefs, .nr_defs = sizeof(evdefs) / sizeof(evdefs[0]) };
	struct stat sb;
	char *slash;
	int ret;

	if (stat(path, &sb))
		return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -ENOENT;
	if (S_ISDIR(sb.st_mode)) {
		snprintf(dir, sizeof(dir), "%s", path);
		snprintf(file, sizeof(file), "%s/trace.dat", path);
	} else {
		snprintf(file, sizeof(file), "%s", path);
		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		else
			snprintf(dir, sizeof(dir), ".");
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(file, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!h)
		return ERR("%s: not a trace-cmd trace.dat file, or a truncated one", file);
	r.tep = tracecmd_get_tep(h);
	in->nr_cpus = (unsigned int)tep_get_cpus(r.tep);
	if (read_file_opts(file, h, &fo)) {
		ret = ERR("%s: the file names no kernel (no uname option)", file);
		goto out;
	}
	if (!fo.complete || stat(file, &fsb) || (uint64_t)fsb.st_size < fo.end) {
		ret = ERR("%s: truncated: the file ends before its data does (%llu bytes)",
			  file, (unsigned long long)fo.end);
		goto out;
	}
	ret = parse_uname(in, fo.uname, err, errlen);
	if (!ret)
		ret = parse_version(in, err, errlen);
	if (ret)
		goto out;
	if (!in->nr_cpus || in->nr_cpus > TLBGEN_MAX_CPUS) {
		ret = ERR("%s: %u CPUs", file, in->nr_cpus);
		goto out;
	}
	for (size_t i = 0; i < r.nr_defs; i++) {
		struct evdef *d = &r.defs[i];
		struct tep_event *ev = tep_find_event_by_name(r.tep, d->sys, d->name);

		d->id = ev ? ev->id : -1;
		d->seen = 0;
		for (int k = 0; k < 3; k++)
			d->fld[k] = ev && d->f[k] ? tep_find_field(ev, d->f[k]) : NULL;
		d->fldd = ev && d->fd ? tep_find_field(ev, d->fd) : NULL;
		if (ev && d->kind == EV_SWITCH)
			r.prev_comm = tep_find_field(ev, "prev_comm");
	}
	snprintf(in->pv_flush, sizeof(in->pv_flush), "native");
	in->pcid = true;
	if (tracecmd_iterate_events(h, NULL, 0, on_record, &r) < 0 || r.err) {
		ret = r.err ? r.err : ERR("%s: cannot read its events (truncated?)", file);
		goto out;
	}
	in->events = t->nr_ev;
	in->lost = r.lost > 0 ? (uint64_t)r.lost : 0;
	if (r.lost) {
		ret = ERR("%s: the kernel dropped events on CPU %d (%lld, %.3f s in): a replay "
			  "of the rest would be wrong; record again with a bigger buffer "
			  "(tlbgen-trace record -b KB)", file, r.lost_cpu, r.lost,
			  (double)(r.lost_ts - r.first_ts) / 1e9);
		goto out;
	}
	ret = check_events(t, &r, err, errlen);
	if (ret)
		goto out;
	in->seconds = t->nr_ev ? (double)t->ev[t->nr_ev - 1].ts / 1e9 : 0;
	if (!strcmp(file + strlen(file) - strlen("trace.dat"), "trace.dat") || S_ISDIR(sb.st_mode))
		read_machine(in, dir);
	if (in->snapshot) {
		in->lost = read_lost(dir);
		if (in->lost) {
			ret = ERR("%s: the kernel dropped %llu events while recording (command.txt): "
				  "record again with a bigger buffer (tlbgen-trace record -b KB)",
				  file, (unsigned long long)in->lost);
			goto out;
		}
		ret = read_tasks(t, dir);
		if (ret)
			goto out;
	} else {
		warn(in, "no snapshot beside the trace (tasks.txt, machine.txt): thread groups "
			 "are inferred from fork flags and kernel threads from their names, each "
			 "CPU's starting state from its first events, and the machine is taken to "
			 "have PCID and native flush IPIs");
	}
out:
	tracecmd_close(h);
	return ret;
}
