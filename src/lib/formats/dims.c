/* The dimension table (dims.h). The ranges are what the board or the model
 * accepts: the iperf -b option takes any positive rate (1..1000 Mbit/s
 * here), ESP-IDF's esp_wifi_set_max_tx_power takes 2..21 dBm (in 0.25 dBm
 * steps), the link ranges are eb_model_link_check's. */
#include "espbench/formats/dims.h"
#include "espbench/base/names.h"
#include "espbench/formats/lab.h"
#include "espbench/formats/model.h"
#include "espbench/formats/results.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool same_num(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

/* The sweep variables share one key: the variable's name and its value. */
static bool same_sweep_point(const eb_provenance *a, const eb_provenance *b)
{
    return !strcmp(a->sweep_var, b->sweep_var) && (!a->sweep_var[0] || a->sweep_value == b->sweep_value);
}

#define SWEEP EB_DIM_SWEEPS
#define LINK (EB_DIM_SWEEPS | EB_DIM_LINK)

/* ------------------------------------------------------------ the radio rows */

/* Whether list "2.4,5" holds item "5". */
static bool in_list(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && !strncmp(p, item, n))
            return true;
        p = comma ? comma + 1 : NULL;
    }
    return false;
}


/* The chip's facts (profile keys wifi_bands, ht40_bands, wifi6, ble). */
static bool band_can(const eb_chip *c, const char *v, char *why, size_t cap)
{
    if (in_list(c->wifi_bands, v))
        return true;
    snprintf(why, cap, "--band %s: %s has no %s GHz Wi-Fi (profile %s: wifi_bands \"%s\"; 5 GHz: ESP32-C5 only)", v,
             c->name, v, c->name, c->wifi_bands);
    return false;
}

static bool bw_can(const eb_chip *c, const char *v, char *why, size_t cap)
{
    if (strcmp(v, "40") || c->ht40_bands[0])
        return true;
    snprintf(why, cap, "--bandwidth 40: %s has no HT40 (profile %s: ht40_bands \"\"; 20 MHz only)", c->name,
             c->name);
    return false;
}

static bool phy_can(const eb_chip *c, const char *v, char *why, size_t cap)
{
    if (!strcmp(v, "ax") && !c->wifi6)
        snprintf(why, cap, "--phy ax: %s has no 802.11ax (profile %s: wifi6 false; 11ax: ESP32-C5, C6, C61)", c->name,
                 c->name);
    else if (!strcmp(v, "ac") && !in_list(c->wifi_bands, "5"))
        snprintf(why, cap, "--phy ac: 802.11ac is a 5 GHz mode and %s has no 5 GHz Wi-Fi", c->name);
    else
        return true;
    return false;
}

static bool coex_can(const eb_chip *c, const char *v, char *why, size_t cap)
{
    if (!strcmp(v, "none") || c->ble)
        return true;
    snprintf(why, cap, "--coex %s: %s has no Bluetooth LE (profile %s: ble false)", v, c->name, c->name);
    return false;
}

static bool any_can(const eb_chip *c, const char *v, char *why, size_t cap)
{
    (void)c, (void)v, (void)why, (void)cap;
    return true;
}

/* The protocol set up to the asked mode, per band, as radio_set's phy= and
 * phy5= take it (esp_wifi_set_protocol(s)). */
static const char *phy_set(const char *mode, bool five)
{
    static const struct {
        const char *mode, *two, *five;
    } sets[] = {{"b", "b", ""}, {"g", "b,g", ""}, {"n", "b,g,n", "a,n"}, {"ac", "", "a,n,ac"},
                {"ax", "b,g,n,ax", "a,n,ac,ax"}};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        if (!strcmp(sets[i].mode, mode))
            return five ? sets[i].five : sets[i].two;
    return "";
}

static const char *const band_names[] = {"2.4", "5", NULL};
static const char *const bw_names[] = {"20", "40", NULL};
static const char *const phy_names[] = {"", "b", "g", "n", "ac", "ax", NULL}; /* "": the chip's modes */
static const char *const ps_names[] = {"none", "min_modem", "max_modem", NULL};
static const char *const coex_names[] = {"none", "ble_scan", "ble_adv", NULL};
#define RADIO (EB_DIM_RADIO | EB_DIM_LIST)

static const eb_dim_desc dims[] = {
    [EB_DIM_UDP_RATE] = {.name = "udp-rate", .key = "udp_rate", .unit = "Mbit/s", .lo = 0.1, .hi = 1000, .flags = SWEEP, .instrument = 0,
                   .same = same_sweep_point, .values = NULL, .chip_can = NULL, .def = NAN, .tag = "udp_rate", .arg = "MBPS", .entry_off = offsetof(eb_entry, udp_rate_mbps),
                   .help = "offered UDP rate (default: udp_rx the chip's udp_rx_rate_mbps as\n"
                           "ESP-IDF's CI offers it; udp_tx 1.3 x the docs' figure, else 100)"},
    [EB_DIM_TX_POWER] = {.name = "tx-power", .key = "tx_power", .unit = "dBm", .lo = 2, .hi = 21, .flags = SWEEP, .instrument = 0,
                   .same = same_sweep_point, .values = NULL, .chip_can = NULL, .def = NAN, .tag = "tx_power"},
    [EB_DIM_RSSI] = {.name = "rssi", .key = "rssi", .unit = "dBm", .lo = -100, .hi = -10, .flags = LINK, .instrument = EB_INSTR_ATTENUATOR,
                   .same = same_sweep_point, .values = NULL, .chip_can = NULL, .def = NAN, .link_off = offsetof(eb_model_link, rssi_dbm)},
    [EB_DIM_LOSS] = {.name = "loss", .key = "loss", .unit = "%", .lo = 0, .hi = 50, .flags = LINK, .instrument = 0,
                   .same = same_sweep_point, .values = NULL, .chip_can = NULL, .def = NAN, .link_off = offsetof(eb_model_link, loss_pct)},
    [EB_DIM_RTT] = {.name = "rtt", .key = "rtt", .unit = "ms", .lo = 0, .hi = 2000, .flags = LINK, .instrument = 0,
                   .same = same_sweep_point, .values = NULL, .chip_can = NULL, .def = NAN, .link_off = offsetof(eb_model_link, rtt_ms)},
    /* 120 dB: the largest programmable attenuator range of the drivers (instrument.h) */
    [EB_DIM_ATTEN] = {.name = "attenuation", .key = "attenuation", .unit = "dB", .lo = 0, .hi = 120, .flags = SWEEP, .instrument = EB_INSTR_ATTENUATOR,
                   .same = same_sweep_point, .values = NULL, .chip_can = NULL, .def = NAN},
    /* 2.4 GHz channels 1..14, 5 GHz 36..177 (IEEE 802.11 channel numbering) */
    [EB_DIM_CHANNEL] = {.name = "channel", .key = "channel", .unit = "", .lo = 1, .hi = 177, .flags = SWEEP, .instrument = EB_INSTR_AP,
                   .same = same_sweep_point, .values = NULL, .chip_can = NULL, .def = NAN},
    [EB_DIM_BANDWIDTH] = {.name = "bandwidth", .key = "bandwidth", .unit = "MHz", .lo = 20, .hi = 160, .flags = SWEEP, .instrument = EB_INSTR_AP,
                   .same = same_sweep_point, .values = NULL, .chip_can = NULL, .def = NAN},
    [EB_DIM_TIER] = {.name = "tier", .key = "tier", .unit = "", .lo = NAN, .hi = NAN, .flags = 0, .instrument = 0,
                   .same = NULL, .values = NULL, .chip_can = NULL, .def = NAN, .arg = "LIST",
                   .compare_note = "pair tiers with --tier-map A=B",
                   .help = "tiers, comma separated or repeated; 'all' (default) = the tiers\n"
                           "without PSRAM (the docs' main table); 'psram' = the PSRAM tiers"},
    [EB_DIM_REPEAT] = {.name = "repeat", .key = "repeat", .unit = "", .lo = 0, .hi = 1000, .flags = 0, .instrument = 0,
                   .same = NULL, .values = NULL, .chip_can = NULL, .def = NAN, .arg = "N", .help = "runs of each test (default 1)",
                   .compare_note = "a cell already averages its repeats"},
    [EB_DIM_IDF] = {.name = "idf", .key = "idf_version", .unit = "", .lo = NAN, .hi = NAN, .flags = 0, .instrument = 0,
                   .same = NULL, .values = NULL, .chip_can = NULL, .def = NAN,
                   .compare_note = "compare ESP-IDF versions with --idf-base/--idf-new"},
    [EB_DIM_BAND] = {.name = "band", .key = "radio_band", .unit = "GHz", .lo = NAN, .hi = NAN, .flags = RADIO, .instrument = 0,
                   .same = NULL, .values = band_names, .chip_can = band_can, .def = NAN, .prov_off = offsetof(eb_provenance, radio_band), .prov_size = sizeof(((eb_provenance *)0)->radio_band),
                   .arg = "2.4,5", .help = "Wi-Fi band, GHz (5: ESP32-C5)"},
    [EB_DIM_RADIO_BW] = {.name = "radio-bandwidth", .key = "radio_bandwidth", .unit = "MHz", .lo = 20, .hi = 40, .flags = RADIO | EB_DIM_BAND5, .instrument = 0,
                   .same = NULL, .values = bw_names, .chip_can = bw_can, .def = NAN, .flag = "bandwidth", .prov_off = offsetof(eb_provenance, radio_bandwidth), .tag = "bw",
                   .arg = "20,40", .help = "the board's HT20/HT40"},
    [EB_DIM_PHY] = {.name = "phy", .key = "radio_phy", .unit = "", .lo = NAN, .hi = NAN, .flags = RADIO | EB_DIM_BAND5, .instrument = 0,
                   .same = NULL, .values = phy_names, .chip_can = phy_can, .def = NAN, .prov_off = offsetof(eb_provenance, radio_phy), .prov_size = sizeof(((eb_provenance *)0)->radio_phy), .spell = phy_set,
                   .arg = "b|g|n|ac|ax", .help = "the highest protocol enabled (ax: C5, C6, C61)"},
    [EB_DIM_POWER_SAVE] = {.name = "power-save", .key = "radio_power_save", .unit = "", .lo = NAN, .hi = NAN, .flags = RADIO, .instrument = 0,
                   .same = NULL, .values = ps_names, .chip_can = any_can, .def = NAN, .prov_off = offsetof(eb_provenance, radio_power_save), .prov_size = sizeof(((eb_provenance *)0)->radio_power_save), .tag = "ps",
                   .extra_off = offsetof(eb_provenance, radio_listen_interval), .extra_tag = "li", .extra_name = "listen-interval",
                   .extra_lo = 1, .extra_hi = 65535, .extra_with = "max_modem", .extra_why = "wifi_sta_config_t.listen_interval",
                   .extra_key = "radio_listen_interval", .extra_help = "beacon intervals between wake-ups with max-modem (default: ESP-IDF's 3)",
                   .arg = "none,min-modem,max-modem", .help = "modem sleep (--listen-interval N with max-modem)"},
    [EB_DIM_COEX] = {.name = "coex", .key = "radio_coex", .unit = "", .lo = NAN, .hi = NAN, .flags = RADIO, .instrument = 0,
                   .same = NULL, .values = coex_names, .chip_can = coex_can, .def = NAN, .prov_off = offsetof(eb_provenance, radio_coex), .prov_size = sizeof(((eb_provenance *)0)->radio_coex),
                   .arg = "none,ble-scan,ble-adv", .help = "a BLE activity during the test"},
    /* iperf's -l on both ends: bytes per write (TCP) or per datagram (UDP).
     * 64..65507: a datagram holds iperf2's header, and 65507 is the largest
     * UDP payload over IPv4; the espbench firmware's `iperf -l` takes
     * 1..65536 (espbench_core.c cmd_iperf), iperf-cmd's "len" any size
     * (iperf_cmd.c). No default: a run that does not ask passes none. */
    {.name = "len", .key = "iperf_len", .unit = "bytes", .lo = 64, .hi = 65507,
     .flags = EB_DIM_IPERF | EB_DIM_LIST | EB_DIM_SWEEPS, .prov_off = EB_PROV_DIM_SLOT(0), .def = NAN,
     .label = "iperf -l (bytes)", .iperf_opt = "-l", .arg = "512,1470",
     .help = "iperf's -l on both ends, bytes per write or datagram (64..65507)"},
    /* iperf's -P: parallel streams (1: the default, passed to no end).
     * iperf2 takes it; Espressif's iperf-cmd takes it for a client only
     * (since 1.0.0, iperf_cmd.c "parallel": one engine instance per stream,
     * each reporting alone), its server takes one connection, and the
     * espbench firmware's `iperf` has none: a console end refuses it. */
    {.name = "parallel", .key = "iperf_parallel", .unit = "streams", .lo = 1, .hi = 16,
     .flags = EB_DIM_IPERF | EB_DIM_LIST | EB_DIM_SWEEPS, .prov_off = EB_PROV_DIM_SLOT(1), .def = 1,
     .label = "iperf -P (streams)", .iperf_opt = "-P", .arg = "1,4",
     .help = "iperf's -P, parallel streams (1..16), where both ends' iperf has it"},
};

#define N_ROWS ((int)(sizeof dims / sizeof dims[0]))
_Static_assert(N_ROWS <= EB_DIM_MAX, "EB_DIM_MAX holds every row");

const eb_dim_desc *eb_dim(int d)
{
    return d > EB_DIM_NONE && d < N_ROWS ? &dims[d] : NULL;
}

int eb_dim_count(void) { return N_ROWS; }

const char *eb_dim_flag(const eb_dim_desc *d) { return d->flag ? d->flag : d->name; }

bool eb_dim_is_default(const eb_dim_desc *d, double v)
{
    return isfinite(d->def) && v == d->def;
}

/* "  --FLAG ARG" and its help from column 24, each further line of it
 * indented as far. */
static size_t help_line(char *out, size_t cap, const char *flag, const char *arg, const char *help)
{
    char head[64];
    snprintf(head, sizeof head, "--%s%s%s", flag, arg ? " " : "", arg ? arg : "");
    size_t n = (size_t)snprintf(out, cap, "  %-20s%s", head, strlen(head) > 20 ? "   " : "  ");
    for (const char *p = help; *p && n < cap;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        n += (size_t)snprintf(out + n, cap - n, "%.*s\n%s", (int)len, p, nl ? "                        " : "");
        p = nl ? nl + 1 : p + len;
    }
    return n < cap ? n : cap;
}

/* The sweep's variables, grouped as a run can set them. */
static size_t sweep_vars(char *out, size_t cap)
{
    static const struct {
        const char *intro;
        unsigned flags; /* EB_DIM_LINK; instrument */
        bool instrument;
    } groups[] = {{"", 0, false}, {";\nunder --sim the link: ", EB_DIM_LINK, false}, {";\nwith lab instruments: ", 0, true}};
    size_t n = 0;
    out[0] = 0;
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        bool first = true;
        for (int d = EB_DIM_NONE + 1; d < N_ROWS && n < cap; d++) {
            const eb_dim_desc *r = &dims[d];
            bool in = groups[g].instrument ? r->instrument != 0
                      : groups[g].flags          ? (r->flags & EB_DIM_LINK) != 0
                                                 : !(r->flags & EB_DIM_LINK) && !r->instrument;
            if (!(r->flags & EB_DIM_SWEEPS) || !in)
                continue;
            n += (size_t)snprintf(out + n, cap - n, "%s%s%s%s%s%s", first ? groups[g].intro : ", ", r->name,
                                  r->unit[0] ? " (" : "", r->unit, r->unit[0] ? ")" : "", "");
            first = false;
        }
    }
    return n;
}

void eb_dims_help(char *out, size_t cap)
{
    size_t n = 0;
    if (cap)
        out[0] = 0;
    for (int d = EB_DIM_NONE + 1; d < N_ROWS && n < cap; d++) {
        if (dims[d].help)
            n += help_line(out + n, cap - n, eb_dim_flag(&dims[d]), dims[d].arg, dims[d].help);
        if (dims[d].extra_help && n < cap)
            n += help_line(out + n, cap - n, dims[d].extra_name, "N", dims[d].extra_help);
    }
    char vars[400], sweep[600];
    sweep_vars(vars, sizeof vars);
    snprintf(sweep, sizeof sweep, "run the tests at each point (also VAR=V1,V2,...) of one of:\n%s", vars);
    if (n < cap)
        help_line(out + n, cap - n, "sweep", "VAR=A:B:STEP", sweep);
}

/* A number of the provenance at off. */
static double num_at(const eb_provenance *p, size_t off)
{
    double v;
    memcpy(&v, (const char *)p + off, sizeof v);
    return v;
}

/* A row that owns its value: known in p, the same in a and b, as text. */
static bool known_at(const eb_provenance *p, const eb_dim_desc *d)
{
    return d->prov_size ? ((const char *)p + d->prov_off)[0] != 0 : isfinite(num_at(p, d->prov_off));
}

static bool same_at(const eb_provenance *a, const eb_provenance *b, const eb_dim_desc *d)
{
    bool same = d->prov_size ? !strcmp((const char *)a + d->prov_off, (const char *)b + d->prov_off)
                             : same_num(num_at(a, d->prov_off), num_at(b, d->prov_off));
    return same && (!d->extra_off || same_num(num_at(a, d->extra_off), num_at(b, d->extra_off)));
}

static void text_at(const eb_provenance *p, const eb_dim_desc *d, char *out, size_t cap)
{
    if (d->prov_size)
        snprintf(out, cap, "%s", (const char *)p + d->prov_off);
    else
        snprintf(out, cap, "%g", num_at(p, d->prov_off));
}

/* Each known value of the rows that own one, in table order, as
 * SEP TAG EQ VALUE (and its companion number): labels and file names. */
static void owned_parts(const eb_provenance *p, const char *sep, const char *eq, char *out, size_t cap)
{
    size_t n = strlen(out);
    for (int d = 0; d < N_ROWS && n < cap; d++) {
        const eb_dim_desc *r = &dims[d];
        if (!r->prov_off || !known_at(p, r))
            continue;
        char v[64];
        text_at(p, r, v, sizeof v);
        n += (size_t)snprintf(out + n, cap - n, "%s%s%s%s", n ? sep : sep[0] == ' ' ? "" : sep, r->tag ? r->tag : r->name,
                              eq, v);
        if (r->extra_off && isfinite(num_at(p, r->extra_off)) && n < cap)
            n += (size_t)snprintf(out + n, cap - n, "%s%s%s%g", sep, r->extra_tag, eq, num_at(p, r->extra_off));
    }
}

int eb_dim_from_name(const char *name)
{
    for (int d = EB_DIM_NONE + 1; d < N_ROWS; d++)
        if (dims[d].name && (!strcmp(name, dims[d].name) || !strcmp(name, dims[d].key)))
            return d;
    return EB_DIM_NONE;
}

bool eb_dims_same_point(const eb_provenance *a, const eb_provenance *b)
{
    bool sweep_done = false; /* the sweep variables share their fields: compared once */
    for (int d = EB_DIM_NONE + 1; d < N_ROWS; d++) {
        if (dims[d].prov_off && !same_at(a, b, &dims[d]))
            return false;
        if (!dims[d].same || (dims[d].same == same_sweep_point && sweep_done))
            continue;
        sweep_done = sweep_done || dims[d].same == same_sweep_point;
        if (!dims[d].same(a, b))
            return false;
    }
    return true;
}

bool eb_dims_at_default(const eb_provenance *p)
{
    eb_provenance none;
    eb_prov_init(&none);
    return eb_dims_same_point(p, &none);
}

void eb_dims_point_label(const eb_provenance *p, char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = 0;
    size_t n = 0;
    if (p->sweep_var[0])
        n = (size_t)snprintf(out, cap, "%s=%g", p->sweep_var, p->sweep_value);
    if (n < cap)
        eb_radio_label(p, out + n, cap - n);
    if (n && n < cap && out[n]) /* both: "rssi=-60 band=5" */
        memmove(out + n + 1, out + n, strnlen(out + n, cap - n - 1) + 1), out[n] = ' ';
}

/* A band with figures of its own (reference_5g:) picks them; every other
 * point has the tier's one figure per test. */
double eb_tier_ref(const eb_tier *t, int test, const eb_provenance *key)
{
    if (!t || test < 0 || test >= EB_TEST_COUNT)
        return NAN;
    if (key && !strcmp(key->radio_band, "5"))
        return t->ref_5g_mbps[test] > 0 ? t->ref_5g_mbps[test] : NAN;
    return t->ref_mbps[test];
}

/* ------------------------------------------------------------ radio values */

/* Spellings the flags take besides the canonical names (and what folding
 * as names.h does gives: "min-modem", "BLE_SCAN", "HT-40"). */
static const struct {
    int dim;
    const char *alias, *name;
} aliases[] = {
    {EB_DIM_BAND, "2.4g", "2.4"}, {EB_DIM_BAND, "2g", "2.4"},       {EB_DIM_BAND, "5g", "5"},
    {EB_DIM_RADIO_BW, "ht20", "20"}, {EB_DIM_RADIO_BW, "ht40", "40"},
    {EB_DIM_PHY, "11b", "b"},  {EB_DIM_PHY, "11g", "g"}, {EB_DIM_PHY, "11n", "n"},
    {EB_DIM_PHY, "11ac", "ac"}, {EB_DIM_PHY, "11ax", "ax"},
};

static const char *radio_name(int dim, const char *v)
{
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (aliases[i].dim == dim && eb_name_same(aliases[i].alias, v))
            return aliases[i].name;
    for (const char *const *n = dims[dim].values; *n; n++)
        if (**n && eb_name_same(*n, v))
            return *n;
    return NULL;
}

/* A list the run crosses with the tiers (the radio's, an iperf option's). */
static bool radio_dim(int dim)
{
    return dim > EB_DIM_NONE && dim < N_ROWS && (dims[dim].flags & EB_DIM_LIST);
}

/* A number of a row of no names, within its range, canonical ("%g"); NULL
 * when it is not one. */
static const char *row_number(int dim, const char *tok, char *buf, size_t cap)
{
    char *end;
    double v = strtod(tok, &end);
    if (end == tok || *end || !isfinite(v) || v < dims[dim].lo || v > dims[dim].hi || v != floor(v))
        return NULL;
    snprintf(buf, cap, "%g", v);
    return buf;
}

int eb_radio_parse(eb_radio_values *rv, int dim, const char *list, eb_error *err)
{
    if (!radio_dim(dim))
        return eb_fail(err, EB_ECONFIG, "dimension %d is not a radio setting", dim);
    char names[96] = "";
    for (const char *const *n = dims[dim].values; n && *n; n++)
        if (**n)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "", *n);
    if (!dims[dim].values)
        snprintf(names, sizeof names, "whole numbers in %g..%g %s", dims[dim].lo, dims[dim].hi, dims[dim].unit);
    rv->n[dim] = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char num[16];
        const char *name = dims[dim].values ? radio_name(dim, tok) : row_number(dim, tok, num, sizeof num);
        if (!name && !dims[dim].values)
            return eb_fail(err, EB_ECONFIG, "--%s %s: '%s' is not a whole number in %g..%g %s", eb_dim_flag(&dims[dim]), list,
                           tok, dims[dim].lo, dims[dim].hi, dims[dim].unit);
        if (!name)
            return eb_fail(err, EB_ECONFIG, "--%s %s: '%s' is not one of %s", eb_dim_flag(&dims[dim]), list, tok, names);
        for (int i = 0; i < rv->n[dim]; i++)
            if (!strcmp(rv->v[dim][i], name))
                return eb_fail(err, EB_ECONFIG, "--%s %s: %s given twice", eb_dim_flag(&dims[dim]), list, name);
        if (rv->n[dim] == EB_RADIO_MAX_VALUES)
            return eb_fail(err, EB_ECONFIG, "--%s %s: at most %d values", eb_dim_flag(&dims[dim]), list, EB_RADIO_MAX_VALUES);
        /* names and in-range numbers fit a slot; the precision says so to -Wformat-truncation */
        snprintf(rv->v[dim][rv->n[dim]++], sizeof rv->v[dim][0], "%.*s", (int)sizeof rv->v[dim][0] - 1, name);
    }
    if (!rv->n[dim])
        return eb_fail(err, EB_ECONFIG, "--%s: no value (one or more of %s)", eb_dim_flag(&dims[dim]), names);
    return 0;
}

double eb_dim_value(const eb_dim_desc *d, const char *text)
{
    for (int i = 0; d->values && d->values[i]; i++)
        if (!strcmp(d->values[i], text))
            return i;
    return d->values ? NAN : atof(text);
}

void eb_dim_value_text(const eb_dim_desc *d, double v, char *out, size_t cap)
{
    int n = 0;
    while (d->values && d->values[n])
        n++;
    if (d->values)
        snprintf(out, cap, "%s", isfinite(v) && v >= 0 && v < n ? d->values[(int)v] : "");
    else
        snprintf(out, cap, "%g", v);
}

void eb_dims_key(const double *at, int swept, const int *extra, eb_provenance *key)
{
    for (int d = EB_DIM_NONE + 1; d < N_ROWS; d++) {
        const eb_dim_desc *r = &dims[d];
        double v = at[d];
        if (!isfinite(v) || (r->values ? v == 0 : eb_dim_is_default(r, v)))
            continue; /* none, or the default: the key as it was */
        if (d == swept) {
            snprintf(key->sweep_var, sizeof key->sweep_var, "%s", r->key);
            key->sweep_value = v;
        } else if (r->prov_off && r->prov_size) {
            eb_dim_value_text(r, v, (char *)key + r->prov_off, r->prov_size);
        } else if (r->prov_off) {
            memcpy((char *)key + r->prov_off, &v, sizeof v);
        }
    }
    for (int d = EB_DIM_NONE + 1; d < N_ROWS; d++) { /* the numbers that go with a value */
        const eb_dim_desc *r = &dims[d];
        char v[32] = "";
        if (r->extra_off && extra[d] > 0 && isfinite(at[d]))
            eb_dim_value_text(r, at[d], v, sizeof v);
        if (v[0] && !strcmp(v, r->extra_with))
            memcpy((char *)key + r->extra_off, &(double){extra[d]}, sizeof(double));
    }
}

bool eb_radio_chip_can(const eb_radio_values *rv, const eb_chip *c, char *why, size_t cap)
{
    for (int d = 0; d < N_ROWS; d++)
        for (int i = 0; radio_dim(d) && dims[d].chip_can && i < rv->n[d]; i++)
            if (!dims[d].chip_can(c, rv->v[d][i], why, cap))
                return false;
    bool five = false, two = rv->n[EB_DIM_BAND] == 0;
    for (int i = 0; i < rv->n[EB_DIM_BAND]; i++)
        *(strcmp(rv->v[EB_DIM_BAND][i], "5") ? &two : &five) = true;
    for (int i = 0; i < rv->n[EB_DIM_PHY]; i++) {
        const char *p = rv->v[EB_DIM_PHY][i];
        bool legacy = !strcmp(p, "b") || !strcmp(p, "g");
        bool ht40 = false;
        for (int k = 0; k < rv->n[EB_DIM_RADIO_BW]; k++)
            ht40 = ht40 || !strcmp(rv->v[EB_DIM_RADIO_BW][k], "40");
        if (legacy && ht40) {
            snprintf(why, cap, "--phy %s with --bandwidth 40: HT40 is an 802.11n mode (add n)", p);
            return false;
        }
        if ((legacy && five) || (!strcmp(p, "ac") && two)) {
            snprintf(why, cap, "--phy %s: a %s GHz mode, and the run asks for %s GHz", p, legacy ? "2.4" : "5",
                     legacy ? "5" : "2.4");
            return false;
        }
    }
    for (int d = 0; d < N_ROWS; d++) { /* a number that goes with a value the run does not ask */
        bool with = false;
        for (int i = 0; i < rv->n[d] && dims[d].extra_with; i++)
            with = with || !strcmp(rv->v[d][i], dims[d].extra_with);
        if (rv->extra[d] <= 0 || with)
            continue;
        char spelt[32];
        snprintf(spelt, sizeof spelt, "%s", dims[d].extra_with);
        for (char *ch = spelt; *ch; ch++) /* as the flag takes it: max-modem */
            *ch = *ch == '_' ? '-' : *ch;
        snprintf(why, cap, "--%s applies with --%s %s only (%s)", dims[d].extra_name, eb_dim_flag(&dims[d]), spelt,
                 dims[d].extra_why);
        return false;
    }
    return true;
}

void eb_radio_label(const eb_provenance *p, char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = 0;
    owned_parts(p, " ", "=", out, cap);
}

void eb_dims_file_tag(const eb_provenance *p, char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = 0;
    const eb_dim_desc *sw = p->sweep_var[0] ? eb_dim(eb_dim_from_name(p->sweep_var)) : NULL;
    if (sw)
        snprintf(out, cap, "-%s%g", sw->tag ? sw->tag : sw->name, p->sweep_value);
    owned_parts(p, "-", "", out, cap);
}

/* ------------------------------------------------------------ PHY ceilings */

/* The MCS rate tables, one spatial stream: IEEE Std 802.11-2020 Clause 16
 * (HR/DSSS, 11 Mbit/s), Clauses 17 and 18 (OFDM and ERP, 54 Mbit/s),
 * Clause 19 (HT MCS7, 400 ns GI: 72.2 at 20 MHz, 150 at 40 MHz), Clause 21
 * (VHT, short GI: VHT20 MCS8 86.7, VHT40 MCS9 200); IEEE Std 802.11ax-2021
 * Clause 27 (HE MCS9, 0.8 us GI: HE20 114.7, HE40 229.4). */
static const struct {
    const char *mode;
    double mbps20, mbps40;
} ceilings[] = {
    {"11b", 11, 11}, {"11g", 54, 54}, {"11a", 54, 54}, {"11n", 72.2, 150},
    {"11ac", 86.7, 200}, {"11ax", 114.7, 229.4},
};

double eb_phy_ceiling_mbps(const char *mode, double bw)
{
    for (size_t i = 0; mode && i < sizeof ceilings / sizeof ceilings[0]; i++)
        if (!strcmp(ceilings[i].mode, mode))
            return bw == 40 ? ceilings[i].mbps40 : ceilings[i].mbps20;
    return NAN;
}

/* ------------------------------------------------------ one dimension's value */

bool eb_dim_keys(int dim)
{
    const eb_dim_desc *d = eb_dim(dim);
    return d && (d->same || d->prov_off);
}

void eb_dim_copy_value(int dim, eb_provenance *dst, const eb_provenance *src)
{
    const eb_dim_desc *d = eb_dim(dim);
    if (!d)
        return;
    if (d->prov_off) {
        memcpy((char *)dst + d->prov_off, (const char *)src + d->prov_off, d->prov_size ? d->prov_size : sizeof(double));
        if (d->extra_off)
            memcpy((char *)dst + d->extra_off, (const char *)src + d->extra_off, sizeof(double));
    } else if (d->same == same_sweep_point) { /* the sweep variables share one pair of fields */
        if (!strcmp(src->sweep_var, d->key)) {
            memcpy(dst->sweep_var, src->sweep_var, sizeof dst->sweep_var);
            dst->sweep_value = src->sweep_value;
        } else if (!strcmp(dst->sweep_var, d->key)) {
            dst->sweep_var[0] = 0;
            dst->sweep_value = NAN;
        }
    }
}

void eb_dim_value_label(int dim, const eb_provenance *p, char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = 0;
    const eb_dim_desc *r = eb_dim(dim);
    if (r && r->prov_off) { /* "power-save=max_modem listen-interval=3" */
        size_t n = 0;
        char v[64];
        text_at(p, r, v, sizeof v);
        if (known_at(p, r))
            n = (size_t)snprintf(out, cap, "%s=%s", r->name, v);
        if (r->extra_off && isfinite(num_at(p, r->extra_off)) && n < cap)
            snprintf(out + n, cap - n, "%s%s=%g", n ? " " : "", r->extra_name, num_at(p, r->extra_off));
    } else {
        eb_provenance only;
        eb_prov_init(&only);
        eb_dim_copy_value(dim, &only, p);
        eb_dims_point_label(&only, out, cap);
    }
    const eb_dim_desc *d = eb_dim(dim);
    if (cap && !out[0] && d) /* at the default: a radio row names its default value */
        snprintf(out, cap, d->values && d->values[0][0] ? "%s=%s (default)" : "%s at its default", d->name,
                 d->values ? d->values[0] : "");
}
