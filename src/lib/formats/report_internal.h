/* Helpers shared by the report renderers (report_*.c); not a public interface. */
#ifndef ESPBENCH_REPORT_INTERNAL_H
#define ESPBENCH_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/formats/report.h"
#include "espbench/formats/stats.h"

#define REP_MAX_CHIPS 64
#define REP_MAX_TIERS 64

enum rep_label_id { REP_L_RANK, REP_L_MEMORY, REP_L_ENABLE, REP_L_DISABLE, REP_L_BA_OFF, REP_L_DOCS, REP_L_DIFF };

const eb_tier *rep_tier(const eb_profiles *p, const char *chip, const char *tier);
const char *rep_tier_label(const eb_profiles *p, const char *chip, const char *tier, int lang);
const char *rep_chip_display(const eb_profiles *p, const char *chip);
double rep_ref(const eb_profiles *p, const char *chip, const char *tier, int test);
double rep_ref_avail_kb(const eb_profiles *p, const char *chip, const char *tier);
bool rep_param(const eb_results *r, const eb_profiles *p, const char *chip, const char *tier, int field, int *value);
const char *rep_label(int what, int lang);
const char *rep_throughput_label(int test, int lang);
void rep_format_param(char *out, size_t size, int field, int value, int lang);
void rep_format_mbps(char *out, size_t size, double v);
void rep_format_diff(char *out, size_t size, double measured, double ref);
/* The parameter rows of a rank table, in the docs' row order (see report_common.c). */
int rep_row_fields(const eb_results *r, const eb_profiles *p, const char *chip, const char *const *tiers, int n_tiers,
                   int *fields);
/* Chips to report (opts->chip or all): the count, or 0 with err set (EB_ECONFIG) if none. */
int rep_select_chips(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char **chips, int max,
                     eb_error *err);

/* One sentence saying which statistic the tables show. */
const char *rep_stat_note(int stat, int lang);
/* Whether chip has emulated results (figure_source "emulator", run --qemu). */
bool rep_emulated(const eb_results *r, const char *chip);
/* Simulated results of chip (entries with a figure_source): NULL when none,
 * else one sentence saying they are simulated, and whether every figure
 * replays the docs' table (*replay true) or the tier model gave some. */
const char *rep_sim_note(const eb_results *r, const char *chip, bool *replay);

/* ESP-Hosted pairs (report_hosted.c): the performance guide's table per
 * host, co-processor, transport and tier; returns the number of tables. */
int rep_hosted_md(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, eb_buf *out);
/* True when every entry of chip ran with a co-processor (its own tables
 * are the pair's). */
bool rep_chip_all_hosted(const eb_results *r, const char *chip);
/* The same tables for the RST and HTML writers: the groups (host,
 * co-processor, transport, tier; their first entries), and one group's
 * Type | Direction | MBits/s [| Guide MBits/s | Diff %] table with its title
 * and the guide's transport sentence. */
struct rep_table;
int rep_hosted_groups(const eb_results *r, const eb_report_opts *o, const eb_entry **firsts, int max);
void rep_hosted_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const eb_entry *key,
                      struct rep_table *t, char *title, size_t title_cap, char *note, size_t note_cap);

/* A table as rows of cells, rendered by the RST, Markdown and HTML writers. */
#define REP_CELL 96
typedef struct rep_table {
    int n_rows, n_cols;
    char (*cells)[REP_CELL]; /* n_rows * n_cols */
} rep_table;
void rep_table_init(rep_table *t, int n_rows, int n_cols);
void rep_table_free(rep_table *t);
char *rep_cell(rep_table *t, int row, int col);
/* Tier groups: the docs give the PSRAM tiers a table of their own. */
enum { REP_GROUP_PLAIN, REP_GROUP_PSRAM, REP_GROUP_COUNT };
/* Tiers of a chip in one group, in profile order (unknown tiers are plain). */
int rep_group_tiers(const eb_results *r, const eb_profiles *p, const char *chip, int group, const char **out, int max);
/* A tier's label for charts, where both groups share an axis: "Iperf (PSRAM)". */
void rep_tier_label_full(char *out, size_t size, const eb_profiles *p, const char *chip, const char *tier, int lang);

/* The docs' rank table for a chip's tier group (row 0 = header); 0 rows if the group is empty. */
void rep_rank_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip, int group,
                    rep_table *t);
/* The throughput summary for a chip: Type/Throughput rows UDP RX, UDP TX, TCP RX, TCP TX. */
void rep_summary_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip,
                       rep_table *t);
/* The ESP8266-README style table: |Mbits/sec|TCP TX|TCP RX|UDP TX|UDP RX| with a row per tier. */
void rep_tier_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip, int group,
                    rep_table *t);

/* Spread over repeats (report_spread.c). */
#define REP_MAX_RUNS 256
typedef struct rep_spread {
    eb_sample_stats s;      /* over the runs' figures (mean or peak, by the statistic) */
    double best_1s;         /* largest peak_1s of any run */
    int stalls, drops;      /* flagged steady intervals, all runs */
    double values[REP_MAX_RUNS];
} rep_spread;
/* The cell's runs (ok entries); returns how many. */
int rep_cell_spread(const eb_results *r, const char *chip, const char *tier, int test, int stat, rep_spread *out);
bool rep_has_repeats(const eb_results *r, const eb_profiles *p, const char *chip);
/* report_sweep.c: the sweep points of a chip's runs (sorted, distinct) and
 * the swept variable; 0 when its entries have no sweep point. */
#define REP_MAX_POINTS 64
int rep_sweep_points(const eb_results *r, const char *chip, char *var, size_t var_cap, double *points, int cap);
/* The runs of one tier and test at one point (ok entries): their figures in
 * out->values and statistics; returns how many. */
int rep_point_spread(const eb_results *r, const char *chip, const char *tier, int test, const char *var,
                     double point, int stat, rep_spread *out);
/* The runs of a sweep through a lab attenuator (attenuation_db known) or
 * of an rssi sweep, as (RSSI the board reported before the test, figure)
 * pairs in RSSI order; tier NULL = any. Returns how many. */
int rep_rssi_points(const eb_results *r, const char *chip, const char *tier, int test, int stat, double *rssi,
                    double *mbps, int cap);
/* Tier | Test | Runs | Mean | Median | Std dev | CV % | Min | Best 1-s | Stalls | Drops, for cells with >= 2 runs;
 * 0 rows when there are none. */
void rep_spread_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip,
                      rep_table *t);
const char *rep_spread_note(int stat);
/* report_latency.c: Tier | Point | Method | Runs | Replies | Loss % | Min | Avg (mean, median) | Std dev |
 * CV % | p99 | Max of a chip's latency tests; 0 rows when it has none. */
void rep_latency_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip,
                       rep_table *t);
const char *rep_latency_note(void);
/* report_aggregate.c: Tier | Test | Run | <board>... | Together | Sum | Sum / best board for the
 * entries of run --aggregate (all chips); 0 rows when there are none. */
void rep_aggregate_table(const eb_results *r, const eb_report_opts *o, rep_table *t);
const char *rep_aggregate_note(void);
/* report_pair.c: board-to-board tests (run --peer-port / --peer-chip):
 * Board | Chip | Tier | Peer | Peer chip | Peer tier | TCP TX | TCP RX |
 * UDP TX | UDP RX, one row per board and peer (all chips, or o->chip);
 * 0 rows when there are none. */
bool rep_has_pairs(const eb_results *r, const char *chip);
void rep_pair_table(const eb_results *r, const eb_report_opts *o, rep_table *t);
const char *rep_pair_note(void);

/* report_walk.c: the one walk over a report's sections that the Markdown,
 * RST and HTML renderers share. The sections, in the order every format
 * shows them: a new section is a row of rep_sections[] (report_walk.c) and
 * a function in each format that shows it. */
enum rep_section_id {
    REP_SEC_TIERS,     /* per chip and group: the example README's table */
    REP_SEC_RANK,      /* per chip and group: the docs' rank table */
    REP_SEC_SUMMARY,   /* per chip: best throughput (shown even when empty) */
    REP_SEC_SPREAD,    /* per chip: spread over repeats */
    REP_SEC_LATENCY,   /* per chip: the latency tests */
    REP_SEC_IDF,       /* the run: by ESP-IDF version (its own per-chip tables) */
    REP_SEC_AGGREGATE, /* the run: boards together */
    REP_SEC_PAIR,      /* the run: board to board */
    REP_SEC_BAND_24,   /* per chip with a band dimension: its 2.4 GHz table (report_band.c) */
    REP_SEC_BAND_5,    /* ... and its 5 GHz table, as the docs give the ESP32-C5's */
    REP_SEC_COUNT
};

/* report_band.c: the docs' per-band throughput table of chip (section:
 * REP_SEC_BAND_24 or _5); no rows when its results have no band dimension. */
void rep_band_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip,
                    int section, rep_table *t);

/* Where the walk is: chip is NULL in a run-wide section; group is a REP_GROUP. */
typedef struct rep_walk {
    const eb_results *r;
    const eb_profiles *p;
    const eb_report_opts *o;
    eb_buf *out;
    const char *chip;
    int group;
    const char *const *chips; /* the chips chosen, for a run-wide section that goes per chip */
    int n_chips;
} rep_walk;

/* One format: what it writes around the sections (any may be NULL) and per
 * section (NULL: the format does not show it). A section function gets only
 * tables with rows, except where rep_sections[] says always. */
typedef struct rep_format {
    bool skip_hosted_hosts;             /* a chip whose entries all ran as an ESP-Hosted host */
    void (*begin)(const rep_walk *w);   /* after the chips are chosen, before anything */
    void (*hosted)(const rep_walk *w);  /* the ESP-Hosted pairs' tables */
    void (*chip_begin)(const rep_walk *w);
    void (*chip_end)(const rep_walk *w);
    void (*section[REP_SEC_COUNT])(const rep_walk *w, rep_table *t);
} rep_format;

/* Chooses the chips, then walks: begin, hosted, per chip its begin, sections
 * and end, then the run-wide sections. The caller writes its footer after.
 * Returns 0, or rep_select_chips' error when there is nothing to report. */
int rep_walk_report(const rep_format *f, const eb_results *r, const eb_profiles *p, const eb_report_opts *o,
                    eb_buf *out, eb_error *err);
/* report_idf.c: the ESP-IDF versions of the report's "By ESP-IDF version"
 * section (o->chip or all, in version order), 0 when the results hold
 * fewer than two; a chip's Tier | Test | VER Mbps | VER heap KiB ... table
 * (0 rows when no section); the section's sentence; the matrix as a JSON
 * object (the report's "idf_matrix"). */
#define REP_MAX_IDF 16
int rep_idf_section_versions(const eb_results *r, const eb_report_opts *o, const char **out, int max);
void rep_idf_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip,
                   rep_table *t);
const char *rep_idf_note(int stat);
void rep_idf_json(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, eb_buf *out);

#endif
