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

static bool md_zh(const rep_walk *w) { return w->o->lang == EB_LANG_ZH_CN; }

static void md_hosted(const rep_walk *w) { rep_hosted_md(w->r, w->p, w->o, w->out); }

static void md_chip_begin(const rep_walk *w)
{
    eb_buf_printf(w->out, "## %s\n\n%s\n\n", rep_chip_display(w->p, w->chip), rep_stat_note(w->o->stat, w->o->lang));
    const char *sim = rep_sim_note(w->r, w->chip, NULL);
    if (sim)
        eb_buf_printf(w->out, "**%s**\n\n", sim);
}

static void md_tiers(const rep_walk *w, rep_table *t)
{
    if (w->group == REP_GROUP_PSRAM)
        eb_buf_printf(w->out, "%s\n\n", md_zh(w) ? "使用 PSRAM：" : "With PSRAM:");
    md_table(w->out, t);
}

static void md_rank(const rep_walk *w, rep_table *t)
{
    bool zh = md_zh(w);
    eb_buf_printf(w->out, "### %s%s\n\n", zh ? "等级" : "Rank table",
                  w->group == REP_GROUP_PSRAM ? (zh ? "（使用 PSRAM）" : " (with PSRAM)") : "");
    md_table(w->out, t);
}

static void md_summary(const rep_walk *w, rep_table *t)
{
    eb_buf_printf(w->out, "### %s\n\n", md_zh(w) ? "最佳吞吐量" : "Best throughput");
    md_table(w->out, t);
}

static void md_band24(const rep_walk *w, rep_table *t)
{
    eb_buf_printf(w->out, "### 2.4 GHz band\n\n");
    md_table(w->out, t);
}

static void md_band5(const rep_walk *w, rep_table *t)
{
    eb_buf_printf(w->out, "### 5 GHz band\n\n");
    md_table(w->out, t);
}

static void md_spread(const rep_walk *w, rep_table *t)
{
    eb_buf_printf(w->out, "### Spread over repeats\n\n%s\n\n", rep_spread_note(w->o->stat));
    md_table(w->out, t);
}

static void md_latency(const rep_walk *w, rep_table *t)
{
    eb_buf_printf(w->out, "### Latency\n\n%s\n\n", rep_latency_note());
    md_table(w->out, t);
}

static void md_aggregate(const rep_walk *w, rep_table *t)
{
    eb_buf_printf(w->out, "## Boards together\n\n%s\n\n", rep_aggregate_note());
    md_table(w->out, t);
}

static void md_idf(const rep_walk *w, rep_table *t)
{
    (void)t;
    const char *vers[REP_MAX_IDF];
    if (!rep_idf_section_versions(w->r, w->o, vers, REP_MAX_IDF))
        return;
    eb_buf_printf(w->out, "## By ESP-IDF version\n\n%s\n\n", rep_idf_note(w->o->stat));
    for (int i = 0; i < w->n_chips; i++) {
        rep_table it;
        rep_idf_table(w->r, w->p, w->o, w->chips[i], &it);
        if (it.n_rows) {
            eb_buf_printf(w->out, "### %s\n\n", rep_chip_display(w->p, w->chips[i]));
            md_table(w->out, &it);
        }
        rep_table_free(&it);
    }
}

static void md_pair(const rep_walk *w, rep_table *t)
{
    eb_buf_printf(w->out, "## Board to board\n\n%s\n\n", rep_pair_note());
    md_table(w->out, t);
}

static const rep_format md_format = {
    .skip_hosted_hosts = true,
    .hosted = md_hosted,
    .chip_begin = md_chip_begin,
    .section =
        {
            [REP_SEC_TIERS] = md_tiers,
            [REP_SEC_RANK] = md_rank,
            [REP_SEC_SUMMARY] = md_summary,
            [REP_SEC_SPREAD] = md_spread,
            [REP_SEC_LATENCY] = md_latency,
            [REP_SEC_IDF] = md_idf,
            [REP_SEC_AGGREGATE] = md_aggregate,
            [REP_SEC_PAIR] = md_pair,
            [REP_SEC_BAND_24] = md_band24,
            [REP_SEC_BAND_5] = md_band5,
        },
};

int eb_report_md(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, eb_buf *out, eb_error *err)
{
    int rc = rep_walk_report(&md_format, r, p, o, out, err);
    if (rc)
        return rc;
    md_footer(r, out);
    return 0;
}
