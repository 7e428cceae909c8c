/* The byte-level parts of the lab instruments' protocols (adapters/instr_*.c
 * drive them): frames built and answers read, pure. Sources per function
 * and in docs/instruments.md. */
#ifndef ESPBENCH_INSTR_PROTO_H
#define ESPBENCH_INSTR_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An access point's radio settings; unset fields are "" / 0 / NAN. What an
 * AP reports also has its radio's state in its own words (hostapd's
 * "ENABLED", OpenWrt's "up") and whether that is a radio on the air. */
typedef struct eb_ap_settings {
    char band[8];          /* "2g", "5g" (OpenWrt's band names) */
    int channel;           /* 0 = unset */
    int bandwidth_mhz;     /* 20, 40, 80; 0 = unset */
    double txpower_dbm;    /* NAN = unset */
    char state[24];        /* reported: the radio's state, "" = not said */
    bool on_air;           /* reported: the radio serves with these settings */
} eb_ap_settings;

/* Whether got (what the AP reports) is want: on the air, with every field
 * want sets. If not, why = "asked for band 2g, channel 6; it reports state
 * DISABLED, no band, channel 0" (the fields want sets, both sides). */
bool eb_ap_settings_match(const eb_ap_settings *want, const eb_ap_settings *got, char *why, size_t cap);

/* ESP-IDF's serial attenuator (esp-idf tools/ci/python_packages/
 * idf_iperf_test_util/Attenuator.py): 9600 baud, command
 * 7E 7E 10 <att> <0x10+att>, answer 7E 7E 20 <att> 00 <0x20+att>, att 0..62 dB. */
#define EB_IDF_ATT_MAX 62
#define EB_IDF_ATT_BAUD 9600
void eb_idf_att_command(int att, uint8_t out[5]);
/* 1: got is the whole answer for att; 0: got is a proper beginning of it
 * (wait for more); -1: it is not the answer. */
int eb_idf_att_answer(int att, const uint8_t *got, size_t len);

/* Mini-Circuits programmable attenuators (RCDAT/RUDAT/RC4DAT, "Programmable
 * Attenuators Programming Manual"): SETATT=<dB> answers "0" (failed), "1"
 * (done) or "2" (above the unit's maximum: set to the maximum); ATT?
 * answers the attenuation ("12.25"); MN? answers "MN=RCDAT-6000-90".
 * Returns 0, 1, 2 or -1 when the text is none of them. */
int eb_mc_setatt_reply(const char *text);
/* "12.25" (spaces and CR/LF around ignored) into *db; false if not a number. */
bool eb_mc_att_reply(const char *text, double *db);
/* "MN=RCDAT-6000-90" -> 90 dB, the maximum in the model name; NAN if none. */
double eb_mc_model_max(const char *text);
/* The command text: "SETATT=12.25" or, for path ch of a multi-path unit,
 * "CHAN:2:SETATT:12.25"; the query "ATT?" / "CHAN:2:ATT?". */
void eb_mc_set_command(int ch, double db, char *out, size_t cap);
void eb_mc_get_command(int ch, char *out, size_t cap);

/* OpenWrt's JSON-RPC over HTTP (uhttpd-mod-ubus, /ubus; rpcd): a reply is
 * {"jsonrpc":"2.0","id":N,"result":[STATUS(,{...})]} or
 * {"jsonrpc":"2.0","id":N,"error":{"code":C,"message":"..."}}.
 * Returns 0 with *status (ubus status, 0 = OK) and the result object as JSON
 * text in obj (may be ""), 1 with *status = the JSON-RPC error code and
 * its message in obj, -1 when the body is not such a reply. */
int eb_ubus_reply(const char *body, int *status, char *obj, size_t cap);
/* "Permission denied" for ubus status 6 (libubus's enum ubus_msg_status). */
const char *eb_ubus_status_name(int status);
/* OpenWrt's htmode for a band and bandwidth ("HT20", "HT40", "VHT80");
 * NULL when the pair has none. */
const char *eb_openwrt_htmode(const char *band, int bandwidth_mhz);
/* The bandwidth an htmode gives (HT40 -> 40); 0 if unknown. */
int eb_openwrt_htmode_mhz(const char *htmode);

/* Tasmota's web command interface (/cm?cmnd=Power<N> On): the answer
 * {"POWER<N>":"ON"} (or {"POWER":"ON"} on a one-relay device). Returns 1
 * (on), 0 (off), -1 otherwise; why says what else came ("Command Unknown",
 * a WARNING). */
int eb_tasmota_power_reply(const char *body, int outlet, char *why, size_t cap);

/* hostapd's control interface (hostapd_cli's protocol, wpa_ctrl): "STATUS"
 * answers key=value lines; state (on the air when ENABLED), channel, freq
 * (-> band), secondary_channel and vht_oper_chwidth (-> bandwidth) into out
 * (the caller initialises it). Unknown keys are skipped. */
void eb_hostapd_status(const char *text, eb_ap_settings *out);
/* hostapd's states on the way to ENABLED (hostapd_state_text: COUNTRY_UPDATE,
 * ACS, HT_SCAN, DFS): the interface has not settled yet. */
bool eb_hostapd_state_settling(const char *state);

/* OpenWrt's netifd, ubus network.wireless status: {"radio0": {"up": true,
 * "pending": false, "config": {"channel": "36", "band": "5g", "htmode":
 * "VHT40", "txpower": 15, ...}, ...}} (netifd wireless.c). The radio's
 * section into out: state "up", "pending", "down" or "disabled", on the air
 * when up and not pending. *pending: netifd is still setting it up or down.
 * Returns -1 when the answer has no such radio. */
int eb_openwrt_wireless_status(const char *obj, const char *radio, eb_ap_settings *out, bool *pending);

/* An APC Switched Rack PDU's outlet menu (Control Console: "State        :
 * ON"): 1 on, 0 off, -1 when text has no State line. */
int eb_apc_outlet_state(const char *text);

#endif
