/* The virtual board in application mode: second-stage bootloader and app
 * start-up log, the console line editor (linenoise dumb mode), the dialect
 * drivers, the iperf plumbing to vb_traffic, and the console-side faults
 * (reboot, stall, zero, wifi-disconnect). See docs/console-dialects.md. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/sdkconfig.h"
#include "espbench/base/clock.h"
#include "espbench/formats/dialect.h"
#include "vb_dialect.h"
#include "vb_hosted.h"

static const vb_traffic_ops engine_ops = {vb_iperf_start, vb_iperf_running, vb_iperf_abort, vb_iperf_free,
                                          vb_iperf_total_bytes};

/* ------------------------------------------------------------------ output */

void vb_con_write(vb_console *c, const char *s, size_t n)
{
    if (!c->dead)
        c->b->write(c->b, s, n);
}

void vb_con_printf(vb_console *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    vb_con_write(c, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Milliseconds since boot as ESP-IDF logs them; the emulated boot is instant,
 * so each boot line adds a few ms the way a real boot log advances. */
static unsigned long log_time(vb_console *c)
{
    return (unsigned long)(eb_now_ms() - c->boot_ms) + 27 + c->boot_bias_ms;
}

void vb_con_log(vb_console *c, char level, const char *tag, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* Tags ending in ':' are the Wi-Fi blob's ("wifi:connected with ..."). */
    size_t tl = strlen(tag);
    vb_con_printf(c, "%c (%lu) %s%s%s\r\n", level, log_time(c), tag, tl && tag[tl - 1] == ':' ? "" : ": ", msg);
    if (!c->running_app)
        c->boot_bias_ms += 5;
}

/* ------------------------------------------------------------------ lifecycle */

vb_console *vb_console_new(vb_board *b)
{
    vb_console *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->b = b;
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_init(&c->run_lock, NULL);
    c->traffic = engine_ops;
    c->boot_ms = eb_now_ms();
    return c;
}

void vb_console_set_traffic(vb_console *c, const vb_traffic_ops *ops) { c->traffic = ops ? *ops : engine_ops; }

static void join_aborter(vb_console *c)
{
    if (c->aborter_active) {
        pthread_join(c->aborter, NULL);
        c->aborter_active = false;
    }
}

static void stop_iperf(vb_console *c)
{
    vb_hosted_rawtp_stop(c->rawtp); /* the app's other traffic */
    c->rawtp = NULL;
    join_aborter(c);
    if (c->iperf) {
        c->traffic.abort(c->iperf);
        c->traffic.free(c->iperf);
        c->iperf = NULL;
    }
}

void vb_console_halt(vb_console *c)
{
    pthread_mutex_lock(&c->lock);
    stop_iperf(c);
    c->running_app = false;
    c->connected = false;
    pthread_mutex_unlock(&c->lock);
}

void vb_console_free(vb_console *c)
{
    if (!c)
        return;
    vb_console_halt(c);
    pthread_mutex_destroy(&c->lock);
    pthread_mutex_destroy(&c->run_lock);
    free(c);
}

/* ------------------------------------------------------------------ tiers, memory */

const eb_tier *vb_con_find_tier(vb_console *c, const char *name)
{
    const eb_chip *chip = c->b->chip;
    for (int i = 0; chip && i < chip->n_tiers; i++)
        if (strcmp(chip->tiers[i].name, name) == 0)
            return &chip->tiers[i];
    return NULL;
}

const eb_tier *vb_con_boot_tier(vb_console *c)
{
    /* A stock image built for one tier says so in its descriptor: the
     * version is the tier's name, or the project or version is the tier's
     * manifest image name (e.g. esp8266-iperf-ampdu-off). */
    const eb_chip *chip = c->b->chip;
    for (int i = 0; chip && i < chip->n_tiers; i++) {
        const eb_tier *x = &chip->tiers[i];
        if (strcmp(x->name, c->app_version) == 0 ||
            (x->image[0] && (strcmp(x->image, c->project) == 0 || strcmp(x->image, c->app_version) == 0)) ||
            strcmp(x->name, c->build_tier) == 0) /* built with the tier's sdkconfig (esp_image.h) */
            return x;
    }
    const eb_tier *t = vb_con_find_tier(c, "iperf");
    if (!t && c->b->chip && c->b->chip->n_tiers > 0)
        t = &c->b->chip->tiers[0];  /* ESP8266: its tuned "default" build */
    return t;
}

/* The figure of test (EB_TEST_COUNT = free heap KB) for the settings the
 * board runs: eb_model_figure decides published or model (docs/model.md). */
static int figure(vb_console *c, int test, double *value)
{
    vb_board *b = c->b;
    pthread_mutex_lock(&b->lock);
    eb_model_link link = b->link;
    bool force = b->force_model;
    pthread_mutex_unlock(&b->lock);
    vb_radio_link(c, &link); /* the mode's PHY ceiling (vb_radio.c) */
    if (b->hosted) { /* an ESP-Hosted pair: always the pair model */
        *value = vb_hosted_figure(b, c->have_runs ? &c->runs : NULL, &link, test);
        return isnan(*value) ? EB_FIG_NONE : EB_FIG_MODEL;
    }
    const eb_model_chip *mc = b->model && b->chip ? eb_model_chip_get(b->model, b->chip->name) : NULL;
    int src = eb_model_figure(mc, b->chip, c->have_runs ? &c->runs : NULL, &link, force, test, value);
    if (b->have_build && c->have_runs && mc && !isnan(*value)) {
        /* The build's settings (--sdkconfig-json) against the image's
         * default build, through the model: the figure scaled by the ratio,
         * and then a model figure. */
        double with, without;
        eb_model_figure(mc, b->chip, &c->runs, &link, true, test, &with);
        eb_model_figure(mc, b->chip, &c->as_built, &link, true, test, &without);
        if (with > 0 && without > 0 && fabs(with / without - 1) > 1e-9) {
            *value *= with / without;
            src = EB_FIG_MODEL;
        }
    }
    if (!b->hosted)
        vb_radio_figure(c, test, &src, value); /* 5 GHz, a BLE activity */
    return src;
}

static void update_heap(vb_console *c)
{
    double kb;
    c->heap_source = figure(c, EB_TEST_COUNT, &kb);
    if (isnan(kb) || kb <= 0)
        kb = isnan(kb) ? 100.0 : 1.0; /* no model, no figure: the old placeholder */
    c->heap_free = (uint32_t)(kb * 1024.0);
    /* The low-water mark sits a little under the idle figure. */
    c->heap_min = c->heap_free - c->heap_free / 32;
}

/* The espbench firmware is one image: a tier switch changes the runtime
 * fields only, the build-time ones stay the image's. */
static void set_runs(vb_console *c, const eb_tier *t)
{
    c->runs = *t;
    c->have_runs = true;
    if (c->dialect == EB_DIALECT_ESPBENCH && c->b->chip)
        eb_model_as_built(c->b->chip, &c->runs);
    c->as_built = c->runs;
    const eb_tier *bt = &c->b->build;
    for (int f = 0; c->b->have_build && f < EB_F_COUNT; f++)
        if (eb_sdkconfig_reads(f) && c->dialect == EB_DIALECT_ESPBENCH &&
            !eb_sdkconfig_same(f, c->runs.set[f], c->runs.value[f], bt->set[f], bt->value[f])) {
            c->runs.set[f] = bt->set[f]; /* unset: ESP-IDF's Kconfig default, as built */
            c->runs.value[f] = bt->value[f];
        }
    update_heap(c);
}

void vb_con_set_tier(vb_console *c, const eb_tier *t)
{
    c->tier = t;
    if (t) {
        set_runs(c, t);
    } else {
        c->have_runs = false;
        update_heap(c);
    }
}

void vb_con_set_custom_tier(vb_console *c, const bool *set, const int *value, int n_fields)
{
    eb_tier t;
    memset(&t, 0, sizeof t);
    snprintf(t.name, sizeof t.name, "custom");
    t.ref_avail_kb = NAN;
    for (int k = 0; k < EB_TEST_COUNT; k++)
        t.ref_mbps[k] = NAN;
    for (int f = 0; f < n_fields && f < EB_F_COUNT; f++) {
        t.set[f] = set[f];
        t.value[f] = value[f];
    }
    c->tier = NULL;
    set_runs(c, &t);
}

int vb_board_link_cmd(vb_board *b, const char *spec, eb_buf *reply, eb_error *err)
{
    eb_model_link l;
    bool force;
    pthread_mutex_lock(&b->lock);
    l = b->link;
    force = b->force_model;
    pthread_mutex_unlock(&b->lock);
    int atten = -2; /* -2: unchanged */
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(tok, '=');
        if (!strcmp(tok, "published")) {
            eb_model_link_default(&l);
            force = false;
            atten = -1;
            continue;
        }
        if (!eq)
            return eb_fail(err, EB_ECONFIG, "link: '%s' is not KEY=VALUE (rssi, phy, rtt, loss, stations, model) or 'published'", tok);
        *eq = '\0';
        if (!strcmp(tok, "atten")) {
            char *end;
            double db = strtod(eq + 1, &end);
            if (!strcmp(eq + 1, "none"))
                atten = -1;
            else if (end == eq + 1 || *end || !(db >= 0 && db <= 200))
                return eb_fail(err, EB_ECONFIG, "link: atten=%s must be 0..200 dB or none", eq + 1);
            else
                atten = (int)lround(db * 100);
            continue;
        }
        if (!strcmp(tok, "model")) {
            if (strcmp(eq + 1, "on") && strcmp(eq + 1, "off"))
                return eb_fail(err, EB_ECONFIG, "link: model=%s must be on or off", eq + 1);
            force = !strcmp(eq + 1, "on");
        } else if (eb_model_link_set(&l, tok, eq + 1, err)) {
            return eb_error_prefix(err, "link: "), EB_ECONFIG;
        }
    }
    if (atten >= 0 && b->n_aps) {
        /* the board's AP (the strongest) through the attenuator; the model's floor is -100 dBm */
        int best = b->aps[0].rssi;
        for (int i = 1; i < b->n_aps; i++)
            best = b->aps[i].rssi > best ? b->aps[i].rssi : best;
        l.rssi_dbm = fmax(best - atten / 100.0, -100);
    }
    if ((force || !eb_model_link_is_published(&l)) && !b->model)
        return eb_fail(err, EB_ECONFIG, "link: no model constants (profiles/model/model.yaml) on this board");
    if (atten != -2)
        __atomic_store_n(&b->atten_cdb, atten, __ATOMIC_RELAXED);
    pthread_mutex_lock(&b->lock);
    b->link = l;
    b->force_model = force;
    pthread_mutex_unlock(&b->lock);
    if (b->console) {
        pthread_mutex_lock(&b->console->lock);
        update_heap(b->console);
        pthread_mutex_unlock(&b->console->lock);
    }
    char rssi[16] = "-", phy[16] = "-";
    if (!isnan(l.rssi_dbm))
        snprintf(rssi, sizeof rssi, "%g", l.rssi_dbm);
    if (!isnan(l.phy_mbps))
        snprintf(phy, sizeof phy, "%g", l.phy_mbps);
    eb_buf_printf(reply, "rssi=%s phy=%s rtt=%g loss=%g stations=%g model=%s", rssi, phy, l.rtt_ms, l.loss_pct,
                  l.stations > 1 ? l.stations : 1, force ? "on" : "off");
    int cdb = __atomic_load_n(&b->atten_cdb, __ATOMIC_RELAXED);
    if (cdb >= 0)
        eb_buf_printf(reply, " atten=%g", cdb / 100.0);
    return 0;
}

void vb_con_restart(vb_console *c) { c->b->request_reset(c->b, false, "SW_CPU_RESET"); }

/* ------------------------------------------------------------------ Wi-Fi */

static bool aps_gone(vb_console *c)
{
    if (!c->no_ap && vb_board_take_fault(c->b, "no-ap", NULL, NULL))
        c->no_ap = true;
    return c->no_ap;
}

int vb_con_wifi_scan(vb_console *c, const char *ssid, vb_wifi_scan_entry *out, int max)
{
    return aps_gone(c) ? 0 : vb_wifi_scan(c->b, ssid, out, max);
}

int vb_con_wifi_connect(vb_console *c, const char *ssid, const char *pass, int wrong_pass_reason)
{
    int reason = aps_gone(c) ? VB_REASON_NO_AP_FOUND : vb_wifi_connect(c->b, ssid, pass, wrong_pass_reason, NULL);
    if (reason != 0) {
        c->connected = false;
        return reason;
    }
    c->connected = true;
    snprintf(c->ssid, sizeof c->ssid, "%s", ssid);
    vb_wifi_ip_info(c->b, c->ip, c->mask, c->gw);
    return 0;
}

/* ------------------------------------------------------------------ iperf */

static int test_of(const vb_iperf_req *r)
{
    if (r->udp)
        return r->server ? EB_TEST_UDP_RX : EB_TEST_UDP_TX;
    return r->server ? EB_TEST_TCP_RX : EB_TEST_TCP_TX;
}

/* The rate a test is shaped to: published or model (docs/model.md); 20
 * Mbit/s only when the board has neither (no constants file). The model's
 * UDP RX figure is what the board keeps: the shaper drops the rest, so the
 * loss iperf reports follows the model. */
static double model_mbps(vb_console *c, int test)
{
    double v;
    c->run.source = figure(c, test, &v);
    if (isnan(v) || v <= 0) {
        c->run.source = EB_FIG_NONE;
        return isnan(v) ? 20.0 : 0.01;
    }
    return v * c->test_efficiency; /* an image's test-only factor (docs/vboard.md) */
}

/* The model of a round trip under load (run --latency-under-load, labelled
 * a model in docs/dimensions.md): an echo datagram waits behind what the
 * run keeps queued on the board's side of the link, drained at the shaped
 * rate — for TCP TX the send buffer (TCP_SND_BUF_DEFAULT), for TCP RX the
 * window in flight towards it (TCP_WND_DEFAULT), for UDP TX the Wi-Fi
 * driver's dynamic TX buffers and for UDP RX its dynamic RX buffers, a
 * 1600-byte frame each (assumption: full buffers, as iperf keeps them).
 * 0 when the tier's settings are unknown. */
#define VB_FRAME_BYTES 1600.0
static double load_queue_ms(const vb_console *c, int test, double mbps)
{
    static const struct {
        int test, field;
        double unit;
    } queues[] = {
        {EB_TEST_TCP_TX, EB_F_TCP_SND_BUF_KB, 1024}, {EB_TEST_TCP_RX, EB_F_TCP_WND_KB, 1024},
        {EB_TEST_UDP_TX, EB_F_DYNAMIC_TX, VB_FRAME_BYTES}, {EB_TEST_UDP_RX, EB_F_DYNAMIC_RX, VB_FRAME_BYTES},
    };
    for (size_t i = 0; c->have_runs && mbps > 0 && i < sizeof queues / sizeof queues[0]; i++)
        if (queues[i].test == test && c->runs.set[queues[i].field])
            return c->runs.value[queues[i].field] * queues[i].unit * 8.0 / (mbps * 1000.0);
    return 0;
}

/* A fault for this run: `when` empty, the test's name, or a time ("2s"). */
static bool take_run_fault(vb_console *c, const char *kind, const char *test, vb_fault *f)
{
    if (vb_board_take_fault(c->b, kind, test, f))
        return true;
    char when[32] = "";
    pthread_mutex_lock(&c->b->lock);
    for (int i = 0; i < c->b->n_faults; i++) {
        const vb_fault *x = &c->b->faults[i];
        size_t n = strlen(x->when);
        if (x->armed && strcmp(x->kind, kind) == 0 && n > 1 && x->when[n - 1] == 's' &&
            strspn(x->when, "0123456789.") == n - 1) {
            snprintf(when, sizeof when, "%s", x->when);
            break;
        }
    }
    pthread_mutex_unlock(&c->b->lock);
    return when[0] && vb_board_take_fault(c->b, kind, when, f);
}

/* A fault due at this point of the run: when empty, the test, or a time not after now. */
static bool take_interval_fault(vb_console *c, const char *kind, double now_s, vb_fault *f)
{
    const char *test = eb_test_name(c->run.test);
    char when[32] = "";
    bool any = false;
    pthread_mutex_lock(&c->b->lock);
    for (int i = 0; i < c->b->n_faults; i++) {
        const vb_fault *x = &c->b->faults[i];
        if (!x->armed || strcmp(x->kind, kind) != 0)
            continue;
        size_t n = strlen(x->when);
        if (n == 0 || strcmp(x->when, test) == 0) {
            any = true;
            break;
        }
        if (n > 1 && x->when[n - 1] == 's' && atof(x->when) <= now_s + 1e-6) {
            snprintf(when, sizeof when, "%s", x->when);
            break;
        }
    }
    pthread_mutex_unlock(&c->b->lock);
    if (any)
        return vb_board_take_fault(c->b, kind, test, f);
    return when[0] && vb_board_take_fault(c->b, kind, when, f);
}

static void *aborter_main(void *arg)
{
    vb_console *c = arg;
    c->traffic.abort(c->iperf);
    return NULL;
}

/* Panic as ESP-IDF prints it, then a software reset. */
static void panic(vb_console *c)
{
    /* The register dump's shape follows the CPU (profile fact `arch`). */
    bool xtensa = c->b->chip && c->b->chip->arch == EB_ARCH_XTENSA;
    if (xtensa) {
        vb_con_printf(c, "Guru Meditation Error: Core  0 panic'ed (LoadProhibited). Exception was unhandled.\r\n\r\n"
                         "Core  0 register dump:\r\n"
                         "PC      : 0x400d2f3c  PS      : 0x00060d30  A0      : 0x800d3a41  A1      : 0x3ffb8e70  \r\n"
                         "EXCVADDR: 0x00000000  LBEG    : 0x4000c2e0  LEND    : 0x4000c2f6  LCOUNT  : 0x00000000  \r\n\r\n\r\n"
                         "Backtrace: 0x400d2f39:0x3ffb8e70 0x400d3a3e:0x3ffb8ea0 0x4008c7f1:0x3ffb8ed0\r\n\r\n\r\n\r\n");
    } else {
        vb_con_printf(c, "Guru Meditation Error: Core  0 panic'ed (Load access fault). Exception was unhandled.\r\n\r\n"
                         "Core  0 register dump:\r\n"
                         "MEPC    : 0x42008a3c  RA      : 0x42008a34  SP      : 0x3fc9a1d0  GP      : 0x3fc8e600  \r\n"
                         "MTVAL   : 0x00000000  MCAUSE  : 0x00000005  \r\n\r\n"
                         "Stack memory:\r\n3fc9a1d0: 0x00000000 0x00000000 0x3fc9a208 0x42008b12\r\n\r\n"
                         "Backtrace: 0x42008a3c:0x3fc9a1d0 0x42008b0f:0x3fc9a200 0x40385b2a:0x3fc9a230\r\n\r\n\r\n");
    }
    vb_con_printf(c, "ELF file SHA256: 6e3c1b0f5a2d9c47\r\n\r\nRebooting...\r\n");
    c->dead = true;
    c->b->request_reset(c->b, false, "SW_CPU_RESET");
}

static void on_report(void *user, const vb_iperf_report *r)
{
    vb_console *c = user;
    pthread_mutex_lock(&c->run_lock);
    if (c->dead || c->run.done) {
        pthread_mutex_unlock(&c->run_lock);
        return;
    }
    vb_fault f;
    if (r->event == VB_IPERF_INTERVAL && take_interval_fault(c, "reboot", r->end_s, &f)) {
        panic(c);
        pthread_mutex_unlock(&c->run_lock);
        return;
    }
    if (r->event == VB_IPERF_INTERVAL && take_interval_fault(c, "wifi-disconnect", r->end_s, &f)) {
        /* The link drops: the firmware reports it and the test dies with it. */
        c->run.done = true;
        c->connected = false;
        if (c->drv->wifi_lost)
            c->drv->wifi_lost(c, VB_REASON_ASSOC_LEAVE);
        if (!c->aborter_active && pthread_create(&c->aborter, NULL, aborter_main, c) == 0)
            c->aborter_active = true;
        pthread_mutex_unlock(&c->run_lock);
        return;
    }
    switch (r->event) {
    case VB_IPERF_CONNECTED:
        c->run.connected = true;
        /* The engine's time 0: a UDP server's is its first datagram's arrival, earlier than now. */
        c->run.t0_ms = r->t0_us ? r->t0_us / 1000u : eb_now_ms();
        break;
    case VB_IPERF_INTERVAL:
        if (r->end_s > r->start_s) {
            c->run.sum_mbps += (double)r->bytes * 8.0 / (r->end_s - r->start_s) / 1e6;
            c->run.n_intervals++;
        }
        c->run.bytes += r->bytes;
        c->run.last_end_s = r->end_s;
        break;
    case VB_IPERF_DONE:
        c->run.done = true;
        break;
    default:
        break;
    }
    c->drv->report(c, r);
    pthread_mutex_unlock(&c->run_lock);
}

int vb_con_iperf_start(vb_console *c, char *msg, size_t msg_len)
{
    stop_iperf(c);
    const vb_iperf_req *q = &c->run.req;
    vb_iperf_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.server = q->server;
    cfg.udp = q->udp;
    snprintf(cfg.local_ip, sizeof cfg.local_ip, "%s", c->ip[0] ? c->ip : c->b->ip);
    snprintf(cfg.remote_ip, sizeof cfg.remote_ip, "%s", q->host);
    cfg.port = q->port ? q->port : 5001;
    cfg.interval_s = q->interval_s > 0 ? q->interval_s : 1;
    cfg.time_s = q->time_s > 0 ? q->time_s : 10;
    cfg.bw_limit_mbps = q->server ? 0 : q->bw_mbps;
    cfg.len = q->len;
    c->run.test = test_of(q);
    cfg.model_mbps = model_mbps(c, c->run.test);
    cfg.noise_pct = c->b->noise_pct;
    cfg.seed = c->b->seed + (uint32_t)c->next_id;
    cfg.send_udp_server_report = false; /* no firmware answers a UDP client's end marker (espressif/iperf) */
    const char *test = eb_test_name(c->run.test);
    vb_fault f;
    bool no_stop = take_run_fault(c, "no-stop", test, &f);
    if (no_stop || take_run_fault(c, "stall", test, &f))
        cfg.stall = true;
    if (take_run_fault(c, "zero", test, &f)) {
        cfg.zero_intervals = f.arg[0] ? atoi(f.arg) : 1;
        size_t n = strlen(f.when);
        cfg.zero_from_s = n > 1 && f.when[n - 1] == 's' ? atof(f.when) : cfg.interval_s;
    }
    double queue_ms = load_queue_ms(c, c->run.test, cfg.model_mbps);
    pthread_mutex_lock(&c->run_lock);
    c->run.connected = c->run.done = false;
    c->run.no_stop = no_stop;
    c->run.queue_ms = queue_ms;
    c->run.sum_mbps = 0;
    c->run.n_intervals = 0;
    c->run.bytes = 0;
    c->run.last_end_s = 0;
    c->run.t0_ms = 0;
    c->run.id = ++c->next_id;
    pthread_mutex_unlock(&c->run_lock);
    eb_error err;
    eb_error_clear(&err);
    if (c->traffic.start(&c->iperf, &cfg, on_report, c, &err) != 0) {
        c->iperf = NULL;
        snprintf(msg, msg_len, "%s", err.msg);
        return -1;
    }
    return 0;
}

bool vb_con_iperf_running(vb_console *c)
{
    if (!c->iperf)
        return false;
    pthread_mutex_lock(&c->run_lock);
    bool done = c->run.done;
    pthread_mutex_unlock(&c->run_lock);
    return !done && c->traffic.running(c->iperf);
}

void vb_con_iperf_abort(vb_console *c)
{
    pthread_mutex_lock(&c->run_lock);
    c->run.done = true;  /* no report after an abort */
    pthread_mutex_unlock(&c->run_lock);
    stop_iperf(c);
}

/* ------------------------------------------------------------------ boot */

static void parse_idf(vb_console *c, const char *v)
{
    int major = 0, minor = 0, patch = 0;
    if (*v == 'v' || *v == 'V')
        v++;
    if (sscanf(v, "%d.%d.%d", &major, &minor, &patch) >= 1) {
        c->idf_key = major * 100 + minor;
        c->idf_patch = patch;
    }
}

/* ESPTOOLPY_FLASHFREQ's default per chip (ESP-IDF v6.0.2
 * components/spi_flash/<chip>/Kconfig.flash_freq); 40 MHz elsewhere (the
 * ESP32's, the ESP32-P4 rev. 0's and the ESP8266 SDK's). The real ESP32-C3 image's boot log says
 * "SPI Speed      : 80MHz" (tests/fixtures/firmware-real/boot-uart0.txt). */
unsigned vb_con_flash_mhz(const vb_console *c)
{
    static const struct {
        const char *chip;
        unsigned mhz;
    } freq[] = {{"esp32s2", 80}, {"esp32s3", 80}, {"esp32c2", 60}, {"esp32c3", 80},
                {"esp32c5", 80}, {"esp32c6", 80}, {"esp32c61", 80}};
    for (size_t i = 0; c->b->chip && i < sizeof freq / sizeof freq[0]; i++)
        if (strcmp(c->b->chip->name, freq[i].chip) == 0)
            return freq[i].mhz;
    return 40;
}

static void boot_log(vb_console *c, const eb_image_info *app)
{
    const eb_chip *chip = c->b->chip;
    const char *cn = chip ? chip->name : "esp32";
    const eb_dialect_desc *row = eb_dialect_desc_get(c->dialect);
    bool esp8266 = row && row->grammar == EB_DIALECT_ESP8266;
    char boot_tag[32];
    snprintf(boot_tag, sizeof boot_tag, c->idf_key >= 400 && !esp8266 ? "boot.%s" : "boot", cn);
    unsigned fsz = chip ? chip->flash_size / (1024 * 1024) : 4;
    vb_con_log(c, 'I', "boot", "ESP-IDF %s 2nd stage bootloader", c->idf);
    vb_con_log(c, 'I', "boot", "compile time %s %s", app && app->date[0] ? app->date : "Jan  1 2026",
               app && app->time[0] ? app->time : "00:00:00");
    if (!esp8266)
        vb_con_log(c, 'I', "boot", "chip revision: v1.0");
    vb_con_log(c, 'I', boot_tag, "SPI Speed      : %uMHz", vb_con_flash_mhz(c));
    vb_con_log(c, 'I', boot_tag, "SPI Mode       : DIO");
    vb_con_log(c, 'I', boot_tag, "SPI Flash Size : %uMB", fsz ? fsz : 4);
    vb_con_log(c, 'I', "boot", "Partition Table:");
    vb_con_log(c, 'I', "boot", "## Label            Usage          Type ST Offset   Length");
    vb_con_log(c, 'I', "boot", " 0 nvs              WiFi data        01 02 00009000 00006000");
    vb_con_log(c, 'I', "boot", " 1 phy_init         RF data          01 01 0000f000 00001000");
    vb_con_log(c, 'I', "boot", " 2 factory          factory app      00 00 00010000 00100000");
    vb_con_log(c, 'I', "boot", "End of partition table");
    vb_con_log(c, 'I', "boot", "Loaded app from partition at offset 0x10000");
    if (esp8266) {
        vb_con_log(c, 'I', "system_api", "Base MAC address is not set, read default base MAC address from EFUSE");
        return;
    }
    vb_con_log(c, 'I', "cpu_start", "Pro cpu up.");
    vb_con_log(c, 'I', "cpu_start", "Pro cpu start user code");
    vb_con_log(c, 'I', "cpu_start", "cpu freq: %.0f Hz", (chip && chip->cpu_mhz > 0 ? chip->cpu_mhz : 160.0) * 1e6);
    /* The app information block moved from cpu_start to app_init in v5.1. */
    const char *tag = c->idf_key >= 501 ? "app_init" : "cpu_start";
    vb_con_log(c, 'I', tag, "Application information:");
    vb_con_log(c, 'I', tag, "Project name:     %s", c->project);
    vb_con_log(c, 'I', tag, "App version:      %s", c->app_version);
    vb_con_log(c, 'I', tag, "Compile time:     %s %s", app && app->date[0] ? app->date : "Jan  1 2026",
               app && app->time[0] ? app->time : "00:00:00");
    vb_con_log(c, 'I', tag, "ESP-IDF:          %s", c->idf);
    if (c->idf_key >= 501) {
        vb_con_log(c, 'I', "main_task", "Started on CPU0");
        vb_con_log(c, 'I', "main_task", "Calling app_main()");
    }
}

void vb_console_boot(vb_console *c, const eb_image_info *app, const char *reset_reason)
{
    (void)reset_reason; /* the ROM banner (vb_rom) prints it */
    pthread_mutex_lock(&c->lock);
    stop_iperf(c);
    c->boot_ms = eb_now_ms();
    c->boot_bias_ms = 0;
    c->running_app = false;
    c->dead = false;
    c->connected = false;
    c->no_ap = false;
    c->no_wifi_start = false;
    c->len = 0;
    c->esc = 0;
    c->overflow = false;
    c->next_id = 0;
    const char *chip = c->b->chip ? c->b->chip->name : "esp32";
    bool has_desc = app && app->has_app_desc;
    snprintf(c->project, sizeof c->project, "%s", has_desc ? app->project_name : "iperf");
    snprintf(c->app_version, sizeof c->app_version, "%s", has_desc && app->version[0] ? app->version : "1");
    snprintf(c->idf, sizeof c->idf, "%s",
             has_desc && app->idf_ver[0] ? app->idf_ver : strcmp(chip, "esp8266") == 0 ? "v3.4" : "v5.5");
    c->test_efficiency = has_desc && app->test_efficiency > 0 ? app->test_efficiency : 1.0;
    snprintf(c->build_tier, sizeof c->build_tier, "%s", has_desc ? app->test_build_tier : "");
    c->idf_key = c->idf_patch = 0;
    parse_idf(c, c->idf);
    c->dialect = eb_dialect_from_app(c->project, c->idf, chip);
    if (c->dialect == EB_DIALECT_UNKNOWN)
        c->dialect = EB_DIALECT_IDF_LEGACY;
    c->drv = c->dialect == EB_DIALECT_ESPBENCH ? vb_dialect_espbench_driver() : vb_dialect_stock_driver(c->dialect);
    vb_con_set_tier(c, vb_con_boot_tier(c));
    boot_log(c, app);
    if (c->dialect == EB_DIALECT_ESPBENCH)
        vb_dialect_espbench_boot(c);
    c->drv->banner(c);
    vb_con_printf(c, "%s", c->drv->prompt(c));
    c->running_app = true;
    c->rawtp = vb_hosted_rawtp_start(c);
    pthread_mutex_unlock(&c->lock);
}

double vb_console_load_queue_ms(vb_console *c)
{
    pthread_mutex_lock(&c->run_lock);
    double q = c->run.id > 0 && !c->run.done ? c->run.queue_ms : -1;
    pthread_mutex_unlock(&c->run_lock);
    return q;
}

unsigned vb_console_echo_port(vb_console *c)
{
    pthread_mutex_lock(&c->lock);
    const eb_dialect_desc *d = eb_dialect_desc_get(c->dialect);
    unsigned port = c->running_app && !c->dead && c->connected && d ? d->udp_echo_port : 0;
    pthread_mutex_unlock(&c->lock);
    return port;
}

/* ------------------------------------------------------------------ line editor */

/* Whether typed characters are echoed: linenoise dumb mode echoes them,
 * except a password line the espbench firmware reads itself. */
static bool echo_on(vb_console *c)
{
    return !(c->dialect == EB_DIALECT_ESPBENCH && ebc_wants_secret(&c->core));
}

static void run_line(vb_console *c)
{
    c->line[c->len] = '\0';
    bool secret = !echo_on(c);
    if (!secret)
        vb_con_write(c, "\r\n", 2);
    if (c->overflow) {
        c->overflow = false;
        c->len = 0;
        vb_con_printf(c, "%s", c->drv->prompt(c));
        return;
    }
    /* A wifi-disconnect fault armed for idle time fires at the next command. */
    vb_fault f;
    if (c->connected && !vb_con_iperf_running(c) && vb_board_take_fault(c->b, "wifi-disconnect", "", &f)) {
        c->connected = false;
        if (c->drv->wifi_lost)
            c->drv->wifi_lost(c, VB_REASON_ASSOC_LEAVE);
    }
    c->drv->line(c, c->line);
    if (secret)
        memset(c->line, 0, sizeof c->line);
    c->len = 0;
    /* The REPL prompts for every line it reads, the password line included. */
    if (c->running_app && !c->dead)
        vb_con_printf(c, "%s", c->drv->prompt(c));
}

void vb_console_feed(vb_console *c, const uint8_t *data, size_t len)
{
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < len && c->running_app && !c->dead; i++) {
        uint8_t ch = data[i];
        if (c->esc) {
            /* Swallow ESC [ ... final byte (e.g. a probe answer "\x1b[0n"). */
            if (c->esc == 1 && ch != '[')
                c->esc = 0;
            else if (c->esc == 1)
                c->esc = 2;
            else if (ch >= 0x40 && ch <= 0x7e)
                c->esc = 0;
            continue;
        }
        if (ch == 0x1b) {
            c->esc = 1;
            continue;
        }
        if (ch == '\n' && c->last_cr) {
            c->last_cr = false;
            continue;
        }
        c->last_cr = ch == '\r';
        if (ch == '\r' || ch == '\n') {
            run_line(c);
            continue;
        }
        if (ch == 0x7f || ch == 0x08) {
            if (c->len > 0) {
                c->len--;
                if (echo_on(c))
                    vb_con_write(c, "\x08 \x08", 3);
            }
            continue;
        }
        if (ch < 0x20)
            continue;
        if (c->len + 1 >= sizeof c->line) {
            c->overflow = true;
            continue;
        }
        c->line[c->len++] = (char)ch;
        if (echo_on(c))
            vb_con_write(c, (const char *)&ch, 1);
    }
    pthread_mutex_unlock(&c->lock);
}
