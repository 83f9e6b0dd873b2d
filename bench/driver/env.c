// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/driver/env.c - the shared options of every tlbgen-bench command, parsed
 * once into struct bench_env, and their resolution: policies (after every
 * plugin is loaded, wherever --plugin stood), the machine model, the modes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "common.h"
#include "env.h"
#include "output.h"
#include "results.h"

static struct bench_env env = { .seed = 1, .ms = 5, .warmup_ms = 2 };
static const char *pol_spec[BENCH_MAX_POLICIES];
static unsigned int npol_spec;

struct bench_env *bench_env(void)
{
	return &env;
}

static int opt_policy(const char *opt, const char *arg)
{
	if (npol_spec >= BENCH_MAX_POLICIES) {
		fprintf(stderr, "tlbgen-bench: %s: at most %d policies\n", opt, BENCH_MAX_POLICIES);
		return -EINVAL;
	}
	pol_spec[npol_spec++] = arg;
	return 0;
}

static const struct {
	const char *name;
	unsigned int modes;
} mode_names[] = {
	{ "stepped", BENCH_M_STEPPED }, { "threads", BENCH_M_THREADS },
	{ "processes", BENCH_M_PROCESSES }, { "virtual", BENCH_M_VIRTUAL },
	{ "both", BENCH_M_THREADED }, { "all", BENCH_M_ALL },
};

const char *bench_mode_name(unsigned int mode)
{
	for (size_t i = 0; i < 4; i++)
		if (mode_names[i].modes == mode)
			return mode_names[i].name;
	return "?";
}

/* "a,b,c" of mode_names into *out, or -EINVAL naming the bad word. */
static int parse_modes(const char *opt, const char *arg, unsigned int allowed, unsigned int *out)
{
	const char *s = arg;

	*out = 0;
	while (*s) {
		size_t l = strcspn(s, ",");
		unsigned int m = 0;

		for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
			if (strlen(mode_names[i].name) == l && !strncmp(mode_names[i].name, s, l))
				m = mode_names[i].modes;
		if (!m || (m & ~allowed)) {
			fprintf(stderr, "tlbgen-bench: %s: '%.*s' is not one of ", opt, (int)l, s);
			for (size_t i = 0, first = 1; i < sizeof(mode_names) / sizeof(mode_names[0]);
			     i++)
				if (!(mode_names[i].modes & ~allowed))
					fprintf(stderr, "%s%s", first ? "" : ", ",
						mode_names[i].name), first = 0;
			fputc('\n', stderr);
			return -EINVAL;
		}
		*out |= m;
		s += l + (s[l] == ',');
	}
	if (*out)
		return 0;
	fprintf(stderr, "tlbgen-bench: %s: empty\n", opt);
	return -EINVAL;
}

static int opt_mode(const char *opt, const char *arg)
{
	return parse_modes(opt, arg, BENCH_M_ALL, &env.modes);
}

static int opt_shape(const char *opt, const char *arg)
{
	return parse_modes(opt, arg, BENCH_M_THREADED, &env.shapes);
}

static int opt_machine(const char *opt, const char *arg)
{
	(void)opt;
	env.machine_spec = arg;
	return 0;
}

/* "1,2,8" or "1-8" or both, each 1..TLBGEN_MAX_CPUS. */
static int opt_threads(const char *opt, const char *arg)
{
	const char *s = arg;
	char *end;

	env.nthreads = 0;
	while (*s) {
		unsigned long a = strtoul(s, &end, 10), b;

		if (end == s || !a || a > TLBGEN_MAX_CPUS || *s == '-' || *s == '+')
			goto bad;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b < a || b > TLBGEN_MAX_CPUS)
				goto bad;
		}
		for (unsigned long i = a; i <= b; i++) {
			if (env.nthreads >= BENCH_MAX_THREADS)
				goto bad;
			env.threads[env.nthreads++] = (unsigned int)i;
		}
		s = end + (*end == ',');
		if (*end && *end != ',')
			goto bad;
	}
	if (env.nthreads)
		return 0;
bad:
	fprintf(stderr, "tlbgen-bench: %s: '%s' is not a list of task counts 1..%d (e.g. 1,2,4 "
		"or 1-8; at most %d)\n", opt, arg, TLBGEN_MAX_CPUS, BENCH_MAX_THREADS);
	return -EINVAL;
}

static int opt_runs(const char *opt, const char *arg)
{
	if (!strcmp(arg, "auto")) {
		env.runs = 0;
		return 0;
	}
	if (bench_parse_uint(opt, arg, 1, 128, &env.runs)) {
		fprintf(stderr, "tlbgen-bench: %s: 'auto' or 1..128\n", opt);
		return -EINVAL;
	}
	return 0;
}

static int opt_warmup(const char *opt, const char *arg)
{
	env.warmup_given = true;
	return bench_parse_uint(opt, arg, 0, 1000, &env.warmup_ms);
}

static int opt_json(const char *opt, const char *arg)
{
	env.json = arg;
	return bench_check_output(opt, arg);
}

/* The profiles known now (built-in, then a loaded plugin's), wrapped. */
static void profiles_help(FILE *f, const char *indent)
{
	const char *names[128];
	int n = tlbgen_profile_names(names, 128);
	size_t col = 0;

	for (int i = 0; i < n && i < 128; i++) {
		if (i == 0 || col + strlen(names[i]) + 1 > 64)
			col = (size_t)fprintf(f, "%s%s%s", i ? "\n" : "", indent,
					      i ? "  " : "profiles:") - (i ? 1 : 0) - strlen(indent);
		col += (size_t)fprintf(f, " %s", names[i]);
	}
	if (n > 0)
		fputc('\n', f);
}

#define SHARED(bit, ...) { .shared = (bit), __VA_ARGS__ }

const struct bench_opt bench_shared_opts[] = {
	SHARED(BENCH_O_POLICY, .name = "policy", .key = 'p', .arg = "SPEC", .type = BOPT_FN,
	       .fn = opt_policy,
	       .help = "a policy, repeatable, the first is the baseline: PROFILE,\n"
		       "PROFILE:choice=value[,...], or a plugin's (tlbgen-bench versions\n"
		       "lists each profile's choices)",
	       .help_data = profiles_help),
	SHARED(BENCH_O_POLICY, .name = "profile", .arg = "SPEC", .type = BOPT_FN,
	       .fn = opt_policy),
	SHARED(BENCH_O_MODE, .name = "mode", .key = 'm', .arg = "MODE[,MODE]", .type = BOPT_FN,
	       .fn = opt_mode,
	       .help = "stepped (counts), threads (real pthreads, one mm), processes (real\n"
		       "pthreads, an mm per task), virtual (virtual time on --machine);\n"
		       "both = threads,processes; all"),
	SHARED(BENCH_O_MODE, .name = "shape", .arg = "SHAPE", .type = BOPT_FN, .fn = opt_shape,
	       .help = "stepped and virtual mode: tasks as threads (one mm, default) or\n"
		       "processes (an mm each), or both"),
	SHARED(BENCH_O_MACHINE, .name = "machine", .arg = "SPEC", .type = BOPT_FN,
	       .fn = opt_machine,
	       .help = "machine model (tlbgen/machine.h, docs/machines.md): NAME or\n"
		       "NAME:field=value,...; host measures this one. Virtual mode: the\n"
		       "costs of everything; threads/processes: the kernel work burnt per\n"
		       "op (default host; off: the emulated flush path alone)"),
	SHARED(BENCH_O_MACHINE, .name = "kernel-work", .arg = "SPEC", .type = BOPT_FN,
	       .fn = opt_machine),
	SHARED(BENCH_O_MACHINE, .name = "invlpgb", .type = BOPT_FLAG, .dst = &env.invlpgb,
	       .help = "the machine has AMD INVLPGB and TLBSYNC (4afeb0ed1753, v6.15)"),
	SHARED(BENCH_O_MACHINE, .name = "no-pcid", .type = BOPT_FLAG, .dst = &env.no_pcid,
	       .help = "the machine has no PCID: every switch to another mm flushes"),
	SHARED(BENCH_O_THREADS, .name = "threads", .key = 't', .arg = "LIST", .type = BOPT_FN,
	       .fn = opt_threads, .help = "task counts: 1,2,4 or 1-8 (task i on CPU i)"),
	SHARED(BENCH_O_THREADS, .name = "tasks", .arg = "LIST", .type = BOPT_FN,
	       .fn = opt_threads),
	SHARED(BENCH_O_SEED, .name = "seed", .arg = "N", .type = BOPT_U64, .dst = &env.seed,
	       .min = 1, .max = UINT64_MAX, .help = "the first seed (default 1)"),
	SHARED(BENCH_O_RUNS, .name = "runs", .arg = "auto|R", .type = BOPT_FN, .fn = opt_runs,
	       .help = "seeds per row: auto (until the change's standard error is at\n"
		       "most 0.5 points) or R"),
	SHARED(BENCH_O_TIME, .name = "ms", .arg = "MS", .type = BOPT_UINT, .dst = &env.ms,
	       .min = 1, .max = 1000,
	       .help = "virtual: milliseconds of virtual time measured per cell (5)"),
	SHARED(BENCH_O_TIME, .name = "warmup", .key = 'w', .arg = "N", .type = BOPT_FN,
	       .fn = opt_warmup,
	       .help = "virtual: ms of warm-up before them, not counted (2);\n"
		       "threads/processes: warm-up samples per round (1)"),
	SHARED(BENCH_O_TIME, .name = "ops", .arg = "N", .type = BOPT_U64, .dst = &env.ops,
	       .min = 1, .max = 100000000, .help = "stepped: operations per cell (20000)"),
	SHARED(BENCH_O_JSON, .name = "json", .arg = "FILE", .type = BOPT_FN, .fn = opt_json,
	       .help = "results.json there too; '-': stdout, and the text report\n"
		       "goes to stderr"),
	SHARED(BENCH_O_JOBS, .name = "jobs", .key = 'j', .arg = "N", .type = BOPT_UINT,
	       .dst = &env.jobs, .min = 1, .max = 1024,
	       .help = "stepped and virtual cells run at once (default: online CPUs);\n"
		       "the results do not depend on it"),
	SHARED(BENCH_O_CALIBRATE, .name = "calibrate", .arg = "FILE", .type = BOPT_STR,
	       .dst = &env.calibrate_path,
	       .help = "virtual: your box's measured rate under the first policy\n"
		       "(JSON: workload, machine, shape, tasks, per_task_ops); the\n"
		       "model fixes one per-op term on it and predicts the other\n"
		       "policies' change under both its bounds (docs/validation.md)"),
	SHARED(BENCH_O_QUIET, .name = "quiet", .key = 'q', .type = BOPT_FLAG, .dst = &env.quiet,
	       .help = "less output"),
	SHARED(BENCH_O_QUIET, .name = "verbose", .key = 'v', .type = BOPT_FLAG,
	       .dst = &env.verbose,
	       .help = "threads/processes: will-it-scale's min/max/total line of\n"
		       "every sample too (they are in results.json either way)"),
	{ .name = "help", .key = 'h', .type = BOPT_FLAG, .help = "this text" },
	BENCH_OPT_END,
};

int bench_policy_parse(const char *spec, struct bench_policy *out)
{
	const char *colon;
	char base[48];
	int err;

	if (!spec || !*spec) {
		fprintf(stderr, "tlbgen-bench: -p '': empty; a profile (v6.0) or "
			"profile:choice=value\n");
		return -EINVAL;
	}
	if (strlen(spec) >= sizeof(out->label)) {
		fprintf(stderr, "tlbgen-bench: -p '%s': longer than %zu characters\n", spec,
			sizeof(out->label) - 1);
		return -EINVAL;
	}
	snprintf(out->label, sizeof(out->label), "%s", spec);
	colon = strchr(spec, ':');
	if (!colon) {
		const char *names[128];
		int n = tlbgen_profile_names(names, 128);

		for (int i = 0; i < n && i < 128; i++)
			if (!strcmp(names[i], spec)) {
				snprintf(out->name, sizeof(out->name), "%s", spec);
				bench_meta_policy(out->name, out->label);
				return 0;
			}
		fprintf(stderr, "tlbgen-bench: unknown profile '%s'; known:", spec);
		for (int i = 0; i < n && i < 128; i++)
			fprintf(stderr, " %s", names[i]);
		fputc('\n', stderr);
		return -ENOENT;
	}
	if ((size_t)(colon - spec) >= sizeof(base) || colon == spec) {
		fprintf(stderr, "tlbgen-bench: -p '%s': %s before ':'\n", spec,
			colon == spec ? "no profile" : "the profile is too long");
		return -EINVAL;
	}
	memcpy(base, spec, (size_t)(colon - spec));
	base[colon - spec] = 0;
	/* The first free generated name: the registry itself says which are taken. */
	for (unsigned int seq = 0;; seq++) {
		snprintf(out->name, sizeof(out->name), "bench-%u-%d", seq, (int)getpid());
		err = tlbgen_policy_register(out->name, base, colon + 1, NULL);
		if (!err)
			bench_meta_policy(out->name, out->label);
		if (err != -EEXIST)
			return err;
	}
}

int bench_env_policies(struct bench_env *e, const char *const *defs)
{
	const char *const *specs = npol_spec ? pol_spec : defs;
	unsigned int n = 0;

	while (specs && specs[n] && (npol_spec ? n < npol_spec : true))
		n++;
	for (unsigned int i = 0; i < n; i++) {
		if (i >= BENCH_MAX_POLICIES || bench_policy_parse(specs[i], &e->pol[i]))
			return -EINVAL;
	}
	e->npol = n;
	return 0;
}

int bench_env_machine(struct bench_env *e, const char *def)
{
	const char *spec = e->machine_spec ? e->machine_spec : def;
	int err;

	memset(&e->machine, 0, sizeof(e->machine));
	if (!spec || !strcmp(spec, "off"))
		return 0;
	err = tlbgen_machine_lookup(spec, &e->machine);
	if (err)
		fprintf(stderr, "tlbgen-bench: --machine: '%s': %s\n", spec,
			err == -ENOENT ? "no such model or field (the valid ones are above)"
			: err == -EAGAIN ? "'host' measured no line transfer: fewer than two CPUs"
					 : "not a valid model (the message above names the field)");
	return err ? -EINVAL : 0;
}

void bench_env_meta_machine(const struct bench_env *e, unsigned int modes)
{
	bench_meta_param("invlpgb", json_boolean(e->invlpgb));
	bench_meta_param("no_pcid", json_boolean(e->no_pcid));
	if (modes & BENCH_M_VIRTUAL) {
		char desc[512];

		tlbgen_machine_describe(&e->machine, desc, sizeof(desc));
		bench_meta_param("machine", json_string(desc));
	}
}
