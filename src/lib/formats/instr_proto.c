/* Lab instruments' protocols, the pure parts (instr_proto.h). */
#include "espbench/formats/instr_proto.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void eb_idf_att_command(int att, uint8_t out[5])
{
    out[0] = 0x7e, out[1] = 0x7e, out[2] = 0x10, out[3] = (uint8_t)att, out[4] = (uint8_t)(0x10 + att);
}

int eb_idf_att_answer(int att, const uint8_t *got, size_t len)
{
    const uint8_t want[6] = {0x7e, 0x7e, 0x20, (uint8_t)att, 0x00, (uint8_t)(0x20 + att)};
    size_t n = len < sizeof want ? len : sizeof want;
    if (memcmp(got, want, n))
        return -1;
    return len == sizeof want ? 1 : len < sizeof want ? 0 : -1;
}

/* text without the spaces and CR/LF around it */
static void trimmed(const char *text, char *out, size_t cap)
{
    while (*text && isspace((unsigned char)*text))
        text++;
    snprintf(out, cap, "%s", text);
    size_t n = strlen(out);
    while (n && isspace((unsigned char)out[n - 1]))
        out[--n] = 0;
}

int eb_mc_setatt_reply(const char *text)
{
    char t[16];
    trimmed(text, t, sizeof t);
    return !strcmp(t, "0") ? 0 : !strcmp(t, "1") ? 1 : !strcmp(t, "2") ? 2 : -1;
}

bool eb_mc_att_reply(const char *text, double *db)
{
    char t[32], *end;
    trimmed(text, t, sizeof t);
    if (!t[0])
        return false;
    *db = strtod(t, &end);
    return !*end && isfinite(*db) && *db >= 0;
}

double eb_mc_model_max(const char *text)
{
    char t[64];
    trimmed(text, t, sizeof t);
    const char *dash = strrchr(t, '-');
    char *end;
    double v = dash ? strtod(dash + 1, &end) : NAN;
    return dash && end != dash + 1 && v > 0 ? v : NAN;
}

void eb_mc_set_command(int ch, double db, char *out, size_t cap)
{
    if (ch > 0)
        snprintf(out, cap, "CHAN:%d:SETATT:%g", ch, db);
    else
        snprintf(out, cap, "SETATT=%g", db);
}

void eb_mc_get_command(int ch, char *out, size_t cap)
{
    if (ch > 0)
        snprintf(out, cap, "CHAN:%d:ATT?", ch);
    else
        snprintf(out, cap, "ATT?");
}

int eb_ubus_reply(const char *body, int *status, char *obj, size_t cap)
{
    if (cap)
        obj[0] = 0;
    cJSON *j = cJSON_Parse(body);
    int rc = -1;
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(j, "result"),
                *e = cJSON_GetObjectItemCaseSensitive(j, "error");
    if (cJSON_IsArray(res) && cJSON_IsNumber(cJSON_GetArrayItem(res, 0))) {
        *status = cJSON_GetArrayItem(res, 0)->valueint;
        const cJSON *o = cJSON_GetArrayItem(res, 1);
        char *txt = o ? cJSON_PrintUnformatted(o) : NULL;
        if (txt && cap)
            snprintf(obj, cap, "%s", txt);
        cJSON_free(txt);
        rc = 0;
    } else if (cJSON_IsObject(e) && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "code"))) {
        *status = cJSON_GetObjectItemCaseSensitive(e, "code")->valueint;
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
        if (cap)
            snprintf(obj, cap, "%s", cJSON_IsString(m) ? m->valuestring : "");
        rc = 1;
    }
    cJSON_Delete(j);
    return rc;
}

const char *eb_ubus_status_name(int status)
{
    /* libubus ubusmsg.h enum ubus_msg_status, in order */
    static const char *const names[] = {
        "OK",        "Invalid command", "Invalid argument", "Method not found", "Not found", "No response",
        "Permission denied", "Request timed out", "Operation not supported", "Unknown error", "Connection failed",
    };
    return status >= 0 && status < (int)(sizeof names / sizeof names[0]) ? names[status] : "unknown status";
}

/* OpenWrt's mac80211 htmode values (wireless configuration docs): HT for
 * 802.11n on 2.4 GHz, VHT on 5 GHz. */
static const struct {
    const char *band;
    int mhz;
    const char *htmode;
} htmodes[] = {
    {"2g", 20, "HT20"}, {"2g", 40, "HT40"}, {"5g", 20, "VHT20"}, {"5g", 40, "VHT40"}, {"5g", 80, "VHT80"},
    {"5g", 160, "VHT160"},
};

const char *eb_openwrt_htmode(const char *band, int mhz)
{
    for (size_t i = 0; i < sizeof htmodes / sizeof htmodes[0]; i++)
        if (!strcmp(htmodes[i].band, band && band[0] ? band : "2g") && htmodes[i].mhz == mhz)
            return htmodes[i].htmode;
    return NULL;
}

int eb_openwrt_htmode_mhz(const char *htmode)
{
    const char *p = htmode;
    while (*p && !isdigit((unsigned char)*p))
        p++;
    int v = atoi(p);
    return v == 20 || v == 40 || v == 80 || v == 160 ? v : 0;
}

int eb_tasmota_power_reply(const char *body, int outlet, char *why, size_t cap)
{
    if (cap)
        why[0] = 0;
    cJSON *j = cJSON_Parse(body);
    char key[16];
    snprintf(key, sizeof key, "POWER%d", outlet);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!v && outlet == 1)
        v = cJSON_GetObjectItemCaseSensitive(j, "POWER");
    int rc = -1;
    if (cJSON_IsString(v) && (!strcmp(v->valuestring, "ON") || !strcmp(v->valuestring, "OFF"))) {
        rc = !strcmp(v->valuestring, "ON");
    } else if (cap) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "Command"),
                    *w = cJSON_GetObjectItemCaseSensitive(j, "WARNING");
        if (cJSON_IsString(c))
            snprintf(why, cap, "Command %s", c->valuestring);
        else if (cJSON_IsString(w))
            snprintf(why, cap, "WARNING %s", w->valuestring);
    }
    cJSON_Delete(j);
    return rc;
}

void eb_hostapd_status(const char *text, eb_ap_settings *out)
{
    out->channel = 0, out->bandwidth_mhz = 0, out->band[0] = 0, out->state[0] = 0, out->on_air = false;
    int secondary = 0, vht_width = -1;
    bool have_ht = false;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        char line[128];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        char *eq = strchr(line, '=');
        if (eq) {
            *eq = 0;
            const char *v = eq + 1;
            if (!strcmp(line, "state"))
                snprintf(out->state, sizeof out->state, "%s", v);
            else if (!strcmp(line, "channel"))
                out->channel = atoi(v);
            else if (!strcmp(line, "freq") && atoi(v) > 0) /* a disabled interface has none, or 0 */
                snprintf(out->band, sizeof out->band, "%s", atoi(v) >= 5000 ? "5g" : "2g");
            else if (!strcmp(line, "secondary_channel"))
                secondary = atoi(v), have_ht = true;
            else if (!strcmp(line, "vht_oper_chwidth"))
                vht_width = atoi(v);
        }
        p += n;
        if (*p)
            p++;
    }
    out->on_air = !strcmp(out->state, "ENABLED");
    if (!out->channel)
        return; /* no channel: no width either */
    /* vht_oper_chwidth: 0 = 20/40 (from secondary_channel), 1 = 80, 2 = 160 (hostapd ieee802_11_defs.h) */
    if (vht_width == 1)
        out->bandwidth_mhz = 80;
    else if (vht_width == 2)
        out->bandwidth_mhz = 160;
    else if (have_ht)
        out->bandwidth_mhz = secondary ? 40 : 20;
}

bool eb_hostapd_state_settling(const char *state)
{
    static const char *const settling[] = {"COUNTRY_UPDATE", "ACS", "HT_SCAN", "DFS"};
    for (size_t i = 0; i < sizeof settling / sizeof settling[0]; i++)
        if (!strcmp(state, settling[i]))
            return true;
    return false;
}

/* A config value netifd gives as a string or a number. */
static bool json_num(const cJSON *v, double *out)
{
    char *end;
    if (cJSON_IsNumber(v))
        return *out = v->valuedouble, true;
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return false;
    *out = strtod(v->valuestring, &end);
    return !*end;
}

int eb_openwrt_wireless_status(const char *obj, const char *radio, eb_ap_settings *out, bool *pending)
{
    cJSON *j = cJSON_Parse(obj);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(j, radio);
    if (!cJSON_IsObject(r)) {
        cJSON_Delete(j);
        return -1;
    }
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "config");
    bool up = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "up"));
    *pending = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "pending"));
    bool disabled = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "disabled"));
    snprintf(out->state, sizeof out->state, "%s", *pending ? "pending" : disabled ? "disabled" : up ? "up" : "down");
    out->on_air = up && !*pending;
    const cJSON *band = cJSON_GetObjectItemCaseSensitive(c, "band"), *ht = cJSON_GetObjectItemCaseSensitive(c, "htmode");
    double v;
    if (cJSON_IsString(band))
        snprintf(out->band, sizeof out->band, "%s", band->valuestring);
    if (json_num(cJSON_GetObjectItemCaseSensitive(c, "channel"), &v)) /* "auto" stays 0 */
        out->channel = (int)v;
    if (cJSON_IsString(ht))
        out->bandwidth_mhz = eb_openwrt_htmode_mhz(ht->valuestring);
    if (json_num(cJSON_GetObjectItemCaseSensitive(c, "txpower"), &v))
        out->txpower_dbm = v;
    cJSON_Delete(j);
    return 0;
}

int eb_apc_outlet_state(const char *text)
{
    for (const char *p = strstr(text, "State"); p; p = strstr(p + 5, "State")) {
        const char *q = p + 5;
        while (*q == ' ')
            q++;
        if (*q++ != ':')
            continue;
        while (*q == ' ')
            q++;
        if (!strncmp(q, "ON", 2))
            return 1;
        if (!strncmp(q, "OFF", 3))
            return 0;
    }
    return -1;
}

/* "band 2g, channel 6, 40 MHz, 15 dBm": the fields want sets, as s has them. */
static void describe(const eb_ap_settings *want, const eb_ap_settings *s, char *out, size_t cap)
{
    size_t n = 0;
#define ADD(...) (n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, __VA_ARGS__))
    out[0] = 0;
    if (want->band[0])
        s->band[0] ? ADD("%sband %s", n ? ", " : "", s->band) : ADD("%sno band", n ? ", " : "");
    if (want->channel)
        ADD("%schannel %d", n ? ", " : "", s->channel);
    if (want->bandwidth_mhz)
        s->bandwidth_mhz ? ADD("%s%d MHz", n ? ", " : "", s->bandwidth_mhz) : ADD("%sno width", n ? ", " : "");
    if (isfinite(want->txpower_dbm))
        isfinite(s->txpower_dbm) ? ADD("%s%g dBm", n ? ", " : "", s->txpower_dbm)
                                 : ADD("%sno transmit power", n ? ", " : "");
#undef ADD
}

bool eb_ap_settings_match(const eb_ap_settings *want, const eb_ap_settings *got, char *why, size_t cap)
{
    bool ok = got->on_air && (!want->band[0] || !strcmp(want->band, got->band)) &&
              (!want->channel || want->channel == got->channel) &&
              (!want->bandwidth_mhz || want->bandwidth_mhz == got->bandwidth_mhz) &&
              (!isfinite(want->txpower_dbm) ||
               (isfinite(got->txpower_dbm) && fabs(want->txpower_dbm - got->txpower_dbm) < 0.5));
    if (cap)
        why[0] = 0;
    if (ok || !cap)
        return ok;
    char asked[120], reports[120];
    describe(want, want, asked, sizeof asked);
    describe(want, got, reports, sizeof reports);
    snprintf(why, cap, "asked for %s; it reports state %s%s%s", asked[0] ? asked : "its radio on the air",
             got->state[0] ? got->state : "unknown", reports[0] ? ", " : "", reports);
    return false;
}
