/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/common.h - constants and conventions shared by every libtlbgen header.
 *
 * Conventions (libbpf style):
 *  - every function returns 0 or a positive count on success and a negative
 *    errno on failure; a failing call leaves all state untouched;
 *  - option structs start with `size_t sz` (the caller's sizeof) so that new
 *    fields stay source and binary compatible; declare them with TLBGEN_OPTS();
 *  - kernel names are kept verbatim behind the `tlbgen_` prefix.
 */
#ifndef TLBGEN_COMMON_H
#define TLBGEN_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TLBGEN_API __attribute__((visibility("default")))

/* arch/x86/include/asm/tlbflush.h */
#define TLBGEN_TLB_FLUSH_ALL		(~0UL)
/* 8f1d56f64f8d: generation 0 is never requested by flush_tlb_mm_range(). */
#define TLBGEN_TLB_GENERATION_INVALID	0ULL
#define TLBGEN_TLB_NR_DYN_ASIDS		6
#define TLBGEN_PAGE_SHIFT		12
#define TLBGEN_PAGE_SIZE		(1UL << TLBGEN_PAGE_SHIFT)
/* Upper bound of emulated CPUs per system (NR_CPUS of a big distro kernel). */
#define TLBGEN_MAX_CPUS			8192U

/*
 * Declare an option struct with its size filled in and every other byte,
 * padding included, zero (libbpf's LIBBPF_OPTS): the library checks that
 * the bytes past its last known field are zero.
 */
#define TLBGEN_OPTS(type, name, ...)						\
	struct type name = ({							\
		memset(&name, 0, sizeof(struct type));				\
		(struct type){ .sz = sizeof(struct type), __VA_ARGS__ };	\
	})

struct tlbgen_system;
struct tlbgen_machine;
struct tlbgen_mm;

#ifdef __cplusplus
}
#endif
#endif
