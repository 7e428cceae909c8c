/* One self-contained HTML page: inline CSS and inline SVG drawn here, no
 * scripts and no network resources. Per chip: tiers side by side (bars, with
 * the docs' figure as a tick), throughput over time per test (one line per
 * tier), memory against throughput, measured against the docs; then the
 * docs' rank table and the run metadata. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_internal.h"

static const char *const test_colour[EB_TEST_COUNT] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"};
static const char *const tier_colour[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                          "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define N_TIER_COLOURS (int)(sizeof tier_colour / sizeof tier_colour[0])

static void html_text(eb_buf *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': eb_buf_append(out, "&amp;", 5); break;
        case '<': eb_buf_append(out, "&lt;", 4); break;
        case '>': eb_buf_append(out, "&gt;", 4); break;
        case '"': eb_buf_append(out, "&quot;", 6); break;
        default: eb_buf_append_byte(out, (uint8_t)*s);
        }
    }
}

/* A round axis maximum and tick step for values up to vmax. */
static double nice_step(double vmax, double *axis_max)
{
    if (!(vmax > 0))
        vmax = 1;
    double raw = vmax / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;
    double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
    *axis_max = ceil(vmax / step) * step;
    return step;
}

/* Plot area geometry of every chart. */
enum { W = 560, H = 300, ML = 56, MR = 16, MT = 28, MB = 44 };
#define PW (W - ML - MR)
#define PH (H - MT - MB)

typedef struct axes {
    double xmax, ymax, xstep, ystep;
} axes;

static double px(const axes *a, double x) { return ML + x / a->xmax * PW; }
static double py(const axes *a, double y) { return MT + PH - y / a->ymax * PH; }

static void svg_open(eb_buf *out, const char *title)
{
    eb_buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                       "role=\"img\"><title>", W, H, W, H);
    html_text(out, title);
    eb_buf_printf(out, "</title><text x=\"%d\" y=\"18\" class=\"ct\">", ML);
    html_text(out, title);
    eb_buf_printf(out, "</text>\n");
}

/* Grid, ticks and axis titles. xstep 0 = no numeric x axis (bar charts). */
static void svg_axes(eb_buf *out, const axes *a, const char *xtitle, const char *ytitle)
{
    for (double y = 0; y <= a->ymax + a->ystep / 2; y += a->ystep) {
        eb_buf_printf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>"
                           "<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%g</text>\n",
                      ML, py(a, y), W - MR, py(a, y), ML - 6, py(a, y) + 4, y);
    }
    if (a->xstep > 0)
        for (double x = 0; x <= a->xmax + a->xstep / 2; x += a->xstep)
            eb_buf_printf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>"
                               "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%g</text>\n",
                          px(a, x), MT, px(a, x), MT + PH, px(a, x), MT + PH + 16, x);
    eb_buf_printf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>", ML, MT + PH, W - MR, MT + PH);
    eb_buf_printf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n", ML, MT, ML, MT + PH);
    if (xtitle) {
        eb_buf_printf(out, "<text x=\"%d\" y=\"%d\" class=\"at\" text-anchor=\"middle\">", ML + PW / 2, H - 6);
        html_text(out, xtitle);
        eb_buf_printf(out, "</text>");
    }
    eb_buf_printf(out, "<text transform=\"translate(14,%d) rotate(-90)\" class=\"at\" text-anchor=\"middle\">",
                  MT + PH / 2);
    html_text(out, ytitle);
    eb_buf_printf(out, "</text>\n");
}

static void legend_item(eb_buf *out, int i, const char *colour, const char *label)
{
    int x = ML + 8 + (i % 4) * 120, y = MT + 8 + (i / 4) * 14;
    eb_buf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                       "<text x=\"%d\" y=\"%d\" class=\"lg\">", x, y, colour, x + 14, y + 9);
    html_text(out, label);
    eb_buf_printf(out, "</text>\n");
}

typedef struct chip_view {
    const eb_results *r;
    const eb_profiles *p;
    const eb_report_opts *o;
    const char *chip;
    const char *tiers[REP_MAX_TIERS];
    int n_tiers;
} chip_view;

/* Tiers side by side: a group of four bars per tier, the docs' figure as a black tick. */
static void chart_tiers(eb_buf *out, const chip_view *v)
{
    double vmax = 0;
    for (int t = 0; t < v->n_tiers; t++)
        for (int k = 0; k < EB_TEST_COUNT; k++) {
            double m = eb_results_cell(v->r, v->chip, v->tiers[t], k, v->o->stat, NULL);
            double ref = rep_ref(v->p, v->chip, v->tiers[t], k);
            if (isfinite(m) && m > vmax) vmax = m;
            if (isfinite(ref) && ref > vmax) vmax = ref;
        }
    axes a = {1, 0, 0, 0};
    a.ystep = nice_step(vmax * 1.15, &a.ymax);
    svg_open(out, "Throughput by tier (Mbit/s; black tick = docs)");
    svg_axes(out, &a, NULL, "Mbit/s");
    double group = (double)PW / (v->n_tiers ? v->n_tiers : 1), bar = group * 0.8 / EB_TEST_COUNT;
    for (int t = 0; t < v->n_tiers; t++) {
        double gx = ML + group * t + group * 0.1;
        for (int k = 0; k < EB_TEST_COUNT; k++) {
            double m = eb_results_cell(v->r, v->chip, v->tiers[t], k, v->o->stat, NULL);
            double x = gx + bar * k;
            if (isfinite(m)) {
                /* The tier name comes from the input file: escaped like every other name. */
                eb_buf_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
                              x, py(&a, m), bar - 1, MT + PH - py(&a, m), test_colour[k]);
                html_text(out, v->tiers[t]);
                eb_buf_printf(out, " %s: %.1f Mbit/s</title></rect>", eb_test_label(k), m);
            }
            double ref = rep_ref(v->p, v->chip, v->tiers[t], k);
            if (isfinite(ref))
                eb_buf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"ref\"/>", x,
                              py(&a, ref), x + bar - 1, py(&a, ref));
        }
        eb_buf_printf(out, "\n<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">",
                      ML + group * t + group / 2, MT + PH + 16);
        char label[96];
        rep_tier_label_full(label, sizeof label, v->p, v->chip, v->tiers[t], v->o->lang);
        html_text(out, label);
        eb_buf_printf(out, "</text>\n");
    }
    for (int k = 0; k < EB_TEST_COUNT; k++)
        legend_item(out, k, test_colour[k], eb_test_label(k));
    eb_buf_printf(out, "</svg>\n");
}

static void html_table(eb_buf *out, rep_table *t);

/* One test's tiers across ESP-IDF versions: a group per tier, a bar per
 * version (oldest first), the free heap in each bar's tooltip. */
static void chart_idf(eb_buf *out, const chip_view *v, int test, const char *const *vers, int n_vers)
{
    double vmax = 0;
    for (int t = 0; t < v->n_tiers; t++)
        for (int k = 0; k < n_vers; k++) {
            double m = eb_results_cell_idf(v->r, v->chip, v->tiers[t], test, vers[k], v->o->stat, NULL);
            if (isfinite(m) && m > vmax) vmax = m;
        }
    if (vmax <= 0)
        return;
    axes a = {1, 0, 0, 0};
    a.ystep = nice_step(vmax * 1.15 + (n_vers > 4 ? vmax * 0.1 : 0), &a.ymax);
    char title[96];
    snprintf(title, sizeof title, "%s by ESP-IDF version (Mbit/s)", eb_test_label(test));
    svg_open(out, title);
    svg_axes(out, &a, NULL, "Mbit/s");
    double group = (double)PW / (v->n_tiers ? v->n_tiers : 1), bar = group * 0.8 / n_vers;
    for (int t = 0; t < v->n_tiers; t++) {
        double gx = ML + group * t + group * 0.1;
        for (int k = 0; k < n_vers; k++) {
            double m = eb_results_cell_idf(v->r, v->chip, v->tiers[t], test, vers[k], v->o->stat, NULL);
            if (!isfinite(m))
                continue;
            double heap = eb_results_free_heap_idf(v->r, v->chip, v->tiers[t], vers[k]);
            eb_buf_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
                          gx + bar * k, py(&a, m), bar - 1, MT + PH - py(&a, m), tier_colour[k % N_TIER_COLOURS]);
            html_text(out, v->tiers[t]);
            eb_buf_printf(out, ", ESP-IDF ");
            html_text(out, vers[k]);
            eb_buf_printf(out, ": %.1f Mbit/s", m);
            if (isfinite(heap))
                eb_buf_printf(out, ", free heap %.1f KiB", heap / 1024.0);
            eb_buf_printf(out, "</title></rect>");
        }
        eb_buf_printf(out, "\n<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">",
                      ML + group * t + group / 2, MT + PH + 16);
        char label[96];
        rep_tier_label_full(label, sizeof label, v->p, v->chip, v->tiers[t], v->o->lang);
        html_text(out, label);
        eb_buf_printf(out, "</text>\n");
    }
    for (int k = 0; k < n_vers; k++)
        legend_item(out, k, tier_colour[k % N_TIER_COLOURS], vers[k]);
    eb_buf_printf(out, "</svg>\n");
}

/* The "By ESP-IDF version" section: per chip the charts and the table. */
static void html_idf(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *const *chips,
                     int n_chips, eb_buf *out)
{
    const char *vers[REP_MAX_IDF];
    int n_vers = rep_idf_section_versions(r, o, vers, REP_MAX_IDF);
    if (!n_vers)
        return;
    eb_buf_printf(out, "<h2>By ESP-IDF version</h2>\n<p class=\"note\">");
    html_text(out, rep_idf_note(o->stat));
    eb_buf_printf(out, "</p>\n");
    for (int i = 0; i < n_chips; i++) {
        rep_table t;
        rep_idf_table(r, p, o, chips[i], &t);
        if (t.n_rows) {
            chip_view v = {.r = r, .p = p, .o = o, .chip = chips[i]};
            v.n_tiers = eb_results_tiers(r, p, chips[i], v.tiers, REP_MAX_TIERS);
            eb_buf_printf(out, "<h3>");
            html_text(out, rep_chip_display(p, chips[i]));
            eb_buf_printf(out, "</h3>\n<div class=\"charts\">\n");
            for (int test = 0; test < EB_TEST_COUNT; test++)
                chart_idf(out, &v, test, vers, n_vers);
            eb_buf_printf(out, "</div>\n");
            html_table(out, &t);
        }
        rep_table_free(&t);
    }
}

/* The receiver-side intervals of the first ok entry of a cell (repeat order). */
static const eb_entry *first_entry(const chip_view *v, const char *tier, int test)
{
    const eb_entry *best = NULL;
    for (int i = 0; i < v->r->n_entries; i++) {
        const eb_entry *e = &v->r->entries[i];
        if (e->test == test && !strcmp(e->chip, v->chip) && !strcmp(e->tier, tier) && e->receiver.n > 0 &&
            (!best || e->repeat < best->repeat))
            best = e;
    }
    return best;
}

/* Throughput over time for one test: one line per tier. */
static void chart_time(eb_buf *out, const chip_view *v, int test)
{
    double xmax = 0, ymax = 0;
    for (int t = 0; t < v->n_tiers; t++) {
        const eb_entry *e = first_entry(v, v->tiers[t], test);
        for (int i = 0; e && i < e->receiver.n; i++) {
            eb_interval iv = eb_ivs_at(&e->receiver, i);
            if (isfinite(iv.end_s) && iv.end_s > xmax) xmax = iv.end_s;
            if (isfinite(iv.mbps) && iv.mbps > ymax) ymax = iv.mbps;
        }
    }
    if (xmax <= 0)
        return;
    axes a;
    a.xstep = nice_step(xmax, &a.xmax);
    a.ystep = nice_step(ymax * 1.3, &a.ymax);
    char title[96];
    snprintf(title, sizeof title, "%s over time (receiver side, Mbit/s)", eb_test_label(test));
    svg_open(out, title);
    svg_axes(out, &a, "seconds", "Mbit/s");
    int li = 0;
    for (int t = 0; t < v->n_tiers; t++) {
        const eb_entry *e = first_entry(v, v->tiers[t], test);
        if (!e)
            continue;
        const char *colour = tier_colour[t % N_TIER_COLOURS];
        eb_buf_printf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colour);
        for (int i = 0; i < e->receiver.n; i++) {
            const eb_interval iv_at = eb_ivs_at(&e->receiver, i), *iv = &iv_at;
            if (isfinite(iv->end_s) && isfinite(iv->mbps))
                eb_buf_printf(out, "%.1f,%.1f ", px(&a, iv->end_s), py(&a, iv->mbps));
        }
        eb_buf_printf(out, "\"><title>");
        html_text(out, v->tiers[t]);
        eb_buf_printf(out, "</title></polyline>\n");
        char label[96];
        rep_tier_label_full(label, sizeof label, v->p, v->chip, v->tiers[t], v->o->lang);
        legend_item(out, li++, colour, label);
    }
    eb_buf_printf(out, "</svg>\n");
}

static void point(eb_buf *out, double x, double y, const char *colour, const char *tip)
{
    eb_buf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\" fill-opacity=\"0.85\"><title>", x, y,
                  colour);
    html_text(out, tip);
    eb_buf_printf(out, "</title></circle>\n");
}

/* Free memory (x) against throughput (y), a point per tier and test. */
static void chart_memory(eb_buf *out, const chip_view *v)
{
    double xmax = 0, ymax = 0;
    for (int t = 0; t < v->n_tiers; t++) {
        double kb = eb_results_cell_free_heap(v->r, v->chip, v->tiers[t]) / 1024.0;
        if (!isfinite(kb))
            continue;
        if (kb > xmax) xmax = kb;
        for (int k = 0; k < EB_TEST_COUNT; k++) {
            double m = eb_results_cell(v->r, v->chip, v->tiers[t], k, v->o->stat, NULL);
            if (isfinite(m) && m > ymax) ymax = m;
        }
    }
    if (xmax <= 0)
        return;
    axes a;
    a.xstep = nice_step(xmax * 1.1, &a.xmax);
    a.ystep = nice_step(ymax * 1.15, &a.ymax);
    svg_open(out, "Free memory against throughput");
    svg_axes(out, &a, "free heap after the test (KB)", "Mbit/s");
    for (int t = 0; t < v->n_tiers; t++) {
        double kb = eb_results_cell_free_heap(v->r, v->chip, v->tiers[t]) / 1024.0;
        if (!isfinite(kb))
            continue;
        for (int k = 0; k < EB_TEST_COUNT; k++) {
            double m = eb_results_cell(v->r, v->chip, v->tiers[t], k, v->o->stat, NULL);
            if (!isfinite(m))
                continue;
            char tip[160];
            snprintf(tip, sizeof tip, "%s %s: %.1f KB free, %.1f Mbit/s", v->tiers[t], eb_test_label(k), kb, m);
            point(out, px(&a, kb), py(&a, m), test_colour[k], tip);
        }
    }
    for (int k = 0; k < EB_TEST_COUNT; k++)
        legend_item(out, k, test_colour[k], eb_test_label(k));
    eb_buf_printf(out, "</svg>\n");
}

/* Measured (y) against the docs (x); the diagonal is "as documented". */
static void chart_vs_docs(eb_buf *out, const chip_view *v)
{
    double vmax = 0;
    int n = 0;
    for (int t = 0; t < v->n_tiers; t++)
        for (int k = 0; k < EB_TEST_COUNT; k++) {
            double m = eb_results_cell(v->r, v->chip, v->tiers[t], k, v->o->stat, NULL);
            double ref = rep_ref(v->p, v->chip, v->tiers[t], k);
            if (!isfinite(m) || !isfinite(ref))
                continue;
            n++;
            vmax = fmax(vmax, fmax(m, ref));
        }
    if (n == 0)
        return;
    axes a;
    a.xstep = a.ystep = nice_step(vmax * 1.1, &a.xmax);
    a.ymax = a.xmax;
    bool replay = false;
    const char *sim = rep_sim_note(v->r, v->chip, &replay);
    svg_open(out, !sim ? "Measured against the docs (Mbit/s)"
                  : rep_emulated(v->r, v->chip) ? "Emulated against the docs (Mbit/s): QEMU, Ethernet in place of Wi-Fi"
                  : replay ? "Simulated against the docs (Mbit/s): a replay of the docs' table"
                           : "Simulated against the docs (Mbit/s): tier model and replayed figures");
    svg_axes(out, &a, "docs (Mbit/s)", "measured (Mbit/s)");
    eb_buf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"diag\"/>\n", px(&a, 0),
                  py(&a, 0), px(&a, a.xmax), py(&a, a.ymax));
    for (int t = 0; t < v->n_tiers; t++)
        for (int k = 0; k < EB_TEST_COUNT; k++) {
            double m = eb_results_cell(v->r, v->chip, v->tiers[t], k, v->o->stat, NULL);
            double ref = rep_ref(v->p, v->chip, v->tiers[t], k);
            if (!isfinite(m) || !isfinite(ref))
                continue;
            char tip[160];
            snprintf(tip, sizeof tip, "%s %s: %.1f measured, %.1f docs (%+.1f %%)", v->tiers[t], eb_test_label(k), m,
                     ref, (m - ref) / ref * 100);
            point(out, px(&a, ref), py(&a, m), test_colour[k], tip);
        }
    for (int k = 0; k < EB_TEST_COUNT; k++)
        legend_item(out, k, test_colour[k], eb_test_label(k));
    eb_buf_printf(out, "</svg>\n");
}

/* Spread over repeats: per tier, per test, the runs as dots, their range as a
 * thin line, the 95 % t interval of the mean as a box and the mean as a bar. */
static void chart_spread(eb_buf *out, const chip_view *v)
{
    double vmax = 0;
    int n_groups = 0;
    for (int t = 0; t < v->n_tiers; t++) {
        bool any = false;
        for (int k = 0; k < EB_TEST_COUNT; k++) {
            rep_spread sp;
            if (rep_cell_spread(v->r, v->chip, v->tiers[t], k, v->o->stat, &sp) >= 2) {
                any = true;
                if (sp.s.max > vmax)
                    vmax = sp.s.max;
            }
        }
        n_groups += any;
    }
    if (n_groups == 0)
        return;
    axes a = {1, 0, 0, 0};
    a.ystep = nice_step(vmax * 1.15, &a.ymax);
    svg_open(out, "Spread over repeats (dots = runs, box = 95 % interval of the mean)");
    svg_axes(out, &a, NULL, "Mbit/s");
    double group = (double)PW / n_groups, slot = group * 0.8 / EB_TEST_COUNT;
    int g = 0;
    for (int t = 0; t < v->n_tiers; t++) {
        bool any = false;
        double gx = ML + group * g + group * 0.1;
        for (int k = 0; k < EB_TEST_COUNT; k++) {
            rep_spread sp;
            int n = rep_cell_spread(v->r, v->chip, v->tiers[t], k, v->o->stat, &sp);
            if (n < 2)
                continue;
            any = true;
            double cx = gx + slot * k + slot / 2, half = slot * 0.3;
            double q = eb_student_t_quantile(0.975, n - 1), se = sp.s.stddev / sqrt(n);
            double lo = sp.s.mean - q * se, hi = sp.s.mean + q * se;
            if (lo < 0)
                lo = 0;
            eb_buf_printf(out, "<g><title>");
            html_text(out, v->tiers[t]);
            eb_buf_printf(out, " %s: %d runs, mean %.2f, median %.2f, sd %.2f (CV %.1f %%), min %.2f, max %.2f, "
                               "95 %% interval of the mean %.2f-%.2f Mbit/s</title>",
                          eb_test_label(k), n, sp.s.mean, sp.s.median, sp.s.stddev, sp.s.cv_pct, sp.s.min, sp.s.max,
                          lo, hi);
            eb_buf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>", cx,
                          py(&a, sp.s.min), cx, py(&a, sp.s.max), test_colour[k]);
            eb_buf_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                               "fill-opacity=\"0.25\" stroke=\"%s\"/>",
                          cx - half, py(&a, hi), 2 * half, fmax(py(&a, lo) - py(&a, hi), 1), test_colour[k],
                          test_colour[k]);
            eb_buf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
                               "stroke-width=\"2\"/>",
                          cx - half, py(&a, sp.s.mean), cx + half, py(&a, sp.s.mean));
            for (int i = 0; i < n; i++)
                eb_buf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>",
                              cx + half * 1.6, py(&a, sp.values[i]), test_colour[k]);
            eb_buf_printf(out, "</g>\n");
        }
        if (any) {
            eb_buf_printf(out, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">",
                          ML + group * g + group / 2, MT + PH + 16);
            html_text(out, v->tiers[t]);
            eb_buf_printf(out, "</text>\n");
            g++;
        }
    }
    for (int k = 0; k < EB_TEST_COUNT; k++)
        legend_item(out, k, test_colour[k], eb_test_label(k));
    eb_buf_printf(out, "</svg>\n");
}

/* Sweep: throughput of one test against the swept variable, one line per
 * tier through the means of its runs at each point, the runs as dots and,
 * with repeats, the 95 % t interval of the mean as a bar. */
static const char *sweep_axis_title(const char *var)
{
    static const struct { const char *key, *title; } t[] = {
        {"udp_rate", "offered UDP rate (Mbit/s)"}, {"tx_power", "TX power (dBm)"}, {"rssi", "RSSI (dBm)"},
        {"loss", "packet loss (%)"},            {"rtt", "added round trip (ms)"},
        {"attenuation", "attenuation (dB)"},    {"channel", "AP channel"},
        {"bandwidth", "AP channel width (MHz)"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(var, t[i].key))
            return t[i].title;
    return var;
}

static void chart_sweep(eb_buf *out, const chip_view *v, int test)
{
    char var[24];
    double pts[REP_MAX_POINTS];
    int np = rep_sweep_points(v->r, v->chip, var, sizeof var, pts, REP_MAX_POINTS);
    if (np == 0)
        return;
    double vmax = 0;
    bool any = false;
    rep_spread sp;
    for (int t = 0; t < v->n_tiers; t++)
        for (int k = 0; k < np; k++)
            if (rep_point_spread(v->r, v->chip, v->tiers[t], test, var, pts[k], v->o->stat, &sp) > 0) {
                any = true;
                vmax = fmax(vmax, sp.s.max);
            }
    if (!any)
        return;
    double x0 = pts[0], x1 = np > 1 ? pts[np - 1] : pts[0] + 1, pad = (x1 - x0) * 0.05;
    x0 -= pad;
    x1 += pad;
    axes a = {1, 0, 0, 0};
    a.ystep = nice_step(vmax * 1.15, &a.ymax);
    char title[96];
    snprintf(title, sizeof title, "%s against the sweep", eb_test_label(test));
    svg_open(out, title);
    svg_axes(out, &a, sweep_axis_title(var), "Mbit/s");
    for (int k = 0; k < np; k++) /* the points as x ticks */
        eb_buf_printf(out, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%g</text>\n",
                      ML + (pts[k] - x0) / (x1 - x0) * PW, MT + PH + 16, pts[k]);
    for (int t = 0; t < v->n_tiers; t++) {
        const char *colour = tier_colour[t % N_TIER_COLOURS];
        eb_buf line = {0};
        int on_line = 0;
        for (int k = 0; k < np; k++) {
            int n = rep_point_spread(v->r, v->chip, v->tiers[t], test, var, pts[k], v->o->stat, &sp);
            if (n == 0)
                continue;
            double x = ML + (pts[k] - x0) / (x1 - x0) * PW;
            eb_buf_printf(&line, "%s%.1f,%.1f", on_line++ ? " " : "", x, py(&a, sp.s.mean));
            eb_buf_printf(out, "<g><title>");
            html_text(out, v->tiers[t]);
            eb_buf_printf(out, " at %g: %d run%s, mean %.2f Mbit/s", pts[k], n, n == 1 ? "" : "s", sp.s.mean);
            if (n >= 2) {
                double q = eb_student_t_quantile(0.975, n - 1), se = sp.s.stddev / sqrt(n);
                double lo = fmax(sp.s.mean - q * se, 0), hi = sp.s.mean + q * se;
                eb_buf_printf(out, ", sd %.2f, 95 %% interval of the mean %.2f-%.2f</title>", sp.s.stddev, lo, hi);
                eb_buf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                                   "stroke-width=\"3\" stroke-opacity=\"0.5\"/>",
                              x, py(&a, fmin(hi, a.ymax)), x, py(&a, lo), colour);
            } else {
                eb_buf_printf(out, "</title>");
            }
            for (int i = 0; i < n; i++)
                eb_buf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\"/>", x + 5,
                              py(&a, sp.values[i]), colour);
            eb_buf_printf(out, "</g>\n");
        }
        if (on_line)
            eb_buf_printf(out, "<polyline points=\"%.*s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                          (int)line.len, (const char *)line.data, colour);
        eb_buf_free(&line);
        legend_item(out, t, colour, v->tiers[t]);
    }
    eb_buf_printf(out, "</svg>\n");
}

/* Throughput against the RSSI the board reported, for runs through a lab
 * attenuator (or an rssi sweep): one line per tier through its runs in
 * RSSI order, ESP-IDF's ThroughputVsRSSI chart. */
static void chart_rssi(eb_buf *out, const chip_view *v, int test)
{
    double x[REP_MAX_POINTS * 4], y[REP_MAX_POINTS * 4];
    int cap = REP_MAX_POINTS * 4;
    int n = rep_rssi_points(v->r, v->chip, NULL, test, v->o->stat, x, y, cap);
    if (n == 0)
        return;
    double vmax = 0;
    for (int i = 0; i < n; i++)
        vmax = fmax(vmax, y[i]);
    double x0 = floor(x[0] / 5) * 5 - 5, x1 = ceil(x[n - 1] / 5) * 5 + 5;
    axes a = {1, 0, 0, 0};
    a.ystep = nice_step(vmax * 1.15, &a.ymax);
    char title[96];
    snprintf(title, sizeof title, "%s against the RSSI", eb_test_label(test));
    svg_open(out, title);
    svg_axes(out, &a, "RSSI the board reported before the test (dBm)", "Mbit/s");
    for (double t = x0; t <= x1 + 0.5; t += 10)
        eb_buf_printf(out, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%g</text>\n",
                      ML + (t - x0) / (x1 - x0) * PW, MT + PH + 16, t);
    for (int t = 0; t < v->n_tiers; t++) {
        int m = rep_rssi_points(v->r, v->chip, v->tiers[t], test, v->o->stat, x, y, cap);
        if (m == 0)
            continue;
        const char *colour = tier_colour[t % N_TIER_COLOURS];
        eb_buf line = {0};
        for (int i = 0; i < m; i++) {
            double cx = ML + (x[i] - x0) / (x1 - x0) * PW;
            eb_buf_printf(&line, "%s%.1f,%.1f", i ? " " : "", cx, py(&a, y[i]));
            eb_buf_printf(out, "<g><title>");
            html_text(out, v->tiers[t]);
            eb_buf_printf(out, " at %g dBm: %.2f Mbit/s</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>"
                               "</g>\n", x[i], y[i], cx, py(&a, y[i]), colour);
        }
        eb_buf_printf(out, "<polyline points=\"%.*s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                      (int)line.len, (const char *)line.data, colour);
        eb_buf_free(&line);
        legend_item(out, t, colour, v->tiers[t]);
    }
    eb_buf_printf(out, "</svg>\n");
}

static void html_prov_item(void *ctx, const char *label, const char *value)
{
    eb_buf *out = ctx;
    eb_buf_printf(out, "<tr><th>");
    html_text(out, label);
    eb_buf_printf(out, "</th><td>");
    html_text(out, value);
    eb_buf_printf(out, "</td></tr>\n");
}

static void html_table(eb_buf *out, rep_table *t)
{
    eb_buf_printf(out, "<table>\n");
    for (int r = 0; r < t->n_rows; r++) {
        eb_buf_printf(out, "<tr>");
        for (int c = 0; c < t->n_cols; c++) {
            const char *tag = r == 0 || c == 0 ? "th" : "td";
            eb_buf_printf(out, "<%s>", tag);
            html_text(out, rep_cell(t, r, c));
            eb_buf_printf(out, "</%s>", tag);
        }
        eb_buf_printf(out, "</tr>\n");
    }
    eb_buf_printf(out, "</table>\n");
}

static void boards_table(eb_buf *out, const eb_results *r, const char *chip)
{
    eb_buf_printf(out, "<table class=\"meta\"><tr><th>board</th><th>chip</th><th>MAC</th><th>port</th><th>firmware"
                       "</th><th>IDF</th><th>AP</th><th>RSSI</th><th>iperf</th><th>started</th><th>finished</th></tr>\n");
    for (int i = 0; i < r->n_boards; i++) {
        const eb_board_meta *b = &r->boards[i];
        if (chip && b->chip[0] && strcmp(b->chip, chip))
            continue;
        const char *cells[] = {b->board, b->chip, b->mac, b->port, b->fw_project, b->idf_version, b->ap_ssid};
        eb_buf_printf(out, "<tr>");
        for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++) {
            eb_buf_printf(out, "<td>");
            html_text(out, cells[c]);
            eb_buf_printf(out, "</td>");
        }
        if (b->rssi)
            eb_buf_printf(out, "<td>%d dBm</td>", b->rssi);
        else
            eb_buf_printf(out, "<td></td>");
        const char *tail[] = {b->iperf_version, b->started, b->finished};
        for (size_t c = 0; c < 3; c++) {
            eb_buf_printf(out, "<td>");
            html_text(out, tail[c]);
            eb_buf_printf(out, "</td>");
        }
        eb_buf_printf(out, "</tr>\n");
    }
    eb_buf_printf(out, "</table>\n");
}

static const char css[] =
    "body{font-family:sans-serif;margin:24px;color:#222;background:#fff}"
    "h1{font-size:22px}h2{font-size:19px;border-bottom:1px solid #ccc;margin-top:32px}"
    ".charts{display:flex;flex-wrap:wrap;gap:12px}svg{background:#fafafa;border:1px solid #e4e4e4}"
    ".ct{font-size:13px;font-weight:bold;fill:#222}.tick{font-size:10px;fill:#555}.at{font-size:11px;fill:#333}"
    ".lg{font-size:10px;fill:#333}.grid{stroke:#e6e6e6}.axis{stroke:#888}.ref{stroke:#000;stroke-width:2}"
    ".diag{stroke:#999;stroke-dasharray:4 3}"
    "table{border-collapse:collapse;margin:12px 0;font-size:12px}th,td{border:1px solid #ccc;padding:3px 7px;"
    "text-align:right}th{background:#f0f0f0}tr th:first-child{text-align:left}.meta td{text-align:left}"
    ".note{color:#555;font-size:13px}";

/* ESP-Hosted pairs: the performance guide's table per host, co-processor, transport and tier
 * (the host chip's charts follow in its own section). */
static void html_hosted(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, eb_buf *out)
{
    const eb_entry *g[32];
    int n = rep_hosted_groups(r, o, g, 32);
    for (int i = 0; i < n; i++) {
        rep_table t;
        char title[160], note[400];
        rep_hosted_table(r, p, o, g[i], &t, title, sizeof title, note, sizeof note);
        eb_buf_printf(out, "<h2>");
        html_text(out, title);
        eb_buf_printf(out, "</h2>\n<p class=\"note\">");
        html_text(out, note);
        eb_buf_printf(out, "</p>\n");
        html_table(out, &t);
        rep_table_free(&t);
    }
}

static void html_begin(const rep_walk *w)
{
    eb_buf *out = w->out;
    eb_buf_printf(out, "<!DOCTYPE html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\">"
                       "<title>espbench results</title><style>%s</style></head><body>\n",
                  w->o->lang == EB_LANG_ZH_CN ? "zh-CN" : "en", css);
    eb_buf_printf(out, "<h1>espbench results</h1>\n<p class=\"note\">espbench ");
    html_text(out, w->r->espbench_version);
    eb_buf_printf(out, ", generated ");
    html_text(out, w->r->generated);
    eb_buf_printf(out, ". ");
    html_text(out, rep_stat_note(w->o->stat, w->o->lang));
    eb_buf_printf(out, "</p>\n");
}

static void html_hosted_walk(const rep_walk *w) { html_hosted(w->r, w->p, w->o, w->out); }

static void html_chip_begin(const rep_walk *w)
{
    eb_buf *out = w->out;
    chip_view v = {.r = w->r, .p = w->p, .o = w->o, .chip = w->chip};
    v.n_tiers = eb_results_tiers(w->r, w->p, w->chip, v.tiers, REP_MAX_TIERS);
    eb_buf_printf(out, "<h2>");
    html_text(out, rep_chip_display(w->p, w->chip));
    eb_buf_printf(out, "</h2>\n");
    const char *sim = rep_sim_note(w->r, w->chip, NULL);
    if (sim) {
        eb_buf_printf(out, "<p class=\"simulated\"><strong>");
        html_text(out, sim);
        eb_buf_printf(out, "</strong></p>\n");
    }
    eb_buf_printf(out, "<div class=\"charts\">\n");
    chart_tiers(out, &v);
    for (int test = 0; test < EB_TEST_COUNT; test++)
        chart_sweep(out, &v, test);
    for (int test = 0; test < EB_TEST_COUNT; test++)
        chart_rssi(out, &v, test);
    chart_spread(out, &v);
    chart_vs_docs(out, &v);
    chart_memory(out, &v);
    for (int test = 0; test < EB_TEST_COUNT; test++)
        chart_time(out, &v, test);
    eb_buf_printf(out, "</div>\n");
}

static void html_chip_end(const rep_walk *w) { boards_table(w->out, w->r, w->chip); }

/* A note paragraph, then the table; head is written before the note as it is. */
static void html_noted_table(const rep_walk *w, const char *head, const char *note, rep_table *t)
{
    eb_buf_printf(w->out, "%s<p class=\"note\">", head);
    html_text(w->out, note);
    eb_buf_printf(w->out, "</p>\n");
    html_table(w->out, t);
}

static void html_rank(const rep_walk *w, rep_table *t) { html_table(w->out, t); }

static void html_spread(const rep_walk *w, rep_table *t) { html_noted_table(w, "", rep_spread_note(w->o->stat), t); }

static void html_latency(const rep_walk *w, rep_table *t)
{
    html_noted_table(w, "<h3>Latency</h3>\n", rep_latency_note(), t);
}

static void html_idf_walk(const rep_walk *w, rep_table *t)
{
    (void)t;
    html_idf(w->r, w->p, w->o, w->chips, w->n_chips, w->out);
}

static void html_aggregate(const rep_walk *w, rep_table *t)
{
    html_noted_table(w, "<h2>Boards together</h2>\n", rep_aggregate_note(), t);
}

static void html_pair(const rep_walk *w, rep_table *t)
{
    html_noted_table(w, "<h2>Board to board</h2>\n", rep_pair_note(), t);
}

static const rep_format html_format = {
    .begin = html_begin,
    .hosted = html_hosted_walk,
    .chip_begin = html_chip_begin,
    .chip_end = html_chip_end,
    .section =
        {
            [REP_SEC_RANK] = html_rank,
            [REP_SEC_SPREAD] = html_spread,
            [REP_SEC_LATENCY] = html_latency,
            [REP_SEC_IDF] = html_idf_walk,
            [REP_SEC_AGGREGATE] = html_aggregate,
            [REP_SEC_PAIR] = html_pair,
        },
};

int eb_report_html(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, eb_buf *out, eb_error *err)
{
    int rc = rep_walk_report(&html_format, r, p, o, out, err);
    if (rc)
        return rc;
    eb_buf_printf(out, "<footer><h2>Provenance</h2>\n<table class=\"meta\">\n");
    if (eb_prov_footer(r, html_prov_item, out) == 0)
        eb_buf_printf(out, "<tr><td>none recorded</td></tr>\n");
    eb_buf_printf(out, "</table></footer>\n</body></html>\n");
    return 0;
}
