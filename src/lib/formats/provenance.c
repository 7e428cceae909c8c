/* Provenance of an entry: the field table, JSON text in and out, --env
 * checking, the console lines that state a fact, and report footers.
 *
 * Console facts (eb_prov_from_line) come from two kinds of firmware:
 *  - the espbench firmware's replies (docs/console-protocol.md): `version`
 *    (idf, idf_commit, iperf, iperf_ver, chip_rev, mac, flash_mhz, cpu_mhz,
 *    sdkconfig) and `tier_show` (link: band, phy, ch, bw, rssi, ps, ssid, bssid);
 *  - stock ESP-IDF iperf examples, which state far less: the Wi-Fi library's
 *    "wifi:connected with <ssid>, aid = N, channel N, BW20, bssid = <mac>" log
 *    line (channel, bandwidth, BSSID, SSID), the scan lines "[<ssid>][rssi=N]"
 *    and "+SCAN:[<mac>][<ssid>][rssi=N]...[ch=N]" (RSSI), and cmd_system's
 *    `version` ("IDF Version:v5.3", "revision number:1") and the boot log
 *    (chip revision, SPI speed, CPU clock, ESP-IDF version); see
 *    docs/results.md for which dialect gives which field. */
#include "espbench/formats/provenance.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/dims.h"
#include "espbench/formats/results.h"

#define F(k, kind, m, label) {k, kind, offsetof(eb_provenance, m), sizeof(((eb_provenance *)0)->m), label, false}
/* A field added after results were written: only where known (dims.h's radio dimensions). */
#define OPT(k, kind, m, label) {k, kind, offsetof(eb_provenance, m), sizeof(((eb_provenance *)0)->m), label, true}
static const eb_prov_field base_fields[] = {
    F("idf_version", EB_PROV_TEXT, idf_version, "ESP-IDF"),
    F("idf_commit", EB_PROV_TEXT, idf_commit, "ESP-IDF commit"),
    F("iperf_component", EB_PROV_TEXT, iperf_component, "iperf component"),
    F("iperf_version", EB_PROV_TEXT, iperf_version, "iperf component version"),
    F("chip_rev", EB_PROV_TEXT, chip_rev, "chip revision"),
    F("mac", EB_PROV_TEXT, mac, "MAC"),
    F("flash_mhz", EB_PROV_NUM, flash_mhz, "flash MHz"),
    F("cpu_mhz", EB_PROV_NUM, cpu_mhz, "CPU MHz"),
    F("band", EB_PROV_TEXT, band, "band"),
    F("phy_mode", EB_PROV_TEXT, phy_mode, "PHY mode"),
    F("channel", EB_PROV_NUM, channel, "channel"),
    F("bandwidth_mhz", EB_PROV_NUM, bandwidth_mhz, "bandwidth MHz"),
    F("rssi_before", EB_PROV_NUM, rssi_before, "RSSI before (dBm)"),
    F("rssi_after", EB_PROV_NUM, rssi_after, "RSSI after (dBm)"),
    F("power_save", EB_PROV_TEXT, power_save, "power save"),
    F("ap_ssid", EB_PROV_TEXT, ap_ssid, "AP SSID"),
    F("ap_bssid", EB_PROV_TEXT, ap_bssid, "AP BSSID"),
    F("unit_base", EB_PROV_NUM, unit_base, "board unit base (bit/s per Mbit)"),
    F("espbench_version", EB_PROV_TEXT, espbench_version, "espbench"),
    F("pc_iperf_version", EB_PROV_TEXT, pc_iperf_version, "PC iperf"),
    F("env", EB_PROV_TEXT, env, "setting"),
    F("sdkconfig", EB_PROV_TEXT, sdkconfig, "sdkconfig"),
    F("sweep_var", EB_PROV_TEXT, sweep_var, "sweep variable"),
    F("sweep_value", EB_PROV_NUM, sweep_value, "sweep value"),
    F("concurrent_boards", EB_PROV_NUM, concurrent_boards, "boards measuring at once (aggregate)"),
    F("coprocessor", EB_PROV_TEXT, coprocessor, "ESP-Hosted co-processor"),
    F("transport", EB_PROV_TEXT, transport, "ESP-Hosted transport"),
    F("transport_width", EB_PROV_NUM, transport_width, "transport data lines"),
    F("transport_clock_mhz", EB_PROV_NUM, transport_clock_mhz, "transport clock MHz"),
    F("peer_board", EB_PROV_TEXT, peer_board, "pair test: peer board"),
    F("peer_chip", EB_PROV_TEXT, peer_chip, "pair test: peer chip"),
    F("peer_tier", EB_PROV_TEXT, peer_tier, "pair test: peer tier"),
    F("peer_mac", EB_PROV_TEXT, peer_mac, "pair test: peer MAC"),
    F("peer_ip", EB_PROV_TEXT, peer_ip, "pair test: peer address"),
    F("peer_idf_version", EB_PROV_TEXT, peer_idf_version, "pair test: peer ESP-IDF"),
    F("peer_dialect", EB_PROV_TEXT, peer_dialect, "pair test: peer console dialect"),
    F("flash_loader", EB_PROV_TEXT, flash_loader, "flash loader"),
    F("attenuation_db", EB_PROV_NUM, attenuation_db, "attenuation (dB)"),
    F("instruments", EB_PROV_TEXT, instruments, "lab instruments"),
    OPT("radio_band", EB_PROV_TEXT, radio_band, "band asked for (GHz)"),
    OPT("radio_bandwidth", EB_PROV_NUM, radio_bandwidth, "bandwidth asked for (MHz)"),
    OPT("radio_phy", EB_PROV_TEXT, radio_phy, "PHY modes asked for"),
    OPT("radio_power_save", EB_PROV_TEXT, radio_power_save, "power save asked for"),
    OPT("radio_listen_interval", EB_PROV_NUM, radio_listen_interval, "listen interval (beacons)"),
    OPT("radio_coex", EB_PROV_TEXT, radio_coex, "BLE activity during the test"),
    OPT("net", EB_PROV_TEXT, net, "firmware's network (eth: no Wi-Fi)"),
    OPT("fw_sources", EB_PROV_TEXT, fw_sources, "firmware built with stand-in sources"),
    OPT("emulator", EB_PROV_TEXT, emulator, "emulator"),
    OPT("fw_sha256", EB_PROV_TEXT, fw_sha256, "firmware image (SHA-256 of the app)"),
    OPT("fw_version", EB_PROV_TEXT, fw_version, "firmware image (project, version)"),
    OPT("fw_image", EB_PROV_TEXT, fw_image, "firmware image given"),
    OPT("far_end", EB_PROV_TEXT, far_end, "far end (a host other than this PC)"),
};
#undef F

/* The table: the fields above, then the slots the dimension rows own
 * (dims.c), made once. */
#define N_BASE ((int)(sizeof base_fields / sizeof base_fields[0]))
static eb_prov_field all_fields[N_BASE + EB_PROV_DIM_SLOTS];
static int n_all_fields;
static pthread_once_t fields_once = PTHREAD_ONCE_INIT;

static void make_fields(void)
{
    memcpy(all_fields, base_fields, sizeof base_fields);
    n_all_fields = N_BASE;
    for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++) {
        const eb_dim_desc *row = eb_dim(d);
        if (row->prov_off >= EB_PROV_DIM_SLOT(0)) /* a slot (the others are fields above) */
            all_fields[n_all_fields++] = (eb_prov_field){row->key, EB_PROV_NUM, row->prov_off, sizeof(double),
                                                         row->label, true};
    }
}

static const eb_prov_field *table(void)
{
    pthread_once(&fields_once, make_fields);
    return all_fields;
}
#define fields (table())
#define N_FIELDS (pthread_once(&fields_once, make_fields), n_all_fields)

int eb_prov_n_fields(void) { return N_FIELDS; }

const eb_prov_field *eb_prov_field_get(int i) { return i >= 0 && i < N_FIELDS ? &fields[i] : NULL; }

static char *text_at(eb_provenance *p, int i) { return (char *)p + fields[i].off; }
static const char *ctext_at(const eb_provenance *p, int i) { return (const char *)p + fields[i].off; }
static double num_at(const eb_provenance *p, int i)
{
    double v;
    memcpy(&v, (const char *)p + fields[i].off, sizeof v);
    return v;
}
static void set_num(eb_provenance *p, int i, double v) { memcpy((char *)p + fields[i].off, &v, sizeof v); }

static bool known(const eb_provenance *p, int i)
{
    return fields[i].kind == EB_PROV_TEXT ? ctext_at(p, i)[0] != 0 : isfinite(num_at(p, i));
}

void eb_prov_init(eb_provenance *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < N_FIELDS; i++)
        if (fields[i].kind == EB_PROV_NUM)
            set_num(p, i, NAN);
    for (int i = 0; i < EB_PROV_DIM_SLOTS; i++)
        p->dim_value[i] = NAN;
}

/* Every number NAN, every text "" (a test checks it against the field table). */
static const eb_provenance unknown = {
    .flash_mhz = NAN, .cpu_mhz = NAN, .channel = NAN, .bandwidth_mhz = NAN, .rssi_before = NAN,
    .rssi_after = NAN, .unit_base = NAN, .sweep_value = NAN, .concurrent_boards = NAN,
    .transport_width = NAN, .transport_clock_mhz = NAN, .attenuation_db = NAN,
    .radio_bandwidth = NAN, .radio_listen_interval = NAN,
    .dim_value = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN},
};

const eb_provenance *eb_prov_unknown(void) { return &unknown; }

bool eb_prov_empty(const eb_provenance *p)
{
    for (int i = 0; i < N_FIELDS; i++)
        if (known(p, i))
            return false;
    return true;
}

void eb_prov_format(const eb_provenance *p, int i, char *out, size_t cap)
{
    if (!known(p, i))
        snprintf(out, cap, "%s", "");
    else if (fields[i].kind == EB_PROV_TEXT)
        snprintf(out, cap, "%s", ctext_at(p, i));
    else
        snprintf(out, cap, "%.6g", num_at(p, i));
}

void eb_prov_merge(eb_provenance *dst, const eb_provenance *src)
{
    for (int i = 0; i < N_FIELDS; i++) {
        if (!known(src, i))
            continue;
        if (fields[i].kind == EB_PROV_TEXT)
            snprintf(text_at(dst, i), fields[i].size, "%s", ctext_at(src, i));
        else
            set_num(dst, i, num_at(src, i));
    }
}

/* ---------------------------------------------------------------- JSON */

static void json_string(eb_buf *b, const char *s)
{
    eb_buf_append_byte(b, '"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            eb_buf_append_byte(b, '\\');
            eb_buf_append_byte(b, ch);
        } else if (ch < 0x20) {
            eb_buf_printf(b, "\\u%04x", ch);
        } else {
            eb_buf_append_byte(b, ch);
        }
    }
    eb_buf_append_byte(b, '"');
}

static void prov_json(const eb_provenance *p, eb_buf *out);

/* The all-unknown object, made once: most entries of a long parsed log know
 * nothing of their provenance, and writing it key by key was a tenth of
 * `espbench parse` (bench/ parsing). */
static eb_buf unknown_json;
static pthread_once_t unknown_json_once = PTHREAD_ONCE_INIT;
static void make_unknown_json(void) { prov_json(&unknown, &unknown_json); }

void eb_prov_to_json(const eb_provenance *p, eb_buf *out)
{
    if (p == &unknown) {
        pthread_once(&unknown_json_once, make_unknown_json);
        eb_buf_append(out, unknown_json.data, unknown_json.len);
        return;
    }
    prov_json(p, out);
}

static void prov_json(const eb_provenance *p, eb_buf *out)
{
    /* Written on every entry: plain appends, no printf for keys or whole numbers
     * (this was a fifth of `espbench parse` on long logs, bench/ parsing). */
    eb_buf_append_byte(out, '{');
    for (int i = 0; i < N_FIELDS; i++) {
        if (fields[i].optional && !known(p, i))
            continue;
        if (i)
            eb_buf_append_byte(out, ',');
        eb_buf_append_byte(out, '"');
        eb_buf_append(out, fields[i].key, strlen(fields[i].key));
        eb_buf_append(out, "\":", 2);
        if (!known(p, i)) {
            eb_buf_append(out, "null", 4);
        } else if (fields[i].kind == EB_PROV_TEXT) {
            json_string(out, ctext_at(p, i));
        } else {
            double v = num_at(p, i);
            char num[32];
            if (v == floor(v) && fabs(v) < 1e15) {
                snprintf(num, sizeof num, "%lld", (long long)v);
            } else {
                snprintf(num, sizeof num, "%.15g", v);
                if (strtod(num, NULL) != v)
                    snprintf(num, sizeof num, "%.17g", v);
            }
            eb_buf_append(out, num, strlen(num));
        }
    }
    eb_buf_append_byte(out, '}');
}

int eb_prov_from_json(const void *obj, eb_provenance *p, const char **bad_key)
{
    const cJSON *o = obj;
    for (int i = 0; i < N_FIELDS; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, fields[i].key);
        if (!v || cJSON_IsNull(v))
            continue;
        bool ok = fields[i].kind == EB_PROV_TEXT ? cJSON_IsString(v) : cJSON_IsNumber(v);
        if (!ok) {
            *bad_key = fields[i].key;
            return -1;
        }
        if (fields[i].kind == EB_PROV_TEXT)
            snprintf(text_at(p, i), fields[i].size, "%s", v->valuestring);
        else
            set_num(p, i, v->valuedouble);
    }
    return 0;
}

/* ---------------------------------------------------------------- --env */

int eb_prov_check_env(const char *s, char *why, size_t cap)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c < 0x20 || *c == 0x7f) {
            snprintf(why, cap, "control character 0x%02x at offset %d; give plain text such as shield-box, air "
                     "or cable", *c, (int)((const char *)c - s));
            return -1;
        }
    if (strlen(s) >= sizeof ((eb_provenance *)0)->env) {
        snprintf(why, cap, "longer than %d characters", (int)sizeof((eb_provenance *)0)->env - 1);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- console lines */

static int field_index(const char *key)
{
    for (int i = 0; i < N_FIELDS; i++)
        if (!strcmp(fields[i].key, key))
            return i;
    return -1;
}

/* Stores a value given as text into field i (numbers must parse fully). */
static int store(eb_provenance *p, const char *key, const char *val)
{
    int i = field_index(key);
    if (i < 0 || !*val)
        return 0;
    if (fields[i].kind == EB_PROV_TEXT) {
        snprintf(text_at(p, i), fields[i].size, "%s", val);
        return 1;
    }
    char *end;
    double v = strtod(val, &end);
    if (end == val || *end || !isfinite(v))
        return 0;
    set_num(p, i, v);
    return 1;
}

/* #EB: reply keys -> provenance fields. "rssi" goes to rssi_before or
 * rssi_after by the caller's phase. */
static const struct { const char *eb_key, *field; } eb_keys[] = {
    {"idf", "idf_version"},     {"idf_commit", "idf_commit"}, {"iperf", "iperf_component"},
    {"iperf_ver", "iperf_version"}, {"chip_rev", "chip_rev"}, {"mac", "mac"},
    {"flash_mhz", "flash_mhz"}, {"cpu_mhz", "cpu_mhz"},       {"band", "band"},
    {"phy", "phy_mode"},        {"ch", "channel"},            {"bw", "bandwidth_mhz"},
    {"ps", "power_save"},       {"ssid", "ap_ssid"},          {"bssid", "ap_bssid"},
    {"sdkconfig", "sdkconfig"}, {"net", "net"},               {"sources", "fw_sources"},
};

/* One key=value of an #EB: line; value unquoted ("a \"b\"" -> a "b"). Returns
 * the position after it, or NULL at the end. */
static const char *next_kv(const char *s, char *key, size_t kcap, char *val, size_t vcap)
{
    while (*s == ' ')
        s++;
    const char *eq = s;
    while (*eq && *eq != '=' && *eq != ' ')
        eq++;
    if (*eq != '=') {
        if (!*eq)
            return NULL;
        return eq; /* a bare word (the event name): skip it */
    }
    snprintf(key, kcap, "%.*s", (int)(eq - s), s);
    const char *v = eq + 1;
    size_t n = 0;
    if (*v == '"') {
        for (v++; *v && *v != '"'; v++) {
            if (*v == '\\' && v[1])
                v++;
            if (n + 1 < vcap)
                val[n++] = *v;
        }
        if (*v == '"')
            v++;
    } else {
        for (; *v && *v != ' ' && *v != '\r' && *v != '\n'; v++)
            if (n + 1 < vcap)
                val[n++] = *v;
    }
    val[n] = 0;
    return v;
}

static int from_eb_line(const char *eb, eb_provenance *p, bool after)
{
    /* Replies (#EB:OK) state the board's own facts; among events only the
     * boot event does (a scan event lists other APs too). */
    const char *s;
    if (!strncmp(eb, "#EB:OK", 6))
        s = eb + 6;
    else if (!strncmp(eb, "#EB:EV boot", 11))
        s = eb + 11;
    else
        return 0;
    int n = 0;
    char key[32], val[192];
    while ((s = next_kv(s, key, sizeof key, val, sizeof val))) {
        if (!strcmp(key, "rssi")) {
            n += store(p, after ? "rssi_after" : "rssi_before", val);
            continue;
        }
        for (size_t k = 0; k < sizeof eb_keys / sizeof eb_keys[0]; k++)
            if (!strcmp(key, eb_keys[k].eb_key))
                n += store(p, eb_keys[k].field, val);
    }
    return n;
}

/* "wifi:connected with SSID, aid = 1, channel 6, BW20, bssid = aa:bb:..":
 * the Wi-Fi library's log line on association (vboard stock dialects print
 * it too). BW20 = 20 MHz; 40U/40D/HT40 = 40 MHz. */
static int from_connected(const char *m, eb_provenance *p)
{
    const char *s = m + strlen("wifi:connected with ");
    const char *aid = strstr(s, ", aid = ");
    if (!aid)
        return 0;
    int n = 0;
    char ssid[sizeof p->ap_ssid];
    snprintf(ssid, sizeof ssid, "%.*s", (int)(aid - s), s);
    n += store(p, "ap_ssid", ssid);
    const char *ch = strstr(aid, ", channel ");
    if (ch) {
        int c = atoi(ch + 10);
        if (c > 0) {
            set_num(p, field_index("channel"), c);
            n++;
        }
        const char *bw = strchr(ch + 10, ',');
        if (bw) {
            bw++;
            while (*bw == ' ')
                bw++;
            double mhz = !strncmp(bw, "BW20", 4) ? 20 : (!strncmp(bw, "40", 2) || !strncmp(bw, "HT40", 4)) ? 40 : NAN;
            if (isfinite(mhz)) {
                p->bandwidth_mhz = mhz;
                n++;
            }
        }
    }
    const char *b = strstr(aid, "bssid = ");
    if (b) {
        char mac[sizeof p->ap_bssid];
        int k = 0;
        for (b += 8; (isxdigit((unsigned char)*b) || *b == ':') && k + 1 < (int)sizeof mac; b++)
            mac[k++] = *b;
        mac[k] = 0;
        n += store(p, "ap_bssid", mac);
    }
    return n;
}

/* Scan lines: "[ssid][rssi=-34]" (cmd_wifi) and "+SCAN:[mac][ssid][rssi=-34]...[ch=11]"
 * (wifi-cmd); only for the AP the board joins (p->ap_ssid must be known). */
static int from_scan(const char *m, eb_provenance *p, bool after)
{
    if (!p->ap_ssid[0])
        return 0;
    char pat[sizeof p->ap_ssid + 12];
    snprintf(pat, sizeof pat, "[%s][rssi=", p->ap_ssid);
    const char *r = strstr(m, pat);
    if (!r)
        return 0;
    char *end;
    long v = strtol(r + strlen(pat), &end, 10);
    if (end == r + strlen(pat) || *end != ']')
        return 0;
    double *dst = after ? &p->rssi_after : &p->rssi_before;
    *dst = (double)v;
    return 1;
}

/* ESP-IDF boot log lines (bootloader and cpu_start/app_init), as the vboard
 * prints them: "chip revision: v1.0", "SPI Speed      : 40MHz",
 * "cpu freq: 160000000 Hz", "ESP-IDF:          v5.3". */
static int from_boot_log(const char *line, eb_provenance *p)
{
    const char *m;
    char v[48];
    double x;
    if ((m = strstr(line, "chip revision: ")) && sscanf(m + 15, "%47s", v) == 1)
        return store(p, "chip_rev", v);
    if ((m = strstr(line, "SPI Speed")) && (m = strchr(m, ':')) && sscanf(m + 1, "%lfMHz", &x) == 1 && x > 0) {
        p->flash_mhz = x;
        return 1;
    }
    if ((m = strstr(line, "cpu freq: ")) && sscanf(m + 10, "%lf Hz", &x) == 1 && x > 0) {
        p->cpu_mhz = x / 1e6;
        return 1;
    }
    if ((m = strstr(line, "ESP-IDF:")) && sscanf(m + 8, "%47s", v) == 1)
        return store(p, "idf_version", v);
    return 0;
}

int eb_prov_from_line(const char *line, eb_provenance *p, bool after_test)
{
    const char *eb = strstr(line, "#EB:");
    if (eb)
        return from_eb_line(eb, p, after_test);
    const char *m;
    if ((m = strstr(line, "wifi:connected with ")))
        return from_connected(m, p);
    if (strstr(line, "][rssi="))
        return from_scan(line, p, after_test);
    if ((m = strstr(line, "IDF Version:"))) {
        char v[48];
        if (sscanf(m + 12, "%47s", v) == 1)
            return store(p, "idf_version", v);
        return 0;
    }
    if ((m = strstr(line, "revision number:"))) {
        /* cmd_system `version` prints chip_info.revision (major*100+minor from v5.0, else the major) */
        char *end;
        long v = strtol(m + 16, &end, 10);
        if (end == m + 16)
            return 0;
        char rev[16];
        snprintf(rev, sizeof rev, "%ld", v);
        return store(p, "chip_rev", rev);
    }
    return from_boot_log(line, p);
}

/* ---------------------------------------------------------------- run tracking */

void eb_prov_track_init(eb_prov_tracker *t, const char *espbench_version, const char *pc_iperf_version,
                        const char *env)
{
    eb_prov_init(&t->seen);
    t->rssi_start = NAN;
    snprintf(t->seen.espbench_version, sizeof t->seen.espbench_version, "%s", espbench_version ? espbench_version : "");
    snprintf(t->seen.pc_iperf_version, sizeof t->seen.pc_iperf_version, "%s", pc_iperf_version ? pc_iperf_version : "");
    snprintf(t->seen.env, sizeof t->seen.env, "%s", env ? env : "");
}

void eb_prov_track_line(eb_prov_tracker *t, const char *line) { eb_prov_from_line(line, &t->seen, false); }

void eb_prov_track_test_start(eb_prov_tracker *t)
{
    if (isfinite(t->seen.rssi_before))
        t->rssi_start = t->seen.rssi_before;
    t->seen.rssi_before = NAN; /* a reading from now on is an "after" one */
}

void eb_prov_track_stamp(const eb_prov_tracker *t, double unit_base, eb_provenance *dst)
{
    eb_prov_merge(dst, &t->seen);
    dst->rssi_before = t->rssi_start;
    dst->rssi_after = t->seen.rssi_before;
    dst->unit_base = unit_base > 0 ? unit_base : NAN;
}

/* ---------------------------------------------------------------- footer */

int eb_prov_footer(const eb_results *r, void (*item)(void *ctx, const char *label, const char *value), void *ctx)
{
    int items = 0;
    for (int i = 0; i < N_FIELDS; i++) {
        char first[192] = "", all[320] = "", v[192];
        int distinct = 0;
        for (int e = 0; e < r->n_entries; e++) {
            eb_prov_format(eb_entry_prov(&r->entries[e]), i, v, sizeof v);
            if (!v[0])
                continue;
            if (distinct == 0) {
                snprintf(first, sizeof first, "%s", v);
                snprintf(all, sizeof all, "%s", v);
                distinct = 1;
                continue;
            }
            /* a value not seen yet? ("all" holds the distinct values, ", "-separated) */
            bool seen = false;
            for (const char *s = all; *s && !seen;) {
                const char *c = strstr(s, ", ");
                size_t len = c ? (size_t)(c - s) : strlen(s);
                seen = len == strlen(v) && !strncmp(s, v, len);
                s = c ? c + 2 : s + len;
            }
            if (!seen) {
                distinct++;
                size_t l = strlen(all);
                snprintf(all + l, sizeof all - l, ", %s", v);
            }
        }
        if (!distinct)
            continue;
        char text[360];
        if (distinct == 1)
            snprintf(text, sizeof text, "%s", first);
        else
            snprintf(text, sizeof text, "varies (%d values): %s", distinct, all);
        item(ctx, fields[i].label, text);
        items++;
    }
    return items;
}
