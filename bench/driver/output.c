// SPDX-License-Identifier: LGPL-2.1-or-later
/* bench/driver/output.c - the files a run writes besides its results directory:
 * checked before the run, "-" meaning standard output. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "output.h"

/* Output files -------------------------------------------------------------- */

int bench_check_output(const char *opt, const char *path)
{
	char dir[PATH_MAX];
	const char *slash;
	struct stat st;

	if (!strcmp(path, "-"))
		return 0;
	if (!*path || strlen(path) >= sizeof(dir)) {
		fprintf(stderr, "tlbgen-bench: %s: '%s' is not a usable file name\n", opt, path);
		return -EINVAL;
	}
	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode)) {
			fprintf(stderr, "tlbgen-bench: %s: %s: is a directory\n", opt, path);
			return -EISDIR;
		}
		if (access(path, W_OK)) {
			int e = errno;

			fprintf(stderr, "tlbgen-bench: %s: %s: %s\n", opt, path, strerror(e));
			return -e;
		}
		return 0;
	}
	slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK)) {
		int e = errno ? errno : ENOTDIR;

		fprintf(stderr, "tlbgen-bench: %s: %s: cannot create (%s: %s)\n", opt, path, dir,
			strerror(e));
		return -e;
	}
	return 0;
}

/* Where "-" goes: stdout, or the real stdout that --json - kept aside. */
static FILE *json_stdout;

void bench_set_stdout(FILE *f)
{
	json_stdout = f;
}

FILE *bench_open_output(const char *path)
{
	return strcmp(path, "-") ? fopen(path, "w") : json_stdout ? json_stdout : stdout;
}

void bench_close_output(FILE *f)
{
	if (f == stdout || (f && f == json_stdout))
		fflush(f);
	else if (f)
		fclose(f);
}

int bench_json_dump(json_t *doc, const char *path)
{
	FILE *f = bench_open_output(path);
	int err = 0;

	if (!f) {
		err = -errno;
	} else {
		if (json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(12)))
			err = -EIO;
		fputc('\n', f);
		if (f == stdout || f == json_stdout) {
			if (fflush(f))
				err = -errno;
		} else if (fclose(f) && !err) {
			err = -errno;
		}
	}
	if (err)
		fprintf(stderr, "tlbgen-bench: %s: %s\n", path, strerror(-err));
	return err;
}
