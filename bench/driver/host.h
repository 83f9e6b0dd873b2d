/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/driver/host.h - the machine a run ran on (bench/driver/host.c). */
#ifndef TLBGEN_BENCH_HOST_H
#define TLBGEN_BENCH_HOST_H

#include <jansson.h>

/* hostname, uname, kernel, CPU model, CPUs online and allowed, NUMA
 * nodes and the x86 hypervisor flag, as meta.json's "host" object (new
 * reference). */
json_t *bench_host_json(void);

#endif
