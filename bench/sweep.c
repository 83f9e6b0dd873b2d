// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/sweep.c - sweeps beyond one process:
 *   tlbgen-bench sweep --emit ...   one command line per cell, for GNU
 *                                   parallel (--sshloginfile) or a Slurm array;
 *   tlbgen-bench merge --out DIR SRC...   the cells' results directories
 *                                   into one that `compare` reads.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "archive.h"
#include "commands.h"
#include "common.h"
#include "output.h"
#include "results.h"

/* sweep ---------------------------------------------------------------------- */

static void sweep_usage(FILE *f)
{
	fprintf(f,
"usage: tlbgen-bench sweep --emit [options] [-- WORKLOAD-OPTIONS...]\n"
"\n"
"Prints one tlbgen-bench command per cell of workload x policy x mode x\n"
"tasks, each keeping its results in its own directory under --out-base, for\n"
"GNU parallel (locally, or on several machines with --sshloginfile) or a\n"
"Slurm array (line $SLURM_ARRAY_TASK_ID). Then `tlbgen-bench merge` the\n"
"cells' directories into one and `tlbgen-bench compare` it. Run the same list\n"
"on each machine model to compare machines: meta.json keeps every host.\n"
"\n"
"options:\n"
"  --emit             print the commands (the only action so far)\n"
"  -w, --workload W   tlb_flush1 (default), tlb_flush2, tlb_flush3, page_fault3\n"
"                     (repeatable)\n"
"  -p, --policy SPEC  repeatable; default v5.17 and v6.0\n"
"  -t, --tasks LIST   task counts, e.g. 1,2,4 (default 1)\n"
"  -m, --mode MODE    threads (default), processes or both (one cell each)\n"
"      --out-base DIR where the cells' directories go (default tlbgen-sweep)\n"
"      --bench PATH   the tlbgen-bench to run (default tlbgen-bench)\n"
"  -h, --help         this text\n"
"Arguments after '--' are passed to every cell (e.g. -- -r 3 -d 200).\n"
"Exit: 0 printed, 2 bad arguments.\n");
}

/* A shell word: single-quoted, with ' as '\''. */
static void shell_word(const char *s)
{
	bool plain = *s != 0;

	for (const char *p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+",
			    *p))
			plain = false;
	if (plain) {
		fputs(s, stdout);
		return;
	}
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	}
	putchar('\'');
}

/* The policy in a directory name: [A-Za-z0-9._-] kept, the rest '_'. */
static void safe_name(char *dst, size_t len, const char *s)
{
	size_t i = 0;

	for (; *s && i + 1 < len; s++, i++)
		dst[i] = (strchr("._-", *s) || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
			  (*s >= 'A' && *s <= 'Z')) ? *s : '_';
	dst[i] = 0;
}

static int parse_counts(const char *arg, unsigned int *out, unsigned int max, unsigned int *n)
{
	char *copy = strdup(arg), *save = NULL;
	int err = 0;

	*n = 0;
	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		if (*n >= max)
			err = -EINVAL;
		else
			err = bench_parse_uint("--tasks", tok, 1, TLBGEN_MAX_CPUS, &out[(*n)++]);
	}
	free(copy);
	return err || !*n ? -EINVAL : 0;
}

int bench_sweep_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "emit", no_argument, NULL, 'e' },
		{ "workload", required_argument, NULL, 'w' },
		{ "policy", required_argument, NULL, 'p' },
		{ "tasks", required_argument, NULL, 't' },
		{ "mode", required_argument, NULL, 'm' },
		{ "out-base", required_argument, NULL, 'o' },
		{ "bench", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *wls[16], *pols[16], *modes[2] = { "threads", NULL };
	const char *base = "tlbgen-sweep", *bench = "tlbgen-bench";
	unsigned int nwl = 0, npol = 0, tasks[256] = { 1 }, ntasks = 1, nmodes = 1;
	bool emit = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "w:p:t:m:h", lo, NULL)) != -1) {
		switch (opt) {
		case 'e':
			emit = true;
			break;
		case 'w':
			if (nwl >= 16 || !bench_find(optarg) || !bench_find(optarg)->ops) {
				fprintf(stderr, "tlbgen-bench sweep: --workload: '%s' is not a "
					"workload; the workloads:", optarg);
				for (const struct bench *const *c = bench_commands; *c; c++)
					if ((*c)->ops)
						fprintf(stderr, " %s", (*c)->name);
				fputc('\n', stderr);
				return 2;
			}
			wls[nwl++] = optarg;
			break;
		case 'p':
			if (npol >= 16) {
				fprintf(stderr, "tlbgen-bench sweep: at most 16 --policy\n");
				return 2;
			}
			pols[npol++] = optarg;
			break;
		case 't':
			if (parse_counts(optarg, tasks, 256, &ntasks))
				return 2;
			break;
		case 'm':
			if (!strcmp(optarg, "threads") || !strcmp(optarg, "processes")) {
				modes[0] = optarg;
				nmodes = 1;
			} else if (!strcmp(optarg, "both")) {
				modes[0] = "threads";
				modes[1] = "processes";
				nmodes = 2;
			} else {
				fprintf(stderr, "tlbgen-bench sweep: --mode: '%s' is not threads, "
					"processes or both\n", optarg);
				return 2;
			}
			break;
		case 'o':
			base = optarg;
			break;
		case 'b':
			bench = optarg;
			break;
		case 'h':
			sweep_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "tlbgen-bench sweep: see tlbgen-bench sweep --help\n");
			return 2;
		}
	}
	if (!emit) {
		fprintf(stderr, "tlbgen-bench sweep: --emit is required (it prints the commands)\n");
		return 2;
	}
	if (!nwl)
		wls[nwl++] = "tlb_flush1";
	if (!npol) {
		pols[npol++] = "v5.17";
		pols[npol++] = "v6.0";
	}
	for (unsigned int w = 0; w < nwl; w++)
		for (unsigned int p = 0; p < npol; p++)
			for (unsigned int m = 0; m < nmodes; m++)
				for (unsigned int t = 0; t < ntasks; t++) {
					char pol[160], dir[4096];

					safe_name(pol, sizeof(pol), pols[p]);
					snprintf(dir, sizeof(dir), "%s/%s-%s-%s-t%u", base, wls[w],
						 pol, modes[m], tasks[t]);
					shell_word(bench);
					fputs(" --out ", stdout);
					shell_word(dir);
					printf(" %s -p ", wls[w]);
					shell_word(pols[p]);
					printf(" -m %s -t %u", modes[m], tasks[t]);
					for (int i = optind; i < argc; i++) {
						putchar(' ');
						shell_word(argv[i]);
					}
					putchar('\n');
				}
	return 0;
}

/* merge ----------------------------------------------------------------------- */

static void merge_usage(FILE *f)
{
	fprintf(f,
"usage: tlbgen-bench merge --out DIR SRC_DIR...\n"
"\n"
"Merges results directories (the cells of a sweep, or repeated runs) into\n"
"DIR: results.json holds every metric of every source; a metric present in\n"
"several sources (same name and parameters) gets all their samples, its\n"
"statistic the mean of them. meta.json keeps each source's host, date and\n"
"command line, and the union of the policies.\n"
"Exit: 0 merged; 1 a source is not a readable results directory or DIR\n"
"cannot be written; 2 bad arguments.\n");
}

/* Add metric m (a copy) to `metrics`, or its samples to the metric of the same key. */
static void merge_metric(json_t *metrics, json_t *index, json_t *m)
{
	char *key = archive_key(m);
	json_t *have = key ? json_object_get(index, key) : NULL;

	if (!key)
		return;
	if (!have) {
		json_t *c = json_deep_copy(m);

		json_array_append_new(metrics, c);
		json_object_set(index, key, c);
	} else {
		double *a, *b;
		size_t na = archive_samples(have, &a), nb = archive_samples(m, &b);
		double *all = malloc((na + nb + 1) * sizeof(double));
		json_t *s = json_array();
		double mean, sd;

		if (all) {
			memcpy(all, a, na * sizeof(double));
			memcpy(all + na, b, nb * sizeof(double));
			for (size_t i = 0; i < na + nb; i++)
				json_array_append_new(s, json_real(all[i]));
			bench_mean_sd(all, na + nb, &mean, &sd);
			json_object_set_new(have, "statistic", json_string("mean"));
			json_object_set_new(have, "value", json_real(mean));
			json_object_set_new(have, "sd", na + nb > 1 ? json_real(sd) : json_null());
			json_object_set_new(have, "samples", s);
		} else {
			json_decref(s);
		}
		free(all);
		free(a);
		free(b);
	}
	free(key);
}

static int write_doc(json_t *doc, const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return bench_json_dump(doc, path);
}

int bench_merge_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	char workload[64] = "";
	json_t *metrics, *index, *sources, *pols, *meta, *results;
	int opt, ret = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'h':
			merge_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "tlbgen-bench merge: see tlbgen-bench merge --help\n");
			return 2;
		}
	}
	if (!out || optind >= argc) {
		fprintf(stderr, "tlbgen-bench merge: needs --out DIR and at least one source "
			"directory; usage: tlbgen-bench merge --out DIR SRC_DIR...\n");
		return 2;
	}
	if (mkdir(out, 0777) && errno != EEXIST) {
		fprintf(stderr, "tlbgen-bench merge: --out: %s: %s\n", out, strerror(errno));
		return 1;
	}
	metrics = json_array();
	index = json_object();
	sources = json_array();
	pols = json_array();
	meta = NULL;
	for (int i = optind; i < argc; i++) {
		struct archive a;
		json_t *m, *p;
		size_t k;

		if (archive_load(&a, argv[i])) {
			ret = 1;
			continue;
		}
		json_array_foreach(json_object_get(a.results, "metrics"), k, m)
			merge_metric(metrics, index, m);
		json_array_append_new(sources, json_pack("{s:s,s:O,s:O,s:O,s:O}", "dir", argv[i],
						 "host", json_object_get(a.meta, "host"),
						 "date", json_object_get(a.meta, "date"),
						 "command_line",
						 json_object_get(a.meta, "command_line"),
						 "tool", json_object_get(a.meta, "tool")));
		json_array_foreach(json_object_get(a.meta, "policies"), k, p) {
			bool dup = false;
			json_t *q;
			size_t j;

			json_array_foreach(pols, j, q)
				dup = dup || json_equal(q, p);
			if (!dup)
				json_array_append(pols, p);
		}
		const char *w = json_string_value(json_object_get(a.meta, "workload"));

		if (!meta) {
			snprintf(workload, sizeof(workload), "%s", w ? w : "");
			meta = json_deep_copy(a.meta);
		} else if (strcmp(workload, w ? w : "")) {
			snprintf(workload, sizeof(workload), "merged");
		}
		archive_free(&a);
	}
	if (!ret && meta) {
		json_object_set_new(meta, "workload", json_string(workload));
		json_object_set_new(meta, "policies", pols);
		json_object_set_new(meta, "sources", sources);
		json_object_set_new(meta, "merged", json_true());
		results = json_pack("{s:s,s:i,s:s,s:O}", "schema", BENCH_RESULTS_SCHEMA,
				    "schema_version", BENCH_RESULTS_SCHEMA_VERSION, "workload",
				    workload, "metrics", metrics);
		if (write_doc(meta, out, "meta.json") || write_doc(results, out, "results.json"))
			ret = 1;
		else
			printf("merged %d directories, %zu metrics: %s/\n", argc - optind,
			       json_array_size(metrics), out);
		json_decref(results);
	} else {
		json_decref(pols);
		json_decref(sources);
		if (!ret)
			ret = 1;
	}
	json_decref(meta);
	json_decref(metrics);
	json_decref(index);
	return ret;
}
