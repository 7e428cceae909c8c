/* Regression gate: the difference of every chip × tier × test cell between a
 * baseline and the current results. A cell's figure is eb_results_cell():
 * the chosen statistic averaged over boards and repeats. */
#include "espbench/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/report.h"

const char *eb_cmp_status_name(int status)
{
    static const char *const names[] = {[EB_CMP_OK] = "ok", [EB_CMP_REGRESSED] = "regressed",
                                        [EB_CMP_FAILED] = "failed", [EB_CMP_MISSING] = "missing",
                                        [EB_CMP_NEW] = "new"};
    return status >= 0 && status <= EB_CMP_NEW ? names[status] : "?";
}

double eb_parse_percent(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v < 0)
        return -1;
    while (*end == ' ')
        end++;
    if (*end == '%')
        end++;
    return *end ? -1 : v;
}

void eb_compare_free(eb_compare *c)
{
    free(c->rows);
    memset(c, 0, sizeof *c);
}

static eb_compare_row *add_row(eb_compare *c)
{
    eb_compare_row *p = realloc(c->rows, sizeof *p * (size_t)(c->n_rows + 1));
    if (!p)
        abort();
    c->rows = p;
    eb_compare_row *row = &c->rows[c->n_rows++];
    memset(row, 0, sizeof *row);
    row->baseline = row->current = row->diff_pct = NAN;
    return row;
}

static const eb_entry *failed_entry(const eb_results *r, const char *chip, const char *tier, int test)
{
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (e->test == test && !strcmp(e->chip, chip) && !strcmp(e->tier, tier) && strcmp(e->status, "ok"))
            return e;
    }
    return NULL;
}

static void judge(eb_compare *c, eb_compare_row *row, const eb_results *cur)
{
    if (isfinite(row->baseline) && isfinite(row->current) && row->baseline > 0)
        row->diff_pct = (row->current - row->baseline) / row->baseline * 100.0;
    if (!isfinite(row->current)) {
        const eb_entry *f = failed_entry(cur, row->chip, row->tier, row->test);
        if (f) {
            row->status = EB_CMP_FAILED;
            snprintf(row->error, sizeof row->error, "%s", f->error[0] ? f->error : "test failed");
        } else {
            row->status = EB_CMP_MISSING;
        }
    } else if (!isfinite(row->baseline)) {
        row->status = EB_CMP_NEW;
    } else if (isfinite(row->diff_pct) && -row->diff_pct > c->opts.max_drop_pct) {
        row->status = EB_CMP_REGRESSED;
    } else {
        row->status = EB_CMP_OK;
    }
    if (row->status == EB_CMP_REGRESSED || row->status == EB_CMP_FAILED || row->status == EB_CMP_MISSING)
        c->n_failed++;
}

/* Cells in report order: chips and tiers of both inputs, profile order first. */
static void for_each_cell(const eb_results *a, const eb_results *b, const eb_profiles *p, const char *only_chip,
                          void (*fn)(void *, const char *, const char *, int), void *ctx)
{
    /* Union of a and b, as one temporary results with just the keys. */
    eb_results u;
    eb_results_init(&u);
    const eb_results *src[2] = {a, b};
    for (int s = 0; s < 2; s++) {
        if (!src[s])
            continue;
        for (int i = 0; i < src[s]->n_entries; i++) {
            const eb_entry *e = &src[s]->entries[i];
            if (only_chip && strcmp(e->chip, only_chip))
                continue;
            if (!eb_results_find(&u, "", e->chip, e->tier, e->test, 0)) {
                eb_entry k;
                eb_entry_init(&k);
                snprintf(k.chip, sizeof k.chip, "%s", e->chip);
                snprintf(k.tier, sizeof k.tier, "%s", e->tier);
                k.test = e->test;
                eb_results_add(&u, &k);
            }
        }
    }
    /* There are never more distinct chips or tiers than cells: size the lists by
     * that, so the regression gate cannot silently skip a cell. */
    int max = u.n_entries > 0 ? u.n_entries : 1;
    const char **chips = malloc(sizeof *chips * (size_t)max), **tiers = malloc(sizeof *tiers * (size_t)max);
    if (!chips || !tiers)
        abort();
    int n_chips = eb_results_chips(&u, p, chips, max);
    for (int c = 0; c < n_chips; c++) {
        int n_tiers = eb_results_tiers(&u, p, chips[c], tiers, max);
        for (int t = 0; t < n_tiers; t++)
            for (int test = 0; test < EB_TEST_COUNT; test++)
                if (eb_results_find(&u, "", chips[c], tiers[t], test, 0))
                    fn(ctx, chips[c], tiers[t], test);
    }
    free(chips);
    free(tiers);
    eb_results_free(&u);
}

typedef struct cmp_ctx {
    eb_compare *c;
    const eb_results *base, *cur;
    const eb_profiles *p; /* docs mode when base is NULL */
} cmp_ctx;

static void compare_cell(void *vctx, const char *chip, const char *tier, int test)
{
    cmp_ctx *x = vctx;
    eb_compare_row *row = add_row(x->c);
    snprintf(row->chip, sizeof row->chip, "%s", chip);
    snprintf(row->tier, sizeof row->tier, "%s", tier);
    row->test = test;
    if (x->base) {
        row->baseline = eb_results_cell(x->base, chip, tier, test, x->c->opts.stat, &row->n_baseline);
    } else {
        const eb_chip *ch = x->p ? eb_profiles_chip(x->p, chip) : NULL;
        const eb_tier *t = ch ? eb_chip_tier(ch, tier) : NULL;
        row->baseline = t ? t->ref_mbps[test] : NAN;
        row->n_baseline = isfinite(row->baseline) ? 1 : 0;
    }
    row->current = eb_results_cell(x->cur, chip, tier, test, x->c->opts.stat, &row->n_current);
    judge(x->c, row, x->cur);
}

static void init_compare(eb_compare *out, const eb_compare_opts *o)
{
    memset(out, 0, sizeof *out);
    out->opts = *o;
}

int eb_compare_results(const eb_results *baseline, const eb_results *current, const eb_profiles *p,
                       const eb_compare_opts *o, eb_compare *out, eb_error *err)
{
    init_compare(out, o);
    cmp_ctx x = {out, baseline, current, p};
    for_each_cell(baseline, current, p, o->chip, compare_cell, &x);
    if (out->n_rows == 0)
        return eb_fail(err, EB_ECONFIG, "nothing to compare: neither input holds results%s%s",
                       o->chip ? " for chip " : "", o->chip ? o->chip : "");
    return 0;
}

int eb_compare_docs(const eb_profiles *p, const eb_results *current, const eb_compare_opts *o, eb_compare *out,
                    eb_error *err)
{
    init_compare(out, o);
    snprintf(out->baseline_name, sizeof out->baseline_name, "docs");
    cmp_ctx x = {out, NULL, current, p};
    /* Only the cells of the current run: the docs cover tiers nobody ran. */
    for_each_cell(NULL, current, p, o->chip, compare_cell, &x);
    if (out->n_rows == 0)
        return eb_fail(err, EB_ECONFIG, "nothing to compare: the results hold no entries%s%s",
                       o->chip ? " for chip " : "", o->chip ? o->chip : "");
    return 0;
}

static void fmt_num(char *out, size_t size, const char *fmt, double v)
{
    if (isfinite(v))
        snprintf(out, size, fmt, v);
    else
        snprintf(out, size, "-");
}

void eb_compare_text(const eb_compare *c, eb_buf *out)
{
    eb_buf_printf(out, "%-10s %-18s %-7s %10s %10s %8s  %s\n", "chip", "tier", "test", "baseline", "current",
                  "diff %", "status");
    for (int i = 0; i < c->n_rows; i++) {
        const eb_compare_row *r = &c->rows[i];
        char b[32], cu[32], d[32];
        fmt_num(b, sizeof b, "%.2f", r->baseline);
        fmt_num(cu, sizeof cu, "%.2f", r->current);
        fmt_num(d, sizeof d, "%+.1f", r->diff_pct);
        eb_buf_printf(out, "%-10s %-18s %-7s %10s %10s %8s  %s%s%s\n", r->chip, r->tier, eb_test_name(r->test), b, cu,
                      d, eb_cmp_status_name(r->status), r->error[0] ? ": " : "", r->error);
    }
    eb_buf_printf(out, "%d of %d cells failed (max drop %.1f %%, statistic: %s)\n", c->n_failed, c->n_rows,
                  c->opts.max_drop_pct, eb_stat_name(c->opts.stat));
}
