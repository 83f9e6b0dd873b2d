/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lib/mm/mm.h - mm allocation, for the system's init_mm and tlbgen_mm__create(). */
#ifndef TLBGEN_MM_MM_H
#define TLBGEN_MM_MM_H

#include "../core/state.h"

int tlbgen__mm_alloc(struct tlbgen_system *sys, unsigned long nr_pages, struct tlbgen_mm **out);
void tlbgen__mm_free(struct tlbgen_mm *mm);

#endif
