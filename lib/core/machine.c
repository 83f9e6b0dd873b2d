// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/core/machine.c - machine models for the virtual-time mode, as data.
 *
 * The built-ins' figures were fixed from their sources before any
 * comparison with a benchmark table; docs/machines.md gives each source.
 * ns figures are converted at the model's clock. Marked "estimate" where
 * no public measurement was found.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/compiler.h"
#include "../base/printk.h"
#include "machine.h"

/*
 * Skylake-SP at 2.5 GHz, the figures every built-in shares; docs/machines.md
 * gives each source.
 */
#define SKYLAKE_SP							\
	.mhz = 2500,							\
	.hit = 5,				/* L1D, Intel optimization manual (estimate) */ \
	.same_socket = NS(48, 2500),		/* core-to-core CAS, Cascade Lake-SP */ \
	.cross_socket = NS(135, 2500),		/* the same across UPI */	\
	.memory = NS(90, 2500),			/* local DRAM (estimate) */	\
	.rmw = 20,				/* lock-prefixed RMW over a store (estimate) */ \
	.inval_sharer = 0,			/* invalidations go out in parallel */ \
	.ipi_send = 200,			/* x2APIC ICR WRMSR (estimate) */ \
	.ipi_latency = NS(1000, 2500),		/* send to interrupt entry (estimate) */ \
	.cr3_write = 251,			/* Ingo Molnar 2015: 251 / 366 cycles */ \
	.refill = 30,				/* walk hitting the paging-structure caches */ \
	.page_fault = NS(2000, 2500),		/* minor fault (estimate) */	\
	.ptl = 25,				/* uncontended spin_lock (estimate) */ \
	.zap = NS(2000, 2500),			/* zap_pte_range() of one page + free (estimate) */ \
	.zap_batched = 290,			/* munmap() of 128 MiB dirty shmem, measured */ \
	.lru_folio = 108,			/* one folio under lru_lock (estimate) */ \
	.user_work = 10,			/* will-it-scale's store to the page */ \
	.spin = 140,				/* PAUSE on Skylake: Intel optimization manual */ \
	.invlpgb = NS(100, 2500),		/* issue, as an INVLPG (estimate) */ \
	.tlbsync = NS(1000, 2500),		/* a fabric round trip to every core (estimate) */ \
	.fill_hold = 0				/* no measurement found: fills side by side */

/*
 * With PTI: entry and exit switch CR3, and flush_tlb_one_user() runs
 * INVLPG, then INVPCID on the user PCID (Dave Hansen, linux-mm 2017-12-05,
 * Skylake: "INVLPG is ~200 cycles and INVLPG+INVPCID is ~550").
 */
#define SKYLAKE_SP_PTI							\
	SKYLAKE_SP,							\
	.irq_entry = NS(320, 2500),		/* entry with PTI's CR3 write (estimate) */ \
	.irq_exit = NS(320, 2500),		/* EOI WRMSR, exit with CR3 write (estimate) */ \
	.invlpg = 550,							\
	.syscall = NS(478, 2500)		/* getppid() round trip with PTI */

/*
 * Without PTI: one CR3 write less at entry and at exit, and INVLPG alone
 * (arch/x86/mm/tlb.c: "Each single flush is about 100 ns", a5102476a24b).
 */
#define SKYLAKE_SP_NOPTI						\
	SKYLAKE_SP,							\
	.irq_entry = NS(320, 2500) - 251,	/* PTI's figure less its CR3 write (estimate) */ \
	.irq_exit = NS(320, 2500) - 251,	/* EOI WRMSR and exit, the same (estimate) */ \
	.invlpg = NS(100, 2500),					\
	.syscall = NS(339, 2500)		/* getppid() round trip without PTI */

/*
 * Nadav Amit's "56-core Skylake" (aa44284960), 2.5 GHz. The thread names
 * no part; his earlier shootdown series, posted from the same employer
 * (x86/tlb: Concurrent TLB flushes v4, 2019-08-23; one of its patches was
 * merged as 6035152d8eeb, which the seed's kernels revert), measured a
 * "2-socket, 56-logical-cores (28+SMT) Skylake": 2 sockets x 14 cores x
 * 2 threads. will-it-scale binds task i to core i % 28, so its tasks 0-13
 * fill socket 0, 14-27 socket 1, and 28-55 are their siblings: Linux's
 * CPU numbering, as this model's. PTI off: of the table he posted next,
 * in aa44284960's review, "IIRC the previous run was with PTI disabled and
 * now it is enabled".
 */
static const struct tlbgen_machine skylake_56 = {
	.sz = sizeof(struct tlbgen_machine),
	.name = "skylake-56",
	.sockets = 2, .cores_per_socket = 14, .threads_per_core = 2,
	SKYLAKE_SP_NOPTI,
};

/*
 * The same box with PTI on, for that second table: it ran on a Haswell
 * "and now it is enabled"; there is no Haswell model, so the Skylake
 * figures stand in with PTI's costs.
 */
static const struct tlbgen_machine skylake_56_pti = {
	.sz = sizeof(struct tlbgen_machine),
	.name = "skylake-56-pti",
	.sockets = 2, .cores_per_socket = 14, .threads_per_core = 2,
	SKYLAKE_SP_PTI,
};

/* Rik van Riel's two-socket box of 6db2526c1d69: "20 CPU cores on each
 * socket (80 CPUs total)", 2 x 20 cores x 2 threads, with PTI: Skylake-SP's
 * default (it is Meltdown-affected), and the thread says nothing of it.
 * His "tlbflush2 -t 40" binds its 40 tasks to the 40 cores, 20 a socket. */
static const struct tlbgen_machine skx_2s_80 = {
	.sz = sizeof(struct tlbgen_machine),
	.name = "skx-2s-80",
	.sockets = 2, .cores_per_socket = 20, .threads_per_core = 2,
	SKYLAKE_SP_PTI,
};

/*
 * Seed 004's box: "a 2 Node/8 socket Power10 system", an LPAR of 105
 * cores over all the sockets. The struct has one core count per socket:
 * 7 x 15 (15 is a POWER10 chip's most active cores) gives the 105; the
 * test is one task, whose flushes are tlbie broadcasts with no IPI, so
 * where the other cores sit does not enter its figures. SMT off: the
 * task's core is what is measured. Every cost is an estimate
 * (docs/machines.md): no published tlbie latency was found. The x86
 * names carry powerpc meanings: invlpg is one tlbie by page (radix.c
 * charges it per page), cr3_write one tlbie by PID (RIC_FLUSH_ALL).
 */
static const struct tlbgen_machine power10 = {
	.sz = sizeof(struct tlbgen_machine),
	.name = "power10",
	.sockets = 7, .cores_per_socket = 15, .threads_per_core = 1,
	.mhz = 4000,				/* E1080 15-core: 3.55-4.0 GHz */
	.hit = 4,				/* L1D (estimate) */
	.same_socket = NS(50, 4000),		/* estimate */
	.cross_socket = NS(200, 4000),		/* across the SMP fabric (estimate) */
	.memory = NS(100, 4000),		/* estimate */
	.rmw = 20,				/* larx/stcx. pair (estimate) */
	.inval_sharer = 0,
	.ipi_send = 400,			/* msgsnd or XIVE (estimate) */
	.ipi_latency = NS(1000, 4000),		/* estimate */
	.irq_entry = NS(200, 4000),		/* estimate */
	.irq_exit = NS(200, 4000),		/* estimate */
	.invlpg = NS(500, 4000),		/* tlbie by page to 8 sockets (estimate) */
	.cr3_write = NS(500, 4000),		/* tlbie by PID: one broadcast too (estimate) */
	.refill = 50,				/* estimate */
	.syscall = NS(300, 4000),		/* scv/sc round trip (estimate) */
	.page_fault = NS(750, 4000),		/* shmem minor fault, page cached (estimate) */
	.ptl = 25,				/* estimate */
	.zap = NS(150, 4000),			/* one shmem PTE, no free (estimate) */
	.user_work = 10,			/* the test's store to the page (estimate) */
	.spin = 40,				/* estimate */
	.invlpgb = 0,				/* x86 only */
	.tlbsync = 0,				/* x86 only */
	.fill_hold = 0,
};

/*
 * Seed 003's box: "128 CPUs" of aarch64, unnamed in the thread (Xu Yu,
 * Alibaba, July 2020). Assumed a 2-socket Huawei Kunpeng 920-6426 server:
 * 2 x 64 TaiShan v110 cores at 2.6 GHz, no SMT - the 128-CPU two-socket
 * arm64 server of 2020 (Ampere Altra Max, 128 cores in one socket, shipped
 * in 2021). docs/machines.md gives each figure; every cost is an estimate.
 * The x86 names carry arm64 meanings: invlpg is a local TLBI VALE1 + DSB
 * NSH, cr3_write a local TLBI ASIDE1 + DSB NSH, invlpgb the issue of one
 * TLBI ...IS, tlbsync (+ tlbsync_per_cpu per CPU) the DSB ISH that waits
 * until every PE of the inner-shareable domain has completed it.
 */
static const struct tlbgen_machine arm64_128 = {
	.sz = sizeof(struct tlbgen_machine),
	.name = "arm64-128",
	.sockets = 2, .cores_per_socket = 64, .threads_per_core = 1,
	.mhz = 2600,				/* Kunpeng 920-6426: 2.6 GHz */
	.hit = 4,				/* L1D (estimate) */
	.same_socket = NS(50, 2600),		/* estimate */
	.cross_socket = NS(150, 2600),		/* across the Hydra links (estimate) */
	.memory = NS(100, 2600),		/* estimate */
	.rmw = 20,				/* LSE atomic over a store (estimate) */
	.inval_sharer = 0,
	.ipi_send = 300,			/* ICC_SGI1R_EL1 write (estimate) */
	.ipi_latency = NS(1000, 2600),		/* estimate */
	.irq_entry = NS(200, 2600),		/* estimate */
	.irq_exit = NS(200, 2600),		/* estimate */
	.invlpg = 50,				/* TLBI VALE1 + DSB NSH (estimate) */
	.cr3_write = 60,			/* TLBI ASIDE1 + DSB NSH (estimate) */
	.refill = 30,				/* estimate */
	.syscall = NS(150, 2600),		/* svc round trip (estimate) */
	.page_fault = NS(1000, 2600),		/* shared file write fault (estimate) */
	.ptl = 25,				/* estimate */
	.zap = NS(200, 2600),			/* one file PTE, rmap, dirty (estimate) */
	.user_work = 10,			/* page_fault3's store (estimate) */
	.spin = 20,				/* estimate */
	.invlpgb = 20,				/* issuing a TLBI ...IS (estimate) */
	.tlbsync = NS(200, 2600),		/* DSB ISH: a DVM round trip (estimate) */
	.tlbsync_per_cpu = 8,			/* each PE's DVM completion (estimate) */
	.fill_hold = 0,
};

/*
 * Seed 002's box: the SiFive HiFive Unmatched, an FU740 with 4 U74 cores
 * at 1.2 GHz sharing one L2, Linux in S-mode under OpenSBI. Its S-mode
 * IPIs come from the SBI IPI extension, so v6.7/v6.8 send every remote
 * sfence.vma as one sbi_remote_sfence_vma_asid() call (profile choice
 * riscv_rfence=sbi). The x86 names carry these meanings: ipi_send is
 * OpenSBI queueing a request and raising a target's MSIP, ipi_latency the
 * MSIP reaching the target, irq_entry/irq_exit a trap into M-mode and its
 * mret; invlpg a sfence.vma by page, cr3_write one by ASID or whole;
 * page_fault the shmem swap-in fault, zap the reclaim of one page with
 * its swap write. Every cost is an estimate (docs/machines.md).
 */
static const struct tlbgen_machine unmatched = {
	.sz = sizeof(struct tlbgen_machine),
	.name = "unmatched",
	.sockets = 1, .cores_per_socket = 4, .threads_per_core = 1,
	.mhz = 1200,				/* FU740: U74 cores at 1.2 GHz */
	.hit = 3,				/* L1D (estimate) */
	.same_socket = 60,			/* a line via the shared L2 (estimate) */
	.cross_socket = 60,			/* one socket: as same_socket */
	.memory = NS(150, 1200),		/* DDR4 (estimate) */
	.rmw = 10,				/* an AMO over a store (estimate) */
	.inval_sharer = 0,
	.ipi_send = 600,			/* OpenSBI: queue, MSIP write (estimate) */
	.ipi_latency = 1200,			/* MSIP to the target's trap (estimate) */
	.irq_entry = 400,			/* M-mode trap entry, dispatch (estimate) */
	.irq_exit = 400,			/* and its mret (estimate) */
	.invlpg = 20,				/* sfence.vma by page (estimate) */
	.cr3_write = 50,			/* sfence.vma by ASID or all (estimate) */
	.refill = 60,				/* a hardware page walk (estimate) */
	.syscall = 600,				/* ecall round trip into Linux (estimate) */
	/*
	 * The shmem swap-in fault and the reclaim of one page together: the
	 * seed's single program after 54d7431af73e, 17.9 s for 10000 rounds
	 * of 256 pages, where one flush per 256 pages is left (7.0 us a page,
	 * less the 0.1 us the model charges there for the rest); split
	 * evenly between the two (estimate).
	 */
	.page_fault = NS(3450, 1200),
	.ptl = 20,				/* estimate */
	.zap = NS(3450, 1200),
	.user_work = 10,			/* the program's read of the page (estimate) */
	.spin = 20,				/* estimate */
	.invlpgb = 0,				/* x86 only */
	.tlbsync = 0,				/* x86 only */
	.fill_hold = 0,
};

static const struct tlbgen_machine *const builtin[] = { &skylake_56, &skylake_56_pti, &skx_2s_80,
							 &power10, &arm64_128, &unmatched };

struct field {
	const char *name;
	size_t off;
	bool is_u32;		/* else unsigned int */
	unsigned long min, max;
};

#define U(f, lo, hi) { #f, offsetof(struct tlbgen_machine, f), false, lo, hi }
#define C(f) { #f, offsetof(struct tlbgen_machine, f), true, 0, 100000000 }
static const struct field fields[] = {
	U(sockets, 1, 64), U(cores_per_socket, 1, TLBGEN_MAX_CPUS), U(mhz, 100, 10000),
	C(hit), C(same_socket), C(cross_socket), C(memory), C(rmw), C(inval_sharer),
	C(ipi_send), C(ipi_latency), C(irq_entry), C(irq_exit), C(invlpg), C(cr3_write),
	C(refill), C(syscall), C(page_fault), C(ptl), C(zap), C(user_work), C(spin),
	C(invlpgb), C(tlbsync), C(fill_hold),
	{ "threads_per_core", offsetof(struct tlbgen_machine, threads_per_core), true, 0, 8 },
	{ "work_jitter", offsetof(struct tlbgen_machine, work_jitter), true, 0, 900 },
	{ "tlbsync_per_cpu", offsetof(struct tlbgen_machine, tlbsync_per_cpu), true, 0, 100000 },
	C(zap_batched), C(lru_folio),
};

static unsigned long field_get(const struct tlbgen_machine *m, const struct field *f)
{
	const char *p = (const char *)m + f->off;

	return f->is_u32 ? *(const uint32_t *)p : *(const unsigned int *)p;
}

static void field_set(struct tlbgen_machine *m, const struct field *f, unsigned long v)
{
	char *p = (char *)m + f->off;

	if (f->is_u32)
		*(uint32_t *)p = (uint32_t)v;
	else
		*(unsigned int *)p = (unsigned int)v;
}

static void list_valid(void)
{
	char buf[512];
	size_t off = 0;

	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		off += (size_t)snprintf(buf + off, off < sizeof(buf) ? sizeof(buf) - off : 0, "%s%s",
					i ? " " : "", fields[i].name);
	tlbgen__pr(TLBGEN_WARN, "tlbgen: machines: skylake-56 skylake-56-pti skx-2s-80 power10 arm64-128 unmatched host host-kernel; "
		   "fields: %s\n", buf);
}

static int set_field(struct tlbgen_machine *m, const char *kv, size_t len)
{
	const char *eq = memchr(kv, '=', len);
	char val[32], *end;
	unsigned long v;

	if (!eq || eq == kv) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: machine: expected field=value in '%.*s'\n",
			   (int)len, kv);
		return -EINVAL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		const struct field *f = &fields[i];
		size_t vlen = len - (size_t)(eq + 1 - kv);

		if (strlen(f->name) != (size_t)(eq - kv) || strncmp(f->name, kv, (size_t)(eq - kv)))
			continue;
		if (!vlen || vlen >= sizeof(val)) {
			tlbgen__pr(TLBGEN_WARN, "tlbgen: machine: %s needs a number\n", f->name);
			return -EINVAL;
		}
		memcpy(val, eq + 1, vlen);
		val[vlen] = 0;
		errno = 0;
		v = strtoul(val, &end, 10);
		if (errno || *end || val[0] == '-' || v < f->min || v > f->max) {
			tlbgen__pr(TLBGEN_WARN, "tlbgen: machine: %s = '%s': need %lu..%lu\n",
				   f->name, val, f->min, f->max);
			return -EINVAL;
		}
		field_set(m, f, v);
		return 0;
	}
	tlbgen__pr(TLBGEN_WARN, "tlbgen: machine: unknown field '%.*s'\n", (int)(eq - kv), kv);
	list_valid();
	return -ENOENT;
}

static int machine_lookup(const char *spec, struct tlbgen_machine *out, size_t out_sz)
{
	struct tlbgen_machine m;
	const char *colon, *s;
	size_t nlen;
	int err = -ENOENT;

	if (!spec || !out)
		return -EINVAL;
	colon = strchr(spec, ':');
	nlen = colon ? (size_t)(colon - spec) : strlen(spec);
	if (nlen == 4 && !strncmp(spec, "host", 4)) {
		err = tlbgen__machine_measure_host(&m, &skylake_56);
	} else if (nlen == 11 && !strncmp(spec, "host-kernel", 11)) {
		err = tlbgen__machine_measure_host_kernel(&m, &skylake_56);
	} else {
		for (size_t i = 0; i < ARRAY_SIZE(builtin); i++) {
			if (strlen(builtin[i]->name) == nlen && !strncmp(builtin[i]->name, spec, nlen)) {
				memcpy(&m, builtin[i], sizeof(m));
				err = 0;
			}
		}
	}
	if (err == -ENOENT) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: unknown machine '%.*s'\n", (int)nlen, spec);
		list_valid();
	}
	if (err)
		return err;
	for (s = colon ? colon + 1 : NULL; s && *s;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		err = set_field(&m, s, len);
		if (err)
			return err;
		s = comma ? comma + 1 : NULL;
	}
	if (colon && !colon[1]) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: machine: nothing after ':' in '%s'\n", spec);
		return -EINVAL;
	}
	m.sz = out_sz;
	memcpy(out, &m, out_sz);
	return 0;
}

/* The struct as declared now: TLBGEN_0.8, the default (lib/libtlbgen.map). */
TLBGEN_API int tlbgen_machine_lookup(const char *spec, struct tlbgen_machine *out)
{
	return machine_lookup(spec, out, sizeof(*out));
}

/* Binaries linked against TLBGEN_0.2 from 30257d1 (the struct ending at
 * threads_per_core, 144 bytes) to work_jitter: fill only that much. */
TLBGEN_API int tlbgen__machine_lookup_0_2(const char *spec, struct tlbgen_machine *out);
TLBGEN_SYMVER(tlbgen__machine_lookup_0_2, "tlbgen_machine_lookup@TLBGEN_0.2");
TLBGEN_API int tlbgen__machine_lookup_0_2(const char *spec, struct tlbgen_machine *out)
{
	return machine_lookup(spec, out, TLBGEN_MACHINE_SZ_0_2);
}

/* Binaries linked against TLBGEN_0.5 (the struct ending at tlbsync_per_cpu,
 * 152 bytes) to zap_batched: fill only that much. */
TLBGEN_API int tlbgen__machine_lookup_0_5(const char *spec, struct tlbgen_machine *out);
TLBGEN_SYMVER(tlbgen__machine_lookup_0_5, "tlbgen_machine_lookup@TLBGEN_0.5");
TLBGEN_API int tlbgen__machine_lookup_0_5(const char *spec, struct tlbgen_machine *out)
{
	return machine_lookup(spec, out, TLBGEN_MACHINE_SZ_0_5);
}

/* Binaries linked against TLBGEN_0.7 (the struct ending at zap_batched,
 * 156 bytes, sizeof the same: lru_folio took its tail padding) to
 * lru_folio: fill only that much, sz saying so. */
TLBGEN_API int tlbgen__machine_lookup_0_7(const char *spec, struct tlbgen_machine *out);
TLBGEN_SYMVER(tlbgen__machine_lookup_0_7, "tlbgen_machine_lookup@TLBGEN_0.7");
TLBGEN_API int tlbgen__machine_lookup_0_7(const char *spec, struct tlbgen_machine *out)
{
	return machine_lookup(spec, out, TLBGEN_MACHINE_SZ_0_7);
}

TLBGEN_API int tlbgen_machine_names(const char **names, size_t n)
{
	if (!names && n)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(builtin) && i < n; i++)
		names[i] = builtin[i]->name;
	return (int)ARRAY_SIZE(builtin);
}

int tlbgen__machine_valid(const struct tlbgen_machine *m)
{
	if (!m || m->sz < offsetofend(struct tlbgen_machine, spin) ||
	    TLBGEN_OPTS_VALID(m, tlbgen_machine, lru_folio))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		unsigned long v;

		/* A caller's older, shorter struct: the field is not there. */
		if (fields[i].off + sizeof(uint32_t) > m->sz)
			continue;
		v = field_get(m, &fields[i]);

		if (v < fields[i].min || v > fields[i].max)
			return -EINVAL;
	}
	return memchr(m->name, 0, sizeof(m->name)) ? 0 : -EINVAL;
}

TLBGEN_API int tlbgen_machine_describe(const struct tlbgen_machine *m, char *buf, size_t len)
{
	size_t off;

	if (tlbgen__machine_valid(m) || (!buf && len))
		return -EINVAL;
	off = (size_t)snprintf(buf, len, "%s:", m->name);
	for (size_t i = 0; i < ARRAY_SIZE(fields) && fields[i].off + sizeof(uint32_t) <= m->sz; i++)
		off += (size_t)snprintf(off < len ? buf + off : NULL, off < len ? len - off : 0,
					"%s%s=%lu", i ? "," : "", fields[i].name,
					field_get(m, &fields[i]));
	return (int)off;
}
