/* Renderers of a results matrix: the docs' rank table (RST list-table and
 * Markdown), the per-chip throughput summary, the ESP8266-README style
 * Markdown table, and a self-contained HTML page with inline SVG charts.
 * Pure functions: results + profiles in, text out. */
#ifndef ESPBENCH_REPORT_H
#define ESPBENCH_REPORT_H

#include <stdbool.h>

#include "espbench/base/buf.h"
#include "espbench/base/error.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/results.h"

enum eb_report_format { EB_RF_CSV, EB_RF_JSON, EB_RF_RST, EB_RF_MD, EB_RF_HTML };
/* "csv", "json", "rst", "md", "html" -> format; -1 if unknown. */
int eb_report_format_from_name(const char *name);

/* Which statistic of an entry stands for it in tables and comparisons. */
enum eb_stat {
    EB_STAT_MEAN, /* mean over the steady receiver-side intervals (the headline) */
    EB_STAT_PEAK, /* peak one-second receiver-side interval (what Espressif's CI reports) */
};
int eb_stat_from_name(const char *name); /* "mean" | "peak"; -1 if unknown */
const char *eb_stat_name(int stat);

enum eb_lang { EB_LANG_EN, EB_LANG_ZH_CN };
int eb_lang_from_name(const char *name); /* "en" | "zh_CN"; -1 if unknown */

typedef struct eb_report_opts {
    const char *chip; /* only this chip; NULL = every chip present */
    bool vs_docs;     /* add the docs' reference figures and the difference */
    int lang;         /* enum eb_lang */
    int stat;         /* enum eb_stat */
} eb_report_opts;

/* The figure of one chip × tier × test cell: the chosen statistic of every
 * "ok" entry with that key (all boards, all repeats), averaged. NAN if none;
 * *n_out (if not NULL) = entries used. Repeats are averaged, not best-of: a
 * lucky repeat should not hide a regression. */
double eb_results_cell(const eb_results *r, const char *chip, const char *tier, int test, int stat, int *n_out);
/* The same over the pair tests whose peer is `pair` (eb_entry_pair_label:
 * "esp32c3/iperf"); "" = the tests against the PC, which eb_results_cell,
 * eb_results_chips and eb_results_tiers keep to. */
double eb_results_cell_pair(const eb_results *r, const char *chip, const char *tier, const char *pair, int test,
                            int stat, int *n_out);
/* Mean free heap (bytes) after the tests of a chip × tier; NAN if unknown. */
double eb_results_cell_free_heap(const eb_results *r, const char *chip, const char *tier);

/* The IDF matrix (report_idf.c). ESP-IDF versions of r's entries
 * (provenance idf_version; unset ones left out), chip NULL = every chip, in
 * version order (idf_version.h); names point into r. */
int eb_results_idf_versions(const eb_results *r, const char *chip, const char **out, int max);
/* eb_results_cell over the tests against the PC built with ESP-IDF `idf`. */
double eb_results_cell_idf(const eb_results *r, const char *chip, const char *tier, int test, const char *idf,
                           int stat, int *n_out);
/* Mean free heap (bytes) after a chip × tier's tests under `idf`; NAN if unknown. */
double eb_results_free_heap_idf(const eb_results *r, const char *chip, const char *tier, const char *idf);
/* The entries of r built with ESP-IDF `idf` ("" = unset), and r's boards,
 * copied into out (initialised here): compare --idf-base/--idf-new. */
void eb_results_select_idf(const eb_results *r, const char *idf, eb_results *out);

/* ESP-IDF CI's performance lines (its log_performance: "[Performance][ITEM]: VALUE"),
 * one per cell, the value its iperf test logs ("%.02f Mbps" of the peak
 * one-second interval, its "best throughput"): items "tcp_tx_throughput" ...
 * as its iperf test names them when r holds one chip, tier and IDF version,
 * else "CHIP_TIER_[IDF_]tcp_tx_throughput". */
void eb_report_performance_lines(const eb_results *r, const eb_profiles *p, eb_buf *out);
/* The figures as an OpenMetrics text exposition: gauges
 * espbench_throughput_bits_per_second{chip,tier,test,idf_version,stat} (the
 * statistic `stat`) and espbench_free_heap_bytes{chip,tier,idf_version},
 * each family with # TYPE, # UNIT and # HELP, label values escaped, ended by
 * "# EOF". */
void eb_report_openmetrics(const eb_results *r, const eb_profiles *p, int stat, eb_buf *out);

/* Chips present in r in profile order (unknown chips last, in order of first
 * appearance). Returns the count; names point into r. */
int eb_results_chips(const eb_results *r, const eb_profiles *p, const char **out, int max);
/* Tiers of a chip present in r, in the chip profile's order (the docs' column
 * order), then tiers the profile does not know. */
int eb_results_tiers(const eb_results *r, const eb_profiles *p, const char *chip, const char **out, int max);

/* Renders r in a format. p may be NULL (labels then fall back to names and
 * no reference figures are available). EB_ECONFIG if nothing matches opts. */
int eb_report_render(const eb_results *r, const eb_profiles *p, int format, const eb_report_opts *o, eb_buf *out,
                     eb_error *err);

/* The individual renderers (eb_report_render dispatches to these). */
int eb_report_rst(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, eb_buf *out, eb_error *err);
int eb_report_md(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, eb_buf *out, eb_error *err);
int eb_report_html(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, eb_buf *out, eb_error *err);

#endif
