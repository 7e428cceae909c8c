/* The tables every text renderer draws, as cell grids: the docs' rank table,
 * the per-chip throughput summary, and the tier × test table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

void rep_table_init(rep_table *t, int n_rows, int n_cols)
{
    t->n_rows = n_rows;
    t->n_cols = n_cols;
    t->cells = calloc((size_t)(n_rows * n_cols), sizeof *t->cells);
    if (!t->cells)
        abort();
}

void rep_table_free(rep_table *t)
{
    free(t->cells);
    t->cells = NULL;
    t->n_rows = t->n_cols = 0;
}

char *rep_cell(rep_table *t, int row, int col) { return t->cells[row * t->n_cols + col]; }

#define CELL(t, r, c) rep_cell((t), (r), (c)), REP_CELL

void rep_rank_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip, int group,
                    rep_table *t)
{
    const char *tiers[REP_MAX_TIERS];
    int n_tiers = rep_group_tiers(r, p, chip, group, tiers, REP_MAX_TIERS);
    if (n_tiers == 0) {
        t->n_rows = t->n_cols = 0;
        t->cells = NULL;
        return;
    }
    int fields[EB_F_COUNT];
    int n_fields = rep_row_fields(r, p, chip, tiers, n_tiers, fields);
    int per_figure = o->vs_docs ? 3 : 1; /* measured [, docs, difference] */
    int n_rows = 1 + per_figure + n_fields + per_figure * EB_TEST_COUNT;
    rep_table_init(t, n_rows, 1 + n_tiers);
    int lang = o->lang;

    snprintf(CELL(t, 0, 0), "%s", rep_label(REP_L_RANK, lang));
    for (int i = 0; i < n_tiers; i++)
        snprintf(CELL(t, 0, 1 + i), "%s", rep_tier_label(p, chip, tiers[i], lang));

    int row = 1;
    const char *mem = rep_label(REP_L_MEMORY, lang);
    snprintf(CELL(t, row, 0), "%s", mem);
    if (o->vs_docs) {
        snprintf(CELL(t, row + 1, 0), "%s, %s", mem, rep_label(REP_L_DOCS, lang));
        snprintf(CELL(t, row + 2, 0), "%s, %s", mem, rep_label(REP_L_DIFF, lang));
    }
    for (int i = 0; i < n_tiers; i++) {
        double kb = eb_results_cell_free_heap(r, chip, tiers[i]) / 1024.0;
        if (isfinite(kb))
            snprintf(CELL(t, row, 1 + i), "%.1f", kb);
        if (o->vs_docs) {
            double ref = rep_ref_avail_kb(p, chip, tiers[i]);
            if (isfinite(ref))
                snprintf(CELL(t, row + 1, 1 + i), "%.1f", ref);
            rep_format_diff(CELL(t, row + 2, 1 + i), kb, ref);
        }
    }
    row += per_figure;

    for (int k = 0; k < n_fields; k++, row++) {
        const eb_field_desc *d = eb_field_desc_get(fields[k]);
        snprintf(CELL(t, row, 0), "%s", d && d->label ? d->label : "?");
        for (int i = 0; i < n_tiers; i++) {
            int v;
            if (rep_param(r, p, chip, tiers[i], fields[k], &v))
                rep_format_param(CELL(t, row, 1 + i), fields[k], v, lang);
        }
    }

    for (int test = 0; test < EB_TEST_COUNT; test++, row += per_figure) {
        const char *label = rep_throughput_label(test, lang);
        snprintf(CELL(t, row, 0), "%s", label);
        if (o->vs_docs) {
            snprintf(CELL(t, row + 1, 0), "%s, %s", label, rep_label(REP_L_DOCS, lang));
            snprintf(CELL(t, row + 2, 0), "%s, %s", label, rep_label(REP_L_DIFF, lang));
        }
        for (int i = 0; i < n_tiers; i++) {
            double v = eb_results_cell(r, chip, tiers[i], test, o->stat, NULL);
            rep_format_mbps(CELL(t, row, 1 + i), v);
            if (o->vs_docs) {
                double ref = rep_ref(p, chip, tiers[i], test);
                rep_format_mbps(CELL(t, row + 1, 1 + i), ref);
                rep_format_diff(CELL(t, row + 2, 1 + i), v, ref);
            }
        }
    }
}

/* The docs' summary lists UDP RX, UDP TX, TCP RX, TCP TX in that order. */
static const int summary_order[EB_TEST_COUNT] = {EB_TEST_UDP_RX, EB_TEST_UDP_TX, EB_TEST_TCP_RX, EB_TEST_TCP_TX};

static const eb_board_meta *chip_board(const eb_results *r, const char *chip)
{
    for (int i = 0; i < r->n_boards; i++)
        if (strcmp(r->boards[i].chip, chip) == 0)
            return &r->boards[i];
    return NULL;
}

void rep_summary_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip,
                       rep_table *t)
{
    const char *tiers[REP_MAX_TIERS];
    int n_tiers = eb_results_tiers(r, p, chip, tiers, REP_MAX_TIERS);
    bool zh = o->lang == EB_LANG_ZH_CN;
    int n_cols = o->vs_docs ? 6 : 5;
    rep_table_init(t, 1 + EB_TEST_COUNT, n_cols);
    int c = 0;
    snprintf(CELL(t, 0, c++), "%s", zh ? "类型/吞吐量" : "Type/Throughput");
    snprintf(CELL(t, 0, c++), "%s", zh ? "实测 (espbench)" : "Measured (espbench)");
    if (o->vs_docs)
        snprintf(CELL(t, 0, c++), "%s", zh ? "文档" : "Docs");
    snprintf(CELL(t, 0, c++), "%s", zh ? "等级" : "Rank");
    snprintf(CELL(t, 0, c++), "%s", zh ? "测试工具" : "Test Tool");
    snprintf(CELL(t, 0, c++), "%s", zh ? "IDF 版本" : "IDF Version");
    const eb_board_meta *b = chip_board(r, chip);
    for (int k = 0; k < EB_TEST_COUNT; k++) {
        int test = summary_order[k], row = 1 + k;
        double best = NAN, ref = NAN;
        const char *best_tier = NULL;
        for (int i = 0; i < n_tiers; i++) {
            double v = eb_results_cell(r, chip, tiers[i], test, o->stat, NULL);
            if (isfinite(v) && (!isfinite(best) || v > best)) {
                best = v;
                best_tier = tiers[i];
            }
            double rv = rep_ref(p, chip, tiers[i], test);
            if (isfinite(rv) && (!isfinite(ref) || rv > ref))
                ref = rv;
        }
        c = 0;
        snprintf(CELL(t, row, c++), "%s", eb_test_label(test));
        if (isfinite(best))
            snprintf(CELL(t, row, c), "%.1f Mbit/s", best);
        c++;
        if (o->vs_docs) {
            if (isfinite(ref))
                snprintf(CELL(t, row, c), "%.1f Mbit/s", ref);
            c++;
        }
        if (best_tier)
            rep_tier_label_full(CELL(t, row, c), p, chip, best_tier, o->lang);
        c++;
        snprintf(CELL(t, row, c++), "%s", b && b->fw_project[0] ? b->fw_project : "iperf");
        snprintf(CELL(t, row, c++), "%s", b ? b->idf_version : "");
    }
}

void rep_tier_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip, int group,
                    rep_table *t)
{
    const char *tiers[REP_MAX_TIERS];
    int n_tiers = rep_group_tiers(r, p, chip, group, tiers, REP_MAX_TIERS);
    if (n_tiers == 0) {
        t->n_rows = t->n_cols = 0;
        t->cells = NULL;
        return;
    }
    int per_tier = o->vs_docs ? 2 : 1;
    rep_table_init(t, 1 + per_tier * n_tiers, 1 + EB_TEST_COUNT);
    snprintf(CELL(t, 0, 0), "Mbits/sec");
    for (int test = 0; test < EB_TEST_COUNT; test++)
        snprintf(CELL(t, 0, 1 + test), "%s", eb_test_label(test));
    for (int i = 0; i < n_tiers; i++) {
        int row = 1 + per_tier * i;
        const char *label = rep_tier_label(p, chip, tiers[i], o->lang);
        snprintf(CELL(t, row, 0), "%s", label);
        if (o->vs_docs)
            snprintf(CELL(t, row + 1, 0), "%s (%s)", label, rep_label(REP_L_DOCS, o->lang));
        for (int test = 0; test < EB_TEST_COUNT; test++) {
            rep_format_mbps(CELL(t, row, 1 + test), eb_results_cell(r, chip, tiers[i], test, o->stat, NULL));
            if (o->vs_docs)
                rep_format_mbps(CELL(t, row + 1, 1 + test), rep_ref(p, chip, tiers[i], test));
        }
    }
}
