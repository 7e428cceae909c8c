/* What every renderer shares: cell figures, chip and tier order, labels,
 * dispatch by format. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "espbench/formats/dims.h"
#include "espbench/formats/report.h"
#include "report_internal.h"

int eb_report_format_from_name(const char *name)
{
    static const char *const names[] = {[EB_RF_CSV] = "csv", [EB_RF_JSON] = "json", [EB_RF_RST] = "rst",
                                        [EB_RF_MD] = "md", [EB_RF_HTML] = "html"};
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

static const char *const stat_names[] = {[EB_STAT_MEAN] = "mean", [EB_STAT_PEAK] = "peak"};

int eb_stat_from_name(const char *name)
{
    for (int i = 0; i < 2; i++)
        if (strcmp(name, stat_names[i]) == 0)
            return i;
    return -1;
}

const char *eb_stat_name(int stat) { return stat == EB_STAT_PEAK ? stat_names[EB_STAT_PEAK] : stat_names[EB_STAT_MEAN]; }

int eb_lang_from_name(const char *name)
{
    if (strcmp(name, "en") == 0)
        return EB_LANG_EN;
    if (strcmp(name, "zh_CN") == 0)
        return EB_LANG_ZH_CN;
    return -1;
}

/* The rank tables are the docs' bench: the board's radio at its defaults
 * (another band or mode is a table of its own, report_band.c). */
static bool radio_default(const eb_provenance *p)
{
    char label[96];
    eb_radio_label(p, label, sizeof label);
    return !label[0];
}

double eb_results_cell(const eb_results *r, const char *chip, const char *tier, int test, int stat, int *n_out)
{
    return eb_results_cell_pair(r, chip, tier, "", test, stat, n_out);
}

double eb_results_cell_pair(const eb_results *r, const char *chip, const char *tier, const char *pair, int test,
                            int stat, int *n_out)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (e->test != test || strcmp(e->chip, chip) || strcmp(e->tier, tier) || strcmp(e->status, "ok") ||
            !eb_entry_in_pair(e, pair) || !radio_default(eb_entry_prov(e)))
            continue;
        double v = stat == EB_STAT_PEAK ? e->peak_mbps : e->mean_mbps;
        if (isfinite(v)) {
            sum += v;
            n++;
        }
    }
    if (n_out)
        *n_out = n;
    return n ? sum / n : NAN;
}

double eb_results_cell_free_heap(const eb_results *r, const char *chip, const char *tier)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (strcmp(e->chip, chip) || strcmp(e->tier, tier) || e->free_heap < 0 || eb_entry_prov(e)->peer_chip[0])
            continue;
        sum += (double)e->free_heap;
        n++;
    }
    return n ? sum / n : NAN;
}

static bool in_list(const char *const *list, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

int eb_results_chips(const eb_results *r, const eb_profiles *p, const char **out, int max)
{
    int n = 0;
    /* Pair tests (a peer board, no PC) have a table of their own (report_pair.c). */
    for (int c = 0; p && c < p->n_chips && n < max; c++)
        for (int i = 0; i < r->n_entries; i++)
            if (strcmp(r->entries[i].chip, p->chips[c].name) == 0 && !eb_entry_prov(&r->entries[i])->peer_chip[0]) {
                out[n++] = r->entries[i].chip;
                break;
            }
    for (int i = 0; i < r->n_entries && n < max; i++)
        if (!eb_entry_prov(&r->entries[i])->peer_chip[0] && !in_list(out, n, r->entries[i].chip))
            out[n++] = r->entries[i].chip;
    for (int i = 0; i < r->n_lat && n < max; i++) /* a run of latency tests only */
        if (!in_list(out, n, r->lat[i].chip))
            out[n++] = r->lat[i].chip;
    return n;
}

int eb_results_tiers(const eb_results *r, const eb_profiles *p, const char *chip, const char **out, int max)
{
    int n = 0;
    const eb_chip *c = p ? eb_profiles_chip(p, chip) : NULL;
    for (int t = 0; c && t < c->n_tiers && n < max; t++)
        for (int i = 0; i < r->n_entries; i++) {
            const eb_entry *e = &r->entries[i];
            if (strcmp(e->chip, chip) == 0 && strcmp(e->tier, c->tiers[t].name) == 0 && !eb_entry_prov(e)->peer_chip[0]) {
                out[n++] = e->tier;
                break;
            }
        }
    for (int i = 0; i < r->n_entries && n < max; i++) {
        const eb_entry *e = &r->entries[i];
        if (strcmp(e->chip, chip) == 0 && !eb_entry_prov(e)->peer_chip[0] && !in_list(out, n, e->tier))
            out[n++] = e->tier;
    }
    return n;
}

/* ---- internal helpers shared by the renderers ---- */

const eb_tier *rep_tier(const eb_profiles *p, const char *chip, const char *tier)
{
    const eb_chip *c = p ? eb_profiles_chip(p, chip) : NULL;
    return c ? eb_chip_tier(c, tier) : NULL;
}

const char *rep_tier_label(const eb_profiles *p, const char *chip, const char *tier, int lang)
{
    const eb_tier *t = rep_tier(p, chip, tier);
    if (!t)
        return tier;
    if (lang == EB_LANG_ZH_CN && t->label_zh[0])
        return t->label_zh;
    return t->label[0] ? t->label : tier;
}

const char *rep_chip_display(const eb_profiles *p, const char *chip)
{
    const eb_chip *c = p ? eb_profiles_chip(p, chip) : NULL;
    return c && c->display[0] ? c->display : chip;
}

double rep_ref(const eb_profiles *p, const char *chip, const char *tier, int test)
{
    const eb_tier *t = rep_tier(p, chip, tier);
    return eb_tier_ref(t, test, NULL);
}

double rep_ref_avail_kb(const eb_profiles *p, const char *chip, const char *tier)
{
    const eb_tier *t = rep_tier(p, chip, tier);
    return t ? t->ref_avail_kb : NAN;
}

/* The tier's parameters: those recorded with the results (what actually ran),
 * else the profile's. Returns false if neither knows the tier's field. */
bool rep_param(const eb_results *r, const eb_profiles *p, const char *chip, const char *tier, int field, int *value)
{
    bool recorded = false;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (strcmp(e->chip, chip) || strcmp(e->tier, tier))
            continue;
        if (e->param_set[field]) {
            *value = e->param[field];
            return true;
        }
        for (int f = 0; f < EB_F_COUNT && !recorded; f++)
            recorded = e->param_set[f];
    }
    if (recorded)
        return false; /* the run recorded its settings, and this one is not among them */
    const eb_tier *t = rep_tier(p, chip, tier);
    if (t && t->set[field]) {
        *value = t->value[field];
        return true;
    }
    return false;
}

static const char *const throughput_en[EB_TEST_COUNT] = {
    "TCP TX throughput (Mbit/s)", "TCP RX throughput (Mbit/s)",
    "UDP TX throughput (Mbit/s)", "UDP RX throughput (Mbit/s)"};
static const char *const throughput_zh[EB_TEST_COUNT] = {
    "TCP 发送数据吞吐量 (Mbit/s)", "TCP 接收数据吞吐量 (Mbit/s)",
    "UDP 发送数据吞吐量 (Mbit/s)", "UDP 接收数据吞吐量 (Mbit/s)"};

const char *rep_label(int what, int lang)
{
    static const char *const en[] = {[REP_L_RANK] = "Rank", [REP_L_MEMORY] = "Available memory (KB)",
                                     [REP_L_ENABLE] = "ENABLE", [REP_L_DISABLE] = "DISABLE",
                                     [REP_L_BA_OFF] = "Disable", [REP_L_DOCS] = "docs",
                                     [REP_L_DIFF] = "difference vs docs (%)"};
    static const char *const zh[] = {[REP_L_RANK] = "等级", [REP_L_MEMORY] = "可用内存 (KB)",
                                     [REP_L_ENABLE] = "开启", [REP_L_DISABLE] = "关闭",
                                     [REP_L_BA_OFF] = "禁用", [REP_L_DOCS] = "文档",
                                     [REP_L_DIFF] = "与文档的差异 (%)"};
    return lang == EB_LANG_ZH_CN ? zh[what] : en[what];
}

const char *rep_throughput_label(int test, int lang)
{
    return lang == EB_LANG_ZH_CN ? throughput_zh[test] : throughput_en[test];
}

void rep_format_param(char *out, size_t size, int field, int value, int lang)
{
    const eb_field_desc *d = eb_field_desc_get(field);
    int kind = d ? (int)d->kind : EB_FK_INT;
    if (kind == EB_FK_BOOL)
        snprintf(out, size, "%s", rep_label(value ? REP_L_ENABLE : REP_L_DISABLE, lang));
    else if (kind == EB_FK_BA && value == 0)
        snprintf(out, size, "%s", rep_label(REP_L_BA_OFF, lang));
    else
        snprintf(out, size, "%d", value);
}

void rep_format_mbps(char *out, size_t size, double v)
{
    if (isfinite(v))
        snprintf(out, size, "%.1f", v);
    else
        out[0] = '\0';
}

void rep_format_diff(char *out, size_t size, double measured, double ref)
{
    if (isfinite(measured) && isfinite(ref) && ref != 0) {
        double d = round((measured - ref) / ref * 1000.0) / 10.0;
        snprintf(out, size, d == 0 ? "0.0" : "%+.1f", d); /* never "-0.0" */
    } else
        out[0] = '\0';
}

/* The docs' row order: buffers, lwIP TCP buffers, IRAM placement, mailboxes
 * (the ESP32-S3 PSRAM table lists LWIP_UDP_RECVMBOX_SIZE after the IRAM rows),
 * caches; fields not listed follow in enum order. */
static const int row_order[] = {
    EB_F_STATIC_RX, EB_F_DYNAMIC_RX, EB_F_DYNAMIC_TX, EB_F_STATIC_TX, EB_F_RX_BA_WIN, EB_F_TCP_SND_BUF_KB,
    EB_F_TCP_WND_KB, EB_F_WIFI_IRAM_OPT, EB_F_WIFI_RX_IRAM_OPT, EB_F_LWIP_IRAM_OPT, EB_F_TCP_MBOX, EB_F_UDP_MBOX,
    EB_F_TCPIP_MBOX, EB_F_ICACHE_KB, EB_F_ICACHE_LINE, EB_F_ICACHE_WAYS, EB_F_DCACHE_KB, EB_F_DCACHE_LINE,
    EB_F_DCACHE_WAYS,
};
#define N_ROW_ORDER (int)(sizeof row_order / sizeof row_order[0])

static bool tier_has_any_param(const eb_results *r, const eb_profiles *p, const char *chip, const char *tier)
{
    int v;
    for (int f = 0; f < EB_F_COUNT; f++)
        if (rep_param(r, p, chip, tier, f, &v))
            return true;
    return false;
}

/* A parameter row appears when every tier whose settings are known sets the
 * field, as in the docs' tables (the iperf tier's extra mailbox sizes, set by
 * no other tier, do not make a row). */
int rep_row_fields(const eb_results *r, const eb_profiles *p, const char *chip, const char *const *tiers, int n_tiers,
                   int *fields)
{
    int order[EB_F_COUNT], n_order = 0;
    bool listed[EB_F_COUNT] = {false};
    for (int i = 0; i < N_ROW_ORDER; i++) {
        order[n_order++] = row_order[i];
        listed[row_order[i]] = true;
    }
    for (int f = 0; f < EB_F_COUNT; f++)
        if (!listed[f])
            order[n_order++] = f;
    int known = 0;
    for (int t = 0; t < n_tiers; t++)
        known += tier_has_any_param(r, p, chip, tiers[t]);
    int n = 0;
    for (int i = 0; known > 0 && i < n_order; i++) {
        int setting = 0, v;
        for (int t = 0; t < n_tiers; t++)
            setting += rep_param(r, p, chip, tiers[t], order[i], &v);
        if (setting == known)
            fields[n++] = order[i];
    }
    return n;
}

int rep_select_chips(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char **chips, int max,
                     eb_error *err)
{
    const char *all[REP_MAX_CHIPS];
    int n_all = eb_results_chips(r, p, all, REP_MAX_CHIPS), n = 0;
    for (int i = 0; i < n_all && n < max; i++)
        if (!o->chip || strcmp(o->chip, all[i]) == 0)
            chips[n++] = all[i];
    if (n == 0 && rep_has_pairs(r, o->chip)) /* pair tests only: their table is the report */
        return 0;
    if (n == 0) {
        if (o->chip)
            eb_fail(err, EB_ECONFIG, "no results for chip '%s' in the input", o->chip);
        else
            eb_fail(err, EB_ECONFIG, "the input holds no results to report");
        return 0;
    }
    return n;
}

const char *rep_stat_note(int stat, int lang)
{
    if (lang == EB_LANG_ZH_CN)
        return stat == EB_STAT_PEAK ? "吞吐量：接收端单秒区间的峰值（Espressif CI 报告的数值），多次重复取平均。"
                                    : "吞吐量：接收端稳定区间（去除预热）的平均值，多次重复取平均。";
    return stat == EB_STAT_PEAK
               ? "Throughput: the peak one-second receiver-side interval (the figure Espressif's CI reports), "
                 "averaged over repeats."
               : "Throughput: the mean of the steady receiver-side intervals (warm-up left out), averaged over "
                 "repeats.";
}

int rep_group_tiers(const eb_results *r, const eb_profiles *p, const char *chip, int group, const char **out, int max)
{
    const char *all[REP_MAX_TIERS];
    int n_all = eb_results_tiers(r, p, chip, all, REP_MAX_TIERS), n = 0;
    for (int i = 0; i < n_all && n < max; i++) {
        const eb_tier *t = rep_tier(p, chip, all[i]);
        if ((t && t->psram ? REP_GROUP_PSRAM : REP_GROUP_PLAIN) == group)
            out[n++] = all[i];
    }
    return n;
}

void rep_tier_label_full(char *out, size_t size, const eb_profiles *p, const char *chip, const char *tier, int lang)
{
    const eb_tier *t = rep_tier(p, chip, tier);
    snprintf(out, size, "%s%s", rep_tier_label(p, chip, tier, lang), t && t->psram ? " (PSRAM)" : "");
}

bool rep_emulated(const eb_results *r, const char *chip)
{
    for (int i = 0; i < r->n_entries; i++)
        if (!strcmp(r->entries[i].chip, chip) && !strcmp(r->entries[i].figure_source, "emulator"))
            return true;
    return false;
}

const char *rep_sim_note(const eb_results *r, const char *chip, bool *replay)
{
    int published = 0, model = 0;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (strcmp(e->chip, chip) != 0 || !e->figure_source[0])
            continue;
        if (strcmp(e->figure_source, "published") == 0)
            published++;
        else
            model++;
    }
    if (replay)
        *replay = published > 0 && model == 0;
    /* An emulator measures, but neither a chip's radio nor its timing. */
    if (rep_emulated(r, chip))
        return "Emulated (QEMU's ESP32-C3, Ethernet in place of Wi-Fi), not measured on hardware: figures with "
               "figure_source \"emulator\" are the emulator's (docs/emulator.md).";
    if (!published && !model)
        return NULL;
    if (!model)
        return "Simulated (espbench-vboard), not measured: every figure replays the docs' published "
               "table.";
    if (!published)
        return "Simulated (espbench-vboard), not measured: every figure comes from the tier model "
               "(docs/model.md).";
    return "Simulated (espbench-vboard), not measured: published tiers replay the docs' table, the "
           "others come from the tier model (docs/model.md); each entry's figure_source says which.";
}
