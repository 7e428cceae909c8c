/* Wi-Fi emulation of the virtual board: access points from --ap, scan with
 * RSSI, connect with the outcomes real firmware reports (wrong password,
 * AP absent), and the station address the board gets. See docs/vboard.md
 * and docs/console-dialects.md. */
#ifndef VB_WIFI_H
#define VB_WIFI_H

#include <stdbool.h>

#include "vb_board.h"

/* ESP-IDF wifi_err_reason_t values the emulation reports. */
enum {
    VB_REASON_ASSOC_LEAVE = 8,
    VB_REASON_4WAY_HANDSHAKE_TIMEOUT = 15,
    VB_REASON_BEACON_TIMEOUT = 200,
    VB_REASON_NO_AP_FOUND = 201,
    VB_REASON_HANDSHAKE_TIMEOUT = 204,
};

typedef struct vb_wifi_scan_entry {
    char ssid[33];
    int rssi;
    int channel;
    char bssid[18];  /* "02:eb:00:00:00:01" (locally administered) */
} vb_wifi_scan_entry;

/* Emulated APs visible to a scan, strongest first; ssid NULL or "" = all.
 * Returns the number written (at most max). */
int vb_wifi_scan(const vb_board *b, const char *ssid, vb_wifi_scan_entry *out, int max);

/* Outcome of a connection attempt: 0 = associated and got an address, else the
 * disconnect reason: VB_REASON_NO_AP_FOUND (no AP with that SSID) or wrong_pass_reason (password mismatch; 15 on older firmware,
 * 204 on ESP-IDF v5.3+). found (may be NULL) receives the AP on success. */
int vb_wifi_connect(const vb_board *b, const char *ssid, const char *pass, int wrong_pass_reason, vb_wifi_scan_entry *found);

/* The station's address: the board's --ip, netmask 255.0.0.0, gateway 127.0.0.1. */
void vb_wifi_ip_info(const vb_board *b, char ip[16], char mask[16], char gw[16]);

/* ESP-IDF's name of a reason code ("NO_AP_FOUND"), "UNSPECIFIED" if unknown. */
const char *vb_wifi_reason_name(int reason);

#endif
