/* Radio settings of the espbench console protocol: radio_set, radio_show and
 * link (docs/console-protocol.md, "Radio settings"). Portable C: the values
 * are checked here against the chip's facts (ebc_build: 5 GHz, 802.11ax,
 * BLE); the platform applies them through ebc_ops.radio_apply (the firmware:
 * ESP-IDF's Wi-Fi calls, each refused with its first version on an older
 * ESP-IDF; the virtual board: records them for its radio models). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"
#include "espbench_core.h"

/* ---------------------------------------------------------------- names */

typedef struct name_val {
    const char *name;
    int val;
} name_val;

static const name_val bands[] = {{"2.4", EBC_BAND_2G}, {"5", EBC_BAND_5G}, {"auto", EBC_BAND_AUTO}};
static const name_val pss[] = {{"none", EBC_PS_NONE}, {"min_modem", EBC_PS_MIN_MODEM}, {"max_modem", EBC_PS_MAX_MODEM}};
static const name_val coexs[] = {{"none", EBC_COEX_NONE}, {"ble_scan", EBC_COEX_BLE_SCAN}, {"ble_adv", EBC_COEX_BLE_ADV}};
static const name_val bws[] = {{"20", 20}, {"40", 40}, {"ht20", 20}, {"ht40", 40}};
/* PHY names in the order they are printed. */
static const name_val phys[] = {{"b", EBC_PHY_11B}, {"g", EBC_PHY_11G}, {"a", EBC_PHY_11A},
                                {"n", EBC_PHY_11N}, {"ac", EBC_PHY_11AC}, {"ax", EBC_PHY_11AX}};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int lookup(const name_val *t, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, s) == 0)
            return t[i].val;
    return -1;
}

static const char *name_of(const name_val *t, size_t n, int v)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].val == v)
            return t[i].name;
    return "";
}

/* "b,g,n,ax" -> bits, each name allowed in `allowed`; 0 on a bad list. */
static unsigned parse_phys(const char *s, unsigned allowed, char *bad, size_t bad_len)
{
    unsigned bits = 0;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int v = lookup(phys, COUNT(phys), tok);
        if (v < 0 || !((unsigned)v & allowed)) {
            snprintf(bad, bad_len, "%s", tok);
            return 0;
        }
        bits |= (unsigned)v;
    }
    return bits;
}

static void phys_text(unsigned bits, char *out, size_t n)
{
    out[0] = '\0';
    for (size_t i = 0; i < COUNT(phys); i++)
        if (bits & (unsigned)phys[i].val) {
            if (out[0])
                strncat(out, ",", n - strlen(out) - 1);
            strncat(out, phys[i].name, n - strlen(out) - 1);
        }
}

/* ---------------------------------------------------------------- parsing (a table of keys) */

typedef int (*key_fn)(const ebc_build *b, const char *v, ebc_radio *r, ebc_status *st);

static int k_band(const ebc_build *b, const char *v, ebc_radio *r, ebc_status *st)
{
    int x = lookup(bands, COUNT(bands), v);
    if (x < 0)
        return ebc_fail(st, EBC_ERR_SYNTAX, "band=%.16s: 2.4, 5 or auto", v);
    if (x != EBC_BAND_2G && !b->band_5g)
        return ebc_fail(st, EBC_ERR_UNSUPPORTED, "band=%s: %s has no 5 GHz radio", v, b->chip);
    r->band = x;
    return 0;
}

static int k_bw(const ebc_build *b, const char *v, ebc_radio *r, ebc_status *st, bool five)
{
    int x = lookup(bws, COUNT(bws), v);
    if (x < 0)
        return ebc_fail(st, EBC_ERR_SYNTAX, "%s=%.16s: 20 or 40 (MHz)", five ? "bw5" : "bw", v);
    if (five && !b->band_5g)
        return ebc_fail(st, EBC_ERR_UNSUPPORTED, "bw5=%s: %s has no 5 GHz radio", v, b->chip);
    *(five ? &r->bw_5g : &r->bw_2g) = x;
    return 0;
}
static int k_bw2(const ebc_build *b, const char *v, ebc_radio *r, ebc_status *st) { return k_bw(b, v, r, st, false); }
static int k_bw5(const ebc_build *b, const char *v, ebc_radio *r, ebc_status *st) { return k_bw(b, v, r, st, true); }

static int k_phy(const ebc_build *b, const char *v, ebc_radio *r, ebc_status *st, bool five)
{
    if (five && !b->band_5g)
        return ebc_fail(st, EBC_ERR_UNSUPPORTED, "phy5=%.32s: %s has no 5 GHz radio", v, b->chip);
    unsigned allowed = five ? EBC_PHY_11A | EBC_PHY_11N | EBC_PHY_11AC | EBC_PHY_11AX
                            : EBC_PHY_11B | EBC_PHY_11G | EBC_PHY_11N | EBC_PHY_11AX;
    char bad[16] = "";
    unsigned bits = parse_phys(v, allowed, bad, sizeof bad);
    if (!bits)
        return ebc_fail(st, EBC_ERR_SYNTAX, "%s=%.32s: a list of %s", five ? "phy5" : "phy", v,
                        five ? "a, n, ac, ax" : "b, g, n, ax");
    if ((bits & EBC_PHY_11AX) && !b->he)
        return ebc_fail(st, EBC_ERR_UNSUPPORTED, "%s=%.32s: %s has no 802.11ax", five ? "phy5" : "phy", v, b->chip);
    *(five ? &r->phy_5g : &r->phy_2g) = bits;
    return 0;
}
static int k_phy2(const ebc_build *b, const char *v, ebc_radio *r, ebc_status *st) { return k_phy(b, v, r, st, false); }
static int k_phy5(const ebc_build *b, const char *v, ebc_radio *r, ebc_status *st) { return k_phy(b, v, r, st, true); }

static int k_ps(const ebc_build *b, const char *v, ebc_radio *r, ebc_status *st)
{
    (void)b;
    int x = lookup(pss, COUNT(pss), v);
    if (x < 0)
        return ebc_fail(st, EBC_ERR_SYNTAX, "ps=%.16s: none, min_modem or max_modem", v);
    r->ps = x;
    return 0;
}

static int k_listen(const ebc_build *b, const char *v, ebc_radio *r, ebc_status *st)
{
    (void)b;
    char *end;
    long x = strtol(v, &end, 10);
    if (!*v || *end)
        return ebc_fail(st, EBC_ERR_SYNTAX, "listen_interval=%.16s: an integer (beacon intervals)", v);
    if (x < 1 || x > 65535) /* wifi_sta_config_t.listen_interval is a uint16_t; 0 means ESP-IDF's default 3 */
        return ebc_fail(st, EBC_ERR_RANGE, "listen_interval=%ld: 1..65535 beacon intervals", x);
    r->listen_interval = (int)x;
    return 0;
}

/* dBm in 0.25 dB steps ("19.5", "8", "2.25"). */
static int k_tx_power(const ebc_build *b, const char *v, ebc_radio *r, ebc_status *st)
{
    (void)b;
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end)
        return ebc_fail(st, EBC_ERR_SYNTAX, "tx_power=%.16s: dBm, in 0.25 dB steps", v);
    double q = x * 4.0;
    long qi = (long)(q + (q < 0 ? -0.5 : 0.5));
    if (q - (double)qi > 1e-6 || (double)qi - q > 1e-6)
        return ebc_fail(st, EBC_ERR_RANGE,
                        "tx_power=%.16s: not a multiple of 0.25 dBm (esp_wifi_set_max_tx_power's unit)", v);
    if (qi < EBC_TX_POWER_MIN_Q || qi > EBC_TX_POWER_MAX_Q)
        return ebc_fail(st, EBC_ERR_RANGE,
                        "tx_power=%.16s: 2 .. 21 dBm (esp_wifi_set_max_tx_power: [8, 84] x 0.25 dBm, at most 20 applied)",
                        v);
    r->tx_power_q = (int)qi;
    return 0;
}

static int k_coex(const ebc_build *b, const char *v, ebc_radio *r, ebc_status *st)
{
    int x = lookup(coexs, COUNT(coexs), v);
    if (x < 0)
        return ebc_fail(st, EBC_ERR_SYNTAX, "coex=%.16s: none, ble_scan or ble_adv", v);
    if (x != EBC_COEX_NONE && !b->ble)
        return ebc_fail(st, EBC_ERR_UNSUPPORTED, "coex=%s: %s has no BLE", v, b->chip);
    r->coex = x;
    return 0;
}

static const struct {
    const char *key;
    key_fn fn;
} keys[] = {
    {"band", k_band}, {"bw", k_bw2}, {"bw5", k_bw5}, {"phy", k_phy2}, {"phy5", k_phy5},
    {"ps", k_ps}, {"listen_interval", k_listen}, {"tx_power", k_tx_power}, {"coex", k_coex},
};

/* Combinations, on the whole request. */
static int radio_check(const ebc_radio *r, ebc_status *st)
{
    if (r->bw_2g == 40 && r->phy_2g && !(r->phy_2g & EBC_PHY_11N))
        return ebc_fail(st, EBC_ERR_CONSTRAINT, "bw=40 needs 11n in phy (HT40 is an 802.11n mode)");
    if (r->bw_5g == 40 && r->phy_5g && !(r->phy_5g & EBC_PHY_11N))
        return ebc_fail(st, EBC_ERR_CONSTRAINT, "bw5=40 needs n in phy5 (HT40 is an 802.11n mode)");
    if (r->listen_interval && r->ps != EBC_PS_MAX_MODEM)
        return ebc_fail(st, EBC_ERR_CONSTRAINT,
                        "listen_interval applies with ps=max_modem only (wifi_sta_config_t.listen_interval)");
    return 0;
}

int ebc_radio_from_args(const ebc_build *b, const ebc_radio *base, int argc, char **argv, ebc_radio *out,
                        ebc_status *st)
{
    *out = *base;
    if (argc == 0)
        return ebc_fail(st, EBC_ERR_SYNTAX,
                        "usage: radio_set <key>=<value>... (band bw bw5 phy phy5 ps listen_interval tx_power coex)");
    for (int i = 0; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq || eq == argv[i] || !eq[1])
            return ebc_fail(st, EBC_ERR_SYNTAX, "%.40s: expected key=value", argv[i]);
        *eq = '\0';
        size_t k = 0;
        while (k < COUNT(keys) && strcmp(keys[k].key, argv[i]) != 0)
            k++;
        if (k == COUNT(keys)) {
            ebc_fail(st, EBC_ERR_UNKNOWN_FIELD,
                     "%.32s: not a radio setting (band bw bw5 phy phy5 ps listen_interval tx_power coex)", argv[i]);
            *eq = '=';
            return -1;
        }
        int rc = keys[k].fn(b, eq + 1, out, st);
        *eq = '=';
        if (rc)
            return rc;
    }
    /* ps without max_modem drops an earlier listen interval, rather than refusing the change. */
    if (out->ps != EBC_PS_MAX_MODEM && base->listen_interval && out->listen_interval == base->listen_interval)
        out->listen_interval = 0;
    return radio_check(out, st);
}

void ebc_radio_kv(ebc_line *l, const ebc_radio *r)
{
    char text[40];
    if (r->band)
        ebc_line_kv_str(l, "band", name_of(bands, COUNT(bands), r->band));
    if (r->bw_2g)
        ebc_line_kv_int(l, "bw", r->bw_2g);
    if (r->bw_5g)
        ebc_line_kv_int(l, "bw5", r->bw_5g);
    if (r->phy_2g) {
        phys_text(r->phy_2g, text, sizeof text);
        ebc_line_kv_str(l, "phy", text);
    }
    if (r->phy_5g) {
        phys_text(r->phy_5g, text, sizeof text);
        ebc_line_kv_str(l, "phy5", text);
    }
    if (r->ps)
        ebc_line_kv_str(l, "ps", name_of(pss, COUNT(pss), r->ps));
    if (r->listen_interval)
        ebc_line_kv_int(l, "listen_interval", r->listen_interval);
    if (r->tx_power_q)
        ebc_line_kv_fixed(l, "tx_power", r->tx_power_q / 4.0, 2);
    if (r->coex)
        ebc_line_kv_str(l, "coex", name_of(coexs, COUNT(coexs), r->coex));
}

bool ebc_radio_needs_reconnect(const ebc_radio *a, const ebc_radio *b)
{
    return a->band != b->band || a->bw_2g != b->bw_2g || a->bw_5g != b->bw_5g || a->phy_2g != b->phy_2g ||
           a->phy_5g != b->phy_5g || a->listen_interval != b->listen_interval;
}

/* ---------------------------------------------------------------- commands */

static bool radio_empty(const ebc_radio *r)
{
    static const ebc_radio none;
    return memcmp(r, &none, sizeof none) == 0;
}

int ebc_core_radio_reapply(ebc_core *c, char *msg, size_t msg_len)
{
    if (radio_empty(&c->radio) || !c->ops->radio_apply)
        return EBC_RADIO_OK;
    ebc_radio now;
    memset(&now, 0, sizeof now);
    return c->ops->radio_apply(c->ops->ctx, &c->radio, &now, msg, msg_len);
}

static void reply_radio(ebc_core *c, const ebc_radio *now)
{
    ebc_line l;
    ebc_line_start(&l, "#EB:OK");
    ebc_radio_kv(&l, now);
    ebc_emit(c, &l);
}

static bool radio_platform(ebc_core *c)
{
    if (c->ops->radio_apply)
        return true;
    ebc_reply_err(c, EBC_ERR_UNSUPPORTED, "this board has no radio settings");
    return false;
}

void ebc_cmd_radio_set(ebc_core *c, int argc, char **argv)
{
    ebc_radio want;
    ebc_status st = {0};
    if (ebc_radio_from_args(c->build, &c->radio, argc - 1, argv + 1, &want, &st) != 0) {
        ebc_reply_err(c, st.code, st.msg);
        return;
    }
    if (!radio_platform(c))
        return;
    if (c->ops->iperf_running(c->ops->ctx)) {
        ebc_reply_err(c, EBC_ERR_BUSY, "iperf is running; abort it first");
        return;
    }
    ebc_radio now;
    memset(&now, 0, sizeof now);
    char msg[120] = "";
    int rc = c->ops->radio_apply(c->ops->ctx, &want, &now, msg, sizeof msg);
    if (rc != EBC_RADIO_OK) {
        /* Put back what was requested before (a partly applied request is undone where the platform can). */
        char ignored[120];
        ebc_core_radio_reapply(c, ignored, sizeof ignored);
        ebc_reply_err(c, rc == EBC_RADIO_UNSUPPORTED ? EBC_ERR_UNSUPPORTED : EBC_ERR_WIFI, msg);
        return;
    }
    bool reconnect = c->connected && ebc_radio_needs_reconnect(&c->radio, &want);
    c->radio = want;
    /* Band, bandwidth, PHY and listen interval take effect on the next association. */
    if (reconnect && ebc_core_reconnect(c, "radio settings") != 0)
        return;
    reply_radio(c, &now);
}

void ebc_cmd_radio_show(ebc_core *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    if (!radio_platform(c))
        return;
    static const ebc_radio none;
    ebc_radio now;
    memset(&now, 0, sizeof now);
    char msg[120] = "";
    if (c->ops->radio_apply(c->ops->ctx, &none, &now, msg, sizeof msg) != EBC_RADIO_OK) {
        ebc_reply_err(c, EBC_ERR_WIFI, msg);
        return;
    }
    reply_radio(c, &now);
}

void ebc_cmd_link(ebc_core *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    if (c->build->ethernet) {
        if (!c->connected) {
            ebc_reply_err(c, EBC_ERR_NOT_CONNECTED, "Ethernet has no IP address yet");
            return;
        }
        ebc_line l;
        ebc_line_start(&l, "#EB:OK");
        ebc_line_kv_str(&l, "net", "eth");
        ebc_line_kv_str(&l, "ip", c->ip.ip);
        ebc_line_kv_str(&l, "mask", c->ip.mask);
        ebc_line_kv_str(&l, "gw", c->ip.gw);
        ebc_emit(c, &l);
        return;
    }
    ebc_link k;
    memset(&k, 0, sizeof k);
    if (!c->connected || !c->ops->link || c->ops->link(c->ops->ctx, &k) != 0) {
        ebc_reply_err(c, EBC_ERR_NOT_CONNECTED, "not associated");
        return;
    }
    ebc_line l;
    ebc_line_start(&l, "#EB:OK");
    ebc_line_kv_int(&l, "rssi", k.rssi);
    if (k.channel > 0)
        ebc_line_kv_int(&l, "ch", k.channel);
    const char *text[][2] = {{"ch2", k.second}, {"band", k.band}, {"phy", k.phy}, {"ps", k.ps},
                             {"ssid", k.ssid}, {"bssid", k.bssid}};
    if (k.bw_mhz > 0)
        ebc_line_kv_int(&l, "bw", k.bw_mhz);
    for (size_t i = 0; i < COUNT(text); i++)
        if (text[i][1][0])
            ebc_line_kv_str(&l, text[i][0], text[i][1]);
    ebc_emit(c, &l);
}
