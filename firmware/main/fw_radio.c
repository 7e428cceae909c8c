/* Radio settings (ebc_ops.radio_apply; docs/console-protocol.md, "Radio
 * settings") through ESP-IDF's Wi-Fi calls. The core has checked the values
 * against the chip; here each setting goes to the call this ESP-IDF has, and a
 * setting whose call is missing is refused with the call's first version.
 * First versions (components/esp_wifi/include/esp_wifi.h of each release):
 *   esp_wifi_set_bandwidth/_protocol/_ps/_max_tx_power and their getters:
 *       every supported release (v5.1.2 and later)
 *   esp_wifi_set_band_mode, esp_wifi_set_bandwidths, esp_wifi_set_protocols
 *       (a setting per band; WIFI_PROTOCOL_11A/11AC): v5.4, used on chips with
 *       SOC_WIFI_SUPPORT_5G (the ESP32-C5)
 *   wifi_sta_config_t.listen_interval (with WIFI_PS_MAX_MODEM): every supported
 *       release; it applies at the next association (fw_wifi_connect)
 * WIFI_PROTOCOL_11AX is 16 up to v5.3 and 0x40 from v5.4: the names are used.
 * esp_wifi_set_max_tx_power takes 0.25 dBm units in [8, 84] and applies the
 * steps of its table (at most 80 = 20 dBm); the value read back is reported.
 * A BLE activity (coex=ble_scan/ble_adv) needs the Bluetooth controller and a
 * host stack in the image (CONFIG_BT_ENABLED); this image has neither, so it
 * is refused. */
#include <stdio.h>
#include <string.h>

#include "esp_err.h"
#include "esp_wifi.h"
#include "sdkconfig.h"
#include "soc/soc_caps.h"

#include "fw.h"

#if ESP_IDF_VERSION >= ESP_IDF_VERSION_VAL(5, 4, 0) && SOC_WIFI_SUPPORT_5G
#define FW_PER_BAND 1
#else
#define FW_PER_BAND 0
#endif

static const struct {
    unsigned ebc;
    unsigned idf;
} protocols[] = {
    {EBC_PHY_11B, WIFI_PROTOCOL_11B},
    {EBC_PHY_11G, WIFI_PROTOCOL_11G},
    {EBC_PHY_11N, WIFI_PROTOCOL_11N},
#ifdef WIFI_PROTOCOL_11AX
    {EBC_PHY_11AX, WIFI_PROTOCOL_11AX},
#endif
#if ESP_IDF_VERSION >= ESP_IDF_VERSION_VAL(5, 4, 0)
    {EBC_PHY_11A, WIFI_PROTOCOL_11A},
    {EBC_PHY_11AC, WIFI_PROTOCOL_11AC},
#endif
};

static unsigned to_idf(unsigned bits)
{
    unsigned out = 0;
    for (size_t i = 0; i < sizeof protocols / sizeof protocols[0]; i++)
        if (bits & protocols[i].ebc)
            out |= protocols[i].idf;
    return out;
}

static unsigned from_idf(unsigned bits)
{
    unsigned out = 0;
    for (size_t i = 0; i < sizeof protocols / sizeof protocols[0]; i++)
        if (bits & protocols[i].idf)
            out |= protocols[i].ebc;
    return out;
}

static int failed(esp_err_t e, const char *call, char *msg, size_t n)
{
    snprintf(msg, n, "%s: %s", call, esp_err_to_name(e));
    return EBC_RADIO_FAILED;
}

static int unsupported(const char *what, char *msg, size_t n)
{
    snprintf(msg, n, "%s (this is ESP-IDF %s)", what, esp_get_idf_version());
    return EBC_RADIO_UNSUPPORTED;
}

static wifi_bandwidth_t bw_idf(int mhz) { return mhz == 40 ? FW_WIFI_BW40 : FW_WIFI_BW20; }
static int bw_mhz(wifi_bandwidth_t bw) { return bw == FW_WIFI_BW40 ? 40 : 20; }

/* Band, bandwidth and PHY set: per band from v5.4 on the 5 GHz chip, else the 2.4 GHz calls. */
static int apply_link(const ebc_radio *w, char *msg, size_t n)
{
    esp_err_t e;
#if FW_PER_BAND
    static const wifi_band_mode_t modes[] = {[EBC_BAND_2G] = WIFI_BAND_MODE_2G_ONLY,
                                             [EBC_BAND_5G] = WIFI_BAND_MODE_5G_ONLY,
                                             [EBC_BAND_AUTO] = WIFI_BAND_MODE_AUTO};
    if (w->band && (e = esp_wifi_set_band_mode(modes[w->band])) != ESP_OK)
        return failed(e, "esp_wifi_set_band_mode", msg, n);
    if (w->phy_2g || w->phy_5g) {
        wifi_protocols_t p;
        if ((e = esp_wifi_get_protocols(WIFI_IF_STA, &p)) != ESP_OK)
            return failed(e, "esp_wifi_get_protocols", msg, n);
        if (w->phy_2g)
            p.ghz_2g = (uint16_t)to_idf(w->phy_2g);
        if (w->phy_5g)
            p.ghz_5g = (uint16_t)to_idf(w->phy_5g);
        if ((e = esp_wifi_set_protocols(WIFI_IF_STA, &p)) != ESP_OK)
            return failed(e, "esp_wifi_set_protocols", msg, n);
    }
    if (w->bw_2g || w->bw_5g) {
        wifi_bandwidths_t b;
        if ((e = esp_wifi_get_bandwidths(WIFI_IF_STA, &b)) != ESP_OK)
            return failed(e, "esp_wifi_get_bandwidths", msg, n);
        if (w->bw_2g)
            b.ghz_2g = bw_idf(w->bw_2g);
        if (w->bw_5g)
            b.ghz_5g = bw_idf(w->bw_5g);
        if ((e = esp_wifi_set_bandwidths(WIFI_IF_STA, &b)) != ESP_OK)
            return failed(e, "esp_wifi_set_bandwidths", msg, n);
    }
#else
    if (w->band > EBC_BAND_2G || w->bw_5g || w->phy_5g)
        return unsupported("5 GHz settings: esp_wifi_set_band_mode/_bandwidths/_protocols first in ESP-IDF v5.4",
                           msg, n);
    /* ESP-IDF sets the protocol before the bandwidth: HT40 needs 11n set first. */
    if (w->phy_2g && (e = esp_wifi_set_protocol(WIFI_IF_STA, (uint8_t)to_idf(w->phy_2g))) != ESP_OK)
        return failed(e, "esp_wifi_set_protocol", msg, n);
    if (w->bw_2g && (e = esp_wifi_set_bandwidth(WIFI_IF_STA, bw_idf(w->bw_2g))) != ESP_OK)
        return failed(e, "esp_wifi_set_bandwidth", msg, n);
#endif
    return EBC_RADIO_OK;
}

static int apply_rest(const ebc_radio *w, char *msg, size_t n)
{
    esp_err_t e;
    static const wifi_ps_type_t ps[] = {[EBC_PS_NONE] = WIFI_PS_NONE, [EBC_PS_MIN_MODEM] = WIFI_PS_MIN_MODEM,
                                        [EBC_PS_MAX_MODEM] = WIFI_PS_MAX_MODEM};
    if (w->ps && (e = esp_wifi_set_ps(ps[w->ps])) != ESP_OK)
        return failed(e, "esp_wifi_set_ps", msg, n);
    if (w->tx_power_q && (e = esp_wifi_set_max_tx_power((int8_t)w->tx_power_q)) != ESP_OK)
        return failed(e, "esp_wifi_set_max_tx_power", msg, n);
    if (w->coex > EBC_COEX_NONE)
        return unsupported("coex: a BLE activity needs the Bluetooth controller and a host stack in the image "
                           "(CONFIG_BT_ENABLED); the espbench image has none",
                           msg, n);
    return EBC_RADIO_OK;
}

/* What the board runs now, from the getters. */
static int read_now(ebc_radio *now, char *msg, size_t n)
{
    esp_err_t e;
    memset(now, 0, sizeof *now);
#if FW_PER_BAND
    wifi_band_mode_t m;
    if ((e = esp_wifi_get_band_mode(&m)) != ESP_OK)
        return failed(e, "esp_wifi_get_band_mode", msg, n);
    now->band = m == WIFI_BAND_MODE_5G_ONLY ? EBC_BAND_5G : m == WIFI_BAND_MODE_AUTO ? EBC_BAND_AUTO : EBC_BAND_2G;
    wifi_protocols_t p;
    wifi_bandwidths_t b;
    if ((e = esp_wifi_get_protocols(WIFI_IF_STA, &p)) != ESP_OK)
        return failed(e, "esp_wifi_get_protocols", msg, n);
    if ((e = esp_wifi_get_bandwidths(WIFI_IF_STA, &b)) != ESP_OK)
        return failed(e, "esp_wifi_get_bandwidths", msg, n);
    now->phy_2g = from_idf(p.ghz_2g);
    now->phy_5g = from_idf(p.ghz_5g);
    now->bw_2g = bw_mhz(b.ghz_2g);
    now->bw_5g = bw_mhz(b.ghz_5g);
#else
    now->band = EBC_BAND_2G;
    uint8_t p;
    wifi_bandwidth_t b;
    if ((e = esp_wifi_get_protocol(WIFI_IF_STA, &p)) != ESP_OK)
        return failed(e, "esp_wifi_get_protocol", msg, n);
    if ((e = esp_wifi_get_bandwidth(WIFI_IF_STA, &b)) != ESP_OK)
        return failed(e, "esp_wifi_get_bandwidth", msg, n);
    now->phy_2g = from_idf(p);
    now->bw_2g = bw_mhz(b);
#endif
    wifi_ps_type_t ps;
    if ((e = esp_wifi_get_ps(&ps)) != ESP_OK)
        return failed(e, "esp_wifi_get_ps", msg, n);
    now->ps = ps == WIFI_PS_MAX_MODEM ? EBC_PS_MAX_MODEM : ps == WIFI_PS_MIN_MODEM ? EBC_PS_MIN_MODEM : EBC_PS_NONE;
    int8_t q;
    if ((e = esp_wifi_get_max_tx_power(&q)) != ESP_OK)
        return failed(e, "esp_wifi_get_max_tx_power", msg, n);
    now->tx_power_q = q;
    now->coex = EBC_COEX_NONE;
    return EBC_RADIO_OK;
}

int fw_radio_apply(void *ctx, const ebc_radio *want, ebc_radio *now, char *msg, size_t msg_len)
{
    (void)ctx;
    int rc = apply_link(want, msg, msg_len);
    if (rc == EBC_RADIO_OK)
        rc = apply_rest(want, msg, msg_len);
    if (rc != EBC_RADIO_OK)
        return rc;
    rc = read_now(now, msg, msg_len);
    /* The listen interval is not readable before it is used: report the requested one. */
    if (rc == EBC_RADIO_OK && now->ps == EBC_PS_MAX_MODEM)
        now->listen_interval = want->listen_interval ? want->listen_interval : fw_wifi_listen_interval();
    return rc;
}
