/* Regression gate: the difference of every chip × tier × test × point cell
 * between a baseline and the current results. A cell's point is its place in
 * the dimension table (a sweep point, the radio's band, bandwidth, PHY, power
 * save, coexistence: eb_dims_same_point), so a 5 GHz result is compared with
 * 5 GHz results only. A cell's figure is the chosen statistic averaged over
 * boards and repeats. */
#include "espbench/formats/dims.h"
#include "espbench/formats/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/report.h"
#include "espbench/formats/stats.h"

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
    row->ci_lo = row->ci_hi = row->ci_df = NAN;
    row->sample_unit = "";
    return row;
}

/* Whether e belongs to the cell: its chip, tier, test, peer and point. */
static bool in_cell(const eb_entry *e, const eb_compare_row *row)
{
    return e->test == row->test && !strcmp(e->chip, row->chip) && !strcmp(e->tier, row->tier) &&
           eb_entry_in_pair(e, row->pair) && eb_dims_same_point(eb_entry_prov(e), &row->point);
}

static const eb_entry *failed_entry(const eb_results *r, const eb_compare_row *row)
{
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (in_cell(e, row) && strcmp(e->status, "ok"))
            return e;
    }
    return NULL;
}

/* The cell's figure: the statistic averaged over its ok entries. */
static double cell_value(const eb_results *r, const eb_compare_row *row, int stat, int *n_out)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        double v = stat == EB_STAT_PEAK ? e->peak_mbps : e->mean_mbps;
        if (in_cell(e, row) && !strcmp(e->status, "ok") && isfinite(v)) {
            sum += v;
            n++;
        }
    }
    *n_out = n;
    return n ? sum / n : NAN;
}

static void judge(eb_compare *c, eb_compare_row *row, const eb_results *cur)
{
    if (isfinite(row->baseline) && isfinite(row->current) && row->baseline > 0)
        row->diff_pct = (row->current - row->baseline) / row->baseline * 100.0;
    if (!isfinite(row->current)) {
        const eb_entry *f = failed_entry(cur, row);
        if (f) {
            row->status = EB_CMP_FAILED;
            snprintf(row->error, sizeof row->error, "%s", eb_entry_error(f)[0] ? eb_entry_error(f) : "test failed");
        } else {
            row->status = EB_CMP_MISSING;
        }
    } else if (!isfinite(row->baseline)) {
        row->status = EB_CMP_NEW;
    } else if (isfinite(row->diff_pct) && -row->diff_pct > c->opts.max_drop_pct &&
               !(c->opts.significant && row->verdict != EB_VERDICT_WORSE && row->verdict != EB_VERDICT_NA)) {
        row->status = EB_CMP_REGRESSED;
    } else {
        row->status = EB_CMP_OK;
    }
    if (row->status == EB_CMP_REGRESSED || row->status == EB_CMP_FAILED || row->status == EB_CMP_MISSING)
        c->n_failed++;
}

typedef void (*cell_fn)(void *ctx, const char *chip, const char *tier, const char *pair, int test,
                        const eb_provenance *point);

/* Every point of a PC cell (no peer) in the union, in the union's order. */
static void for_each_point(const eb_results *u, const char *chip, const char *tier, int test, cell_fn fn, void *ctx)
{
    for (int i = 0; i < u->n_entries; i++) {
        const eb_entry *e = &u->entries[i];
        if (e->test == test && !strcmp(e->chip, chip) && !strcmp(e->tier, tier) && !eb_entry_prov(e)->peer_chip[0])
            fn(ctx, chip, tier, "", test, eb_entry_prov(e));
    }
}

/* Board-to-board cells (the key also holds the peer), after the PC cells,
 * in the order of the union u. */
static void for_each_pair_cell(const eb_results *u, cell_fn fn, void *ctx)
{
    for (int i = 0; i < u->n_entries; i++) {
        const eb_entry *e = &u->entries[i];
        char pair[64];
        eb_entry_pair_label(e, pair, sizeof pair);
        if (pair[0])
            fn(ctx, e->chip, e->tier, pair, e->test, eb_entry_prov(e));
    }
}

/* Cells in report order: chips and tiers of both inputs, profile order first;
 * within a chip x tier x test, its points (the default first when the
 * inputs list it first). */
static void for_each_cell(const eb_results *a, const eb_results *b, const eb_profiles *p, const char *only_chip,
                          cell_fn fn, void *ctx)
{
    /* Union of a and b, as one temporary results with just the keys: chip,
     * tier, test, the peer and the point in the dimension table. */
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
            eb_entry k;
            eb_entry_init(&k);
            snprintf(k.chip, sizeof k.chip, "%s", e->chip);
            snprintf(k.tier, sizeof k.tier, "%s", e->tier);
            k.test = e->test;
            eb_provenance *kp = eb_entry_prov_mut(&k);
            *kp = *eb_entry_prov(e); /* the point's fields among them; the IDF version is not a point */
            kp->idf_version[0] = '\0';
            if (!eb_results_find_same(&u, &k))
                eb_results_add(&u, &k);
            eb_entry_free(&k);
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
            for (int test = 0; test < EB_TEST_ALL_COUNT; test++) /* ESP-Hosted's raw tests too */
                if (test != EB_TEST_COUNT)
                    for_each_point(&u, chips[c], tiers[t], test, fn, ctx);
    }
    for_each_pair_cell(&u, fn, ctx);
    free(chips);
    free(tiers);
    eb_results_free(&u);
}

/* A cell's sample: its ok entries' figures (repeats), or with by_interval
 * their steady interval rates. Returns the count; *out is malloc'd. */
static int cell_sample(const eb_results *r, const eb_compare_row *row, int stat, bool by_interval, double **out)
{
    int cap = 16, n = 0;
    double *v = malloc(sizeof *v * (size_t)cap);
    if (!v)
        abort();
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (!in_cell(e, row) || strcmp(e->status, "ok"))
            continue;
        int need = by_interval ? e->receiver.n : 1;
        while (n + need > cap) {
            cap *= 2;
            v = realloc(v, sizeof *v * (size_t)cap);
            if (!v)
                abort();
        }
        if (by_interval) {
            n += eb_entry_steady_rates(e, v + n, need);
        } else {
            double f = stat == EB_STAT_PEAK ? e->peak_mbps : e->mean_mbps;
            if (isfinite(f))
                v[n++] = f;
        }
    }
    *out = v;
    return n;
}

/* Welch's t verdict of a cell (see eb_compare_row). */
static void verdict(eb_compare *c, eb_compare_row *row, const eb_results *base, const eb_results *cur)
{
    double *a = NULL, *b = NULL;
    /* base is already remapped under --tier-map: its cells carry the current tier's name */
    int na = cell_sample(base, row, c->opts.stat, false, &a);
    int nb = cell_sample(cur, row, c->opts.stat, false, &b);
    row->sample_unit = "repeats";
    if ((na < 2 || nb < 2) && c->opts.stat != EB_STAT_PEAK) {
        free(a);
        free(b);
        na = cell_sample(base, row, c->opts.stat, true, &a);
        nb = cell_sample(cur, row, c->opts.stat, true, &b);
        row->sample_unit = "intervals";
    }
    eb_sample_stats sa, sb;
    eb_sample_stats_compute(a, na, &sa);
    eb_sample_stats_compute(b, nb, &sb);
    free(a);
    free(b);
    eb_welch w;
    eb_welch_interval(&sa, &sb, c->opts.confidence > 0 ? c->opts.confidence : 0.95, &w);
    row->n_sample_base = na;
    row->n_sample_cur = nb;
    row->verdict = w.verdict;
    row->ci_lo = w.lo;
    row->ci_hi = w.hi;
    row->ci_df = w.df;
    if (w.verdict == EB_VERDICT_NA)
        row->sample_unit = "";
}

typedef struct cmp_ctx {
    eb_compare *c;
    const eb_results *base, *cur;
    const eb_profiles *p; /* docs mode when base is NULL */
} cmp_ctx;

static void compare_cell(void *vctx, const char *chip, const char *tier, const char *pair, int test,
                         const eb_provenance *point)
{
    cmp_ctx *x = vctx;
    eb_compare_row *row = add_row(x->c);
    snprintf(row->chip, sizeof row->chip, "%s", chip);
    snprintf(row->tier, sizeof row->tier, "%s", tier);
    snprintf(row->pair, sizeof row->pair, "%s", pair);
    row->test = test;
    row->point = *point;
    eb_dims_point_label(point, row->point_label, sizeof row->point_label);
    if (x->base) {
        row->baseline = cell_value(x->base, row, x->c->opts.stat, &row->n_baseline);
    } else if (pair[0]) {
        row->baseline = NAN; /* the docs measured against a PC: no figure for a pair */
    } else {
        const eb_chip *ch = x->p ? eb_profiles_chip(x->p, chip) : NULL;
        const eb_tier *t = ch ? eb_chip_tier(ch, tier) : NULL;
        row->baseline = eb_tier_ref(t, test, point); /* a band's own row; raw tests: no profile figure */
        row->n_baseline = isfinite(row->baseline) ? 1 : 0;
    }
    row->current = cell_value(x->cur, row, x->c->opts.stat, &row->n_current);
    snprintf(row->base_tier, sizeof row->base_tier, "%s", x->c->opts.map_cur && !strcmp(tier, x->c->opts.map_cur)
                                                              ? x->c->opts.map_base : tier);
    if (x->base)
        verdict(x->c, row, x->base, x->cur);
    judge(x->c, row, x->cur);
}

static void init_compare(eb_compare *out, const eb_compare_opts *o)
{
    memset(out, 0, sizeof *out);
    out->opts = *o;
}

static bool has_cell(const eb_results *r, const eb_compare_row *row)
{
    for (int i = 0; i < r->n_entries; i++)
        if (in_cell(&r->entries[i], row))
            return true;
    return false;
}

/* --tier-map A=B: a copy of the baseline whose tier-A entries are named B
 * (its own tier-B entries left out), so that cells pair A with B. */
static void remap_baseline(const eb_results *in, const char *from, const char *to, eb_results *out)
{
    eb_results_init(out);
    for (int i = 0; i < in->n_entries; i++) {
        const eb_entry *e = &in->entries[i];
        if (!strcmp(e->tier, to) && strcmp(from, to))
            continue;
        eb_entry *n = eb_results_add(out, e);
        if (!strcmp(e->tier, from))
            snprintf(n->tier, sizeof n->tier, "%s", to);
    }
}

int eb_compare_parse_tier_map(const char *arg, char *buf, size_t cap, eb_compare_opts *o)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1] || strchr(eq + 1, '=') || strlen(arg) >= cap || strlen(arg) > 63)
        return -1;
    snprintf(buf, cap, "%s", arg);
    buf[eq - arg] = '\0';
    o->map_base = buf;
    o->map_cur = buf + (eq - arg) + 1;
    return 0;
}

/* "iperf/tcp_tx,iperf/udp_rx band=5" (first few cells, each with its point
 * off the defaults) for messages. */
static void cell_names(const eb_results *r, char *out, size_t cap)
{
    out[0] = '\0';
    int shown = 0;
    for (int i = 0; i < r->n_entries && shown < 4; i++) {
        const eb_entry *e = &r->entries[i];
        char c[200], point[96];
        eb_dims_point_label(eb_entry_prov(e), point, sizeof point);
        snprintf(c, sizeof c, "%s/%s%s%s", e->tier, eb_test_name(e->test), point[0] ? " " : "", point);
        if (strstr(out, c))
            continue;
        size_t l = strlen(out);
        snprintf(out + l, cap - l, "%s%s", l ? "," : "", c);
        shown++;
    }
}

static bool any_emulated(const eb_results *r)
{
    for (int i = 0; r && i < r->n_entries; i++)
        if (!strcmp(r->entries[i].figure_source, "emulator"))
            return true;
    return false;
}

static void note_emulated(eb_compare *c, const eb_results *base, const eb_results *cur)
{
    bool b = any_emulated(base), n = any_emulated(cur);
    snprintf(c->emulated, sizeof c->emulated, "%s", b && n ? "both" : b ? "baseline" : n ? "current" : "");
}

int eb_compare_parse_ignore(const char *arg, eb_compare_opts *o, char *why, size_t cap)
{
    char names[512] = "";
    for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++)
        if (eb_dim_keys(d))
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "",
                     eb_dim(d)->name);
    for (const char *p = arg; *p;) {
        size_t len = strcspn(p, ",");
        char name[48];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        int d = eb_dim_from_name(name);
        if (!eb_dim_keys(d)) {
            const eb_dim_desc *r = eb_dim(d);
            snprintf(why, cap, "--ignore '%s': not a dimension a cell is keyed by%s%s%s; one of: %s", name,
                     r && r->compare_note ? " (" : "", r && r->compare_note ? r->compare_note : "",
                     r && r->compare_note ? ")" : "", names);
            return -1;
        }
        o->ignore |= 1u << d;
        p += len + (p[len] == ',');
    }
    return 0;
}

/* in with the --ignore dimensions at their defaults, as a copy in out; in
 * itself when nothing is ignored. */
static const eb_results *without_ignored(const eb_results *in, uint32_t ignore, eb_results *out)
{
    if (!ignore || !in)
        return in;
    eb_provenance none;
    eb_prov_init(&none);
    for (int i = 0; i < in->n_entries; i++) {
        eb_entry *n = eb_results_add(out, &in->entries[i]);
        for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++)
            if (ignore & (1u << d))
                eb_dim_copy_value(d, eb_entry_prov_mut(n), &none);
    }
    return out;
}

/* The distinct values of one dimension among a results' entries, as
 * labels ("band=5", "band=2.4 (default)"): one pass, each entry against
 * the few values seen so far. */
typedef struct dim_set {
    char (*v)[96];
    int n, cap;
} dim_set;

static void dim_set_of(int dim, const eb_results *r, dim_set *set)
{
    *set = (dim_set){0};
    for (int i = 0; i < r->n_entries; i++) {
        char v[96];
        eb_dim_value_label(dim, eb_entry_prov(&r->entries[i]), v, sizeof v);
        int j = 0;
        while (j < set->n && strcmp(set->v[j], v))
            j++;
        if (j < set->n)
            continue;
        if (set->n == set->cap) {
            set->cap = set->cap ? set->cap * 2 : 8;
            set->v = realloc(set->v, sizeof *set->v * (size_t)set->cap);
            if (!set->v)
                abort();
        }
        memcpy(set->v[set->n++], v, sizeof v);
    }
}

static bool dim_sets_meet(const dim_set *a, const dim_set *b)
{
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++)
            if (!strcmp(a->v[i], b->v[j]))
                return true;
    return false;
}

/* The first few values of a set, for a message: "band=5, band=2.4 (default), ...". */
static void dim_set_text(const dim_set *set, char *out, size_t cap)
{
    out[0] = 0;
    for (int i = 0; i < set->n && i < 4; i++)
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? ", " : "", i < 3 ? set->v[i] : "...");
}

/* The dimensions (but the ignored ones) the two inputs share no value of: their names
 * ("band,power-save") and the values on each side into why; the mask. */
static uint32_t differing_dims(const eb_results *a, const eb_results *b, uint32_t ignored, char *names, size_t ncap,
                               char *why, size_t wcap)
{
    uint32_t mask = 0;
    names[0] = why[0] = 0;
    for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++) {
        if (!eb_dim_keys(d) || (ignored & (1u << d)))
            continue;
        dim_set sa, sb;
        dim_set_of(d, a, &sa);
        dim_set_of(d, b, &sb);
        bool meet = dim_sets_meet(&sa, &sb);
        char va[400], vb[400];
        dim_set_text(&sa, va, sizeof va);
        dim_set_text(&sb, vb, sizeof vb);
        free(sa.v);
        free(sb.v);
        if (meet)
            continue;
        snprintf(names + strlen(names), ncap - strlen(names), "%s%s", mask ? "," : "", eb_dim(d)->name);
        snprintf(why + strlen(why), wcap - strlen(why), "%s%s (baseline: %s; current: %s)", mask ? ", " : "",
                 eb_dim(d)->name, va, vb);
        mask |= 1u << d;
    }
    return mask;
}

/* Cells of out's rows that both inputs hold. */
static int common_cells(const eb_compare *out, const eb_results *a, const eb_results *b);

/* Why the inputs share no cell: the dimensions they differ in, and when
 * leaving those out of the key gives cells in common, the --ignore that
 * compares across them. */
static int no_common_error(const eb_results *base, const eb_results *cur, const eb_profiles *p,
                           const eb_compare_opts *o, eb_error *err)
{
    char names[256], dims[1024], bt[600], ct[600];
    uint32_t mask = differing_dims(base, cur, o->ignore, names, sizeof names, dims, sizeof dims);
    if (mask) { /* would leaving them out of the key give cells in common? */
        eb_compare_opts wider = *o;
        wider.ignore |= mask;
        eb_compare trial;
        eb_error ignored = {0};
        int rc = eb_compare_results(base, cur, p, &wider, &trial, &ignored);
        eb_compare_free(&trial);
        bool one = !strchr(names, ',');
        if (rc == 0)
            return eb_fail(err, EB_ECONFIG,
                           "the inputs share no chip x tier x test cell at the same point: they differ in %s; to "
                           "compare them across %s, pass --ignore %s (each cell then averages over %s values)",
                           dims, one ? "it" : "them", names, one ? "its" : "their");
    }
    cell_names(base, bt, sizeof bt);
    cell_names(cur, ct, sizeof ct);
    return eb_fail(err, EB_ECONFIG, "the inputs share no chip x tier x test cell (baseline has %s; current "
                   "has %s)%s%s: compare results of the same tests, or pair tiers with --tier-map A=B",
                   bt[0] ? bt : "none", ct[0] ? ct : "none", mask ? "; they also differ in " : "", mask ? dims : "");
}

static int common_cells(const eb_compare *out, const eb_results *a, const eb_results *b)
{
    int common = 0;
    for (int i = 0; i < out->n_rows; i++) {
        const eb_compare_row *r = &out->rows[i];
        common += has_cell(a, r) && has_cell(b, r);
    }
    return common;
}

int eb_compare_results(const eb_results *baseline, const eb_results *current, const eb_profiles *p,
                       const eb_compare_opts *o, eb_compare *out, eb_error *err)
{
    init_compare(out, o);
    eb_results mapped, base_wide, cur_wide;
    eb_results_init(&mapped);
    eb_results_init(&base_wide);
    eb_results_init(&cur_wide);
    const eb_results *given_base = baseline, *given_cur = current;
    if (o->map_base && o->map_cur) {
        remap_baseline(baseline, o->map_base, o->map_cur, &mapped);
        baseline = &mapped;
    }
    baseline = without_ignored(baseline, o->ignore, &base_wide);
    current = without_ignored(current, o->ignore, &cur_wide);
    cmp_ctx x = {out, baseline, current, p};
    for_each_cell(baseline, current, p, o->chip, compare_cell, &x);
    int common = common_cells(out, baseline, current);
    note_emulated(out, baseline, current);
    eb_results_free(&mapped);
    eb_results_free(&base_wide);
    eb_results_free(&cur_wide);
    if (out->n_rows == 0)
        return eb_fail(err, EB_ECONFIG, "nothing to compare: neither input holds results%s%s",
                       o->chip ? " for chip " : "", o->chip ? o->chip : "");
    if (common == 0)
        return no_common_error(given_base, given_cur, p, o, err);
    return 0;
}

int eb_compare_docs(const eb_profiles *p, const eb_results *current, const eb_compare_opts *o, eb_compare *out,
                    eb_error *err)
{
    init_compare(out, o);
    snprintf(out->baseline_name, sizeof out->baseline_name, "docs");
    eb_results cur_wide;
    eb_results_init(&cur_wide);
    current = without_ignored(current, o->ignore, &cur_wide);
    cmp_ctx x = {out, NULL, current, p};
    /* Only the cells of the current run: the docs cover tiers nobody ran. */
    for_each_cell(NULL, current, p, o->chip, compare_cell, &x);
    note_emulated(out, NULL, current);
    eb_results_free(&cur_wide);
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
    double conf = (c->opts.confidence > 0 ? c->opts.confidence : 0.95) * 100;
    char cih[32];
    snprintf(cih, sizeof cih, "%g%% interval", conf);
    eb_buf_printf(out, "%-10s %-18s %-7s %10s %10s %20s %-12s %-13s %8s  %s\n", "chip", "tier", "test", "baseline",
                  "current", cih, "verdict", "sample", "diff %", "status");
    for (int i = 0; i < c->n_rows; i++) {
        const eb_compare_row *r = &c->rows[i];
        char b[32], cu[32], d[32], ci[48] = "-", tier[160], sample[32] = "-";
        fmt_num(b, sizeof b, "%.2f", r->baseline);
        fmt_num(cu, sizeof cu, "%.2f", r->current);
        fmt_num(d, sizeof d, "%+.1f", r->diff_pct);
        if (isfinite(r->ci_lo) && isfinite(r->ci_hi))
            snprintf(ci, sizeof ci, "[%+.2f, %+.2f]", r->ci_lo, r->ci_hi);
        if (r->sample_unit && r->sample_unit[0])
            snprintf(sample, sizeof sample, "%d/%d %s", r->n_sample_base, r->n_sample_cur,
                     r->sample_unit[0] == 'r' ? "rep" : "iv");
        if (r->base_tier[0] && strcmp(r->base_tier, r->tier))
            snprintf(tier, sizeof tier, "%s=%s", r->base_tier, r->tier);
        else
            snprintf(tier, sizeof tier, "%s", r->tier);
        if (r->pair[0]) /* a board-to-board cell: its peer is part of the key */
            snprintf(tier + strlen(tier), sizeof tier - strlen(tier), " <-> %s", r->pair);
        if (r->point_label[0]) /* a point off the defaults: "band=5", "rssi=-60" */
            snprintf(tier + strlen(tier), sizeof tier - strlen(tier), " %s", r->point_label);
        eb_buf_printf(out, "%-10s %-18s %-7s %10s %10s %20s %-12s %-13s %8s  %s%s%s\n", r->chip, tier,
                      eb_test_name(r->test), b, cu, ci, eb_verdict_name(r->verdict), sample, d,
                      eb_cmp_status_name(r->status), r->error[0] ? ": " : "", r->error);
    }
    eb_buf_printf(out, "%d of %d cells failed (max drop %.1f %%, statistic: %s)\n", c->n_failed, c->n_rows,
                  c->opts.max_drop_pct, eb_stat_name(c->opts.stat));
    if (c->opts.ignore) { /* the cells average over these: say so beside the figures */
        char names[256] = "";
        for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++)
            if (c->opts.ignore & (1u << d))
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "",
                         eb_dim(d)->name);
        eb_buf_printf(out, "left out of the key (--ignore): %s; each cell averages over their values\n", names);
    }
    eb_buf_printf(out, "verdict: Welch's t interval of current - baseline in Mbit/s at %g %% confidence (t quantile "
                       "from the regularized incomplete beta); sample: rep = repeat figures, iv = steady interval "
                       "rates; a drop fails %s\n",
                  conf, c->opts.significant ? "only when the verdict is also worse (--significant)"
                                            : "on the threshold alone (add --significant to require the verdict)");
    if (c->emulated[0])
        eb_buf_printf(out, "note: %s figures come from an emulator (QEMU's ESP32-C3, Ethernet in place of "
                           "Wi-Fi; figure_source \"emulator\", docs/emulator.md), not from hardware\n",
                      !strcmp(c->emulated, "both") ? "both sides'" : !strcmp(c->emulated, "baseline") ? "the baseline's"
                                                                                                 : "the current run's");
}
