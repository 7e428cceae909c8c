/* Wi-Fi emulation: see vb_wifi.h. */
#include "espbench/base/str.h"
#include "vb_wifi.h"

#include <stdio.h>
#include <string.h>

/* A channel per SSID, stable across runs (1..11). */
static int channel_of(const char *ssid)
{
    unsigned h = 5381;
    for (const unsigned char *p = (const unsigned char *)ssid; *p; p++)
        h = h * 33 + *p;
    return (int)(h % 11) + 1;
}

int vb_board_ap_rssi(const vb_board *b, int i)
{
    int cdb = __atomic_load_n(&b->atten_cdb, __ATOMIC_RELAXED);
    return cdb < 0 ? b->aps[i].rssi : b->aps[i].rssi - (cdb + 50) / 100;
}

static void entry_of(const vb_board *b, int i, vb_wifi_scan_entry *e)
{
    eb_strlcpy(e->ssid, b->aps[i].ssid, sizeof e->ssid);
    e->rssi = vb_board_ap_rssi(b, i);
    e->channel = channel_of(b->aps[i].ssid);
    snprintf(e->bssid, sizeof e->bssid, "02:eb:00:00:00:%02x", (unsigned)(i + 1) & 0xffu);
}

int vb_wifi_scan(const vb_board *b, const char *ssid, vb_wifi_scan_entry *out, int max)
{
    int n = 0;
    for (int i = 0; i < b->n_aps && n < max; i++) {
        if ((ssid && *ssid && strcmp(ssid, b->aps[i].ssid) != 0) || vb_board_ap_rssi(b, i) < VB_BEACON_SENS_DBM)
            continue;
        entry_of(b, i, &out[n++]);
    }
    /* Strongest first, as the ESP-IDF scan list is sorted. */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && out[j].rssi > out[j - 1].rssi; j--) {
            vb_wifi_scan_entry t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

int vb_wifi_connect(const vb_board *b, const char *ssid, const char *pass, int wrong_pass_reason, vb_wifi_scan_entry *found)
{
    for (int i = 0; i < b->n_aps; i++) {
        if (strcmp(ssid, b->aps[i].ssid) != 0 || vb_board_ap_rssi(b, i) < VB_BEACON_SENS_DBM)
            continue;
        if (strcmp(pass ? pass : "", b->aps[i].pass) != 0)
            return wrong_pass_reason;
        if (found)
            entry_of(b, i, found);
        return 0;
    }
    return VB_REASON_NO_AP_FOUND;
}

void vb_wifi_ip_info(const vb_board *b, char ip[16], char mask[16], char gw[16])
{
    snprintf(ip, 16, "%s", b->ip[0] ? b->ip : "127.0.0.2");
    snprintf(mask, 16, "255.0.0.0");
    snprintf(gw, 16, "127.0.0.1");
}

const char *vb_wifi_reason_name(int reason)
{
    static const struct {
        int code;
        const char *name;
    } names[] = {
        {2, "AUTH_EXPIRE"},           {8, "ASSOC_LEAVE"},      {15, "4WAY_HANDSHAKE_TIMEOUT"},
        {200, "BEACON_TIMEOUT"},      {201, "NO_AP_FOUND"},    {202, "AUTH_FAIL"},
        {203, "ASSOC_FAIL"},          {204, "HANDSHAKE_TIMEOUT"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].code == reason)
            return names[i].name;
    return "UNSPECIFIED";
}
