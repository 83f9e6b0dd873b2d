// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/report-threaded-plot.c - a threaded run's plot: ops/s per policy and
 * task count, and the change against the first policy (gnuplot, SVG).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "results.h"
#include "report-threaded-plot.h"

/* A cell's figures, read back from results.json (report-threaded-out.c). */
static void cell_fig(struct cmp *c, int m, unsigned int t, unsigned int p, double *mean,
		     double *min, double *max, double *chg, double *lo, double *hi)
{
	json_t *pa = json_pack("{s:s,s:s,s:i,s:s}", "workload", c->name, "mode", mode_name(m),
			       "tasks", (int)c->tasks[t], "policy", c->pol[p].label);
	double v[MAX_ROUNDS];
	size_t n = bench_metric_samples_get("ops_per_sec", pa, v, MAX_ROUNDS);

	bench_metric_get("ops_per_sec", pa, mean);
	*min = *max = n ? v[0] : NAN;
	for (size_t i = 1; i < n; i++) {
		*min = v[i] < *min ? v[i] : *min;
		*max = v[i] > *max ? v[i] : *max;
	}
	bench_metric_get("change_pct", pa, chg);
	bench_metric_get("change_ci95_low_pct", pa, lo);
	bench_metric_get("change_ci95_high_pct", pa, hi);
	json_decref(pa);
}

static bool have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* A gnuplot double-quoted string: any label or path is safe in it. */
static void gp_str(FILE *g, const char *s)
{
	fputc('"', g);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', g);
		if (*s == '\n')
			fputs("\\n", g);
		else
			fputc(*s, g);
	}
	fputc('"', g);
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "r"), *out = in ? fopen(to, "w") : NULL;
	char buf[65536];
	size_t n;
	int err = 0;

	if (!in || !out)
		err = -errno;
	while (!err && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			err = -EIO;
	if (in)
		fclose(in);
	if (out && fclose(out) && !err)
		err = -EIO;
	return err;
}

/* The plot's caption: what ran where. */
static void caption(char *buf, size_t len)
{
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;
	char date[32];

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", &tm);
	if (uname(&u))
		snprintf(u.nodename, sizeof(u.nodename), "?");
	snprintf(buf, len, "host %s, kernel %s %s, %ld CPUs; %s; %s", u.nodename, u.release,
		 u.machine, sysconf(_SC_NPROCESSORS_ONLN), bench_version(), date);
}

/* The gnuplot script: absolute ops/s (log axis when the range is wide) with
 * min..max bars, and below it the change against the baseline policy with
 * its 95% confidence interval. */
static void plot_script(struct cmp *c, FILE *g, const char *svg_tmp)
{
	double lo = INFINITY, hi = 0;
	char cap[1024];
	bool first = true;

	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				double mean, mn, mx, chg, cl, ch;

				cell_fig(c, m, t, p, &mean, &mn, &mx, &chg, &cl, &ch);
				lo = mn > 0 && mn < lo ? mn : lo;
				hi = mx > hi ? mx : hi;
			}
	caption(cap, sizeof(cap));
	fprintf(g, "set terminal svg size 900,900 dynamic enhanced font 'sans,12'\nset output ");
	gp_str(g, svg_tmp);
	fprintf(g, "\nset multiplot layout 2,1 title ");
	{
		char title[2048];

		snprintf(title, sizeof(title), "%s (%s), %u rounds of %u ms\n%s", c->name,
			 c->ops->desc, c->rounds, c->duration_ms, cap);
		gp_str(g, title);
	}
	fprintf(g, " noenhanced\nset grid\nset key outside below center horizontal noenhanced\n"
		"set xtics 1\n"
		"set offsets graph 0.03, graph 0.03\nset xlabel 'tasks'\n");
	/* Panel 1: absolute. */
	fprintf(g, "set title 'ops/s: mean of the rounds, bars min..max%s'\n",
		hi > 10 * lo ? ", log axis" : "");
	if (hi > 10 * lo)
		fprintf(g, "set logscale y\nset format y '%%.0s%%c'\n");
	else
		fprintf(g, "set yrange [0:*]\nset format y '%%.1s%%c'\n");
	fprintf(g, "set ylabel 'ops/s'\nplot ");
	for (int m = 0; m < 2; m++)
		for (unsigned int p = 0; c->modes[m] && p < c->npol; p++) {
			/* One line type per series, the same in both panels. */
			fprintf(g, "%s'-' using 1:2:3:4 with yerrorlines lw 2 lt %u title ",
				first ? "" : ", ", m * c->npol + p + 1);
			{
				char t[256];

				snprintf(t, sizeof(t), "%s %s", c->pol[p].label, mode_name(m));
				gp_str(g, t);
			}
			first = false;
		}
	fputc('\n', g);
	for (int m = 0; m < 2; m++)
		for (unsigned int p = 0; c->modes[m] && p < c->npol; p++) {
			for (unsigned int t = 0; t < c->ntasks; t++) {
				double mean, mn, mx, chg, cl, ch;

				cell_fig(c, m, t, p, &mean, &mn, &mx, &chg, &cl, &ch);
				fprintf(g, "%u %.1f %.1f %.1f\n", c->tasks[t], mean, mn, mx);
			}
			fprintf(g, "e\n");
		}
	/* Panel 2: relative to the baseline. */
	fprintf(g, "unset logscale y\nset yrange [*:*]\nset format y '%%+.0f%%%%'\n"
		"set ylabel 'change vs baseline'\nset title ");
	{
		char t[256];

		snprintf(t, sizeof(t), "change of the mean vs %s, bars: 95%% CI (Welch)",
			 c->pol[0].label);
		gp_str(g, t);
	}
	fprintf(g, " noenhanced\nplot 0 with lines lc 'black' notitle");
	for (int m = 0; m < 2; m++)
		for (unsigned int p = 1; c->modes[m] && p < c->npol; p++) {
			char t[256];

			snprintf(t, sizeof(t), "%s %s", c->pol[p].label, mode_name(m));
			fprintf(g, ", '-' using 1:2:3:4 with yerrorlines lw 2 lt %u title ",
				m * c->npol + p + 1);
			gp_str(g, t);
		}
	fputc('\n', g);
	for (int m = 0; m < 2; m++)
		for (unsigned int p = 1; c->modes[m] && p < c->npol; p++) {
			for (unsigned int t = 0; t < c->ntasks; t++) {
				double mean, mn, mx, chg, cl, ch;

				cell_fig(c, m, t, p, &mean, &mn, &mx, &chg, &cl, &ch);
				fprintf(g, "%u %.3f %.3f %.3f\n", c->tasks[t], chg, isnan(cl) ? chg : cl,
					isnan(ch) ? chg : ch);
			}
			fprintf(g, "e\n");
		}
	fprintf(g, "unset multiplot\n");
}

int cmp_plot(struct cmp *c)
{
	char gp[64], svg[64], cmd[256];
	int fd_gp, fd_svg, rc, ret = 0;
	FILE *g;

	if (c->no_plot || !c->svg)
		return 0;
	if (!have_gnuplot()) {
		printf("plot: skipped, gnuplot not found (Debian: apt-get install gnuplot-nox)\n");
		return 0;
	}
	/* gnuplot sees only these names, of our making; the output name,
	 * whatever its characters, is written by us. */
	snprintf(gp, sizeof(gp), "/tmp/tlbgen-plot-XXXXXX");
	snprintf(svg, sizeof(svg), "/tmp/tlbgen-svg-XXXXXX");
	fd_gp = mkstemp(gp);
	fd_svg = fd_gp >= 0 ? mkstemp(svg) : -1;
	if (fd_gp < 0 || fd_svg < 0 || !(g = fdopen(fd_gp, "w"))) {
		fprintf(stderr, "tlbgen-bench: plot: cannot create a temporary file: %s\n",
			strerror(errno));
		if (fd_gp >= 0) {
			close(fd_gp);
			unlink(gp);
		}
		return 1;
	}
	close(fd_svg);
	plot_script(c, g, svg);
	fclose(g);
	snprintf(cmd, sizeof(cmd), "gnuplot %s", gp);
	rc = system(cmd);
	if (rc != 0) {
		fprintf(stderr, "tlbgen-bench: plot: gnuplot failed (status %d); no plot written\n",
			rc);
		ret = 1;
	} else if ((rc = copy_file(svg, c->svg))) {
		fprintf(stderr, "tlbgen-bench: plot: %s: %s\n", c->svg, strerror(-rc));
		ret = 1;
	} else {
		snprintf(c->svg_written, sizeof(c->svg_written), "%s", c->svg);
		printf("plot: %s\n", c->svg);
	}
	unlink(gp);
	unlink(svg);
	return ret;
}
