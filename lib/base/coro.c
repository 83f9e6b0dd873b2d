// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/base/coro.c - the coroutine switch. On x86-64 and aarch64 a switch
 * pushes the callee-saved registers of the ABI, stores the stack pointer,
 * loads the other one and pops: a few nanoseconds and no system call.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compiler.h"
#include "coro.h"

#if defined(__SANITIZE_ADDRESS__)
#define CORO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CORO_ASAN 1
#endif
#endif
#ifdef CORO_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
				     size_t *size_old);
void __asan_unpoison_memory_region(const volatile void *addr, size_t size);
#endif

#if defined(__x86_64__)
#define CORO_ASM 1
/* System V: rbx, rbp, r12-r15 are callee-saved; the caller saved the rest. */
__asm__(".text\n"
	".globl tlbgen__coro_swap\n"
	".hidden tlbgen__coro_swap\n"
	".type tlbgen__coro_swap, @function\n"
	"tlbgen__coro_swap:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size tlbgen__coro_swap, .-tlbgen__coro_swap\n"
	/* First entry: r12 = coro, r13 = its main; re-align for the call. */
	".globl tlbgen__coro_start\n"
	".hidden tlbgen__coro_start\n"
	".type tlbgen__coro_start, @function\n"
	"tlbgen__coro_start:\n"
	"	movq %r12, %rdi\n"
	"	andq $-16, %rsp\n"
	"	callq *%r13\n"
	"	ud2\n"
	".size tlbgen__coro_start, .-tlbgen__coro_start\n");
#elif defined(__aarch64__)
#define CORO_ASM 1
/* AAPCS64: x19-x28, fp, lr and d8-d15 are callee-saved. */
__asm__(".text\n"
	".globl tlbgen__coro_swap\n"
	".hidden tlbgen__coro_swap\n"
	".type tlbgen__coro_swap, %function\n"
	"tlbgen__coro_swap:\n"
	"	sub sp, sp, #160\n"
	"	stp x19, x20, [sp, #0]\n"
	"	stp x21, x22, [sp, #16]\n"
	"	stp x23, x24, [sp, #32]\n"
	"	stp x25, x26, [sp, #48]\n"
	"	stp x27, x28, [sp, #64]\n"
	"	stp x29, x30, [sp, #80]\n"
	"	stp d8, d9, [sp, #96]\n"
	"	stp d10, d11, [sp, #112]\n"
	"	stp d12, d13, [sp, #128]\n"
	"	stp d14, d15, [sp, #144]\n"
	"	mov x2, sp\n"
	"	str x2, [x0]\n"
	"	mov sp, x1\n"
	"	ldp x19, x20, [sp, #0]\n"
	"	ldp x21, x22, [sp, #16]\n"
	"	ldp x23, x24, [sp, #32]\n"
	"	ldp x25, x26, [sp, #48]\n"
	"	ldp x27, x28, [sp, #64]\n"
	"	ldp x29, x30, [sp, #80]\n"
	"	ldp d8, d9, [sp, #96]\n"
	"	ldp d10, d11, [sp, #112]\n"
	"	ldp d12, d13, [sp, #128]\n"
	"	ldp d14, d15, [sp, #144]\n"
	"	add sp, sp, #160\n"
	"	ret\n"
	".size tlbgen__coro_swap, .-tlbgen__coro_swap\n"
	".globl tlbgen__coro_start\n"
	".hidden tlbgen__coro_start\n"
	".type tlbgen__coro_start, %function\n"
	"tlbgen__coro_start:\n"
	"	mov x0, x19\n"
	"	blr x20\n"
	"	brk #0\n"
	".size tlbgen__coro_start, .-tlbgen__coro_start\n");
#else
#include <stdlib.h>
#include <ucontext.h>
#endif

#ifdef CORO_ASM
void tlbgen__coro_swap(void **save_sp, void *new_sp);
void tlbgen__coro_start(void);
#endif

#ifdef CORO_ASAN
/* The context that switched last: when it is a thread's own stack, the
 * resumed side learns its bounds from ASan, which a switch back needs. */
static _Thread_local struct tlbgen_coro *coro_prev;

static void coro_asan_finish(void *fake)
{
	const void *bottom;
	size_t size;

	__sanitizer_finish_switch_fiber(fake, &bottom, &size);
	if (coro_prev && !coro_prev->asan_bottom) {
		coro_prev->asan_bottom = bottom;
		coro_prev->asan_size = size;
	}
}
#endif

static void coro_main(struct tlbgen_coro *c)
{
#ifdef CORO_ASAN
	coro_asan_finish(NULL);
#endif
	c->fn(c->arg);
	__builtin_trap();	/* fn must switch away for good, never return */
}

#ifndef CORO_ASM
static void coro_uctx_main(unsigned int hi, unsigned int lo)
{
	coro_main((struct tlbgen_coro *)(((uintptr_t)hi << 32) | lo));
}
#endif

void tlbgen__coro_init_thread(struct tlbgen_coro *c)
{
	memset(c, 0, sizeof(*c));
#ifndef CORO_ASM
	c->uctx = calloc(1, sizeof(ucontext_t));
#endif
}

int tlbgen__coro_init(struct tlbgen_coro *c, size_t stack_size, void (*fn)(void *), void *arg)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *base;

	memset(c, 0, sizeof(*c));
	stack_size = (stack_size + page - 1) & ~(page - 1);
	/* Lazily committed; the lowest page is a guard against overflow. */
	base = mmap(NULL, stack_size + page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (base == MAP_FAILED)
		return -ENOMEM;
	mprotect(base, page, PROT_NONE);
	c->stack = base;
	c->stack_size = stack_size + page;
	c->fn = fn;
	c->arg = arg;
	c->asan_bottom = base + page;
	c->asan_size = stack_size;
#ifdef CORO_ASM
	{
		/*
		 * Stacks are mapped side by side, each a whole number of pages:
		 * their live frames would sit at one page offset and compete
		 * for the same cache sets. Each starts a different number of
		 * cachelines below its top (a colour), which keeps every
		 * frame's alignment and how its objects share lines.
		 */
		size_t colour = ((uintptr_t)base / page % 64) * 64;
		uintptr_t *sp = (uintptr_t *)(base + page + stack_size - colour);

		/* What tlbgen__coro_swap pops, then its return address. */
		*--sp = 0;
		*--sp = 0;
#if defined(__x86_64__)
		*--sp = (uintptr_t)tlbgen__coro_start;
		/* rbp, rbx, r12 = c, r13 = coro_main, r14, r15 (push order) */
		*--sp = 0;
		*--sp = 0;
		*--sp = (uintptr_t)c;
		*--sp = (uintptr_t)coro_main;
		*--sp = 0;
		*--sp = 0;
#else
		/* x19 = c, x20 = coro_main, x30 = tlbgen__coro_start; 160 bytes */
		sp -= 20;
		memset(sp, 0, 160);
		sp[0] = (uintptr_t)c;
		sp[1] = (uintptr_t)coro_main;
		sp[11] = (uintptr_t)tlbgen__coro_start;
#endif
		c->sp = sp;
	}
#else
	c->uctx = calloc(1, sizeof(ucontext_t));
	if (!c->uctx) {
		munmap(base, c->stack_size);
		return -ENOMEM;
	}
	getcontext(c->uctx);
	((ucontext_t *)c->uctx)->uc_stack.ss_sp = base + page;
	((ucontext_t *)c->uctx)->uc_stack.ss_size = stack_size;
	((ucontext_t *)c->uctx)->uc_link = NULL;
	makecontext(c->uctx, (void (*)(void))coro_uctx_main, 2,
		    (unsigned int)((uintptr_t)c >> 32), (unsigned int)(uintptr_t)c);
#endif
	return 0;
}

void tlbgen__coro_free(struct tlbgen_coro *c)
{
	if (c->stack) {
#ifdef CORO_ASAN
		/* A coroutine freed while suspended leaves the redzones of its
		 * live frames poisoned; a later mapping at the same address
		 * (a stack, an arena) must not inherit them. */
		__asan_unpoison_memory_region(c->stack, c->stack_size);
#endif
		munmap(c->stack, c->stack_size);
	}
#ifndef CORO_ASM
	free(c->uctx);
#endif
	memset(c, 0, sizeof(*c));
}

void tlbgen__coro_switch(struct tlbgen_coro *from, struct tlbgen_coro *to)
{
#ifdef CORO_ASAN
	coro_prev = from;
	__sanitizer_start_switch_fiber(&from->asan_fake, to->asan_bottom, to->asan_size);
#endif
#ifdef CORO_ASM
	tlbgen__coro_swap(&from->sp, to->sp);
#else
	swapcontext(from->uctx, to->uctx);
#endif
#ifdef CORO_ASAN
	coro_asan_finish(from->asan_fake);
#endif
}
