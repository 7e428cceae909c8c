/* espbench_core: the console protocol core the firmware and the vboard share.
 * Every tier of every shipped profile is accepted; every constraint violation
 * is refused with its exact #EB:ERR line and leaves the running tier alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/base/buf.h"
#include "espbench/formats/profile.h"
#include "espbench/adapters/profile_dirs.h"
#include "espbench_core.h"

/* ------------------------------------------------------------------ fake platform */

typedef struct fake {
    eb_buf out;
    int deinits, inits, connects;
    ebc_wifi_cfg last_cfg;
    char last_pass[80];
    bool iperf_running;
    ebc_iperf_args last_iperf;
    int restarts;
    ebc_radio radio;        /* what the fake radio runs */
    int radio_calls;
    bool radio_old_idf;     /* answers band=5 as an ESP-IDF before v5.4 would */
    int fail_inits;         /* so many wifi_init calls fail from now on */
    int net_starts;
} fake;

static void f_write(void *ctx, const char *d, size_t n) { eb_buf_append(&((fake *)ctx)->out, d, n); }
static int f_deinit(void *ctx) { ((fake *)ctx)->deinits++; return 0; }
static int f_init(void *ctx, const ebc_wifi_cfg *cfg)
{
    fake *f = ctx;
    f->inits++;
    f->last_cfg = *cfg;
    if (f->fail_inits > 0) {
        f->fail_inits--;
        return -1;
    }
    return 0;
}
static int f_net_start(void *ctx) { ((fake *)ctx)->net_starts++; return 0; }
static int f_connect(void *ctx, const char *ssid, const char *pass, ebc_ip_info *ip, int *reason)
{
    fake *f = ctx;
    f->connects++;
    snprintf(f->last_pass, sizeof f->last_pass, "%s", pass);
    if (strcmp(ssid, "lab ap") != 0) {
        *reason = EBC_REASON_NO_AP_FOUND;
        return -1;
    }
    if (strcmp(pass, "p@ss \"word\"") != 0) {
        *reason = EBC_REASON_HANDSHAKE_TIMEOUT;
        return -1;
    }
    snprintf(ip->ip, sizeof ip->ip, "127.0.0.9");
    snprintf(ip->mask, sizeof ip->mask, "255.0.0.0");
    snprintf(ip->gw, sizeof ip->gw, "127.0.0.1");
    return 0;
}
static int f_scan(void *ctx, const char *ssid, ebc_scan_ap *aps, int max, int *n)
{
    (void)ctx;
    (void)max;
    *n = 0;
    if (!ssid || strcmp(ssid, "lab ap") == 0) {
        snprintf(aps[0].ssid, sizeof aps[0].ssid, "lab ap");
        aps[0].rssi = -40;
        aps[0].channel = 6;
        *n = 1;
    }
    return 0;
}
static int f_iperf_start(void *ctx, const ebc_iperf_args *a, char *msg, size_t n)
{
    fake *f = ctx;
    (void)msg;
    (void)n;
    f->last_iperf = *a;
    f->iperf_running = true;
    return 0;
}
static void f_iperf_abort(void *ctx) { ((fake *)ctx)->iperf_running = false; }
static bool f_iperf_running(void *ctx) { return ((fake *)ctx)->iperf_running; }
static void f_heap(void *ctx, ebc_heap *h)
{
    (void)ctx;
    *h = (ebc_heap){120000, 110000, 60000, 121000, 111000};
}
static void f_restart(void *ctx) { ((fake *)ctx)->restarts++; }
static int f_link(void *ctx, ebc_link *l)
{
    (void)ctx;
    *l = (ebc_link){.rssi = -47, .channel = 6, .bw_mhz = 20, .band = "2.4GHz", .phy = "11n", .ps = "none",
                    .ssid = "lab ap", .bssid = "02:eb:00:00:00:01"};
    return 0;
}

/* The radio as the firmware's glue answers: applies what is set, reads back everything. */
static int f_radio(void *ctx, const ebc_radio *want, ebc_radio *now, char *msg, size_t n)
{
    fake *f = ctx;
    f->radio_calls++;
    if (f->radio_old_idf && want->band == EBC_BAND_5G) {
        snprintf(msg, n, "band: esp_wifi_set_band_mode first in ESP-IDF v5.4 (this is v5.3.5)");
        return EBC_RADIO_UNSUPPORTED;
    }
    if (!f->radio.band)
        f->radio = (ebc_radio){.band = EBC_BAND_2G, .bw_2g = 20, .phy_2g = EBC_PHY_11B | EBC_PHY_11G | EBC_PHY_11N,
                               .ps = EBC_PS_NONE, .tx_power_q = 80, .coex = EBC_COEX_NONE};
    int *dst[] = {&f->radio.band, &f->radio.bw_2g, &f->radio.bw_5g, &f->radio.ps, &f->radio.listen_interval,
                  &f->radio.tx_power_q, &f->radio.coex};
    const int src[] = {want->band, want->bw_2g, want->bw_5g, want->ps, want->listen_interval, want->tx_power_q,
                       want->coex};
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++)
        if (src[i])
            *dst[i] = src[i];
    if (want->phy_2g)
        f->radio.phy_2g = want->phy_2g;
    if (want->phy_5g)
        f->radio.phy_5g = want->phy_5g;
    *now = f->radio;
    return EBC_RADIO_OK;
}

typedef struct env {
    fake f;
    ebc_ops ops;
    ebc_build build;
    ebc_core core;
    eb_profiles profiles;
    bool have_profiles;
} env;

static void build_esp32_like(ebc_build *b)
{
    memset(b, 0, sizeof *b);
    b->fw_version = "0.1.0";
    b->idf_version = "v5.5";
    b->chip = "esp32";
    snprintf(b->image.name, sizeof b->image.name, "iperf");
    static const struct {
        int f, v;
    } image[] = {{EBC_F_STATIC_RX, 16}, {EBC_F_DYNAMIC_RX, 64}, {EBC_F_DYNAMIC_TX, 64}, {EBC_F_RX_BA_WIN, 32},
                 {EBC_F_TCP_SND_BUF_KB, 65}, {EBC_F_TCP_WND_KB, 65}, {EBC_F_TCP_MBOX, 64},
                 {EBC_F_WIFI_IRAM_OPT, 1}};
    for (size_t i = 0; i < sizeof image / sizeof image[0]; i++) {
        b->image.set[image[i].f] = true;
        b->image.value[image[i].f] = image[i].v;
    }
}

static int setup(void **state)
{
    env *e = calloc(1, sizeof *e);
    eb_buf_init(&e->f.out);
    e->ops = (ebc_ops){&e->f, f_write, f_deinit, f_init, f_connect, f_scan, f_iperf_start, f_iperf_abort,
                       f_iperf_running, f_heap, f_restart, f_link, f_radio, NULL};
    build_esp32_like(&e->build);
    ebc_core_init(&e->core, &e->ops, &e->build);
    ebc_core_start(&e->core); /* boot: Wi-Fi up with the image tier */
    e->f.inits = 0;
    *state = e;
    return 0;
}

static int teardown(void **state)
{
    env *e = *state;
    if (e->have_profiles)
        eb_profiles_free(&e->profiles);
    eb_buf_free(&e->f.out);
    free(e);
    return 0;
}

/* Feeds a line and returns everything written for it. */
static const char *run(env *e, const char *line)
{
    eb_buf_reset(&e->f.out);
    ebc_feed_line(&e->core, line);
    return eb_buf_cstr(&e->f.out);
}

static void connect(env *e)
{
    run(e, "sta_connect \"lab ap\" -");
    assert_true(ebc_wants_secret(&e->core));
    const char *out = run(e, "p@ss \"word\"");
    assert_non_null(strstr(out, "#EB:OK ssid=\"lab ap\" ip=127.0.0.9 rssi=-47 "));
}

/* ------------------------------------------------------------------ tests */

static void test_field_table_matches_profiles(void **state)
{
    (void)state;
    assert_int_equal(EBC_F_COUNT, EB_F_COUNT);
    for (int f = 0; f < EB_F_COUNT; f++) {
        const eb_field_desc *d = eb_field_desc_get(f);
        const ebc_field_info *c = ebc_field_get(f);
        assert_non_null(d);
        assert_non_null(c);
        assert_string_equal(c->key, d->key);
        assert_int_equal(c->runtime, d->runtime);
        assert_int_equal(ebc_field_from_key(d->key), f);
        /* The core is never wider than the profile's Kconfig range. */
        assert_true(c->min >= d->min || (f == EBC_F_RX_BA_WIN && c->min == 0));
        assert_true(c->max <= d->max);
    }
    assert_null(ebc_field_get(EBC_F_COUNT));
    assert_int_equal(ebc_field_from_key("nope"), -1);
}

/* The image a chip's espbench firmware is built as: boot tier "iperf", for
 * build-time fields the largest value among the tiers (issue 7). */
static void chip_build(const eb_chip *chip, bool psram, ebc_build *b)
{
    memset(b, 0, sizeof *b);
    b->fw_version = "0.1.0";
    b->idf_version = "v5.5";
    b->chip = chip->name;
    b->psram = psram;
    static const char *const he[] = {"esp32c5", "esp32c6", "esp32c61"};
    for (size_t i = 0; i < 3; i++)
        b->he |= strcmp(chip->name, he[i]) == 0;
    const eb_tier *boot = NULL;
    for (int i = 0; i < chip->n_tiers && !boot; i++)
        if (chip->tiers[i].psram == psram)
            boot = &chip->tiers[i];
    assert_non_null(boot);
    snprintf(b->image.name, sizeof b->image.name, "%s", boot->name);
    for (int f = 0; f < EBC_F_COUNT; f++) {
        if (ebc_field_get(f)->runtime) {
            b->image.set[f] = boot->set[f];
            b->image.value[f] = boot->value[f];
            continue;
        }
        for (int i = 0; i < chip->n_tiers; i++) {
            const eb_tier *t = &chip->tiers[i];
            if (t->psram != psram || !t->set[f])
                continue;
            if (!b->image.set[f] || t->value[f] > b->image.value[f])
                b->image.value[f] = t->value[f];
            b->image.set[f] = true;
        }
    }
}

/* tier_set exactly as the host driver sends it: name + the runtime fields. */
static void tier_set_line(const eb_tier *t, char *out, size_t n)
{
    size_t k = (size_t)snprintf(out, n, "tier_set name=%s", t->name);
    for (int f = 0; f < EB_F_COUNT; f++)
        if (t->set[f] && t->runtime[f])
            k += (size_t)snprintf(out + k, n - k, " %s=%d", eb_field_desc_get(f)->key, t->value[f]);
}

static void test_every_shipped_tier_is_accepted(void **state)
{
    env *e = *state;
    eb_error err;
    assert_int_equal(eb_profiles_load_default(&e->profiles, NULL, &err), 0);
    e->have_profiles = true;
    int checked = 0;
    for (int ci = 0; ci < e->profiles.n_chips; ci++) {
        const eb_chip *chip = &e->profiles.chips[ci];
        if (strcmp(chip->name, "esp8266") == 0)
            continue; /* ESP8266_RTOS_SDK: no espbench firmware; every tier is its own image */
        for (int psram = 0; psram < 2; psram++) {
            bool any = false;
            for (int i = 0; i < chip->n_tiers; i++)
                any |= chip->tiers[i].psram == (bool)psram;
            if (!any)
                continue;
            ebc_build b;
            chip_build(chip, psram, &b);
            for (int i = 0; i < chip->n_tiers; i++) {
                const eb_tier *t = &chip->tiers[i];
                if (t->psram != (bool)psram)
                    continue;
                ebc_core_init(&e->core, &e->ops, &b);
                e->core.connected = true; /* reconnect after the switch */
                snprintf(e->core.ssid, sizeof e->core.ssid, "lab ap");
                snprintf(e->core.pass, sizeof e->core.pass, "p@ss \"word\"");
                char line[EBC_LINE_MAX];
                tier_set_line(t, line, sizeof line);
                const char *out = run(e, line);
                char want[64];
                snprintf(want, sizeof want, "#EB:OK name=%s ", t->name);
                if (!strstr(out, want))
                    fail_msg("%s %s: %s -> %s", chip->name, t->name, line, out);
                assert_non_null(strstr(out, "#EB:EV wifi.got_ip ip=127.0.0.9 mask=255.0.0.0 gw=127.0.0.1\r\n"));
                /* The applied config mirrors the tier's runtime fields. */
                const ebc_wifi_cfg *cfg = &e->f.last_cfg;
                assert_int_equal(cfg->static_rx_buf_num, t->value[EB_F_STATIC_RX]);
                if (t->set[EB_F_DYNAMIC_RX])
                    assert_int_equal(cfg->dynamic_rx_buf_num, t->value[EB_F_DYNAMIC_RX]);
                if (t->set[EB_F_STATIC_TX]) {
                    assert_int_equal(cfg->tx_buf_type, 0);
                    assert_int_equal(cfg->static_tx_buf_num, t->value[EB_F_STATIC_TX]);
                } else {
                    assert_int_equal(cfg->tx_buf_type, 1);
                    assert_int_equal(cfg->dynamic_tx_buf_num, t->value[EB_F_DYNAMIC_TX]);
                }
                int ba = t->set[EB_F_RX_BA_WIN] ? t->value[EB_F_RX_BA_WIN] : 0;
                assert_int_equal(cfg->ampdu_rx_enable, ba > 0);
                assert_int_equal(cfg->rx_ba_win, ba);
                assert_string_equal(e->core.tier.name, t->name);
                checked++;
            }
        }
    }
    assert_true(checked >= 20);
}

static void test_constraint_violations_keep_tier(void **state)
{
    env *e = *state;
    connect(e);
    static const struct {
        bool psram, he;
        const char *line, *want;
    } cases[] = {
        {false, false, "tier_set static_rx=1 dynamic_rx=64 dynamic_tx=64",
         "#EB:ERR code=RANGE msg=\"static_rx=1 outside 2..25\"\r\n"},
        {false, false, "tier_set static_rx=26",
         "#EB:ERR code=RANGE msg=\"static_rx=26 outside 2..25\"\r\n"},
        {false, true, "tier_set static_rx=129",
         "#EB:ERR code=RANGE msg=\"static_rx=129 outside 2..128\"\r\n"},
        {false, false, "tier_set dynamic_rx=129",
         "#EB:ERR code=RANGE msg=\"dynamic_rx=129 outside 0..128\"\r\n"},
        {false, false, "tier_set rx_ba_win=1",
         "#EB:ERR code=RANGE msg=\"rx_ba_win=1 outside 2..32 (0 = AMPDU RX disabled)\"\r\n"},
        {false, false, "tier_set rx_ba_win=33",
         "#EB:ERR code=RANGE msg=\"rx_ba_win=33 outside 0..32\"\r\n"},
        {false, false, "tier_set static_rx=10 dynamic_rx=64 rx_ba_win=32",
         "#EB:ERR code=CONSTRAINT msg=\"rx_ba_win=32 exceeds min(dynamic_rx=64, 2*static_rx=20)=20\"\r\n"},
        {false, false, "tier_set static_rx=16 dynamic_rx=12 rx_ba_win=16",
         "#EB:ERR code=CONSTRAINT msg=\"rx_ba_win=16 exceeds min(dynamic_rx=12, 2*static_rx=32)=12\"\r\n"},
        {false, false, "tier_set static_rx=8 dynamic_rx=0 rx_ba_win=20",
         "#EB:ERR code=CONSTRAINT msg=\"rx_ba_win=20 exceeds 2*static_rx=16\"\r\n"},
        {false, false, "tier_set dynamic_tx=20 static_tx=8",
         "#EB:ERR code=CONSTRAINT msg=\"dynamic_tx and static_tx are mutually exclusive (one TX buffer type)\"\r\n"},
        {true, false, "tier_set dynamic_tx=20",
         "#EB:ERR code=CONSTRAINT msg=\"dynamic_tx not allowed on a PSRAM build (TX buffers must be static)\"\r\n"},
        {false, false, "tier_set tcp_wnd_kb=16",
         "#EB:ERR code=BUILD_ONLY msg=\"tcp_wnd_kb=16 is build-time only; this image has 65\"\r\n"},
        {false, false, "tier_set wifi_iram_opt=0",
         "#EB:ERR code=BUILD_ONLY msg=\"wifi_iram_opt=0 is build-time only; this image has 1\"\r\n"},
        {false, false, "tier_set cpu_mhz=160",
         "#EB:ERR code=BUILD_ONLY msg=\"cpu_mhz is build-time only and not part of this image\"\r\n"},
        {false, false, "tier_set foo=1", "#EB:ERR code=UNKNOWN_FIELD msg=\"unknown field foo\"\r\n"},
        {false, false, "tier_set static_rx=abc", "#EB:ERR code=SYNTAX msg=\"static_rx=abc is not an integer\"\r\n"},
        {false, false, "tier_set static_rx", "#EB:ERR code=SYNTAX msg=\"expected key=value, got \\\"static_rx\\\"\"\r\n"},
        {false, false, "tier_set static_rx=8 static_rx=9", "#EB:ERR code=SYNTAX msg=\"field static_rx given twice\"\r\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        e->build.psram = cases[i].psram;
        e->build.he = cases[i].he;
        ebc_tier before = e->core.tier;
        int deinits = e->f.deinits, inits = e->f.inits;
        const char *out = run(e, cases[i].line);
        if (strcmp(out, cases[i].want) != 0)
            fail_msg("%s\nwant: %sgot:  %s", cases[i].line, cases[i].want, out);
        assert_memory_equal(&e->core.tier, &before, sizeof before);
        assert_int_equal(e->f.deinits, deinits);
        assert_int_equal(e->f.inits, inits);
        assert_true(e->core.connected);
    }
    e->build.psram = e->build.he = false;
    /* A running iperf blocks a switch; nothing is torn down. */
    e->f.iperf_running = true;
    assert_string_equal(run(e, "tier_set name=x static_rx=8 dynamic_rx=16 dynamic_tx=16 rx_ba_win=8"),
                        "#EB:ERR code=BUSY msg=\"iperf is running; abort it first\"\r\n");
    assert_int_equal(e->f.deinits, 0);
    e->f.iperf_running = false;
    /* A valid switch: stop/deinit, init with the tier, reconnect with the stored password. */
    const char *out = run(e, "tier_set name=x static_rx=8 static_tx=16 rx_ba_win=0");
    assert_string_equal(out, "#EB:EV wifi.connected\r\n"
                             "#EB:EV wifi.got_ip ip=127.0.0.9 mask=255.0.0.0 gw=127.0.0.1\r\n"
                             "#EB:OK name=x static_rx=8 dynamic_rx=64 static_tx=16 rx_ba_win=0 tcp_snd_buf_kb=65 "
                             "tcp_wnd_kb=65 tcp_mbox=64 wifi_iram_opt=1 rssi=-47 ch=6 bw=20 band=2.4GHz phy=11n ps=none "
                             "bssid=02:eb:00:00:00:01\r\n");
    assert_int_equal(e->f.deinits, 1);
    assert_int_equal(e->f.last_cfg.tx_buf_type, 0);
    assert_false(e->f.last_cfg.ampdu_rx_enable);
    assert_string_equal(e->f.last_pass, "p@ss \"word\"");
    assert_string_equal(run(e, "tier_show"), "#EB:OK name=x static_rx=8 dynamic_rx=64 static_tx=16 rx_ba_win=0 "
                                             "tcp_snd_buf_kb=65 tcp_wnd_kb=65 tcp_mbox=64 wifi_iram_opt=1 "
                                             "rssi=-47 ch=6 bw=20 band=2.4GHz phy=11n ps=none "
                                             "bssid=02:eb:00:00:00:01\r\n");
}

static void test_password_never_printed(void **state)
{
    env *e = *state;
    const char *out = run(e, "sta_connect \"lab ap\" -");
    assert_string_equal(out, "");
    out = run(e, "wrong-secret");
    assert_false(ebc_wants_secret(&e->core));
    assert_string_equal(out, "#EB:EV wifi.disconnected reason=204\r\n"
                             "#EB:ERR code=AUTH msg=\"authentication failed (reason 204)\"\r\n");
    out = run(e, "sta_connect nowhere");
    assert_string_equal(out, "#EB:EV wifi.disconnected reason=201\r\n"
                             "#EB:ERR code=NO_AP msg=\"AP not found: nowhere\"\r\n");
    connect(e);
    assert_null(strstr(eb_buf_cstr(&e->f.out), "p@ss"));
    /* Inline password (stock-compatible) works too and is not echoed in the reply. */
    out = run(e, "sta_connect \"lab ap\" \"p@ss \\\"word\\\"\"");
    assert_string_equal(out, "#EB:EV wifi.connected\r\n#EB:EV wifi.got_ip ip=127.0.0.9 mask=255.0.0.0 gw=127.0.0.1\r\n"
                             "#EB:OK ssid=\"lab ap\" ip=127.0.0.9 rssi=-47 ch=6 bw=20 band=2.4GHz phy=11n ps=none "
                             "bssid=02:eb:00:00:00:01\r\n");
}

static void test_commands(void **state)
{
    env *e = *state;
    assert_string_equal(run(e, ""), "");
    assert_string_equal(run(e, "   "), "");
    assert_string_equal(run(e, "version"), "#EB:OK proto=1 fw=0.1.0 idf=v5.5 chip=esp32 "
                                           "runtime=static_rx,dynamic_rx,dynamic_tx,static_tx,rx_ba_win\r\n");
    assert_string_equal(run(e, "frobnicate 1"), "#EB:ERR code=UNKNOWN_CMD msg=\"unknown command frobnicate\"\r\n");
    assert_string_equal(run(e, "sta_scan"), "#EB:EV wifi.scan ssid=\"lab ap\" rssi=-40 ch=6\r\n#EB:OK count=1\r\n");
    assert_string_equal(run(e, "sta_scan other"), "#EB:OK count=0\r\n");
    assert_string_equal(run(e, "mem"), "#EB:OK free_internal=120000 min_internal=110000 largest_internal=60000 "
                                       "free_default=121000 min_default=111000\r\n");
    assert_string_equal(run(e, "heap"), "min heap size: 111000\r\n#EB:OK min=111000\r\n");
    assert_string_equal(run(e, "free"), "121000\r\n#EB:OK free=121000\r\n");
    assert_string_equal(run(e, "iperf -s"), "#EB:ERR code=NOT_CONNECTED msg=\"sta has no IP\"\r\n");
    connect(e);
    assert_string_equal(run(e, "iperf -c 127.0.0.1 -u -b 50m -i 0.5 -t 2 -p 5002 -l 1470"),
                        "#EB:EV iperf.started role=client proto=udp\r\n#EB:OK role=client proto=udp port=5002\r\n");
    assert_true(e->f.last_iperf.bw_mbps == 50.0 && e->f.last_iperf.interval_s == 0.5 &&
                e->f.last_iperf.time_s == 2 && e->f.last_iperf.len == 1470 && e->f.last_iperf.udp);
    assert_string_equal(run(e, "iperf -s"), "#EB:ERR code=BUSY msg=\"iperf is already running\"\r\n");
    assert_string_equal(run(e, "iperf --abort"), "#EB:OK\r\n");
    assert_false(e->f.iperf_running);
    /* An engine that keeps running after the abort (espressif/iperf's server still in accept):
     * BUSY says why, until its iperf.done. */
    e->f.iperf_running = true;
    assert_string_equal(run(e, "iperf --abort"), "#EB:OK\r\n");
    e->f.iperf_running = true;
    assert_string_equal(run(e, "iperf -s"),
                        "#EB:ERR code=BUSY msg=\"iperf is already running: the aborted test ends at the next "
                        "iperf.done (a server that never had a client: when its accept or receive times out, "
                        "up to 10 s)\"\r\n");
    ebc_event_iperf_done(&e->core);
    assert_string_equal(run(e, "iperf -s"), "#EB:ERR code=BUSY msg=\"iperf is already running\"\r\n");
    e->f.iperf_running = false;
    assert_string_equal(run(e, "iperf -s -c x"),
                        "#EB:ERR code=SYNTAX msg=\"iperf needs exactly one of -s or -c <host>\"\r\n");
    assert_string_equal(run(e, "iperf -q"), "#EB:ERR code=SYNTAX msg=\"bad iperf option -q\"\r\n");
    assert_string_equal(run(e, "iperf -s -b 5x"), "#EB:ERR code=SYNTAX msg=\"bad iperf option -b\"\r\n");
    assert_string_equal(run(e, "iperf -s -t"), "#EB:ERR code=SYNTAX msg=\"iperf option -t needs a value\"\r\n");
    assert_string_equal(run(e, "restart"), "#EB:OK\r\n");
    assert_int_equal(e->f.restarts, 1);
    assert_string_equal(run(e, "sta_scan \"open"), "#EB:ERR code=SYNTAX msg=\"unterminated quote\"\r\n");
}

/* Provenance: build facts in `version`; the link (associated only) in
 * `version`, `tier_show`/`tier_set`; the RSSI after a test in `mem`. */
static void test_provenance_replies(void **state)
{
    env *e = *state;
    e->build.idf_commit = "v5.5-dirty";
    e->build.iperf_component = "espressif/iperf";
    e->build.iperf_version = "0.1.3";
    e->build.chip_rev = "v3.1";
    e->build.flash_mhz = 80;
    e->build.cpu_mhz = 240;
    e->build.sdkconfig = "freertos_hz=1000,spiram=0";
    assert_string_equal(run(e, "version"),
                        "#EB:OK proto=1 fw=0.1.0 idf=v5.5 chip=esp32 runtime=static_rx,dynamic_rx,dynamic_tx,"
                        "static_tx,rx_ba_win idf_commit=v5.5-dirty iperf=espressif/iperf iperf_ver=0.1.3 "
                        "chip_rev=v3.1 flash_mhz=80 cpu_mhz=240 sdkconfig=\"freertos_hz=1000,spiram=0\"\r\n");
    /* an image built with stand-in sources names them (the build's ESPBENCH_FW_SOURCES) */
    e->build.sources = "esp-lwip=f7922143 for fd432e4,tlsf=ba64d19 for 2867f68";
    assert_non_null(strstr(run(e, "version"), " sdkconfig=\"freertos_hz=1000,spiram=0\" "
                                              "sources=\"esp-lwip=f7922143 for fd432e4,tlsf=ba64d19 for 2867f68\"\r\n"));
    e->build.sources = NULL;
    assert_null(strstr(run(e, "tier_show"), "rssi="));
    connect(e);
    const char *link = " rssi=-47 ch=6 bw=20 band=2.4GHz phy=11n ps=none bssid=02:eb:00:00:00:01\r\n";
    const char *v = run(e, "version");
    assert_non_null(strstr(v, link));
    const char *t = run(e, "tier_show");
    assert_non_null(strstr(t, "#EB:OK name=iperf static_rx=16 "));
    assert_non_null(strstr(t, link));
    assert_string_equal(run(e, "mem"), "#EB:OK free_internal=120000 min_internal=110000 largest_internal=60000 "
                                       "free_default=121000 min_default=111000 rssi=-47\r\n");
    /* the fullest tier line still fits one console line with the link facts */
    char cmd[EBC_LINE_MAX] = "tier_set name=a-31-character-long-tier-name-x";
    for (int f = 0; f < EBC_F_COUNT; f++)
        if (ebc_field_get(f)->runtime && f != EBC_F_STATIC_TX)
            snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " %s=%d", ebc_field_get(f)->key,
                     f == EBC_F_STATIC_RX ? 10 : f == EBC_F_DYNAMIC_RX ? 32 : f == EBC_F_RX_BA_WIN ? 6 : 32);
    const char *r = run(e, cmd);
    if (!strstr(r, link))
        fail_msg("%s -> %s", cmd, r);
    ebc_parsed p;
    assert_int_equal(ebc_parse_line(strstr(r, "#EB:OK"), &p), 0);
    assert_string_equal(ebc_parsed_get(&p, "bssid"), "02:eb:00:00:00:01");
}

static void test_events(void **state)
{
    env *e = *state;
    eb_buf_reset(&e->f.out);
    ebc_event_iperf_connected(&e->core, "127.0.0.1", 43726);
    ebc_event_iperf_interval(&e->core, 0, 1, 1234567, true, 3, 850, 0.125);
    ebc_event_iperf_interval(&e->core, 1, 2, 1000, false, 0, 0, -1);
    ebc_event_iperf_summary(&e->core, 0, 10, 99999999, true, 5, 8500);
    ebc_event_iperf_error(&e->core, "Socket unable to connect: errno 111");
    ebc_event_iperf_done(&e->core);
    ebc_event_wifi_disconnected(&e->core, 8);
    assert_string_equal(eb_buf_cstr(&e->f.out),
                        "#EB:EV iperf.connected peer=127.0.0.1:43726\r\n"
                        "#EB:EV iperf.interval start=0.00 end=1.00 bytes=1234567 lost=3 total=850 jitter_ms=0.125\r\n"
                        "#EB:EV iperf.interval start=1.00 end=2.00 bytes=1000\r\n"
                        "#EB:EV iperf.summary start=0.00 end=10.00 bytes=99999999 lost=5 total=8500\r\n"
                        "#EB:EV iperf.error msg=\"Socket unable to connect: errno 111\"\r\n"
                        "#EB:EV iperf.done\r\n"
                        "#EB:EV wifi.disconnected reason=8\r\n");
    eb_buf_reset(&e->f.out);
    assert_int_equal(ebc_core_start(&e->core), 0);
    assert_string_equal(eb_buf_cstr(&e->f.out), "#EB:EV boot fw=0.1.0 idf=v5.5 chip=esp32\r\n");
    assert_int_equal(e->f.last_cfg.static_rx_buf_num, 16);
    assert_int_equal(e->f.last_cfg.rx_ba_win, 32);
}

static void test_tokenizer_and_lines(void **state)
{
    (void)state;
    char line[] = "  sta_connect  \"my \\\"lab\\\" ap\" ssid=\"a b\"\tx\\y ";
    char *argv[8];
    const char *err;
    assert_int_equal(ebc_tokenize(line, argv, 8, &err), 4);
    assert_string_equal(argv[0], "sta_connect");
    assert_string_equal(argv[1], "my \"lab\" ap");
    assert_string_equal(argv[2], "ssid=a b");
    assert_string_equal(argv[3], "x\\y");
    char many[] = "a b c";
    assert_int_equal(ebc_tokenize(many, argv, 2, &err), -1);
    assert_string_equal(err, "too many arguments");

    ebc_line l;
    ebc_line_start(&l, "#EB:OK");
    ebc_line_kv_str(&l, "a", "plain-1.2:3/4,5+6_x");
    ebc_line_kv_str(&l, "b", "two words \"q\" back\\slash");
    ebc_line_kv_str(&l, "c", "");
    ebc_line_kv_str(&l, "d", "ctl\x01");
    ebc_line_kv_int(&l, "e", -42);
    size_t n;
    const char *s = ebc_line_finish(&l, &n);
    assert_string_equal(s, "#EB:OK a=plain-1.2:3/4,5+6_x b=\"two words \\\"q\\\" back\\\\slash\" c=\"\" d=\"ctl?\" e=-42\r\n");
    assert_int_equal(n, strlen(s));

    ebc_parsed p;
    assert_int_equal(ebc_parse_line(s, &p), 0);
    assert_int_equal(p.kind, EBC_KIND_OK);
    assert_int_equal(p.n_kv, 5);
    assert_string_equal(ebc_parsed_get(&p, "b"), "two words \"q\" back\\slash");
    assert_string_equal(ebc_parsed_get(&p, "c"), "");
    assert_null(ebc_parsed_get(&p, "z"));
    assert_int_equal(ebc_parse_line("espbench> #EB:EV wifi.scan ssid=\"x y\" rssi=-40 ch=6\r\n", &p), 0);
    assert_int_equal(p.kind, EBC_KIND_EV);
    assert_string_equal(p.event, "wifi.scan");
    assert_string_equal(ebc_parsed_get(&p, "ssid"), "x y");
    assert_int_equal(ebc_parse_line("#EB:ERR code=RANGE msg=\"unterminated", &p), -1);
    assert_int_equal(ebc_parse_line("I (12) wifi: nothing", &p), -1);
    assert_int_equal(ebc_parse_line("#EB:NOPE", &p), -1);

    /* An over-long value is cut, never overflowed, and the line still ends in CRLF. */
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ebc_line_start(&l, "#EB:OK");
    ebc_line_kv_str(&l, "v", big);
    s = ebc_line_finish(&l, &n);
    assert_int_equal(n, EBC_LINE_MAX - 1);
    assert_string_equal(s + n - 2, "\r\n");
}


/* radio_set: what the chip or the values cannot do is refused before the
 * platform is called; what is set is applied and read back. */
static void test_radio_set_refusals(void **state)
{
    env *e = *state;
    static const struct {
        const char *line, *reply;
    } bad[] = {
        {"radio_set", "#EB:ERR code=SYNTAX msg=\"usage: radio_set <key>=<value>... (band bw bw5 phy phy5 ps "
                      "listen_interval tx_power coex)\""},
        {"radio_set band=5", "#EB:ERR code=UNSUPPORTED msg=\"band=5: esp32 has no 5 GHz radio\""},
        {"radio_set bw5=20", "#EB:ERR code=UNSUPPORTED msg=\"bw5=20: esp32 has no 5 GHz radio\""},
        {"radio_set phy=b,g,n,ax", "#EB:ERR code=UNSUPPORTED msg=\"phy=b,g,n,ax: esp32 has no 802.11ax\""},
        {"radio_set phy=b,ac", "#EB:ERR code=SYNTAX msg=\"phy=b,ac: a list of b, g, n, ax\""},
        {"radio_set bw=80", "#EB:ERR code=SYNTAX msg=\"bw=80: 20 or 40 (MHz)\""},
        {"radio_set bw=40 phy=b,g", "#EB:ERR code=CONSTRAINT msg=\"bw=40 needs 11n in phy (HT40 is an 802.11n mode)\""},
        {"radio_set ps=min_modem listen_interval=3",
         "#EB:ERR code=CONSTRAINT msg=\"listen_interval applies with ps=max_modem only "
         "(wifi_sta_config_t.listen_interval)\""},
        {"radio_set ps=max_modem listen_interval=0",
         "#EB:ERR code=RANGE msg=\"listen_interval=0: 1..65535 beacon intervals\""},
        {"radio_set tx_power=19.6",
         "#EB:ERR code=RANGE msg=\"tx_power=19.6: not a multiple of 0.25 dBm (esp_wifi_set_max_tx_power's unit)\""},
        {"radio_set tx_power=21.25", "#EB:ERR code=RANGE msg=\"tx_power=21.25: 2 .. 21 dBm (esp_wifi_set_max_tx_power: "
                                     "[8, 84] x 0.25 dBm, at most 20 applied)\""},
        {"radio_set tx_power=1.75", "#EB:ERR code=RANGE msg=\"tx_power=1.75: 2 .. 21 dBm (esp_wifi_set_max_tx_power: "
                                    "[8, 84] x 0.25 dBm, at most 20 applied)\""},
        {"radio_set coex=ble_scan", "#EB:ERR code=UNSUPPORTED msg=\"coex=ble_scan: esp32 has no BLE\""},
        {"radio_set ps=deep", "#EB:ERR code=SYNTAX msg=\"ps=deep: none, min_modem or max_modem\""},
        {"radio_set power=3", "#EB:ERR code=UNKNOWN_FIELD msg=\"power: not a radio setting (band bw bw5 phy phy5 ps "
                              "listen_interval tx_power coex)\""},
        {"radio_set bw", "#EB:ERR code=SYNTAX msg=\"bw: expected key=value\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *out = run(e, bad[i].line);
        if (strncmp(out, bad[i].reply, strlen(bad[i].reply)) != 0 || strcmp(out + strlen(bad[i].reply), "\r\n") != 0)
            fail_msg("%s\n got: %s\nwant: %s", bad[i].line, out, bad[i].reply);
    }
    assert_int_equal(e->f.radio_calls, 0);
    assert_string_equal(run(e, "radio_set bw=40 ps=max_modem listen_interval=10 tx_power=19.5"),
                        "#EB:OK band=2.4 bw=40 phy=b,g,n ps=max_modem listen_interval=10 tx_power=19.50 coex=none\r\n");
    assert_int_equal(e->f.radio.tx_power_q, 78);
    /* Leaving max modem drops the listen interval rather than refusing. */
    assert_string_equal(run(e, "radio_set ps=min_modem"),
                        "#EB:OK band=2.4 bw=40 phy=b,g,n ps=min_modem listen_interval=10 tx_power=19.50 coex=none\r\n");
    assert_int_equal(e->core.radio.listen_interval, 0);
    assert_string_equal(run(e, "radio_show"),
                        "#EB:OK band=2.4 bw=40 phy=b,g,n ps=min_modem listen_interval=10 tx_power=19.50 coex=none\r\n");
}

/* The ESP32-C5: both bands, 802.11ax, BLE; a call the platform's ESP-IDF lacks is UNSUPPORTED. */
static void test_radio_set_c5(void **state)
{
    env *e = *state;
    e->build.chip = "esp32c5";
    e->build.band_5g = e->build.he = e->build.ble = true;
    assert_string_equal(run(e, "radio_set band=5 bw5=40 phy5=a,n,ac,ax coex=ble_adv"),
                        "#EB:OK band=5 bw=20 bw5=40 phy=b,g,n phy5=a,n,ac,ax ps=none tx_power=20.00 coex=ble_adv\r\n");
    assert_string_equal(run(e, "radio_set phy5=a,ac bw5=40"),
                        "#EB:ERR code=CONSTRAINT msg=\"bw5=40 needs n in phy5 (HT40 is an 802.11n mode)\"\r\n");
    e->f.radio_old_idf = true;
    ebc_radio before = e->core.radio;
    assert_string_equal(run(e, "radio_set band=5"),
                        "#EB:ERR code=UNSUPPORTED msg=\"band: esp_wifi_set_band_mode first in ESP-IDF v5.4 (this is "
                        "v5.3.5)\"\r\n");
    assert_memory_equal(&e->core.radio, &before, sizeof before);
}

/* Band, bandwidth, PHY and listen interval need a new association; TX power and
 * power save do not; a tier switch (a new esp_wifi_init) applies the settings again. */
static void test_radio_set_reconnects_and_survives_tier_set(void **state)
{
    env *e = *state;
    connect(e);
    int connects = e->f.connects;
    const char *out = run(e, "radio_set tx_power=15");
    assert_string_equal(out, "#EB:OK band=2.4 bw=20 phy=b,g,n ps=none tx_power=15.00 coex=none\r\n");
    assert_int_equal(e->f.connects, connects);
    out = run(e, "radio_set bw=40");
    assert_int_equal(e->f.connects, connects + 1);
    assert_non_null(strstr(out, "#EB:EV wifi.got_ip ip=127.0.0.9"));
    assert_non_null(strstr(out, "#EB:OK band=2.4 bw=40 "));
    e->f.iperf_running = true;
    assert_string_equal(run(e, "radio_set bw=20"), "#EB:ERR code=BUSY msg=\"iperf is running; abort it first\"\r\n");
    e->f.iperf_running = false;
    e->f.radio = (ebc_radio){0}; /* a new esp_wifi_init forgets the radio settings */
    int calls = e->f.radio_calls;
    out = run(e, "tier_set static_rx=16 rx_ba_win=16");
    if (!strstr(out, "#EB:OK name=custom"))
        fail_msg("%s", out);
    assert_int_equal(e->f.radio_calls, calls + 1);
    assert_int_equal(e->f.radio.bw_2g, 40);
    assert_int_equal(e->f.radio.tx_power_q, 60);
}

static void test_link_command(void **state)
{
    env *e = *state;
    assert_string_equal(run(e, "link"), "#EB:ERR code=NOT_CONNECTED msg=\"not associated\"\r\n");
    connect(e);
    assert_string_equal(run(e, "link"), "#EB:OK rssi=-47 ch=6 bw=20 band=2.4GHz phy=11n ps=none ssid=\"lab ap\" "
                                        "bssid=02:eb:00:00:00:01\r\n");
    e->ops.radio_apply = NULL; /* a platform without radio settings */
    assert_string_equal(run(e, "radio_show"), "#EB:ERR code=UNSUPPORTED msg=\"this board has no radio settings\"\r\n");
}

/* A failed tier_set says whether the previous tier came back. */
static void test_tier_set_restore(void **state)
{
    env *e = *state;
    connect(e);
    e->f.fail_inits = 1; /* the new tier fails, the old one comes back */
    assert_string_equal(run(e, "tier_set static_rx=10 dynamic_rx=32 dynamic_tx=32 rx_ba_win=16"),
                        "#EB:ERR code=WIFI msg=\"esp_wifi_init failed with the new tier; previous tier restored\"\r\n");
    assert_true(e->core.wifi_up);
    e->f.fail_inits = 2; /* both fail */
    assert_string_equal(run(e, "tier_set static_rx=10 dynamic_rx=32 dynamic_tx=32 rx_ba_win=16"),
                        "#EB:ERR code=WIFI msg=\"esp_wifi_init failed with the new tier and again with the previous "
                        "one; Wi-Fi is down (restart the board)\"\r\n");
    assert_false(e->core.wifi_up);
    assert_string_equal(e->core.tier.name, "iperf");
}

/* The open_eth image: Ethernet instead of Wi-Fi. Wi-Fi fields and commands
 * answer one line each; the lwIP fields are checked as on any image. */
static int setup_eth(void **state)
{
    env *e = calloc(1, sizeof *e);
    eb_buf_init(&e->f.out);
    e->ops = (ebc_ops){.ctx = &e->f, .write = f_write, .iperf_start = f_iperf_start, .iperf_abort = f_iperf_abort,
                       .iperf_running = f_iperf_running, .heap = f_heap, .restart = f_restart,
                       .net_start = f_net_start};
    ebc_build *b = &e->build;
    b->fw_version = "0.1.0";
    b->idf_version = "v6.0.2";
    b->chip = "esp32c3";
    b->ethernet = true;
    snprintf(b->image.name, sizeof b->image.name, "image");
    static const struct {
        int f, v;
    } image[] = {{EBC_F_TCP_SND_BUF_KB, 40}, {EBC_F_TCP_WND_KB, 40}, {EBC_F_TCP_MBOX, 64}, {EBC_F_UDP_MBOX, 64},
                 {EBC_F_TCPIP_MBOX, 64}, {EBC_F_LWIP_IRAM_OPT, 1}, {EBC_F_CPU_MHZ, 160}};
    for (size_t i = 0; i < sizeof image / sizeof image[0]; i++) {
        b->image.set[image[i].f] = true;
        b->image.value[image[i].f] = image[i].v;
    }
    ebc_core_init(&e->core, &e->ops, b);
    ebc_core_start(&e->core);
    *state = e;
    return 0;
}

static void test_ethernet_image(void **state)
{
    env *e = *state;
    assert_string_equal(eb_buf_cstr(&e->f.out), "#EB:EV boot fw=0.1.0 idf=v6.0.2 chip=esp32c3 net=eth\r\n");
    assert_int_equal(e->f.net_starts, 1);
    assert_string_equal(run(e, "version"), "#EB:OK proto=1 fw=0.1.0 idf=v6.0.2 chip=esp32c3 net=eth runtime=\"\"\r\n");
    const char *image = "name=image tcp_snd_buf_kb=40 tcp_wnd_kb=40 tcp_mbox=64 udp_mbox=64 tcpip_mbox=64 "
                        "lwip_iram_opt=1 cpu_mhz=160\r\n";
    char want[256];
    snprintf(want, sizeof want, "#EB:OK %s", image);
    assert_string_equal(run(e, "tier_show"), want);
    static const struct {
        const char *line, *want;
    } cases[] = {
        {"tier_set static_rx=10", "#EB:ERR code=UNSUPPORTED msg=\"static_rx: not applicable: this image's network is "
                                  "Ethernet, not Wi-Fi\"\r\n"},
        {"tier_set name=x tcp_wnd_kb=40 rx_ba_win=0", "#EB:ERR code=UNSUPPORTED msg=\"rx_ba_win: not applicable: this "
                                                      "image's network is Ethernet, not Wi-Fi\"\r\n"},
        {"tier_set wifi_iram_opt=1", "#EB:ERR code=UNSUPPORTED msg=\"wifi_iram_opt: not applicable: this image's "
                                     "network is Ethernet, not Wi-Fi\"\r\n"},
        {"tier_set tcp_wnd_kb=20", "#EB:ERR code=BUILD_ONLY msg=\"tcp_wnd_kb=20 is build-time only; this image has "
                                   "40\"\r\n"},
        {"tier_set tcp_wnd_kb=66", "#EB:ERR code=RANGE msg=\"tcp_wnd_kb=66 outside 2..65\"\r\n"},
        {"tier_set bogus=1", "#EB:ERR code=UNKNOWN_FIELD msg=\"unknown field bogus\"\r\n"},
        {"sta_connect lab", "#EB:ERR code=UNSUPPORTED msg=\"sta_connect: not applicable: this image's network is "
                            "Ethernet, not Wi-Fi\"\r\n"},
        {"sta_scan", "#EB:ERR code=UNSUPPORTED msg=\"sta_scan: not applicable: this image's network is Ethernet, not "
                     "Wi-Fi\"\r\n"},
        {"radio_set ps=none", "#EB:ERR code=UNSUPPORTED msg=\"radio_set: not applicable: this image's network is "
                              "Ethernet, not Wi-Fi\"\r\n"},
        {"radio_show", "#EB:ERR code=UNSUPPORTED msg=\"radio_show: not applicable: this image's network is Ethernet, "
                       "not Wi-Fi\"\r\n"},
        {"link", "#EB:ERR code=NOT_CONNECTED msg=\"Ethernet has no IP address yet\"\r\n"},
        {"iperf -s", "#EB:ERR code=NOT_CONNECTED msg=\"Ethernet has no IP address yet\"\r\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(run(e, cases[i].line), cases[i].want);
    assert_string_equal(e->core.tier.name, "image");
    /* The address arrives as an event (DHCP). */
    eb_buf_reset(&e->f.out);
    ebc_ip_info ip = {"10.0.2.15", "255.255.255.0", "10.0.2.2"};
    ebc_event_net_got_ip(&e->core, &ip);
    assert_string_equal(eb_buf_cstr(&e->f.out), "#EB:EV eth.got_ip ip=10.0.2.15 mask=255.255.255.0 gw=10.0.2.2\r\n");
    assert_string_equal(run(e, "link"), "#EB:OK net=eth ip=10.0.2.15 mask=255.255.255.0 gw=10.0.2.2\r\n");
    /* A tier with the image's lwIP values is taken under its name; nothing is re-initialised. */
    assert_string_equal(run(e, "tier_set name=low tcp_snd_buf_kb=40 tcp_wnd_kb=40"),
                        "#EB:OK name=low tcp_snd_buf_kb=40 tcp_wnd_kb=40 tcp_mbox=64 udp_mbox=64 tcpip_mbox=64 "
                        "lwip_iram_opt=1 cpu_mhz=160\r\n");
    assert_string_equal(e->core.tier.name, "low");
    assert_int_equal(e->f.inits + e->f.deinits, 0);
    assert_string_equal(run(e, "iperf -s"), "#EB:EV iperf.started role=server proto=tcp\r\n"
                                            "#EB:OK role=server proto=tcp port=5001\r\n");
    assert_string_equal(run(e, "tier_set name=x"), "#EB:ERR code=BUSY msg=\"iperf is running; abort it first\"\r\n");
    eb_buf_reset(&e->f.out);
    ebc_event_net_down(&e->core);
    assert_string_equal(eb_buf_cstr(&e->f.out), "#EB:EV eth.disconnected\r\n");
    assert_string_equal(run(e, "link"), "#EB:ERR code=NOT_CONNECTED msg=\"Ethernet has no IP address yet\"\r\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_field_table_matches_profiles),
        cmocka_unit_test_setup_teardown(test_every_shipped_tier_is_accepted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_constraint_violations_keep_tier, setup, teardown),
        cmocka_unit_test_setup_teardown(test_password_never_printed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commands, setup, teardown),
        cmocka_unit_test_setup_teardown(test_provenance_replies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_events, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tokenizer_and_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_radio_set_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_radio_set_c5, setup, teardown),
        cmocka_unit_test_setup_teardown(test_radio_set_reconnects_and_survives_tier_set, setup, teardown),
        cmocka_unit_test_setup_teardown(test_link_command, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tier_set_restore, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ethernet_image, setup_eth, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
