// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/driver/plugin.c - `tlbgen-bench --plugin PATH`: user-defined policies
 * without relinking the bench.
 *
 * PATH is a shared object that registers one or more policies with
 * tlbgen_policy_register(), either from an ELF constructor or from
 *     int tlbgen_bench_plugin_init(void);
 * (called once after loading; a negative errno return fails the load). The
 * registered names are then accepted wherever a profile name is, e.g.
 *     tlbgen-bench --plugin ./port_patch_plugin.so tlb_flush1 -p v6.0 -p NAME
 * The object is never unloaded: its callbacks stay referenced by the
 * registry. A plugin that registers nothing is refused: loading one is a
 * mistake (the wrong file, or an init that returned early). See
 * docs/policies.md and examples/bench_plugin.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

int bench_plugin_load(const char *path);
void bench_plugin_help(FILE *f);

typedef int (*bench_plugin_init_fn)(void);

#define MAX_NAMES	128

/* What each plugin registered, for --help. */
struct loaded {
	const char *path;
	char *names;		/* space-separated */
};
static struct loaded loaded[16];
static unsigned int nloaded;

static int is_in(const char *name, const char **names, int n)
{
	for (int i = 0; i < n && i < MAX_NAMES; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

/* The names registered since `before` was taken, space-separated (NULL: none). */
static char *new_names(const char **before, int nbefore)
{
	const char *now[MAX_NAMES];
	int n = tlbgen_profile_names(now, MAX_NAMES);
	size_t len = 0;
	char *s;

	for (int i = 0; i < n && i < MAX_NAMES; i++)
		if (!is_in(now[i], before, nbefore))
			len += strlen(now[i]) + 1;
	if (!len || !(s = malloc(len)))
		return NULL;
	s[0] = 0;
	for (int i = 0; i < n && i < MAX_NAMES; i++)
		if (!is_in(now[i], before, nbefore))
			strcat(strcat(s, *s ? " " : ""), now[i]);
	return s;
}

static int run_init(const char *path, bench_plugin_init_fn init)
{
	int err = init();

	if (err >= 0)
		return 0;
	fprintf(stderr, "tlbgen-bench: --plugin %s: its tlbgen_bench_plugin_init() failed: %s\n",
		path,
		err == -EEXIST ? "a policy it registers has that name already "
				 "(the plugin given twice?)" :
		err == -ENOENT ? "a policy it registers names an unknown base profile, choice "
				 "or value (libtlbgen named it above)" :
		err == -EINVAL ? "a policy it registers has no name or a bad ops->sz" :
				 strerror(-err));
	return err;
}

int bench_plugin_load(const char *path)
{
	const char *before[MAX_NAMES];
	int nbefore = tlbgen_profile_names(before, MAX_NAMES);
	bench_plugin_init_fn init;
	char *names;
	void *h;
	int err;

	if (!path || !*path) {
		fprintf(stderr, "tlbgen-bench: --plugin needs a path\n");
		return -EINVAL;
	}
	/*
	 * RTLD_NOW: fail here, not in the middle of a run, on a missing symbol.
	 * A bare name would be searched in the library path, so a plugin in the
	 * current directory must be given as ./name.so (as with dlopen()).
	 */
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "tlbgen-bench: --plugin %s: %s\n", path, dlerror());
		return -ENOENT;
	}
	/* POSIX: the object pointer from dlsym() converts to a function pointer. */
	*(void **)&init = dlsym(h, "tlbgen_bench_plugin_init");
	if (init && (err = run_init(path, init)))
		return err;
	/* A plugin is loaded for its policies: one that brings none is a mistake. */
	names = new_names(before, nbefore);
	if (!names) {
		fprintf(stderr, "tlbgen-bench: --plugin %s: registered no policy (it must call "
			"tlbgen_policy_register() from tlbgen_bench_plugin_init() or a "
			"constructor%s)\n", path,
			init ? "" : "; it has no tlbgen_bench_plugin_init()");
		return -ENOENT;
	}
	if (nloaded < sizeof(loaded) / sizeof(loaded[0]))
		loaded[nloaded++] = (struct loaded){ .path = path, .names = names };
	else
		free(names);
	return 0;
}

/* For tlbgen-bench --plugin PATH --help: what each plugin brought. */
void bench_plugin_help(FILE *f)
{
	for (unsigned int i = 0; i < nloaded; i++)
		fprintf(f, "%s--plugin %s registered: %s (each a -p NAME)\n", i ? "" : "\n",
			loaded[i].path, loaded[i].names);
}
