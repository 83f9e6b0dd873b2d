// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/compare-report.c - what a comparison run prints: will-it-scale
 * text, the comparison table, counters, CSV, LKP lines, the MESI account,
 * and the JSON and SVG files.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"

void cmp_print_wis(struct cmp *c)
{
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);

				printf("## will-it-scale: %s_%s, %u task%s, policy %s\n", c->wl->name,
				       mode_name(m), c->tasks[t], c->tasks[t] > 1 ? "s" : "",
				       c->pol[p].label);
				if (!c->quiet)
					for (unsigned int s = 0; s < x->wis.nr_samples; s++)
						printf("min:%llu max:%llu total:%llu\n",
						       (unsigned long long)x->wis.smin[s],
						       (unsigned long long)x->wis.smax[s],
						       (unsigned long long)x->wis.stotal[s]);
				printf("average:%llu\n", (unsigned long long)llround(x->mean));
			}
	putchar('\n');
}

void cmp_print_table(struct cmp *c)
{
	printf("## ops/s over %u interleaved rounds of %u ms (change: mean vs %s; p: Welch's t-test)\n",
	       c->rounds, c->duration_ms, c->pol[0].label);
	printf("%-9s %5s  %-32s %12s %12s %12s %9s %8s\n", "mode", "tasks", "policy", "min",
	       "median", "max", "change", "p");
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);
				char ch[32] = "", pv[32] = "";

				if (p) {
					snprintf(ch, sizeof(ch), "%+.1f%%", x->change);
					if (isnan(x->p))
						snprintf(pv, sizeof(pv), "n/a");
					else
						snprintf(pv, sizeof(pv), "%.3f%s", x->p,
							 x->p < 0.01 ? " **" : x->p < 0.05 ? " *" : "");
				}
				printf("%-9s %5u  %-32s %12.0f %12.0f %12.0f %9s %8s\n",
				       mode_name(m), c->tasks[t], c->pol[p].label, x->min, x->med,
				       x->max, ch, pv);
			}
	putchar('\n');
}

void cmp_print_counters(struct cmp *c)
{
	printf("## counters per flush (timed rounds, no oracle; rd/rftf and viol from the traced\n"
	       "## accounting pass, which runs with the oracle)\n");
	printf("%-9s %5s  %-32s %9s %8s %8s %8s %8s %8s %8s %8s %8s %7s %7s %5s\n", "mode",
	       "tasks", "policy", "flushes", "rd/fl", "rd/ftf", "rd/rftf", "skip/fl", "ipi/fl",
	       "sk_lazy", "sk_nold", "sk_ntrm", "full", "part", "viol");
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);
				const uint64_t *s = x->stats;
				uint64_t fl = s[TLBGEN_STAT_FLUSH_INITIATED];
				char rr[32] = "-";

				if (x->acct_done && x->acct_stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE])
					snprintf(rr, sizeof(rr), "%.3f",
						 per(x->remote_reads,
						     x->acct_stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE]));
				printf("%-9s %5u  %-32s %9llu %8.3f %8.3f %8s %8.3f %8.3f %8.3f %8.3f "
				       "%8.3f %7.3f %7.3f %5ld\n",
				       mode_name(m), c->tasks[t], c->pol[p].label,
				       (unsigned long long)fl, per(s[TLBGEN_STAT_TLB_GEN_READ], fl),
				       per(s[TLBGEN_STAT_TLB_GEN_READ], s[TLBGEN_STAT_FLUSH_FUNC]), rr,
				       per(s[TLBGEN_STAT_EARLY_SKIP], fl),
				       per(s[TLBGEN_STAT_IPI_SENT], fl),
				       per(s[TLBGEN_STAT_IPI_SKIP_LAZY], fl),
				       per(s[TLBGEN_STAT_IPI_SKIP_NOT_LOADED], fl),
				       per(s[TLBGEN_STAT_IPI_SKIP_NOT_TRIMMED], fl),
				       per(s[TLBGEN_STAT_FULL_FLUSH], fl),
				       per(s[TLBGEN_STAT_PARTIAL_FLUSH], fl), x->violations);
			}
	printf("  rd/fl: mm tlb_gen reads per flush; rd/ftf: per flush_tlb_func; rd/rftf: per\n"
	       "  remote flush_tlb_func; skip/fl: early skips (aa44284960); ipi/fl: IPIs sent;\n"
	       "  sk_*: IPIs skipped (lazy, mm not loaded, trim not due); full/part: flushes\n"
	       "  done by flush_tlb_func; viol: stale-TLB oracle violations (accounting pass).\n");
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);
				uint64_t ops;

				if (!x->hw_ok)
					continue;
				ops = (uint64_t)(x->mean * c->duration_ms / 1000.0 * x->nr);
				printf("  hw %s %u %s: cycles/op %.0f instructions/op %.0f "
				       "cache-misses/op %.2f\n", mode_name(m), c->tasks[t],
				       c->pol[p].label, per(x->hw[0], ops), per(x->hw[1], ops),
				       per(x->hw[2], ops));
			}
	putchar('\n');
}

void cmp_print_csv(struct cmp *c, FILE *f)
{
	for (unsigned int p = 0; p < c->npol; p++) {
		double lin1 = 0;

		fprintf(f, "# %s, policy %s\n", c->wl->name, c->pol[p].label);
		fprintf(f, "tasks,processes,processes_idle,threads,threads_idle,linear\n");
		for (int m = 0; m < 2; m++)
			if (c->modes[m] && cell(c, m, 0, p)->mean > lin1)
				lin1 = cell(c, m, 0, p)->mean / c->tasks[0];
		for (unsigned int t = 0; t < c->ntasks; t++) {
			struct cell *th = cell(c, 0, t, p), *pr = cell(c, 1, t, p);

			fprintf(f, "%u,%.0f,%.2f,%.0f,%.2f,%.0f\n", c->tasks[t],
				c->modes[1] ? pr->mean : 0,
				c->modes[1] && pr->nr ? pr->idle_sum / pr->nr : 0,
				c->modes[0] ? th->mean : 0,
				c->modes[0] && th->nr ? th->idle_sum / th->nr : 0,
				lin1 * c->tasks[t]);
		}
	}
}

void cmp_print_lkp(struct cmp *c)
{
	printf("## LKP-style\n");
	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				struct cell *x = cell(c, m, t, p);
				const uint64_t *s = x->stats;
				uint64_t fl = s[TLBGEN_STAT_FLUSH_INITIATED];
				char k[256];

				snprintf(k, sizeof(k), "%s.%s.%s.%u", c->wl->name, c->pol[p].label,
					 mode_name(m), c->tasks[t]);
				printf("%s.workload: %.0f\n", k, x->mean);
				printf("%s.per_%s_ops: %.0f\n", k, m ? "process" : "thread",
				       x->mean / c->tasks[t]);
				printf("%s.change_pct: %.2f\n", k, x->change);
				printf("%s.tlb_gen_reads_per_flush: %.4f\n", k,
				       per(s[TLBGEN_STAT_TLB_GEN_READ], fl));
				printf("%s.ipi_sent_per_flush: %.4f\n", k,
				       per(s[TLBGEN_STAT_IPI_SENT], fl));
			}
	putchar('\n');
}

void cmp_print_mesi(struct cmp *c)
{
	if (!c->nmesi)
		return;
	printf("## coherence account: MESI model, stepped mode, %s_threads, %u emulated CPUs, "
	       "%llu ops, seed %llu (no PMU needed)\n", c->wl->name, c->mesi_cpus,
	       (unsigned long long)c->mesi_ops, (unsigned long long)c->seed);
	printf("%-34s %8s %10s %10s %8s %8s %8s %8s %8s\n", "policy", "flushes", "xfer/flush",
	       "tlbgen/fl", "E/M->S", "S->M", "own->M", "rd/rftf", "viol");
	for (unsigned int p = 0; p < c->nmesi; p++) {
		struct bench_mesi_result *r = &c->mesi[p];

		printf("%-34s %8llu %10.3f %10.3f %8.3f %8.3f %8.3f %8.3f %8ld\n",
		       c->mesi_pol[p].label, (unsigned long long)r->flushes,
		       per(r->transfers, r->flushes),
		       per(r->line_transfers[TLBGEN_LINE_MM_TLB_GEN], r->flushes),
		       per(r->tlb_gen.downgrades + r->tlb_gen.shared_reads, r->flushes),
		       per(r->tlb_gen.upgrades, r->flushes), per(r->tlb_gen.ownership, r->flushes),
		       per(r->remote_reads, r->stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE]),
		       r->violations);
	}
	printf("  xfer/flush: cacheline transfers per flush, every shared line; tlbgen/fl: on\n"
	       "  the mm's tlb_gen line; E/M->S: its read misses (the IPI handler's read),\n"
	       "  S->M: upgrades by inc_mm_tlb_gen, own->M: write misses; rd/rftf: tlb_gen\n"
	       "  reads per remote flush_tlb_func. Per line kind, transfers per flush:\n");
	for (unsigned int p = 0; p < c->nmesi; p++) {
		printf("  %-32s", c->mesi_pol[p].label);
		for (int k = 0; k < TLBGEN_LINE_NR; k++)
			printf(" %s=%.2f", tlbgen_line_name((enum tlbgen_line)k),
			       per(c->mesi[p].line_transfers[k], c->mesi[p].flushes));
		putchar('\n');
	}
	/* The reading seed 000 is about: fewer reads, same line traffic? */
	for (unsigned int p = 1; p < c->nmesi; p++) {
		struct bench_mesi_result *a = &c->mesi[0], *b = &c->mesi[p];
		double ra = per(a->remote_reads, a->stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE]);
		double rb = per(b->remote_reads, b->stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE]);
		double ta = per(a->line_transfers[TLBGEN_LINE_MM_TLB_GEN], a->flushes);
		double tb = per(b->line_transfers[TLBGEN_LINE_MM_TLB_GEN], b->flushes);

		printf("  %s vs %s: tlb_gen reads per remote flush_tlb_func %.3f -> %.3f "
		       "(%+.0f%%), tlb_gen transfers per flush %.3f -> %.3f (%+.0f%%)\n",
		       c->mesi_pol[p].label, c->mesi_pol[0].label, ra, rb,
		       ra > 0 ? 100 * (rb / ra - 1) : 0, ta, tb, ta > 0 ? 100 * (tb / ta - 1) : 0);
	}
	putchar('\n');
}

/* One entry of "results": a (mode, tasks, policy) cell. */
static void json_cell(FILE *f, struct cmp *c, int m, unsigned int t, unsigned int p,
		      bool first)
{
	struct cell *x = cell(c, m, t, p);

	fprintf(f, "%s\n    {\"mode\": \"%s\", \"tasks\": %u, \"policy\": ",
		first ? "" : ",", mode_name(m), c->tasks[t]);
	bench_json_str(f, c->pol[p].label);
	fprintf(f, ",\n     \"ops_per_sec\": [");
	for (unsigned int r = 0; r < x->nr; r++)
		fprintf(f, "%s%.1f", r ? ", " : "", x->ops[r]);
	fprintf(f, "],\n     \"min\": %.1f, \"median\": %.1f, \"max\": %.1f, "
		"\"mean\": %.1f, \"sd\": %.1f, \"change_pct\": %.3f, ",
		x->min, x->med, x->max, x->mean, x->sd, x->change);
	if (isnan(x->p))
		fprintf(f, "\"welch_p\": null, ");
	else
		fprintf(f, "\"welch_p\": %.6g, ", x->p);
	fprintf(f, "\"idle_pct\": %.2f, \"violations\": %ld,\n     \"samples\": [",
		x->nr ? x->idle_sum / x->nr : 0, x->violations);
	for (unsigned int s = 0; s < x->wis.nr_samples; s++)
		fprintf(f, "%s{\"min\": %llu, \"max\": %llu, \"total\": %llu}",
			s ? ", " : "", (unsigned long long)x->wis.smin[s],
			(unsigned long long)x->wis.smax[s],
			(unsigned long long)x->wis.stotal[s]);
	fprintf(f, "],\n     \"counters\": {");
	for (int i = 0; i < TLBGEN_STAT_NR; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "",
			tlbgen_stat_name((enum tlbgen_stat)i),
			(unsigned long long)x->stats[i]);
	fprintf(f, "},\n     \"accounting\": {\"done\": %s, \"remote_tlb_gen_reads\": "
		"%llu, \"local_tlb_gen_reads\": %llu, \"counters\": {",
		x->acct_done ? "true" : "false",
		(unsigned long long)x->remote_reads,
		(unsigned long long)x->local_reads);
	for (int i = 0; i < TLBGEN_STAT_NR; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "",
			tlbgen_stat_name((enum tlbgen_stat)i),
			(unsigned long long)x->acct_stats[i]);
	fprintf(f, "}},\n     \"hw\": ");
	if (x->hw_ok) {
		fprintf(f, "{");
		for (int i = 0; i < BENCH_HW_NR; i++)
			fprintf(f, "%s\"%s\": %llu", i ? ", " : "",
				bench_hw_names[i],
				(unsigned long long)x->hw[i]);
		fprintf(f, "}");
	} else {
		fprintf(f, "null");
	}
	fprintf(f, "}");
}

/* The "columns" of "mesi": one per policy of the MESI account. */
static void json_mesi(FILE *f, struct cmp *c)
{
	for (unsigned int p = 0; p < c->nmesi; p++) {
		struct bench_mesi_result *r = &c->mesi[p];

		fprintf(f, "%s\n    {\"policy\": ", p ? "," : "");
		bench_json_str(f, c->mesi_pol[p].label);
		fprintf(f, ", \"ops\": %llu, \"flushes\": %llu, \"transfers\": %llu, "
			"\"remote_tlb_gen_reads\": %llu, \"local_tlb_gen_reads\": %llu, "
			"\"violations\": %ld,\n     \"transfers_per_line\": {",
			(unsigned long long)r->ops, (unsigned long long)r->flushes,
			(unsigned long long)r->transfers, (unsigned long long)r->remote_reads,
			(unsigned long long)r->local_reads, r->violations);
		for (int k = 0; k < TLBGEN_LINE_NR; k++)
			fprintf(f, "%s\"%s\": %llu", k ? ", " : "",
				tlbgen_line_name((enum tlbgen_line)k),
				(unsigned long long)r->line_transfers[k]);
		fprintf(f, "},\n     \"tlb_gen_line\": {\"accesses\": %llu, \"transfers\": %llu, "
			"\"downgrades\": %llu, \"shared_reads\": %llu, \"upgrades\": %llu, "
			"\"ownership\": %llu, \"invalidations\": %llu, \"cold_misses\": %llu},\n"
			"     \"counters\": {",
			(unsigned long long)r->tlb_gen.accesses,
			(unsigned long long)r->tlb_gen.transfers,
			(unsigned long long)r->tlb_gen.downgrades,
			(unsigned long long)r->tlb_gen.shared_reads,
			(unsigned long long)r->tlb_gen.upgrades,
			(unsigned long long)r->tlb_gen.ownership,
			(unsigned long long)r->tlb_gen.invalidations,
			(unsigned long long)r->tlb_gen.cold_misses);
		for (int i = 0; i < TLBGEN_STAT_NR; i++)
			fprintf(f, "%s\"%s\": %llu", i ? ", " : "",
				tlbgen_stat_name((enum tlbgen_stat)i),
				(unsigned long long)r->stats[i]);
		fprintf(f, "}}");
	}
}

void cmp_write_json(struct cmp *c)
{
	FILE *f = fopen(c->json, "w");

	if (!f) {
		fprintf(stderr, "tlbgen-bench: %s: %s\n", c->json, strerror(errno));
		return;
	}
	fprintf(f, "{\n  \"workload\": ");
	bench_json_str(f, c->wl->name);
	fprintf(f, ",\n  \"description\": ");
	bench_json_str(f, c->wl->desc);
	fprintf(f, ",\n  \"rounds\": %u, \"duration_ms\": %u, \"sample_ms\": %u, "
		"\"cpus_allowed\": %d,\n  \"policies\": [", c->rounds, c->duration_ms,
		c->sample_ms, c->nr_cpus);
	for (unsigned int p = 0; p < c->npol; p++) {
		fprintf(f, "%s", p ? ", " : "");
		bench_json_str(f, c->pol[p].label);
	}
	fprintf(f, "],\n  \"results\": [");
	bool first = true;

	for (int m = 0; m < 2; m++)
		for (unsigned int t = 0; c->modes[m] && t < c->ntasks; t++)
			for (unsigned int p = 0; p < c->npol; p++) {
				json_cell(f, c, m, t, p, first);
				first = false;
			}
	fprintf(f, "\n  ],\n  \"mesi\": {\"emulated_cpus\": %u, \"ops\": %llu, \"seed\": %llu, "
		"\"columns\": [", c->mesi_cpus, (unsigned long long)c->mesi_ops,
		(unsigned long long)c->seed);
	json_mesi(f, c);
	fprintf(f, "\n  ]},\n  \"plot\": ");
	if (c->svg_written[0])
		bench_json_str(f, c->svg_written);
	else
		fprintf(f, "null");
	fprintf(f, "\n}\n");
	fclose(f);
	printf("json: %s\n", c->json);
}

static bool have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

void cmp_plot(struct cmp *c)
{
	FILE *g;
	bool first = true;

	if (c->no_plot)
		return;
	if (!have_gnuplot()) {
		printf("plot: skipped, gnuplot not found (Debian: apt-get install gnuplot-nox)\n");
		return;
	}
	g = popen("gnuplot", "w");
	if (!g) {
		printf("plot: skipped, cannot run gnuplot\n");
		return;
	}
	fprintf(g, "set terminal svg size 900,560 dynamic enhanced font 'sans,12'\n");
	fprintf(g, "set output '%s'\n", c->svg);
	fprintf(g, "set title \"%s (%s): ops/s vs tasks, median of %u rounds, bars min..max\" "
		"noenhanced\n", c->wl->name, c->wl->desc, c->rounds);
	fprintf(g, "set xlabel 'tasks'\nset ylabel 'ops/s'\nset grid\nset key top left "
		"noenhanced\nset yrange [0:*]\nset xtics 1\nset format y '%%.1s%%c'\nset offsets graph 0.03, graph 0.03\n");
	fprintf(g, "plot ");
	for (int m = 0; m < 2; m++)
		for (unsigned int p = 0; c->modes[m] && p < c->npol; p++) {
			fprintf(g, "%s'-' using 1:2:3:4 with yerrorlines lw 2 title '%s %s'",
				first ? "" : ", ", c->pol[p].label, mode_name(m));
			first = false;
		}
	fputc('\n', g);
	for (int m = 0; m < 2; m++)
		for (unsigned int p = 0; c->modes[m] && p < c->npol; p++) {
			for (unsigned int t = 0; t < c->ntasks; t++) {
				struct cell *x = cell(c, m, t, p);

				fprintf(g, "%u %.1f %.1f %.1f\n", c->tasks[t], x->med, x->min, x->max);
			}
			fprintf(g, "e\n");
		}
	if (pclose(g) == 0 && access(c->svg, R_OK) == 0) {
		snprintf(c->svg_written, sizeof(c->svg_written), "%s", c->svg);
		printf("plot: %s\n", c->svg);
	} else {
		printf("plot: gnuplot failed, no plot written\n");
	}
}

void cmp_write_csv(struct cmp *c)
{
	FILE *f = fopen(c->csv, "w");

	if (!f) {
		fprintf(stderr, "tlbgen-bench: %s: %s\n", c->csv, strerror(errno));
		return;
	}
	cmp_print_csv(c, f);
	fclose(f);
	printf("csv: %s\n", c->csv);
}
