/* Markdown: per chip, the ESP8266 example README's
 * `|Mbits/sec|TCP TX|TCP RX|UDP TX|UDP RX|` table (one row per tier), the
 * docs' rank table and the throughput summary, as pipe tables. */
#include <stdio.h>
#include <string.h>

#include "report_internal.h"

static void md_cell(eb_buf *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|' || *s == '\\')
            eb_buf_append_byte(out, '\\');
        eb_buf_append_byte(out, (uint8_t)(*s == '\n' || *s == '\r' ? ' ' : *s));
    }
}

static void md_table(eb_buf *out, rep_table *t)
{
    for (int r = 0; r < t->n_rows; r++) {
        eb_buf_append_byte(out, '|');
        for (int c = 0; c < t->n_cols; c++) {
            md_cell(out, rep_cell(t, r, c));
            eb_buf_append_byte(out, '|');
        }
        eb_buf_append_byte(out, '\n');
        if (r == 0) {
            eb_buf_append_byte(out, '|');
            for (int c = 0; c < t->n_cols; c++)
                eb_buf_append(out, c == 0 ? "---|" : "---:|", c == 0 ? 4 : 5);
            eb_buf_append_byte(out, '\n');
        }
    }
    eb_buf_append_byte(out, '\n');
}

static void md_prov_item(void *ctx, const char *label, const char *value)
{
    eb_buf *out = ctx;
    eb_buf_printf(out, "- %s: ", label);
    md_cell(out, value);
    eb_buf_append_byte(out, '\n');
}

/* Provenance footer: the conditions every figure above was measured under. */
static void md_footer(const eb_results *r, eb_buf *out)
{
    eb_buf mark;
    eb_buf_init(&mark);
    int n = eb_prov_footer(r, md_prov_item, &mark);
    if (n) {
        eb_buf_printf(out, "---\n\n**Provenance**\n\n");
        eb_buf_append(out, mark.data, mark.len);
        eb_buf_append_byte(out, '\n');
    }
    eb_buf_free(&mark);
}

int eb_report_md(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, eb_buf *out, eb_error *err)
{
    const char *chips[REP_MAX_CHIPS];
    int n = rep_select_chips(r, p, o, chips, REP_MAX_CHIPS, err);
    if (n == 0 && !rep_has_pairs(r, o->chip))
        return err ? err->code : EB_ECONFIG;
    bool zh = o->lang == EB_LANG_ZH_CN;
    rep_hosted_md(r, p, o, out);
    for (int i = 0; i < n; i++) {
        if (rep_chip_all_hosted(r, chips[i]))
            continue;
        eb_buf_printf(out, "## %s\n\n%s\n\n", rep_chip_display(p, chips[i]), rep_stat_note(o->stat, o->lang));
        const char *sim = rep_sim_note(r, chips[i], NULL);
        if (sim)
            eb_buf_printf(out, "**%s**\n\n", sim);
        rep_table t;
        for (int g = 0; g < REP_GROUP_COUNT; g++) {
            rep_tier_table(r, p, o, chips[i], g, &t);
            if (t.n_rows) {
                if (g == REP_GROUP_PSRAM)
                    eb_buf_printf(out, "%s\n\n", zh ? "使用 PSRAM：" : "With PSRAM:");
                md_table(out, &t);
            }
            rep_table_free(&t);
        }
        for (int g = 0; g < REP_GROUP_COUNT; g++) {
            rep_rank_table(r, p, o, chips[i], g, &t);
            if (t.n_rows) {
                eb_buf_printf(out, "### %s%s\n\n", zh ? "等级" : "Rank table",
                              g == REP_GROUP_PSRAM ? (zh ? "（使用 PSRAM）" : " (with PSRAM)") : "");
                md_table(out, &t);
            }
            rep_table_free(&t);
        }
        eb_buf_printf(out, "### %s\n\n", zh ? "最佳吞吐量" : "Best throughput");
        rep_summary_table(r, p, o, chips[i], &t);
        md_table(out, &t);
        rep_table_free(&t);
        rep_spread_table(r, p, o, chips[i], &t);
        if (t.n_rows) {
            eb_buf_printf(out, "### Spread over repeats\n\n%s\n\n", rep_spread_note(o->stat));
            md_table(out, &t);
        }
        rep_table_free(&t);
        rep_latency_table(r, p, o, chips[i], &t);
        if (t.n_rows) {
            eb_buf_printf(out, "### Latency\n\n%s\n\n", rep_latency_note());
            md_table(out, &t);
        }
        rep_table_free(&t);
    }
    const char *vers[REP_MAX_IDF];
    if (rep_idf_section_versions(r, o, vers, REP_MAX_IDF)) {
        eb_buf_printf(out, "## By ESP-IDF version\n\n%s\n\n", rep_idf_note(o->stat));
        for (int i = 0; i < n; i++) {
            rep_table it;
            rep_idf_table(r, p, o, chips[i], &it);
            if (it.n_rows) {
                eb_buf_printf(out, "### %s\n\n", rep_chip_display(p, chips[i]));
                md_table(out, &it);
            }
            rep_table_free(&it);
        }
    }
    rep_table at;
    rep_aggregate_table(r, o, &at);
    if (at.n_rows) {
        eb_buf_printf(out, "## Boards together\n\n%s\n\n", rep_aggregate_note());
        md_table(out, &at);
    }
    rep_table_free(&at);
    rep_pair_table(r, o, &at);
    if (at.n_rows) {
        eb_buf_printf(out, "## Board to board\n\n%s\n\n", rep_pair_note());
        md_table(out, &at);
    }
    rep_table_free(&at);
    md_footer(r, out);
    return 0;
}
