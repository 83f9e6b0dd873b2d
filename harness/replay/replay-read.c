// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay-read.c - read a recording: trace.dat's structure checked
 * (replay-dat.c), then its events through libtracecmd and libtraceevent
 * (in time order over all CPUs) in a child process (replay-child.c), and
 * the files bench/tlbgen-trace writes beside it (replay-files.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay-dat.h"
#include "replay-internal.h"

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

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

/* trace.dat's structure, from its bytes (mapped, read-only). */
static int check_file(const char *file, struct replay_dat *dat, char *err, size_t errlen)
{
	char why[768];
	struct stat sb;
	void *b;
	int fd, ret;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_size == 0) {
		close(fd);
		return ERR("%s: %s", file, sb.st_size ? "not a file" :
			   "empty: truncated at byte 0");
	}
	b = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (b == MAP_FAILED)
		return snprintf(err, errlen, "%s: %s", file, strerror(errno)), -EIO;
	ret = replay__dat_check(b, (size_t)sb.st_size, dat, why, sizeof(why));
	munmap(b, (size_t)sb.st_size);
	if (ret == -EINVAL)
		ret = ERR("%s: %s", file, why);
	else if (ret)
		snprintf(err, errlen, "%s: %s", file, strerror(-ret));
	return ret;
}

/* A CPU whose pages the kernel flagged: events were lost there. */
static int check_lost_pages(const struct replay_dat *dat, const char *file, char *err,
			    size_t errlen)
{
	for (unsigned int c = 0; c < dat->nr_cpus; c++)
		if (dat->cpu[c].missed_pages)
			return ERR("%s: the kernel dropped events on CPU %u (%llu of its pages "
				   "say so): a replay of the rest would be wrong; record again "
				   "with a bigger buffer (tlbgen-trace record -b KB)", file, c,
				   (unsigned long long)dat->cpu[c].missed_pages);
	return 0;
}

int replay__read(struct replay_trace *t, const char *path, char *err, size_t errlen)
{
	struct replay_info *in = &t->info;
	char file[4096], dir[4096], *slash;
	struct replay_dat dat;
	struct stat sb;
	int ret;

	if (stat(path, &sb))
		return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -ENOENT;
	snprintf(dir, sizeof(dir), "%s", path);
	if (S_ISDIR(sb.st_mode)) {
		snprintf(file, sizeof(file), "%.4000s/trace.dat", path);
		if (access(file, F_OK))
			return snprintf(err, errlen, "no trace.dat in %s", path), -ENOENT;
	} else {
		snprintf(file, sizeof(file), "%s", path);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		else
			snprintf(dir, sizeof(dir), ".");
	}
	ret = check_file(file, &dat, err, errlen);
	if (ret)
		return ret;
	ret = check_lost_pages(&dat, file, err, errlen);
	if (!ret)
		ret = parse_uname(in, dat.uname, err, errlen);
	if (!ret)
		ret = parse_version(in, err, errlen);
	in->nr_cpus = dat.nr_cpus;
	snprintf(in->pv_flush, sizeof(in->pv_flush), "native");
	in->pcid = true;
	if (!ret && (!strcmp(file + strlen(file) - strlen("trace.dat"), "trace.dat") ||
		     S_ISDIR(sb.st_mode)))
		ret = replay__read_machine(in, dir, err, errlen);
	if (!ret)
		ret = replay__child_read(t, file, &dat, err, errlen);
	replay__dat_free(&dat);
	if (ret)
		return ret;
	in->events = t->nr_ev;
	in->seconds = t->nr_ev ? (double)t->ev[t->nr_ev - 1].ts / 1e9 : 0;
	if (in->snapshot) {
		in->lost = replay__read_lost(dir);
		if (in->lost)
			return ERR("%s: the kernel dropped %llu events while recording (command.txt): "
				   "record again with a bigger buffer (tlbgen-trace record -b KB)",
				   file, (unsigned long long)in->lost);
		return replay__read_tasks(t, dir);
	}
	warn(in, "no snapshot beside the trace (tasks.txt, machine.txt): thread groups "
		 "are inferred from fork flags and kernel threads from their names, each "
		 "CPU's starting state from its first events, and the machine from its "
		 "tlb_flush events (PCID and native flush IPIs where they do not tell)");
	return 0;
}

