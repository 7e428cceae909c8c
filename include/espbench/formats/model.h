/* The throughput and memory model of a buffer tier (docs/model.md).
 *
 * Given a chip's facts, a tier's settings (eb_tier: every field a profile
 * allows, the build-time ones included) and the link (RSSI or PHY rate,
 * round-trip time, loss), the model predicts the four throughputs of the
 * docs' tables and the free heap. It is structural: TCP is bounded by the
 * usable window over the effective round trip, the air by 802.11n A-MPDU
 * timing, the CPU by a per-chip path ceiling scaled by IRAM/cache/clock
 * factors; the free heap is a per-chip base minus what each buffer, window
 * and IRAM option costs. Per-chip constants are data (profiles/model/
 * model.yaml), fitted from the published tables by `espbench model fit`.
 *
 * Cost: eb_model_predict() is pure, allocates nothing and runs in about a
 * microsecond, so a search (espbench tune) can call it over thousands of
 * candidate tiers. Lint and the unmodelled-term list are separate calls. */
#ifndef ESPBENCH_MODEL_H
#define ESPBENCH_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/error.h"
#include "espbench/formats/profile.h"

/* Bumped whenever a formula changes; results name it ("model 1"). */
#define EB_MODEL_VERSION "1"

/* ---- the link ------------------------------------------------------------- */

/* Link conditions. The published conditions (the docs' shield box: strong
 * signal, the chip's top PHY rate, a LAN round trip, no loss) are the
 * defaults: rssi_dbm and phy_mbps NAN, rtt_ms 0, loss_pct 0. */
typedef struct eb_model_link {
    double rssi_dbm;  /* NAN = strong signal; else -100..-10 dBm picks the MCS */
    double phy_mbps;  /* NAN = from RSSI and the chip; else forced, 1..600 */
    double rtt_ms;    /* round trip added to the published bench, 0..2000 ms */
    double loss_pct;  /* random packet loss, 0..50 % */
    double stations;  /* boards sending into the AP at the same time (run --aggregate), 1..64;
                       * 0 or 1 = this board alone */
} eb_model_link;

void eb_model_link_default(eb_model_link *l);
/* True when l is the published conditions (published figures apply). */
bool eb_model_link_is_published(const eb_model_link *l);
/* Range check: EB_ECONFIG with "rssi -5 dBm is outside -100..-10" etc. */
int eb_model_link_check(const eb_model_link *l, eb_error *err);
/* Sets one link value by name ("rssi", "phy", "rtt", "loss", "stations") from text;
 * EB_ECONFIG on an unknown name, a bad number or a value out of range. */
int eb_model_link_set(eb_model_link *l, const char *name, const char *value, eb_error *err);

/* ---- per-chip constants (fitted data) -------------------------------------- */

enum eb_model_param {
    /* Throughput (fitted per chip; priors in model_fit.c). */
    EB_MP_CEIL_TCP_TX,    /* CPU/path ceiling, Mbit/s, full path (IRAM on, chip clock) */
    EB_MP_CEIL_TCP_RX,
    EB_MP_CEIL_UDP_TX,
    EB_MP_CEIL_UDP_RX,
    EB_MP_RTT_TX_MS,      /* effective TCP round trip of the bench when sending, ms */
    EB_MP_RTT_RX_MS,      /* ... when receiving (delayed ACK, lwIP task hand-off) */
    EB_MP_HOLD_TX_MS,     /* how long a UDP TX datagram holds a Wi-Fi TX buffer, ms */
    EB_MP_CONTEND_US,     /* AIFS + mean backoff per channel access, us */
    EB_MP_PSRAM_FACTOR,   /* path factor when Wi-Fi/lwIP buffers live in PSRAM */
    EB_MP_IRAM_WIFI,      /* throughput factor lost without WIFI_IRAM_OPT */
    EB_MP_IRAM_RX,        /* ... without WIFI_RX_IRAM_OPT */
    EB_MP_IRAM_LWIP,      /* ... without LWIP_IRAM_OPTIMIZATION */
    EB_MP_CACHE_EXP,      /* throughput ~ (icache_kb / ref)^exp */
    EB_MP_CPU_EXP,        /* throughput ~ (cpu_mhz / chip MHz)^exp */
    EB_MP_NOCACHE_FACTOR, /* ESP8266 without SOC_FULL_ICACHE */
    /* Free heap (fitted per chip). */
    EB_MP_HEAP_BASE_KB,   /* free heap with no buffers, no windows, no IRAM options */
    EB_MP_HEAP_PSRAM_KB,  /* same with PSRAM (buffers moved out, cache/PSRAM driver in) */
    EB_MP_HEAP_RX_SCALE,  /* share of the RX buffers' 1.6 KB held at the low-water mark */
    EB_MP_HEAP_TX_SCALE,  /* share of the TX buffers' / send buffer held */
    EB_MP_COUNT
};

typedef struct eb_model_chip {
    char chip[24];
    double phy_mbps;          /* top PHY rate of the published bench (datasheet) */
    double ref_icache_kb;     /* cache size the ceilings refer to (the iperf tier's) */
    double p[EB_MP_COUNT];
    int n_tiers;              /* published tiers the fit used (0 = priors only) */
    int n_heap;               /* of which with a published free heap */
} eb_model_chip;

typedef struct eb_model {
    char version[16];         /* the model version the file was fitted for */
    eb_model_chip *chips;
    int n_chips;
} eb_model;

const char *eb_model_param_key(int param); /* "ceil_tcp_tx" */

/* Loads the constants file (libyaml). EB_ECONFIG "FILE:LINE:COL: ..." on a
 * bad file, EB_EIO when it cannot be read. */
/* The constants from YAML text (pure, formats/model_file.c); name for messages. */
int eb_model_load_buffer(eb_model *m, const char *text, size_t len, const char *name, eb_error *err);
void eb_model_free(eb_model *m);
const eb_model_chip *eb_model_chip_get(const eb_model *m, const char *chip);
/* Renders the constants file (malloc'd YAML text, byte-identical for the same
 * inputs; NULL on no memory). */
char *eb_model_render(const eb_model *m);

/* ---- prediction ----------------------------------------------------------- */

/* Which term bounds a test's figure. */
enum eb_model_bound {
    EB_MB_CPU,      /* per-chip path ceiling (with IRAM/cache/clock/PSRAM factors) */
    EB_MB_WINDOW,   /* TCP window over the effective round trip */
    EB_MB_AIR,      /* 802.11n airtime: A-MPDU length, PHY rate */
    EB_MB_LOSS,     /* TCP under random loss (Mathis) */
    EB_MB_STARVE,   /* UDP RX: dynamic RX buffers or UDP mailbox overrun */
};
const char *eb_model_bound_name(int bound); /* "cpu", "window", ... */

typedef struct eb_prediction {
    double mbps[EB_TEST_COUNT];    /* goodput, Mbit/s */
    double free_kb;                /* free heap (the docs' "available memory"), KB */
    double loss[EB_TEST_COUNT];    /* UDP datagram loss fraction (0 for TCP) */
    int bound[EB_TEST_COUNT];      /* enum eb_model_bound */
    double window_kb[2];           /* usable TCP window TX, RX (KB) */
    int ampdu_rx, ampdu_tx;        /* MPDUs per A-MPDU the model uses */
    double phy_mbps;               /* PHY rate used */
} eb_prediction;

/* Predicts tier t on chip c with the fitted constants mc under link l (NULL =
 * published conditions). Unset fields take the ESP-IDF Kconfig defaults.
 * Pure: no allocation, no I/O. */
void eb_model_predict(const eb_model_chip *mc, const eb_chip *c, const eb_tier *t,
                      const eb_model_link *l, eb_prediction *out);

/* Sets one tier field from text ("dynamic_rx", "8"; bools ENABLE/DISABLE,
 * 1/0, y/n; the BA window also "Disable"; "psram" sets t->psram), range
 * checked against Kconfig. EB_ECONFIG with one line on an unknown key or a
 * bad value. */
int eb_model_tier_set(eb_tier *t, const char *key, const char *value, eb_error *err);

/* Fields set in t that no model term uses, as a bit mask (1u << field). */
unsigned eb_model_unmodelled(const eb_tier *t);

/* ---- figures of a simulated board ------------------------------------------- */

enum eb_figure_source { EB_FIG_PUBLISHED, EB_FIG_MODEL, EB_FIG_NONE };

/* The figure a simulated board shows for test (EB_TEST_COUNT = free heap, KB)
 * of tier t: the tier's published figure when it has one, the link is the
 * published conditions and force_model is off; else the model's (mc NULL:
 * EB_FIG_NONE, *value NAN). Returns the source. run and the vboard both call
 * it, so results name the source the vboard used. */
int eb_model_figure(const eb_model_chip *mc, const eb_chip *c, const eb_tier *t,
                    const eb_model_link *l, bool force_model, int test, double *value);

/* The source eb_model_figure picks, without computing the figure. */
int eb_model_source(const eb_tier *t, int test, const eb_model_link *l, bool force_model);

/* Whether a simulated board's free memory is a figure: the docs give one
 * for tier t, or for some tier of chip c (the model's heap terms are fitted
 * on those). Without any (the ESP32-C5's and -C61's tables have no memory
 * row) the vboard's heap answer has nothing behind it: results keep the
 * memory unknown (null, "-"), never a number. */
bool eb_model_heap_known(const eb_chip *c, const eb_tier *t);
/* eb_model_predict, for showing (predict, profiles --predict): the free heap
 * NAN, unknown, where eb_model_heap_known is false — the chip's heap
 * constants are then their priors (heap_base_kb 200 KB), not the chip's,
 * and the buffers take them below zero (the ESP32-C5's iperf tier: -64.2). */
void eb_model_predict_shown(const eb_model_chip *mc, const eb_chip *c, const eb_tier *t, const eb_model_link *l,
                            eb_prediction *out);

/* Replaces t's build-time fields with those of the espbench firmware image
 * (one image for every tier: for each build-time field the largest value
 * among the chip's non-PSRAM tiers; ESP-IDF defaults where none sets it), as
 * `run` on that firmware runs the tier. */
void eb_model_as_built(const eb_chip *c, eb_tier *t);

/* ---- lint ----------------------------------------------------------------- */

enum eb_lint_level { EB_LINT_WARNING, EB_LINT_ERROR };
typedef struct eb_lint {
    int level;      /* enum eb_lint_level */
    int field;      /* eb_field the finding is about */
    char msg[200];  /* one line, with the reason */
} eb_lint;

/* Lints t against the rules of Espressif's Wi-Fi buffer documentation:
 * error = known to stall the Wi-Fi stack (RX BA window above
 * min(dynamic RX, 2 x static RX)); warning = wastes memory (a TCP window or
 * send buffer the Wi-Fi buffers cannot hold). Fills up to max findings,
 * returns how many there are. */
int eb_model_lint(const eb_tier *t, eb_lint *out, int max);

/* ---- calibration ---------------------------------------------------------- */

/* Fits chip c's constants from its published tiers, leaving out the tier
 * named skip (NULL = none): deterministic. Chips or tiers without figures
 * keep the priors. */
int eb_model_fit_chip(const eb_chip *c, const char *skip, eb_model_chip *out, eb_error *err);
/* Fits every chip of p into m (m->chips malloc'd; free with eb_model_free). */
int eb_model_fit(const eb_profiles *p, eb_model *m, eb_error *err);

/* Leave-one-tier-out cross-validation of one chip: for each published tier,
 * refit without it and predict it. err_pct[k][test] = (pred - pub) / pub x
 * 100, signed (NAN where the docs give no figure; test EB_TEST_COUNT = free heap).
 * Tiers whose refit would see no data of their own chip stay NAN. Arrays are
 * malloc'd (*n rows); free(*err_pct) and free(*tiers). */
typedef double eb_model_cv_row[EB_TEST_COUNT + 1];
int eb_model_cv_chip(const eb_chip *c, eb_model_cv_row **err_pct, const eb_tier ***tiers, int *n,
                     eb_error *err);

/* ---- renderings (formats/model_json.c) ------------------------------------- */

#include "espbench/base/buf.h"

/* Median and worst of the absolute non-NAN errors of column col (a test, or
 * EB_TEST_COUNT = free heap) over n folds; returns how many there are (0:
 * both NAN). */
int eb_model_cv_summary(const eb_model_cv_row *rows, int n, int col, double *median, double *worst);
/* Column col's name in cv output: the test's name, or "free_heap". */
const char *eb_model_cv_column(int col);
/* `model cv --json`: every chip of p, its summary per column and its folds
 * (published, predicted, signed error), in results.json's layout. */
int eb_model_cv_render_json(const eb_profiles *p, eb_buf *out, eb_error *err);
/* `predict --json`: the prediction p of tier t on chip c under link l, with
 * its bounds, unmodelled fields and lint findings. */
void eb_prediction_render_json(const eb_chip *c, const eb_tier *t, const eb_model_link *l, const eb_prediction *p,
                               const eb_lint *lint, int n_lint, eb_buf *out);

#endif
