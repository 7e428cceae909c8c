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

void eb_hostapd_status(const char *text, int *channel, char *band, size_t band_cap, int *bw)
{
    *channel = 0, *bw = 0;
    if (band_cap)
        band[0] = 0;
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
            if (!strcmp(line, "channel"))
                *channel = atoi(v);
            else if (!strcmp(line, "freq") && band_cap)
                snprintf(band, band_cap, "%s", atoi(v) >= 5000 ? "5g" : "2g");
            else if (!strcmp(line, "secondary_channel"))
                secondary = atoi(v), have_ht = true;
            else if (!strcmp(line, "vht_oper_chwidth"))
                vht_width = atoi(v);
        }
        p += n;
        if (*p)
            p++;
    }
    /* vht_oper_chwidth: 0 = 20/40 (from secondary_channel), 1 = 80, 2 = 160 (hostapd ieee802_11_defs.h) */
    if (vht_width == 1)
        *bw = 80;
    else if (vht_width == 2)
        *bw = 160;
    else if (have_ht)
        *bw = secondary ? 40 : 20;
}
