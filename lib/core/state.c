// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/core/state.c - the one constant of the model's state. */
#include "state.h"

static struct tlbgen_mm switching_marker;
/* LOADED_MM_SWITCHING: an address that is never a real mm. */
struct tlbgen_mm *const LOADED_MM_SWITCHING = &switching_marker;
