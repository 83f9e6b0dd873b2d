// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/tools/archive.c - reading saved results directories (meta.json and
 * results.json, schema and version checked) and pairing their metrics by
 * name and params, for compare and merge.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "archive.h"
#include "driver/results.h"

/* Loading ----------------------------------------------------------------- */

static json_t *load(const char *dir, const char *name, const char *schema)
{
	char path[4096];
	json_error_t e;
	json_t *doc, *v;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	doc = json_load_file(path, 0, &e);
	if (!doc) {
		/* jansson's line is -1 when the file could not be opened at all. */
		if (e.line < 1)
			fprintf(stderr, "tlbgen-bench: %s: %s\n", path, e.text);
		else
			fprintf(stderr, "tlbgen-bench: %s: %s (line %d)\n", path, e.text, e.line);
		return NULL;
	}
	v = json_object_get(doc, "schema");
	if (!json_is_string(v) || strcmp(json_string_value(v), schema) ||
	    json_integer_value(json_object_get(doc, "schema_version")) !=
	    BENCH_RESULTS_SCHEMA_VERSION) {
		fprintf(stderr, "tlbgen-bench: %s: not a %s document of schema version %d\n",
			path, schema, BENCH_RESULTS_SCHEMA_VERSION);
		json_decref(doc);
		return NULL;
	}
	return doc;
}

int archive_load(struct archive *a, const char *dir)
{
	struct stat st;

	memset(a, 0, sizeof(*a));
	a->dir = dir;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "tlbgen-bench: %s: %s\n", dir,
			errno == ENOENT ? "no such directory" : "not a directory");
		return -ENOENT;
	}
	a->meta = load(dir, "meta.json", BENCH_META_SCHEMA);
	a->results = a->meta ? load(dir, "results.json", BENCH_RESULTS_SCHEMA) : NULL;
	if (!a->results) {
		archive_free(a);
		return -EINVAL;
	}
	if (!json_is_array(json_object_get(a->results, "metrics"))) {
		fprintf(stderr, "tlbgen-bench: %s/results.json: no \"metrics\" array\n", dir);
		archive_free(a);
		return -EINVAL;
	}
	return 0;
}

void archive_free(struct archive *a)
{
	json_decref(a->meta);
	json_decref(a->results);
	a->meta = a->results = NULL;
}

char *archive_key(json_t *metric)
{
	char *params = json_dumps(json_object_get(metric, "params"),
				  JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
	const char *name = json_string_value(json_object_get(metric, "name"));
	char *key = NULL;

	if (params && name && asprintf(&key, "%s %s", name, params) < 0)
		key = NULL;
	free(params);
	return key;
}

json_t *archive_find(struct archive *a, const char *key)
{
	json_t *metrics = json_object_get(a->results, "metrics"), *m;
	size_t i;

	json_array_foreach(metrics, i, m) {
		char *k = archive_key(m);
		bool hit = k && !strcmp(k, key);

		free(k);
		if (hit)
			return m;
	}
	return NULL;
}

/* The samples of a metric (its value alone when it has none). */
size_t archive_samples(json_t *m, double **out)
{
	json_t *s = json_object_get(m, "samples"), *v;
	size_t n = 0, i;

	*out = NULL;
	if (json_is_array(s)) {
		*out = calloc(json_array_size(s) + 1, sizeof(double));
		json_array_foreach(s, i, v)
			if (*out && json_is_number(v))
				(*out)[n++] = json_number_value(v);
	} else if (json_is_number(json_object_get(m, "value"))) {
		*out = malloc(sizeof(double));
		if (*out)
			(*out)[n++] = json_number_value(json_object_get(m, "value"));
	}
	return n;
}
