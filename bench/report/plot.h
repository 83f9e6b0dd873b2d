/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/report/plot.h - the plots of tlbgen-bench (bench/report/plot.c): panels of series
 * over a numeric x (task counts), drawn by gnuplot into an SVG. The
 * threaded, stepped and virtual reports fill one from results.json.
 *
 * A panel with no point is left out (a one-policy run has no change to
 * draw). Series sharing an x value are offset a little sideways, so that
 * no marker hides another; the x tics stay on the true values. The gnuplot
 * script is kept beside the SVG (DIR/NAME.gp, DIR the results directory,
 * or the SVG's own when the run keeps none), and gnuplot's messages go to
 * DIR/plot.log (removed when empty), never to the user's terminal.
 */
#ifndef TLBGEN_BENCH_PLOT_H
#define TLBGEN_BENCH_PLOT_H

#include <stdbool.h>
#include <stddef.h>

struct bench_plot;

/* Panel flags. */
#define BENCH_PLOT_LOG_IF_WIDE	(1U << 0)	/* log y axis when max > 10 * min > 0 */
#define BENCH_PLOT_PERCENT	(1U << 1)	/* y tics as +N% */
#define BENCH_PLOT_ZERO_LINE	(1U << 2)	/* a black line at y = 0 */
#define BENCH_PLOT_FROM_ZERO	(1U << 3)	/* y from 0 (linear axis) */
#define BENCH_PLOT_X_AUTO	(1U << 4)	/* x tics gnuplot's own (many close x values) */

/* A plot named `name` (the SVG's and script's stem, e.g. "throughput"),
 * its title (may hold newlines) and x axis label. NULL when out of memory. */
struct bench_plot *bench_plot_new(const char *name, const char *title, const char *xlabel);
void bench_plot_free(struct bench_plot *p);
/* Add a panel below the others: its index, or -1 (at most 6). */
int bench_plot_panel(struct bench_plot *p, const char *title, const char *ylabel,
		     unsigned int flags);
/* The x axis label of one panel (default: the plot's). */
void bench_plot_panel_xlabel(struct bench_plot *p, int panel, const char *xlabel);
/* Add a series to a panel: its index, or -1. `style` picks its colour and
 * marker: the same style in two panels is the same thing plotted twice. */
int bench_plot_series(struct bench_plot *p, int panel, const char *title, unsigned int style);
/* A point of a series; lo and hi NAN: no bar. A NAN y is left out. */
void bench_plot_point(struct bench_plot *p, int panel, int series, double x, double y,
		      double lo, double hi);

/*
 * Write the script and, when gnuplot is installed, draw the SVG at `svg`
 * (NULL: NAME.svg in the results directory; no directory and no `svg`:
 * nothing is done). A line on stdout says where the plot is, or that
 * gnuplot was not found. Returns 0, or 1 after a message on stderr (the
 * script could not be written, or gnuplot failed: its messages are in
 * plot.log). `written` (may be NULL) gets the SVG's path when drawn.
 */
int bench_plot_draw(const struct bench_plot *p, const char *svg, char *written, size_t len);

#endif
