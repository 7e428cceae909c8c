/* The results store: an in-memory matrix of entries and per-board metadata,
 * serialised as results.json (schema "espbench-results", docs/results-schema.json)
 * and results.csv (RFC 4180, columns documented in docs/results.md).
 *
 * JSON conventions: NAN figures are written as null and null reads back as NAN;
 * unknown memory (-1) and unknown UDP counters (-1) are null too. Unknown keys
 * are ignored on load (later schema versions may add keys); every known key
 * is type-checked and errors name the JSON path. */
#include "espbench/formats/results.h"
#include "espbench/base/fs.h"
#include "espbench/base/str.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "espbench/base/clock.h"
#include "espbench/formats/stats.h"
#include "espbench/base/version.h"
#include "json_writer.h"

#define RESULTS_SCHEMA_NAME "espbench-results"

/* ---------------------------------------------------------------- store */

void eb_results_init(eb_results *r) { memset(r, 0, sizeof *r); }

void eb_entry_free(eb_entry *e)
{
    if (!e)
        return;
    free(e->receiver);
    free(e->sender);
    free(e->provenance);
    free(e->tier_note);
    free(e->error_text);
    free(e->summary_printed);
    free(e->unit_note);
    e->summary_printed = e->unit_note = NULL;
    e->error_text = NULL;
    e->receiver = e->sender = NULL;
    e->n_receiver = e->n_sender = 0;
    e->provenance = NULL;
    e->tier_note = NULL;
}

void eb_results_free(eb_results *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_entries; i++)
        eb_entry_free(&r->entries[i]);
    free(r->entries);
    free(r->boards);
    free(r->lat);
    memset(r, 0, sizeof *r);
}

static void stats_init(eb_stats *s)
{
    s->n = 0;
    s->mean = s->median = s->min = s->max = s->stddev = s->peak_1s = NAN;
}

void eb_entry_init(eb_entry *e)
{
    memset(e, 0, sizeof *e);
    snprintf(e->status, sizeof e->status, "ok");
    stats_init(&e->rx_stats);
    stats_init(&e->tx_stats);
    e->mean_mbps = e->peak_mbps = e->loss_pct = e->jitter_ms = e->ref_mbps = NAN;
    e->free_heap = e->min_free_heap = e->largest_block = -1;
    e->duration_s = e->interval_s = e->warmup_s = e->udp_rate_mbps = NAN;
    e->summary_mbps = NAN;
    e->interval_loss_pct = NAN;
}

const eb_provenance *eb_entry_prov(const eb_entry *e)
{
    return e->provenance ? e->provenance : eb_prov_unknown();
}

eb_provenance *eb_entry_prov_mut(eb_entry *e)
{
    if (!e->provenance) {
        e->provenance = malloc(sizeof *e->provenance);
        if (!e->provenance)
            abort();
        eb_prov_init(e->provenance);
    }
    return e->provenance;
}

void eb_entry_set_tier_note(eb_entry *e, const char *note)
{
    free(e->tier_note);
    e->tier_note = note && note[0] ? strdup(note) : NULL;
    if (note && note[0] && !e->tier_note)
        abort();
}

const char *eb_entry_tier_note(const eb_entry *e) { return e->tier_note ? e->tier_note : ""; }

void eb_entry_set_text(char **slot, const char *s)
{
    free(*slot);
    *slot = s && s[0] ? strdup(s) : NULL;
    if (s && s[0] && !*slot)
        abort();
}

const char *eb_entry_error(const eb_entry *e) { return e->error_text ? e->error_text : ""; }

void eb_entry_set_error(eb_entry *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(e->error_text);
    e->error_text = eb_vstrdup_cut(256, fmt, ap);
    va_end(ap);
}

void eb_entry_set_tier_params(eb_entry *e, const eb_tier *t)
{
    for (int f = 0; f < EB_F_COUNT; f++) {
        e->param_set[f] = t->set[f];
        e->param[f] = t->set[f] ? t->value[f] : 0;
    }
}

static eb_interval *dup_intervals(const eb_interval *iv, int n)
{
    if (!iv || n <= 0)
        return NULL;
    eb_interval *p = malloc(sizeof *p * (size_t)n);
    if (!p)
        abort();
    memcpy(p, iv, sizeof *p * (size_t)n);
    return p;
}

void eb_entry_copy(eb_entry *dst, const eb_entry *src)
{
    *dst = *src;
    dst->provenance = NULL;
    if (src->provenance)
        *eb_entry_prov_mut(dst) = *src->provenance;
    dst->tier_note = NULL;
    eb_entry_set_tier_note(dst, src->tier_note);
    dst->summary_printed = dst->unit_note = NULL;
    eb_entry_set_text(&dst->summary_printed, src->summary_printed);
    eb_entry_set_text(&dst->unit_note, src->unit_note);
    dst->error_text = src->error_text ? strdup(src->error_text) : NULL;
    if (src->error_text && !dst->error_text)
        abort();
    dst->receiver = dup_intervals(src->receiver, src->n_receiver);
    dst->n_receiver = dst->receiver ? src->n_receiver : 0;
    dst->sender = dup_intervals(src->sender, src->n_sender);
    dst->n_sender = dst->sender ? src->n_sender : 0;
}

void eb_entry_own_intervals(eb_entry *e)
{
    e->receiver = dup_intervals(e->receiver, e->n_receiver);
    e->n_receiver = e->receiver ? e->n_receiver : 0;
    e->sender = dup_intervals(e->sender, e->n_sender);
    e->n_sender = e->sender ? e->n_sender : 0;
}

/* Room for one more entry; capacity doubles so a large log adds in amortised O(1). */
static void reserve_entry(eb_results *r)
{
    if (r->n_entries < r->cap_entries)
        return;
    int cap = r->cap_entries ? r->cap_entries * 2 : 16;
    eb_entry *p = realloc(r->entries, sizeof *p * (size_t)cap);
    if (!p)
        abort();
    r->entries = p;
    r->cap_entries = cap;
}

eb_entry *eb_results_add(eb_results *r, const eb_entry *e)
{
    reserve_entry(r);
    eb_entry *ne = &r->entries[r->n_entries++];
    eb_entry_copy(ne, e);
    return ne;
}

void eb_results_take(eb_results *r, eb_entry **entries, int *n, int *cap)
{
    if (r->n_entries == 0) { /* the common case: hand the array over */
        free(r->entries);
        r->entries = *entries;
        r->n_entries = *n;
        r->cap_entries = *cap;
    } else {
        for (int i = 0; i < *n; i++) {
            reserve_entry(r);
            r->entries[r->n_entries++] = (*entries)[i];
        }
        free(*entries);
    }
    *entries = NULL;
    *n = *cap = 0;
}

static bool same_key(const eb_entry *a, const eb_entry *b, bool any_idf)
{
    return !strcmp(a->board, b->board) && !strcmp(a->chip, b->chip) && !strcmp(a->tier, b->tier) &&
           a->test == b->test && a->repeat == b->repeat && !strcmp(eb_entry_prov(a)->sweep_var, eb_entry_prov(b)->sweep_var) &&
           (!eb_entry_prov(a)->sweep_var[0] || eb_entry_prov(a)->sweep_value == eb_entry_prov(b)->sweep_value) &&
           !strcmp(eb_entry_prov(a)->peer_chip, eb_entry_prov(b)->peer_chip) && !strcmp(eb_entry_prov(a)->peer_tier, eb_entry_prov(b)->peer_tier) &&
           /* The ESP-IDF version the firmware was built with: the same cell
            * measured with two IDFs is two entries (an unset version, as in
            * every file before the IDF matrix, matches only unset). */
           (any_idf || !strcmp(eb_entry_prov(a)->idf_version, eb_entry_prov(b)->idf_version));
}

bool eb_entry_same_key(const eb_entry *a, const eb_entry *b)
{
    return same_key(a, b, false);
}

eb_entry *eb_results_find_done(eb_results *r, const eb_entry *key)
{
    bool any_idf = !eb_entry_prov(key)->idf_version[0];
    for (int i = 0; i < r->n_entries; i++)
        if (same_key(&r->entries[i], key, any_idf))
            return &r->entries[i];
    return NULL;
}

eb_entry *eb_results_find_same(eb_results *r, const eb_entry *key)
{
    for (int i = 0; i < r->n_entries; i++)
        if (eb_entry_same_key(&r->entries[i], key))
            return &r->entries[i];
    return NULL;
}

void eb_entry_pair_label(const eb_entry *e, char *out, size_t cap)
{
    if (eb_entry_prov(e)->peer_chip[0])
        snprintf(out, cap, "%s/%s", eb_entry_prov(e)->peer_chip, eb_entry_prov(e)->peer_tier[0] ? eb_entry_prov(e)->peer_tier : "?");
    else if (cap)
        out[0] = 0;
}

bool eb_entry_in_pair(const eb_entry *e, const char *pair)
{
    char label[64];
    eb_entry_pair_label(e, label, sizeof label);
    return !strcmp(label, pair);
}

eb_entry *eb_results_put(eb_results *r, const eb_entry *e)
{
    eb_entry *old = eb_results_find_same(r, e);
    if (!old)
        return eb_results_add(r, e);
    eb_entry tmp;
    eb_entry_copy(&tmp, e);
    eb_entry_free(old);
    *old = tmp;
    return old;
}

eb_latency *eb_results_find_latency(eb_results *r, const char *board, const char *chip, const char *tier,
                                    int repeat, const char *sweep_var, double sweep_value)
{
    for (int i = 0; i < r->n_lat; i++) {
        eb_latency *l = &r->lat[i];
        if ((!board || !strcmp(l->board, board)) && !strcmp(l->chip, chip) && !strcmp(l->tier, tier) &&
            l->repeat == repeat && !strcmp(l->prov.sweep_var, sweep_var) &&
            (!sweep_var[0] || l->prov.sweep_value == sweep_value))
            return l;
    }
    return NULL;
}

eb_latency *eb_results_put_latency(eb_results *r, const eb_latency *l)
{
    eb_latency *old = eb_results_find_latency(r, l->board, l->chip, l->tier, l->repeat, l->prov.sweep_var,
                                              l->prov.sweep_value);
    if (old) {
        *old = *l;
        return old;
    }
    eb_latency *p = realloc(r->lat, sizeof *p * (size_t)(r->n_lat + 1));
    if (!p)
        abort();
    r->lat = p;
    r->lat[r->n_lat] = *l;
    return &r->lat[r->n_lat++];
}

eb_board_meta *eb_results_board(eb_results *r, const char *board, bool create)
{
    const char *name = board ? board : "";
    for (int i = 0; i < r->n_boards; i++)
        if (strcmp(r->boards[i].board, name) == 0)
            return &r->boards[i];
    if (!create)
        return NULL;
    eb_board_meta *p = realloc(r->boards, sizeof *p * (size_t)(r->n_boards + 1));
    if (!p)
        abort();
    r->boards = p;
    eb_board_meta *b = &r->boards[r->n_boards++];
    memset(b, 0, sizeof *b);
    snprintf(b->board, sizeof b->board, "%s", name);
    return b;
}

/* board NULL matches any board. */
eb_entry *eb_results_find(eb_results *r, const char *board, const char *chip, const char *tier,
                          int test, int repeat)
{
    return eb_results_find_point(r, board, chip, tier, test, repeat, NULL, NAN);
}

eb_entry *eb_results_find_point(eb_results *r, const char *board, const char *chip, const char *tier, int test,
                                int repeat, const char *sweep_var, double sweep_value)
{
    for (int i = 0; i < r->n_entries; i++) {
        eb_entry *e = &r->entries[i];
        if ((!board || strcmp(e->board, board) == 0) && strcmp(e->chip, chip) == 0 &&
            strcmp(e->tier, tier) == 0 && e->test == test && e->repeat == repeat &&
            (!sweep_var || (strcmp(eb_entry_prov(e)->sweep_var, sweep_var) == 0 &&
                            (!sweep_var[0] || eb_entry_prov(e)->sweep_value == sweep_value))))
            return e;
    }
    return NULL;
}

/* ---------------------------------------------------------------- JSON out */

/* Written with the streaming writer (json_writer.h), in the layout cJSON gave
 * the file before: a large `espbench parse` result holds tens of thousands of
 * entries, and building a cJSON tree of them was most of the command's time. */

/* -1 (or any negative) = unknown = null. */
static void jw_count(eb_jw *w, const char *key, long v)
{
    if (v >= 0)
        eb_jw_int(w, key, v);
    else
        eb_jw_null(w, key);
}

static void stats_json(eb_jw *w, const char *key, const eb_stats *s)
{
    eb_jw_object(w, key);
    eb_jw_int(w, "n", s->n);
    eb_jw_num(w, "mean", s->mean);
    eb_jw_num(w, "median", s->median);
    eb_jw_num(w, "min", s->min);
    eb_jw_num(w, "max", s->max);
    eb_jw_num(w, "stddev", s->stddev);
    eb_jw_num(w, "peak_1s", s->peak_1s);
    eb_jw_end(w);
}

static void put_num_or_null(eb_buf *b, double v, bool known)
{
    char num[32];
    if (known)
        eb_buf_append(b, num, eb_jw_fmt_num(v, num));
    else
        eb_buf_append(b, "null", 4);
}

/* One interval as a compact JSON object on its own line. */
static void interval_text(eb_buf *b, const eb_interval *iv)
{
    static const char *const keys[] = {"{\"start_s\":", ",\"end_s\":", ",\"bytes\":", ",\"mbps\":",
                                       ",\"jitter_ms\":"};
    const double vals[] = {iv->start_s, iv->end_s, iv->bytes, iv->mbps, iv->jitter_ms};
    eb_buf_reserve(b, 200);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        eb_buf_append(b, keys[k], strlen(keys[k]));
        put_num_or_null(b, vals[k], isfinite(vals[k]));
    }
    eb_buf_append(b, ",\"lost\":", 8);
    put_num_or_null(b, (double)iv->lost, iv->lost >= 0);
    eb_buf_append(b, ",\"total\":", 9);
    put_num_or_null(b, (double)iv->total, iv->total >= 0);
    eb_buf_append_byte(b, '}');
}

/* Intervals are most of a results file (one per report line of a log): one
 * compact object per line keeps the file short and a diff readable. */
static void intervals_json(eb_jw *w, const char *key, const eb_interval *iv, int n)
{
    eb_buf *b = eb_jw_raw(w, key);
    eb_buf_append_byte(b, '[');
    for (int i = 0; i < n; i++) {
        eb_buf_append(b, i ? ",\n" : "\n", i ? 2 : 1);
        interval_text(b, &iv[i]);
    }
    eb_buf_append_byte(b, ']');
}

/* Derived, written for readers and ignored on load: the run's coefficient of
 * variation and its flagged intervals (stats.h: stalls at 0, drops > 30 %
 * under the median), by start time. */
static void noise_json(eb_jw *w, const eb_entry *e)
{
    eb_jw_object(w, "noise");
    eb_jw_num(w, "cv_pct", e->rx_stats.mean > 0 && e->rx_stats.n > 1 ? e->rx_stats.stddev / e->rx_stats.mean * 100 : NAN);
    unsigned char *flags = e->n_receiver > 0 ? malloc((size_t)e->n_receiver) : NULL;
    int stalls = 0, drops = 0;
    eb_interval_flags(e, flags, &stalls, &drops);
    eb_jw_int(w, "stalls", stalls);
    eb_jw_int(w, "drops", drops);
    for (int kind = 0; kind < 2; kind++) {
        eb_jw_array(w, kind == 0 ? "stall_at_s" : "drop_at_s");
        for (int i = 0; flags && i < e->n_receiver; i++)
            if (flags[i] && (flags[i] == EB_IV_STALL) == (kind == 0))
                eb_jw_num(w, NULL, e->receiver[i].start_s);
        eb_jw_end(w);
    }
    free(flags);
    eb_jw_end(w);
}

/* Provenance text may hold a console capture's bytes: the file stays UTF-8. */
static void prov_json(eb_jw *w, const eb_provenance *p)
{
    eb_buf *b = eb_jw_raw(w, "provenance");
    size_t at = b->len;
    eb_prov_to_json(p, b);
    eb_utf8_fix_from(b, at);
}

static void entry_json(eb_jw *w, const eb_entry *e)
{
    eb_jw_object(w, NULL);
    eb_jw_str(w, "board", e->board);
    eb_jw_str(w, "chip", e->chip);
    eb_jw_str(w, "tier", e->tier);
    const char *tn = eb_test_name(e->test);
    eb_jw_str(w, "test", tn ? tn : "?");
    eb_jw_int(w, "repeat", e->repeat);
    eb_jw_str(w, "status", e->status);
    eb_jw_str(w, "error", eb_entry_error(e));
    if (e->tier_note)
        eb_jw_str(w, "tier_note", e->tier_note);
    if (e->figure_source[0])
        eb_jw_str(w, "figure_source", e->figure_source);
    if (e->summary_mbps > 0)
        eb_jw_num(w, "summary_mbps", e->summary_mbps);
    if (e->summary_printed)
        eb_jw_str(w, "summary_printed", e->summary_printed);
    if (e->unit_note)
        eb_jw_str(w, "unit_base_note", e->unit_note);
    eb_jw_num(w, "mean_mbps", e->mean_mbps);
    eb_jw_num(w, "peak_mbps", e->peak_mbps);
    eb_jw_num(w, "loss_pct", e->loss_pct);
    if (isfinite(e->interval_loss_pct))
        eb_jw_num(w, "interval_loss_pct", e->interval_loss_pct);
    eb_jw_num(w, "jitter_ms", e->jitter_ms);
    jw_count(w, "free_heap", e->free_heap);
    jw_count(w, "min_free_heap", e->min_free_heap);
    jw_count(w, "largest_block", e->largest_block);
    eb_jw_num(w, "ref_mbps", e->ref_mbps);
    eb_jw_object(w, "settings");
    eb_jw_num(w, "duration_s", e->duration_s);
    eb_jw_num(w, "interval_s", e->interval_s);
    eb_jw_num(w, "warmup_s", e->warmup_s);
    eb_jw_num(w, "udp_rate_mbps", e->udp_rate_mbps);
    eb_jw_end(w);
    eb_jw_object(w, "tier_params");
    for (int f = 0; f < EB_F_COUNT; f++) {
        const eb_field_desc *d = eb_field_desc_get(f);
        if (e->param_set[f] && d)
            eb_jw_int(w, d->key, e->param[f]);
    }
    eb_jw_end(w);
    stats_json(w, "rx_stats", &e->rx_stats);
    stats_json(w, "tx_stats", &e->tx_stats);
    noise_json(w, e);
    eb_jw_object(w, "intervals");
    intervals_json(w, "receiver", e->receiver, e->n_receiver);
    intervals_json(w, "sender", e->sender, e->n_sender);
    eb_jw_end(w);
    eb_jw_str(w, "started", e->started);
    eb_jw_str(w, "finished", e->finished);
    prov_json(w, eb_entry_prov(e));
    eb_jw_end(w);
}

bool eb_entry_equal(const eb_entry *a, const eb_entry *b)
{
    /* Compare the serialised forms: exactly the fields results.json keeps, with NAN == NAN. */
    eb_buf ta, tb;
    eb_buf_init(&ta);
    eb_buf_init(&tb);
    eb_jw w;
    eb_jw_init(&w, &ta);
    entry_json(&w, a);
    eb_jw_init(&w, &tb);
    entry_json(&w, b);
    bool eq = ta.len == tb.len && memcmp(ta.data, tb.data, ta.len) == 0;
    eb_buf_free(&ta);
    eb_buf_free(&tb);
    return eq;
}

static void board_json(eb_jw *w, const eb_board_meta *b)
{
    eb_jw_object(w, NULL);
    eb_jw_str(w, "board", b->board);
    eb_jw_str(w, "chip", b->chip);
    eb_jw_str(w, "mac", b->mac);
    eb_jw_str(w, "port", b->port);
    eb_jw_str(w, "dialect", b->dialect);
    eb_jw_str(w, "fw_project", b->fw_project);
    eb_jw_str(w, "fw_version", b->fw_version);
    eb_jw_str(w, "idf_version", b->idf_version);
    eb_jw_str(w, "fw_sha256", b->fw_sha256);
    eb_jw_str(w, "ap_ssid", b->ap_ssid);
    if (b->rssi != 0)
        eb_jw_int(w, "rssi", b->rssi);
    else
        eb_jw_null(w, "rssi");
    eb_jw_str(w, "board_ip", b->board_ip);
    eb_jw_str(w, "pc_ip", b->pc_ip);
    eb_jw_str(w, "host", b->host);
    eb_jw_str(w, "iperf_version", b->iperf_version);
    eb_jw_str(w, "started", b->started);
    eb_jw_str(w, "finished", b->finished);
    eb_jw_end(w);
}

/* The writer's buffer goes to the sink every FLUSH_BYTES, so writing a file
 * needs no more memory than that, whatever the number of entries. */
#define FLUSH_BYTES (256u << 10)

static void latency_json(eb_jw *w, const eb_latency *l)
{
    eb_jw_object(w, NULL);
    eb_jw_str(w, "board", l->board);
    eb_jw_str(w, "chip", l->chip);
    eb_jw_str(w, "tier", l->tier);
    eb_jw_int(w, "repeat", l->repeat);
    eb_jw_str(w, "method", l->method);
    eb_jw_str(w, "target", l->target);
    eb_jw_str(w, "status", l->status);
    eb_jw_str(w, "error", l->error);
    eb_jw_int(w, "sent", l->sent);
    eb_jw_int(w, "received", l->received);
    eb_jw_num(w, "interval_s", l->interval_s);
    eb_jw_num(w, "loss_pct", l->loss_pct);
    eb_jw_num(w, "min_ms", l->min_ms);
    eb_jw_num(w, "avg_ms", l->avg_ms);
    eb_jw_num(w, "max_ms", l->max_ms);
    eb_jw_num(w, "p99_ms", l->p99_ms);
    eb_jw_num(w, "mdev_ms", l->mdev_ms);
    eb_jw_str(w, "started", l->started);
    eb_jw_str(w, "finished", l->finished);
    prov_json(w, &l->prov);
    eb_jw_end(w);
}

static int results_json(const eb_results *r, eb_buf *out, const eb_results_sink *sink, eb_error *err)
{
    eb_jw w;
    eb_jw_init(&w, out);
    eb_jw_object(&w, NULL);
    eb_jw_str(&w, "schema", RESULTS_SCHEMA_NAME);
    eb_jw_int(&w, "schema_version", EB_RESULTS_SCHEMA_VERSION);
    eb_jw_str(&w, "espbench_version", r->espbench_version[0] ? r->espbench_version : eb_version());
    char now[32];
    if (!r->generated[0])
        eb_iso8601_utc(now);
    eb_jw_str(&w, "generated", r->generated[0] ? r->generated : now);
    eb_jw_array(&w, "boards");
    for (int i = 0; i < r->n_boards; i++)
        board_json(&w, &r->boards[i]);
    eb_jw_end(&w);
    eb_jw_array(&w, "entries");
    for (int i = 0; i < r->n_entries; i++) {
        entry_json(&w, &r->entries[i]);
        if (sink && out->len >= FLUSH_BYTES) {
            int rc = sink->write(sink->ctx, out->data, out->len, err);
            if (rc)
                return rc;
            eb_buf_reset(out);
        }
    }
    eb_jw_end(&w);
    if (r->n_lat > 0) {
        eb_jw_array(&w, "latency");
        for (int i = 0; i < r->n_lat; i++)
            latency_json(&w, &r->lat[i]);
        eb_jw_end(&w);
    }
    eb_jw_end(&w);
    eb_buf_append_byte(out, '\n');
    return sink ? sink->write(sink->ctx, out->data, out->len, err) : 0;
}

void eb_results_to_json(const eb_results *r, eb_buf *out)
{
    (void)results_json(r, out, NULL, NULL);
}

int eb_results_write_json(const eb_results *r, const eb_results_sink *sink, eb_error *err)
{
    eb_buf b;
    eb_buf_init(&b);
    eb_buf_reserve(&b, FLUSH_BYTES + 65536);
    int rc = results_json(r, &b, sink, err);
    eb_buf_free(&b);
    return rc;
}

/* ---------------------------------------------------------------- JSON in */

/* Where we are in the document, for messages: "entries[3].rx_stats". */
typedef struct jctx {
    const char *file;
    char path[96];
    eb_error *err;
} jctx;

static int jfail(const jctx *c, const char *key, const char *what)
{
    return eb_fail(c->err, EB_ECONFIG, "%s: %s%s%s: %s", c->file, c->path, c->path[0] && key ? "." : "",
                   key ? key : "", what);
}

enum { OPTIONAL = 0, REQUIRED = 1 };

/* A number, or null (NAN). Missing optional keys leave *out alone. */
static int get_num(const jctx *c, const cJSON *o, const char *key, double *out, int req)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return req ? jfail(c, key, "missing (expected a number)") : 0;
    if (cJSON_IsNull(v)) {
        *out = NAN;
        return 0;
    }
    if (!cJSON_IsNumber(v))
        return jfail(c, key, "expected a number");
    *out = v->valuedouble;
    return 0;
}

/* An integer; null (if allowed) gives -1. */
static int get_long(const jctx *c, const cJSON *o, const char *key, long *out, int req, bool nullable)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return req ? jfail(c, key, "missing (expected an integer)") : 0;
    if (nullable && cJSON_IsNull(v)) {
        *out = -1;
        return 0;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || fabs(v->valuedouble) > 9.0e15)
        return jfail(c, key, nullable ? "expected an integer or null" : "expected an integer");
    *out = (long)v->valuedouble;
    return 0;
}

static int get_int(const jctx *c, const cJSON *o, const char *key, int *out, int req)
{
    long l = *out;
    int rc = get_long(c, o, key, &l, req, false);
    if (rc)
        return rc;
    if (l < INT_MIN || l > INT_MAX)
        return jfail(c, key, "integer out of range");
    *out = (int)l;
    return 0;
}

static int get_str(const jctx *c, const cJSON *o, const char *key, char *out, size_t size, int req)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return req ? jfail(c, key, "missing (expected a string)") : 0;
    if (!cJSON_IsString(v))
        return jfail(c, key, "expected a string");
    size_t n = strlen(v->valuestring);
    if (n >= size && strstr(v->valuestring, "\xef\xbf\xbd")) {
        /* U+FFFD stood for one byte of a capture's noise when it was written
         * (json_writer.c): three bytes now, so a field that fit may not; cut
         * it at a character boundary instead of refusing the file. */
        n = size - 1;
        while (n > 0 && ((unsigned char)v->valuestring[n] & 0xc0) == 0x80)
            n--;
        memcpy(out, v->valuestring, n);
        out[n] = '\0';
        return 0;
    }
    if (n >= size) {
        char msg[64];
        snprintf(msg, sizeof msg, "string longer than %zu bytes", size - 1);
        return jfail(c, key, msg);
    }
    snprintf(out, size, "%s", v->valuestring);
    return 0;
}

/* Descends into a child object; *child NULL if absent and optional. */
static int get_obj(jctx *c, const cJSON *o, const char *key, const cJSON **child, int req)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *child = NULL;
    if (!v)
        return req ? jfail(c, key, "missing (expected an object)") : 0;
    if (!cJSON_IsObject(v))
        return jfail(c, key, "expected an object");
    *child = v;
    return 0;
}

/* Pushes ".key" or "[i]" onto the path; returns the old length to pop back to. */
static size_t path_push(jctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t path_push(jctx *c, const char *fmt, ...)
{
    size_t old = strlen(c->path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->path + old, sizeof c->path - old, fmt, ap);
    va_end(ap);
    return old;
}

static int parse_stats(jctx *c, const cJSON *o, const char *key, eb_stats *s)
{
    const cJSON *so;
    int rc = get_obj(c, o, key, &so, OPTIONAL);
    if (rc || !so)
        return rc;
    size_t old = path_push(c, "%s%s", c->path[0] ? "." : "", key);
    rc = get_int(c, so, "n", &s->n, OPTIONAL);
    if (!rc) rc = get_num(c, so, "mean", &s->mean, OPTIONAL);
    if (!rc) rc = get_num(c, so, "median", &s->median, OPTIONAL);
    if (!rc) rc = get_num(c, so, "min", &s->min, OPTIONAL);
    if (!rc) rc = get_num(c, so, "max", &s->max, OPTIONAL);
    if (!rc) rc = get_num(c, so, "stddev", &s->stddev, OPTIONAL);
    if (!rc) rc = get_num(c, so, "peak_1s", &s->peak_1s, OPTIONAL);
    c->path[old] = '\0';
    return rc;
}

static int parse_intervals(jctx *c, const cJSON *o, const char *key, eb_interval **out, int *n_out)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!a)
        return 0;
    if (!cJSON_IsArray(a))
        return jfail(c, key, "expected an array");
    int n = cJSON_GetArraySize(a);
    if (n == 0)
        return 0;
    eb_interval *iv = calloc((size_t)n, sizeof *iv);
    if (!iv)
        abort();
    int i = 0, rc = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, a) {
        size_t old = path_push(c, ".%s[%d]", key, i);
        eb_interval *v = &iv[i];
        v->start_s = v->end_s = v->bytes = v->mbps = v->jitter_ms = NAN;
        v->lost = v->total = -1;
        if (!cJSON_IsObject(it)) {
            rc = jfail(c, NULL, "expected an object");
        } else {
            rc = get_num(c, it, "start_s", &v->start_s, REQUIRED);
            if (!rc) rc = get_num(c, it, "end_s", &v->end_s, REQUIRED);
            if (!rc) rc = get_num(c, it, "bytes", &v->bytes, OPTIONAL);
            if (!rc) rc = get_num(c, it, "mbps", &v->mbps, REQUIRED);
            if (!rc) rc = get_num(c, it, "jitter_ms", &v->jitter_ms, OPTIONAL);
            if (!rc) rc = get_long(c, it, "lost", &v->lost, OPTIONAL, true);
            if (!rc) rc = get_long(c, it, "total", &v->total, OPTIONAL, true);
        }
        c->path[old] = '\0';
        if (rc)
            break;
        i++;
    }
    if (rc) {
        free(iv);
        return rc;
    }
    *out = iv;
    *n_out = n;
    return 0;
}

static int parse_entry(jctx *c, const cJSON *o, eb_entry *e)
{
    int rc;
    char test[24], note[256] = "", error[256] = "", printed[48] = "", unit_note[512] = "";
    if ((rc = get_str(c, o, "board", e->board, sizeof e->board, OPTIONAL)) ||
        (rc = get_str(c, o, "chip", e->chip, sizeof e->chip, REQUIRED)) ||
        (rc = get_str(c, o, "tier", e->tier, sizeof e->tier, REQUIRED)) ||
        (rc = get_str(c, o, "test", test, sizeof test, REQUIRED)))
        return rc;
    e->test = eb_test_from_name(test);
    if (e->test < 0)
        return jfail(c, "test", "expected one of tcp_tx, tcp_rx, udp_tx, udp_rx, raw_tx, raw_rx");
    if ((rc = get_int(c, o, "repeat", &e->repeat, OPTIONAL)))
        return rc;
    if (e->repeat < 0)
        return jfail(c, "repeat", "expected an integer >= 0");
    if ((rc = get_str(c, o, "status", e->status, sizeof e->status, REQUIRED)) ||
        (rc = get_str(c, o, "error", error, sizeof error, OPTIONAL)) ||
        (rc = get_str(c, o, "tier_note", note, sizeof note, OPTIONAL)) ||
        (rc = get_str(c, o, "figure_source", e->figure_source, sizeof e->figure_source, OPTIONAL)) ||
        (rc = get_num(c, o, "summary_mbps", &e->summary_mbps, OPTIONAL)) ||
        (rc = get_str(c, o, "summary_printed", printed, sizeof printed, OPTIONAL)) ||
        (rc = get_str(c, o, "unit_base_note", unit_note, sizeof unit_note, OPTIONAL)) ||
        (rc = get_num(c, o, "mean_mbps", &e->mean_mbps, REQUIRED)) ||
        (rc = get_num(c, o, "peak_mbps", &e->peak_mbps, REQUIRED)) ||
        (rc = get_num(c, o, "loss_pct", &e->loss_pct, OPTIONAL)) ||
        (rc = get_num(c, o, "interval_loss_pct", &e->interval_loss_pct, OPTIONAL)) ||
        (rc = get_num(c, o, "jitter_ms", &e->jitter_ms, OPTIONAL)) ||
        (rc = get_long(c, o, "free_heap", &e->free_heap, OPTIONAL, true)) ||
        (rc = get_long(c, o, "min_free_heap", &e->min_free_heap, OPTIONAL, true)) ||
        (rc = get_long(c, o, "largest_block", &e->largest_block, OPTIONAL, true)) ||
        (rc = get_num(c, o, "ref_mbps", &e->ref_mbps, OPTIONAL)) ||
        (rc = get_str(c, o, "started", e->started, sizeof e->started, OPTIONAL)) ||
        (rc = get_str(c, o, "finished", e->finished, sizeof e->finished, OPTIONAL)))
        return rc;
    if (strcmp(e->status, "ok") != 0 && strcmp(e->status, "failed") != 0)
        return jfail(c, "status", "expected \"ok\" or \"failed\"");
    eb_entry_set_tier_note(e, note);
    eb_entry_set_text(&e->summary_printed, printed);
    eb_entry_set_text(&e->unit_note, unit_note);
    if (error[0])
        eb_entry_set_error(e, "%s", error);

    const cJSON *so;
    if ((rc = get_obj(c, o, "settings", &so, OPTIONAL)))
        return rc;
    if (so) {
        size_t old = path_push(c, ".settings");
        if (!(rc = get_num(c, so, "duration_s", &e->duration_s, OPTIONAL)) &&
            !(rc = get_num(c, so, "interval_s", &e->interval_s, OPTIONAL)) &&
            !(rc = get_num(c, so, "warmup_s", &e->warmup_s, OPTIONAL)))
            rc = get_num(c, so, "udp_rate_mbps", &e->udp_rate_mbps, OPTIONAL);
        c->path[old] = '\0';
        if (rc)
            return rc;
    }
    const cJSON *tp;
    if ((rc = get_obj(c, o, "tier_params", &tp, OPTIONAL)))
        return rc;
    if (tp) {
        size_t old = path_push(c, ".tier_params");
        const cJSON *it;
        cJSON_ArrayForEach(it, tp) {
            int f = eb_field_from_key(it->string);
            if (f < 0)
                continue; /* a setting this version does not know: ignored */
            long v = 0;
            if ((rc = get_long(c, tp, it->string, &v, REQUIRED, false)))
                break;
            if (v < INT_MIN || v > INT_MAX) {
                rc = jfail(c, it->string, "integer out of range");
                break;
            }
            e->param_set[f] = true;
            e->param[f] = (int)v;
        }
        c->path[old] = '\0';
        if (rc)
            return rc;
    }
    if ((rc = parse_stats(c, o, "rx_stats", &e->rx_stats)) || (rc = parse_stats(c, o, "tx_stats", &e->tx_stats)))
        return rc;
    const cJSON *po;
    if ((rc = get_obj(c, o, "provenance", &po, OPTIONAL)))
        return rc;
    const char *bad = NULL;
    eb_provenance pv;
    eb_prov_init(&pv);
    if (po && eb_prov_from_json(po, &pv, &bad) != 0) {
        size_t old = path_push(c, ".provenance");
        rc = jfail(c, bad, "expected a string, a number or null (see docs/results.md)");
        c->path[old] = '\0';
        return rc;
    }
    if (!eb_prov_empty(&pv)) /* an entry that knows nothing holds no copy */
        *eb_entry_prov_mut(e) = pv;
    const cJSON *io;
    if ((rc = get_obj(c, o, "intervals", &io, OPTIONAL)))
        return rc;
    if (io) {
        size_t old = path_push(c, ".intervals");
        rc = parse_intervals(c, io, "receiver", &e->receiver, &e->n_receiver);
        if (!rc)
            rc = parse_intervals(c, io, "sender", &e->sender, &e->n_sender);
        c->path[old] = '\0';
    }
    return rc;
}

static int parse_board(jctx *c, const cJSON *o, eb_board_meta *b)
{
    struct { const char *key; char *dst; size_t size; int req; } fields[] = {
        {"board", b->board, sizeof b->board, OPTIONAL},
        {"chip", b->chip, sizeof b->chip, OPTIONAL},
        {"mac", b->mac, sizeof b->mac, OPTIONAL},
        {"port", b->port, sizeof b->port, OPTIONAL},
        {"dialect", b->dialect, sizeof b->dialect, OPTIONAL},
        {"fw_project", b->fw_project, sizeof b->fw_project, OPTIONAL},
        {"fw_version", b->fw_version, sizeof b->fw_version, OPTIONAL},
        {"idf_version", b->idf_version, sizeof b->idf_version, OPTIONAL},
        {"fw_sha256", b->fw_sha256, sizeof b->fw_sha256, OPTIONAL},
        {"ap_ssid", b->ap_ssid, sizeof b->ap_ssid, OPTIONAL},
        {"board_ip", b->board_ip, sizeof b->board_ip, OPTIONAL},
        {"pc_ip", b->pc_ip, sizeof b->pc_ip, OPTIONAL},
        {"host", b->host, sizeof b->host, OPTIONAL},
        {"iperf_version", b->iperf_version, sizeof b->iperf_version, OPTIONAL},
        {"started", b->started, sizeof b->started, OPTIONAL},
        {"finished", b->finished, sizeof b->finished, OPTIONAL},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        int rc = get_str(c, o, fields[i].key, fields[i].dst, fields[i].size, fields[i].req);
        if (rc)
            return rc;
    }
    long rssi = 0;
    int rc = get_long(c, o, "rssi", &rssi, OPTIONAL, true);
    if (rc)
        return rc;
    b->rssi = rssi == -1 && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "rssi")) ? 0 : (int)rssi;
    return 0;
}

static int parse_latency(jctx *c, const cJSON *o, eb_latency *l)
{
    int rc;
    memset(l, 0, sizeof *l);
    eb_prov_init(&l->prov);
    double sent = 0, received = 0;
    if ((rc = get_str(c, o, "board", l->board, sizeof l->board, OPTIONAL)) ||
        (rc = get_str(c, o, "chip", l->chip, sizeof l->chip, REQUIRED)) ||
        (rc = get_str(c, o, "tier", l->tier, sizeof l->tier, REQUIRED)) ||
        (rc = get_int(c, o, "repeat", &l->repeat, REQUIRED)) ||
        (rc = get_str(c, o, "method", l->method, sizeof l->method, REQUIRED)) ||
        (rc = get_str(c, o, "target", l->target, sizeof l->target, OPTIONAL)) ||
        (rc = get_str(c, o, "status", l->status, sizeof l->status, REQUIRED)) ||
        (rc = get_str(c, o, "error", l->error, sizeof l->error, OPTIONAL)) ||
        (rc = get_num(c, o, "sent", &sent, REQUIRED)) || (rc = get_num(c, o, "received", &received, REQUIRED)))
        return rc;
    l->sent = (int)sent;
    l->received = (int)received;
    l->interval_s = l->loss_pct = l->min_ms = l->avg_ms = l->max_ms = l->p99_ms = l->mdev_ms = NAN;
    if ((rc = get_num(c, o, "interval_s", &l->interval_s, OPTIONAL)) ||
        (rc = get_num(c, o, "loss_pct", &l->loss_pct, OPTIONAL)) || (rc = get_num(c, o, "min_ms", &l->min_ms, OPTIONAL)) ||
        (rc = get_num(c, o, "avg_ms", &l->avg_ms, OPTIONAL)) || (rc = get_num(c, o, "max_ms", &l->max_ms, OPTIONAL)) ||
        (rc = get_num(c, o, "p99_ms", &l->p99_ms, OPTIONAL)) ||
        (rc = get_num(c, o, "mdev_ms", &l->mdev_ms, OPTIONAL)) ||
        (rc = get_str(c, o, "started", l->started, sizeof l->started, OPTIONAL)) ||
        (rc = get_str(c, o, "finished", l->finished, sizeof l->finished, OPTIONAL)))
        return rc;
    const cJSON *prov = cJSON_GetObjectItemCaseSensitive(o, "provenance");
    const char *bad = NULL;
    if (prov && cJSON_IsObject(prov) && eb_prov_from_json(prov, &l->prov, &bad) != 0)
        return jfail(c, bad, "wrong type for this provenance field");
    return 0;
}

/* "latency": optional, an array of latency tests. */
static int parse_latency_list(jctx *c, const cJSON *root, eb_results *r)
{
    const cJSON *lat = cJSON_GetObjectItemCaseSensitive(root, "latency");
    if (!lat)
        return 0;
    if (!cJSON_IsArray(lat))
        return jfail(c, "latency", "expected an array");
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, lat) {
        size_t old = path_push(c, "latency[%d]", i++);
        if (!cJSON_IsObject(it))
            return jfail(c, NULL, "expected an object");
        eb_latency l;
        int rc = parse_latency(c, it, &l);
        if (rc)
            return rc;
        c->path[old] = '\0';
        eb_results_put_latency(r, &l);
    }
    return 0;
}

static int parse_root(jctx *c, const cJSON *root, eb_results *r)
{
    int rc;
    if (!cJSON_IsObject(root))
        return eb_fail(c->err, EB_ECONFIG, "%s: expected a JSON object at the top level", c->file);
    char schema[64] = "";
    if ((rc = get_str(c, root, "schema", schema, sizeof schema, REQUIRED)))
        return rc;
    if (strcmp(schema, RESULTS_SCHEMA_NAME) != 0)
        return eb_fail(c->err, EB_ECONFIG, "%s: schema: \"%s\" is not an espbench results file (expected \"%s\")",
                       c->file, schema, RESULTS_SCHEMA_NAME);
    int version = 0;
    if ((rc = get_int(c, root, "schema_version", &version, REQUIRED)))
        return rc;
    if (version != EB_RESULTS_SCHEMA_VERSION)
        return eb_fail(c->err, EB_ECONFIG,
                       "%s: schema_version: %d is not supported by this espbench (reads version %d); "
                       "use a matching espbench version",
                       c->file, version, EB_RESULTS_SCHEMA_VERSION);
    if ((rc = get_str(c, root, "espbench_version", r->espbench_version, sizeof r->espbench_version, OPTIONAL)) ||
        (rc = get_str(c, root, "generated", r->generated, sizeof r->generated, OPTIONAL)))
        return rc;

    const cJSON *boards = cJSON_GetObjectItemCaseSensitive(root, "boards");
    if (boards && !cJSON_IsArray(boards))
        return jfail(c, "boards", "expected an array");
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, boards) {
        size_t old = path_push(c, "boards[%d]", i);
        if (!cJSON_IsObject(it))
            return jfail(c, NULL, "expected an object");
        eb_board_meta b;
        memset(&b, 0, sizeof b);
        if ((rc = parse_board(c, it, &b)))
            return rc;
        c->path[old] = '\0';
        if (eb_results_board(r, b.board, false))
            return eb_fail(c->err, EB_ECONFIG, "%s: boards[%d]: board \"%s\" is listed twice", c->file, i, b.board);
        *eb_results_board(r, b.board, true) = b;
        i++;
    }

    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(root, "entries");
    if (!entries)
        return jfail(c, "entries", "missing (expected an array)");
    if (!cJSON_IsArray(entries))
        return jfail(c, "entries", "expected an array");
    i = 0;
    cJSON_ArrayForEach(it, entries) {
        size_t old = path_push(c, "entries[%d]", i);
        if (!cJSON_IsObject(it))
            return jfail(c, NULL, "expected an object");
        eb_entry e;
        eb_entry_init(&e);
        rc = parse_entry(c, it, &e);
        if (rc) {
            eb_entry_free(&e);
            return rc;
        }
        c->path[old] = '\0';
        /* The store takes ownership of the interval arrays without copying. */
        reserve_entry(r);
        r->entries[r->n_entries++] = e;
        i++;
    }
    return parse_latency_list(c, root, r);
}

int eb_results_parse_json(eb_results *r, const char *text, size_t len, const char *name, eb_error *err)
{
    eb_results_init(r);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!root) {
        /* Turn the error position into line:col. */
        const char *pos = cJSON_GetErrorPtr();
        int line = 1, col = 1;
        if (pos && pos >= text && pos <= text + len) {
            for (const char *p = text; p < pos; p++) {
                if (*p == '\n') {
                    line++;
                    col = 1;
                } else {
                    col++;
                }
            }
        }
        return eb_fail(err, EB_ECONFIG, "%s:%d:%d: not valid JSON", name, line, col);
    }
    for (const char *p = end; p && p < text + len; p++) {
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
            cJSON_Delete(root);
            return eb_fail(err, EB_ECONFIG, "%s: unexpected text after the JSON document (offset %ld)", name,
                           (long)(p - text));
        }
    }
    jctx c = {.file = name, .path = "", .err = err};
    int rc = parse_root(&c, root, r);
    cJSON_Delete(root);
    if (rc)
        eb_results_free(r);
    return rc;
}
