/* The tune search space, objectives, fixed settings and Pareto frontiers
 * (tune.h). Pure: no I/O.
 *
 * The space is the runtime-switchable Wi-Fi buffer settings the espbench
 * image passes to esp_wifi_init (wifi_init_config_t: static/dynamic RX,
 * dynamic TX, RX BA window). The image uses the dynamic TX buffer type, so
 * static_tx (PSRAM builds) is not searched. Each field runs over a ladder of
 * values inside its Kconfig range (profile_fields.c) plus every value a
 * published tier of the chip uses, so the docs' ranks are points of the
 * space. dynamic_rx 0 ("unlimited") is left out: it bounds no memory. */
#include "espbench/jobs/tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int space_fields[EB_TUNE_MAX_FIELDS] = {EB_F_STATIC_RX, EB_F_DYNAMIC_RX,
                                                     EB_F_DYNAMIC_TX, EB_F_RX_BA_WIN};
static const char space_tag[EB_TUNE_MAX_FIELDS] = {'s', 'd', 't', 'b'};

/* Roughly geometric steps: fine where buffers are few (each one matters),
 * coarse above 32. */
static const int ladder[] = {0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 64, 96, 128};

/* Without LWIP_WND_SCALE (PSRAM only) dynamic RX stops at 128
 * (profile_fields.c wnd_scale_limits). */
#define DYNAMIC_RX_MAX_NO_PSRAM 128

/* ------------------------------------------------------------ objective */

int eb_tune_objective_parse(const char *text, eb_tune_objective *o, eb_error *err)
{
    memset(o, 0, sizeof *o);
    char buf[256];
    if (!text || !*text)
        return eb_fail(err, EB_ECONFIG, "--objective is empty: give a test (tcp_tx) or weights (tcp_tx=2,udp_rx=1)");
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        double w = 1;
        if (eq) {
            *eq = 0;
            char *end;
            w = strtod(eq + 1, &end);
            if (end == eq + 1 || *end || !(w > 0) || !isfinite(w))
                return eb_fail(err, EB_ECONFIG, "--objective %s: the weight of %s must be a number > 0, not '%s'",
                               text, t, eq + 1);
        }
        int test = eb_test_from_name(t);
        if (test < 0)
            return eb_fail(err, EB_ECONFIG, "--objective %s: unknown test '%s' (tcp_tx, tcp_rx, udp_tx, udp_rx)",
                           text, t);
        if (o->w[test] > 0)
            return eb_fail(err, EB_ECONFIG, "--objective %s: %s is given twice", text, t);
        o->w[test] = w;
    }
    if (eb_tune_objective_tests(o) == 0)
        return eb_fail(err, EB_ECONFIG, "--objective is empty: give a test (tcp_tx) or weights (tcp_tx=2,udp_rx=1)");
    return 0;
}

int eb_tune_objective_tests(const eb_tune_objective *o)
{
    int n = 0;
    for (int t = 0; t < EB_TEST_COUNT; t++)
        n += o->w[t] > 0;
    return n;
}

double eb_tune_objective_score(const eb_tune_objective *o, const double mbps[EB_TEST_COUNT])
{
    double sw = 0, s = 0;
    for (int t = 0; t < EB_TEST_COUNT; t++) {
        if (o->w[t] > 0) {
            s += o->w[t] * mbps[t];
            sw += o->w[t];
        }
    }
    return sw > 0 ? s / sw : NAN;
}

const char *eb_tune_objective_format(const eb_tune_objective *o, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    bool single = eb_tune_objective_tests(o) == 1;
    for (int t = 0; t < EB_TEST_COUNT && len < n; t++) {
        if (!(o->w[t] > 0))
            continue;
        if (single)
            len += (size_t)snprintf(buf + len, n - len, "%s", eb_test_name(t));
        else
            len += (size_t)snprintf(buf + len, n - len, "%s%s=%g", len ? "," : "", eb_test_name(t), o->w[t]);
    }
    return buf;
}

/* ------------------------------------------------------------ fixed settings */

int eb_tune_fix_add(eb_tune_fix *fix, int *n_fix, const char *text, eb_error *err)
{
    char key[64];
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || (size_t)(eq - text) >= sizeof key)
        return eb_fail(err, EB_ECONFIG, "--fix %s: give KEY=VALUE, e.g. --fix static_rx=6", text);
    memcpy(key, text, (size_t)(eq - text));
    key[eq - text] = 0;
    int f = eb_field_from_key(key);
    if (f < 0)
        return eb_fail(err, EB_ECONFIG, "--fix %s: unknown setting '%s' (see espbench-profiles(5))", text, key);
    const eb_field_desc *d = eb_field_desc_get(f);
    if (!d->runtime)
        return eb_fail(err, EB_ECONFIG,
                       "--fix %s: %s (%s) is a build-time setting: the image keeps its own value; "
                       "fix only runtime settings (static_rx, dynamic_rx, dynamic_tx, rx_ba_win)",
                       text, key, d->kconfig);
    eb_tier t;
    memset(&t, 0, sizeof t);
    eb_error e;
    if (eb_model_tier_set(&t, key, eq + 1, &e))
        return eb_fail(err, EB_ECONFIG, "--fix %s: %s", text, e.msg);
    for (int i = 0; i < *n_fix; i++) {
        if (fix[i].field != f)
            continue;
        if (fix[i].value == t.value[f])
            return 0;
        return eb_fail(err, EB_ECONFIG, "--fix %s and --fix %s contradict: %s can have only one value",
                       fix[i].text, text, key);
    }
    if (*n_fix >= EB_TUNE_MAX_FIX)
        return eb_fail(err, EB_ECONFIG, "--fix %s: at most %d fixed settings", text, EB_TUNE_MAX_FIX);
    fix[*n_fix].field = f;
    fix[*n_fix].value = t.value[f];
    snprintf(fix[*n_fix].text, sizeof fix[*n_fix].text, "%s", text);
    (*n_fix)++;
    return 0;
}

/* ------------------------------------------------------------ the space */

static void add_value(eb_tune_space *s, int k, int v)
{
    for (int i = 0; i < s->n_values[k]; i++)
        if (s->values[k][i] == v)
            return;
    if (s->n_values[k] >= EB_TUNE_MAX_LADDER)
        return;
    int i = s->n_values[k]++;
    while (i > 0 && s->values[k][i - 1] > v) { /* keep sorted */
        s->values[k][i] = s->values[k][i - 1];
        i--;
    }
    s->values[k][i] = v;
}

static void field_range(int f, int *lo, int *hi)
{
    const eb_field_desc *d = eb_field_desc_get(f);
    *lo = d->min;
    *hi = d->max;
    if (f == EB_F_DYNAMIC_RX) {
        *lo = *lo < 1 ? 1 : *lo;
        *hi = *hi > DYNAMIC_RX_MAX_NO_PSRAM ? DYNAMIC_RX_MAX_NO_PSRAM : *hi;
    }
}

static void build_ladders(eb_tune_space *s, const eb_tune_fix *fix, int n_fix)
{
    s->n_fields = EB_TUNE_MAX_FIELDS;
    for (int k = 0; k < s->n_fields; k++) {
        int f = space_fields[k];
        s->field[k] = f;
        s->n_values[k] = 0;
        const eb_tune_fix *fx = NULL;
        for (int i = 0; i < n_fix; i++)
            if (fix[i].field == f)
                fx = &fix[i];
        if (fx) {
            add_value(s, k, fx->value);
            continue;
        }
        int lo, hi;
        field_range(f, &lo, &hi);
        if (eb_field_desc_get(f)->kind == EB_FK_BA)
            add_value(s, k, 0); /* "Disable": AMPDU RX off */
        for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++)
            if (ladder[i] >= lo && ladder[i] <= hi)
                add_value(s, k, ladder[i]);
        add_value(s, k, lo);
        add_value(s, k, hi);
        for (int t = 0; t < s->chip->n_tiers; t++) {
            const eb_tier *x = &s->chip->tiers[t];
            if (!x->psram && x->set[f] && (x->value[f] >= lo || x->value[f] == 0) && x->value[f] <= hi)
                add_value(s, k, x->value[f]);
        }
    }
}

/* The image's tier: build-time settings as built, the fixed ones set, the
 * searched ones filled per candidate. */
static void build_base(eb_tune_space *s, const eb_tune_fix *fix, int n_fix)
{
    eb_tier *b = &s->base;
    memset(b, 0, sizeof *b);
    for (int t = 0; t < EB_TEST_COUNT; t++)
        b->ref_mbps[t] = NAN;
    b->ref_avail_kb = NAN;
    eb_model_as_built(s->chip, b);
    for (int f = 0; f < EB_F_COUNT; f++)
        b->runtime[f] = eb_field_desc_get(f)->runtime;
    for (int i = 0; i < n_fix; i++) {
        b->set[fix[i].field] = true;
        b->value[fix[i].field] = fix[i].value;
    }
}

static void fill_tier(const eb_tune_space *s, const int *v, eb_tier *t)
{
    *t = s->base;
    for (int k = 0; k < s->n_fields; k++) {
        t->set[s->field[k]] = true;
        t->value[s->field[k]] = v[k];
    }
}

static int published_match(const eb_tune_space *s, const int *v)
{
    for (int t = 0; t < s->chip->n_tiers; t++) {
        const eb_tier *x = &s->chip->tiers[t];
        if (x->psram)
            continue;
        bool same = true;
        for (int k = 0; k < s->n_fields && same; k++)
            same = x->set[s->field[k]] && x->value[s->field[k]] == v[k];
        if (same)
            return t;
    }
    return -1;
}

static int fix_contradiction(const eb_tune_space *s, const eb_tune_fix *fix, int n_fix, eb_error *err)
{
    /* The fixed settings alone, with the image's build-time ones. */
    eb_tier t = s->base;
    eb_error e;
    if (n_fix && eb_tier_validate(&t, &e)) {
        char list[400] = "";
        size_t len = 0;
        for (int i = 0; i < n_fix && len < sizeof list; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s--fix %s", i ? (i + 1 == n_fix ? " and " : ", ") : "",
                                    fix[i].text);
        return eb_fail(err, EB_ECONFIG, "%s contradict: %s", list, e.msg);
    }
    return eb_fail(err, EB_ECONFIG, "the fixed settings leave no valid tier: every combination breaks a rule "
                   "(RX BA window <= min(dynamic_rx, 2*static_rx)); relax a --fix");
}

static void predict_cand(eb_tune_space *s, eb_tune_cand *c)
{
    eb_tier t;
    fill_tier(s, c->v, &t);
    eb_prediction p;
    eb_model_predict(s->mc, s->chip, &t, NULL, &p);
    for (int i = 0; i < EB_TEST_COUNT; i++)
        c->pred_mbps[i] = p.mbps[i];
    c->pred_score = eb_tune_objective_score(&s->obj, p.mbps);
    c->pred_free_kb = p.free_kb;
    c->published = published_match(s, c->v);
}

int eb_tune_space_build(eb_tune_space *s, const eb_model_chip *mc, const eb_chip *c,
                        const eb_tune_objective *obj, const eb_tune_fix *fix, int n_fix,
                        eb_error *err)
{
    memset(s, 0, sizeof *s);
    s->chip = c;
    s->mc = mc;
    s->obj = *obj;
    build_ladders(s, fix, n_fix);
    build_base(s, fix, n_fix);
    long total = 1;
    for (int k = 0; k < s->n_fields; k++)
        total *= s->n_values[k];
    s->n_combos = (int)total;
    s->cands = calloc((size_t)total, sizeof *s->cands);
    if (!s->cands)
        return eb_fail(err, EB_EIO, "out of memory for %ld tune candidates", total);
    int step[EB_TUNE_MAX_FIELDS] = {0};
    for (long i = 0; i < total; i++) {
        long r = i;
        eb_tune_cand cd;
        memset(&cd, 0, sizeof cd);
        for (int k = s->n_fields - 1; k >= 0; k--) {
            step[k] = (int)(r % s->n_values[k]);
            r /= s->n_values[k];
            cd.step[k] = step[k];
            cd.v[k] = s->values[k][step[k]];
        }
        eb_tier t;
        fill_tier(s, cd.v, &t);
        eb_error e;
        if (eb_tier_validate(&t, &e))
            continue;
        predict_cand(s, &cd);
        s->cands[s->n++] = cd;
    }
    if (s->n == 0) {
        int rc = fix_contradiction(s, fix, n_fix, err);
        eb_tune_space_free(s);
        return rc;
    }
    return 0;
}

void eb_tune_space_free(eb_tune_space *s)
{
    free(s->cands);
    s->cands = NULL;
    s->n = 0;
}

const char *eb_tune_cand_name(const eb_tune_space *s, int i, char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "tune");
    for (int k = 0; k < s->n_fields && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len, "-%c%d", space_tag[k], s->cands[i].v[k]);
    return buf;
}

const char *eb_tune_cand_settings(const eb_tune_space *s, int i, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int k = 0; k < s->n_fields && len < n; k++) {
        char v[32];
        len += (size_t)snprintf(buf + len, n - len, "%s%s=%s", k ? " " : "", eb_field_desc_get(s->field[k])->key,
                                eb_field_format(s->field[k], s->cands[i].v[k], v, sizeof v));
    }
    return buf;
}

void eb_tune_cand_tier(const eb_tune_space *s, int i, eb_tier *out)
{
    fill_tier(s, s->cands[i].v, out);
    eb_tune_cand_name(s, i, out->name, sizeof out->name);
    snprintf(out->label, sizeof out->label, "%s", out->name);
    out->base[0] = 0;
}

int eb_tune_cand_find(const eb_tune_space *s, const char *name)
{
    char b[64];
    for (int i = 0; i < s->n; i++)
        if (strcmp(eb_tune_cand_name(s, i, b, sizeof b), name) == 0)
            return i;
    return -1;
}

/* Candidates are stored in ladder order with the invalid ones left out:
 * a binary search over the step vector finds one. */
static int cmp_steps(const int *a, const int *b, int n)
{
    for (int k = 0; k < n; k++)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return 0;
}

int eb_tune_cand_neighbour(const eb_tune_space *s, int i, int k, int dir)
{
    int want[EB_TUNE_MAX_FIELDS];
    memcpy(want, s->cands[i].step, sizeof want);
    want[k] += dir;
    if (want[k] < 0 || want[k] >= s->n_values[k])
        return -1;
    int lo = 0, hi = s->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = cmp_steps(s->cands[mid].step, want, s->n_fields);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int eb_tune_check_floor(const eb_tune_space *s, double floor_kb, eb_error *err)
{
    int best = 0;
    for (int i = 1; i < s->n; i++)
        if (s->cands[i].pred_free_kb > s->cands[best].pred_free_kb)
            best = i;
    if (s->cands[best].pred_free_kb >= floor_kb)
        return 0;
    char set[160];
    return eb_fail(err, EB_ECONFIG,
                   "--min-free-kb %g: no tier reaches it: the most any candidate leaves free is %.1f KB "
                   "(%s, by the model); lower --min-free-kb",
                   floor_kb, s->cands[best].pred_free_kb, eb_tune_cand_settings(s, best, set, sizeof set));
}

/* ------------------------------------------------------------ frontiers */

static const eb_tune_point *sort_pts;

static int cmp_free_desc(const void *a, const void *b)
{
    const eb_tune_point *x = &sort_pts[*(const int *)a], *y = &sort_pts[*(const int *)b];
    if (x->free_kb != y->free_kb)
        return x->free_kb > y->free_kb ? -1 : 1;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

int eb_tune_pareto(const eb_tune_point *pts, int n, double floor_kb, int *out)
{
    int *idx = malloc(sizeof *idx * (size_t)(n > 0 ? n : 1));
    if (!idx)
        return 0;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (pts[i].free_kb >= floor_kb && isfinite(pts[i].score) && isfinite(pts[i].free_kb))
            idx[m++] = i;
    sort_pts = pts; /* callers are single-threaded per space */
    qsort(idx, (size_t)m, sizeof *idx, cmp_free_desc);
    /* Walk from the most free heap down: a point is kept when it scores more
     * than every point with more free heap. */
    int k = 0;
    double best = -INFINITY;
    for (int i = 0; i < m; i++) {
        if (pts[idx[i]].score > best) {
            best = pts[idx[i]].score;
            out[k++] = idx[i];
        }
    }
    free(idx);
    for (int i = 0; i < k / 2; i++) { /* increasing free heap */
        int t = out[i];
        out[i] = out[k - 1 - i];
        out[k - 1 - i] = t;
    }
    return k;
}

double eb_tune_hypervolume(const eb_tune_point *pts, int n, double floor_kb)
{
    int *f = malloc(sizeof *f * (size_t)(n > 0 ? n : 1));
    if (!f)
        return NAN;
    int k = eb_tune_pareto(pts, n, floor_kb, f);
    /* f by increasing free heap, so scores decrease: staircase area. */
    double hv = 0, prev = floor_kb;
    for (int i = 0; i < k; i++) {
        double score = pts[f[i]].score > 0 ? pts[f[i]].score : 0;
        hv += score * (pts[f[i]].free_kb - prev);
        prev = pts[f[i]].free_kb;
    }
    free(f);
    return hv;
}

int eb_tune_model_frontier(const eb_tune_space *s, double floor_kb, int **out)
{
    eb_tune_point *pts = malloc(sizeof *pts * (size_t)s->n);
    *out = malloc(sizeof **out * (size_t)s->n);
    if (!pts || !*out) {
        free(pts);
        free(*out);
        *out = NULL;
        return 0;
    }
    for (int i = 0; i < s->n; i++)
        pts[i] = (eb_tune_point){s->cands[i].pred_score, s->cands[i].pred_free_kb, i};
    int k = eb_tune_pareto(pts, s->n, floor_kb, *out);
    free(pts);
    return k;
}

int eb_tune_spread(const eb_tune_point *front, int n, int k, double floor_kb, int *out)
{
    if (k >= n) {
        for (int i = 0; i < n; i++)
            out[i] = i;
        return n;
    }
    bool *taken = calloc((size_t)n, sizeof *taken);
    eb_tune_point *sel = malloc(sizeof *sel * (size_t)(k + 1));
    if (!taken || !sel) {
        free(taken);
        free(sel);
        return 0;
    }
    int m = 0;
    for (int round = 0; round < k; round++) {
        int best = -1;
        double best_hv = -1;
        for (int i = 0; i < n; i++) {
            if (taken[i])
                continue;
            sel[m] = front[i];
            double hv = eb_tune_hypervolume(sel, m + 1, floor_kb);
            if (hv > best_hv) {
                best_hv = hv;
                best = i;
            }
        }
        taken[best] = true;
        sel[m++] = front[best];
    }
    int c = 0;
    for (int i = 0; i < n; i++)
        if (taken[i])
            out[c++] = i;
    free(taken);
    free(sel);
    return c;
}
