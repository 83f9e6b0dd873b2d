// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay-tracecmd.c - trace.dat's events through libtracecmd and
 * libtraceevent, in time order over all CPUs: the ones replay needs kept
 * (struct rev), every record counted per CPU. Runs in the child process of
 * replay-child.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>
#include <event-parse.h>

#include "replay-internal.h"

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
	uint64_t *records;	/* [nr_cpus]: every record, kept or not */
	unsigned int nr_cpus;
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
	if (cpu >= 0 && (unsigned int)cpu < r->nr_cpus)
		r->records[cpu]++;
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

/*
 * In the child (replay-child.c): trace.dat's events through libtracecmd
 * into t->ev, every record counted per CPU into records[nr_cpus]; the
 * events replay needs present, no events lost.
 */
int replay__tracecmd_read(struct replay_trace *t, const char *file, uint64_t *records,
			  unsigned int nr_cpus, char *err, size_t errlen)
{
	struct reader r = { .t = t, .defs = evdefs, .nr_defs = sizeof(evdefs) / sizeof(evdefs[0]),
			    .records = records, .nr_cpus = nr_cpus };
	struct tracecmd_input *h;
	int ret;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(file, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!h)
		return ERR("%s: libtracecmd cannot open it: a section is corrupt", file);
	r.tep = tracecmd_get_tep(h);
	if ((unsigned int)tep_get_cpus(r.tep) != nr_cpus) {
		ret = ERR("%s: libtracecmd reads %d CPUs, the file has %u", file,
			  tep_get_cpus(r.tep), nr_cpus);
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
	if (tracecmd_iterate_events(h, NULL, 0, on_record, &r) < 0 || r.err) {
		ret = r.err ? r.err : ERR("%s: cannot read its events", file);
		goto out;
	}
	if (r.lost) {
		ret = ERR("%s: the kernel dropped events on CPU %d (%lld, %.3f s in): a replay "
			  "of the rest would be wrong; record again with a bigger buffer "
			  "(tlbgen-trace record -b KB)", file, r.lost_cpu, r.lost,
			  (double)(r.lost_ts - r.first_ts) / 1e9);
		goto out;
	}
	ret = check_events(t, &r, err, errlen);
out:
	tracecmd_close(h);
	return ret;
}
