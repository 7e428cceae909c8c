/* The espbench firmware's console on the vboard: the same espbench_core the
 * firmware runs, with vboard ops (emulated Wi-Fi, vb_traffic iperf, the
 * tier model's free memory, see docs/model.md). See docs/console-protocol.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "espbench/base/clock.h"
#include "espbench/base/str.h"
#include "espbench/formats/dialect.h"
#include "espbench/formats/radio_model.h"
#include "vb_dialect.h"
#include "vb_rom.h"

/* 802.11ax chips: wider Kconfig ranges (static RX buffers, BA window). */
static const char *const he_chips[] = {"esp32c5", "esp32c6", "esp32c61"};

/* Radio facts (each chip's soc_caps.h in ESP-IDF: SOC_WIFI_SUPPORT_5G, SOC_BLE_SUPPORTED). */
static const char *const band_5g_chips[] = {"esp32c5"};
static const char *const no_ble_chips[] = {"esp32s2", "esp8266"};

static bool in_list(const char *chip, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(chip, list[i]) == 0)
            return true;
    return false;
}

static bool is_he(const char *chip)
{
    for (size_t i = 0; i < sizeof he_chips / sizeof he_chips[0]; i++)
        if (strcmp(chip, he_chips[i]) == 0)
            return true;
    return false;
}

/* The image as issue 7 builds it: the chip's iperf tier at boot, and for
 * build-time fields the largest value among the chip's non-PSRAM tiers (the
 * largest lwIP windows and mailboxes, IRAM options on). An image built with
 * a tier's sdkconfig (`espbench build --tier`) has that tier's values, as
 * the firmware reports its CONFIG_ values in tier_show: the test-only build
 * tier in its descriptor stands in for them (esp_image.h). */
static void make_build(vb_console *c)
{
    const eb_chip *chip = c->b->chip;
    ebc_build *b = &c->build;
    memset(b, 0, sizeof *b);
    snprintf(c->build_fw, sizeof c->build_fw, "%s", c->app_version);
    snprintf(c->build_idf, sizeof c->build_idf, "%s", c->idf);
    snprintf(c->build_chip, sizeof c->build_chip, "%s", chip ? chip->name : "esp32");
    b->fw_version = c->build_fw;
    b->idf_version = c->build_idf;
    b->chip = c->build_chip;
    uint8_t mac[6];
    vb_board_mac(c->b, mac); /* the MAC the ROM loader reports from eFuse */
    snprintf(c->build_mac, sizeof c->build_mac, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2],
             mac[3], mac[4], mac[5]);
    b->mac = c->build_mac;
    b->he = is_he(c->build_chip);
    b->band_5g = in_list(c->build_chip, band_5g_chips, sizeof band_5g_chips / sizeof band_5g_chips[0]);
    b->ble = !in_list(c->build_chip, no_ble_chips, sizeof no_ble_chips / sizeof no_ble_chips[0]);
    /* Provenance as the firmware's `version` gives it (fw_provenance.c); the
     * same facts the vboard's boot log prints (chip revision v1.0, the SPI
     * flash clock and the CPU clock an image gets by default), the iperf
     * engine the firmware links, and the build options it reports
     * (firmware/sdkconfig.defaults: CONFIG_FREERTOS_HZ=1000). */
    b->chip_rev = "v1.0";
    b->flash_mhz = (int)vb_con_flash_mhz(c);
    b->cpu_mhz = chip && chip->cpu_mhz > 0 ? (int)chip->cpu_mhz : 160;
    b->iperf_component = "espressif/iperf";
    b->iperf_version = "1.0.2"; /* firmware/main/idf_component.yml's "^1.0.2", as the real image reports it */
    snprintf(c->build_sdkconfig, sizeof c->build_sdkconfig, "idf_target=%s,spiram=0,he=%d,freertos_hz=1000",
             c->build_chip, b->he ? 1 : 0);
    b->sdkconfig = c->build_sdkconfig;
    const eb_tier *boot = vb_con_boot_tier(c);
    /* The firmware calls the tier compiled into it "image" (fw_build_info.c),
     * whatever profile row its settings match. */
    snprintf(b->image.name, sizeof b->image.name, "image");
    for (int f = 0; f < EBC_F_COUNT && f < EB_F_COUNT; f++) {
        const ebc_field_info *fi = ebc_field_get(f);
        if (fi->runtime) {
            if (boot && boot->set[f]) {
                b->image.set[f] = true;
                b->image.value[f] = boot->value[f];
            }
            continue;
        }
        const eb_tier *built = c->build_tier[0] ? vb_con_find_tier(c, c->build_tier) : NULL;
        if (built && built->set[f]) {
            b->image.set[f] = true;
            b->image.value[f] = built->value[f];
            continue;
        }
        for (int i = 0; chip && i < chip->n_tiers; i++) {
            const eb_tier *t = &chip->tiers[i];
            if (t->psram || !t->set[f])
                continue;
            if (!b->image.set[f] || t->value[f] > b->image.value[f])
                b->image.value[f] = t->value[f];
            b->image.set[f] = true;
        }
    }
    /* Without a profile row: the ESP-IDF defaults (WIFI_INIT_CONFIG_DEFAULT). */
    if (!b->image.set[EBC_F_STATIC_RX]) {
        b->image.set[EBC_F_STATIC_RX] = b->image.set[EBC_F_DYNAMIC_RX] = true;
        b->image.value[EBC_F_STATIC_RX] = 10;
        b->image.value[EBC_F_DYNAMIC_RX] = 32;
    }
    if (!b->image.set[EBC_F_DYNAMIC_TX] && !b->image.set[EBC_F_STATIC_TX]) {
        b->image.set[EBC_F_DYNAMIC_TX] = true;
        b->image.value[EBC_F_DYNAMIC_TX] = 32;
    }
    if (!b->image.set[EBC_F_RX_BA_WIN]) {
        b->image.set[EBC_F_RX_BA_WIN] = true;
        b->image.value[EBC_F_RX_BA_WIN] = 6;
    }
    /* Build-time fields the firmware always reports (fw_build_info.c) and no
     * tier row sets: firmware/sdkconfig.defaults turns the three IRAM options
     * on, and the CPU runs at the chip's default clock
     * (CONFIG_ESP_DEFAULT_CPU_FREQ_MHZ, firmware/sdkconfig.defaults.<chip>). */
    static const int iram_fields[] = {EBC_F_WIFI_IRAM_OPT, EBC_F_WIFI_RX_IRAM_OPT, EBC_F_LWIP_IRAM_OPT};
    for (size_t i = 0; i < sizeof iram_fields / sizeof iram_fields[0]; i++)
        if (!b->image.set[iram_fields[i]]) {
            b->image.set[iram_fields[i]] = true;
            b->image.value[iram_fields[i]] = 1;
        }
    if (!b->image.set[EBC_F_CPU_MHZ]) {
        b->image.set[EBC_F_CPU_MHZ] = true;
        b->image.value[EBC_F_CPU_MHZ] = b->cpu_mhz;
    }
    /* The Ethernet build has no Wi-Fi driver: its tier has no Wi-Fi field. */
    b->ethernet = c->b->ethernet;
    for (int f = 0; b->ethernet && f < EBC_F_COUNT; f++)
        if (ebc_field_get(f)->wifi)
            b->image.set[f] = false;
}

/* The profile row the applied tier corresponds to: by name, else by equal
 * runtime fields; NULL if none (the model then keeps the previous figures). */
static const eb_tier *profile_tier_for(vb_console *c, const ebc_tier *t)
{
    const eb_tier *byname = vb_con_find_tier(c, t->name);
    if (byname)
        return byname;
    const eb_chip *chip = c->b->chip;
    for (int i = 0; chip && i < chip->n_tiers; i++) {
        const eb_tier *p = &chip->tiers[i];
        bool same = true;
        for (int f = 0; f < EBC_F_COUNT && f < EB_F_COUNT && same; f++)
            if (ebc_field_get(f)->runtime)
                same = p->set[f] == t->set[f] && (!t->set[f] || p->value[f] == t->value[f]);
        if (same)
            return p;
    }
    return NULL;
}

/* ------------------------------------------------------------------ ops */

static void op_write(void *ctx, const char *data, size_t len) { vb_con_write(ctx, data, len); }

static int op_wifi_deinit(void *ctx)
{
    vb_console *c = ctx;
    c->connected = false;
    return 0;
}

/* The `wifi-start` fault: esp_wifi_start fails (ESP_ERR_NOT_SUPPORTED) at
 * every esp_wifi_init until the next boot, as on an emulated chip without its
 * PHY; fw_wifi_init then stops and deinits, so Wi-Fi stays uninitialised. */
static int op_wifi_init(void *ctx, const ebc_wifi_cfg *cfg)
{
    vb_console *c = ctx;
    if (!c->no_wifi_start && vb_board_take_fault(c->b, "wifi-start", NULL, NULL))
        c->no_wifi_start = true;
    if (c->no_wifi_start)
        return -1;
    return cfg->static_rx_buf_num > 0 ? 0 : -1;
}

static int op_wifi_connect(void *ctx, const char *ssid, const char *pass, ebc_ip_info *ip, int *reason)
{
    vb_console *c = ctx;
    if (!c->core.wifi_up) { /* fw_wifi_connect: esp_wifi_set_config fails, no reason */
        *reason = 0;
        return -1;
    }
    int r = vb_con_wifi_connect(c, ssid, pass, VB_REASON_HANDSHAKE_TIMEOUT);
    if (r != 0) {
        *reason = r;
        return -1;
    }
    snprintf(ip->ip, sizeof ip->ip, "%s", c->ip);
    snprintf(ip->mask, sizeof ip->mask, "%s", c->mask);
    snprintf(ip->gw, sizeof ip->gw, "%s", c->gw);
    return 0;
}

static int op_wifi_scan(void *ctx, const char *ssid, ebc_scan_ap *aps, int max, int *n)
{
    vb_console *c = ctx;
    if (!c->core.wifi_up) /* esp_wifi_scan_start: ESP_ERR_WIFI_NOT_INIT */
        return -1;
    vb_wifi_scan_entry e[VB_MAX_APS];
    int k = vb_con_wifi_scan(c, ssid, e, VB_MAX_APS);
    *n = 0;
    for (int i = 0; i < k && *n < max; i++, (*n)++) {
        eb_strlcpy(aps[i].ssid, e[i].ssid, sizeof aps[i].ssid);
        aps[i].rssi = e[i].rssi;
        aps[i].channel = e[i].channel;
    }
    return 0;
}

static int op_iperf_start(void *ctx, const ebc_iperf_args *a, char *msg, size_t msg_len)
{
    vb_console *c = ctx;
    vb_iperf_req q;
    memset(&q, 0, sizeof q);
    q.server = a->server;
    q.udp = a->udp;
    snprintf(q.host, sizeof q.host, "%s", a->host);
    q.port = a->port;
    q.len = (int)a->len;
    /* Fractional, as asked. The firmware gives its engine whole seconds
     * (fw_iperf.c; espressif/iperf counts 1 s ticks): a known difference,
     * kept because the tests' short simulated runs ask for 0.5 s intervals
     * (docs/vboard.md, "Conformance with the real firmware"). */
    q.interval_s = a->interval_s;
    q.time_s = a->time_s;
    q.bw_mbps = a->bw_mbps;
    c->run.req = q;
    c->run.fmt = 'm';
    return vb_con_iperf_start(c, msg, msg_len);
}

/* As espressif/iperf 1.0.2 stops a running test (iperf_force_stop: its
 * time becomes 0, so its next 1 s tick ends it, iperf.c tick_timer_cb): the
 * period since the last report up to that tick, the summary over the whole
 * test, then done (the real image: tests/fixtures/firmware-real/eth-abort.txt). */
static void op_iperf_abort(void *ctx)
{
    vb_console *c = ctx;
    bool was = vb_con_iperf_running(c);
    uint64_t total = was && c->iperf ? c->traffic.total_bytes(c->iperf) : 0;
    pthread_mutex_lock(&c->run_lock);
    if (was && c->run.no_stop) { /* the no-stop fault: the instance never reaches its next tick */
        pthread_mutex_unlock(&c->run_lock);
        return;
    }
    double last = c->run.last_end_s, t0 = (double)c->run.t0_ms;
    uint64_t reported = c->run.bytes;
    pthread_mutex_unlock(&c->run_lock);
    vb_con_iperf_abort(c);
    if (!was)
        return;
    if (t0 > 0) {
        double end = floor((eb_now_ms() - t0) / 1000.0) + 1;
        if (end > last)
            ebc_event_iperf_interval(&c->core, last, end, total > reported ? total - reported : 0, false, 0, 0, -1);
        ebc_event_iperf_summary(&c->core, 0, end > last ? end : last, total, false, 0, 0);
    }
    ebc_event_iperf_done(&c->core);
}

static bool op_iperf_running(void *ctx) { return vb_con_iperf_running(ctx); }

static void op_heap(void *ctx, ebc_heap *h)
{
    vb_console *c = ctx;
    h->free_internal = h->free_default = c->heap_free;
    h->min_internal = h->min_default = c->heap_min;
    /* Fragmentation: the largest block is a bit under half of what is free. */
    h->largest_internal = (c->heap_free * 9 / 20) & ~3u;
}

/* The radio settings as the firmware's glue reports them after an
 * esp_wifi_start: ESP-IDF's defaults (2.4 GHz, HT20 as the firmware starts
 * it, 11b/g/n plus 11ax on an HE chip, 11a/n/ac/ax at 5 GHz, power save off
 * as the firmware sets it, the PHY's 20 dBm, no BLE activity) with the
 * settings requested so far, then `want`. The C5's band mode "auto" is
 * assumed: esp_wifi.h does not state the default band mode (the firmware
 * reports what esp_wifi_get_band_mode reads).
 *
 * HOOK FOR THE RADIO MODELS: the vboard only records and reports these values
 * so far; band, bandwidth, PHY set, power save, TX power and coexistence do
 * not yet change the link model's throughput, RSSI or latency. A radio model
 * reads c->core.radio (and `want` here) to shape the link. */
static void radio_merge(ebc_radio *now, const ebc_radio *r)
{
    int *dst[] = {&now->band, &now->bw_2g, &now->bw_5g, &now->ps, &now->listen_interval, &now->tx_power_q,
                  &now->coex};
    const int src[] = {r->band, r->bw_2g, r->bw_5g, r->ps, r->listen_interval, r->tx_power_q, r->coex};
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++)
        if (src[i])
            *dst[i] = src[i];
    if (r->phy_2g)
        now->phy_2g = r->phy_2g;
    if (r->phy_5g)
        now->phy_5g = r->phy_5g;
}

static void radio_now(vb_console *c, const ebc_radio *want, ebc_radio *now)
{
    const ebc_build *b = &c->build;
    *now = (ebc_radio){.band = EBC_BAND_2G, .bw_2g = 20, .phy_2g = EBC_PHY_11B | EBC_PHY_11G | EBC_PHY_11N,
                       .ps = EBC_PS_NONE, .tx_power_q = 80, .coex = EBC_COEX_NONE};
    if (b->he)
        now->phy_2g |= EBC_PHY_11AX;
    if (b->band_5g) {
        now->band = EBC_BAND_AUTO;
        now->bw_5g = 20;
        now->phy_5g = EBC_PHY_11A | EBC_PHY_11N | EBC_PHY_11AC | EBC_PHY_11AX;
    }
    radio_merge(now, &c->core.radio);
    radio_merge(now, want);
    if (now->ps != EBC_PS_MAX_MODEM)
        now->listen_interval = 0;
    /* esp_wifi_set_max_tx_power applies steps (esp_wifi.h, attention 5): the largest step not above the value. */
    static const int steps[] = {8, 20, 28, 34, 44, 52, 56, 60, 66, 72, 80};
    int applied = steps[0];
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (now->tx_power_q >= steps[i])
            applied = steps[i];
    now->tx_power_q = applied;
}

/* With Wi-Fi not initialised, the first ESP-IDF call fw_radio.c makes for
 * this request is the one that fails (ESP_ERR_WIFI_NOT_INIT): its setters in
 * their order, then its first getter; per band on the 5 GHz chip from v5.4. */
static const char *radio_first_call(const vb_console *c, const ebc_radio *w)
{
    bool per_band = c->idf_key >= 504 && c->build.band_5g;
    const struct {
        bool asked;
        const char *call;
    } calls[] = {
        {per_band && w->band, "esp_wifi_set_band_mode"},
        {per_band && (w->phy_2g || w->phy_5g), "esp_wifi_get_protocols"},
        {per_band && (w->bw_2g || w->bw_5g), "esp_wifi_get_bandwidths"},
        {!per_band && w->phy_2g, "esp_wifi_set_protocol"},
        {!per_band && w->bw_2g, "esp_wifi_set_bandwidth"},
        {w->ps, "esp_wifi_set_ps"},
        {w->tx_power_q, "esp_wifi_set_max_tx_power"},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        if (calls[i].asked)
            return calls[i].call;
    return per_band ? "esp_wifi_get_band_mode" : "esp_wifi_get_protocol";
}

static int op_radio_apply(void *ctx, const ebc_radio *want, ebc_radio *now, char *msg, size_t msg_len)
{
    vb_console *c = ctx;
    if (!c->core.wifi_up) {
        snprintf(msg, msg_len, "%s: ESP_ERR_WIFI_NOT_INIT", radio_first_call(c, want));
        return EBC_RADIO_FAILED;
    }
    radio_now(c, want, now);
    return EBC_RADIO_OK;
}

/* The link as esp_wifi_sta_get_ap_info etc. report it on the firmware: the
 * emulated AP joined (RSSI, channel, BSSID from the vboard's AP model), the
 * bandwidth and power save the radio settings ask for (HT20 and off unless
 * set), 802.11n (the emulated AP is an 11n AP, as the stock wifi-cmd scan line
 * says). */
static int op_link(void *ctx, ebc_link *l)
{
    vb_console *c = ctx;
    vb_wifi_scan_entry e[VB_MAX_APS];
    if (!c->core.connected || vb_con_wifi_scan(c, c->core.ssid, e, VB_MAX_APS) < 1)
        return -1;
    static const ebc_radio none;
    ebc_radio r;
    radio_now(c, &none, &r);
    /* band=5 on a dual-band chip: the emulated AP's 5 GHz radio, channel 36
     * (vb_radio.c models its figures); the 11n AP answers the mode asked for
     * (vb_radio.c's ceiling of it), 11n otherwise. */
    bool five = e[0].channel > 14 || (c->build.band_5g && c->core.radio.band == EBC_BAND_5G);
    l->rssi = e[0].rssi;
    l->channel = five && e[0].channel <= 14 ? 36 : e[0].channel;
    l->bw_mhz = five ? r.bw_5g : r.bw_2g;
    snprintf(l->second, sizeof l->second, "%s", l->bw_mhz == 40 ? (e[0].channel <= 7 ? "above" : "below") : "none");
    snprintf(l->band, sizeof l->band, "%s", five ? "5GHz" : "2.4GHz");
    unsigned asked = five ? c->core.radio.phy_5g : c->core.radio.phy_2g;
    snprintf(l->phy, sizeof l->phy, "%s",
             asked ? eb_radio_mode(asked & EBC_PHY_11B, asked & (EBC_PHY_11G | EBC_PHY_11A), asked & EBC_PHY_11N,
                                   asked & EBC_PHY_11AX, l->bw_mhz)
                   : "11n");
    static const char *const ps_names[] = {[EBC_PS_NONE] = "none", [EBC_PS_MIN_MODEM] = "min_modem",
                                           [EBC_PS_MAX_MODEM] = "max_modem"};
    snprintf(l->ps, sizeof l->ps, "%s", ps_names[r.ps]);
    eb_strlcpy(l->ssid, e[0].ssid, sizeof l->ssid);
    eb_strlcpy(l->bssid, e[0].bssid, sizeof l->bssid);
    return 0;
}

/* The Ethernet build's interface (fw_eth.c): its address comes from DHCP
 * after boot; the vboard's is its loopback address, at once. */
static int op_net_start(void *ctx)
{
    vb_console *c = ctx;
    vb_wifi_ip_info(c->b, c->ip, c->mask, c->gw);
    c->connected = true;
    ebc_ip_info ip;
    snprintf(ip.ip, sizeof ip.ip, "%s", c->ip);
    snprintf(ip.mask, sizeof ip.mask, "%s", c->mask);
    snprintf(ip.gw, sizeof ip.gw, "%s", c->gw);
    ebc_event_net_got_ip(&c->core, &ip);
    return 0;
}

static void op_restart(void *ctx)
{
    vb_console *c = ctx;
    c->running_app = false;
    vb_con_restart(c);
}

/* ------------------------------------------------------------------ driver */

static const char *eb_prompt(vb_console *c)
{
    (void)c;
    return EBC_PROMPT;
}

static void eb_banner(vb_console *c)
{
    /* Nothing: the firmware reads its console with a blocking driver, not
     * the ESP-IDF REPL (fw_console_io.c), so no terminal probe and no REPL
     * banner come before its first prompt (the real image's boot:
     * tests/fixtures/firmware-real/). */
    (void)c;
}

/* True when the board already runs the applied runtime settings. */
static bool runs_applied(vb_console *c)
{
    for (int f = 0; f < EBC_F_COUNT && f < EB_F_COUNT; f++)
        if (ebc_field_get(f)->runtime &&
            (c->runs.set[f] != c->core.tier.set[f] ||
             (c->core.tier.set[f] && c->runs.value[f] != c->core.tier.value[f])))
            return false;
    return c->have_runs;
}

static void eb_line(vb_console *c, char *line)
{
    ebc_feed_line(&c->core, line);
    c->connected = c->core.connected;
    const eb_tier *t = profile_tier_for(c, &c->core.tier);
    if (t && t != c->tier)
        vb_con_set_tier(c, t);
    else if (!t && (c->tier || !runs_applied(c)))
        /* Settings no profile row has (a search, a hand-typed tier_set): the
         * model predicts them. */
        vb_con_set_custom_tier(c, c->core.tier.set, c->core.tier.value, EBC_F_COUNT);
}

/* As firmware/main/fw_iperf.c words the engine's reports: Espressif's iperf
 * component (espressif/iperf, iperf.c) counts bytes only — its UDP server
 * neither checks datagram ids nor answers the client's end marker — so the
 * firmware's interval and summary events never carry lost/total. */
static void eb_report(vb_console *c, const vb_iperf_report *r)
{
    switch (r->event) {
    case VB_IPERF_SOCKET_CREATED:
        break;
    case VB_IPERF_CONNECTED:
        ebc_event_iperf_connected(&c->core, r->peer_ip, r->peer_port);
        break;
    case VB_IPERF_INTERVAL:
        ebc_event_iperf_interval(&c->core, r->start_s, r->end_s, r->bytes, false, 0, 0, -1);
        break;
    case VB_IPERF_SUMMARY:
        ebc_event_iperf_summary(&c->core, r->start_s, r->end_s, r->bytes, false, 0, 0);
        break;
    case VB_IPERF_ERROR:
        ebc_event_iperf_error(&c->core, r->text);
        break;
    case VB_IPERF_DONE:
        ebc_event_iperf_done(&c->core);
        break;
    }
}

static void eb_wifi_lost(vb_console *c, int reason)
{
    /* The firmware reports the drop and leaves reconnecting to the host. */
    ebc_event_wifi_disconnected(&c->core, reason);
}

static const vb_dialect_driver espbench_driver = {
    .dialect = EB_DIALECT_ESPBENCH,
    .banner = eb_banner,
    .prompt = eb_prompt,
    .line = eb_line,
    .report = eb_report,
    .wifi_lost = eb_wifi_lost,
};

const vb_dialect_driver *vb_dialect_espbench_driver(void) { return &espbench_driver; }

void vb_dialect_espbench_boot(vb_console *c)
{
    make_build(c);
    c->ops = (ebc_ops){
        .ctx = c,
        .write = op_write,
        .wifi_deinit = op_wifi_deinit,
        .wifi_init = op_wifi_init,
        .wifi_connect = op_wifi_connect,
        .wifi_scan = op_wifi_scan,
        .iperf_start = op_iperf_start,
        .iperf_abort = op_iperf_abort,
        .iperf_running = op_iperf_running,
        .heap = op_heap,
        .restart = op_restart,
        .link = op_link,
        .radio_apply = op_radio_apply,
        .net_start = op_net_start,
    };
    ebc_core_init(&c->core, &c->ops, &c->build);
    ebc_core_start(&c->core);
}
