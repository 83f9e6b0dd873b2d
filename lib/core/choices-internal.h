/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/choices-internal.h - a choice as data: its named values with the
 * commit and release each came in, and the profile field it sets. The
 * table is lib/core/choice-table.c; lib/core/choices.c reads it.
 */
#ifndef TLBGEN_CORE_CHOICES_INTERNAL_H
#define TLBGEN_CORE_CHOICES_INTERNAL_H

#include <stddef.h>

struct tlbgen_choice_value {
	const char *name;
	int value;
	const char *commit;	/* the kernel commit that introduced it, "-" if older */
	const char *since;	/* the first release that has it */
};

enum choice_kind {
	CHOICE_ENUM,	/* an int-sized enum field, one of `values` */
	CHOICE_BOOL,	/* a bool field, one of `values` (0 or 1) */
	CHOICE_LONG,	/* a non-negative long */
};

struct tlbgen_choice {
	const char *name;
	size_t offset;				/* into struct tlbgen_profile */
	enum choice_kind kind;
	const struct tlbgen_choice_value *values;
	const char *arch;			/* whose code it changes */
	const char *help;
};

/* Every choice, in the order tlbgen-bench versions lists them. */
extern const struct tlbgen_choice tlbgen__choices[];
extern const size_t tlbgen__nr_choices;

#endif
