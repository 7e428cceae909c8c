/* vb_console: golden transcripts per console dialect, driven through a fake
 * vb_board (write() appends to a buffer) and a fake traffic engine (reports
 * injected by the test), plus the console-side faults.
 * Set EB_UPDATE_GOLDEN=1 to rewrite tests/fixtures/transcripts/ (then review
 * the diff against docs/console-dialects.md). */
#include <math.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/base/buf.h"
#include "espbench/formats/dialect.h"
#include "espbench/formats/profile.h"
#include "espbench/adapters/profile_dirs.h"
#include "vb_dialect.h"

/* ------------------------------------------------------------------ fakes */

typedef struct fixture {
    vb_board b;
    eb_profiles profiles;
    pthread_mutex_t out_lock;
    eb_buf out;
    int resets;
    char reset_reason[32];
    /* fake engine */
    bool engine_running;
    bool engine_fail;
    vb_iperf_cfg cfg;
    vb_iperf_report_fn fn;
    void *user;
} fixture;

static fixture *g_fx; /* the fake engine's functions have no context argument */

static void fake_write(vb_board *b, const void *data, size_t len)
{
    fixture *fx = b->impl;
    pthread_mutex_lock(&fx->out_lock);
    eb_buf_append(&fx->out, data, len);
    pthread_mutex_unlock(&fx->out_lock);
}

static void fake_reset(vb_board *b, bool download, const char *reason)
{
    fixture *fx = b->impl;
    (void)download;
    fx->resets++;
    snprintf(fx->reset_reason, sizeof fx->reset_reason, "%s", reason);
}

static int fake_start(vb_iperf **out, const vb_iperf_cfg *cfg, vb_iperf_report_fn fn, void *user, eb_error *err)
{
    if (g_fx->engine_fail) {
        *out = NULL;
        return eb_fail(err, EB_EIO, "Socket unable to bind: errno 98");
    }
    g_fx->cfg = *cfg;
    g_fx->fn = fn;
    g_fx->user = user;
    g_fx->engine_running = true;
    *out = (vb_iperf *)g_fx;
    return 0;
}
static bool fake_running(vb_iperf *ip) { (void)ip; return g_fx->engine_running; }
static void fake_abort(vb_iperf *ip) { (void)ip; g_fx->engine_running = false; }
static void fake_free(vb_iperf *ip) { (void)ip; }
static uint64_t fake_total(vb_iperf *ip) { (void)ip; return 12345678; }
static const vb_traffic_ops fake_ops = {fake_start, fake_running, fake_abort, fake_free, fake_total};

static void emit(enum vb_iperf_event ev, double s, double e, uint64_t bytes)
{
    vb_iperf_report r;
    memset(&r, 0, sizeof r);
    r.event = ev;
    r.start_s = s;
    r.end_s = e;
    r.bytes = bytes;
    if (ev == VB_IPERF_CONNECTED) {
        snprintf(r.peer_ip, sizeof r.peer_ip, "127.0.0.1");
        r.peer_port = 43726;
    }
    if (ev == VB_IPERF_DONE)
        g_fx->engine_running = false;
    g_fx->fn(g_fx->user, &r);
}

/* A whole run: 3 one-second intervals, then the summary. */
static void emit_run(void)
{
    static const uint64_t bytes[] = {7950000, 8012345, 7890123};
    emit(VB_IPERF_SOCKET_CREATED, 0, 0, 0);
    emit(VB_IPERF_CONNECTED, 0, 0, 0);
    uint64_t total = 0;
    for (int i = 0; i < 3; i++) {
        emit(VB_IPERF_INTERVAL, i, i + 1, bytes[i]);
        total += bytes[i];
    }
    emit(VB_IPERF_SUMMARY, 0, 3, total);
    emit(VB_IPERF_DONE, 0, 3, total);
}

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    eb_error err;
    if (eb_profiles_load_default(&fx->profiles, NULL, &err) != 0) {
        fprintf(stderr, "profiles: %s\n", err.msg);
        free(fx);
        return -1;
    }
    pthread_mutex_init(&fx->out_lock, NULL);
    eb_buf_init(&fx->out);
    vb_board *b = &fx->b;
    b->profiles = &fx->profiles;
    b->chip = eb_profiles_chip(&fx->profiles, "esp32");
    snprintf(b->ip, sizeof b->ip, "127.0.0.2");
    b->aps[0] = (vb_ap){"lab-ap", "secret123", -41};
    b->aps[1] = (vb_ap){"neighbour", "x", -77};
    b->n_aps = 2;
    b->seed = 7;
    pthread_mutex_init(&b->lock, NULL);
    b->write = fake_write;
    b->request_reset = fake_reset;
    b->impl = fx;
    b->console = vb_console_new(b);
    vb_console_set_traffic(b->console, &fake_ops);
    g_fx = fx;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    vb_console_free(fx->b.console);
    eb_profiles_free(&fx->profiles);
    eb_buf_free(&fx->out);
    pthread_mutex_destroy(&fx->out_lock);
    pthread_mutex_destroy(&fx->b.lock);
    free(fx);
    return 0;
}

static void boot(fixture *fx, const char *chip, const char *project, const char *idf, const char *version)
{
    fx->b.chip = eb_profiles_chip(&fx->profiles, chip);
    assert_non_null(fx->b.chip);
    eb_model_link_default(&fx->b.link); /* published conditions: published figures */
    eb_image_info app;
    memset(&app, 0, sizeof app);
    app.has_app_desc = strcmp(chip, "esp8266") != 0;
    snprintf(app.project_name, sizeof app.project_name, "%s", project);
    snprintf(app.idf_ver, sizeof app.idf_ver, "%s", idf);
    snprintf(app.version, sizeof app.version, "%s", version);
    snprintf(app.date, sizeof app.date, "Dec  1 2026");
    snprintf(app.time, sizeof app.time, "10:00:00");
    vb_console_boot(fx->b.console, &app, "POWERON_RESET");
}

static void type(fixture *fx, const char *text)
{
    vb_console_feed(fx->b.console, (const uint8_t *)text, strlen(text));
}

/* Output with "\r\n" as "\n", log times as "(T)", ESC as "\x1b", other
 * control bytes (except tab) as \xNN, so that the golden files are text. */
static char *normalised(fixture *fx)
{
    eb_buf n;
    eb_buf_init(&n);
    const char *s = eb_buf_cstr(&fx->out);
    size_t len = fx->out.len;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\r' && i + 1 < len && s[i + 1] == '\n')
            continue;
        if ((ch == 'I' || ch == 'W' || ch == 'E') && i + 2 < len && s[i + 1] == ' ' && s[i + 2] == '(' &&
            (i == 0 || s[i - 1] == '\n' || s[i - 1] == ' ')) {
            size_t j = i + 3;
            while (j < len && s[j] >= '0' && s[j] <= '9')
                j++;
            if (j > i + 3 && j < len && s[j] == ')') {
                eb_buf_printf(&n, "%c (T)", ch);
                i = j;
                continue;
            }
        }
        if (ch == 0x1b)
            eb_buf_printf(&n, "\\x1b");
        else if (ch < 0x20 && ch != '\n' && ch != '\t')
            eb_buf_printf(&n, "\\x%02x", ch);
        else
            eb_buf_append_byte(&n, ch);
    }
    char *r = strdup(eb_buf_cstr(&n));
    eb_buf_free(&n);
    return r;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    eb_buf b;
    eb_buf_init(&b);
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        eb_buf_append(&b, tmp, n);
    fclose(f);
    char *r = strdup(eb_buf_cstr(&b));
    eb_buf_free(&b);
    return r;
}

static void check_golden(fixture *fx, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/transcripts/%s.txt", FIXTURES_DIR, name);
    char *got = normalised(fx);
    if (getenv("EB_UPDATE_GOLDEN")) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fputs(got, f);
        fclose(f);
    }
    char *want = slurp(path);
    if (!want)
        fail_msg("missing golden transcript %s (run with EB_UPDATE_GOLDEN=1 and review it)", path);
    if (strcmp(got, want) != 0) {
        size_t i = 0;
        while (got[i] && got[i] == want[i])
            i++;
        size_t from = i > 80 ? i - 80 : 0;
        fprintf(stderr, "transcript %s differs at byte %zu:\n--- want ---\n%.200s\n--- got ---\n%.200s\n", name, i,
                want + from, got + from);
    }
    assert_string_equal(got, want);
    free(got);
    free(want);
}

/* ------------------------------------------------------------------ stock sessions */

typedef struct stock_case {
    const char *golden;
    const char *chip, *idf;
    int dialect;
    const char *sta, *scan, *udp_bw, *abort;
} stock_case;

static void stock_session(fixture *fx, const stock_case *k)
{
    boot(fx, k->chip, "iperf", k->idf, "1");
    assert_int_equal(fx->b.console->dialect, k->dialect);
    char cmd[160];
    type(fx, "\r\n");
    snprintf(cmd, sizeof cmd, "%s\r\n", k->scan);
    type(fx, cmd);
    snprintf(cmd, sizeof cmd, "%s lab-ap wrong\r\n", k->sta);
    type(fx, cmd);
    snprintf(cmd, sizeof cmd, "%s lab-ap secret123\r\n", k->sta);
    type(fx, cmd);
    type(fx, "heap\r\nfree\r\nversion\r\n");
    /* TCP RX: board is the server. */
    type(fx, "iperf -s -i 1 -t 3\r\n");
    emit_run();
    /* UDP TX: board sends. */
    snprintf(cmd, sizeof cmd, "iperf -c 127.0.0.1 -u -i 1 -t 3%s\r\n", k->udp_bw);
    type(fx, cmd);
    emit_run();
    /* A server left running, then aborted. */
    type(fx, "iperf -s -u -i 1 -t 30\r\n");
    emit(VB_IPERF_SOCKET_CREATED, 0, 0, 0);
    type(fx, "iperf -s\r\n");
    snprintf(cmd, sizeof cmd, "iperf %s\r\n", k->abort);
    type(fx, cmd);
    type(fx, "iperf -z\r\nbogus\r\n");
    check_golden(fx, k->golden);
}

static const stock_case stock_cases[] = {
    {"idf-legacy-v3.1", "esp32", "v3.1.7", EB_DIALECT_IDF_LEGACY, "sta", "scan", "", "-a"},
    {"idf-legacy-v4.1", "esp32", "v4.1.2", EB_DIALECT_IDF_LEGACY, "sta", "scan", "", "-a"},
    {"idf-legacy-v4.3", "esp32", "v4.3.5", EB_DIALECT_IDF_LEGACY, "sta", "scan", "", "-a"},
    {"esp8266", "esp8266", "", EB_DIALECT_ESP8266, "sta", "scan", "", "-a"},
    {"idf-v4.4", "esp32", "v4.4.7", EB_DIALECT_IDF_V44, "sta", "scan", "", "-a"},
    {"idf-v5.1", "esp32", "v5.1.4", EB_DIALECT_IDF_V51, "sta", "scan", " -b 50", "-a"},
    {"iperf-cmd-0.1", "esp32s3", "v5.3.2", EB_DIALECT_IPERF_CMD_01, "sta_connect", "sta_scan", " -b 50", "--abort"},
    {"iperf-cmd-1.0", "esp32c3", "v6.1-beta1", EB_DIALECT_IPERF_CMD_10, "sta_connect", "sta_scan", " -b 50m",
     "--abort"},
};

static void test_stock_transcripts(void **state)
{
    for (size_t i = 0; i < sizeof stock_cases / sizeof stock_cases[0]; i++) {
        fixture *fx = *state;
        eb_buf_reset(&fx->out);
        stock_session(fx, &stock_cases[i]);
        teardown(state);
        assert_int_equal(setup(state), 0);
    }
}

/* An image's test-only efficiency factor scales every shaped rate; the heap stays. */
static void test_engine_test_efficiency(void **state)
{
    fixture *fx = *state;
    fx->b.chip = eb_profiles_chip(&fx->profiles, "esp32");
    eb_model_link_default(&fx->b.link);
    eb_image_info app;
    memset(&app, 0, sizeof app);
    app.has_app_desc = true;
    snprintf(app.project_name, sizeof app.project_name, "iperf");
    snprintf(app.idf_ver, sizeof app.idf_ver, "v5.2.1");
    snprintf(app.version, sizeof app.version, "1");
    app.test_efficiency = 0.5;
    vb_console_boot(fx->b.console, &app, "POWERON_RESET");
    uint32_t heap = fx->b.console->heap_free;
    type(fx, "sta lab-ap secret123\r\n");
    const eb_tier *t = eb_chip_tier(fx->b.chip, "iperf");
    type(fx, "iperf -c 127.0.0.1 -i 1 -t 2\r\n");
    assert_true(fx->engine_running);
    assert_true(fabs(fx->cfg.model_mbps - 0.5 * t->ref_mbps[EB_TEST_TCP_TX]) < 1e-9);
    type(fx, "iperf -a\r\n");
    app.test_efficiency = 0;
    vb_console_boot(fx->b.console, &app, "POWERON_RESET");
    assert_int_equal(fx->b.console->heap_free, heap);
    type(fx, "sta lab-ap secret123\r\n");
    type(fx, "iperf -c 127.0.0.1 -i 1 -t 2\r\n");
    assert_true(fabs(fx->cfg.model_mbps - t->ref_mbps[EB_TEST_TCP_TX]) < 1e-9);
}

/* The engine gets the model of the board's chip, tier and test. */
static void test_engine_config_follows_profile(void **state)
{
    fixture *fx = *state;
    boot(fx, "esp32", "iperf", "v5.2.1", "1");
    type(fx, "sta lab-ap secret123\r\n");
    const eb_tier *t = eb_chip_tier(fx->b.chip, "iperf");
    assert_non_null(t);
    static const struct {
        const char *cmd;
        int test;
        bool server, udp;
    } runs[] = {
        {"iperf -c 127.0.0.1 -i 1 -t 2\r\n", EB_TEST_TCP_TX, false, false},
        {"iperf -s -i 1 -t 2\r\n", EB_TEST_TCP_RX, true, false},
        {"iperf -c 127.0.0.1 -u -i 1 -t 2 -b 40\r\n", EB_TEST_UDP_TX, false, true},
        {"iperf -s -u -i 1 -t 2\r\n", EB_TEST_UDP_RX, true, true},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        type(fx, runs[i].cmd);
        assert_true(fx->engine_running);
        assert_true(fabs(fx->cfg.model_mbps - t->ref_mbps[runs[i].test]) < 1e-9);
        assert_int_equal(fx->cfg.server, runs[i].server);
        assert_int_equal(fx->cfg.udp, runs[i].udp);
        assert_string_equal(fx->cfg.local_ip, "127.0.0.2");
        assert_int_equal(fx->cfg.port, 5001);
        assert_true(fx->cfg.time_s == 2 && fx->cfg.interval_s == 1);
        assert_false(fx->cfg.send_udp_server_report);
        emit(VB_IPERF_DONE, 0, 2, 0);
    }
    assert_true(fx->cfg.bw_limit_mbps == 0);
    /* A stock image built for another tier names it in its descriptor. */
    boot(fx, "esp32", "iperf", "v5.2.1", "minimum");
    assert_true(fx->b.console->tier == eb_chip_tier(fx->b.chip, "minimum"));
    /* ESP8266 images have no app descriptor: the first tier. */
    boot(fx, "esp8266", "iperf", "", "1");
    assert_true(fx->b.console->tier == &fx->b.chip->tiers[0]);
    boot(fx, "esp32", "iperf", "v5.2.1", "1");
    type(fx, "sta lab-ap secret123\r\n");
    /* free / heap follow the tier's reference available memory. A late probe
     * answer is swallowed, backspace edits the line, CRLF is one line end. */
    eb_buf_reset(&fx->out);
    type(fx, "\x1b[0nfrex\x7f" "e\r\n");
    static const char echoed[] = "frex\x08 \x08" "e\r\n";
    assert_memory_equal(eb_buf_cstr(&fx->out), echoed, sizeof echoed - 1);
    char want[64];
    snprintf(want, sizeof want, "e\r\n%u\r\niperf> ", (unsigned)(t->ref_avail_kb * 1024.0));
    assert_non_null(strstr(eb_buf_cstr(&fx->out), want));
}

/* The vboard takes a stock firmware's prompt and -b format from its dialect
 * row (profiles/dialects/), not from a copy of its own: a loaded row on the
 * iperf-cmd-1.0 grammar with whole-Mbit/s -b and its own prompt. */
static void test_a_loaded_dialect_row_sets_prompt_and_bandwidth(void **state)
{
    fixture *fx = *state;
    static const char yaml[] = "dialect:\n  name: test-int-bw\n  base: iperf-cmd-1.0\n  idf_from: 9.8\n"
                               "  idf_to: 9.8\n  prompts: [\"bench> \"]\n  bandwidth: \"-b %d\"\n";
    eb_dialect_text t = {"test-int-bw.yaml", yaml, sizeof yaml - 1, 0};
    eb_error err = {0};
    assert_int_equal(eb_dialects_load_buffers(&t, 1, &err), 0);
    boot(fx, "esp32c3", "iperf", "v9.8", "1");
    type(fx, "sta_connect lab-ap secret123\r\n");
    assert_non_null(strstr(eb_buf_cstr(&fx->out), "bench> "));
    type(fx, "iperf -c 127.0.0.1 -u -i 1 -t 2 -b 40\r\n");
    assert_true(fx->engine_running);
    assert_true(fabs(fx->cfg.bw_limit_mbps - 40) < 1e-9);
    emit(VB_IPERF_DONE, 0, 2, 0);
    eb_buf_reset(&fx->out);
    type(fx, "iperf -c 127.0.0.1 -u -i 1 -t 2 -b 40m\r\n"); /* the grammar's suffix is not this row's */
    assert_false(fx->engine_running);
}

static void test_faults(void **state)
{
    fixture *fx = *state;
    vb_board *b = &fx->b;
    b->faults[0] = (vb_fault){"zero", "2", "tcp_tx", true};
    b->faults[1] = (vb_fault){"stall", "", "udp_rx", true};
    b->faults[2] = (vb_fault){"reboot", "", "2s", true};
    b->n_faults = 3;
    boot(fx, "esp32c3", "iperf", "v5.3.1", "1");
    type(fx, "sta_connect lab-ap secret123\r\n");
    type(fx, "iperf -s -u -i 1 -t 5\r\n");
    assert_true(fx->cfg.stall);
    assert_int_equal(fx->cfg.zero_intervals, 0);
    emit(VB_IPERF_DONE, 0, 1, 0);
    type(fx, "iperf -c 127.0.0.1 -i 1 -t 5\r\n");
    assert_false(fx->cfg.stall);
    assert_int_equal(fx->cfg.zero_intervals, 2);
    emit(VB_IPERF_SOCKET_CREATED, 0, 0, 0);
    emit(VB_IPERF_CONNECTED, 0, 0, 0);
    emit(VB_IPERF_INTERVAL, 0, 1, 1000000);
    assert_int_equal(fx->resets, 0);
    eb_buf_reset(&fx->out);
    emit(VB_IPERF_INTERVAL, 1, 2, 1000000);
    assert_int_equal(fx->resets, 1);
    assert_string_equal(fx->reset_reason, "SW_CPU_RESET");
    const char *out = eb_buf_cstr(&fx->out);
    assert_non_null(strstr(out, "Guru Meditation Error: Core  0 panic'ed (Load access fault)"));
    assert_non_null(strstr(out, "Backtrace: 0x"));
    assert_null(strstr(out, " 1.0- 2.0 sec"));
    /* After the panic the dead app prints nothing more. */
    size_t n = fx->out.len;
    emit(VB_IPERF_INTERVAL, 2, 3, 1000000);
    type(fx, "heap\r\n");
    assert_int_equal(fx->out.len, n);
    /* A fresh boot brings the console back. */
    boot(fx, "esp32c3", "iperf", "v5.3.1", "1");
    assert_non_null(strstr(eb_buf_cstr(&fx->out), "Type 'help' to get the list of commands."));
    eb_buf_reset(&fx->out);
    type(fx, "free\r\n");
    assert_non_null(strstr(eb_buf_cstr(&fx->out), "\r\niperf> "));
}

static void test_wifi_faults_and_restart(void **state)
{
    fixture *fx = *state;
    vb_board *b = &fx->b;
    b->faults[0] = (vb_fault){"no-ap", "", "", true};
    b->faults[1] = (vb_fault){"wifi-disconnect", "", "tcp_rx", true};
    b->n_faults = 2;
    boot(fx, "esp32", "iperf", "v5.3.1", "1");
    eb_buf_reset(&fx->out);
    type(fx, "sta_connect lab-ap secret123\r\n");
    assert_non_null(strstr(eb_buf_cstr(&fx->out), "WIFI_EVENT_STA_DISCONNECTED! reason: 201\r\n"));
    /* The APs stay gone until the next boot. */
    type(fx, "sta_scan\r\n");
    assert_non_null(strstr(eb_buf_cstr(&fx->out), "SCAN_DONE: No AP found\r\n"));
    boot(fx, "esp32", "iperf", "v5.3.1", "1");
    type(fx, "sta_connect lab-ap secret123\r\n");
    assert_non_null(strstr(eb_buf_cstr(&fx->out), "sta ip: 127.0.0.2, mask: 255.0.0.0, gw: 127.0.0.1\r\n"));
    type(fx, "iperf -s -i 1 -t 5\r\n");
    emit(VB_IPERF_SOCKET_CREATED, 0, 0, 0);
    emit(VB_IPERF_CONNECTED, 0, 0, 0);
    eb_buf_reset(&fx->out);
    emit(VB_IPERF_INTERVAL, 0, 1, 1000000);
    const char *out = eb_buf_cstr(&fx->out);
    assert_non_null(strstr(out, "WIFI_EVENT_STA_DISCONNECTED! reason: 8\r\n"));
    assert_null(strstr(out, "Mbits/sec"));
    /* the console joins the aborter before the next run */
    type(fx, "restart\r\n");
    assert_int_equal(fx->resets, 1);
    assert_string_equal(fx->reset_reason, "SW_CPU_RESET");
}

/* ------------------------------------------------------------------ espbench */

static void test_espbench_transcript(void **state)
{
    fixture *fx = *state;
    boot(fx, "esp32", "espbench", "v5.5.1", "0.1.0");
    assert_int_equal(fx->b.console->dialect, EB_DIALECT_ESPBENCH);
    type(fx, "version\r\ntier_show\r\n");
    type(fx, "sta_scan\r\n");
    type(fx, "sta_connect lab-ap -\r\nwrong-pass\r\n");
    type(fx, "sta_connect lab-ap -\r\nsecret123\r\n");
    type(fx, "tier_set name=default static_rx=6 dynamic_rx=20 dynamic_tx=20 rx_ba_win=10\r\n");
    type(fx, "tier_set name=bad static_rx=4 dynamic_rx=20 dynamic_tx=20 rx_ba_win=10\r\n");
    type(fx, "mem\r\nheap\r\nfree\r\n");
    type(fx, "iperf -s -u -i 1 -t 3\r\n");
    emit_run();
    type(fx, "iperf -c 127.0.0.1 -i 1 -t 30\r\n");
    type(fx, "iperf -c 127.0.0.1\r\n");
    type(fx, "iperf --abort\r\n");
    type(fx, "bogus \"unterminated\r\n");
    type(fx, "restart\r\n");
    check_golden(fx, "espbench");
    /* The password never leaves the board. */
    assert_null(strstr(eb_buf_cstr(&fx->out), "secret123"));
    assert_null(strstr(eb_buf_cstr(&fx->out), "wrong-pass"));
    assert_int_equal(fx->resets, 1);
    /* The tier that ran the model is the profile's "default" row. */
    const eb_tier *def = eb_chip_tier(fx->b.chip, "default");
    assert_true(fx->b.console->tier == def);
    assert_true(fabs(fx->cfg.model_mbps - def->ref_mbps[EB_TEST_TCP_TX]) < 1e-9);
    assert_false(fx->cfg.send_udp_server_report); /* no firmware answers the UDP end marker */
}


/* The no-stop fault: the test stalls and `iperf --abort` answers OK without
 * ending it (espressif/iperf-cmd's iperf_force_stop waits for an instance
 * that never reaches its next tick): no iperf.done, BUSY to the next iperf
 * and to tier_set, until a restart. */
static void test_espbench_iperf_that_does_not_stop(void **state)
{
    fixture *fx = *state;
    fx->b.faults[0] = (vb_fault){"no-stop", "", "tcp_tx", true};
    fx->b.n_faults = 1;
    boot(fx, "esp32c3", "espbench", "v6.0.2", "0.1.0");
    type(fx, "sta_connect lab-ap -\r\nsecret123\r\n");
    type(fx, "iperf -c 127.0.0.1 -i 1 -t 2\r\n");
    assert_true(fx->cfg.stall);
    emit(VB_IPERF_SOCKET_CREATED, 0, 0, 0);
    emit(VB_IPERF_CONNECTED, 0, 0, 0);
    eb_buf_reset(&fx->out);
    type(fx, "iperf --abort\r\n");
    assert_non_null(strstr(eb_buf_cstr(&fx->out), "#EB:OK"));
    assert_null(strstr(eb_buf_cstr(&fx->out), "iperf.done"));
    assert_true(fx->engine_running);
    eb_buf_reset(&fx->out);
    type(fx, "iperf -c 127.0.0.1 -i 1 -t 2\r\n");
    assert_non_null(strstr(eb_buf_cstr(&fx->out), "#EB:ERR code=BUSY msg=\"iperf is already running: the aborted "
                                                  "test ends at the next iperf.done"));
    eb_buf_reset(&fx->out);
    type(fx, "tier_set name=default\r\n");
    assert_non_null(strstr(eb_buf_cstr(&fx->out), "code=BUSY"));
    type(fx, "restart\r\n");
    assert_int_equal(fx->resets, 1);
    /* The fault was the test's: after the boot an abort ends a test again. */
    boot(fx, "esp32c3", "espbench", "v6.0.2", "0.1.0");
    type(fx, "sta_connect lab-ap -\r\nsecret123\r\n");
    type(fx, "iperf -c 127.0.0.1 -i 1 -t 2\r\n");
    assert_false(fx->cfg.stall);
    emit(VB_IPERF_SOCKET_CREATED, 0, 0, 0);
    emit(VB_IPERF_CONNECTED, 0, 0, 0);
    eb_buf_reset(&fx->out);
    type(fx, "iperf --abort\r\n");
    assert_non_null(strstr(eb_buf_cstr(&fx->out), "#EB:EV iperf.done"));
}

/* The radio settings on the virtual board: the core's checks with the chip's
 * facts from its name, ESP-IDF's TX power steps, the link's bandwidth. */
static void test_espbench_radio(void **state)
{
    fixture *fx = *state;
    boot(fx, "esp32c5", "espbench", "v5.5.1", "0.1.0");
    type(fx, "radio_show\r\n");
    type(fx, "radio_set band=5 bw5=40 phy5=a,n,ac,ax tx_power=19.5 coex=ble_scan\r\n");
    type(fx, "sta_connect lab-ap -\r\nsecret123\r\n");
    type(fx, "radio_set bw=40 ps=max_modem listen_interval=10\r\n");
    type(fx, "link\r\n");
    const char *out = eb_buf_cstr(&fx->out);
    assert_non_null(strstr(out, "#EB:OK band=auto bw=20 bw5=20 phy=b,g,n,ax phy5=a,n,ac,ax ps=none tx_power=20.00 "
                                "coex=none\r\n"));
    assert_non_null(strstr(out, "#EB:OK band=5 bw=20 bw5=40 phy=b,g,n,ax phy5=a,n,ac,ax ps=none tx_power=18.00 "
                                "coex=ble_scan\r\n"));
    assert_non_null(strstr(out, "#EB:OK band=5 bw=40 bw5=40 phy=b,g,n,ax phy5=a,n,ac,ax ps=max_modem "
                                "listen_interval=10 tx_power=18.00 coex=ble_scan\r\n"));
    assert_non_null(strstr(out, " bw=40 ch2="));
    assert_non_null(strstr(out, " ps=max_modem ssid=lab-ap "));
    eb_buf_reset(&fx->out);
    boot(fx, "esp32s2", "espbench", "v5.5.1", "0.1.0");
    type(fx, "radio_set coex=ble_adv\r\nradio_set phy=b,g,n,ax\r\nradio_set band=auto\r\n");
    out = eb_buf_cstr(&fx->out);
    assert_non_null(strstr(out, "#EB:ERR code=UNSUPPORTED msg=\"coex=ble_adv: esp32s2 has no BLE\"\r\n"));
    assert_non_null(strstr(out, "#EB:ERR code=UNSUPPORTED msg=\"phy=b,g,n,ax: esp32s2 has no 802.11ax\"\r\n"));
    assert_non_null(strstr(out, "#EB:ERR code=UNSUPPORTED msg=\"band=auto: esp32s2 has no 5 GHz radio\"\r\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_stock_transcripts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_engine_config_follows_profile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_faults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wifi_faults_and_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_espbench_transcript, setup, teardown),
        cmocka_unit_test_setup_teardown(test_espbench_iperf_that_does_not_stop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_espbench_radio, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_loaded_dialect_row_sets_prompt_and_bandwidth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_engine_test_efficiency, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
