/* The results matrix: one entry per board × chip × tier × test × repeat, plus
 * per-board run metadata. Serialised as results.json (schema in
 * docs/results-schema.json) and results.csv (RFC 4180). */
#ifndef ESPBENCH_RESULTS_H
#define ESPBENCH_RESULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "espbench/base/buf.h"
#include "espbench/base/error.h"
#include "espbench/formats/intervals.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/provenance.h"

#define EB_RESULTS_SCHEMA_VERSION 1


typedef struct eb_stats {
    int n;               /* steady intervals used */
    double mean, median, min, max, stddev;
    double peak_1s;      /* largest 1-second interval: the figure Espressif's CI reports */
} eb_stats;

/* Statistics over the steady intervals: full-length intervals (end-start
 * equal to the nominal interval within 10 %, summary lines excluded), after
 * dropping the first warmup_s seconds. */
void eb_stats_compute(const eb_interval *iv, int n, double interval_s, double warmup_s, eb_stats *out);
/* The same over a side's series. */
void eb_stats_compute_ivs(const eb_ivs *iv, double interval_s, double warmup_s, eb_stats *out);

typedef struct eb_entry {
    char board[48];      /* lab board name, "sim" for --sim, "" for a lone board */
    char chip[24];
    char tier[32];
    int test;            /* enum eb_test */
    int repeat;          /* 0-based */
    char status[16];     /* "ok", "failed" */
    char *error_text;    /* why it failed, NULL if ok: eb_entry_error / eb_entry_set_error */
    /* Each side's intervals (intervals.h: compact, exact): the receiver's
     * are the headline side. n of each is the count. */
    eb_ivs receiver, sender;
    eb_stats rx_stats, tx_stats;
    double mean_mbps;    /* = rx_stats.mean */
    double peak_mbps;    /* = rx_stats.peak_1s */
    double loss_pct;     /* UDP; NAN otherwise */
    /* UDP: the loss summed over the receiver's intervals, kept beside
     * loss_pct when loss_pct came from iperf's whole-test line (the PC
     * server's final line, a relayed Server Report); NAN otherwise. JSON:
     * "interval_loss_pct", absent when NAN. */
    double interval_loss_pct;
    double jitter_ms;    /* UDP; NAN otherwise */
    long free_heap;      /* bytes after the test; -1 unknown */
    long min_free_heap;
    long largest_block;
    double ref_mbps;     /* the docs' figure; NAN if none */
    double duration_s, interval_s, warmup_s, udp_rate_mbps;
    char started[32], finished[32];
    /* The tier's parameters at run time (from the profile), by enum eb_field;
     * only fields with param_set[f] are meaningful. JSON: "tier_params". */
    bool param_set[EB_F_COUNT];
    int param[EB_F_COUNT];
    /* Build-time settings the board ran with other values than the tier's
     * ("tcp_snd_buf_kb=65 (tier 28), ..."), "" when it ran the tier as given.
     * JSON: "tier_note". */
    char *tier_note;     /* NULL when none; eb_entry_set_tier_note / eb_entry_tier_note */
    /* Where a simulated board's figure came from: "published" (the docs'
     * table, replayed) or "model N" (the tier model, version N); "" for a
     * real board. JSON: "figure_source". */
    char figure_source[24];
    /* The whole-test rate the board's log stated in its summary (a pattern
     * file's summary block, a board's final line), decimal Mbit/s; NAN when
     * none. The figures stay the intervals'. JSON: "summary_mbps", absent
     * when unknown. */
    double summary_mbps;
    /* The log's summary as it printed it ("37.93 Mbits/sec": figure and unit
     * before any conversion), NULL when none. JSON: "summary_printed". */
    char *summary_printed;
    /* How a parsed board log's rates were converted when the evidence for
     * the unit base conflicted or rested on the mode= line's whitespace
     * alone, or --unit-base set it: the base and the line it came from
     * ("2^20 bits per Mbit, from board.log:3 (boot log: ESP-IDF v5.1.2);
     * against it board.log:12 ..."). NULL otherwise. JSON: "unit_base_note". */
    char *unit_note;
    /* Where the figure came from (firmware, chip, link, AP, host, setting,
     * sweep point); unknown fields stay unknown. JSON: "provenance". Held
     * out of line (most entries of a long parsed log know none of it, and a
     * 1 KB inline copy per entry was most of a large parse's memory): read
     * it with eb_entry_prov(), change it with eb_entry_prov_mut(); NULL
     * means every field unknown. The entry owns it. */
    eb_provenance *provenance;
} eb_entry;

typedef struct eb_board_meta {
    char board[48];
    char chip[24];
    char mac[24];
    char port[256];
    char dialect[32];    /* console dialect driver name */
    char fw_project[64], fw_version[64], idf_version[64], fw_sha256[72];
    char ap_ssid[64];
    int rssi;            /* dBm; 0 unknown */
    char board_ip[48], pc_ip[48];
    char host[64];
    char iperf_version[64];
    char started[32], finished[32];
} eb_board_meta;

/* A latency test (run --tests latency): round trips from the PC to the
 * board, one measurement per tier, sweep point and repeat. JSON: "latency",
 * an array beside "entries" (absent when no latency test ran). Figures come
 * from ping's summary or, for UDP echo, from eb_ping_summarize (ping_parse.h):
 * one rule for both methods. */
typedef struct eb_latency {
    char board[48], chip[24], tier[32];
    int repeat;
    char method[16];     /* "udp-echo" (espbench firmware's echo port) or "icmp" (the system's ping) */
    char target[48];     /* the board's address the probes went to */
    char status[16];     /* "ok", "failed" */
    char error[256];
    int sent, received;
    double interval_s;   /* between probes */
    double loss_pct;     /* (sent - received) / sent x 100 */
    double min_ms, avg_ms, max_ms, mdev_ms, p99_ms; /* over the replies; NAN (null) when none */
    char started[32], finished[32];
    eb_provenance prov;  /* as an entry's; sweep_var / sweep_value key a sweep point */
    /* Round trips measured while a throughput test ran (run
     * --latency-under-load): that test's name ("tcp_rx"), part of the key;
     * "" = the idle latency test. */
    char under_load[16];
} eb_latency;

typedef struct eb_results {
    char espbench_version[32];
    char generated[32];
    eb_board_meta *boards; int n_boards;
    eb_entry *entries; int n_entries;
    int cap_entries;     /* allocated slots (grows by doubling) */
    eb_latency *lat; int n_lat;
} eb_results;
/* Adds or replaces (same board, chip, tier, repeat and sweep point) a latency test. */
eb_latency *eb_results_put_latency(eb_results *r, const eb_latency *l);
/* board NULL = any; sweep_var "" = no sweep point (as eb_results_find_point). */
eb_latency *eb_results_find_latency(eb_results *r, const char *board, const char *chip, const char *tier,
                                    int repeat, const char *sweep_var, double sweep_value);
/* The latency set of key's board, chip, tier, repeat and point of every
 * dimension (dims.h: the sweep point, the radio settings). */
eb_latency *eb_results_find_latency_key(eb_results *r, const eb_latency *key);
/* A result's key with no result made for it (a plan item's, for resume):
 * board, chip, tier, test, repeat, and in prov the point of every
 * dimension, a pair test's peer and the ESP-IDF version. */
typedef struct eb_result_key {
    const char *board, *chip, *tier;
    int test, repeat;
    const eb_provenance *prov;
} eb_result_key;
/* The latency set (not one under load) at key's board, chip, tier, repeat
 * and point (as eb_results_find_latency_key). */
eb_latency *eb_results_find_latency_done(eb_results *r, const eb_result_key *key);

void eb_results_init(eb_results *r);
void eb_results_free(eb_results *r);
/* Deep-copies e (and its interval arrays) into r; returns the new entry. */
eb_entry *eb_results_add(eb_results *r, const eb_entry *e);
eb_board_meta *eb_results_board(eb_results *r, const char *board, bool create);
/* Finds an entry by key; NULL if none. */
eb_entry *eb_results_find(eb_results *r, const char *board, const char *chip, const char *tier,
                          int test, int repeat);
/* The same cell at one sweep point: sweep_var "" = an entry of no sweep;
 * NULL = any point (eb_results_find). An entry's key is board, chip, tier,
 * test, repeat and its sweep point (provenance sweep_var / sweep_value). */
eb_entry *eb_results_find_point(eb_results *r, const char *board, const char *chip, const char *tier, int test,
                                int repeat, const char *sweep_var, double sweep_value);
void eb_entry_free(eb_entry *e);
/* The whole key of an entry: board, chip, tier, test, repeat, sweep point,
 * for a board-to-board test the peer's chip and tier (provenance
 * peer_chip / peer_tier) — a pair test and a test against the PC are never
 * the same cell — and the ESP-IDF version (provenance idf_version; "" only
 * matches ""), so merge and put keep the cells of two IDFs apart. */
bool eb_entry_same_key(const eb_entry *a, const eb_entry *b);
eb_entry *eb_results_find_same(eb_results *r, const eb_entry *key);
/* An entry's key (its fields; the provenance stays the entry's). */
eb_result_key eb_entry_key(const eb_entry *e);
/* For resume: the entry at key as eb_results_find_same, but a key of no
 * ESP-IDF version (a plan item, whose firmware's version is known only once
 * the board boots) matches an entry of any version; a key with one set
 * matches only that version (run --idf). */
eb_entry *eb_results_find_done(eb_results *r, const eb_result_key *key);
/* "esp32c3/iperf" for a pair test's peer, "" for a test against the PC. */
void eb_entry_pair_label(const eb_entry *e, char *out, size_t cap);
/* Whether e is a cell of peer `pair` (that label; "" = a test against the
 * PC): a pair test never stands in for a PC test or the other way round. */
bool eb_entry_in_pair(const eb_entry *e, const char *pair);

/* ---- Additions (results module) ---- */

/* An empty entry: figures NAN, memory -1, status "ok". Call before filling one in. */
void eb_entry_init(eb_entry *e);
/* Copies the tier's parameters (set fields and values) into e->param_set/param. */
void eb_entry_set_tier_params(eb_entry *e, const eb_tier *t);
/* Adds e, or replaces the entry with the same key (board, chip, tier, test,
 * repeat) — for a run that redoes a test. Returns the stored entry. */
eb_entry *eb_results_put(eb_results *r, const eb_entry *e);
/* Moves *n entries (an array of *cap from malloc) into r, which then owns them
 * and their intervals; *entries, *n and *cap are cleared. */
void eb_results_take(eb_results *r, eb_entry **entries, int *n, int *cap);
/* Deep copy of an entry into dst (dst uninitialised). */
void eb_entry_copy(eb_entry *dst, const eb_entry *src);
/* Replaces the interval arrays e points at (borrowed, owned elsewhere) with
 * copies of its own. */
void eb_entry_own_intervals(eb_entry *e);
/* The entry's provenance: never NULL (an all-unknown one when the entry holds none). */
const eb_provenance *eb_entry_prov(const eb_entry *e);
/* The entry's own provenance to change, made (all unknown) on first use. */
eb_provenance *eb_entry_prov_mut(eb_entry *e);
/* Why the entry failed, "" when it did not. */
const char *eb_entry_error(const eb_entry *e);
/* Sets the failure message (printf; cut at 255 bytes; "" clears it). */
void eb_entry_set_error(eb_entry *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets the tier note ("" or NULL: none). */
void eb_entry_set_tier_note(eb_entry *e, const char *note);
/* The tier note, "" when none. */
const char *eb_entry_tier_note(const eb_entry *e);
/* Replace an entry's out-of-line text (summary_printed, unit_note): a copy
 * of s, NULL for "" or NULL. */
void eb_entry_set_text(char **slot, const char *s);

/* An entry's figures from its intervals — the one rule `run` and `parse`
 * share (stats.c):
 *  - rx_stats/tx_stats over each side's steady intervals; each side's nominal
 *    interval is e->interval_s when its lines have that length (within 10 %),
 *    else the median length of its lines (the sides may report at different
 *    intervals); warm-up e->warmup_s (NAN: none);
 *  - mean_mbps/peak_mbps: the receiver's, or a lone sender's when no
 *    receiver interval is steady;
 *  - UDP tests: loss_pct = lost/total summed over the receiver intervals that
 *    carry both counts (lost < 0 means unknown: the interval is left out),
 *    jitter_ms = mean of the receiver intervals' jitter; udp_final (iperf's
 *    whole-test line: the PC server's final line, or the receiver's relayed
 *    to a PC client; NULL or total <= 0: none) replaces both sums, and the
 *    intervals' loss stays beside it in interval_loss_pct. Jitter is NAN when
 *    the board sends (udp_tx): the ESP iperf UDP client puts only a datagram
 *    id in its payload, no send time, so the PC server's jitter measures
 *    nothing. */
void eb_entry_figures(eb_entry *e, const eb_interval *udp_final);

/* A partial test (one rule for run and parse): whether one side's intervals
 * cover the requested_s of the test, i.e. the last one ends less than one
 * interval_s (+1 %) short of it. requested_s <= 0 (unknown) covers. When
 * they do not, why gets one phrase naming the side ("receiver", "sender")
 * and the seconds covered: "the receiver reported only 30.0 s of the 60 s of
 * tcp_tx". */
bool eb_intervals_cover(const eb_ivs *iv, double requested_s, double interval_s, const char *side, int test,
                        char *why, size_t why_cap);
/* A failed test gives no figure: mean, peak, loss and jitter become NAN
 * (the intervals and per-side statistics stay: nothing measured is lost). */
void eb_entry_drop_headline(eb_entry *e);

/* True when two entries hold the same key and the same figures, intervals and
 * settings (NAN equals NAN): what merge calls an identical duplicate. */
bool eb_entry_equal(const eb_entry *a, const eb_entry *b);

/* Serialise to text (no I/O). JSON ends with a newline; CSV is RFC 4180 with CRLF line ends. */
void eb_results_to_json(const eb_results *r, eb_buf *out);
/* The same JSON handed to a sink piece by piece (a few hundred KB at a time),
 * so a large file is written without holding it all; stops at the sink's
 * first error and returns it. */
typedef struct eb_results_sink {
    int (*write)(void *ctx, const void *data, size_t len, eb_error *err);
    void *ctx;
} eb_results_sink;
int eb_results_write_json(const eb_results *r, const eb_results_sink *sink, eb_error *err);
void eb_results_to_csv(const eb_results *r, eb_buf *out);
/* Parses results JSON text; `name` (a file name) prefixes error messages:
 * "NAME: entries[3].mean_mbps: expected a number" (EB_ECONFIG). */
int eb_results_parse_json(eb_results *r, const char *text, size_t len, const char *name, eb_error *err);

/* The largest results.json espbench reads (report, compare, merge, resume)
 * and therefore writes (parse, merge): a file one command writes, the next
 * one reads. */
#define EB_RESULTS_MAX_BYTES (256u << 20)

#endif
