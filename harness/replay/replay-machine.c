// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/replay/replay-machine.c - the machine a replay runs on: the
 * recording's (machine.txt, or what the events imply) changed word by word
 * by --machine (pcid, invlpgb, how remote TLBs are flushed, a cost model).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "replay-internal.h"

int replay__parse_machine(const struct replay_info *in, const char *spec, enum tlbgen_mode mode,
			  struct replay_machine *m)
{
	char buf[256], *tok, *save = NULL;

	memset(m, 0, sizeof(*m));
	m->pcid = in->pcid;
	m->invlpgb = in->invlpgb;
	snprintf(m->pv, sizeof(m->pv), "%s", strcmp(in->pv_flush, "unknown") ? in->pv_flush : "native");
	snprintf(buf, sizeof(buf), "%s", spec ? spec : "");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "pcid") || !strcmp(tok, "nopcid"))
			m->pcid = tok[0] == 'p';
		else if (!strcmp(tok, "invlpgb") || !strcmp(tok, "noinvlpgb"))
			m->invlpgb = tok[0] == 'i';
		else if (!strcmp(tok, "native") || !strcmp(tok, "kvm") || !strcmp(tok, "hyperv") ||
			 !strcmp(tok, "pvm"))
			snprintf(m->pv, sizeof(m->pv), "%s", tok);
		else if (!strcmp(tok, "recorded"))
			continue;
		else if (mode == TLBGEN_MODE_VIRTUAL && !m->cost[0])
			snprintf(m->cost, sizeof(m->cost), "%s", tok);
		else {
			fprintf(stderr, "replay: unknown machine word '%s' (pcid, nopcid, invlpgb, "
				"noinvlpgb, native, kvm, hyperv, pvm%s)\n", tok,
				mode == TLBGEN_MODE_VIRTUAL ? ", or one cost model" : "; a cost model "
				"only with --mode virtual");
			return -EINVAL;
		}
	}
	if (mode == TLBGEN_MODE_VIRTUAL && !m->cost[0])
		snprintf(m->cost, sizeof(m->cost), "skylake-56");
	snprintf(m->desc, sizeof(m->desc), "%s%s%s%s%s", m->pcid ? "pcid" : "nopcid",
		 m->invlpgb ? ",invlpgb" : "", ",", m->pv, m->cost[0] ? "," : "");
	if (m->cost[0])
		snprintf(m->desc + strlen(m->desc), sizeof(m->desc) - strlen(m->desc), "%s", m->cost);
	return 0;
}
