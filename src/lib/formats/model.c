/* The tier model: predictions (docs/model.md explains each term).
 *
 * Sources, by tag used below:
 *   [buf]  Espressif, "How to improve Wi-Fi performance" and the Wi-Fi Kconfig
 *          help: each Wi-Fi buffer is 1.6 KB; TCP_WND ~ dynamic RX buffers in
 *          KB, TCP_SND_BUF ~ dynamic TX buffers in KB; RX BA window <=
 *          min(dynamic RX, 2 x static RX); peak heap = RX buffers x max RX
 *          packet + TX buffers x max TX packet; IRAM option sizes.
 *   [kc]   ESP-IDF v5.5 Kconfig defaults (unset fields).
 *   [11n]  IEEE 802.11-2016: 9 us slot, 16 us SIFS, AIFSN[BE] 3, CWmin 15,
 *          HT-mixed preamble 36 us (one stream), legacy 24 Mbit/s control
 *          frames, MCS receiver sensitivity (Table 19-23).
 *   [tcp]  Mathis et al. 1997: TCP rate <= MSS/RTT x 1.22/sqrt(p).
 *   [dcf]  Bianchi, "Performance Analysis of the IEEE 802.11 Distributed
 *          Coordination Function", IEEE JSAC 18(3), 2000: the collision
 *          probability p of n saturated stations, from the fixed point of
 *          tau = 2(1-2p) / ((1-2p)(W+1) + pW(1-(2p)^m)) and
 *          p = 1 - (1-tau)^(n-1); W = CWmin+1 = 16, m = 6 (CWmax 1023).
 *   [fit]  fitted per chip from the published tables (model_fit.c). */
#include "espbench/formats/dims.h"
#include "espbench/formats/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_KB 1.6           /* [buf] one Wi-Fi buffer */
#define MSS 1460.0           /* TCP payload per segment (1500 MTU) */
#define UDP_LEN 1470.0       /* iperf's default UDP datagram */
#define MPDU_BYTES 1544.0    /* [11n] 1500 + LLC 8 + QoS MAC header 26 + FCS 4 + delimiter/pad 6 */
#define TCP_ACK_MPDU 84.0    /* [11n] 40-byte TCP ACK + LLC + MAC header + FCS + delimiter */
#define SIFS_US 16.0         /* [11n] */
#define PREAMBLE_US 36.0     /* [11n] HT-mixed, one spatial stream */
#define BA_US 32.0           /* [11n] BlockAck, 32 bytes at 24 Mbit/s legacy OFDM */
#define ACK_US 28.0          /* [11n] ACK, 14 bytes at 24 Mbit/s */
#define MAX_AMPDU 64         /* [11n] BlockAck bitmap */
#define TX_AMPDU 32          /* the driver's TX BA window: ESP_WIFI_TX_BA_WIN is not passed to it
                              * (wifi-buffer-tiers); 32 = largest non-HE window [11n] */
#define SOFTMIN_P 3.0        /* knee of concurrent bounds (air vs path): chosen, see model.md */
#define STARVE_HOLD_MS 0.5   /* time a datagram waits in a mailbox/RX buffer: assumed, model.md */
#define MBOX_ENTRY_KB 0.004  /* a FreeRTOS queue entry is one pointer */

void eb_model_link_default(eb_model_link *l)
{
    l->rssi_dbm = NAN;
    l->phy_mbps = NAN;
    l->rtt_ms = 0;
    l->loss_pct = 0;
    l->stations = 1;
}

bool eb_model_link_is_published(const eb_model_link *l)
{
    return !l || (isnan(l->rssi_dbm) && isnan(l->phy_mbps) && l->rtt_ms == 0 && l->loss_pct == 0 &&
                  l->stations <= 1);
}

static const struct {
    const char *name, *unit;
    double lo, hi;
    size_t off;
} link_keys[] = {
    {"rssi", "dBm", -100, -10, offsetof(eb_model_link, rssi_dbm)},
    {"phy", "Mbit/s", 1, 600, offsetof(eb_model_link, phy_mbps)},
    {"rtt", "ms", 0, 2000, offsetof(eb_model_link, rtt_ms)},
    {"loss", "%", 0, 50, offsetof(eb_model_link, loss_pct)},
    {"stations", "boards", 0, 64, offsetof(eb_model_link, stations)},
};
#define N_LINK_KEYS (sizeof link_keys / sizeof link_keys[0])

int eb_model_link_check(const eb_model_link *l, eb_error *err)
{
    for (size_t i = 0; i < N_LINK_KEYS; i++) {
        double v = *(const double *)((const char *)l + link_keys[i].off);
        if (isnan(v) && i < 2)
            continue;
        if (!(v >= link_keys[i].lo && v <= link_keys[i].hi))
            return eb_fail(err, EB_ECONFIG, "%s %g %s is outside %g..%g %s", link_keys[i].name, v,
                           link_keys[i].unit, link_keys[i].lo, link_keys[i].hi, link_keys[i].unit);
    }
    return 0;
}

int eb_model_link_set(eb_model_link *l, const char *name, const char *value, eb_error *err)
{
    for (size_t i = 0; i < N_LINK_KEYS; i++) {
        if (strcmp(name, link_keys[i].name) != 0)
            continue;
        char *end = NULL;
        double v = value ? strtod(value, &end) : NAN;
        if (!value || end == value || *end || isnan(v))
            return eb_fail(err, EB_ECONFIG, "%s '%s' is not a number (%s)", name,
                           value ? value : "", link_keys[i].unit);
        if (v < link_keys[i].lo || v > link_keys[i].hi)
            return eb_fail(err, EB_ECONFIG, "%s %g %s is outside %g..%g %s", name, v,
                           link_keys[i].unit, link_keys[i].lo, link_keys[i].hi, link_keys[i].unit);
        *(double *)((char *)l + link_keys[i].off) = v;
        return 0;
    }
    return eb_fail(err, EB_ECONFIG, "unknown link setting '%s' (rssi, phy, rtt, loss or stations)", name);
}

/* ---------------------------------------------------------------- settings */

/* The settings the model reads, with unset fields at their defaults. */
typedef struct tier_view {
    int static_rx, dynamic_rx, rx_bufs, tx_bufs, static_tx_internal, ba_win;
    double snd_kb, wnd_kb;
    int udp_mbox, mbox_total;
    bool iram[3], ampdu_rx, full_cache, psram;
    double cpu_mhz, icache_kb;
} tier_view;

static int val(const eb_tier *t, int f, int dflt)
{
    return t->set[f] ? t->value[f] : dflt;
}

static void view_tier(const eb_model_chip *mc, const eb_chip *c, const eb_tier *t, tier_view *v)
{
    v->psram = t->psram;
    v->static_rx = val(t, EB_F_STATIC_RX, 10);   /* [kc] */
    v->dynamic_rx = val(t, EB_F_DYNAMIC_RX, 32); /* [kc]; 0 = unlimited */
    /* [kc] TX buffer type: dynamic unless static_tx is given. With PSRAM the
     * cache TX buffers only queue frames; the static ones carry them to the
     * MAC, so they bound what is in flight. */
    if (t->set[EB_F_DYNAMIC_TX] || !t->set[EB_F_STATIC_TX]) {
        v->tx_bufs = val(t, EB_F_DYNAMIC_TX, 32);
        v->static_tx_internal = 0;
    } else {
        v->tx_bufs = t->value[EB_F_STATIC_TX];
        v->static_tx_internal = t->value[EB_F_STATIC_TX];
    }
    v->rx_bufs = v->dynamic_rx > 0 ? v->dynamic_rx : MAX_AMPDU;
    v->ampdu_rx = val(t, EB_F_AMPDU_RX, 1) != 0;
    v->ba_win = v->ampdu_rx ? val(t, EB_F_RX_BA_WIN, 6) : 0; /* [kc] default 6 */
    v->snd_kb = t->set[EB_F_TCP_SND_BUF_KB] ? t->value[EB_F_TCP_SND_BUF_KB] : 5.76; /* [kc] 5760 B */
    v->wnd_kb = t->set[EB_F_TCP_WND_KB] ? t->value[EB_F_TCP_WND_KB] : 5.76;
    v->udp_mbox = val(t, EB_F_UDP_MBOX, 6); /* [kc] */
    v->mbox_total = val(t, EB_F_TCP_MBOX, 6) + v->udp_mbox + val(t, EB_F_TCPIP_MBOX, 32);
    v->iram[0] = val(t, EB_F_WIFI_IRAM_OPT, 1) != 0;    /* [kc] default y */
    v->iram[1] = val(t, EB_F_WIFI_RX_IRAM_OPT, 1) != 0; /* [kc] default y */
    v->iram[2] = val(t, EB_F_LWIP_IRAM_OPT, 0) != 0;    /* [kc] default n */
    v->full_cache = val(t, EB_F_FULL_CACHE, 1) != 0;
    v->cpu_mhz = t->set[EB_F_CPU_MHZ] ? t->value[EB_F_CPU_MHZ] : (c && c->cpu_mhz > 0 ? c->cpu_mhz : 160);
    v->icache_kb = t->set[EB_F_ICACHE_KB] ? t->value[EB_F_ICACHE_KB] : mc->ref_icache_kb;
}

/* ------------------------------------------------------------------- terms */

/* [11n] HT MCS0..7 rate share of MCS7 and minimum sensitivity (20 MHz; 40 MHz
 * needs 3 dB more). */
static const struct {
    double share, sens_dbm;
} mcs[] = {{0.1, -82}, {0.2, -79}, {0.3, -77}, {0.4, -74},
           {0.6, -70}, {0.8, -66}, {0.9, -65}, {1.0, -64}};

static double phy_rate(const eb_model_chip *mc, const eb_model_link *l)
{
    if (l && !isnan(l->phy_mbps))
        return l->phy_mbps;
    if (!l || isnan(l->rssi_dbm))
        return mc->phy_mbps;
    bool ht40 = mc->phy_mbps > 80; /* HT40 top rates */
    double rate = 0;
    for (size_t i = 0; i < sizeof mcs / sizeof mcs[0]; i++)
        if (l->rssi_dbm >= mcs[i].sens_dbm + (ht40 ? 3.0 : 0.0))
            rate = mcs[i].share * mc->phy_mbps;
    /* Rate control falls back to 20 MHz where it carries more: HT20 has 3 dB
     * more margin at 65/135 of the HT40 rate of the same MCS ([11n] Table 19-27/19-28). */
    if (ht40)
        for (size_t i = 0; i < sizeof mcs / sizeof mcs[0]; i++)
            if (l->rssi_dbm >= mcs[i].sens_dbm && mcs[i].share * mc->phy_mbps * 65.0 / 135.0 > rate)
                rate = mcs[i].share * mc->phy_mbps * 65.0 / 135.0;
    return rate;
}

/* [11n] Goodput of one channel access carrying n MPDUs of payload bytes,
 * with the reverse direction's TCP ACKs (one per two segments, aggregated)
 * when tcp is set. Mbit/s = bits per microsecond. */
static double airtime(double phy, int n, double payload, bool tcp, double contend_us)
{
    if (phy <= 0)
        return 0;
    double resp = n > 1 ? BA_US : ACK_US;
    double t = contend_us + PREAMBLE_US + n * MPDU_BYTES * 8 / phy + SIFS_US + resp;
    if (tcp) {
        int acks = (n + 1) / 2;
        t += contend_us + PREAMBLE_US + acks * TCP_ACK_MPDU * 8 / phy + SIFS_US +
             (acks > 1 ? BA_US : ACK_US);
    }
    return n * payload * 8 / t;
}

static double softmin(double a, double b)
{
    if (a <= 0 || b <= 0)
        return 0;
    return pow(pow(a, -SOFTMIN_P) + pow(b, -SOFTMIN_P), -1 / SOFTMIN_P);
}

/* Path factor: how much of the chip's ceiling this build's code path keeps. */
static double path_factor(const eb_model_chip *mc, const eb_chip *c, const tier_view *v)
{
    const double *p = mc->p;
    double f = 1;
    f *= v->iram[0] ? 1 : 1 - p[EB_MP_IRAM_WIFI];
    f *= v->iram[1] ? 1 : 1 - p[EB_MP_IRAM_RX];
    f *= v->iram[2] ? 1 : 1 - p[EB_MP_IRAM_LWIP];
    if (mc->ref_icache_kb > 0 && v->icache_kb > 0)
        f *= pow(v->icache_kb / mc->ref_icache_kb, p[EB_MP_CACHE_EXP]);
    double ref_mhz = c && c->cpu_mhz > 0 ? c->cpu_mhz : v->cpu_mhz;
    f *= pow(v->cpu_mhz / ref_mhz, p[EB_MP_CPU_EXP]);
    if (!v->full_cache)
        f *= p[EB_MP_NOCACHE_FACTOR];
    if (v->psram)
        f *= p[EB_MP_PSRAM_FACTOR];
    return f;
}

/* Window-limited pipe: a window W must cross the path each round trip, so
 * 1/T = RTT/W + 1/C (the ceiling's serialisation time is part of the trip). */
static double window_bound(double ceil, double rtt_ms, double window_kb)
{
    double w_bits = window_kb * 1000 * 8;
    if (w_bits <= 0 || ceil <= 0)
        return 0;
    return 1 / (rtt_ms * 1000 / w_bits + 1 / ceil);
}

static double heap_cost_iram(const char *chip, int which);

static double predict_heap(const eb_model_chip *mc, const eb_chip *c, const tier_view *v)
{
    const double *p = mc->p;
    double kb = v->psram ? p[EB_MP_HEAP_PSRAM_KB] : p[EB_MP_HEAP_BASE_KB];
    kb -= BUF_KB * v->static_rx;          /* [buf] allocated at esp_wifi_init */
    kb -= BUF_KB * v->static_tx_internal; /* [buf] same */
    if (!v->psram) { /* [buf] peak heap; with PSRAM the dynamic buffers live there */
        double rx_held = fmin(v->rx_bufs, v->wnd_kb / BUF_KB + v->ba_win);
        kb -= p[EB_MP_HEAP_RX_SCALE] * BUF_KB * rx_held;
        kb -= p[EB_MP_HEAP_TX_SCALE] * (BUF_KB * v->tx_bufs + v->snd_kb);
    }
    kb -= MBOX_ENTRY_KB * v->mbox_total;
    for (int i = 0; i < 3; i++)
        if (v->iram[i])
            kb -= heap_cost_iram(c ? c->name : mc->chip, i);
    return kb;
}

/* [buf] Extra IRAM each option takes (KB): the performance doc's rows for
 * esp32/esp32s2 (15/16/13) and esp32c6 (13/7/14); the Kconfig help otherwise
 * (>10, >17, ~10). On ESP32 and ESP32-S2 the docs' PSRAM rows drop by exactly
 * these sizes when an option is turned off. */
static const struct {
    const char *chip;
    double kb[3];
} iram_cost[] = {
    {"esp32", {15, 16, 13}}, {"esp32s2", {15, 16, 13}}, {"esp32c6", {13, 7, 14}}, {"", {10, 17, 10}},
};

static double heap_cost_iram(const char *chip, int which)
{
    size_t n = sizeof iram_cost / sizeof iram_cost[0];
    for (size_t i = 0; i + 1 < n; i++)
        if (strcmp(iram_cost[i].chip, chip) == 0)
            return iram_cost[i].kb[which];
    return iram_cost[n - 1].kb[which];
}

typedef struct path {
    double ceil[EB_TEST_COUNT];
    double rtt_tx, rtt_rx, hold_tx, phy, link_rtt, loss;
    double share_tx, share_rx; /* this board's part of the medium's goodput (1 alone) */
} path;

/* [dcf] Collision probability of one transmission attempt among n saturated
 * stations (Bianchi's fixed point, by bisection: the right side falls as p rises). */
static double dcf_collision(int n)
{
    if (n <= 1)
        return 0;
    const double w = 16, m = 6;
    double lo = 0, hi = 0.999;
    for (int i = 0; i < 60; i++) {
        double p = (lo + hi) / 2;
        double tau = 2 * (1 - 2 * p) / ((1 - 2 * p) * (w + 1) + p * w * (1 - pow(2 * p, m)));
        double q = 1 - pow(1 - tau, n - 1);
        if (q > p)
            lo = p;
        else
            hi = p;
    }
    return (lo + hi) / 2;
}

/* The medium shared by n boards on one AP: uplink (the boards send) is
 * contended, and a collision wastes about one access (whole A-MPDUs are
 * lost and sent again), so each gets (1 - p)/n of one board's goodput;
 * downlink (the AP sends to each in turn) has one sender: 1/n each. */
static void medium_share(const eb_model_link *l, path *pa)
{
    int n = l && l->stations > 1 ? (int)lround(l->stations) : 1;
    pa->share_tx = (1 - dcf_collision(n)) / n;
    pa->share_rx = 1.0 / n;
}

static void tcp_tests(const eb_model_chip *mc, const tier_view *v, const path *pa,
                      eb_prediction *o)
{
    /* [buf] usable windows: what lwIP allows and what the Wi-Fi buffers hold. */
    double w_tx = fmin(v->snd_kb, BUF_KB * v->tx_bufs);
    double w_rx = fmin(v->wnd_kb, BUF_KB * v->rx_bufs);
    o->window_kb[0] = w_tx;
    o->window_kb[1] = w_rx;
    for (int dir = 0; dir < 2; dir++) {
        int test = dir ? EB_TEST_TCP_RX : EB_TEST_TCP_TX;
        double w = dir ? w_rx : w_tx;
        double rtt = (dir ? pa->rtt_rx : pa->rtt_tx) + pa->link_rtt;
        int segs = (int)fmax(1, floor(w * 1000 / MSS));
        int n = dir ? (o->ampdu_rx ? (int)fmin(o->ampdu_rx, segs) : 1)
                    : (int)fmin(o->ampdu_tx, segs);
        double win = window_bound(pa->ceil[test], rtt, w);
        double air = airtime(pa->phy, n, MSS, true, mc->p[EB_MP_CONTEND_US]) * (dir ? pa->share_rx : pa->share_tx);
        double t = softmin(win, air);
        o->bound[test] = win <= air ? EB_MB_WINDOW : EB_MB_AIR;
        if (win > 0.9 * pa->ceil[test] && win <= air)
            o->bound[test] = EB_MB_CPU;
        if (pa->loss > 0) { /* [tcp] Mathis */
            double lim = MSS * 8 / (rtt * 1000) * 1.22 / sqrt(pa->loss);
            if (lim < t)
                o->bound[test] = EB_MB_LOSS;
            t = softmin(t, lim);
        }
        o->mbps[test] = t;
        o->loss[test] = 0;
    }
}

static void udp_tests(const eb_model_chip *mc, const tier_view *v, const path *pa,
                      eb_prediction *o)
{
    double contend = mc->p[EB_MP_CONTEND_US];
    /* TX: datagrams hold a TX buffer for hold_tx (Little's law), the ceiling
     * and the air bound the rest. */
    double bufs = fmax(v->tx_bufs, 1);
    double by_bufs = bufs * UDP_LEN * 8 / (pa->hold_tx * 1000);
    double path_tx = softmin(pa->ceil[EB_TEST_UDP_TX], by_bufs);
    double air_tx = airtime(pa->phy, o->ampdu_tx, UDP_LEN, false, contend) * pa->share_tx;
    o->mbps[EB_TEST_UDP_TX] = softmin(path_tx, air_tx) * (1 - pa->loss);
    o->bound[EB_TEST_UDP_TX] = path_tx <= air_tx ? (by_bufs < pa->ceil[EB_TEST_UDP_TX] ? EB_MB_STARVE : EB_MB_CPU) : EB_MB_AIR;
    o->loss[EB_TEST_UDP_TX] = pa->loss;
    /* RX: the AP offers what the air carries; the chip keeps what its path
     * and its buffers (RX buffers, UDP mailbox) can absorb; the rest is lost. */
    double offered = airtime(pa->phy, o->ampdu_rx ? o->ampdu_rx : 1, UDP_LEN, false, contend) * pa->share_rx;
    double hold = fmin(v->rx_bufs, v->udp_mbox + o->ampdu_rx);
    double starve = hold * UDP_LEN * 8 / (STARVE_HOLD_MS * 1000);
    double kept = softmin(softmin(pa->ceil[EB_TEST_UDP_RX], starve), offered);
    o->mbps[EB_TEST_UDP_RX] = kept * (1 - pa->loss);
    o->bound[EB_TEST_UDP_RX] =
        offered <= fmin(pa->ceil[EB_TEST_UDP_RX], starve)
            ? EB_MB_AIR
            : (starve < pa->ceil[EB_TEST_UDP_RX] ? EB_MB_STARVE : EB_MB_CPU);
    double got = o->mbps[EB_TEST_UDP_RX];
    o->loss[EB_TEST_UDP_RX] = offered > 0 ? fmax(0, 1 - got / offered) : 1;
}

void eb_model_predict(const eb_model_chip *mc, const eb_chip *c, const eb_tier *t,
                      const eb_model_link *l, eb_prediction *out)
{
    tier_view v;
    view_tier(mc, c, t, &v);
    memset(out, 0, sizeof *out);
    double f = path_factor(mc, c, &v);
    path pa;
    for (int k = 0; k < EB_TEST_COUNT; k++)
        pa.ceil[k] = mc->p[EB_MP_CEIL_TCP_TX + k] * f;
    /* A slower path also stretches the processing part of the round trip. */
    pa.rtt_tx = mc->p[EB_MP_RTT_TX_MS] / f;
    pa.rtt_rx = mc->p[EB_MP_RTT_RX_MS] / f;
    pa.hold_tx = mc->p[EB_MP_HOLD_TX_MS] / f;
    pa.phy = phy_rate(mc, l);
    pa.link_rtt = l ? l->rtt_ms : 0;
    pa.loss = l ? l->loss_pct / 100 : 0;
    medium_share(l, &pa);
    out->phy_mbps = pa.phy;
    /* [buf] RX aggregation: the BA window, never more than the RX buffers. */
    out->ampdu_rx = v.ba_win > 0 ? (int)fmin(fmin(v.ba_win, v.rx_bufs), MAX_AMPDU) : 0;
    out->ampdu_tx = (int)fmin(TX_AMPDU, v.tx_bufs);
    tcp_tests(mc, &v, &pa, out);
    udp_tests(mc, &v, &pa, out);
    out->free_kb = predict_heap(mc, c, &v);
}

/* Fields with a throughput or heap term above; the rest are named as
 * unmodelled (the TCP/TCPIP mailboxes only add a pointer each to the heap). */
static const bool modelled[EB_F_COUNT] = {
    [EB_F_STATIC_RX] = true,     [EB_F_DYNAMIC_RX] = true,  [EB_F_DYNAMIC_TX] = true,
    [EB_F_STATIC_TX] = true,     [EB_F_RX_BA_WIN] = true,   [EB_F_TCP_SND_BUF_KB] = true,
    [EB_F_TCP_WND_KB] = true,    [EB_F_UDP_MBOX] = true,    [EB_F_WIFI_IRAM_OPT] = true,
    [EB_F_WIFI_RX_IRAM_OPT] = true,
    [EB_F_LWIP_IRAM_OPT] = true, [EB_F_ICACHE_KB] = true,   [EB_F_CPU_MHZ] = true,
    [EB_F_AMPDU_RX] = true,      [EB_F_FULL_CACHE] = true,
};

unsigned eb_model_unmodelled(const eb_tier *t)
{
    unsigned mask = 0;
    for (int f = 0; f < EB_F_COUNT; f++)
        if (t->set[f] && !modelled[f])
            mask |= 1u << f;
    return mask;
}

const char *eb_model_bound_name(int bound)
{
    static const char *const names[] = {"cpu", "window", "air", "loss", "starve"};
    return bound >= 0 && bound <= EB_MB_STARVE ? names[bound] : "?";
}

static int parse_bool(const char *v)
{
    static const char *const on[] = {"ENABLE", "enable", "1", "y", "yes", "true", "on"};
    static const char *const off[] = {"DISABLE", "disable", "0", "n", "no", "false", "off"};
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
        if (!strcmp(v, on[i]))
            return 1;
        if (!strcmp(v, off[i]))
            return 0;
    }
    return -1;
}

int eb_model_tier_set(eb_tier *t, const char *key, const char *value, eb_error *err)
{
    if (!strcmp(key, "psram")) {
        int b = parse_bool(value);
        if (b < 0)
            return eb_fail(err, EB_ECONFIG, "psram '%s' must be ENABLE or DISABLE", value);
        t->psram = b;
        return 0;
    }
    int f = eb_field_from_key(key);
    if (f < 0)
        return eb_fail(err, EB_ECONFIG,
                       "unknown setting '%s' (a tier field of espbench-profiles(5), e.g. "
                       "dynamic_rx, rx_ba_win, tcp_wnd_kb, or psram)",
                       key);
    const eb_field_desc *d = eb_field_desc_get(f);
    int v;
    if (d->kind == EB_FK_BOOL) {
        v = parse_bool(value);
        if (v < 0)
            return eb_fail(err, EB_ECONFIG, "%s '%s' must be ENABLE or DISABLE", key, value);
    } else if (d->kind == EB_FK_BA && (!strcmp(value, "Disable") || !strcmp(value, "disable"))) {
        v = 0;
    } else {
        char *end = NULL;
        long l = strtol(value, &end, 10);
        if (end == value || *end)
            return eb_fail(err, EB_ECONFIG, "%s '%s' is not a whole number", key, value);
        if ((l < d->min || l > d->max) && !(d->kind == EB_FK_BA && l == 0))
            return eb_fail(err, EB_ECONFIG, "%s = %ld is outside the Kconfig range %d..%d of %s",
                           key, l, d->min, d->max, d->kconfig);
        v = (int)l;
    }
    /* One TX buffer type: setting one drops the other. */
    if (f == EB_F_DYNAMIC_TX)
        t->set[EB_F_STATIC_TX] = false;
    if (f == EB_F_STATIC_TX)
        t->set[EB_F_DYNAMIC_TX] = false;
    t->set[f] = true;
    t->value[f] = v;
    return 0;
}

int eb_model_figure(const eb_model_chip *mc, const eb_chip *c, const eb_tier *t,
                    const eb_model_link *l, bool force_model, int test, double *value)
{
    double pub = NAN;
    if (t)
        pub = test == EB_TEST_COUNT ? t->ref_avail_kb : eb_tier_ref(t, test, NULL);
    if (!force_model && eb_model_link_is_published(l) && !isnan(pub) && pub > 0) {
        *value = pub;
        return EB_FIG_PUBLISHED;
    }
    if (!mc || !t) {
        *value = NAN;
        return EB_FIG_NONE;
    }
    eb_prediction p;
    eb_model_predict(mc, c, t, l, &p);
    *value = test == EB_TEST_COUNT ? p.free_kb : p.mbps[test];
    return EB_FIG_MODEL;
}

void eb_model_as_built(const eb_chip *c, eb_tier *t)
{
    for (int f = 0; f < EB_F_COUNT; f++) {
        if (eb_field_desc_get(f)->runtime)
            continue;
        bool set = false;
        int v = 0;
        for (int i = 0; c && i < c->n_tiers; i++) {
            const eb_tier *x = &c->tiers[i];
            if (x->psram || !x->set[f])
                continue;
            if (!set || x->value[f] > v)
                v = x->value[f];
            set = true;
        }
        t->set[f] = set;
        t->value[f] = v;
    }
}

bool eb_model_heap_known(const eb_chip *c, const eb_tier *t)
{
    if (t && t->ref_avail_kb > 0)
        return true;
    for (int i = 0; c && i < c->n_tiers; i++)
        if (c->tiers[i].ref_avail_kb > 0)
            return true;
    return false;
}

void eb_model_predict_shown(const eb_model_chip *mc, const eb_chip *c, const eb_tier *t, const eb_model_link *l,
                            eb_prediction *out)
{
    eb_model_predict(mc, c, t, l, out);
    if (!eb_model_heap_known(c, t))
        out->free_kb = NAN;
}

int eb_model_source(const eb_tier *t, int test, const eb_model_link *l, bool force_model)
{
    double pub = !t ? NAN : test == EB_TEST_COUNT ? t->ref_avail_kb : eb_tier_ref(t, test, NULL);
    return !force_model && eb_model_link_is_published(l) && !isnan(pub) && pub > 0 ? EB_FIG_PUBLISHED
                                                                                    : EB_FIG_MODEL;
}
