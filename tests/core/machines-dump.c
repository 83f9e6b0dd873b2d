// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/core/machines-dump.c - every built-in machine model as JSON, from
 * the public API alone (tlbgen_machine_names(), _lookup(), _describe(),
 * _ranges()), for tests/core/machines-doc.py to hold against
 * docs/machines.md: {"NAME": {"fields": {f: v}, "ranges": {f: [lo, hi,
 * basis]}}}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tlbgen/tlbgen.h>

int main(void)
{
	const char *names[32];
	int n = tlbgen_machine_names(names, 32);

	if (n < 1 || n > 32)
		return 1;
	printf("{");
	for (int i = 0; i < n; i++) {
		struct tlbgen_machine m;
		struct tlbgen_machine_range r[64];
		char desc[1024], *s, *save = NULL;
		int nr;

		if (tlbgen_machine_lookup(names[i], &m) ||
		    tlbgen_machine_describe(&m, desc, sizeof(desc)) >= (int)sizeof(desc))
			return 1;
		nr = tlbgen_machine_ranges(names[i], r, 64);
		if (nr < 0 || nr > 64)
			return 1;
		printf("%s\"%s\": {\"fields\": {", i ? ", " : "", names[i]);
		s = strchr(desc, ':');
		if (!s)
			return 1;
		for (char *kv = strtok_r(s + 1, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(kv, '=');

			if (!eq)
				return 1;
			*eq = 0;
			printf("%s\"%s\": %s", kv == s + 1 ? "" : ", ", kv, eq + 1);
		}
		printf("}, \"ranges\": {");
		for (int k = 0; k < nr; k++)
			printf("%s\"%s\": [%lu, %lu, \"%s\"]", k ? ", " : "", r[k].field, r[k].low,
			       r[k].high, r[k].basis);
		printf("}}");
	}
	printf("}\n");
	return 0;
}
