/* What a tune leaves in its folder (tune.h): the frontier table (also
 * printed), frontier.yaml (an overlay profile, espbench-profiles(5), one
 * tier per frontier point), one sdkconfig fragment per point, and
 * frontier.html (the frontier against the published ranks, inline SVG, no
 * script). results.json is the run job's. */
#include "espbench/jobs/tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/buf.h"
#include "espbench/base/fs.h"

static const char *buf_text(eb_buf *b)
{
    eb_buf_append_byte(b, 0);
    return (const char *)b->data;
}

/* Every point on all four tests: measured (m) or predicted (p), its costs
 * outside the objective, and whether it rests on one probe. */
static void tradeoff_block(eb_buf *b, const eb_tune_space *s, const eb_tune_result *r, double max_cost_pct)
{
    double pct = max_cost_pct > 0 ? max_cost_pct : EB_TUNE_MAX_COST_PCT;
    const char *base = eb_tune_baseline_name(s);
    eb_buf_printf(b, "\n%-24s", "tier");
    for (int k = 0; k < EB_TEST_COUNT; k++)
        eb_buf_printf(b, " %10s", eb_test_label(k));
    eb_buf_printf(b, "  notes\n");
    int costly = 0, tentative = 0;
    for (int i = 0; i < r->n_frontier; i++) {
        int c = r->frontier[i];
        eb_tune_tradeoff t;
        eb_tune_tradeoff_of(s, r, c, max_cost_pct, &t);
        char name[64], costs[400];
        eb_buf_printf(b, "%-24s", eb_tune_cand_name(s, c, name, sizeof name));
        for (int k = 0; k < EB_TEST_COUNT; k++) {
            if (isfinite(t.mbps[k]))
                eb_buf_printf(b, " %8.2f %c", t.mbps[k], t.measured[k] ? 'm' : 'p');
            else
                eb_buf_printf(b, " %10s", "-");
        }
        eb_tune_tradeoff_costs(&t, costs, sizeof costs);
        eb_buf_printf(b, "  %s%s%s%s\n", t.n_costs ? "COSTS " : "", costs, t.n_costs && t.tentative ? "; " : "",
                      t.tentative ? "TENTATIVE: one probe" : "");
        costly += t.n_costs > 0;
        tentative += t.tentative;
    }
    eb_buf_printf(b, "(m: measured; p: the tier model's prediction, the probes ran the objective's tests only. "
                     "COSTS: a test outside the objective more than %g %% below the %s tier's figure "
                     "(--max-cost); TENTATIVE: the 95 %% interval rests on one probe. %d of %d points cost, "
                     "%d tentative)\n",
                  pct, base ? base : "baseline", costly, r->n_frontier, tentative);
}

char *eb_tune_frontier_table(const eb_tune_space *s, const eb_tune_result *r, double max_cost_pct)
{
    eb_buf b;
    eb_buf_init(&b);
    char obj[128];
    eb_tune_objective_format(&s->obj, obj, sizeof obj);
    eb_buf_printf(&b, "%-24s %9s %10s %10s %9s %8s %13s %8s %6s %7s %8s %s\n", "tier", "static_rx", "dynamic_rx",
                  "dynamic_tx", "rx_ba_win", "Mbit/s", "95% CI", "free KB", "probes", "model", "model KB",
                  "model in CI");
    int agree = 0;
    for (int i = 0; i < r->n_frontier; i++) {
        int c = r->frontier[i];
        const eb_tune_stat *st = &r->stat[c];
        const eb_tune_cand *cd = &s->cands[c];
        char name[64], ba[16], ci[40], in[32];
        snprintf(ci, sizeof ci, "%.2f-%.2f", st->lo, st->hi);
        bool ok = cd->pred_score >= st->lo && cd->pred_score <= st->hi;
        agree += ok;
        snprintf(in, sizeof in, ok ? "yes" : "no (%+.1f %%)", (cd->pred_score / st->score - 1) * 100);
        eb_buf_printf(&b, "%-24s %9d %10d %10d %9s %8.2f %13s %8.1f %6d %7.2f %8.1f %s\n",
                      eb_tune_cand_name(s, c, name, sizeof name), cd->v[0], cd->v[1], cd->v[2],
                      eb_field_format(EB_F_RX_BA_WIN, cd->v[3], ba, sizeof ba), st->score, ci, st->free_kb, st->n,
                      cd->pred_score, cd->pred_free_kb, in);
    }
    eb_buf_printf(&b, "(%s: receiver-side Mbit/s, duration-weighted mean of the probes; free heap: the least any "
                      "probe read; model: the tier model's prediction at the published link, the proposal the "
                      "measurements decide on; %d of %d within their 95 %% interval)\n",
                  obj, agree, r->n_frontier);
    if (r->n_frontier)
        tradeoff_block(&b, s, r, max_cost_pct);
    char *out = strdup(buf_text(&b));
    eb_buf_free(&b);
    return out;
}

/* ------------------------------------------------------------ frontier.yaml */

static void yaml_tier(eb_buf *b, const eb_tune_space *s, const eb_tune_result *r, int c, int rank,
                      double max_cost_pct)
{
    eb_tier t;
    eb_tune_cand_tier(s, c, &t);
    const eb_tune_stat *st = &r->stat[c];
    eb_buf_printf(b, "  # measured %.2f Mbit/s (95%% CI %.2f..%.2f, %d probe%s%s), free heap %.1f KB\n", st->score,
                  st->lo, st->hi, st->n, st->n == 1 ? "" : "s", st->n == 1 ? ": tentative" : "", st->free_kb);
    eb_tune_tradeoff tr;
    eb_tune_tradeoff_of(s, r, c, max_cost_pct, &tr);
    eb_buf_printf(b, "  #");
    for (int k = 0; k < EB_TEST_COUNT; k++)
        if (isfinite(tr.mbps[k]))
            eb_buf_printf(b, " %s %.2f (%s)%s", eb_test_name(k), tr.mbps[k], tr.measured[k] ? "measured" : "predicted",
                          k + 1 < EB_TEST_COUNT ? "," : "");
    char costs[400];
    if (tr.n_costs)
        eb_buf_printf(b, "\n  # COSTS %s", eb_tune_tradeoff_costs(&tr, costs, sizeof costs));
    eb_buf_printf(b, "\n");
    eb_buf_printf(b, "  - name: %s\n    label: \"Tune %d: %.0f KB\"\n    settings: {", t.name, rank,
                  st->free_kb);
    bool first = true;
    for (int f = 0; f < EB_F_COUNT; f++) {
        if (!t.set[f])
            continue;
        char v[32];
        eb_buf_printf(b, "%s%s: %s", first ? "" : ", ", eb_field_desc_get(f)->key,
                      eb_field_format(f, t.value[f], v, sizeof v));
        first = false;
    }
    eb_buf_printf(b, "}\n");
}

static int write_yaml(const eb_tune_space *s, const eb_tune_result *r, double floor_kb, double max_cost_pct,
                      const char *dir, eb_error *err)
{
    eb_buf b;
    eb_buf_init(&b);
    char obj[128];
    eb_buf_printf(&b,
                  "# espbench tune: the measured throughput / free-heap frontier of %s, objective %s,\n"
                  "# free heap >= %g KB. Format: espbench-profiles(5); load with --profiles %s.\n"
                  "# Build-time settings are the espbench image's (they were not searched).\n"
                  "overlay: %s\ntiers:\n",
                  s->chip->name, eb_tune_objective_format(&s->obj, obj, sizeof obj), floor_kb, dir, s->chip->name);
    for (int i = 0; i < r->n_frontier; i++)
        yaml_tier(&b, s, r, r->frontier[i], i + 1, max_cost_pct);
    if (r->n_frontier == 0)
        eb_buf_printf(&b, "  []\n");
    char path[600];
    snprintf(path, sizeof path, "%s/frontier.yaml", dir);
    int rc = eb_file_write_atomic(path, b.data, b.len, err);
    eb_buf_free(&b);
    return rc;
}

/* ------------------------------------------------------------ sdkconfig */

/* ESP-IDF option names (scripts/gen-sdkconfig.py writes the same ones for the
 * espbench image); KB windows as bytes, 65 KB = the 16-bit maximum. */
static long kb_bytes(int kb)
{
    return kb >= 64 ? 65534 : kb * 1024L;
}

static void sdk_line(eb_buf *b, const eb_tier *t, int f, const char *name, bool bytes)
{
    if (!t->set[f])
        return;
    if (eb_field_desc_get(f)->kind == EB_FK_BOOL)
        eb_buf_printf(b, t->value[f] ? "CONFIG_%s=y\n" : "# CONFIG_%s is not set\n", name);
    else
        eb_buf_printf(b, "CONFIG_%s=%ld\n", name, bytes ? kb_bytes(t->value[f]) : (long)t->value[f]);
}

static int write_sdkconfig(const eb_tune_space *s, const eb_tune_result *r, int i, const char *dir, eb_error *err)
{
    int c = r->frontier[i];
    eb_tier t;
    eb_tune_cand_tier(s, c, &t);
    eb_buf b;
    eb_buf_init(&b);
    eb_buf_printf(&b, "# espbench tune frontier point %d of %s: %s (%.2f Mbit/s, %.1f KB free)\n", i + 1,
                  s->chip->name, t.name, r->stat[c].score, r->stat[c].free_kb);
    sdk_line(&b, &t, EB_F_STATIC_RX, "ESP_WIFI_STATIC_RX_BUFFER_NUM", false);
    sdk_line(&b, &t, EB_F_DYNAMIC_RX, "ESP_WIFI_DYNAMIC_RX_BUFFER_NUM", false);
    eb_buf_printf(&b, "CONFIG_ESP_WIFI_DYNAMIC_TX_BUFFER=y\n");
    sdk_line(&b, &t, EB_F_DYNAMIC_TX, "ESP_WIFI_DYNAMIC_TX_BUFFER_NUM", false);
    if (t.value[EB_F_RX_BA_WIN] == 0) {
        eb_buf_printf(&b, "# CONFIG_ESP_WIFI_AMPDU_RX_ENABLED is not set\n");
    } else {
        eb_buf_printf(&b, "CONFIG_ESP_WIFI_AMPDU_RX_ENABLED=y\n");
        sdk_line(&b, &t, EB_F_RX_BA_WIN, "ESP_WIFI_RX_BA_WIN", false);
    }
    sdk_line(&b, &t, EB_F_TCP_SND_BUF_KB, "LWIP_TCP_SND_BUF_DEFAULT", true);
    sdk_line(&b, &t, EB_F_TCP_WND_KB, "LWIP_TCP_WND_DEFAULT", true);
    sdk_line(&b, &t, EB_F_TCP_MBOX, "LWIP_TCP_RECVMBOX_SIZE", false);
    sdk_line(&b, &t, EB_F_UDP_MBOX, "LWIP_UDP_RECVMBOX_SIZE", false);
    sdk_line(&b, &t, EB_F_TCPIP_MBOX, "LWIP_TCPIP_RECVMBOX_SIZE", false);
    sdk_line(&b, &t, EB_F_WIFI_IRAM_OPT, "ESP_WIFI_IRAM_OPT", false);
    sdk_line(&b, &t, EB_F_WIFI_RX_IRAM_OPT, "ESP_WIFI_RX_IRAM_OPT", false);
    sdk_line(&b, &t, EB_F_LWIP_IRAM_OPT, "LWIP_IRAM_OPTIMIZATION", false);
    char path[700];
    snprintf(path, sizeof path, "%s/sdkconfig.%s", dir, t.name);
    int rc = eb_file_write_atomic(path, b.data, b.len, err);
    eb_buf_free(&b);
    return rc;
}

/* ------------------------------------------------------------ frontier.html */

typedef struct chart {
    double x0, x1, y0, y1;
} chart;

#define CW 760.0
#define CH 420.0
#define ML 60.0
#define MB 40.0
#define MR 110.0 /* room for the rank labels right of the last point */

static double cx(const chart *c, double x)
{
    return ML + (x - c->x0) / (c->x1 - c->x0) * (CW - ML - MR);
}

static double cy(const chart *c, double y)
{
    return CH - MB - (y - c->y0) / (c->y1 - c->y0) * (CH - MB - 20);
}

static double published_score(const eb_tune_space *s, const eb_tier *t)
{
    return eb_tune_objective_score(&s->obj, t->ref_mbps);
}

static void chart_bounds(const eb_tune_space *s, const eb_tune_result *r, chart *c)
{
    c->x0 = INFINITY, c->x1 = -INFINITY, c->y0 = 0, c->y1 = 1;
    for (int i = 0; i < s->n; i++) {
        if (!r->stat[i].n)
            continue;
        c->x0 = fmin(c->x0, r->stat[i].free_kb);
        c->x1 = fmax(c->x1, r->stat[i].free_kb);
        c->y1 = fmax(c->y1, r->stat[i].hi);
    }
    for (int t = 0; t < s->chip->n_tiers; t++) {
        const eb_tier *x = &s->chip->tiers[t];
        double y = published_score(s, x);
        if (x->psram || !isfinite(y) || !isfinite(x->ref_avail_kb))
            continue;
        c->x0 = fmin(c->x0, x->ref_avail_kb);
        c->x1 = fmax(c->x1, x->ref_avail_kb);
        c->y1 = fmax(c->y1, y);
    }
    if (!isfinite(c->x0)) {
        c->x0 = 0;
        c->x1 = 1;
    }
    double pad = (c->x1 - c->x0) * 0.05 + 1;
    c->x0 = floor(c->x0 - pad);
    c->x1 = ceil(c->x1 + pad);
    c->y1 = ceil(c->y1 * 1.1);
}

static void chart_axes(eb_buf *b, const chart *c, const char *ylabel, double floor_kb)
{
    eb_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", ML, CH - MB, CW - MR,
                  CH - MB);
    eb_buf_printf(b, "<line x1=\"%.1f\" y1=\"20\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", ML, ML, CH - MB);
    for (int i = 0; i <= 5; i++) {
        double xv = c->x0 + (c->x1 - c->x0) * i / 5, yv = c->y0 + (c->y1 - c->y0) * i / 5;
        eb_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%.0f</text>\n",
                      cx(c, xv), CH - MB + 15, xv);
        eb_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.0f</text>\n", ML - 5,
                      cy(c, yv) + 4, yv);
    }
    eb_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">free heap (KB)</text>\n",
                  (ML + CW) / 2, CH - 5);
    eb_buf_printf(b, "<text x=\"14\" y=\"%.1f\" font-size=\"12\" transform=\"rotate(-90 14 %.1f)\" "
                     "text-anchor=\"middle\">%s (Mbit/s)</text>\n", CH / 2, CH / 2, ylabel);
    if (floor_kb > c->x0 && floor_kb < c->x1)
        eb_buf_printf(b, "<line x1=\"%.1f\" y1=\"20\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/>"
                         "<text x=\"%.1f\" y=\"32\" font-size=\"11\" fill=\"#c00\">floor %g KB</text>\n",
                      cx(c, floor_kb), cx(c, floor_kb), CH - MB, cx(c, floor_kb) + 4, floor_kb);
}

static void chart_points(eb_buf *b, const eb_tune_space *s, const eb_tune_result *r, const chart *c)
{
    for (int i = 0; i < s->n; i++)
        if (r->stat[i].n)
            eb_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#bbb\"/>\n", cx(c, r->stat[i].free_kb),
                          cy(c, r->stat[i].score));
    eb_buf_printf(b, "<polyline fill=\"none\" stroke=\"#1565c0\" stroke-width=\"2\" points=\"");
    for (int i = 0; i < r->n_frontier; i++) {
        const eb_tune_stat *st = &r->stat[r->frontier[i]];
        eb_buf_printf(b, "%.1f,%.1f ", cx(c, st->free_kb), cy(c, st->score));
    }
    eb_buf_printf(b, "\"/>\n");
    for (int i = 0; i < r->n_frontier; i++) {
        const eb_tune_stat *st = &r->stat[r->frontier[i]];
        double x = cx(c, st->free_kb);
        eb_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1565c0\"/>"
                         "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#1565c0\"/>\n",
                      x, cy(c, st->lo), x, cy(c, st->hi), x, cy(c, st->score));
    }
    for (int t = 0; t < s->chip->n_tiers; t++) {
        const eb_tier *x = &s->chip->tiers[t];
        double y = published_score(s, x);
        if (x->psram || !isfinite(y) || !isfinite(x->ref_avail_kb))
            continue;
        double px = cx(c, x->ref_avail_kb), py = cy(c, y);
        eb_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"#e65100\"/>"
                         "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#e65100\">%s</text>\n",
                      px - 4, py - 4, px + 7, py - 6, x->name);
    }
}

static int write_html(const eb_tune_space *s, const eb_tune_result *r, double floor_kb, double max_cost_pct,
                      const char *dir, eb_error *err)
{
    chart c;
    chart_bounds(s, r, &c);
    char obj[128];
    eb_tune_objective_format(&s->obj, obj, sizeof obj);
    eb_buf b;
    eb_buf_init(&b);
    eb_buf_printf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                      "<title>espbench tune: %s frontier</title>\n<style>body{font-family:sans-serif;margin:2em}"
                      "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
                      "</style></head><body>\n<h1>%s: throughput / free-heap frontier</h1>\n"
                      "<p>Objective %s, free heap &ge; %g KB; %d probes of %d candidates, %.0f s. Blue: the measured "
                      "frontier (95 %% intervals); grey: every candidate probed; orange: the published ranks "
                      "(the docs' figures, their own build-time settings).</p>\n",
                  s->chip->name, s->chip->display, obj, floor_kb, r->probes, s->n, r->spent_s);
    eb_buf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" role=\"img\" "
                      "aria-label=\"frontier chart\">\n", CW, CH);
    chart_axes(&b, &c, obj, floor_kb);
    chart_points(&b, s, r, &c);
    eb_buf_printf(&b, "</svg>\n<table><tr><th>tier</th><th>settings</th><th>Mbit/s</th><th>95%% CI</th>"
                      "<th>free KB</th><th>probes</th>");
    for (int t = 0; t < EB_TEST_COUNT; t++)
        eb_buf_printf(&b, "<th>%s</th>", eb_test_label(t));
    eb_buf_printf(&b, "<th>notes</th></tr>\n");
    for (int i = 0; i < r->n_frontier; i++) {
        int k = r->frontier[i];
        char name[64], set[160], costs[400];
        eb_buf_printf(&b, "<tr><td>%s</td><td>%s</td><td>%.2f</td><td>%.2f&ndash;%.2f</td><td>%.1f</td><td>%d</td>",
                      eb_tune_cand_name(s, k, name, sizeof name), eb_tune_cand_settings(s, k, set, sizeof set),
                      r->stat[k].score, r->stat[k].lo, r->stat[k].hi, r->stat[k].free_kb, r->stat[k].n);
        eb_tune_tradeoff t;
        eb_tune_tradeoff_of(s, r, k, max_cost_pct, &t);
        for (int x = 0; x < EB_TEST_COUNT; x++)
            eb_buf_printf(&b, isfinite(t.mbps[x]) ? "<td>%.2f %s</td>" : "<td>-</td>", t.mbps[x],
                          t.measured[x] ? "measured" : "predicted");
        eb_buf_printf(&b, "<td>%s%s%s%s</td></tr>\n", t.n_costs ? "costs " : "",
                      eb_tune_tradeoff_costs(&t, costs, sizeof costs), t.n_costs && t.tentative ? "; " : "",
                      t.tentative ? "tentative: one probe" : "");
    }
    eb_buf_printf(&b, "</table>\n<p>Predicted: the tier model's figure (the probes ran the objective's tests only). "
                      "Costs: a test outside the objective more than %g %% below the %s tier's figure. Tentative: the "
                      "95 %% interval rests on one probe.</p>\n</body></html>\n",
                  max_cost_pct > 0 ? max_cost_pct : EB_TUNE_MAX_COST_PCT,
                  eb_tune_baseline_name(s) ? eb_tune_baseline_name(s) : "baseline");
    char path[600];
    snprintf(path, sizeof path, "%s/frontier.html", dir);
    int rc = eb_file_write_atomic(path, b.data, b.len, err);
    eb_buf_free(&b);
    return rc;
}

int eb_tune_write_outputs(const eb_tune_space *s, const eb_tune_plan *plan, const eb_tune_result *r,
                          double floor_kb, double max_cost_pct, const char *out_dir, eb_error *err)
{
    (void)plan;
    int rc = write_yaml(s, r, floor_kb, max_cost_pct, out_dir, err);
    for (int i = 0; !rc && i < r->n_frontier; i++)
        rc = write_sdkconfig(s, r, i, out_dir, err);
    if (!rc)
        rc = write_html(s, r, floor_kb, max_cost_pct, out_dir, err);
    if (!rc) {
        char *t = eb_tune_frontier_table(s, r, max_cost_pct);
        char path[600];
        snprintf(path, sizeof path, "%s/frontier.txt", out_dir);
        rc = t ? eb_file_write_atomic(path, t, strlen(t), err) : eb_fail(err, EB_EIO, "out of memory");
        free(t);
    }
    return rc;
}

/* ------------------------------------------------------------ the plan */

char *eb_tune_plan_text(const eb_tune_space *s, const eb_tune_plan *p, const eb_tune_config *cfg)
{
    eb_buf b;
    eb_buf_init(&b);
    char obj[128];
    eb_buf_printf(&b, "tune %s, objective %s, free heap >= %g KB, budget %.0f s\n", s->chip->name,
                  eb_tune_objective_format(&s->obj, obj, sizeof obj), cfg->min_free_kb, cfg->budget_s);
    eb_buf_printf(&b, "space: %d valid candidates of %d combinations (", s->n, s->n_combos);
    for (int k = 0; k < s->n_fields; k++)
        eb_buf_printf(&b, "%s%s %d values", k ? ", " : "", eb_field_desc_get(s->field[k])->key, s->n_values[k]);
    eb_buf_printf(&b, "); the model's frontier above the floor: %d points\n", p->model_front_n);
    eb_buf_printf(&b, "start: %d points (%d published ranks, %d on the model's frontier)\n", p->n_starts,
                  p->n_published, p->n_model);
    for (int i = 0; i < p->n_starts; i++) {
        int c = p->starts[i];
        char name[64], set[160];
        eb_buf_printf(&b, "  %-26s %-52s model %6.2f Mbit/s %6.1f KB%s%s\n", eb_tune_cand_name(s, c, name, sizeof name),
                      eb_tune_cand_settings(s, c, set, sizeof set), s->cands[c].pred_score, s->cands[c].pred_free_kb,
                      s->cands[c].published >= 0 ? "  = " : "",
                      s->cands[c].published >= 0 ? s->chip->tiers[s->cands[c].published].name : "");
    }
    eb_buf_printf(&b, "explore: up to %d neighbours of the measured frontier\n", p->n_explore);
    for (int r = 0; r < p->n_rungs; r++)
        eb_buf_printf(&b, "rung %d: %d candidates x %d test%s x %.1f s  ~%.0f s\n", r, p->rung_n[r], p->n_tests,
                      p->n_tests > 1 ? "s" : "", p->rung_d[r], p->rung_cost_s[r]);
    eb_buf_printf(&b, "final: the frontier re-measured at %.1f s, repeats until the 95%% intervals separate "
                      "(up to %.0f s)\n", p->final_d, p->final_cost_s);
    eb_buf_printf(&b, "predicted duration: %.0f s (budget %.0f s)\n", p->predicted_s, cfg->budget_s);
    char *out = strdup(buf_text(&b));
    eb_buf_free(&b);
    return out;
}
