/* The IDF matrix: per chip, every tier × test cell's figure under each
 * ESP-IDF version the results hold (provenance idf_version), with the free
 * heap after the tier's tests beside it — the same tier side by side across
 * versions, oldest first (eb_idf_version_cmp). Shared by the renderers, the
 * JSON report and compare --idf-base/--idf-new. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "espbench/formats/idf_version.h"
#include "json_writer.h"
#include "report_internal.h"

static bool entry_of(const eb_entry *e, const char *chip, const char *idf)
{
    return (!chip || !strcmp(e->chip, chip)) && !strcmp(eb_entry_prov(e)->idf_version, idf) &&
           eb_entry_in_pair(e, "");
}

int eb_results_idf_versions(const eb_results *r, const char *chip, const char **out, int max)
{
    int n = 0;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        const char *v = eb_entry_prov(e)->idf_version;
        if (!v[0] || (chip && strcmp(e->chip, chip)))
            continue;
        bool seen = false;
        for (int k = 0; k < n && !seen; k++)
            seen = !strcmp(out[k], v);
        if (seen || n >= max)
            continue;
        /* insertion in version order */
        int at = n;
        while (at > 0 && eb_idf_version_cmp(out[at - 1], v) > 0) {
            out[at] = out[at - 1];
            at--;
        }
        out[at] = v;
        n++;
    }
    return n;
}

double eb_results_cell_idf(const eb_results *r, const char *chip, const char *tier, int test, const char *idf,
                           int stat, int *n_out)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (e->test != test || strcmp(e->tier, tier) || strcmp(e->status, "ok") || !entry_of(e, chip, idf))
            continue;
        double f = stat == EB_STAT_PEAK ? e->peak_mbps : e->mean_mbps;
        if (isfinite(f)) {
            sum += f;
            n++;
        }
    }
    if (n_out)
        *n_out = n;
    return n ? sum / n : NAN;
}

double eb_results_free_heap_idf(const eb_results *r, const char *chip, const char *tier, const char *idf)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (strcmp(e->tier, tier) || e->free_heap < 0 || !entry_of(e, chip, idf))
            continue;
        sum += (double)e->free_heap;
        n++;
    }
    return n ? sum / n : NAN;
}

void eb_results_select_idf(const eb_results *r, const char *idf, eb_results *out)
{
    eb_results_init(out);
    snprintf(out->espbench_version, sizeof out->espbench_version, "%s", r->espbench_version);
    snprintf(out->generated, sizeof out->generated, "%s", r->generated);
    for (int i = 0; i < r->n_entries; i++)
        if (!strcmp(eb_entry_prov(&r->entries[i])->idf_version, idf))
            eb_results_add(out, &r->entries[i]);
    for (int i = 0; i < r->n_boards; i++)
        *eb_results_board(out, r->boards[i].board, true) = r->boards[i];
}

int rep_idf_section_versions(const eb_results *r, const eb_report_opts *o, const char **out, int max)
{
    int n = eb_results_idf_versions(r, o->chip, out, max);
    return n >= 2 ? n : 0;
}

/* Whether any version has a figure for the tier's test. */
static bool row_has_figure(const eb_results *r, const char *chip, const char *tier, int test,
                           const char *const *vers, int n_vers, int stat)
{
    for (int v = 0; v < n_vers; v++)
        if (isfinite(eb_results_cell_idf(r, chip, tier, test, vers[v], stat, NULL)))
            return true;
    return false;
}

void rep_idf_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip,
                   rep_table *t)
{
    const char *vers[REP_MAX_IDF];
    int n_vers = rep_idf_section_versions(r, o, vers, REP_MAX_IDF);
    const char *tiers[REP_MAX_TIERS];
    int n_tiers = n_vers ? eb_results_tiers(r, p, chip, tiers, REP_MAX_TIERS) : 0;
    int rows = 1;
    for (int ti = 0; ti < n_tiers; ti++)
        for (int test = 0; test < EB_TEST_COUNT; test++)
            rows += row_has_figure(r, chip, tiers[ti], test, vers, n_vers, o->stat);
    if (rows == 1) {
        rep_table_init(t, 0, 0);
        return;
    }
    rep_table_init(t, rows, 2 + 2 * n_vers);
    snprintf(rep_cell(t, 0, 0), REP_CELL, "Tier");
    snprintf(rep_cell(t, 0, 1), REP_CELL, "Test");
    for (int v = 0; v < n_vers; v++) {
        snprintf(rep_cell(t, 0, 2 + 2 * v), REP_CELL, "%s Mbps", vers[v]);
        snprintf(rep_cell(t, 0, 3 + 2 * v), REP_CELL, "%s heap KiB", vers[v]);
    }
    int row = 1;
    for (int ti = 0; ti < n_tiers; ti++)
        for (int test = 0; test < EB_TEST_COUNT; test++) {
            if (!row_has_figure(r, chip, tiers[ti], test, vers, n_vers, o->stat))
                continue;
            rep_tier_label_full(rep_cell(t, row, 0), REP_CELL, p, chip, tiers[ti], o->lang);
            snprintf(rep_cell(t, row, 1), REP_CELL, "%s", eb_test_name(test));
            for (int v = 0; v < n_vers; v++) {
                double m = eb_results_cell_idf(r, chip, tiers[ti], test, vers[v], o->stat, NULL);
                rep_format_mbps(rep_cell(t, row, 2 + 2 * v), REP_CELL, m);
                double heap = eb_results_free_heap_idf(r, chip, tiers[ti], vers[v]);
                if (isfinite(m) && isfinite(heap)) /* no heap beside a cell not measured */
                    snprintf(rep_cell(t, row, 3 + 2 * v), REP_CELL, "%.1f", heap / 1024.0);
            }
            row++;
        }
}

const char *rep_idf_note(int stat)
{
    return stat == EB_STAT_PEAK
               ? "Each cell: the peak one-second interval (Mbit/s) averaged over boards and repeats, under the "
                 "ESP-IDF version the firmware was built with (oldest first); heap: mean free heap after the tier's "
                 "tests."
               : "Each cell: the mean of the steady receiver-side intervals (Mbit/s) averaged over boards and "
                 "repeats, under the ESP-IDF version the firmware was built with (oldest first); heap: mean free "
                 "heap after the tier's tests.";
}

/* The matrix as JSON, appended to the report's results JSON (key
 * "idf_matrix"): versions, and per chip, tier and test the figure and heap
 * under each version (null when none). */
void rep_idf_json(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, eb_buf *out)
{
    const char *vers[REP_MAX_IDF];
    int n_vers = rep_idf_section_versions(r, o, vers, REP_MAX_IDF);
    eb_buf_printf(out, "{\n\t\t\"stat\":\t\"%s\",\n\t\t\"versions\":\t[", eb_stat_name(o->stat));
    for (int v = 0; v < n_vers; v++) {
        eb_buf_printf(out, "%s", v ? ", " : "");
        eb_json_string(out, vers[v]);
    }
    eb_buf_printf(out, "],\n\t\t\"cells\":\t[");
    const char *chips[REP_MAX_CHIPS];
    int n_chips = eb_results_chips(r, p, chips, REP_MAX_CHIPS), first = 1;
    for (int c = 0; c < n_chips; c++) {
        if (o->chip && strcmp(o->chip, chips[c]))
            continue;
        const char *tiers[REP_MAX_TIERS];
        int n_tiers = eb_results_tiers(r, p, chips[c], tiers, REP_MAX_TIERS);
        for (int ti = 0; ti < n_tiers; ti++)
            for (int test = 0; test < EB_TEST_COUNT; test++) {
                if (!row_has_figure(r, chips[c], tiers[ti], test, vers, n_vers, o->stat))
                    continue;
                eb_buf_printf(out, "%s{\n\t\t\t\t\"chip\":\t", first ? "" : ", ");
                eb_json_string(out, chips[c]);
                eb_buf_printf(out, ",\n\t\t\t\t\"tier\":\t");
                eb_json_string(out, tiers[ti]);
                eb_buf_printf(out, ",\n\t\t\t\t\"test\":\t\"%s\",\n\t\t\t\t\"by_idf\":\t{", eb_test_name(test));
                first = 0;
                for (int v = 0; v < n_vers; v++) {
                    int n = 0;
                    double m = eb_results_cell_idf(r, chips[c], tiers[ti], test, vers[v], o->stat, &n);
                    double h = eb_results_free_heap_idf(r, chips[c], tiers[ti], vers[v]);
                    eb_buf_printf(out, "%s\n\t\t\t\t\t", v ? "," : "");
                    eb_json_string(out, vers[v]);
                    eb_buf_printf(out, ":\t{\"mbps\": ");
                    if (isfinite(m))
                        eb_buf_printf(out, "%.3f", m);
                    else
                        eb_buf_printf(out, "null");
                    eb_buf_printf(out, ", \"runs\": %d, \"free_heap\": ", n);
                    if (isfinite(h))
                        eb_buf_printf(out, "%.0f}", h);
                    else
                        eb_buf_printf(out, "null}");
                }
                eb_buf_printf(out, "\n\t\t\t\t}\n\t\t\t}");
            }
    }
    eb_buf_printf(out, "]\n\t}");
}
