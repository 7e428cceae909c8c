/* The espbench firmware's #EB: lines (docs/console-protocol.md): the
 * tokenizer and their events in the board line classifier's terms. */
#include "espbench/formats/board_parse.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/board_internal.h"
#include "formats/line_scan.h"

/* --------------------------------------------------------------- #EB: */

static bool eb_token_char(char c) { return c > ' ' && c != '=' && c != '"' && c != 0x7f; }

bool eb_ebline_parse(const char *line, size_t len, eb_ebline *out)
{
    const char *p = line, *e = line + len;
    ls_rtrim(p, &e);
    out->status[0] = out->name[0] = '\0';
    out->n_kv = 0;
    if (!ls_lit(&p, e, "#EB:"))
        return false;
    if (ls_lit(&p, e, "OK"))
        strcpy(out->status, "OK");
    else if (ls_lit(&p, e, "ERR"))
        strcpy(out->status, "ERR");
    else if (ls_lit(&p, e, "EV"))
        strcpy(out->status, "EV");
    else
        return false;
    if (p < e && !ls_is_space(*p))
        return false;
    ls_skip_ws(&p, e);
    if (out->status[1] == 'V') {
        const char *s = p;
        while (p < e && eb_token_char(*p))
            p++;
        if (p == s)
            return false;
        ls_copy(out->name, sizeof out->name, s, p);
        if (p < e && !ls_is_space(*p))
            return false;
        ls_skip_ws(&p, e);
    }
    while (p < e) {
        const char *ks = p;
        while (p < e && eb_token_char(*p))
            p++;
        if (p == ks || p >= e || *p != '=')
            return false;
        if (out->n_kv == EB_EBLINE_MAX_KV)
            return false;
        ls_copy(out->kv[out->n_kv].key, sizeof out->kv[out->n_kv].key, ks, p);
        p++;
        char *v = out->kv[out->n_kv].value;
        size_t vn = 0, vcap = sizeof out->kv[out->n_kv].value;
        if (p < e && *p == '"') {
            p++;
            bool closed = false;
            while (p < e) {
                char c = *p++;
                if (c == '"') {
                    closed = true;
                    break;
                }
                if (c == '\\') {
                    if (p >= e)
                        return false;
                    c = *p++;
                }
                if (vn + 1 < vcap)
                    v[vn++] = c;
            }
            if (!closed)
                return false;
        } else {
            while (p < e && !ls_is_space(*p)) {
                if (*p == '"')
                    return false;
                if (vn + 1 < vcap)
                    v[vn++] = *p;
                p++;
            }
        }
        v[vn] = '\0';
        out->n_kv++;
        if (p < e && !ls_is_space(*p))
            return false;
        ls_skip_ws(&p, e);
    }
    return true;
}

const char *eb_ebline_get(const eb_ebline *l, const char *k)
{
    for (int i = 0; i < l->n_kv; i++)
        if (strcmp(l->kv[i].key, k) == 0)
            return l->kv[i].value;
    return NULL;
}

static bool kv_num(const eb_ebline *l, const char *k, double *v)
{
    const char *s = eb_ebline_get(l, k);
    if (!s)
        return false;
    const char *p = s, *e = s + strlen(s);
    return ls_num(&p, e, v) && p == e;
}

/* A double from the wire as an integer, clamped (out-of-range casts are undefined). */
static long clamp_long(double v)
{
    if (!(v > -1e9))
        return -1000000000L;
    if (!(v < 1e9))
        return 1000000000L;
    return (long)v;
}

static void kv_copy(const eb_ebline *l, const char *k, char *dst, size_t cap)
{
    const char *s = eb_ebline_get(l, k);
    ls_copy(dst, cap, s ? s : "", s ? s + strlen(s) : "");
}

/* "IP:PORT" into ip and port. */
void eb_board_split_peer(const char *s, eb_board_line *out)
{
    const char *colon = strrchr(s, ':');
    if (!colon) {
        ls_copy(out->ip, sizeof out->ip, s, s + strlen(s));
        return;
    }
    ls_copy(out->ip, sizeof out->ip, s, colon);
    out->port = atoi(colon + 1);
}

static const struct {
    const char *name;
    int event;
} eb_events[] = {
    {"boot", EB_BEV_BOOT},
    {"wifi.scan", EB_BEV_SCAN},
    {"wifi.scan_done", EB_BEV_SCAN_DONE},
    {"wifi.connected", EB_BEV_WIFI_CONNECTED},
    {"wifi.got_ip", EB_BEV_GOT_IP},
    {"wifi.disconnected", EB_BEV_WIFI_DISCONNECTED},
    {"iperf.started", EB_BEV_MODE},
    {"iperf.connected", EB_BEV_CONNECTED},
    {"iperf.interval", EB_BEV_INTERVAL},
    {"iperf.summary", EB_BEV_SUMMARY},
    {"iperf.done", EB_BEV_IPERF_DONE},
    {"iperf.error", EB_BEV_ERROR},
};

void eb_board_classify_eb(const char *p, const char *e, eb_board_line *out, eb_ebline *scratch)
{
    eb_ebline local;
    eb_ebline *l = scratch ? scratch : &local;
    if (!eb_ebline_parse(p, (size_t)(e - p), l))
        return;
    out->eb = scratch;
    if (l->status[0] == 'O') {
        out->event = EB_BEV_EB_OK;
        return;
    }
    if (l->status[0] == 'E' && l->status[1] == 'R') {
        out->event = EB_BEV_EB_ERR;
        kv_copy(l, "code", out->name, sizeof out->name);
        kv_copy(l, "msg", out->text, sizeof out->text);
        return;
    }
    out->event = EB_BEV_EB_EVENT;
    ls_copy(out->name, sizeof out->name, l->name, l->name + strlen(l->name));
    for (size_t i = 0; i < sizeof eb_events / sizeof eb_events[0]; i++)
        if (strcmp(l->name, eb_events[i].name) == 0)
            out->event = eb_events[i].event;
    double v;
    const char *s;
    switch (out->event) {
    case EB_BEV_BOOT:
        kv_copy(l, "chip", out->text, sizeof out->text);
        break;
    case EB_BEV_SCAN:
        kv_copy(l, "ssid", out->ssid, sizeof out->ssid);
        out->rssi = kv_num(l, "rssi", &v) ? (int)clamp_long(v) : 0;
        out->channel = kv_num(l, "ch", &v) ? (int)clamp_long(v) : 0;
        kv_copy(l, "bssid", out->mac, sizeof out->mac);
        break;
    case EB_BEV_SCAN_DONE:
        out->value = kv_num(l, "count", &v) ? clamp_long(v) : -1;
        break;
    case EB_BEV_GOT_IP:
        kv_copy(l, "ip", out->ip, sizeof out->ip);
        kv_copy(l, "mask", out->mask, sizeof out->mask);
        kv_copy(l, "gw", out->gw, sizeof out->gw);
        break;
    case EB_BEV_WIFI_DISCONNECTED:
        out->value = kv_num(l, "reason", &v) ? clamp_long(v) : -1;
        break;
    case EB_BEV_MODE:
        out->role_known = true;
        s = eb_ebline_get(l, "proto");
        out->udp = s && strcmp(s, "udp") == 0;
        s = eb_ebline_get(l, "role");
        out->server = s && strcmp(s, "server") == 0;
        out->interval_s = kv_num(l, "interval", &v) ? (int)clamp_long(v) : 0;
        out->time_s = kv_num(l, "time", &v) ? (int)clamp_long(v) : 0;
        break;
    case EB_BEV_CONNECTED:
        s = eb_ebline_get(l, "peer");
        if (s)
            eb_board_split_peer(s, out);
        break;
    case EB_BEV_INTERVAL:
    case EB_BEV_SUMMARY: {
        double start, end, bytes;
        if (!kv_num(l, "start", &start) || !kv_num(l, "end", &end) || !kv_num(l, "bytes", &bytes)) {
            out->event = EB_BEV_EB_EVENT; /* malformed: keep it visible, not measured */
            break;
        }
        out->style = EB_IVS_EB;
        out->bytes_exact = true;
        out->iv.start_s = start;
        out->iv.end_s = end;
        out->iv.bytes = bytes;
        out->iv.mbps = end > start ? bytes * 8.0 / (end - start) / 1e6 : 0.0;
        if (kv_num(l, "lost", &v))
            out->iv.lost = clamp_long(v);
        if (kv_num(l, "total", &v))
            out->iv.total = clamp_long(v);
        if (kv_num(l, "jitter_ms", &v))
            out->iv.jitter_ms = v;
        break;
    }
    case EB_BEV_ERROR:
        out->error = EB_BERR_IPERF;
        kv_copy(l, "msg", out->text, sizeof out->text);
        break;
    default:
        break;
    }
}

