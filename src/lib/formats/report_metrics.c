/* Figures for CI logs and dashboards: ESP-IDF CI's performance lines and an
 * OpenMetrics text exposition. Pure: results in, text out. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_internal.h"

/* The cells of the results: (chip, tier, idf) in report order, each test. */
typedef void (*cell_fn)(void *ctx, const char *chip, const char *tier, const char *idf, int test);

static void for_each_cell(const eb_results *r, const eb_profiles *p, cell_fn fn, void *ctx)
{
    const char *chips[REP_MAX_CHIPS], *vers[REP_MAX_IDF + 1];
    int n_chips = eb_results_chips(r, p, chips, REP_MAX_CHIPS);
    for (int c = 0; c < n_chips; c++) {
        const char *tiers[REP_MAX_TIERS];
        int n_tiers = eb_results_tiers(r, p, chips[c], tiers, REP_MAX_TIERS);
        vers[0] = ""; /* entries of no known ESP-IDF first */
        int n_vers = 1 + eb_results_idf_versions(r, chips[c], vers + 1, REP_MAX_IDF);
        for (int t = 0; t < n_tiers; t++)
            for (int v = 0; v < n_vers; v++)
                for (int test = 0; test < EB_TEST_COUNT; test++)
                    if (isfinite(eb_results_cell_idf(r, chips[c], tiers[t], test, vers[v], EB_STAT_PEAK, NULL)))
                        fn(ctx, chips[c], tiers[t], vers[v], test);
    }
}

typedef struct perf_ctx {
    const eb_results *r;
    eb_buf *out;
    bool qualify;
} perf_ctx;

static void perf_line(void *ctx, const char *chip, const char *tier, const char *idf, int test)
{
    perf_ctx *c = ctx;
    double v = eb_results_cell_idf(c->r, chip, tier, test, idf, EB_STAT_PEAK, NULL);
    eb_buf_printf(c->out, "[Performance][");
    if (c->qualify)
        eb_buf_printf(c->out, "%s_%s_%s%s", chip, tier, idf, idf[0] ? "_" : "");
    eb_buf_printf(c->out, "%s_throughput]: %.02f Mbps\n", eb_test_name(test), v);
}

void eb_report_performance_lines(const eb_results *r, const eb_profiles *p, eb_buf *out)
{
    perf_ctx c = {.r = r, .out = out};
    /* One chip, tier and IDF: four cells at most, ESP-IDF's item names as they are. */
    const char *chips[2], *tiers[2], *vers[2];
    bool single = eb_results_chips(r, p, chips, 2) == 1 && eb_results_tiers(r, p, chips[0], tiers, 2) == 1 &&
                  eb_results_idf_versions(r, NULL, vers, 2) <= 1;
    c.qualify = !single;
    for_each_cell(r, p, perf_line, &c);
}

/* An OpenMetrics label value: backslash, double quote and line feed escaped. */
static void om_label(eb_buf *out, const char *name, const char *value, bool first)
{
    eb_buf_printf(out, "%s%s=\"", first ? "" : ",", name);
    for (const char *s = value; *s; s++) {
        if (*s == '\\' || *s == '"')
            eb_buf_printf(out, "\\%c", *s);
        else if (*s == '\n')
            eb_buf_printf(out, "\\n");
        else
            eb_buf_append_byte(out, (uint8_t)*s);
    }
    eb_buf_append_byte(out, '"');
}

typedef struct om_ctx {
    const eb_results *r;
    eb_buf *out;
    int stat;
} om_ctx;

static void om_throughput(void *ctx, const char *chip, const char *tier, const char *idf, int test)
{
    om_ctx *c = ctx;
    double v = eb_results_cell_idf(c->r, chip, tier, test, idf, c->stat, NULL);
    if (!isfinite(v))
        return;
    eb_buf_printf(c->out, "espbench_throughput_bits_per_second{");
    om_label(c->out, "chip", chip, true);
    om_label(c->out, "tier", tier, false);
    om_label(c->out, "test", eb_test_name(test), false);
    om_label(c->out, "idf_version", idf, false);
    om_label(c->out, "stat", eb_stat_name(c->stat), false);
    eb_buf_printf(c->out, "} %.0f\n", v * 1e6);
}

static void om_heap(void *ctx, const char *chip, const char *tier, const char *idf, int test)
{
    om_ctx *c = ctx;
    for (int t = 0; t < test; t++) /* one sample per chip × tier × IDF: at its first test */
        if (isfinite(eb_results_cell_idf(c->r, chip, tier, t, idf, EB_STAT_PEAK, NULL)))
            return;
    double h = eb_results_free_heap_idf(c->r, chip, tier, idf);
    if (!isfinite(h))
        return;
    eb_buf_printf(c->out, "espbench_free_heap_bytes{");
    om_label(c->out, "chip", chip, true);
    om_label(c->out, "tier", tier, false);
    om_label(c->out, "idf_version", idf, false);
    eb_buf_printf(c->out, "} %.0f\n", h);
}

void eb_report_openmetrics(const eb_results *r, const eb_profiles *p, int stat, eb_buf *out)
{
    om_ctx c = {.r = r, .out = out, .stat = stat};
    eb_buf_printf(out, "# TYPE espbench_throughput_bits_per_second gauge\n"
                       "# UNIT espbench_throughput_bits_per_second bits_per_second\n"
                       "# HELP espbench_throughput_bits_per_second Wi-Fi throughput of a chip, tier and test "
                       "(receiver side), averaged over boards and repeats.\n");
    for_each_cell(r, p, om_throughput, &c);
    eb_buf_printf(out, "# TYPE espbench_free_heap_bytes gauge\n"
                       "# UNIT espbench_free_heap_bytes bytes\n"
                       "# HELP espbench_free_heap_bytes Free heap after a tier's tests, averaged over its tests.\n");
    for_each_cell(r, p, om_heap, &c);
    eb_buf_printf(out, "# EOF\n");
}
