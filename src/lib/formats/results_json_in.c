/* results.json read back: cJSON, every known key type-checked with its
 * JSON path in the message, unknown keys ignored (a later writer, another
 * command's "request", may add some). */
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

static int parse_intervals(jctx *c, const cJSON *o, const char *key, eb_ivs *out)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!a)
        return 0;
    if (!cJSON_IsArray(a))
        return jfail(c, key, "expected an array");
    int n = cJSON_GetArraySize(a);
    if (n == 0)
        return 0;
    eb_ivs iv = EB_IVS_EMPTY;
    int i = 0, rc = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, a) {
        size_t old = path_push(c, ".%s[%d]", key, i);
        eb_interval one, *v = &one;
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
        eb_ivs_push(&iv, v);
        i++;
    }
    if (rc) {
        eb_ivs_free(&iv);
        return rc;
    }
    eb_ivs_trim(&iv);
    *out = iv;
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
        rc = parse_intervals(c, io, "receiver", &e->receiver);
        if (!rc)
            rc = parse_intervals(c, io, "sender", &e->sender);
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
        (rc = get_str(c, o, "finished", l->finished, sizeof l->finished, OPTIONAL)) ||
        (rc = get_str(c, o, "under_load", l->under_load, sizeof l->under_load, OPTIONAL)))
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
        eb_results_reserve_entry(r);
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
