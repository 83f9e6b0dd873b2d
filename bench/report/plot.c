// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/report/plot.c - tlbgen-bench's plots: a gnuplot script of panels of
 * series, kept beside the SVG it draws; gnuplot run without a shell, its
 * messages into plot.log.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot.h"
#include "driver/results.h"

#define MAX_PANELS	6
#define MAX_SERIES	64
#define MAX_POINTS	256

extern char **environ;

struct series {
	char title[160];
	unsigned int style, n;
	double x[MAX_POINTS], y[MAX_POINTS], lo[MAX_POINTS], hi[MAX_POINTS];
};

struct panel {
	char title[256], ylabel[64], xlabel[64];
	unsigned int flags, nseries;
	struct series s[MAX_SERIES];
};

struct bench_plot {
	char name[64], title[2048], xlabel[64];
	unsigned int npanel;
	struct panel panel[MAX_PANELS];
};

struct bench_plot *bench_plot_new(const char *name, const char *title, const char *xlabel)
{
	struct bench_plot *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->title, sizeof(p->title), "%s", title);
	snprintf(p->xlabel, sizeof(p->xlabel), "%s", xlabel);
	return p;
}

void bench_plot_free(struct bench_plot *p)
{
	free(p);
}

int bench_plot_panel(struct bench_plot *p, const char *title, const char *ylabel,
		     unsigned int flags)
{
	struct panel *pn;

	if (!p || p->npanel >= MAX_PANELS)
		return -1;
	pn = &p->panel[p->npanel];
	snprintf(pn->title, sizeof(pn->title), "%s", title);
	snprintf(pn->ylabel, sizeof(pn->ylabel), "%s", ylabel);
	pn->flags = flags;
	snprintf(pn->xlabel, sizeof(pn->xlabel), "%s", p->xlabel);
	return (int)p->npanel++;
}

void bench_plot_panel_xlabel(struct bench_plot *p, int panel, const char *xlabel)
{
	if (p && panel >= 0 && (unsigned int)panel < p->npanel)
		snprintf(p->panel[panel].xlabel, sizeof(p->panel[panel].xlabel), "%s", xlabel);
}

int bench_plot_series(struct bench_plot *p, int panel, const char *title, unsigned int style)
{
	struct panel *pn;
	struct series *s;

	if (!p || panel < 0 || (unsigned int)panel >= p->npanel)
		return -1;
	pn = &p->panel[panel];
	if (pn->nseries >= MAX_SERIES)
		return -1;
	s = &pn->s[pn->nseries];
	snprintf(s->title, sizeof(s->title), "%s", title);
	s->style = style;
	return (int)pn->nseries++;
}

void bench_plot_point(struct bench_plot *p, int panel, int series, double x, double y,
		      double lo, double hi)
{
	struct series *s;

	if (!p || panel < 0 || (unsigned int)panel >= p->npanel || series < 0 ||
	    (unsigned int)series >= p->panel[panel].nseries || isnan(y))
		return;
	s = &p->panel[panel].s[series];
	if (s->n >= MAX_POINTS)
		return;
	s->x[s->n] = x;
	s->y[s->n] = y;
	s->lo[s->n] = isnan(lo) ? y : lo;
	s->hi[s->n] = isnan(hi) ? y : hi;
	s->n++;
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The distinct x values of a panel's series, sorted: how many. */
static size_t distinct_x(const struct panel *pn, double *xs, size_t max)
{
	size_t n = 0, k = 0;

	for (unsigned int j = 0; j < pn->nseries; j++)
		for (unsigned int q = 0; q < pn->s[j].n && n < max; q++)
			xs[n++] = pn->s[j].x[q];
	qsort(xs, n, sizeof(*xs), cmp_double);
	for (size_t i = 0; i < n; i++)
		if (!k || xs[i] != xs[k - 1])
			xs[k++] = xs[i];
	return k;
}

static unsigned int drawn_series(const struct panel *pn)
{
	unsigned int n = 0;

	for (unsigned int j = 0; j < pn->nseries; j++)
		n += pn->s[j].n > 0;
	return n;
}

/* The x axis of a panel: tics on its true values, a range around them,
 * and the sideways step between the markers of one x (they spread over a
 * third of the closest two values' gap). */
static double x_axis(FILE *g, const struct panel *pn)
{
	double xs[1024], gap = INFINITY;
	size_t nx = distinct_x(pn, xs, 1024);
	unsigned int n = drawn_series(pn);

	for (size_t i = 1; i < nx; i++)
		gap = fmin(gap, xs[i] - xs[i - 1]);
	if (!isfinite(gap))
		gap = 1;
	fprintf(g, "set xlabel ");
	gp_str(g, pn->xlabel);
	fprintf(g, " noenhanced\nset xrange [%g:%g]\n", xs[0] - gap / 2, xs[nx - 1] + gap / 2);
	if (nx <= 40 && !(pn->flags & BENCH_PLOT_X_AUTO)) {
		fprintf(g, "set xtics (");
		for (size_t i = 0; i < nx; i++)
			fprintf(g, "%s%g", i ? ", " : "", xs[i]);
		fprintf(g, ")\n");
	} else {
		fprintf(g, "set xtics autofreq\n");
	}
	/* On a wide axis of close values (ceilings 30..34 of 0..256) a third
	 * of the gap would not show: at least a hundredth of the span. */
	return n > 1 ? fmax(gap / 3, (xs[nx - 1] - xs[0]) / 100) / (n - 1) : 0;
}

/* The decimals of a change axis' labels: enough that ten tics across its
 * span (the zero line's 0 included, a flat panel's own range) read
 * differently, so changes under 1% are not all labelled +0%. */
static int percent_decimals(const struct panel *pn, double lo, double hi)
{
	double span;
	int d;

	if (pn->flags & BENCH_PLOT_ZERO_LINE) {
		lo = fmin(lo, 0);
		hi = fmax(hi, 0);
	}
	span = hi > lo ? hi - lo : 2 * fmax(1, fabs(hi) * 0.1);
	d = (int)ceil(-log10(span / 10));
	return d < 0 ? 0 : d > 4 ? 4 : d;
}

/* One panel: its axes, then each series' points, offset sideways around
 * the true x. */
static void panel_script(FILE *g, const struct panel *pn)
{
	double lo = INFINITY, hi = -INFINITY, step = x_axis(g, pn);
	unsigned int n = drawn_series(pn), k = 0;
	bool log = false, first = true;
	char t[300];

	for (unsigned int j = 0; j < pn->nseries; j++)
		for (unsigned int q = 0; q < pn->s[j].n; q++) {
			lo = fmin(lo, pn->s[j].lo[q]);
			hi = fmax(hi, pn->s[j].hi[q]);
		}
	log = (pn->flags & BENCH_PLOT_LOG_IF_WIDE) && lo > 0 && hi > 10 * lo;
	snprintf(t, sizeof(t), "%s%s", pn->title, log ? ", log axis" : "");
	fprintf(g, "set title ");
	gp_str(g, t);
	fprintf(g, " noenhanced\nset ylabel ");
	gp_str(g, pn->ylabel);
	fprintf(g, " noenhanced\n%s", log ? "set logscale y\n" : "unset logscale y\n");
	if (pn->flags & BENCH_PLOT_PERCENT)
		fprintf(g, "set format y '%%+.%df%%%%'\n", percent_decimals(pn, lo, hi));
	else if (log || hi >= 10000)
		fprintf(g, "set format y '%s'\n", log ? "%.0s%c" : "%.1s%c");
	else
		fprintf(g, "set format y '%%g'\n");
	/* A flat panel (hi == lo) gets a range of its own: gnuplot warns on an
	 * empty one. */
	if (hi <= lo)
		fprintf(g, "set yrange [%g:%g]\n", lo - fmax(1, fabs(lo) * 0.1),
			hi + fmax(1, fabs(hi) * 0.1));
	else if ((pn->flags & BENCH_PLOT_FROM_ZERO) && !log && lo >= 0)
		fprintf(g, "set yrange [0:*]\n");
	else
		fprintf(g, "set yrange [*:*]\n");
	fprintf(g, "plot ");
	if (pn->flags & BENCH_PLOT_ZERO_LINE) {
		fprintf(g, "0 with lines lc 'black' notitle");
		first = false;
	}
	for (unsigned int j = 0; j < pn->nseries; j++) {
		if (!pn->s[j].n)
			continue;
		fprintf(g, "%s'-' using 1:2:3:4 with yerrorlines lw 2 lt %u pt %u title ",
			first ? "" : ", ", pn->s[j].style + 1, pn->s[j].style % 13 + 1);
		gp_str(g, pn->s[j].title);
		first = false;
	}
	fputc('\n', g);
	for (unsigned int j = 0; j < pn->nseries; j++) {
		double off = ((double)k - (n - 1) / 2.0) * step;

		if (!pn->s[j].n)
			continue;
		for (unsigned int q = 0; q < pn->s[j].n; q++)
			fprintf(g, "%.6g %.6g %.6g %.6g\n", pn->s[j].x[q] + off, pn->s[j].y[q],
				pn->s[j].lo[q], pn->s[j].hi[q]);
		fprintf(g, "e\n");
		k++;
	}
}

static void script(FILE *g, const struct bench_plot *p, const char *svg)
{
	unsigned int panels = 0;

	for (unsigned int i = 0; i < p->npanel; i++)
		panels += drawn_series(&p->panel[i]) > 0;
	fprintf(g, "set terminal svg size 900,%u dynamic enhanced font 'sans,12'\nset output ",
		panels > 1 ? 450 * panels : 500);
	gp_str(g, svg);
	fprintf(g, "\nset multiplot layout %u,1 title ", panels);
	gp_str(g, p->title);
	fprintf(g, " noenhanced\nset grid\nset key outside below center horizontal noenhanced\n"
		"set offsets 0, 0, graph 0.05, graph 0.05\n");
	for (unsigned int i = 0; i < p->npanel; i++)
		if (drawn_series(&p->panel[i]))
			panel_script(g, &p->panel[i]);
	fprintf(g, "unset multiplot\n");
}

static bool have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* gnuplot SCRIPT, without a shell, its output and messages appended to
 * `log`: its exit status, or -errno. */
static int run_gnuplot(const char *gp, const char *log)
{
	char *argv[] = { (char *)"gnuplot", (char *)gp, NULL };
	posix_spawn_file_actions_t fa;
	int err, status;
	pid_t pid;

	if (posix_spawn_file_actions_init(&fa))
		return -ENOMEM;
	err = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log,
					       O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (!err)
		err = posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
	if (!err)
		err = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err)
		return -err;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* DIR/name into buf: DIR the results directory, else the directory of `beside`. */
static void path_in_dir(char *buf, size_t len, const char *beside, const char *name)
{
	const char *slash = beside ? strrchr(beside, '/') : NULL;

	if (bench_results_path(buf, len, name))
		return;
	if (slash)
		snprintf(buf, len, "%.*s/%s", (int)(slash - beside), beside, name);
	else
		snprintf(buf, len, "%s", name);
}

int bench_plot_draw(const struct bench_plot *p, const char *svg, char *written, size_t len)
{
	char svg_buf[4096], gp[4096], log[4096], file[96];
	struct stat st;
	unsigned int panels = 0;
	FILE *g;
	int rc;

	if (written && len)
		written[0] = 0;
	for (unsigned int i = 0; i < p->npanel; i++)
		panels += drawn_series(&p->panel[i]) > 0;
	snprintf(file, sizeof(file), "%s.svg", p->name);
	if (!svg && !bench_results_path(svg_buf, sizeof(svg_buf), file))
		return 0;
	if (!svg)
		svg = svg_buf;
	if (!panels)
		return 0;
	snprintf(file, sizeof(file), "%s.gp", p->name);
	path_in_dir(gp, sizeof(gp), svg, file);
	path_in_dir(log, sizeof(log), svg, "plot.log");
	g = fopen(gp, "w");
	if (!g) {
		fprintf(stderr, "tlbgen-bench: plot: %s: %s\n", gp, strerror(errno));
		return 1;
	}
	script(g, p, svg);
	if (fclose(g)) {
		fprintf(stderr, "tlbgen-bench: plot: %s: %s\n", gp, strerror(errno));
		return 1;
	}
	if (!have_gnuplot()) {
		printf("plot: skipped, gnuplot not found (Debian: apt-get install gnuplot-nox); "
		       "its script: %s\n", gp);
		return 0;
	}
	rc = run_gnuplot(gp, log);
	if (!stat(log, &st) && st.st_size == 0)
		unlink(log);
	if (rc) {
		fprintf(stderr, "tlbgen-bench: plot: gnuplot failed (%s %d); its messages: %s\n",
			rc < 0 ? "error" : "status", rc < 0 ? -rc : rc, log);
		return 1;
	}
	printf("plot: %s\n", svg);
	if (written && len)
		snprintf(written, len, "%s", svg);
	return 0;
}
