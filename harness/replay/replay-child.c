// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay-child.c - libtracecmd reads trace.dat in a child process:
 * whatever a corrupt file makes it do (it trusts the offsets and sizes it
 * reads), the replay gets events or a reason, never a crash. The child
 * sends a header, each CPU's record count and the events through a pipe;
 * the parent checks them against the file's own pages (replay-dat.c)
 * before it keeps any.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay-dat.h"
#include "replay-internal.h"

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)
#define CHILD_MAGIC 0x746c6272U	/* "tlbr" */
/* A child that has not finished by then is stopped (SIGALRM): a file
 * whose pages loop libtracecmd. */
#define CHILD_SECONDS 600

struct child_hdr {
	uint32_t magic;
	int32_t ret;
	uint32_t nr_cpus;
	uint32_t pad;
	uint64_t nr_ev;
	char err[768];
};

static int write_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p = (const char *)p + w;
		n -= (size_t)w;
	}
	return 0;
}

static void child(struct replay_trace *t, const char *file, unsigned int nr_cpus, int fd)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct child_hdr h = { .magic = CHILD_MAGIC, .nr_cpus = nr_cpus };
	uint64_t *records = calloc(nr_cpus, sizeof(*records));

	/* Die of the signal (no sanitizer report about a library we do not
	 * build): the parent names it. */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	alarm(CHILD_SECONDS);
	if (!records)
		_exit(3);
	h.ret = replay__tracecmd_read(t, file, records, nr_cpus, h.err, sizeof(h.err));
	h.nr_ev = h.ret ? 0 : t->nr_ev;
	if (write_all(fd, &h, sizeof(h)) || write_all(fd, records, nr_cpus * sizeof(*records)) ||
	    write_all(fd, t->ev, h.nr_ev * sizeof(*t->ev)))
		_exit(4);
	_exit(0);
}

int replay__child_read(struct replay_trace *t, const char *file, const struct replay_dat *dat,
		       char *err, size_t errlen)
{
	unsigned char *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	char why[1024];
	int fd[2], st, ret = 0;
	pid_t pid;

	if (pipe(fd))
		return snprintf(err, errlen, "pipe: %s", strerror(errno)), -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return snprintf(err, errlen, "fork: %s", strerror(errno)), -EAGAIN;
	}
	if (!pid) {
		close(fd[0]);
		child(t, file, dat->nr_cpus, fd[1]);
	}
	close(fd[1]);
	for (;;) {
		ssize_t n;

		if (len == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			if (!(nb = realloc(buf, cap))) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
		}
		n = read(fd[0], buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd[0]);
	if (ret)
		kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!ret && WIFSIGNALED(st))
		ret = ERR("%s: libtracecmd %s reading it (signal %d, %s): the file is corrupt",
			  file, WTERMSIG(st) == SIGALRM ? "did not finish" : "crashed",
			  WTERMSIG(st), strsignal(WTERMSIG(st)));
	else if (!ret && (!WIFEXITED(st) || WEXITSTATUS(st)))
		ret = ERR("%s: the reader's child failed (exit %d)", file, WEXITSTATUS(st));
	else if (!ret && (ret = replay__child_decode(t, buf, len, dat, why, sizeof(why))))
		/* The child's own reasons name the file already. */
		snprintf(err, errlen, "%s%s%s", strncmp(why, file, strlen(file)) ? file : "",
			 strncmp(why, file, strlen(file)) ? ": " : "", why);
	free(buf);
	return ret;
}

/* PID_MAX_LIMIT (include/linux/threads.h), the largest pid there is. */
#define PID_LIMIT (4 * 1024 * 1024)

/* The fields replay reads hold values the kernel can trace: a pid, a
 * tlb_flush reason (enum tlb_flush_reason, 0 to 5), a page count or
 * TLB_FLUSH_ALL, a CPU of the trace. */
static const char *bad_field(const struct rev *e, unsigned int nr_cpus)
{
	if (e->pid < 0 || e->pid > PID_LIMIT)
		return "its task's pid";
	switch (e->kind) {
	case EV_SWITCH:
		return e->a < 0 || e->a > PID_LIMIT || e->b < 0 || e->b > PID_LIMIT ?
			"sched_switch's pids" : NULL;
	case EV_TLB:
		if (e->a < 0 || e->a > 5)
			return "tlb_flush's reason";
		return e->c < -1 || e->c > (1LL << 45) ? "tlb_flush's pages" : NULL;
	case EV_NEWTASK:
	case EV_EXEC:
	case EV_EXIT:
		return e->a < 0 || e->a > PID_LIMIT ? "its pid" : NULL;
	case EV_CSD_QUEUE:
		return e->a < 0 || (unsigned int)e->a >= nr_cpus ? "csd_queue_cpu's CPU" : NULL;
	}
	return NULL;
}

/* Each event's CPU, kind and fields, and each CPU's timestamps in order. */
static int check_events(const struct rev *ev, uint64_t nr, unsigned int nr_cpus, char *err,
			size_t errlen)
{
	const char *bad;

	uint64_t *last = calloc(nr_cpus, sizeof(*last)), *n = calloc(nr_cpus, sizeof(*n));
	int ret = 0;

	if (!last || !n)
		ret = -ENOMEM;
	for (uint64_t i = 0; i < nr && !ret; i++) {
		if (ev[i].cpu >= nr_cpus || ev[i].kind >= EV_NR)
			ret = ERR("event %llu: CPU %u, kind %u", (unsigned long long)i, ev[i].cpu,
				  ev[i].kind);
		else if ((bad = bad_field(&ev[i], nr_cpus)))
			ret = ERR("event %llu (CPU %u, %.6f s in): %s is out of range (a=%d b=%d "
				  "c=%lld): the data is corrupt", (unsigned long long)i, ev[i].cpu,
				  (double)ev[i].ts / 1e9, bad, ev[i].a, ev[i].b, (long long)ev[i].c);
		else if (n[ev[i].cpu]++ && ev[i].ts < last[ev[i].cpu])
			ret = ERR("CPU %u timestamps go backwards at event %llu",
				  ev[i].cpu, (unsigned long long)(n[ev[i].cpu] - 1));
		else
			last[ev[i].cpu] = ev[i].ts;
	}
	free(last);
	free(n);
	return ret;
}

int replay__child_decode(struct replay_trace *t, const unsigned char *buf, size_t len,
			 const struct replay_dat *dat, char *err, size_t errlen)
{
	struct child_hdr h;
	uint64_t rec;
	size_t need;
	struct rev *ev;
	int ret;

	if (len < sizeof(h))
		return ERR("the reader's child sent %zu bytes", len);
	memcpy(&h, buf, sizeof(h));
	h.err[sizeof(h.err) - 1] = 0;
	if (h.magic != CHILD_MAGIC)
		return ERR("the reader's child sent no header");
	if (h.ret)
		return snprintf(err, errlen, "%s", h.err), h.ret < 0 ? h.ret : -EINVAL;
	if (h.nr_cpus != dat->nr_cpus)
		return ERR("libtracecmd read %u CPUs, the file has %u", h.nr_cpus, dat->nr_cpus);
	need = sizeof(h) + (size_t)h.nr_cpus * sizeof(uint64_t);
	if (h.nr_ev > (SIZE_MAX - need) / sizeof(struct rev) ||
	    len != need + h.nr_ev * sizeof(struct rev))
		return ERR("the reader's child sent %zu bytes for %llu events", len,
			   (unsigned long long)h.nr_ev);
	for (unsigned int c = 0; c < h.nr_cpus; c++) {
		memcpy(&rec, buf + sizeof(h) + c * sizeof(rec), sizeof(rec));
		if (rec != dat->cpu[c].events)
			return ERR("CPU %u: libtracecmd read %llu events where its pages hold %llu: "
				   "the data is corrupt", c, (unsigned long long)rec,
				   (unsigned long long)dat->cpu[c].events);
	}
	if (!h.nr_ev)
		return 0;
	if (!(ev = malloc(h.nr_ev * sizeof(*ev))))
		return -ENOMEM;
	memcpy(ev, buf + need, h.nr_ev * sizeof(*ev));
	ret = check_events(ev, h.nr_ev, h.nr_cpus, err, errlen);
	if (ret) {
		free(ev);
		return ret;
	}
	free(t->ev);
	t->ev = ev;
	t->nr_ev = t->cap_ev = h.nr_ev;
	return 0;
}
