// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/core/this_cpu.c - the calling thread's emulated CPU. */
#include <errno.h>

#include "this_cpu.h"

_Thread_local struct tlbgen_tls tlbgen__tls __attribute__((tls_model("initial-exec"))) =
	{ NULL, -1 };

TLBGEN_API int tlbgen_this_cpu(const struct tlbgen_system *sys)
{
	if (!sys || tlbgen__tls.sys != sys)
		return -ENOENT;
	return tlbgen__tls.cpu;
}
