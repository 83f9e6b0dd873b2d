// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/compare-cli.c - the options of the comparison workloads (seed000,
 * tlb_flush1..3, page_fault3, mesi) into a struct cmp, with the defaults
 * that depend on what was given.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "results.h"

enum { O_JSON = 256, O_CSV, O_SVG, O_NOPLOT, O_NOMESI, O_NOACCT, O_MESI_CPUS, O_MESI_OPS,
       O_SEED, O_CPUS, O_WARMUP, O_INVLPGB, O_KWORK };

static const struct option long_opts[] = {
	{ "policy", required_argument, NULL, 'p' },
	{ "tasks", required_argument, NULL, 't' },
	{ "mode", required_argument, NULL, 'm' },
	{ "rounds", required_argument, NULL, 'r' },
	{ "duration", required_argument, NULL, 'd' },
	{ "sample-ms", required_argument, NULL, 's' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "json", required_argument, NULL, O_JSON },
	{ "csv", required_argument, NULL, O_CSV },
	{ "svg", required_argument, NULL, O_SVG },
	{ "no-plot", no_argument, NULL, O_NOPLOT },
	{ "no-mesi", no_argument, NULL, O_NOMESI },
	{ "no-acct", no_argument, NULL, O_NOACCT },
	{ "mesi-cpus", required_argument, NULL, O_MESI_CPUS },
	{ "mesi-ops", required_argument, NULL, O_MESI_OPS },
	{ "seed", required_argument, NULL, O_SEED },
	{ "cpus", required_argument, NULL, O_CPUS },
	{ "warmup", required_argument, NULL, 'w' },
	{ "invlpgb", no_argument, NULL, O_INVLPGB },
	{ "kernel-work", required_argument, NULL, O_KWORK },
	{ NULL, 0, NULL, 0 },
};

void cmp_usage(FILE *f, const char *prog)
{
	fprintf(f,
"usage: tlbgen-bench %s [options]\n"
"\n"
"Runs a will-it-scale shaped workload over the emulated runtime (threaded\n"
"mode: one pinned pthread per emulated CPU) under several policies, rounds\n"
"interleaved A B A B, and compares them.\n"
"\n"
"workloads (will-it-scale's tests), one operation =\n"
"  tlb_flush1   write (on 15 pages in 16 a COW whose wp_page_copy() flushes the\n"
"               read-only PTE the read back's fault-around mapped), MADV_DONTNEED\n"
"               (PTE zap + 1-page flush_tlb_mm_range; the whole mm with\n"
"               freed_tables when another task's zap is in flight:\n"
"               mm_tlb_flush_nested()), read back (re-fault);\n"
"               munmap (full flush, freed_tables) every 32768 pages\n"
"  tlb_flush2   write, MADV_DONTNEED, re-fault; munmap every 256 pages (1 MiB\n"
"               anonymous mapping)\n"
"  tlb_flush3   as tlb_flush2, munmap every 32768 pages (shared file mapping:\n"
"               the write after the read back needs no flush; page cache not modelled)\n"
"  page_fault3  write fault on a shared file page (PTE change, no flush);\n"
"               munmap every 32768 pages\n"
"  seed000      (no arguments) tlb_flush1, threads, tasks 1..nproc,\n"
"               v5.17 vs v6.0, plus the MESI account of Nadav Amit's four columns\n"
"\n"
"options:\n"
"  -p, --policy SPEC    a policy: PROFILE or PROFILE:choice=value[,...]\n"
"                       (repeatable; the first is the baseline). Profiles:\n"
"                       v5.17 v6.0-aa44284960 v6.0 v6.14 latest. Example:\n"
"                       -p v5.17 -p v6.0 -p 'v6.0:mm_tlb_gen_read=never'\n"
"                       default: v5.17 and v6.0\n"
"  -t, --tasks LIST     task counts, e.g. 1,2,4 or 1-8 (default 1..nproc).\n"
"                       More tasks than CPUs is allowed: then only counts,\n"
"                       not times, are meaningful\n"
"  -m, --mode MODE      threads (one shared mm, default), processes (one mm\n"
"                       per task: local flushes only) or both\n"
"  -r, --rounds N       interleaved rounds per policy and task count (default 5)\n"
"  -w, --warmup N       warm-up samples (of --sample-ms) run and discarded at the\n"
"                       start of every round (default 1). will-it-scale discards\n"
"                       5 of its 1 s iterations; a round here has about 4\n"
"                       samples, so 1 keeps the same share of warm-up per round\n"
"  -d, --duration MS    length of one round (default: ~20 s in total, 200..1000)\n"
"  -s, --sample-ms MS   will-it-scale sample interval (default min(1000, d/4));\n"
"                       samples are scaled to ops per second\n"
"      --cpus LIST      real CPUs to pin task i to (cpus[i %% n]); default: all\n"
"                       CPUs this process may use\n"
"      --json FILE      results.json (every figure, with units) there too; - is\n"
"                       stdout\n"
"      --csv FILE       the will-it-scale CSV (runtest.py's) there too; - is\n"
"                       stdout; with several policies, FILE-POLICY.csv each\n"
"      --svg FILE       the plot there instead of the results directory's\n"
"                       throughput.svg; drawn with gnuplot if present\n"
"      --no-plot        do not draw the plot\n"
"      --no-acct        skip the traced accounting pass (remote tlb_gen reads, and\n"
"                       the oracle: timed rounds run without it)\n"
"      --no-mesi        skip the stepped MESI coherence account\n"
"      --mesi-cpus N    emulated CPUs of the MESI account (default 8)\n"
"      --mesi-ops N     operations of the MESI account (default 20000)\n"
"      --seed N         seed of the MESI account's scheduler (default 1)\n"
"      --invlpgb        the emulated machine has AMD INVLPGB (system opts invlpgb):\n"
"                       profiles from v6.16 give an mm on 4+ CPUs a global ASID\n"
"                       and flush it by INVLPGB + TLBSYNC (4afeb0ed1753); in threads\n"
"                       mode with 4+ tasks the counters then start once the warm-up\n"
"                       ended and every CPU uses that ASID, and a table per flush\n"
"                       of INVLPGBs, TLBSYNCs, IPIs and IPIs avoided follows\n"
"      --kernel-work M  the kernel's own work per operation, burnt as busy-waits\n"
"                       (IRQs on: IPIs are taken meanwhile) in the timed rounds\n"
"                       so that the flush path is the share\n"
"                       of an op it is in a kernel: the write's fault and the\n"
"                       read back's (flushing workloads), madvise's\n"
"                       syscall entry/exit and page-table lock, the PTE zap and\n"
"                       the user work, from machine model M's costs\n"
"                       (tlbgen/machine.h: host, measured on this kernel at\n"
"                       start, the default; skylake-56; skylake-56-pti;\n"
"                       skx-2s-80; NAME:field=N)\n"
"                       or off (the emulated flush path alone)\n"
"  -q, --quiet          no will-it-scale per-sample lines\n"
"  -h, --help           this text\n"
"\n"
"output (stdout), in this order:\n"
"  1. will-it-scale text per policy and task count: 'min:N max:N total:N' per\n"
"     sample (ops/s of the slowest task, the fastest, all), then 'average:N'\n"
"  2. comparison table: ops/s min/mean/max over rounds, change of the mean\n"
"     vs the first policy with its 95%% confidence interval (Welch), Welch's\n"
"     t-test p ('*' p<0.05, '**' p<0.01)\n"
"  3. counters per flush: mm tlb_gen reads per flush and per remote\n"
"     flush_tlb_func (accounting pass), early skips, IPIs sent and skipped\n"
"     by reason (lazy, not loaded, trim not due), full and partial flushes,\n"
"     oracle violations; hardware counters per op where a PMU exists\n"
"  4. will-it-scale CSV per policy, as runtest.py writes one test case:\n"
"     tasks,processes,processes_idle,threads,threads_idle,linear (idle %% from\n"
"     /proc/stat; linear: the larger 1-task figure of the modes times tasks)\n"
"  5. LKP-style 'key: value' lines, WORKLOAD.POLICY.MODE.TASKS.METRIC, dots\n"
"     in the policy replaced by '_'\n"
"  6. MESI coherence account (stepped mode, no PMU needed): cacheline\n"
"     transfers per flush overall and on the mm's tlb_gen line\n"
"  7. plot path. Progress goes to stderr.\n"
"Files: the results directory (tlbgen-bench --help: --out) holds meta.json,\n"
"results.json, throughput.svg and WORKLOAD-POLICY.csv per policy.\n"
"Exit: 0 ok, 1 failed run (errors, oracle violations, an output file not\n"
"written), 2 bad arguments (also an output path that cannot be written,\n"
"checked before the run).\n",
		prog);
}

static int parse_list(const char *s, unsigned int *out, unsigned int max, unsigned int *n)
{
	char *end;

	*n = 0;
	while (*s) {
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 1 || a > 100000)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b > 100000)
				return -EINVAL;
		}
		for (long i = a; i <= b; i++) {
			if (*n >= max)
				return -EINVAL;
			out[(*n)++] = (unsigned int)i;
		}
		if (*end == ',')
			end++;
		else if (*end)
			return -EINVAL;
		s = end;
	}
	return *n ? 0 : -EINVAL;
}

static void bad_list(const char *opt, const char *arg)
{
	fprintf(stderr, "tlbgen-bench: %s: '%s' is not a list of numbers (e.g. 1,2,4 or 1-8)\n",
		opt, arg);
}

static int add_policy(struct bench_policy *arr, unsigned int *n, const char *spec)
{
	if (*n >= MAX_POLICIES) {
		fprintf(stderr, "tlbgen-bench: at most %d policies\n", MAX_POLICIES);
		return -EINVAL;
	}
	if (bench_policy_parse(spec, &arr[*n])) {
		fprintf(stderr, "tlbgen-bench: bad policy '%s'\n", spec);
		return -EINVAL;
	}
	(*n)++;
	return 0;
}

static int parse_tasks(struct cmp *c, const char *arg)
{
	if (parse_list(arg, c->tasks, MAX_TASKS, &c->ntasks)) {
		bad_list("--tasks", arg);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < c->ntasks; i++)
		if (c->tasks[i] > TLBGEN_MAX_CPUS) {
			fprintf(stderr, "tlbgen-bench: --tasks: %u is more than %d emulated CPUs\n",
				c->tasks[i], TLBGEN_MAX_CPUS);
			return -EINVAL;
		}
	return 0;
}

static int parse_cpus(struct cmp *c, const char *arg)
{
	unsigned int l[1024], n;

	/* CPU 0 alone: parse_list() takes counts, which start at 1. */
	if (arg[0] == '0' && !arg[1]) {
		l[0] = 0;
		n = 1;
	} else if (parse_list(arg, l, 1024, &n)) {
		bad_list("--cpus", arg);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < n; i++)
		c->cpus[i] = (int)l[i];
	c->nr_cpus = (int)n;
	return 0;
}

static int parse_mode(struct cmp *c, const char *arg)
{
	c->modes[0] = !strcmp(arg, "threads") || !strcmp(arg, "both");
	c->modes[1] = !strcmp(arg, "processes") || !strcmp(arg, "both");
	if (c->modes[0] || c->modes[1])
		return 0;
	fprintf(stderr, "tlbgen-bench: --mode: '%s' is not threads, processes or both\n", arg);
	return -EINVAL;
}

/* The options that take a number. */
static int parse_number(struct cmp *c, int opt, const char *arg)
{
	unsigned long long v;
	int err;

	switch (opt) {
	case 'r':
		err = bench_parse_ull("--rounds", arg, 1, MAX_ROUNDS, &v);
		if (!err)
			c->rounds = (unsigned int)v;
		return err;
	case 'd':
		err = bench_parse_ull("--duration", arg, 10, 3600000, &v);
		if (!err)
			c->duration_ms = (unsigned int)v;
		return err;
	case 's':
		err = bench_parse_ull("--sample-ms", arg, 10, 3600000, &v);
		if (!err)
			c->sample_ms = (unsigned int)v;
		return err;
	case O_MESI_CPUS:
		err = bench_parse_ull("--mesi-cpus", arg, 1, 1024, &v);
		if (!err)
			c->mesi_cpus = (unsigned int)v;
		return err;
	case O_MESI_OPS:
		err = bench_parse_ull("--mesi-ops", arg, 1, 100000000, &v);
		if (!err)
			c->mesi_ops = v;
		return err;
	case O_SEED:
		err = bench_parse_ull("--seed", arg, 0, UINT64_MAX, &v);
		if (!err)
			c->seed = v;
		return err;
	case 'w':
		err = bench_parse_ull("--warmup", arg, 0, 1000, &v);
		if (!err)
			c->warmup = (unsigned int)v;
		return err;
	}
	return -EINVAL;
}

/* One option: 0, 1 for --help, or -EINVAL. */
static int parse_option(struct cmp *c, int opt, const char *arg)
{
	switch (opt) {
	case 'p':
		return add_policy(c->pol, &c->npol, arg);
	case 't':
		return parse_tasks(c, arg);
	case 'm':
		return parse_mode(c, arg);
	case O_CPUS:
		return parse_cpus(c, arg);
	case 'r': case 'd': case 's': case O_MESI_CPUS: case O_MESI_OPS: case O_SEED:
	case 'w':
		return parse_number(c, opt, arg);
	case 'q':
		c->quiet = true;
		return 0;
	case 'h':
		return 1;
	case O_JSON:
		c->json = arg;
		return 0;
	case O_CSV:
		c->csv = arg;
		return 0;
	case O_SVG:
		c->svg = arg;
		return 0;
	case O_NOPLOT:
		c->no_plot = true;
		return 0;
	case O_NOMESI:
		c->no_mesi = true;
		return 0;
	case O_NOACCT:
		c->no_acct = true;
		return 0;
	case O_INVLPGB:
		c->invlpgb = true;
		return 0;
	case O_KWORK:
		c->kwork_spec = arg;
		return 0;
	}
	return -EINVAL;
}

/* The MESI account: Nadav Amit's four columns for seed 000, else the policies. */
static int mesi_columns(struct cmp *c, bool user_pol)
{
	static const char *const cols[] = { "v5.17", "v6.0", "v6.0:mm_tlb_gen_read=always",
					    "v6.0:mm_tlb_gen_read=never" };

	if (c->no_mesi || !c->wl->flush_per_op)
		return 0;
	if (c->seed000 && !(c->mesi_only && user_pol)) {
		for (unsigned int i = 0; i < 4; i++)
			if (add_policy(c->mesi_pol, &c->nmesi, cols[i]))
				return -EINVAL;
	} else {
		memcpy(c->mesi_pol, c->pol, sizeof(c->pol));
		c->nmesi = c->npol;
	}
	return 0;
}

/* --kernel-work: the machine model whose costs the timed rounds burn. */
static int kernel_work(struct cmp *c)
{
	struct tlbgen_machine *m = &c->kwork;
	const char *spec;
	int err;

	if (!c->kwork_spec)
		c->kwork_spec = "host";
	spec = c->kwork_spec;
	if (!strcmp(spec, "off"))
		return 0;
	err = tlbgen_machine_lookup(spec, m);
	if (err) {
		fprintf(stderr, "tlbgen-bench: --kernel-work: '%s' is not off or a machine model "
			"(%s)\n", spec, strerror(-err));
		return -EINVAL;
	}
	c->kwork_on = true;
	c->kw_fault_ns = (uint64_t)m->page_fault * 1000 / m->mhz;
	c->kw_syscall_ns = ((uint64_t)m->syscall + m->ptl) * 1000 / m->mhz;
	c->kw_zap_ns = (uint64_t)m->zap * 1000 / m->mhz;
	c->kw_user_ns = (uint64_t)m->user_work * 1000 / m->mhz;
	return 0;
}

/* What was not given: from the other options and the machine. */
static int fill_defaults(struct cmp *c)
{
	bool user_pol = c->npol > 0;

	if (!c->npol && (add_policy(c->pol, &c->npol, "v5.17") ||
			 add_policy(c->pol, &c->npol, "v6.0")))
		return -EINVAL;
	if (!c->ntasks) {
		c->ntasks = (unsigned int)(c->nr_cpus < MAX_TASKS ? c->nr_cpus : MAX_TASKS);
		for (unsigned int i = 0; i < c->ntasks; i++)
			c->tasks[i] = i + 1;
	}
	if (!c->modes[0] && !c->modes[1])
		c->modes[0] = true;
	if (!c->duration_ms) {
		unsigned int n = c->npol * c->ntasks * c->rounds * (c->modes[0] + c->modes[1]);

		c->duration_ms = 20000 / n;
		c->duration_ms = c->duration_ms < 200 ? 200 : c->duration_ms > 1000 ? 1000 :
				 c->duration_ms;
	}
	if (!c->sample_ms)
		c->sample_ms = c->duration_ms / 4 > 1000 ? 1000 : c->duration_ms / 4;
	if (c->sample_ms > c->duration_ms)
		c->sample_ms = c->duration_ms;
	if (!c->svg && bench_results_path(c->svg_default, sizeof(c->svg_default), "throughput.svg"))
		c->svg = c->svg_default;
	/* Before the run: a path that cannot be written is a bad argument. */
	if ((c->json && bench_check_output("--json", c->json)) ||
	    (c->svg && !c->no_plot && bench_check_output("--svg", c->svg)))
		return -EINVAL;
	for (unsigned int p = 0; c->csv && p < c->npol; p++) {
		char path[4096 + 256];

		cmp_csv_path(c, p, path, sizeof(path));
		if (bench_check_output("--csv", path))
			return -EINVAL;
	}
	if (!c->mesi_only && kernel_work(c))
		return -EINVAL;
	return mesi_columns(c, user_pol);
}

int cmp_parse_args(struct cmp *c, const char *wl_name, bool seed000, bool mesi_only,
		   int argc, char **argv)
{
	int opt, err = 0;

	c->wl = bench_wis_find(wl_name);
	c->prog = mesi_only ? "mesi" : seed000 ? "seed000" : wl_name;
	c->rounds = 5;
	c->warmup = 1;
	c->mesi_cpus = 8;
	c->mesi_ops = 20000;
	c->seed = 1;
	c->seed000 = seed000;
	c->mesi_only = mesi_only;
	c->nr_cpus = bench_allowed_cpus(c->cpus, 1024);
	optind = 1;
	opterr = 1;
	while (!err && (opt = getopt_long(argc, argv, "p:t:m:r:d:s:w:qh", long_opts, NULL)) != -1)
		err = parse_option(c, opt, optarg);
	if (err == 1) {
		cmp_usage(stdout, c->prog);
		return 1;
	}
	if (!err && optind < argc) {
		fprintf(stderr, "tlbgen-bench: unexpected argument '%s'\n", argv[optind]);
		err = -EINVAL;
	}
	if (!err)
		err = fill_defaults(c);
	if (err) {
		fprintf(stderr, "usage: tlbgen-bench %s [options]; tlbgen-bench %s --help lists "
			"them\n", c->prog, c->prog);
		return -EINVAL;
	}
	return 0;
}
