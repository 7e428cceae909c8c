/* Wi-Fi glue: a tier is applied by esp_wifi_stop/deinit and esp_wifi_init with
 * the tier's wifi_init_config_t fields (the runtime part of a tier). */
#include <string.h>

#include "esp_netif.h"
#include "esp_wifi.h"
#include "freertos/FreeRTOS.h"
#include "freertos/event_groups.h"

#include "fw.h"

#define CONNECTED_BIT BIT0
#define FAILED_BIT BIT1
#define CONNECT_TIMEOUT_MS 15000
#define LEAVE_TIMEOUT_MS 2000
#define SCAN_MAX 32

static ebc_core *s_core;
static esp_netif_t *s_sta;
static EventGroupHandle_t s_events;
static volatile int s_reason;
static volatile bool s_connecting, s_connected, s_associated;
static esp_netif_ip_info_t s_ip;

static void on_event(void *arg, esp_event_base_t base, int32_t id, void *data)
{
    (void)arg;
    if (base == WIFI_EVENT && id == WIFI_EVENT_STA_DISCONNECTED) {
        const wifi_event_sta_disconnected_t *d = data;
        s_reason = d->reason;
        bool was_connected = s_connected;
        s_connected = false;
        s_associated = false;
        xEventGroupSetBits(s_events, FAILED_BIT);
        /* A drop outside a connect attempt is news for the host. */
        if (was_connected && !s_connecting)
            ebc_event_wifi_disconnected(s_core, d->reason);
    } else if (base == WIFI_EVENT && id == WIFI_EVENT_STA_CONNECTED) {
        s_associated = true;
    } else if (base == IP_EVENT && id == IP_EVENT_STA_GOT_IP) {
        const ip_event_got_ip_t *e = data;
        s_ip = e->ip_info;
        s_connected = true;
        xEventGroupSetBits(s_events, CONNECTED_BIT);
    }
}

void fw_net_setup(ebc_core *core)
{
    s_core = core;
    s_events = xEventGroupCreate();
    s_sta = esp_netif_create_default_wifi_sta();
    ESP_ERROR_CHECK(esp_event_handler_register(WIFI_EVENT, ESP_EVENT_ANY_ID, on_event, NULL));
    ESP_ERROR_CHECK(esp_event_handler_register(IP_EVENT, IP_EVENT_STA_GOT_IP, on_event, NULL));
}

int fw_wifi_deinit(void *ctx)
{
    (void)ctx;
    s_connected = false;
    s_associated = false;
    esp_wifi_disconnect();
    esp_err_t e = esp_wifi_stop();
    if (e != ESP_OK && e != ESP_ERR_WIFI_NOT_INIT)
        return e;
    e = esp_wifi_deinit();
    return e == ESP_ERR_WIFI_NOT_INIT ? ESP_OK : e;
}

/* Once esp_wifi_init has succeeded, any later failure stops and deinits again:
 * the core restores the previous tier by calling this function with the old
 * fields, and esp_wifi_init on an initialised driver returns ESP_OK at once
 * (ESP-IDF v5.4 components/esp_wifi/src/wifi_init.c: "if (s_wifi_inited)
 * return ESP_OK"), which would leave the new tier's buffers in place while the
 * core reports the old ones. */
int fw_wifi_init(void *ctx, const ebc_wifi_cfg *c)
{
    (void)ctx;
    wifi_init_config_t cfg = WIFI_INIT_CONFIG_DEFAULT();
    cfg.static_rx_buf_num = c->static_rx_buf_num;
    cfg.dynamic_rx_buf_num = c->dynamic_rx_buf_num;
    cfg.tx_buf_type = c->tx_buf_type;
    cfg.static_tx_buf_num = c->static_tx_buf_num;
    cfg.dynamic_tx_buf_num = c->dynamic_tx_buf_num;
    cfg.ampdu_rx_enable = c->ampdu_rx_enable;
    cfg.rx_ba_win = c->ampdu_rx_enable ? c->rx_ba_win : 0;
    esp_err_t e = esp_wifi_init(&cfg);
    if (e != ESP_OK)
        return e;
    e = esp_wifi_set_storage(WIFI_STORAGE_RAM);
    if (e == ESP_OK)
        e = esp_wifi_set_mode(WIFI_MODE_STA);
    if (e == ESP_OK)
        e = esp_wifi_start();
    if (e == ESP_OK)
        e = esp_wifi_set_ps(WIFI_PS_NONE); /* throughput figures are measured without power save */
    if (e != ESP_OK) {
        esp_wifi_stop(); /* may not have started: its result does not matter here */
        esp_wifi_deinit();
    }
    return e;
}

/* esp_wifi_connect on a station that is still associated first leaves the AP,
 * and that STA_DISCONNECTED (reason 8, ASSOC_LEAVE) would end the wait in
 * fw_wifi_connect as a failed connect; esp_wifi_set_config also refuses
 * (ESP_ERR_WIFI_STATE) while a connect is in progress. ESP-IDF's esp_wifi.h
 * (esp_wifi_connect, attention 2) says to call esp_wifi_disconnect first, so we
 * do, and wait (bounded) for the event it causes before the new attempt. With
 * attempt_pending, an attempt still running is cancelled the same way. The
 * caller sets s_connecting, so this leave is not reported to the host as a drop. */
static void leave_current_ap(bool attempt_pending)
{
    if (!attempt_pending && !s_associated && !s_connected)
        return;
    xEventGroupClearBits(s_events, FAILED_BIT);
    if (esp_wifi_disconnect() == ESP_OK)
        xEventGroupWaitBits(s_events, FAILED_BIT, pdTRUE, pdFALSE, pdMS_TO_TICKS(LEAVE_TIMEOUT_MS));
    s_associated = false;
    s_connected = false;
}

int fw_wifi_listen_interval(void)
{
    /* wifi_sta_config_t.listen_interval: "Defaults to 3 if set to 0" (esp_wifi_types). */
    return s_core->radio.listen_interval ? s_core->radio.listen_interval : 3;
}

int fw_wifi_connect(void *ctx, const char *ssid, const char *pass, ebc_ip_info *ip, int *reason)
{
    (void)ctx;
    s_connecting = true;
    leave_current_ap(false);
    wifi_config_t wc = {0};
    strlcpy((char *)wc.sta.ssid, ssid, sizeof wc.sta.ssid);
    strlcpy((char *)wc.sta.password, pass ? pass : "", sizeof wc.sta.password);
    wc.sta.threshold.authmode = (pass && *pass) ? WIFI_AUTH_WPA2_PSK : WIFI_AUTH_OPEN;
    wc.sta.listen_interval = (uint16_t)s_core->radio.listen_interval; /* radio_set; 0 = ESP-IDF's 3 */
    esp_err_t e = esp_wifi_set_config(WIFI_IF_STA, &wc);
    /* The config copy on the stack holds the password: clear it. */
    memset(&wc, 0, sizeof wc);
    if (e != ESP_OK) {
        s_connecting = false;
        *reason = 0;
        return e;
    }
    xEventGroupClearBits(s_events, CONNECTED_BIT | FAILED_BIT);
    s_reason = 0;
    e = esp_wifi_connect();
    EventBits_t bits = e == ESP_OK ? xEventGroupWaitBits(s_events, CONNECTED_BIT | FAILED_BIT, pdTRUE, pdFALSE,
                                                         pdMS_TO_TICKS(CONNECT_TIMEOUT_MS))
                                   : 0;
    if (bits & CONNECTED_BIT) {
        s_connecting = false;
        snprintf(ip->ip, sizeof ip->ip, IPSTR, IP2STR(&s_ip.ip));
        snprintf(ip->mask, sizeof ip->mask, IPSTR, IP2STR(&s_ip.netmask));
        snprintf(ip->gw, sizeof ip->gw, IPSTR, IP2STR(&s_ip.gw));
        return 0;
    }
    /* Keep the failure's reason: leaving (associated but no address yet, or an
     * attempt still running at the deadline) adds a reason 8 of our own. */
    int failed = s_reason ? s_reason : EBC_REASON_HANDSHAKE_TIMEOUT;
    leave_current_ap(e == ESP_OK && !(bits & FAILED_BIT));
    s_connecting = false;
    *reason = failed;
    return -1;
}

int fw_wifi_scan(void *ctx, const char *ssid, ebc_scan_ap *aps, int max, int *n)
{
    (void)ctx;
    wifi_scan_config_t sc = {.ssid = (uint8_t *)ssid, .show_hidden = false};
    esp_err_t e = esp_wifi_scan_start(&sc, true);
    if (e != ESP_OK)
        return e;
    static wifi_ap_record_t recs[SCAN_MAX];
    uint16_t count = SCAN_MAX;
    e = esp_wifi_scan_get_ap_records(&count, recs);
    if (e != ESP_OK)
        return e;
    int k = 0;
    for (int i = 0; i < count && k < max; i++, k++) {
        strlcpy(aps[k].ssid, (const char *)recs[i].ssid, sizeof aps[k].ssid);
        aps[k].rssi = recs[i].rssi;
        aps[k].channel = recs[i].primary;
    }
    *n = k;
    return 0;
}

unsigned long fw_net_ip4(void) { return s_connected ? s_ip.ip.addr : 0; }
