/* Regression gate: per chip × tier × test difference between a baseline and
 * the current results (or the profiles' reference figures), and JUnit XML. */
#ifndef ESPBENCH_COMPARE_H
#define ESPBENCH_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "espbench/base/buf.h"
#include "espbench/base/error.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/results.h"

enum eb_cmp_status {
    EB_CMP_OK,        /* within the threshold (or better) */
    EB_CMP_REGRESSED, /* dropped by more than max_drop_pct */
    EB_CMP_FAILED,    /* the current run has the cell, but only failed entries */
    EB_CMP_MISSING,   /* in the baseline, absent from the current results */
    EB_CMP_NEW,       /* only in the current results: reported, never a failure */
};
const char *eb_cmp_status_name(int status); /* "ok", "regressed", "failed", "missing", "new" */

typedef struct eb_compare_row {
    char chip[24], tier[32];
    char pair[64];      /* a board-to-board cell's peer ("esp32c3/iperf", eb_entry_pair_label); "" = against the PC */
    int test;           /* enum eb_test */
    double baseline;    /* Mbit/s; NAN if none */
    double current;     /* Mbit/s; NAN if none */
    double diff_pct;    /* (current - baseline) / baseline * 100; NAN if either is missing */
    int n_baseline, n_current; /* entries averaged */
    int status;         /* enum eb_cmp_status */
    char error[256];    /* a failed entry's error, for EB_CMP_FAILED */
    /* Statistical verdict (stats.h): Welch's t interval of current - baseline
     * in Mbit/s over a sample per side — the cell's repeat figures when both
     * sides have >= 2 of them, else (statistic mean) the steady 1-s interval
     * rates of all its entries. */
    char base_tier[32]; /* the baseline's tier (differs from tier under --tier-map) */
    int verdict;        /* enum eb_verdict */
    double ci_lo, ci_hi, ci_df; /* NAN when n/a */
    int n_sample_base, n_sample_cur;
    const char *sample_unit; /* "repeats", "intervals" or "" */
    /* The cell's point in the dimension table (formats/dims.h: a sweep
     * point, the radio's settings): entries compare only at the same point
     * (eb_dims_same_point); its label, "" at the defaults ("band=5"). */
    eb_provenance point;
    char point_label[96];
} eb_compare_row;

typedef struct eb_compare_opts {
    double max_drop_pct; /* a drop larger than this fails, e.g. 5 */
    int stat;            /* enum eb_stat (report.h) */
    const char *chip;    /* only this chip; NULL = all */
    double confidence;   /* of the verdict's interval; 0 means 0.95 */
    bool significant;    /* a drop fails only when the verdict is also "worse" */
    const char *map_base, *map_cur; /* --tier-map A=B: baseline tier A pairs with current tier B */
    /* --ignore DIM,...: dimensions (dims.h, bit 1u << dim) left out of the
     * key: a cell averages over their values, so a baseline at one band
     * compares with a run at another. */
    uint32_t ignore;
} eb_compare_opts;

typedef struct eb_compare {
    eb_compare_row *rows;
    int n_rows;
    int n_failed;        /* rows with status regressed, failed or missing */
    eb_compare_opts opts;
    char baseline_name[256], current_name[256];
    /* Which side holds figures of an emulator (figure_source "emulator",
     * run --qemu): "baseline", "current", "both" or "" for none. */
    char emulated[12];
} eb_compare;

/* Rows in order: chip (profile order), tier (profile order), test. */
int eb_compare_results(const eb_results *baseline, const eb_results *current, const eb_profiles *p,
                       const eb_compare_opts *o, eb_compare *out, eb_error *err);
/* Baseline = the profiles' reference figures of the tiers present in current. */
int eb_compare_docs(const eb_profiles *p, const eb_results *current, const eb_compare_opts *o, eb_compare *out,
                    eb_error *err);
void eb_compare_free(eb_compare *c);

/* A plain-text table for a terminal. */
void eb_compare_text(const eb_compare *c, eb_buf *out);
/* JUnit XML (xunit1 style as GitLab, GitHub test reporters and Jenkins read
 * it): one <testsuite name="espbench.compare">, one <testcase> per row with
 * classname "espbench.<chip>.<tier>" and name "<test>", figures as
 * <properties>, a <failure> element on a regression. */
void eb_compare_junit(const eb_compare *c, eb_buf *out);

/* --tier-map "A=B" into opts (pointers into a copy kept in buf); -1 if malformed. */
int eb_compare_parse_tier_map(const char *arg, char *buf, size_t cap, eb_compare_opts *o);

/* --ignore "band,power-save" into o->ignore: each a dimension that keys
 * results by their point (eb_dim_keys); -1 with one line in why otherwise. */
int eb_compare_parse_ignore(const char *arg, eb_compare_opts *o, char *why, size_t cap);

/* "5%", "5", "2.5 %" -> 5, 5, 2.5; -1 if not a non-negative number. */
double eb_parse_percent(const char *s);

#endif
