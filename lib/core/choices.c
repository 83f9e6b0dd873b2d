// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/core/choices.c - the choices a profile is made of, read from their
 * table (lib/core/choice-table.c): set, get, describe and list them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/printk.h"
#include "choices-internal.h"
#include "profile.h"

static const struct tlbgen_choice *find_choice(const char *name, size_t len)
{
	for (size_t i = 0; i < tlbgen__nr_choices; i++) {
		const struct tlbgen_choice *c = &tlbgen__choices[i];

		if (strlen(c->name) == len && !strncmp(c->name, name, len))
			return c;
	}
	return NULL;
}

/* "a|b|c", or "an integer >= 0". */
static void format_values(const struct tlbgen_choice *c, char *vals, size_t size)
{
	size_t off = 0;

	vals[0] = 0;
	if (!c->values)
		snprintf(vals, size, "an integer >= 0");
	for (const struct tlbgen_choice_value *v = c->values; v && v->name && off < size; v++)
		off += (size_t)snprintf(vals + off, size - off, "%s%s",
					v == c->values ? "" : "|", v->name);
}

static void list_choices(void)
{
	tlbgen__pr(TLBGEN_WARN, "tlbgen: valid choices:\n");
	for (size_t i = 0; i < tlbgen__nr_choices; i++) {
		char vals[256];

		format_values(&tlbgen__choices[i], vals, sizeof(vals));
		tlbgen__pr(TLBGEN_WARN, "  %s = %s  (%s)\n", tlbgen__choices[i].name, vals, tlbgen__choices[i].help);
	}
}

static void *field(struct tlbgen_profile *p, const struct tlbgen_choice *c)
{
	return (char *)p + c->offset;
}

static int field_int(const struct tlbgen_profile *p, const struct tlbgen_choice *c)
{
	const void *f = (const char *)p + c->offset;

	return c->kind == CHOICE_BOOL ? *(const bool *)f : *(const int *)f;
}

int tlbgen__profile_set_one(struct tlbgen_profile *p, const char *key, size_t klen,
			    const char *val, size_t vlen)
{
	const struct tlbgen_choice *c = find_choice(key, klen);
	char vbuf[64];

	if (!c) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: unknown choice '%.*s'\n", (int)klen, key);
		list_choices();
		return -ENOENT;
	}
	if (vlen >= sizeof(vbuf))
		vlen = sizeof(vbuf) - 1;
	memcpy(vbuf, val, vlen);
	vbuf[vlen] = 0;
	if (c->kind == CHOICE_LONG) {
		char *end;
		long v = strtol(vbuf, &end, 0);

		if (!vlen || *end || v < 0) {
			tlbgen__pr(TLBGEN_WARN, "tlbgen: %s needs an integer >= 0, not '%s'\n",
				   c->name, vbuf);
			return -EINVAL;
		}
		*(long *)field(p, c) = v;
		return 0;
	}
	for (const struct tlbgen_choice_value *v = c->values; v->name; v++) {
		if (strcmp(v->name, vbuf))
			continue;
		if (c->kind == CHOICE_BOOL)
			*(bool *)field(p, c) = v->value;
		else
			*(int *)field(p, c) = v->value;
		return 0;
	}
	/* Only this choice's values: the key was right. */
	{
		char vals[256];

		format_values(c, vals, sizeof(vals));
		tlbgen__pr(TLBGEN_WARN, "tlbgen: choice %s: unknown value '%s'; valid values: "
			   "%s  (%s)\n", c->name, vbuf, vals, c->help);
	}
	return -ENOENT;
}

int tlbgen__profile_apply_choices(struct tlbgen_profile *p, const char *s)
{
	struct tlbgen_profile tmp = *p;

	while (s && *s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		const char *eq = memchr(s, '=', len);
		int err;

		if (!eq) {
			tlbgen__pr(TLBGEN_WARN, "tlbgen: expected key=value in '%.*s'\n", (int)len, s);
			return -EINVAL;
		}
		err = tlbgen__profile_set_one(&tmp, s, (size_t)(eq - s), eq + 1,
					      len - (size_t)(eq - s) - 1);
		if (err)
			return err;
		s = comma ? comma + 1 : NULL;
	}
	*p = tmp;
	return 0;
}

const char *tlbgen__profile_get(const struct tlbgen_profile *p, const char *choice,
				char *buf, size_t len)
{
	const struct tlbgen_choice *c = find_choice(choice, strlen(choice));
	int v;

	if (!c)
		return NULL;
	if (c->kind == CHOICE_LONG) {
		snprintf(buf, len, "%ld", *(const long *)((const char *)p + c->offset));
		return buf;
	}
	v = field_int(p, c);
	for (const struct tlbgen_choice_value *cv = c->values; cv->name; cv++)
		if (cv->value == v)
			return cv->name;
	return NULL;
}

int tlbgen__profile_describe(const struct tlbgen_profile *p, char *buf, size_t len)
{
	size_t off = 0;
	char num[32];

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < tlbgen__nr_choices; i++) {
		int n = snprintf(off < len ? buf + off : NULL, off < len ? len - off : 0, "%s%s=%s",
				 i ? "," : "", tlbgen__choices[i].name,
				 tlbgen__profile_get(p, tlbgen__choices[i].name, num, sizeof(num)));
		off += (size_t)n;
	}
	if (p->flush_decide || p->ipi_cond_fn) {
		int n = snprintf(off < len ? buf + off : NULL, off < len ? len - off : 0,
				 ",user_ops=%s%s", p->flush_decide ? "flush_decide" : "",
				 p->ipi_cond_fn ? "+ipi_cond" : "");
		off += (size_t)n;
	}
	return (int)off;
}

TLBGEN_API int tlbgen_choice_names(const char **names, size_t n)
{
	if (!names && n)
		return -EINVAL;
	for (size_t i = 0; i < tlbgen__nr_choices && i < n; i++)
		names[i] = tlbgen__choices[i].name;
	return (int)tlbgen__nr_choices;
}

TLBGEN_API int tlbgen_choice_values(const char *choice, const char **values, size_t n)
{
	const struct tlbgen_choice *c;
	int k = 0;

	if (!choice || (!values && n))
		return -EINVAL;
	c = find_choice(choice, strlen(choice));
	if (!c)
		return -ENOENT;
	for (const struct tlbgen_choice_value *v = c->values; v && v->name; v++, k++)
		if ((size_t)k < n)
			values[k] = v->name;
	return k;
}

TLBGEN_API int tlbgen_choice_describe(const char *choice, const char **arch, const char **help)
{
	const struct tlbgen_choice *c;

	if (!choice)
		return -EINVAL;
	c = find_choice(choice, strlen(choice));
	if (!c)
		return -ENOENT;
	if (arch)
		*arch = c->arch;
	if (help)
		*help = c->help;
	return c->kind == CHOICE_LONG;
}

TLBGEN_API int tlbgen_choice_value_origin(const char *choice, const char *value,
					  const char **commit, const char **since)
{
	const struct tlbgen_choice *c;

	if (!choice || !value)
		return -EINVAL;
	c = find_choice(choice, strlen(choice));
	if (!c)
		return -ENOENT;
	for (const struct tlbgen_choice_value *v = c->values; v && v->name; v++) {
		if (strcmp(v->name, value))
			continue;
		if (commit)
			*commit = v->commit;
		if (since)
			*since = v->since;
		return 0;
	}
	return -ENOENT;
}
