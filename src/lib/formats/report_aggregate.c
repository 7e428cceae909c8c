/* The aggregate table (run --aggregate): for each test the boards ran
 * together (tier, test, repeat, sweep point), every board's figure, their
 * sum, and the sum against one board alone: a measured solo entry of the
 * same chip, tier and test in the same results (e.g. merged from a run
 * without --aggregate), else the docs' single-board figure. That ratio is
 * the question: do several boards on one AP carry more than one? Entries
 * without provenance.concurrent_boards are not part of the table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "espbench/formats/dims.h"
#include "report_internal.h"

#define MAX_GROUPS 512
#define MAX_AGG_BOARDS 16

typedef struct agg_group {
    const eb_entry *first; /* its key: tier, test, repeat, sweep point */
} agg_group;

static bool same_group(const eb_entry *a, const eb_entry *b)
{
    return !strcmp(a->tier, b->tier) && a->test == b->test && a->repeat == b->repeat &&
           eb_dims_same_point(eb_entry_prov(a), eb_entry_prov(b));
}

static bool in_aggregate(const eb_entry *e)
{
    return isfinite(eb_entry_prov(e)->concurrent_boards) && !strcmp(e->status, "ok");
}

/* Board names of the aggregate entries, in the order of the results. */
static int agg_boards(const eb_results *r, const char **names, int max)
{
    int n = 0;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (!in_aggregate(e))
            continue;
        bool seen = false;
        for (int k = 0; k < n && !seen; k++)
            seen = !strcmp(names[k], e->board);
        if (!seen && n < max)
            names[n++] = e->board;
    }
    return n;
}

static int agg_groups(const eb_results *r, agg_group *g, int max)
{
    int n = 0;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (!in_aggregate(e))
            continue;
        bool seen = false;
        for (int k = 0; k < n && !seen; k++)
            seen = same_group(g[k].first, e);
        if (!seen && n < max)
            g[n++].first = e;
    }
    return n;
}

/* One board alone: the mean of the solo entries of this chip, tier and test
 * (no concurrent_boards), else the docs' figure (*docs set). */
static double solo_figure(const eb_results *r, const eb_report_opts *o, const eb_entry *k, bool *docs)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (isfinite(eb_entry_prov(e)->concurrent_boards) || strcmp(e->status, "ok") || strcmp(e->chip, k->chip) ||
            strcmp(e->tier, k->tier) || e->test != k->test || !eb_dims_at_default(eb_entry_prov(e)))
            continue;
        double f = o->stat == EB_STAT_PEAK ? e->peak_mbps : e->mean_mbps;
        if (isfinite(f)) {
            sum += f;
            n++;
        }
    }
    if (n)
        return sum / n;
    *docs = true;
    return k->ref_mbps;
}

static void group_row(const eb_results *r, const eb_report_opts *o, const agg_group *g, const char **boards, int nb,
                      rep_table *t, int row)
{
    const eb_entry *k = g->first;
    int c = 0;
    snprintf(rep_cell(t, row, c++), REP_CELL, "%s", k->tier);
    snprintf(rep_cell(t, row, c++), REP_CELL, "%s", eb_test_label(k->test));
    char point[64];
    eb_dims_point_label(eb_entry_prov(k), point, sizeof point);
    if (point[0])
        snprintf(rep_cell(t, row, c++), REP_CELL, "%d (%s)", k->repeat + 1, point);
    else
        snprintf(rep_cell(t, row, c++), REP_CELL, "%d", k->repeat + 1);
    double sum = 0;
    int together = 0;
    for (int b = 0; b < nb; b++, c++) {
        for (int i = 0; i < r->n_entries; i++) {
            const eb_entry *e = &r->entries[i];
            if (!in_aggregate(e) || strcmp(e->board, boards[b]) || !same_group(e, k))
                continue;
            double f = o->stat == EB_STAT_PEAK ? e->peak_mbps : e->mean_mbps;
            if (!isfinite(f))
                continue;
            rep_format_mbps(rep_cell(t, row, c), REP_CELL, f);
            sum += f;
            if ((int)eb_entry_prov(e)->concurrent_boards > together)
                together = (int)eb_entry_prov(e)->concurrent_boards;
            break;
        }
    }
    snprintf(rep_cell(t, row, c++), REP_CELL, "%d", together);
    rep_format_mbps(rep_cell(t, row, c++), REP_CELL, sum);
    bool docs = false;
    double alone = solo_figure(r, o, k, &docs);
    if (isfinite(alone) && alone > 0) {
        char v[32];
        rep_format_mbps(v, sizeof v, alone);
        snprintf(rep_cell(t, row, c++), REP_CELL, "%s%s", v, docs ? " (docs)" : "");
        snprintf(rep_cell(t, row, c), REP_CELL, "%.2f", sum / alone);
    }
}

void rep_aggregate_table(const eb_results *r, const eb_report_opts *o, rep_table *t)
{
    const char *boards[MAX_AGG_BOARDS];
    int nb = agg_boards(r, boards, MAX_AGG_BOARDS);
    agg_group groups[MAX_GROUPS];
    int ng = nb ? agg_groups(r, groups, MAX_GROUPS) : 0;
    int nc = 3 + nb + 4;
    if (ng == 0) {
        rep_table_init(t, 0, nc);
        return;
    }
    rep_table_init(t, 1 + ng, nc);
    int c = 0;
    snprintf(rep_cell(t, 0, c++), REP_CELL, "Tier");
    snprintf(rep_cell(t, 0, c++), REP_CELL, "Test");
    snprintf(rep_cell(t, 0, c++), REP_CELL, "Run");
    for (int b = 0; b < nb; b++)
        snprintf(rep_cell(t, 0, c++), REP_CELL, "%s", boards[b][0] ? boards[b] : "(board)");
    snprintf(rep_cell(t, 0, c++), REP_CELL, "Together");
    snprintf(rep_cell(t, 0, c++), REP_CELL, "Sum");
    snprintf(rep_cell(t, 0, c++), REP_CELL, "One board alone");
    snprintf(rep_cell(t, 0, c), REP_CELL, "Sum / alone");
    for (int g = 0; g < ng; g++)
        group_row(r, o, &groups[g], boards, nb, t, 1 + g);
}

const char *rep_aggregate_note(void)
{
    return "Boards measured at the same time into one AP (run --aggregate), Mbit/s per board and summed; "
           "\"Together\" is how many started the test at once; \"One board alone\" is a measured solo run of "
           "the same chip, tier and test in these results, else the docs' figure; \"Sum / alone\" is how "
           "many lone boards the sum is worth.";
}
