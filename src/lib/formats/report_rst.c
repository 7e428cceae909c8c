/* reStructuredText: per chip, the docs' rank table as a `.. list-table::`
 * (header `Rank` then the tiers in the profile's order) and the throughput
 * summary table, so that the docs page can be regenerated from measurements. */
#include <stdio.h>
#include <string.h>

#include "report_internal.h"

/* Cells are single-line; a leading character RST would read as markup is escaped. */
static void rst_cell(eb_buf *out, const char *s)
{
    if (!*s) {
        eb_buf_append(out, "\n", 1);
        return;
    }
    eb_buf_append_byte(out, ' ');
    if (strchr("*-+#`|_\\:", s[0]) && !(s[0] == '-' && s[1] >= '0' && s[1] <= '9'))
        eb_buf_append_byte(out, '\\');
    for (; *s; s++)
        eb_buf_append_byte(out, (uint8_t)(*s == '\n' || *s == '\r' ? ' ' : *s));
    eb_buf_append_byte(out, '\n');
}

static void rst_list_table(eb_buf *out, const char *title, rep_table *t)
{
    eb_buf_printf(out, ".. list-table:: %s\n   :header-rows: 1\n\n", title);
    for (int r = 0; r < t->n_rows; r++) {
        for (int c = 0; c < t->n_cols; c++) {
            eb_buf_printf(out, "   %s -", c == 0 ? "*" : " ");
            rst_cell(out, rep_cell(t, r, c));
        }
    }
    eb_buf_append(out, "\n", 1);
}

static void rst_heading(eb_buf *out, const char *text, char ch)
{
    eb_buf_printf(out, "%s\n", text);
    /* Byte length >= display width, also for CJK text. */
    for (size_t i = 0; i < strlen(text); i++)
        eb_buf_append_byte(out, (uint8_t)ch);
    eb_buf_append(out, "\n\n", 2);
}

static void rst_prov_item(void *ctx, const char *label, const char *value)
{
    eb_buf *out = ctx;
    eb_buf_printf(out, "   %s: ", label);
    for (; *value; value++)
        eb_buf_append_byte(out, (uint8_t)(*value == '\n' || *value == '\r' ? ' ' : *value));
    eb_buf_append_byte(out, '\n');
}

/* ESP-Hosted pairs: the performance guide's table per host, co-processor, transport and tier. */
static void rst_hosted(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, eb_buf *out)
{
    const eb_entry *g[32];
    int n = rep_hosted_groups(r, o, g, 32);
    for (int i = 0; i < n; i++) {
        rep_table t;
        char title[160], note[400];
        rep_hosted_table(r, p, o, g[i], &t, title, sizeof title, note, sizeof note);
        rst_heading(out, title, '=');
        eb_buf_printf(out, "%s %s\n\n", note, rep_stat_note(o->stat, EB_LANG_EN));
        rst_list_table(out, title, &t);
        rep_table_free(&t);
    }
}

static bool rst_zh(const rep_walk *w) { return w->o->lang == EB_LANG_ZH_CN; }

static void rst_hosted_walk(const rep_walk *w) { rst_hosted(w->r, w->p, w->o, w->out); }

static void rst_chip_begin(const rep_walk *w)
{
    rst_heading(w->out, rep_chip_display(w->p, w->chip), '=');
    eb_buf_printf(w->out, "%s\n\n", rep_stat_note(w->o->stat, w->o->lang));
    const char *sim = rep_sim_note(w->r, w->chip, NULL);
    if (sim)
        eb_buf_printf(w->out, ".. note:: %s\n\n", sim);
}

static void rst_rank(const rep_walk *w, rep_table *t)
{
    bool zh = rst_zh(w);
    char title[160];
    snprintf(title, sizeof title, zh ? "%s 不同等级的吞吐量%s" : "%s throughput by rank%s", rep_chip_display(w->p, w->chip),
             w->group == REP_GROUP_PSRAM ? (zh ? "（使用 PSRAM）" : " (with PSRAM)") : "");
    rst_list_table(w->out, title, t);
}

static void rst_summary(const rep_walk *w, rep_table *t)
{
    char title[160];
    snprintf(title, sizeof title, rst_zh(w) ? "%s 最佳吞吐量" : "%s best throughput", rep_chip_display(w->p, w->chip));
    rst_list_table(w->out, title, t);
}

/* The docs' layout for a chip with two bands: a bullet per band, its list-table under it. */
static void rst_band(const rep_walk *w, rep_table *t, const char *band)
{
    char title[160];
    snprintf(title, sizeof title, "%s %s band", rep_chip_display(w->p, w->chip), band);
    eb_buf_printf(w->out, "- %s band\n\n", band);
    rst_list_table(w->out, title, t);
}
static void rst_band24(const rep_walk *w, rep_table *t) { rst_band(w, t, "2.4 GHz"); }
static void rst_band5(const rep_walk *w, rep_table *t) { rst_band(w, t, "5 GHz"); }

static void rst_spread(const rep_walk *w, rep_table *t)
{
    char title[160];
    snprintf(title, sizeof title, "%s spread over repeats", rep_chip_display(w->p, w->chip));
    eb_buf_printf(w->out, "%s\n\n", rep_spread_note(w->o->stat));
    rst_list_table(w->out, title, t);
}

static void rst_latency(const rep_walk *w, rep_table *t)
{
    char title[160];
    snprintf(title, sizeof title, "%s latency", rep_chip_display(w->p, w->chip));
    eb_buf_printf(w->out, "%s\n\n", rep_latency_note());
    rst_list_table(w->out, title, t);
}

static void rst_idf(const rep_walk *w, rep_table *t)
{
    (void)t;
    const char *vers[REP_MAX_IDF];
    if (!rep_idf_section_versions(w->r, w->o, vers, REP_MAX_IDF))
        return;
    rst_heading(w->out, "By ESP-IDF version", '=');
    eb_buf_printf(w->out, "%s\n\n", rep_idf_note(w->o->stat));
    for (int i = 0; i < w->n_chips; i++) {
        rep_table it;
        rep_idf_table(w->r, w->p, w->o, w->chips[i], &it);
        if (it.n_rows) {
            char title[160];
            snprintf(title, sizeof title, "%s by ESP-IDF version", rep_chip_display(w->p, w->chips[i]));
            rst_list_table(w->out, title, &it);
        }
        rep_table_free(&it);
    }
}

static void rst_aggregate(const rep_walk *w, rep_table *t)
{
    eb_buf_printf(w->out, "%s\n\n", rep_aggregate_note());
    rst_list_table(w->out, "Boards together", t);
}

static void rst_pair(const rep_walk *w, rep_table *t)
{
    eb_buf_printf(w->out, "%s\n\n", rep_pair_note());
    rst_list_table(w->out, "Board to board", t);
}

static const rep_format rst_format = {
    .skip_hosted_hosts = true,
    .hosted = rst_hosted_walk,
    .chip_begin = rst_chip_begin,
    .section =
        {
            [REP_SEC_RANK] = rst_rank,
            [REP_SEC_SUMMARY] = rst_summary,
            [REP_SEC_BAND_24] = rst_band24,
            [REP_SEC_BAND_5] = rst_band5,
            [REP_SEC_SPREAD] = rst_spread,
            [REP_SEC_LATENCY] = rst_latency,
            [REP_SEC_IDF] = rst_idf,
            [REP_SEC_AGGREGATE] = rst_aggregate,
            [REP_SEC_PAIR] = rst_pair,
        },
};

int eb_report_rst(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, eb_buf *out, eb_error *err)
{
    int rc = rep_walk_report(&rst_format, r, p, o, out, err);
    if (rc)
        return rc;
    /* Provenance as an RST comment: kept with the page source, not rendered. */
    eb_buf_printf(out, "..\n   espbench provenance\n");
    if (eb_prov_footer(r, rst_prov_item, out) == 0)
        eb_buf_printf(out, "   (none recorded)\n");
    eb_buf_append_byte(out, '\n');
    return 0;
}
