// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/plugin.c - `tlbgen-bench --plugin PATH`: user-defined policies
 * without relinking the bench.
 *
 * PATH is a shared object that registers one or more policies with
 * tlbgen_policy_register(), either from an ELF constructor or from
 *     int tlbgen_bench_plugin_init(void);
 * (called once after loading; a negative errno return fails the load). The
 * registered names are then accepted wherever a profile name is, e.g.
 *     tlbgen-bench --plugin ./port_patch_plugin.so tlb_flush1 -p v6.0 -p NAME
 * The object is never unloaded: its callbacks stay referenced by the
 * registry. See docs/policies.md and examples/bench_plugin.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

int bench_plugin_load(const char *path);

typedef int (*bench_plugin_init_fn)(void);

int bench_plugin_load(const char *path)
{
	bench_plugin_init_fn init;
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
	if (init) {
		err = init();
		if (err < 0) {
			fprintf(stderr, "tlbgen-bench: --plugin %s: its tlbgen_bench_plugin_init() "
				"failed: %s\n", path,
				err == -EEXIST ? "a policy it registers has that name already "
						 "(the plugin given twice?)"
					       : strerror(-err));
			return err;
		}
	}
	return 0;
}
