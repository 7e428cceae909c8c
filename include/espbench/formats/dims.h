/* The dimensions of a result: what, besides the board, the chip and the
 * test, a figure was measured at — the tier, the repeat, a sweep variable
 * (the UDP offered rate, the TX power, the virtual board's link: RSSI, loss,
 * round trip; a lab attenuator's attenuation, the lab AP's channel and
 * bandwidth) and the ESP-IDF version. One row each (dims.c): its names
 * (flag spelling, results key, unit), the range of its values, whether
 * --sweep takes it, and how it compares and names itself in a result's key.
 * The run job applies a row's value to an end of a test (jobs/run_dims.c);
 * the reports, compare and the reference figures (eb_tier_ref) read a
 * result's point through here. A new dimension is one row here and its
 * apply function there; its default value leaves existing keys as they are.
 * Pure. */
#ifndef ESPBENCH_DIMS_H
#define ESPBENCH_DIMS_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/error.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/provenance.h"

enum eb_dim {
    EB_DIM_NONE,
    /* --sweep variables (one per run; the key: provenance sweep_var / sweep_value) */
    EB_DIM_UDP_RATE, /* Mbit/s offered by the UDP sender */
    EB_DIM_TX_POWER, /* dBm, the board's maximum transmit power */
    EB_DIM_RSSI,     /* dBm, the virtual board's link */
    EB_DIM_LOSS,     /* %, the virtual board's link */
    EB_DIM_RTT,      /* ms, the virtual board's link */
    EB_DIM_ATTEN,    /* dB, the board's attenuator (lab instruments) */
    EB_DIM_CHANNEL,  /* the AP's channel (lab instrument; 36 and up: 5 GHz) */
    EB_DIM_BANDWIDTH,/* MHz, the AP's channel width (lab instrument) */
    EB_DIM_SWEEP_END,
    /* the matrix itself */
    EB_DIM_TIER = EB_DIM_SWEEP_END, /* the buffer tier (entry tier) */
    EB_DIM_REPEAT,   /* the run of the test (entry repeat) */
    EB_DIM_IDF,      /* the ESP-IDF version (run --idf: a run folder per version) */
    /* the board's radio (run --band 2.4,5 ...: lists crossed with the tiers;
     * the key: provenance radio_*; docs/dimensions.md) */
    EB_DIM_BAND,       /* GHz: 2.4, 5 */
    EB_DIM_RADIO_BW,   /* MHz: the board's HT20 / HT40 */
    EB_DIM_PHY,        /* the highest protocol enabled: b, g, n, ax (a, n, ac, ax at 5 GHz) */
    EB_DIM_POWER_SAVE, /* none, min_modem, max_modem (with run --listen-interval) */
    EB_DIM_COEX,       /* a BLE activity during the test: none, ble_scan, ble_adv */
    EB_DIM_COUNT
};

#define EB_DIM_SWEEPS 1u /* --sweep takes it */
#define EB_DIM_LINK 2u   /* the virtual board's link (its control socket): --sim (rssi: or an attenuator) */
#define EB_DIM_RADIO 4u  /* a radio setting of the board: a list of names, checked against the chip's facts */
#define EB_DIM_IPERF 8u  /* an option of iperf (iperf_opt) on both ends of the traffic */
#define EB_DIM_LIST 16u  /* a list the run crosses with the tiers (--FLAG V1,V2,...), as the radio's */
#define EB_DIM_BAND5 64u /* a radio row the console sets per band: its key with a 5 at 5 GHz (bw5=, phy5=) */
/* An end's declaration only (run_end_decl.sets): a board's console, which
 * takes the rows that are no iperf option (tier, link, instruments). */
#define EB_DIM_CONSOLE 32u
/* The most rows the table may hold (arrays indexed by dimension). */
#define EB_DIM_MAX 32

typedef struct eb_dim_desc {
    const char *name; /* as flags spell it: "udp-rate" */
    const char *key;  /* as results and file names spell it: "udp_rate" */
    const char *unit; /* "Mbit/s"; "" for a name */
    double lo, hi;    /* the values it takes (numeric dimensions) */
    unsigned flags;   /* EB_DIM_SWEEPS, EB_DIM_LINK */
    int instrument;   /* the lab instrument that sets it (lab.h enum eb_instr_kind), 0 = none */
    /* Whether two results were measured at the same value of the
     * dimension (NULL: the results store keys it by a field of its own —
     * tier, repeat — or a run folder does). */
    bool (*same)(const eb_provenance *a, const eb_provenance *b);
    /* Radio dimensions: the names it takes (NULL-terminated; the first is
     * the default, whose results keep the key they had), and whether chip c
     * can run value v (false: the one line in why). */
    const char *const *values;
    bool (*chip_can)(const eb_chip *c, const char *v, char *why, size_t cap);
    /* A row that owns its value (fio's option table): where it lives in the
     * provenance (EB_PROV_DIM_SLOT(i); 0 = a field of its own above), its
     * default (NAN: none; a value at it leaves keys as they were), its
     * label (reports, footers), the iperf option it is on both ends
     * (EB_DIM_IPERF: "-l"), and its line of `run --help` after "--NAME". */
    size_t prov_off;
    double def;
    const char *label;
    const char *iperf_opt;
    const char *help;
    const char *flag; /* its flag of run when not its name ("bandwidth" for the radio's); NULL = name */
    size_t link_off;  /* EB_DIM_LINK: where it lives in the virtual board's link (model.h eb_model_link) */
    /* A row owning a field of the provenance (prov_off) of text: its size
     * (0: a number); its part in labels and file names ("bw=40", "-bw40";
     * NULL: its name); a number that goes with its value (power save's
     * listen interval), its offset, tag and name. */
    size_t prov_size;
    const char *tag;
    size_t extra_off;
    const char *extra_tag, *extra_name;
    /* That number's flag of run (extra_name) takes extra_lo..extra_hi and
     * goes with the row's value extra_with (max_modem), the reason in
     * extra_why; extra_key names it in the request record. */
    int extra_lo, extra_hi;
    const char *extra_with, *extra_why, *extra_key, *extra_help;
    /* Its flag's value in `run --help` ("2.4,5", "MBPS"); NULL: its help
     * line says it (help after "--FLAG ARG"). */
    const char *arg;
    /* A row that keys results by a field of its own: what compare does
     * with it instead of --ignore (compare.c). */
    const char *compare_note;
    /* Where its value lives in an entry besides the key (the offered
     * rate's udp_rate_mbps; 0: nowhere): the kinds' start writes it. */
    size_t entry_off;
    /* A radio row: its value as the espbench console's radio_set spells it
     * (five: at 5 GHz; NULL: as it is); the key is its tag (or name). */
    const char *(*spell)(const char *v, bool five);
} eb_dim_desc;

/* The row of a dimension; NULL for EB_DIM_NONE or out of range. Rows after
 * the named ones (enum eb_dim) have no name in code: a new dimension is a
 * row of the table and nothing else. */
const eb_dim_desc *eb_dim(int dim);
/* Its flag of run, without "--" (the row's flag, else its name). */
const char *eb_dim_flag(const eb_dim_desc *d);
/* The rows' count (EB_DIM_COUNT and the unnamed rows after it). */
int eb_dim_count(void);
/* Whether v is the row's default (a row of no default: never). */
bool eb_dim_is_default(const eb_dim_desc *d, double v);
/* `run --help`'s lines of the rows that carry help, in table order
 * ("  --band 2.4,5          Wi-Fi band, GHz ..."), the numbers that go
 * with a row (--listen-interval) after it, and --sweep's line with the
 * rows it takes. */
void eb_dims_help(char *out, size_t cap);
/* From either spelling ("udp-rate" or "udp_rate"); EB_DIM_NONE if unknown. */
int eb_dim_from_name(const char *name);

/* Two results at the same point of every dimension that keys by provenance. */
bool eb_dims_same_point(const eb_provenance *a, const eb_provenance *b);
/* Every such dimension at its default (no sweep point): the rank tables' cells. */
bool eb_dims_at_default(const eb_provenance *p);
/* "rssi=-60" for a result at a sweep point, "" otherwise (report cells). */
void eb_dims_point_label(const eb_provenance *p, char *out, size_t cap);

/* One dimension at a time (compare: which dimensions two inputs differ in,
 * --ignore DIM): whether the row keys results by the provenance (the sweep
 * variables, the radio's rows, the rows that own their value; not tier,
 * repeat or the ESP-IDF version, which have keys of their own); dim's value
 * of src into dst, every other dimension of dst kept (from an all-default
 * provenance: resets it); its label: "band=5", "rssi=-60", or at the
 * default "band=2.4 (default)", "rssi at its default". */
bool eb_dim_keys(int dim);
void eb_dim_copy_value(int dim, eb_provenance *dst, const eb_provenance *src);
void eb_dim_value_label(int dim, const eb_provenance *p, char *out, size_t cap);

/* ---- the radio dimensions ---- */

#define EB_RADIO_MAX_VALUES 6
/* The values a run asks for, per radio dimension (n 0: not asked: the
 * board keeps what it runs), in the order given. */
typedef struct eb_radio_values {
    char v[EB_DIM_MAX][EB_RADIO_MAX_VALUES][12];
    int n[EB_DIM_MAX];
    /* The number that goes with a row's value (its extra_name flag: power
     * save's listen interval, beacons with max_modem); 0 = none given. */
    int extra[EB_DIM_MAX];
} eb_radio_values;

/* Parses a flag's comma-separated list ("2.4,5", "min-modem,none") into
 * rv's names (canonical: "ht40" -> "40", "min-modem" -> "min_modem").
 * EB_ECONFIG with one line naming the flag and the values it takes. */
int eb_radio_parse(eb_radio_values *rv, int dim, const char *list, eb_error *err);

/* ---- a value of a row: a number, or for a row of names its index in them ---- */

/* A name or a number as the row's value (names: their index; NAN when
 * the row has no such name). */
double eb_dim_value(const eb_dim_desc *d, const char *text);
/* The value as the row spells it: its name, else "%g". */
void eb_dim_value_text(const eb_dim_desc *d, double v, char *out, size_t cap);
/* A plan point's values (at: one per row, NAN = none) into key: the swept
 * row's into the sweep pair (sweep_var, sweep_value), every other row's
 * that owns a field into it; a default value, and NAN, leave the field
 * unknown: the key it had. A row's extra number (extra[row], 0 = none)
 * goes with its value extra_with (power save's listen interval). */
void eb_dims_key(const double *at, int swept, const int *extra, eb_provenance *key);
/* Whether chip c can run every value asked for: false with one line
 * ("--band 5: esp32c3 has no 5 GHz radio (profile esp32c3: wifi_bands 2.4)"). */
bool eb_radio_chip_can(const eb_radio_values *rv, const eb_chip *c, char *why, size_t cap);
/* "band=5 bw=40" for a result's radio point ("" at the defaults). */
void eb_radio_label(const eb_provenance *p, char *out, size_t cap);
/* The same point as a file name's part: "-rssi-60-band5-bw40-len512"
 * (each row's tag, else its name, and its value). */
void eb_dims_file_tag(const eb_provenance *p, char *out, size_t cap);

/* The PHY rate ceiling of a mode (IEEE 802.11 rate tables, one spatial
 * stream, short guard interval): "11n" HT20 MCS7 72.2, HT40 150; "11ax"
 * HE20 MCS9 114.7 (0.8 us GI); "11ac" VHT20 MCS8 86.7, VHT40 MCS9 200;
 * "11g"/"11a" 54; "11b" 11 Mbit/s. NAN for an unknown mode. */
double eb_phy_ceiling_mbps(const char *phy_mode, double bw_mhz);

/* The published figure of test on tier t at a result's point (key; NULL =
 * every dimension at its default): the docs' figure for the four
 * throughput tests, NAN where they give none (a custom tier, raw and
 * latency tests). Profiles keep one figure per test today; a dimension
 * with figures of its own (a band) picks them here. */
double eb_tier_ref(const eb_tier *t, int test, const eb_provenance *key);

#endif
