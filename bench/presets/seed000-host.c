// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/presets/seed000-host.c - `seed000 --mode virtual --check-host`: the one
 * check a small machine allows. With the host's model, the virtual mode's
 * tlb_flush1 at 1 and 2 threads against the threaded mode doing the same
 * work (the model's fault, syscall and zap costs burnt as busy-waits).
 * A shared host moves its vCPUs, and a line transfer between them can cost
 * five times as much from one placement to the next, so each threaded round
 * is paired with a host model measured just before it, and the virtual cell
 * runs on that model; each side is the median of its rounds.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "driver/cell.h"
#include "driver/common.h"
#include "driver/results.h"
#include "run/round.h"
#include "run/run-virtual.h"
#include "run/threaded.h"

#define HOST_ROUNDS	5
#define HOST_MS		300

extern const struct bench_ops bench_tlb_flush1_ops;
int bench_seed000_check_host(uint64_t seed);

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of a round's values, leaving their order as measured. */
static double median_rounds(const double *v)
{
	double s[HOST_ROUNDS];

	memcpy(s, v, sizeof(s));
	qsort(s, HOST_ROUNDS, sizeof(s[0]), cmp_double);
	return s[HOST_ROUNDS / 2];
}

/* One pair: the threaded round, then the virtual cell on the same model. */
static int round_pair(const char *profile, unsigned int threads, uint64_t seed, double *virt,
		      double *thr, uint32_t *xfer)
{
	static int cpus[1024];
	struct tlbgen_machine m;
	struct bench_round_result r;
	struct bench_vcell c;
	int err = tlbgen_machine_lookup("host", &m);
	struct bench_round_opts o = { .ops = &bench_tlb_flush1_ops, .profile = profile,
				      .tasks = threads, .duration_ms = HOST_MS,
				      .sample_ms = HOST_MS, .kwork = &m };
	struct bench_vspec s = { .ops = &bench_tlb_flush1_ops, .m = &m, .profile = profile,
				 .threads = threads, .ms = 50, .seed = seed };

	if (err)
		return err;
	o.nr_cpus = bench_allowed_cpus(cpus, 1024);
	o.cpus = cpus;
	err = bench_round_run(&o, &r);
	if (err)
		return err;
	*thr = r.ops_per_sec;
	bench_round_result_free(&r);
	err = bench_vcell_run(&s, &c);
	*virt = c.ops_per_s;
	*xfer = m.same_socket;
	return err;
}

int bench_seed000_check_host(uint64_t seed)
{
	static const char *const profiles[2] = { "v5.17", "v6.0" };
	struct tlbgen_machine m;
	char desc[512];
	int worst = 0;

	if (tlbgen_machine_lookup("host", &m))
		return 1;
	tlbgen_machine_describe(&m, desc, sizeof(desc));
	bench_meta_seed(seed);
	bench_meta_param("mode", json_string("virtual"));
	bench_meta_param("machine", json_string(desc));
	bench_meta_param("ms_per_cell", json_integer(HOST_MS));
	printf("# check against real cachelines: virtual mode on the host model vs threaded mode,\n"
	       "# same per-op work (fault, syscall, zap burnt as busy-waits); %d rounds per row,\n"
	       "# each on a host model measured just before it; each side the median of its rounds\n"
	       "# machine (first measurement) %s\n", HOST_ROUNDS, desc);
	printf("%-8s %-7s %14s %14s %8s %s\n", "profile", "threads", "virtual ops/s",
	       "threaded ops/s", "diff", "  transfer, cycles");
	for (unsigned int t = 1; t <= 2; t++) {
		for (int k = 0; k < 2; k++) {
			double virt[HOST_ROUNDS], thr[HOST_ROUNDS], v, h;
			uint32_t xfer[HOST_ROUNDS], lo = UINT32_MAX, hi = 0;
			json_t *pa = json_pack("{s:s,s:s,s:i,s:s}", "workload", "seed000", "check",
					       "host", "threads", (int)t, "policy", profiles[k]);
			int err = 0;

			for (int r = 0; !err && r < HOST_ROUNDS; r++) {
				err = round_pair(profiles[k], t, seed, &virt[r], &thr[r], &xfer[r]);
				lo = xfer[r] < lo ? xfer[r] : lo;
				hi = xfer[r] > hi ? xfer[r] : hi;
			}
			if (err) {
				fprintf(stderr, "tlbgen-bench: host check: %s\n", strerror(-err));
				json_decref(pa);
				return 1;
			}
			bench_metric_samples("virtual_ops_per_sec", "ops/s", "higher", pa, virt,
					     HOST_ROUNDS);
			bench_metric_samples("threaded_ops_per_sec", "ops/s", "higher", pa, thr,
					     HOST_ROUNDS);
			bench_metric("virtual_median_ops_per_sec", "ops/s", NULL, pa,
				     median_rounds(virt));
			bench_metric("threaded_median_ops_per_sec", "ops/s", NULL, pa,
				     median_rounds(thr));
			bench_metric("transfer_cycles_min", "cycles", NULL, pa, lo);
			bench_metric("transfer_cycles_max", "cycles", NULL, pa, hi);
			bench_metric_get("virtual_median_ops_per_sec", pa, &v);
			bench_metric_get("threaded_median_ops_per_sec", pa, &h);
			printf("%-8s %-7u %14.0f %14.0f %+7.1f%%   %u..%u\n", profiles[k], t, v, h,
			       bench_pct(v, h), lo, hi);
			/* Each round as measured: a placement's transfer cost moves both sides. */
			printf("#   rounds, transfer cycles: virtual/threaded ops/s:");
			for (int r = 0; r < HOST_ROUNDS; r++)
				printf(" %u: %.0f/%.0f", xfer[r], virt[r], thr[r]);
			printf("\n");
			if (bench_pct(v, h) > 25 || bench_pct(v, h) < -25)
				worst = 1;
			json_decref(pa);
		}
	}
	printf("# within +-25%%: %s\n", worst ? "no" : "yes");
	return 0;
}
