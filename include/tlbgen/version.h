/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tlbgen/version.h - compile-time and run-time library version. */
#ifndef TLBGEN_VERSION_H
#define TLBGEN_VERSION_H

#include <tlbgen/common.h>

#define TLBGEN_VERSION_MAJOR 0
#define TLBGEN_VERSION_MINOR 1
#define TLBGEN_VERSION_PATCH 0
#define TLBGEN_VERSION_STRING "0.1.0"
/* Single number for #if comparisons: 0xMMmmpp. */
#define TLBGEN_VERSION_NUMBER \
	((TLBGEN_VERSION_MAJOR << 16) | (TLBGEN_VERSION_MINOR << 8) | TLBGEN_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/*
 * tlbgen_version - version of the library actually loaded, as "M.m.p".
 * Never fails. Thread-safe.
 */
TLBGEN_API const char *tlbgen_version(void);

/*
 * tlbgen_version_number - TLBGEN_VERSION_NUMBER of the loaded library, to be
 * compared with the one the program was compiled against (same major: the
 * ABI is compatible). Never fails. Thread-safe.
 */
TLBGEN_API unsigned int tlbgen_version_number(void);

#ifdef __cplusplus
}
#endif
#endif
