// SPDX-License-Identifier: LGPL-2.1-or-later
/* bench/driver/host.c - the machine a run ran on, for meta.json: name, kernel,
 * CPU model, CPUs and NUMA nodes, and whether it is a guest. */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "host.h"

/* The value of the first "key : value" line of /proc/cpuinfo whose key is one of `keys`. */
static json_t *cpuinfo_value(const char *const *keys, bool *hypervisor)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096], *found = NULL;

	*hypervisor = false;
	if (!f)
		return json_null();
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v, *e;
		size_t kl;

		if (!colon)
			continue;
		kl = (size_t)(colon - line);
		while (kl && (line[kl - 1] == ' ' || line[kl - 1] == '\t'))
			kl--;
		v = colon + 1;
		while (*v == ' ')
			v++;
		e = v + strlen(v);
		while (e > v && (e[-1] == '\n' || e[-1] == ' '))
			*--e = 0;
		if (kl == 5 && !strncmp(line, "flags", 5)) {
			/* x86: "hypervisor" among the flags (CPUID.1:ECX bit 31). */
			char *h = strstr(v, "hypervisor");

			if (h && (h == v || h[-1] == ' ') && (!h[10] || h[10] == ' '))
				*hypervisor = true;
		}
		for (const char *const *k = keys; *k && !found; k++)
			if (strlen(*k) == kl && !strncmp(line, *k, kl))
				found = strdup(v);
	}
	fclose(f);
	if (!found)
		return json_null();
	json_t *s = json_string(found);

	free(found);
	return s ? s : json_null();
}

static int numa_nodes(void)
{
	DIR *d = opendir("/sys/devices/system/node");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 1;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9')
			n++;
	closedir(d);
	return n ? n : 1;
}

json_t *bench_host_json(void)
{
	static const char *const model_keys[] = { "model name", "cpu model", "cpu", "Model",
						  "uarch", NULL };
	struct utsname u;
	cpu_set_t set;
	bool hv;
	json_t *h = json_object(), *model = cpuinfo_value(model_keys, &hv);

	if (!uname(&u)) {
		json_object_set_new(h, "hostname", json_string(u.nodename));
		json_object_set_new(h, "uname", json_pack("{s:s,s:s,s:s,s:s}", "sysname",
							  u.sysname, "release", u.release,
							  "version", u.version, "machine",
							  u.machine));
		json_object_set_new(h, "kernel", json_string(u.release));
	}
	json_object_set_new(h, "cpu_model", model);
	json_object_set_new(h, "cpus_online", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_set_new(h, "cpus_allowed", json_integer(sched_getaffinity(0, sizeof(set),
						&set) ? -1 : CPU_COUNT(&set)));
	json_object_set_new(h, "numa_nodes", json_integer(numa_nodes()));
	json_object_set_new(h, "hypervisor", json_boolean(hv));
	return h;
}

/* The full choice list of a policy, from a throw-away stepped system. */
