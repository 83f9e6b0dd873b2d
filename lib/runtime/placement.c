// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/placement.c - where each emulated CPU's thread runs: one per
 * real core of our affinity (SMT siblings skipped), NUMA nodes interleaved,
 * or the user's cpu_list.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbgen_config.h"
#if HAVE_LIBNUMA
#include <numa.h>
#endif

#include "runtime.h"

static int read_sysfs_int(unsigned int cpu, const char *what)
{
	char path[128];
	FILE *f;
	int v = -1;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/%s", cpu, what);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static int cpu_node(int hcpu, bool numa)
{
#if HAVE_LIBNUMA
	if (numa)
		return numa_node_of_cpu(hcpu);
#else
	(void)hcpu;
	(void)numa;
#endif
	return -1;
}

/* One real CPU per core of our affinity, nodes interleaved. */
static int default_hosts(bool numa, int *list, unsigned int *nr)
{
	cpu_set_t set;
	int *pkg, *core, *node;
	unsigned int n = 0, out = 0;
	int maxnode = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	pkg = calloc(CPU_SETSIZE, sizeof(int));
	core = calloc(CPU_SETSIZE, sizeof(int));
	node = calloc(CPU_SETSIZE, sizeof(int));
	if (!pkg || !core || !node) {
		free(pkg);
		free(core);
		free(node);
		return -ENOMEM;
	}
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int p, k;
		bool dup = false;

		if (!CPU_ISSET(c, &set))
			continue;
		p = read_sysfs_int((unsigned int)c, "physical_package_id");
		k = read_sysfs_int((unsigned int)c, "core_id");
		for (unsigned int i = 0; i < n && k >= 0; i++)
			if (pkg[i] == p && core[i] == k)
				dup = true;
		if (dup)
			continue;	/* an SMT sibling of a core we have */
		pkg[n] = p;
		core[n] = k;
		node[n] = cpu_node(c, numa);
		if (node[n] > maxnode)
			maxnode = node[n];
		list[n++] = c;
	}
	/* Round-robin over nodes: CPU 0 on node 0, CPU 1 on node 1, ... */
	{
		int *tmp = malloc(n * sizeof(int) + 1);
		bool *used = calloc(n + 1, sizeof(bool));

		if (!tmp || !used) {
			free(tmp);
			free(used);
			free(pkg);
			free(core);
			free(node);
			return -ENOMEM;
		}
		while (out < n) {
			for (int nd = -1; nd <= maxnode; nd++) {
				for (unsigned int i = 0; i < n; i++) {
					if (used[i] || node[i] != nd)
						continue;
					used[i] = true;
					tmp[out++] = list[i];
					break;
				}
			}
		}
		memcpy(list, tmp, n * sizeof(int));
		free(tmp);
		free(used);
	}
	free(pkg);
	free(core);
	free(node);
	*nr = n;
	return 0;
}

/* Compute sys->rt and the placement; the first per-CPU allocation calls it. */
int tlbgen__rt_placement(struct tlbgen_system *sys)
{
	const struct tlbgen_runtime_opts *o = &sys->rt_opts;
	struct tlbgen_rt *rt;
	int *list;
	unsigned int nr = 0, distinct = 0;
	cpu_set_t seen;
	int err;

	if (sys->rt)
		return 0;
	rt = calloc(1, sizeof(*rt));
	list = calloc(CPU_SETSIZE, sizeof(int));
	if (!rt || !list) {
		free(rt);
		free(list);
		return -ENOMEM;
	}
#if HAVE_LIBNUMA
	rt->numa = numa_available() >= 0;
#endif
	if (o->cpu_list && o->nr_cpu_list) {
		if (o->nr_cpu_list > CPU_SETSIZE) {
			err = -EINVAL;
			goto fail;
		}
		for (unsigned int i = 0; i < o->nr_cpu_list; i++) {
			if (o->cpu_list[i] < 0 || o->cpu_list[i] >= CPU_SETSIZE) {
				err = -EINVAL;
				goto fail;
			}
			list[i] = o->cpu_list[i];
		}
		nr = o->nr_cpu_list;
	} else if (o->cpu_list || o->nr_cpu_list) {
		err = -EINVAL;
		goto fail;
	} else {
		err = default_hosts(rt->numa, list, &nr);
		if (err)
			goto fail;
		if (!nr) {
			list[0] = 0;
			nr = 1;
		}
	}
	rt->host = calloc(sys->nr_cpus, sizeof(int));
	rt->node = calloc(sys->nr_cpus, sizeof(int));
	if (!rt->host || !rt->node) {
		err = -ENOMEM;
		goto fail;
	}
	CPU_ZERO(&seen);
	for (unsigned int i = 0; i < nr; i++) {
		if (!CPU_ISSET(list[i], &seen))
			distinct++;
		CPU_SET(list[i], &seen);
	}
	for (unsigned int i = 0; i < sys->nr_cpus; i++) {
		rt->host[i] = list[i % nr];
		rt->node[i] = cpu_node(rt->host[i], rt->numa);
	}
	rt->nr_host = distinct;
	rt->oversubscribed = sys->nr_cpus > distinct;
	free(list);
	sys->rt = rt;
	return 0;
fail:
	free(rt->host);
	free(rt->node);
	free(rt);
	free(list);
	return err;
}

