/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/cpumask.h - cpumasks as the kernel uses them.
 *
 * mm_cpumask is shared: an array of atomic longs, set/cleared with locked
 * RMWs (seq_cst, which on x86 is the `lock or` that makes cpumask_set_cpu()
 * a full barrier, the property switch_mm_irqs_off() relies on).
 * cfd masks and batch masks are private: plain bitmaps.
 */
#ifndef TLBGEN_CPUMASK_H
#define TLBGEN_CPUMASK_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>

#define TLBGEN_BITS_PER_LONG	(sizeof(unsigned long) * CHAR_BIT)
#define TLBGEN_MASK_LONGS(n)	(((n) + TLBGEN_BITS_PER_LONG - 1) / TLBGEN_BITS_PER_LONG)
#define TLBGEN_BIT_WORD(b)	((b) / TLBGEN_BITS_PER_LONG)
#define TLBGEN_BIT_MASK(b)	(1UL << ((b) % TLBGEN_BITS_PER_LONG))

/* shared, atomic masks */
static inline bool cpumask_test_cpu(unsigned int cpu, const atomic_ulong *m)
{
	return atomic_load_explicit(&m[TLBGEN_BIT_WORD(cpu)], memory_order_relaxed) &
	       TLBGEN_BIT_MASK(cpu);
}

static inline void cpumask_set_cpu(unsigned int cpu, atomic_ulong *m)
{
	atomic_fetch_or_explicit(&m[TLBGEN_BIT_WORD(cpu)], TLBGEN_BIT_MASK(cpu),
				 memory_order_seq_cst);
}

static inline void cpumask_clear_cpu(unsigned int cpu, atomic_ulong *m)
{
	atomic_fetch_and_explicit(&m[TLBGEN_BIT_WORD(cpu)], ~TLBGEN_BIT_MASK(cpu),
				  memory_order_seq_cst);
}

/* Snapshot an atomic mask into a private bitmap (relaxed word loads). */
/* cpumask_clear() of a CPU's own atomic mask. */
static inline void cpumask_clear_all(atomic_ulong *m, unsigned long nlongs)
{
	for (unsigned long i = 0; i < nlongs; i++)
		atomic_store_explicit(&m[i], 0, memory_order_relaxed);
}

/* cpumask_copy() of a shared mask into a CPU's own atomic one. */
static inline void cpumask_copy_atomic(atomic_ulong *dst, const atomic_ulong *src,
				       unsigned long nlongs)
{
	for (unsigned long i = 0; i < nlongs; i++)
		atomic_store_explicit(&dst[i], atomic_load_explicit(&src[i], memory_order_relaxed),
				      memory_order_relaxed);
}

static inline void cpumask_snapshot(unsigned long *dst, const atomic_ulong *src,
				    unsigned long nlongs)
{
	for (unsigned long i = 0; i < nlongs; i++)
		dst[i] = atomic_load_explicit(&src[i], memory_order_relaxed);
}

/* private bitmaps */
static inline bool bitmap_test(const unsigned long *m, unsigned int b)
{
	return m[TLBGEN_BIT_WORD(b)] & TLBGEN_BIT_MASK(b);
}

static inline void bitmap_set(unsigned long *m, unsigned int b)
{
	m[TLBGEN_BIT_WORD(b)] |= TLBGEN_BIT_MASK(b);
}

static inline void bitmap_clear_bit(unsigned long *m, unsigned int b)
{
	m[TLBGEN_BIT_WORD(b)] &= ~TLBGEN_BIT_MASK(b);
}

static inline void bitmap_zero(unsigned long *m, unsigned long nlongs)
{
	for (unsigned long i = 0; i < nlongs; i++)
		m[i] = 0;
}

/* Next set bit >= from, or nbits. */
static inline unsigned int bitmap_next(const unsigned long *m, unsigned int nbits,
				       unsigned int from)
{
	while (from < nbits) {
		unsigned long w = m[TLBGEN_BIT_WORD(from)] >> (from % TLBGEN_BITS_PER_LONG);

		if (w)
			return from + (unsigned int)__builtin_ctzl(w);
		from = (unsigned int)((TLBGEN_BIT_WORD(from) + 1) * TLBGEN_BITS_PER_LONG);
	}
	return nbits;
}

#define for_each_bit(b, m, nbits) \
	for ((b) = bitmap_next((m), (nbits), 0); (b) < (nbits); \
	     (b) = bitmap_next((m), (nbits), (b) + 1))

/* cpumask_any_but() on a private bitmap: a set CPU other than `but`, or nbits. */
static inline unsigned int bitmap_any_but(const unsigned long *m, unsigned int nbits,
					  unsigned int but)
{
	unsigned int b = bitmap_next(m, nbits, 0);

	if (b == but)
		b = bitmap_next(m, nbits, b + 1);
	return b;
}

static inline unsigned int bitmap_weight(const unsigned long *m, unsigned long nlongs)
{
	unsigned int w = 0;

	for (unsigned long i = 0; i < nlongs; i++)
		w += (unsigned int)__builtin_popcountl(m[i]);
	return w;
}

/* cpumask_any_but() on a shared mask, reading word by word. */
static inline unsigned int cpumask_any_but(const atomic_ulong *m, unsigned int nbits,
					   unsigned int but)
{
	for (unsigned long i = 0; i < TLBGEN_MASK_LONGS(nbits); i++) {
		/* seq_cst: after inc_mm_tlb_gen()'s RMW in C11 terms too. */
		unsigned long w = atomic_load_explicit(&m[i], memory_order_seq_cst);

		if (i == TLBGEN_BIT_WORD(but))
			w &= ~TLBGEN_BIT_MASK(but);
		if (w)
			return (unsigned int)(i * TLBGEN_BITS_PER_LONG) +
			       (unsigned int)__builtin_ctzl(w);
	}
	return nbits;
}

#endif
