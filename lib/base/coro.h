/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/base/coro.h - stackful coroutines for the virtual-time mode: each
 * emulated CPU runs on its own stack, and a switch saves only the
 * callee-saved registers and the stack pointer (no system call, unlike
 * glibc's swapcontext(), which saves the signal mask with sigprocmask()).
 *
 * Hand-written switches for x86-64 and aarch64 (base/coro.c); other
 * architectures fall back to ucontext. ASan is told about every stack
 * switch (__sanitizer_{start,finish}_switch_fiber), so ASan builds run it.
 */
#ifndef TLBGEN_BASE_CORO_H
#define TLBGEN_BASE_CORO_H

#include <stddef.h>

struct tlbgen_coro {
	void *sp;		/* saved stack pointer while switched out */
	void *stack;		/* mapping, guard page first; NULL: a thread's own stack */
	size_t stack_size;
	void (*fn)(void *arg);
	void *arg;
	/* ASan: this stack's bounds and the fake stack saved across a switch */
	const void *asan_bottom;
	size_t asan_size;
	void *asan_fake;
	void *uctx;		/* ucontext fallback only */
};

/*
 * Prepare `c` to run fn(arg) on a new stack of `stack_size` bytes when first
 * switched to. fn must never return (switch away for the last time
 * instead). 0 or -ENOMEM.
 */
int tlbgen__coro_init(struct tlbgen_coro *c, size_t stack_size, void (*fn)(void *), void *arg);
/* The calling thread's own context, to switch away from and back to. */
void tlbgen__coro_init_thread(struct tlbgen_coro *c);
void tlbgen__coro_free(struct tlbgen_coro *c);
/* Save the running context into `from` and resume `to`. */
void tlbgen__coro_switch(struct tlbgen_coro *from, struct tlbgen_coro *to);

#endif
