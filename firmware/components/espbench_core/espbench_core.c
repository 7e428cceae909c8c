/* The espbench console protocol core. Portable C11; no ESP-IDF includes.
 * See include/espbench_core.h and docs/console-protocol.md. */
#include "espbench_core.h"
#include "core_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- fields */

/* Columns: key, min, max, runtime, is_bool, wifi.
 * Ranges: ESP-IDF v5.x Kconfig (components/esp_wifi, components/lwip) on a
 * chip without 802.11ax and without PSRAM; ebc_field_range widens them.
 * rx_ba_win 0 means "AMPDU RX disabled" (the docs' "Disable"). KB fields are
 * the docs' rounding of the byte values. */
static const ebc_field_info fields[EBC_F_COUNT] = {
    [EBC_F_STATIC_RX] = {"static_rx", 2, 25, true, false, true},
    [EBC_F_DYNAMIC_RX] = {"dynamic_rx", 0, 128, true, false, true},
    [EBC_F_DYNAMIC_TX] = {"dynamic_tx", 1, 128, true, false, true},
    [EBC_F_STATIC_TX] = {"static_tx", 1, 64, true, false, true},
    [EBC_F_RX_BA_WIN] = {"rx_ba_win", 0, 32, true, false, true},
    [EBC_F_TCP_SND_BUF_KB] = {"tcp_snd_buf_kb", 2, 65, false, false, false},
    [EBC_F_TCP_WND_KB] = {"tcp_wnd_kb", 2, 65, false, false, false},
    [EBC_F_TCP_MBOX] = {"tcp_mbox", 6, 64, false, false, false},
    [EBC_F_UDP_MBOX] = {"udp_mbox", 6, 64, false, false, false},
    [EBC_F_TCPIP_MBOX] = {"tcpip_mbox", 6, 64, false, false, false},
    [EBC_F_WIFI_IRAM_OPT] = {"wifi_iram_opt", 0, 1, false, true, true},
    [EBC_F_WIFI_RX_IRAM_OPT] = {"wifi_rx_iram_opt", 0, 1, false, true, true},
    [EBC_F_LWIP_IRAM_OPT] = {"lwip_iram_opt", 0, 1, false, true, false},
    [EBC_F_ICACHE_KB] = {"icache_kb", 8, 32, false, false, false},
    [EBC_F_ICACHE_LINE] = {"icache_line", 16, 32, false, false, false},
    [EBC_F_ICACHE_WAYS] = {"icache_ways", 4, 8, false, false, false},
    [EBC_F_DCACHE_KB] = {"dcache_kb", 0, 64, false, false, false},
    [EBC_F_DCACHE_LINE] = {"dcache_line", 16, 64, false, false, false},
    [EBC_F_DCACHE_WAYS] = {"dcache_ways", 4, 8, false, false, false},
    [EBC_F_CPU_MHZ] = {"cpu_mhz", 80, 160, false, false, false},
    [EBC_F_AMPDU_RX] = {"ampdu_rx", 0, 1, false, true, true},
    [EBC_F_FULL_CACHE] = {"full_cache", 0, 1, false, true, false},
    [EBC_F_RX_BUF_NUM] = {"rx_buf_num", 14, 28, false, false, true},
    [EBC_F_RX_PKT_NUM] = {"rx_pkt_num", 4, 16, false, false, true},
    [EBC_F_TX_PKT_NUM] = {"tx_pkt_num", 4, 16, false, false, true},
    [EBC_F_CONT_RX_BUF_NUM] = {"cont_rx_buf_num", 0, 16, false, false, true},
};

const ebc_field_info *ebc_field_get(int f)
{
    if (f < 0 || f >= EBC_F_COUNT)
        return NULL;
    return &fields[f];
}

int ebc_field_from_key(const char *key)
{
    for (int f = 0; f < EBC_F_COUNT; f++)
        if (key && strcmp(fields[f].key, key) == 0)
            return f;
    return -1;
}

void ebc_field_range(const ebc_build *b, int f, int *min, int *max)
{
    *min = fields[f].min;
    *max = fields[f].max;
    if (b && b->he && f == EBC_F_STATIC_RX)
        *max = 128;
    if (b && b->he && f == EBC_F_RX_BA_WIN)
        *max = 64;
    /* PSRAM builds may enable LWIP_WND_SCALE: wider RX buffer, window and mailbox limits. */
    if (b && b->psram && (f == EBC_F_DYNAMIC_RX || f == EBC_F_TCP_MBOX || f == EBC_F_TCP_SND_BUF_KB ||
                          f == EBC_F_TCP_WND_KB))
        *max = 1024;
}

/* ---------------------------------------------------------------- status */

int ebc_fail(ebc_status *st, const char *code, const char *fmt, ...)
{
    st->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->msg, sizeof st->msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---------------------------------------------------------------- tiers */

static int parse_int(const char *s, int *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < -1000000 || v > 1000000)
        return -1;
    *out = (int)v;
    return 0;
}

int ebc_tier_check(const ebc_build *b, const ebc_tier *t, ebc_status *st)
{
    if (b && b->ethernet)
        return 0; /* the constraints below are between Wi-Fi fields, which an Ethernet tier has none of */
    bool dyn = t->set[EBC_F_DYNAMIC_TX], sta = t->set[EBC_F_STATIC_TX];
    if (dyn && sta)
        return ebc_fail(st, EBC_ERR_CONSTRAINT, "dynamic_tx and static_tx are mutually exclusive (one TX buffer type)");
    if (!dyn && !sta)
        return ebc_fail(st, EBC_ERR_CONSTRAINT, "one of dynamic_tx or static_tx is required");
    if (dyn && b && b->psram)
        return ebc_fail(st, EBC_ERR_CONSTRAINT, "dynamic_tx not allowed on a PSRAM build (TX buffers must be static)");
    if (!t->set[EBC_F_STATIC_RX])
        return ebc_fail(st, EBC_ERR_CONSTRAINT, "static_rx is required");
    if (t->set[EBC_F_RX_BA_WIN] && t->value[EBC_F_RX_BA_WIN] > 0) {
        int ba = t->value[EBC_F_RX_BA_WIN];
        int srx2 = 2 * t->value[EBC_F_STATIC_RX];
        int drx = t->set[EBC_F_DYNAMIC_RX] ? t->value[EBC_F_DYNAMIC_RX] : 0;
        if (drx > 0) {
            int lim = drx < srx2 ? drx : srx2;
            if (ba > lim)
                return ebc_fail(st, EBC_ERR_CONSTRAINT, "rx_ba_win=%d exceeds min(dynamic_rx=%d, 2*static_rx=%d)=%d",
                                ba, drx, srx2, lim);
        } else if (ba > srx2) {
            return ebc_fail(st, EBC_ERR_CONSTRAINT, "rx_ba_win=%d exceeds 2*static_rx=%d", ba, srx2);
        }
    }
    return 0;
}

int ebc_tier_from_args(const ebc_build *b, int argc, char **argv, ebc_tier *out, ebc_status *st)
{
    ebc_tier t = b->image;
    snprintf(t.name, sizeof t.name, "custom");
    bool given[EBC_F_COUNT] = {false};
    for (int i = 0; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq || eq == argv[i])
            return ebc_fail(st, EBC_ERR_SYNTAX, "expected key=value, got \"%.60s\"", argv[i]);
        *eq = '\0';
        const char *key = argv[i], *val = eq + 1;
        if (strcmp(key, "name") == 0) {
            if (!*val || strlen(val) >= sizeof t.name)
                return ebc_fail(st, EBC_ERR_SYNTAX, "name must be 1..%zu characters", sizeof t.name - 1);
            snprintf(t.name, sizeof t.name, "%s", val);
            continue;
        }
        int f = ebc_field_from_key(key);
        if (f < 0)
            return ebc_fail(st, EBC_ERR_UNKNOWN_FIELD, "unknown field %.40s", key);
        if (fields[f].wifi && b->ethernet)
            return ebc_fail(st, EBC_ERR_UNSUPPORTED, "%s: " EBC_NOT_APPLICABLE, key);
        if (given[f])
            return ebc_fail(st, EBC_ERR_SYNTAX, "field %s given twice", key);
        int v;
        if (parse_int(val, &v) != 0)
            return ebc_fail(st, EBC_ERR_SYNTAX, "%s=%.40s is not an integer", key, val);
        int lo, hi;
        ebc_field_range(b, f, &lo, &hi);
        if (f == EBC_F_RX_BA_WIN && v == 1)
            return ebc_fail(st, EBC_ERR_RANGE, "rx_ba_win=1 outside 2..%d (0 = AMPDU RX disabled)", hi);
        if (v < lo || v > hi)
            return ebc_fail(st, EBC_ERR_RANGE, "%s=%d outside %d..%d", key, v, lo, hi);
        if (!fields[f].runtime) {
            if (!b->image.set[f])
                return ebc_fail(st, EBC_ERR_BUILD_ONLY, "%s is build-time only and not part of this image", key);
            if (b->image.value[f] != v)
                return ebc_fail(st, EBC_ERR_BUILD_ONLY, "%s=%d is build-time only; this image has %d", key, v,
                                b->image.value[f]);
        }
        given[f] = true;
        t.set[f] = true;
        t.value[f] = v;
    }
    /* A TX type given explicitly replaces the image's type. */
    if (given[EBC_F_DYNAMIC_TX] && !given[EBC_F_STATIC_TX])
        t.set[EBC_F_STATIC_TX] = false;
    if (given[EBC_F_STATIC_TX] && !given[EBC_F_DYNAMIC_TX])
        t.set[EBC_F_DYNAMIC_TX] = false;
    if (ebc_tier_check(b, &t, st) != 0)
        return -1;
    *out = t;
    return 0;
}

void ebc_tier_to_wifi_cfg(const ebc_tier *t, ebc_wifi_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->static_rx_buf_num = t->value[EBC_F_STATIC_RX];
    cfg->dynamic_rx_buf_num = t->set[EBC_F_DYNAMIC_RX] ? t->value[EBC_F_DYNAMIC_RX] : 0;
    if (t->set[EBC_F_STATIC_TX]) {
        cfg->tx_buf_type = 0;
        cfg->static_tx_buf_num = t->value[EBC_F_STATIC_TX];
    } else {
        cfg->tx_buf_type = 1;
        cfg->dynamic_tx_buf_num = t->value[EBC_F_DYNAMIC_TX];
    }
    int ba = t->set[EBC_F_RX_BA_WIN] ? t->value[EBC_F_RX_BA_WIN] : 0;
    cfg->ampdu_rx_enable = ba > 0;
    cfg->rx_ba_win = ba;
}

/* ---------------------------------------------------------------- tokenizer */

int ebc_tokenize(char *line, char **argv, int max_args, const char **err)
{
    int argc = 0;
    char *r = line, *w = line;
    *err = NULL;
    for (;;) {
        while (*r == ' ' || *r == '\t')
            r++;
        if (!*r)
            break;
        if (argc == max_args) {
            *err = "too many arguments";
            return -1;
        }
        argv[argc++] = w;
        bool quoted = false;
        while (*r && (quoted || (*r != ' ' && *r != '\t'))) {
            if (*r == '"') {
                quoted = !quoted;
                r++;
            } else if (quoted && *r == '\\' && (r[1] == '"' || r[1] == '\\')) {
                *w++ = r[1];
                r += 2;
            } else {
                *w++ = *r++;
            }
        }
        if (quoted) {
            *err = "unterminated quote";
            return -1;
        }
        if (*r)
            r++;
        *w++ = '\0';
    }
    return argc;
}

/* ---------------------------------------------------------------- formatting */

static void put(ebc_line *l, const char *s, size_t n)
{
    /* Keep room for "\r\n\0"; an over-long line is cut, never overflowed. */
    size_t room = sizeof l->buf - 3 - l->len;
    if (n > room)
        n = room;
    memcpy(l->buf + l->len, s, n);
    l->len += n;
    l->buf[l->len] = '\0';
}

static void puts_(ebc_line *l, const char *s) { put(l, s, strlen(s)); }

void ebc_line_start(ebc_line *l, const char *head)
{
    l->len = 0;
    l->buf[0] = '\0';
    puts_(l, head);
}

static void put_key(ebc_line *l, const char *key)
{
    put(l, " ", 1);
    puts_(l, key);
    put(l, "=", 1);
}

void ebc_line_kv_int(ebc_line *l, const char *key, long long v)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%lld", v);
    put_key(l, key);
    puts_(l, tmp);
}

void ebc_line_kv_fixed(ebc_line *l, const char *key, double v, int decimals)
{
    char tmp[48];
    snprintf(tmp, sizeof tmp, "%.*f", decimals, v);
    put_key(l, key);
    puts_(l, tmp);
}

static bool bare_char(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || strchr("._:/,+-", ch);
}

void ebc_line_kv_str(ebc_line *l, const char *key, const char *v)
{
    put_key(l, key);
    bool bare = *v != '\0';
    for (const unsigned char *p = (const unsigned char *)v; *p && bare; p++)
        bare = bare_char(*p) && *p != '\0';
    if (bare) {
        puts_(l, v);
        return;
    }
    put(l, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            put(l, e, 2);
        } else if (*p < 0x20 || *p == 0x7f) {
            put(l, "?", 1);
        } else {
            put(l, (const char *)p, 1);
        }
    }
    put(l, "\"", 1);
}

const char *ebc_line_finish(ebc_line *l, size_t *len)
{
    memcpy(l->buf + l->len, "\r\n", 3);
    l->len += 2;
    if (len)
        *len = l->len;
    return l->buf;
}

/* ---------------------------------------------------------------- parsing */

int ebc_parse_line(const char *line, ebc_parsed *out)
{
    memset(out, 0, sizeof *out);
    const char *p = strstr(line, "#EB:");
    if (!p)
        return -1;
    p += 4;
    static const struct {
        const char *word;
        enum ebc_kind kind;
    } kinds[] = {{"OK", EBC_KIND_OK}, {"ERR", EBC_KIND_ERR}, {"EV", EBC_KIND_EV}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t n = strlen(kinds[i].word);
        if (strncmp(p, kinds[i].word, n) == 0 && (p[n] == ' ' || p[n] == '\0' || p[n] == '\r' || p[n] == '\n')) {
            out->kind = kinds[i].kind;
            p += n;
            break;
        }
    }
    if (out->kind == EBC_KIND_NONE)
        return -1;
    if (out->kind == EBC_KIND_EV) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " \r\n");
        if (n == 0 || n >= sizeof out->event)
            return -1;
        memcpy(out->event, p, n);
        p += n;
    }
    for (;;) {
        while (*p == ' ')
            p++;
        if (!*p || *p == '\r' || *p == '\n')
            return 0;
        if (out->n_kv == EBC_MAX_KV)
            return -1;
        size_t kn = strcspn(p, "= \r\n");
        if (p[kn] != '=' || kn == 0 || kn >= sizeof out->key[0])
            return -1;
        memcpy(out->key[out->n_kv], p, kn);
        p += kn + 1;
        char *v = out->val[out->n_kv];
        size_t vn = 0, vmax = sizeof out->val[0] - 1;
        if (*p == '"') {
            p++;
            while (*p && *p != '"') {
                if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
                    p++;
                if (vn < vmax)
                    v[vn++] = *p;
                p++;
            }
            if (*p != '"')
                return -1;
            p++;
        } else {
            while (*p && *p != ' ' && *p != '\r' && *p != '\n') {
                if (vn < vmax)
                    v[vn++] = *p;
                p++;
            }
        }
        v[vn] = '\0';
        out->n_kv++;
    }
}

const char *ebc_parsed_get(const ebc_parsed *p, const char *key)
{
    for (int i = 0; i < p->n_kv; i++)
        if (strcmp(p->key[i], key) == 0)
            return p->val[i];
    return NULL;
}

/* ---------------------------------------------------------------- output */

void ebc_emit(ebc_core *c, ebc_line *l)
{
    size_t n;
    const char *s = ebc_line_finish(l, &n);
    c->ops->write(c->ops->ctx, s, n);
}

static void out_text(ebc_core *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_text(ebc_core *c, const char *fmt, ...)
{
    char buf[EBC_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 2, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof buf - 3)
        n = (int)(sizeof buf - 3);
    memcpy(buf + n, "\r\n", 3);
    c->ops->write(c->ops->ctx, buf, (size_t)n + 2);
}

void ebc_reply_err(ebc_core *c, const char *code, const char *msg)
{
    ebc_line l;
    ebc_line_start(&l, "#EB:ERR");
    ebc_line_kv_str(&l, "code", code);
    /* msg is always quoted so that hosts can rely on the shape. */
    put(&l, " msg=\"", 6);
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            put(&l, e, 2);
        } else {
            put(&l, *p < 0x20 || *p == 0x7f ? "?" : (const char *)p, 1);
        }
    }
    put(&l, "\"", 1);
    ebc_emit(c, &l);
}

static void reply_status(ebc_core *c, const ebc_status *st) { ebc_reply_err(c, st->code, st->msg); }

static void ev_simple(ebc_core *c, const char *ev)
{
    ebc_line l;
    ebc_line_start(&l, "#EB:EV ");
    puts_(&l, ev);
    ebc_emit(c, &l);
}

/* ---------------------------------------------------------------- events */

static void link_kv(ebc_core *c, ebc_line *l, bool rssi_only);

static void ev_got_ip(ebc_core *c)
{
    ev_simple(c, "wifi.connected");
    ebc_line l;
    ebc_line_start(&l, "#EB:EV wifi.got_ip");
    ebc_line_kv_str(&l, "ip", c->ip.ip);
    ebc_line_kv_str(&l, "mask", c->ip.mask);
    ebc_line_kv_str(&l, "gw", c->ip.gw);
    ebc_emit(c, &l);
}

void ebc_event_wifi_disconnected(ebc_core *c, int reason)
{
    c->connected = false;
    ebc_line l;
    ebc_line_start(&l, "#EB:EV wifi.disconnected");
    ebc_line_kv_int(&l, "reason", reason);
    ebc_emit(c, &l);
}

void ebc_event_net_got_ip(ebc_core *c, const ebc_ip_info *ip)
{
    c->ip = *ip;
    c->connected = true;
    ebc_line l;
    ebc_line_start(&l, "#EB:EV eth.got_ip");
    ebc_line_kv_str(&l, "ip", c->ip.ip);
    ebc_line_kv_str(&l, "mask", c->ip.mask);
    ebc_line_kv_str(&l, "gw", c->ip.gw);
    ebc_emit(c, &l);
}

void ebc_event_net_down(ebc_core *c)
{
    c->connected = false;
    ev_simple(c, "eth.disconnected");
}

void ebc_event_iperf_connected(ebc_core *c, const char *peer_ip, unsigned peer_port)
{
    char peer[96];
    snprintf(peer, sizeof peer, "%s:%u", peer_ip, peer_port);
    ebc_line l;
    ebc_line_start(&l, "#EB:EV iperf.connected");
    ebc_line_kv_str(&l, "peer", peer);
    ebc_emit(c, &l);
}

void ebc_event_iperf_interval(ebc_core *c, double start, double end, unsigned long long bytes, bool has_udp,
                              long lost, long total, double jitter_ms)
{
    ebc_line l;
    ebc_line_start(&l, "#EB:EV iperf.interval");
    ebc_line_kv_fixed(&l, "start", start, 2);
    ebc_line_kv_fixed(&l, "end", end, 2);
    ebc_line_kv_int(&l, "bytes", (long long)bytes);
    if (has_udp) {
        ebc_line_kv_int(&l, "lost", lost);
        ebc_line_kv_int(&l, "total", total);
        if (jitter_ms >= 0)
            ebc_line_kv_fixed(&l, "jitter_ms", jitter_ms, 3);
    }
    ebc_emit(c, &l);
}

void ebc_event_iperf_summary(ebc_core *c, double start, double end, unsigned long long bytes, bool has_udp,
                             long lost, long total)
{
    ebc_line l;
    ebc_line_start(&l, "#EB:EV iperf.summary");
    ebc_line_kv_fixed(&l, "start", start, 2);
    ebc_line_kv_fixed(&l, "end", end, 2);
    ebc_line_kv_int(&l, "bytes", (long long)bytes);
    if (has_udp) {
        ebc_line_kv_int(&l, "lost", lost);
        ebc_line_kv_int(&l, "total", total);
    }
    ebc_emit(c, &l);
}

void ebc_event_iperf_error(ebc_core *c, const char *msg)
{
    ebc_line l;
    ebc_line_start(&l, "#EB:EV iperf.error");
    ebc_line_kv_str(&l, "msg", msg);
    ebc_emit(c, &l);
}

void ebc_event_iperf_done(ebc_core *c)
{
    c->iperf_aborting = false;
    ev_simple(c, "iperf.done");
}

/* ---------------------------------------------------------------- core */

void ebc_core_init(ebc_core *c, const ebc_ops *ops, const ebc_build *b)
{
    memset(c, 0, sizeof *c);
    c->ops = ops;
    c->build = b;
    c->tier = b->image;
}

int ebc_core_start(ebc_core *c)
{
    ebc_line l;
    ebc_line_start(&l, "#EB:EV boot");
    ebc_line_kv_str(&l, "fw", c->build->fw_version);
    ebc_line_kv_str(&l, "idf", c->build->idf_version);
    ebc_line_kv_str(&l, "chip", c->build->chip);
    if (c->build->ethernet)
        ebc_line_kv_str(&l, "net", "eth");
    ebc_emit(c, &l);
    if (c->build->ethernet)
        return c->ops->net_start ? c->ops->net_start(c->ops->ctx) : -1;
    ebc_wifi_cfg cfg;
    ebc_tier_to_wifi_cfg(&c->tier, &cfg);
    int rc = c->ops->wifi_init(c->ops->ctx, &cfg);
    c->wifi_up = rc == 0;
    return rc;
}

bool ebc_wants_secret(const ebc_core *c) { return c->want_secret; }

typedef void (*cmd_fn)(ebc_core *c, int argc, char **argv);

static void reply_ok(ebc_core *c)
{
    ebc_line l;
    ebc_line_start(&l, "#EB:OK");
    ebc_emit(c, &l);
}

static void wipe(char *s, size_t n)
{
    volatile char *p = s;
    for (size_t i = 0; i < n; i++)
        p[i] = 0;
}

/* Connects with the stored credentials; emits the events and the status. */
static void connect_and_reply(ebc_core *c)
{
    ebc_ip_info ip;
    memset(&ip, 0, sizeof ip);
    int reason = 0;
    if (c->ops->wifi_connect(c->ops->ctx, c->ssid, c->pass, &ip, &reason) != 0) {
        c->connected = false;
        ebc_event_wifi_disconnected(c, reason);
        char msg[96];
        if (reason == EBC_REASON_NO_AP_FOUND) {
            snprintf(msg, sizeof msg, "AP not found: %.32s", c->ssid);
            ebc_reply_err(c, EBC_ERR_NO_AP, msg);
        } else if (reason == EBC_REASON_4WAY_HANDSHAKE_TIMEOUT || reason == EBC_REASON_HANDSHAKE_TIMEOUT ||
                   reason == EBC_REASON_AUTH_FAIL || reason == EBC_REASON_AUTH_EXPIRE) {
            snprintf(msg, sizeof msg, "authentication failed (reason %d)", reason);
            ebc_reply_err(c, EBC_ERR_AUTH, msg);
        } else {
            snprintf(msg, sizeof msg, "connect failed (reason %d)", reason);
            ebc_reply_err(c, EBC_ERR_WIFI, msg);
        }
        return;
    }
    c->ip = ip;
    c->connected = true;
    ev_got_ip(c);
    ebc_line l;
    ebc_line_start(&l, "#EB:OK");
    ebc_line_kv_str(&l, "ssid", c->ssid);
    ebc_line_kv_str(&l, "ip", ip.ip);
    link_kv(c, &l, false);
    ebc_emit(c, &l);
}

static void cmd_sta_connect(ebc_core *c, int argc, char **argv)
{
    if (argc < 2 || argc > 3 || strlen(argv[1]) == 0 || strlen(argv[1]) > 32) {
        ebc_reply_err(c, EBC_ERR_SYNTAX, "usage: sta_connect <ssid> [<pass>|-]");
        return;
    }
    if (c->ops->iperf_running(c->ops->ctx)) {
        ebc_reply_err(c, EBC_ERR_BUSY, "iperf is running");
        return;
    }
    snprintf(c->ssid, sizeof c->ssid, "%s", argv[1]);
    wipe(c->pass, sizeof c->pass);
    if (argc == 3 && strcmp(argv[2], "-") == 0) {
        c->want_secret = true;  /* the password follows on its own line */
        return;
    }
    if (argc == 3) {
        if (strlen(argv[2]) > 64) {
            ebc_reply_err(c, EBC_ERR_SYNTAX, "password longer than 64 characters");
            return;
        }
        snprintf(c->pass, sizeof c->pass, "%s", argv[2]);
    }
    connect_and_reply(c);
}

static void cmd_sta_scan(ebc_core *c, int argc, char **argv)
{
    if (argc > 2) {
        ebc_reply_err(c, EBC_ERR_SYNTAX, "usage: sta_scan [<ssid>]");
        return;
    }
    ebc_scan_ap aps[16];
    int n = 0;
    if (c->ops->wifi_scan(c->ops->ctx, argc == 2 ? argv[1] : NULL, aps, 16, &n) != 0) {
        ebc_reply_err(c, EBC_ERR_WIFI, "scan failed");
        return;
    }
    for (int i = 0; i < n; i++) {
        ebc_line l;
        ebc_line_start(&l, "#EB:EV wifi.scan");
        ebc_line_kv_str(&l, "ssid", aps[i].ssid);
        ebc_line_kv_int(&l, "rssi", aps[i].rssi);
        ebc_line_kv_int(&l, "ch", aps[i].channel);
        ebc_emit(c, &l);
    }
    ebc_line l;
    ebc_line_start(&l, "#EB:OK");
    ebc_line_kv_int(&l, "count", n);
    ebc_emit(c, &l);
}

/* -b: a number in Mbit/s, or with a k/m/g suffix (decimal). */
static int parse_bw(const char *s, double *mbps)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return -1;
    static const struct {
        char suffix;
        double scale;
    } units[] = {{'\0', 1.0}, {'k', 1e-3}, {'K', 1e-3}, {'m', 1.0}, {'M', 1.0}, {'g', 1e3}, {'G', 1e3}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (*end == units[i].suffix && (units[i].suffix == '\0' || end[1] == '\0')) {
            *mbps = v * units[i].scale;
            return 0;
        }
    return -1;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* An option of the engine's table (EBC_IPERF_ENGINE_OPTS): its value into
 * a (whole units); -1 with no or a bad value, 1 when o is none of them. */
static int engine_opt(ebc_iperf_args *a, const char *o, const char *v)
{
    double d;
#define EBC_IPERF_READ(name, opt, lo, hi, field)                       \
    if (strcmp(o, opt) == 0) {                                         \
        if (!v || parse_double(v, lo, hi, &d) != 0)                    \
            return -1;                                                 \
        a->name = (double)(long)d;                                     \
        return 0;                                                      \
    }
    EBC_IPERF_ENGINE_OPTS(EBC_IPERF_READ)
#undef EBC_IPERF_READ
    return 1;
}

static void cmd_iperf(ebc_core *c, int argc, char **argv)
{
    ebc_iperf_args a;
    memset(&a, 0, sizeof a);
    a.port = 5001;
    a.interval_s = 1;
    a.time_s = 10;
    char msg[128];
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        double d;
        int eo = 1;
        if (strcmp(o, "-s") == 0) {
            a.server = true;
        } else if (strcmp(o, "-u") == 0) {
            a.udp = true;
        } else if (strcmp(o, "-a") == 0 || strcmp(o, "--abort") == 0) {
            a.abort = true;
        } else if (strcmp(o, "-c") == 0 && v && strlen(v) < sizeof a.host) {
            snprintf(a.host, sizeof a.host, "%s", v);
            i++;
        } else if (strcmp(o, "-p") == 0 && v && parse_double(v, 1, 65535, &d) == 0) {
            a.port = (uint16_t)d;
            i++;
        } else if ((eo = engine_opt(&a, o, v)) == 0) {
            i++;
        } else if (strcmp(o, "-i") == 0 && v && parse_double(v, 0.1, 3600, &d) == 0) {
            a.interval_s = d;
            i++;
        } else if (strcmp(o, "-t") == 0 && v && parse_double(v, 0.1, 86400, &d) == 0) {
            a.time_s = d;
            i++;
        } else if (strcmp(o, "-b") == 0 && v && parse_bw(v, &d) == 0) {
            a.bw_mbps = d;
            i++;
        } else if (strcmp(o, "-f") == 0 && v) {
            i++; /* events carry bytes; the format only matters to humans */
        } else if (!v && ((strlen(o) == 2 && strchr("cpiftb", o[1]) && o[0] == '-') || eo < 0)) {
            snprintf(msg, sizeof msg, "iperf option %s needs a value", o);
            ebc_reply_err(c, EBC_ERR_SYNTAX, msg);
            return;
        } else {
            snprintf(msg, sizeof msg, "bad iperf option %.40s", o);
            ebc_reply_err(c, EBC_ERR_SYNTAX, msg);
            return;
        }
    }
    if (a.abort) {
        c->iperf_aborting = c->ops->iperf_running(c->ops->ctx);
        c->ops->iperf_abort(c->ops->ctx);
        reply_ok(c);
        return;
    }
    if (a.server == (a.host[0] != '\0')) {
        ebc_reply_err(c, EBC_ERR_SYNTAX, "iperf needs exactly one of -s or -c <host>");
        return;
    }
    if (c->ops->iperf_running(c->ops->ctx)) {
        /* espressif/iperf 1.x ends an aborted test at its next 1 s tick, but a server still
         * waiting for its client only when accept() (IPERF_SOCKET_ACCEPT_TIMEOUT, 5 s) or
         * recvfrom() (CONFIG_IPERF_DEF_SOCKET_RX_TIMEOUT, 10 s) times out: iperf.c starts its
         * timers with the first data. The host may retry after the iperf.done. */
        ebc_reply_err(c, EBC_ERR_BUSY, c->iperf_aborting
                          ? "iperf is already running: the aborted test ends at the next iperf.done "
                            "(a server that never had a client: when its accept or receive times out, "
                            "up to 10 s)"
                          : "iperf is already running");
        return;
    }
    if (!c->connected) {
        ebc_reply_err(c, EBC_ERR_NOT_CONNECTED, c->build->ethernet ? "Ethernet has no IP address yet" : "sta has no IP");
        return;
    }
    /* Report before starting: the engine's events may follow immediately. */
    ebc_line l;
    ebc_line_start(&l, "#EB:EV iperf.started");
    ebc_line_kv_str(&l, "role", a.server ? "server" : "client");
    ebc_line_kv_str(&l, "proto", a.udp ? "udp" : "tcp");
    ebc_emit(c, &l);
    msg[0] = '\0';
    if (c->ops->iperf_start(c->ops->ctx, &a, msg, sizeof msg) != 0) {
        ebc_event_iperf_error(c, msg[0] ? msg : "iperf start failed");
        ebc_reply_err(c, EBC_ERR_IPERF, msg[0] ? msg : "iperf start failed");
        return;
    }
    ebc_line_start(&l, "#EB:OK");
    ebc_line_kv_str(&l, "role", a.server ? "server" : "client");
    ebc_line_kv_str(&l, "proto", a.udp ? "udp" : "tcp");
    ebc_line_kv_int(&l, "port", a.port);
    ebc_emit(c, &l);
}

static void cmd_heap(ebc_core *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    ebc_heap h;
    c->ops->heap(c->ops->ctx, &h);
    out_text(c, "min heap size: %lu", (unsigned long)h.min_default);
    ebc_line l;
    ebc_line_start(&l, "#EB:OK");
    ebc_line_kv_int(&l, "min", h.min_default);
    ebc_emit(c, &l);
}

/* The link facts, when the platform reports them and the board is associated. */
static void link_kv(ebc_core *c, ebc_line *l, bool rssi_only)
{
    ebc_link k;
    memset(&k, 0, sizeof k);
    if (!c->ops->link || !c->connected || c->ops->link(c->ops->ctx, &k) != 0)
        return;
    ebc_line_kv_int(l, "rssi", k.rssi);
    if (rssi_only)
        return;
    if (k.channel > 0)
        ebc_line_kv_int(l, "ch", k.channel);
    if (k.bw_mhz > 0)
        ebc_line_kv_int(l, "bw", k.bw_mhz);
    const char *text[][2] = {{"band", k.band}, {"phy", k.phy}, {"ps", k.ps}, {"bssid", k.bssid}};
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
        if (text[i][1][0])
            ebc_line_kv_str(l, text[i][0], text[i][1]);
}

/* Build facts of `version` that the platform knows. */
static void build_kv(const ebc_build *b, ebc_line *l)
{
    const char *text[][2] = {{"idf_commit", b->idf_commit}, {"iperf", b->iperf_component},
                             {"iperf_ver", b->iperf_version}, {"chip_rev", b->chip_rev}};
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
        if (text[i][1] && text[i][1][0])
            ebc_line_kv_str(l, text[i][0], text[i][1]);
    if (b->flash_mhz > 0)
        ebc_line_kv_int(l, "flash_mhz", b->flash_mhz);
    if (b->cpu_mhz > 0)
        ebc_line_kv_int(l, "cpu_mhz", b->cpu_mhz);
    if (b->sdkconfig && b->sdkconfig[0])
        ebc_line_kv_str(l, "sdkconfig", b->sdkconfig);
    if (b->sources && b->sources[0])
        ebc_line_kv_str(l, "sources", b->sources);
}

static void cmd_free(ebc_core *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    ebc_heap h;
    c->ops->heap(c->ops->ctx, &h);
    out_text(c, "%lu", (unsigned long)h.free_default);
    ebc_line l;
    ebc_line_start(&l, "#EB:OK");
    ebc_line_kv_int(&l, "free", h.free_default);
    ebc_emit(c, &l);
}

static void cmd_mem(ebc_core *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    ebc_heap h;
    c->ops->heap(c->ops->ctx, &h);
    ebc_line l;
    ebc_line_start(&l, "#EB:OK");
    ebc_line_kv_int(&l, "free_internal", h.free_internal);
    ebc_line_kv_int(&l, "min_internal", h.min_internal);
    ebc_line_kv_int(&l, "largest_internal", h.largest_internal);
    ebc_line_kv_int(&l, "free_default", h.free_default);
    ebc_line_kv_int(&l, "min_default", h.min_default);
    link_kv(c, &l, true); /* after a test: the RSSI then */
    ebc_emit(c, &l);
}

static void cmd_version(ebc_core *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    char runtime[160] = "";
    for (int f = 0; f < EBC_F_COUNT; f++) {
        if (!fields[f].runtime || (fields[f].wifi && c->build->ethernet))
            continue;
        if (runtime[0])
            strncat(runtime, ",", sizeof runtime - strlen(runtime) - 1);
        strncat(runtime, fields[f].key, sizeof runtime - strlen(runtime) - 1);
    }
    ebc_line l;
    ebc_line_start(&l, "#EB:OK");
    ebc_line_kv_int(&l, "proto", EBC_PROTO_VERSION);
    ebc_line_kv_str(&l, "fw", c->build->fw_version);
    ebc_line_kv_str(&l, "idf", c->build->idf_version);
    ebc_line_kv_str(&l, "chip", c->build->chip);
    if (c->build->ethernet)
        ebc_line_kv_str(&l, "net", "eth");
    if (c->build->mac && c->build->mac[0])
        ebc_line_kv_str(&l, "mac", c->build->mac);
    ebc_line_kv_str(&l, "runtime", runtime);
    build_kv(c->build, &l);
    link_kv(c, &l, false);
    ebc_emit(c, &l);
}

static void tier_line(ebc_line *l, const ebc_tier *t)
{
    ebc_line_kv_str(l, "name", t->name);
    for (int f = 0; f < EBC_F_COUNT; f++)
        if (t->set[f])
            ebc_line_kv_int(l, fields[f].key, t->value[f]);
}

static void cmd_tier_show(ebc_core *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    ebc_line l;
    ebc_line_start(&l, "#EB:OK");
    tier_line(&l, &c->tier);
    link_kv(c, &l, false);
    ebc_emit(c, &l);
}

static void cmd_tier_set(ebc_core *c, int argc, char **argv)
{
    ebc_tier t;
    ebc_status st = {0};
    if (ebc_tier_from_args(c->build, argc - 1, argv + 1, &t, &st) != 0) {
        reply_status(c, &st);
        return;
    }
    if (c->ops->iperf_running(c->ops->ctx)) {
        ebc_reply_err(c, EBC_ERR_BUSY, "iperf is running; abort it first");
        return;
    }
    if (c->build->ethernet) {
        /* No Wi-Fi field is left, and every other field equals the image's:
         * the tier is the running one under a new name. */
        c->tier = t;
        ebc_line l;
        ebc_line_start(&l, "#EB:OK");
        tier_line(&l, &c->tier);
        ebc_emit(c, &l);
        return;
    }
    /* Everything is checked: now stop, deinit, init with the new tier, reconnect. */
    bool reconnect = c->connected;
    if (c->wifi_up && c->ops->wifi_deinit(c->ops->ctx) != 0) {
        ebc_reply_err(c, EBC_ERR_WIFI, "esp_wifi_deinit failed; tier unchanged");
        return;
    }
    c->wifi_up = false;
    c->connected = false;
    ebc_wifi_cfg cfg;
    ebc_tier_to_wifi_cfg(&t, &cfg);
    if (c->ops->wifi_init(c->ops->ctx, &cfg) != 0) {
        /* Bring the previous tier back so that the board stays usable. */
        ebc_tier_to_wifi_cfg(&c->tier, &cfg);
        c->wifi_up = c->ops->wifi_init(c->ops->ctx, &cfg) == 0;
        ebc_reply_err(c, EBC_ERR_WIFI,
                      c->wifi_up ? "esp_wifi_init failed with the new tier; previous tier restored"
                                 : "esp_wifi_init failed with the new tier and again with the previous one; "
                                   "Wi-Fi is down (restart the board)");
        return;
    }
    c->wifi_up = true;
    c->tier = t;
    /* A new esp_wifi_init starts from ESP-IDF's radio defaults: the radio settings again. */
    char rmsg[120] = "";
    if (ebc_core_radio_reapply(c, rmsg, sizeof rmsg) != EBC_RADIO_OK) {
        char msg[160];
        snprintf(msg, sizeof msg, "tier applied but the radio settings failed: %.100s", rmsg);
        ebc_reply_err(c, EBC_ERR_WIFI, msg);
        return;
    }
    if (reconnect && ebc_core_reconnect(c, "tier") != 0)
        return;
    ebc_line l;
    ebc_line_start(&l, "#EB:OK");
    tier_line(&l, &c->tier);
    link_kv(c, &l, false);
    ebc_emit(c, &l);
}

int ebc_core_reconnect(ebc_core *c, const char *what)
{
    ebc_ip_info ip;
    memset(&ip, 0, sizeof ip);
    int reason = 0;
    if (c->ops->wifi_connect(c->ops->ctx, c->ssid, c->pass, &ip, &reason) != 0) {
        ebc_event_wifi_disconnected(c, reason);
        char msg[96];
        snprintf(msg, sizeof msg, "%s applied but reconnect failed (reason %d)", what, reason);
        ebc_reply_err(c, EBC_ERR_WIFI, msg);
        return -1;
    }
    c->ip = ip;
    c->connected = true;
    ev_got_ip(c);
    return 0;
}

static void cmd_restart(ebc_core *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    reply_ok(c);
    c->ops->restart(c->ops->ctx);
}

static void cmd_help(ebc_core *c, int argc, char **argv);

static const struct {
    const char *name;
    const char *help;
    cmd_fn fn;
    bool wifi; /* Wi-Fi only: an Ethernet image answers "not applicable" */
} commands[] = {
    {"help", "list commands", cmd_help, false},
    {"version", "firmware/IDF version, chip, protocol version, runtime tier fields", cmd_version, false},
    {"sta_connect", "<ssid> [<pass>|-]  join an AP ('-': password on the next line, not echoed)", cmd_sta_connect,
     true},
    {"sta_scan", "[<ssid>]  scan for APs", cmd_sta_scan, true},
    {"iperf", "-s|-c <host> [-u] [-p port] [-l len] [-i s] [-t s] [-b Mbit/s] | --abort", cmd_iperf, false},
    {"tier_set", "name=<n> <field>=<value>...  apply a buffer tier (stop, deinit, init, reconnect)", cmd_tier_set,
     false},
    {"tier_show", "the tier running now", cmd_tier_show, false},
    {"mem", "internal heap: free, minimum, largest block", cmd_mem, false},
    {"heap", "minimum free heap since boot", cmd_heap, false},
    {"free", "free heap now", cmd_free, false},
    {"radio_set", "band= bw= bw5= phy= phy5= ps= listen_interval= tx_power= coex=  radio settings", ebc_cmd_radio_set,
     true},
    {"radio_show", "the radio settings the board runs", ebc_cmd_radio_show, true},
    {"link", "the link to the AP: rssi, channel, bandwidth, band, PHY mode, power save", ebc_cmd_link, false},
    {"restart", "reboot the board", cmd_restart, false},
};

static void cmd_help(ebc_core *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        out_text(c, "%-12s %s", commands[i].name, commands[i].help);
    reply_ok(c);
}

void ebc_feed_line(ebc_core *c, const char *line)
{
    char buf[EBC_LINE_MAX];
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\r' || line[n - 1] == '\n'))
        n--;
    if (c->want_secret) {
        c->want_secret = false;
        if (n > 64) {
            ebc_reply_err(c, EBC_ERR_SYNTAX, "password longer than 64 characters");
            return;
        }
        memcpy(c->pass, line, n);
        c->pass[n] = '\0';
        connect_and_reply(c);
        return;
    }
    if (n >= sizeof buf) {
        ebc_reply_err(c, EBC_ERR_SYNTAX, "line too long");
        return;
    }
    memcpy(buf, line, n);
    buf[n] = '\0';
    char *argv[EBC_MAX_ARGS];
    const char *err;
    int argc = ebc_tokenize(buf, argv, EBC_MAX_ARGS, &err);
    if (argc < 0) {
        ebc_reply_err(c, EBC_ERR_SYNTAX, err);
        return;
    }
    if (argc == 0)
        return;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, argv[0]) == 0) {
            if (commands[i].wifi && c->build->ethernet) {
                char msg[120];
                snprintf(msg, sizeof msg, "%s: %s", argv[0], EBC_NOT_APPLICABLE);
                ebc_reply_err(c, EBC_ERR_UNSUPPORTED, msg);
                return;
            }
            commands[i].fn(c, argc, argv);
            return;
        }
    char msg[96];
    snprintf(msg, sizeof msg, "unknown command %.40s", argv[0]);
    ebc_reply_err(c, EBC_ERR_UNKNOWN_CMD, msg);
}
