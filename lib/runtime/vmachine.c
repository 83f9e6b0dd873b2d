// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/vmachine.c - tlbgen_vtime__machine(): a copy of the machine a
 * virtual system runs on, in each size struct tlbgen_machine has had, one
 * symbol version each (lib/libtlbgen.map), so that a binary built against
 * an older struct gets no more bytes than it has.
 */
#include <errno.h>
#include <string.h>

#include "../base/compiler.h"
#include "../core/machine.h"
#include "virtual.h"

static int vt_machine(const struct tlbgen_system *sys, struct tlbgen_machine *out, size_t sz)
{
	if (!tlbgen__vt_valid(sys) || !out)
		return -EINVAL;
	memcpy(out, &sys->machine, sz);
	out->sz = sz;
	return 0;
}

TLBGEN_API int tlbgen_vtime__machine(const struct tlbgen_system *sys, struct tlbgen_machine *out)
{
	return vt_machine(sys, out, sizeof(*out));
}

/* Binaries linked against TLBGEN_0.2 before work_jitter: as tlbgen_machine_lookup()'s. */
TLBGEN_API int tlbgen__vtime_machine_0_2(const struct tlbgen_system *sys,
					  struct tlbgen_machine *out);
TLBGEN_SYMVER(tlbgen__vtime_machine_0_2, "tlbgen_vtime__machine@TLBGEN_0.2");
TLBGEN_API int tlbgen__vtime_machine_0_2(const struct tlbgen_system *sys,
					  struct tlbgen_machine *out)
{
	return vt_machine(sys, out, TLBGEN_MACHINE_SZ_0_2);
}

/* Binaries linked against TLBGEN_0.5, before zap_batched: likewise. */
TLBGEN_API int tlbgen__vtime_machine_0_5(const struct tlbgen_system *sys,
					  struct tlbgen_machine *out);
TLBGEN_SYMVER(tlbgen__vtime_machine_0_5, "tlbgen_vtime__machine@TLBGEN_0.5");
TLBGEN_API int tlbgen__vtime_machine_0_5(const struct tlbgen_system *sys,
					  struct tlbgen_machine *out)
{
	return vt_machine(sys, out, TLBGEN_MACHINE_SZ_0_5);
}

/* Binaries linked against TLBGEN_0.7, before lru_folio: likewise. */
TLBGEN_API int tlbgen__vtime_machine_0_7(const struct tlbgen_system *sys,
					  struct tlbgen_machine *out);
TLBGEN_SYMVER(tlbgen__vtime_machine_0_7, "tlbgen_vtime__machine@TLBGEN_0.7");
TLBGEN_API int tlbgen__vtime_machine_0_7(const struct tlbgen_system *sys,
					  struct tlbgen_machine *out)
{
	return vt_machine(sys, out, TLBGEN_MACHINE_SZ_0_7);
}
