/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/base/compiler.h - compiler helpers, cacheline geometry and the
 * ThreadSanitizer annotations every layer uses.
 */
#ifndef TLBGEN_BASE_COMPILER_H
#define TLBGEN_BASE_COMPILER_H

#include <stddef.h>

#define TLBGEN_CACHELINE	64
#define __cacheline_aligned	__attribute__((aligned(TLBGEN_CACHELINE)))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define offsetofend(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))

/* Export `impl` as the non-default version `name@VERSION` of a symbol
 * (lib/libtlbgen.map), with the assembler directive GCC and clang both
 * take. Only in the shared library (lib/meson.build): an archive has no
 * version nodes, and one holding the directive cannot be linked into
 * another shared object. */
#ifdef TLBGEN_SYMVERS
#define TLBGEN_SYMVER(impl, versioned)	__asm__(".symver " #impl "," versioned)
#else
#define TLBGEN_SYMVER(impl, versioned)	extern __typeof__(impl) impl
#endif

/* A compiler barrier: orders this CPU's program, not other CPUs' views. */
#define barrier()		__atomic_signal_fence(__ATOMIC_SEQ_CST)

/*
 * ThreadSanitizer cannot see liburcu's inline-asm atomics: an lfstack
 * push/pop_all is a release/acquire pair it must be told about (as
 * liburcu's own TSan support does). Compiled only under TSan.
 */
#if defined(__SANITIZE_THREAD__)
#define TLBGEN_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TLBGEN_TSAN 1
#endif
#endif
#ifdef TLBGEN_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define tlbgen_tsan_acquire(p)	__tsan_acquire((void *)(p))
#define tlbgen_tsan_release(p)	__tsan_release((void *)(p))
#else
#define tlbgen_tsan_acquire(p)	do { } while (0)
#define tlbgen_tsan_release(p)	do { } while (0)
#endif

#endif
