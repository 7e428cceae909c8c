/* The virtual board's radio models (docs/dimensions.md): what the board's
 * radio settings do to a figure and to a round trip. Models, labelled as
 * such in results (figure_source "model ..."), each with its source or its
 * stated assumption. Pure. */
#ifndef ESPBENCH_RADIO_MODEL_H
#define ESPBENCH_RADIO_MODEL_H

#include <stdbool.h>

#define EB_BEACON_INTERVAL_MS 102.4 /* 100 TU of 1.024 ms: the usual AP beacon interval */
#define EB_DTIM_PERIOD 1            /* an AP whose every beacon is a DTIM (hostapd.conf dtim_period; its default is 2) */
#define EB_LISTEN_INTERVAL_DEFAULT 3 /* ESP-IDF's wifi_sta_config_t.listen_interval when 0 */

enum eb_radio_ps { EB_RADIO_PS_NONE, EB_RADIO_PS_MIN_MODEM, EB_RADIO_PS_MAX_MODEM };
enum eb_radio_coex { EB_RADIO_COEX_NONE, EB_RADIO_COEX_BLE_SCAN, EB_RADIO_COEX_BLE_ADV };

/* The mode a station negotiates with the settings it runs: "11n" HT20/HT40,
 * "11ax" (HE20: Espressif's Wi-Fi 6 chips are 20 MHz-only in 11ax, so 40
 * MHz is HT40 11n), "11g", "11b"; from the top protocol enabled. */
const char *eb_radio_mode(bool b, bool g, bool n, bool ax, int bw_mhz);

/* The share of air time Wi-Fi keeps while a BLE activity runs (1 none):
 * a scan at the gatt_client example's parameters (50 ms interval, 30 ms
 * window: 60 % duty) fills BLE's time slice, and ESP-IDF's coexistence
 * scheme gives Wi-Fi and BLE half of a coexistence period each (coexist.rst,
 * "Coexistence Period and Time Slice") -> 0.5; advertising every 20-40 ms
 * (gatt_server's adv_int_min/max) takes ~1.5 ms per event on three
 * channels (assumption: the events' own air time) -> 0.95. */
double eb_radio_coex_share(int coex);

/* Modem sleep: how long a frame for the idle station waits at time t_ms
 * (any clock; beacons at multiples of the period) for the beacon the
 * station wakes for: every DTIM beacon with min_modem, every listen
 * interval with max_modem (ESP-IDF "Wi-Fi Performance and Power Save",
 * "Station Sleep": the receive delay may be the DTIM cycle or the listen
 * interval); 0 without power save. */
double eb_radio_ps_wait_ms(int ps, int listen_interval, double t_ms);
/* Its mean over time (half the wake period). */
double eb_radio_ps_mean_wait_ms(int ps, int listen_interval);

/* Whether a result at this key (provenance radio_*) has a modelled figure
 * on the virtual board whatever the tier: an explicit PHY set, HT40 or a
 * BLE activity (vb_radio.c); 5 GHz keeps the docs' figure where it has one. */
struct eb_provenance;
bool eb_radio_modelled(const struct eb_provenance *key);

#endif
