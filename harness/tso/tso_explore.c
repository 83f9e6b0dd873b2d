// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * harness/tso/tso_explore.c - the searches of the memory-model explorer over
 * the scenarios of tso_scen.c: bounded-exhaustive, random, replay and
 * minimisation (see tso_explore.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tso_run.h"

/* ---- searches ------------------------------------------------------------------------------ */

static struct txrun *run_new(const struct txcfg *cfg, struct txresult *res)
{
	struct txrun *r;

	memset(res, 0, sizeof(*res));
	if (!tx_scen_find(cfg->scenario)) {
		snprintf(res->msg, sizeof(res->msg), "no scenario '%s'", cfg->scenario);
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r) {
		r->cfg = cfg;
		r->scen = tx_scen_find(cfg->scenario);
	} else {
		snprintf(res->msg, sizeof(res->msg), "out of memory");
	}
	return r;
}

static void keep_devs(const struct txrun *r, struct txresult *res)
{
	res->ndevs = 0;
	for (unsigned int i = 0; i < r->npoints && res->ndevs < TX_MAX_DEVS; i++)
		if (r->c[i])
			res->devs[res->ndevs++] = (struct txdev){ i, r->c[i] };
	snprintf(res->msg, sizeof(res->msg), "%s", r->msg);
}

static int account(struct txrun *r, int ret, struct txresult *res)
{
	if (ret < 0) {
		/* The execution that could not run, for the report. */
		keep_devs(r, res);
		return ret;
	}
	res->executions++;
	res->horizon |= r->horizon;
	if (r->npoints > res->max_points)
		res->max_points = r->npoints;
	if (ret > 0) {
		res->failed = true;
		keep_devs(r, res);
	}
	return 0;
}

int tx_exhaustive(const struct txcfg *cfg, unsigned int bound, struct txresult *res)
{
	struct txrun *r = run_new(cfg, res);
	uint16_t *prefix = calloc(TX_MAX_POINTS, sizeof(*prefix));
	size_t np = 0;
	int err = 0;

	if (!r || !prefix) {
		free(r);
		free(prefix);
		return r ? -ENOMEM : -EINVAL;
	}
	for (;;) {
		unsigned int used = 0;
		long back = -1;

		r->plan = PLAN_PREFIX;
		r->prefix = prefix;
		r->nprefix = np;
		err = account(r, tx_exec(r), res);
		if (err || res->failed)
			break;
		/* Deepest point that can take its next option within the bound;
		 * an option the bound forbids is what "bound reached" means. */
		for (unsigned int i = 0; i < r->npoints; i++) {
			if (r->c[i] + 1 < r->n[i]) {
				if (used + 1 <= bound)
					back = i;
				else
					res->bound_reached = true;
			}
			used += r->c[i] != 0;
		}
		if (back < 0) {
			res->exhausted = !res->horizon;
			break;
		}
		if (cfg->max_executions && res->executions >= cfg->max_executions) {
			res->limit = true;
			break;
		}
		memcpy(prefix, r->c, (size_t)back * sizeof(*prefix));
		prefix[back] = r->c[back] + 1;
		np = (size_t)back + 1;
	}
	free(prefix);
	free(r);
	return err;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int tx_random(const struct txcfg *cfg, uint64_t first, uint64_t seeds, uint64_t seconds,
	      struct txresult *res)
{
	struct txcfg c = *cfg;
	struct txrun *r = run_new(&c, res);
	double t0 = now_s();
	int err = 0;

	if (!r)
		return -EINVAL;
	for (uint64_t s = first; s - first < seeds; s++) {
		if (seconds && now_s() - t0 > (double)seconds)
			break;
		c.seed = s;
		r->plan = PLAN_RANDOM;
		r->rng = s;
		err = account(r, tx_exec(r), res);
		if (err)
			break;
		if (res->failed) {
			res->seed = s;
			break;
		}
	}
	free(r);
	return err;
}

int tx_replay(const struct txcfg *cfg, const struct txdev *devs, size_t n, struct txresult *res)
{
	struct txrun *r = run_new(cfg, res);
	int err;

	if (!r)
		return -EINVAL;
	r->plan = PLAN_SPARSE;
	r->devs = devs;
	r->ndevs = n;
	err = account(r, tx_exec(r), res);
	free(r);
	return err;
}

/* Without devs[i .. i + k): does it still fail? If so, keep it that way. */
static bool try_drop(const struct txcfg *cfg, struct txdev *devs, size_t *n, size_t i, size_t k)
{
	struct txdev *t = malloc(*n * sizeof(*t));
	struct txresult res;
	bool ok;

	if (!t)
		return false;
	memcpy(t, devs, i * sizeof(*t));
	memcpy(t + i, devs + i + k, (*n - i - k) * sizeof(*t));
	ok = !tx_replay(cfg, t, *n - k, &res) && res.failed;
	if (ok) {
		memcpy(devs, t, (*n - k) * sizeof(*t));
		*n -= k;
	}
	free(t);
	return ok;
}

size_t tx_minimise(const struct txcfg *cfg, struct txdev *devs, size_t n)
{
	bool changed = true;

	/* Single deviations, last first (the earlier points stay put), then
	 * adjacent pairs (a preemption and the switch back), until stable. */
	while (changed) {
		changed = false;
		for (size_t i = n; i-- > 0;)
			changed |= try_drop(cfg, devs, &n, i, 1);
		for (size_t i = n > 1 ? n - 1 : 0; i-- > 0;)
			if (i + 2 <= n)
				changed |= try_drop(cfg, devs, &n, i, 2);
	}
	return n;
}

int tx_parse_devs(const char *s, struct txdev *devs, size_t max, size_t *n)
{
	*n = 0;
	while (s && *s) {
		char *end;
		unsigned long p, k;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		p = strtoul(s, &end, 10);
		if (*end != ':' || end[1] < '0' || end[1] > '9' || p >= TX_MAX_POINTS)
			return -EINVAL;
		k = strtoul(end + 1, &end, 10);
		if ((*end && *end != ',') || !k || k > 64 || *n == max)
			return -EINVAL;
		devs[(*n)++] = (struct txdev){ (uint32_t)p, (uint16_t)k };
		s = *end ? end + 1 : end;
	}
	return 0;
}
