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

int eb_report_rst(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, eb_buf *out, eb_error *err)
{
    const char *chips[REP_MAX_CHIPS];
    int n = rep_select_chips(r, p, o, chips, REP_MAX_CHIPS, err);
    if (n == 0 && !rep_has_pairs(r, o->chip))
        return err ? err->code : EB_ECONFIG;
    bool zh = o->lang == EB_LANG_ZH_CN;
    rst_hosted(r, p, o, out);
    for (int i = 0; i < n; i++) {
        if (rep_chip_all_hosted(r, chips[i])) /* an ESP-Hosted host: the pair's tables above are its own */
            continue;
        const char *disp = rep_chip_display(p, chips[i]);
        rst_heading(out, disp, '=');
        eb_buf_printf(out, "%s\n\n", rep_stat_note(o->stat, o->lang));
        const char *sim = rep_sim_note(r, chips[i], NULL);
        if (sim)
            eb_buf_printf(out, ".. note:: %s\n\n", sim);
        rep_table t;
        char title[160];
        for (int g = 0; g < REP_GROUP_COUNT; g++) {
            rep_rank_table(r, p, o, chips[i], g, &t);
            if (t.n_rows) {
                snprintf(title, sizeof title, zh ? "%s 不同等级的吞吐量%s" : "%s throughput by rank%s", disp,
                         g == REP_GROUP_PSRAM ? (zh ? "（使用 PSRAM）" : " (with PSRAM)") : "");
                rst_list_table(out, title, &t);
            }
            rep_table_free(&t);
        }
        rep_summary_table(r, p, o, chips[i], &t);
        snprintf(title, sizeof title, zh ? "%s 最佳吞吐量" : "%s best throughput", disp);
        rst_list_table(out, title, &t);
        rep_table_free(&t);
        rep_spread_table(r, p, o, chips[i], &t);
        if (t.n_rows) {
            snprintf(title, sizeof title, "%s spread over repeats", disp);
            eb_buf_printf(out, "%s\n\n", rep_spread_note(o->stat));
            rst_list_table(out, title, &t);
        }
        rep_table_free(&t);
        rep_latency_table(r, p, o, chips[i], &t);
        if (t.n_rows) {
            snprintf(title, sizeof title, "%s latency", disp);
            eb_buf_printf(out, "%s\n\n", rep_latency_note());
            rst_list_table(out, title, &t);
        }
        rep_table_free(&t);
    }
    const char *vers[REP_MAX_IDF];
    if (rep_idf_section_versions(r, o, vers, REP_MAX_IDF)) {
        rst_heading(out, "By ESP-IDF version", '=');
        eb_buf_printf(out, "%s\n\n", rep_idf_note(o->stat));
        for (int i = 0; i < n; i++) {
            rep_table it;
            rep_idf_table(r, p, o, chips[i], &it);
            if (it.n_rows) {
                char title[160];
                snprintf(title, sizeof title, "%s by ESP-IDF version", rep_chip_display(p, chips[i]));
                rst_list_table(out, title, &it);
            }
            rep_table_free(&it);
        }
    }
    rep_table at;
    rep_aggregate_table(r, o, &at);
    if (at.n_rows) {
        eb_buf_printf(out, "%s\n\n", rep_aggregate_note());
        rst_list_table(out, "Boards together", &at);
    }
    rep_table_free(&at);
    rep_pair_table(r, o, &at);
    if (at.n_rows) {
        eb_buf_printf(out, "%s\n\n", rep_pair_note());
        rst_list_table(out, "Board to board", &at);
    }
    rep_table_free(&at);
    /* Provenance as an RST comment: kept with the page source, not rendered. */
    eb_buf_printf(out, "..\n   espbench provenance\n");
    if (eb_prov_footer(r, rst_prov_item, out) == 0)
        eb_buf_printf(out, "   (none recorded)\n");
    eb_buf_append_byte(out, '\n');
    return 0;
}
