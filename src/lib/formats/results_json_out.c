/* results.json written: the streaming writer (json_writer.h) in cJSON's
 * layout, NAN and unknown counts as null, text valid UTF-8. */
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

#include "results_internal.h"

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

/* Where the writer's text goes while an entry is written: a sink takes it
 * piece by piece (eb_results_write_json), so one test of millions of
 * intervals is never held as text whole; NULL: all of it stays in the
 * buffer (eb_results_to_json, eb_entry_equal). */
typedef struct jw_sink {
    const eb_results_sink *sink;
    eb_error *err;
    int rc;              /* the sink's first error; nothing more is written after it */
} jw_sink;

/* The writer's buffer goes to the sink every FLUSH_BYTES, so writing a file
 * needs no more memory than that, whatever the number of entries or of
 * intervals in one. */
#define FLUSH_BYTES (256u << 10)

static void jw_flush(jw_sink *s, eb_buf *out)
{
    if (!s || !s->sink || s->rc || out->len < FLUSH_BYTES)
        return;
    s->rc = s->sink->write(s->sink->ctx, out->data, out->len, s->err);
    eb_buf_reset(out);
}

/* Intervals are most of a results file (one per report line of a log): one
 * compact object per line keeps the file short and a diff readable. */
static void intervals_json(eb_jw *w, const char *key, const eb_ivs *iv, jw_sink *sink)
{
    eb_buf *b = eb_jw_raw(w, key);
    eb_buf_append_byte(b, '[');
    for (int i = 0; i < iv->n; i++) {
        eb_buf_append(b, i ? ",\n" : "\n", i ? 2 : 1);
        eb_interval one = eb_ivs_at(iv, i);
        interval_text(b, &one);
        if ((i & 1023) == 1023)
            jw_flush(sink, b);
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
    unsigned char *flags = e->receiver.n > 0 ? malloc((size_t)e->receiver.n) : NULL;
    int stalls = 0, drops = 0;
    eb_interval_flags(e, flags, &stalls, &drops);
    eb_jw_int(w, "stalls", stalls);
    eb_jw_int(w, "drops", drops);
    for (int kind = 0; kind < 2; kind++) {
        eb_jw_array(w, kind == 0 ? "stall_at_s" : "drop_at_s");
        for (int i = 0; flags && i < e->receiver.n; i++)
            if (flags[i] && (flags[i] == EB_IV_STALL) == (kind == 0))
                eb_jw_num(w, NULL, eb_ivs_at(&e->receiver, i).start_s);
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

static void entry_json(eb_jw *w, const eb_entry *e, jw_sink *sink)
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
    intervals_json(w, "receiver", &e->receiver, sink);
    intervals_json(w, "sender", &e->sender, sink);
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
    entry_json(&w, a, NULL);
    eb_jw_init(&w, &tb);
    entry_json(&w, b, NULL);
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
    if (l->under_load[0]) /* only where set: an idle set keeps the bytes it had */
        eb_jw_str(w, "under_load", l->under_load);
    prov_json(w, &l->prov);
    eb_jw_end(w);
}

static int results_json(const eb_results *r, eb_buf *out, const eb_results_sink *sink, eb_error *err)
{
    eb_jw w;
    jw_sink js = {sink, err, 0};
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
        entry_json(&w, &r->entries[i], &js);
        jw_flush(&js, out);
        if (js.rc)
            return js.rc;
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

