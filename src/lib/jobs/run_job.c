/* The run orchestrator (run.h). Per board: open the console, detect the
 * dialect, then per tier apply it (tier_set or flash), scan and connect, and
 * per test start both iperf ends, collect both sides' intervals, read free
 * memory, compute statistics and save results.json/results.csv atomically.
 * Failures are classified so that each gets its documented outcome: a reboot
 * or a failed test is retried, a lost port ends the board, Ctrl-C ends the
 * run with what was finished kept. */
#include "espbench/fs.h"
#include "espbench/run.h"

#include <errno.h>
#include <openssl/evp.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "espbench/clock.h"
#include "espbench/console.h"
#include "espbench/console_driver.h"
#include "espbench/dialect.h"
#include "espbench/esp_image.h"
#include "espbench/firmware_source.h"
#include "espbench/flash.h"
#include "espbench/iperf_proc.h"
#include "espbench/log.h"
#include "espbench/merge.h"
#include "espbench/port.h"
#include "espbench/version.h"

#define UDP_RATE_FACTOR 1.3
#define UDP_RATE_FALLBACK 100.0
#define READY_MS 15000
#define CMD_MS 10000
#define WIFI_MS 30000
#define SCAN_TRIES 3
#define CONNECT_TRIES 2
#define MAX_PLAN 4096

static const char *const step_names[EB_STEP_COUNT] = {
    "open", "tier", "wifi", "setup", "traffic", "teardown", "memory", "save",
};

void eb_sha256_hex(const void *data, size_t len, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(data, len, md, &n, EVP_sha256(), NULL);
    for (unsigned i = 0; i < n && i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    out[64] = 0;
}

const char *eb_run_step_name(int step)
{
    return step >= 0 && step < EB_STEP_COUNT ? step_names[step] : "?";
}

void eb_run_opts_defaults(eb_run_opts *o)
{
    if (o->duration_s <= 0)
        o->duration_s = 10;
    if (o->interval_s <= 0)
        o->interval_s = 1;
    if (o->warmup_s < 0)
        o->warmup_s = o->interval_s;
    if (o->repeat <= 0)
        o->repeat = 1;
    if (!o->tests)
        o->tests = (1u << EB_TEST_COUNT) - 1;
    if (o->retries < 0)
        o->retries = 2;
    if (!o->baud)
        o->baud = 115200;
}

static bool test_is_tx(int test) { return test == EB_TEST_TCP_TX || test == EB_TEST_UDP_TX; }
static bool test_is_udp(int test) { return test == EB_TEST_UDP_TX || test == EB_TEST_UDP_RX; }

double eb_run_udp_rate(const eb_run_opts *o, const eb_tier *t, int test)
{
    if (o->udp_rate_mbps > 0)
        return o->udp_rate_mbps;
    double ref = t ? t->ref_mbps[test] : NAN;
    if (isfinite(ref) && ref > 0)
        return round(ref * UDP_RATE_FACTOR * 10) / 10;
    return UDP_RATE_FALLBACK;
}

int eb_run_plan(const eb_run_opts *o, const eb_chip *chip, eb_run_item *out, int cap, eb_error *err)
{
    const eb_tier *tiers[EB_RUN_MAX_TIERS + 64];
    int nt = 0;
    const int max = (int)(sizeof tiers / sizeof tiers[0]);
    /* "all" = the docs' main table (tiers without PSRAM); "psram" = the PSRAM tiers. */
    static const char *const all_list[] = {"all"};
    const char *const *names = o->n_tiers ? o->tiers : all_list;
    int n_names = o->n_tiers ? o->n_tiers : 1;
    for (int i = 0; i < n_names; i++) {
        bool all = !strcmp(names[i], "all"), psram = !strcmp(names[i], "psram");
        if (all || psram) {
            for (int k = 0; k < chip->n_tiers && nt < max; k++)
                if (chip->tiers[k].psram == psram)
                    tiers[nt++] = &chip->tiers[k];
            continue;
        }
        const eb_tier *t = eb_chip_tier(chip, names[i]);
        if (!t) {
            char list[512] = "";
            size_t n = 0;
            for (int k = 0; k < chip->n_tiers && n < sizeof list - 40; k++)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", chip->tiers[k].name);
            return -eb_fail(err, EB_ECONFIG, "chip %s has no tier '%s' (tiers: %s; or all, psram)", chip->name,
                            names[i], list);
        }
        if (nt < max)
            tiers[nt++] = t;
    }
    int n = 0;
    for (int i = 0; i < nt; i++) {
        for (int test = 0; test < EB_TEST_COUNT; test++) {
            if (!(o->tests & (1u << test)))
                continue;
            if (o->shard_total > 0) {
                char key[128];
                eb_shard_key(key, sizeof key, chip->name, tiers[i]->name, test);
                if (!eb_shard_select(o->shard_index, o->shard_total, key))
                    continue;
            }
            for (int r = 0; r < o->repeat; r++) {
                if (n < cap)
                    out[n] = (eb_run_item){tiers[i], test, r};
                n++;
            }
        }
    }
    return n;
}

/* ------------------------------------------------------------ shared state */

typedef struct run_shared {
    const eb_run_opts *o;
    eb_results results;
    pthread_mutex_t lock; /* results, summary, progress callbacks */
    eb_run_summary *sum;
    char json_path[1024], csv_path[1024];
    char host[64];
    char iperf_version[64];
} run_shared;

typedef struct board_ctx {
    run_shared *sh;
    eb_run_board *b;
    const eb_chip *chip;
    eb_port *port;
    eb_console *con;
    const eb_console_driver *drv;
    FILE *console_log;
    eb_console_boot_info ident;
    eb_wifi_info wifi;
    const eb_tier *tier;   /* applied and connected with it; NULL = redo */
    char tier_note[256];   /* build-time settings the board runs with other values */
    const char *label;     /* board name for messages */
    char fw_sha256[72];    /* of the application image, when known */
    int index, total;
    eb_error err;
    eb_prov_tracker prov;  /* provenance facts seen on the console (issue 17) */
} board_ctx;

static void emit(board_ctx *bc, int event, const eb_run_item *it, const char *msg, double elapsed,
                 double mbps, const eb_entry *e)
{
    const eb_run_opts *o = bc->sh->o;
    if (!o->progress)
        return;
    eb_run_progress p = {
        .event = event, .board = bc->b->name, .chip = bc->chip->name,
        .tier = it ? it->tier->name : "", .test = it ? it->test : -1, .repeat = it ? it->repeat : 0,
        .index = bc->index, .total = bc->total, .elapsed_s = elapsed, .duration_s = o->duration_s,
        .current_mbps = mbps, .entry = e, .message = msg,
    };
    pthread_mutex_lock(&bc->sh->lock);
    o->progress(o->user, &p);
    pthread_mutex_unlock(&bc->sh->lock);
}

static void infof(board_ctx *bc, int event, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void infof(board_ctx *bc, int event, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    emit(bc, event, NULL, msg, 0, NAN, NULL);
}

static void step_done(board_ctx *bc, int step, uint64_t t0_us)
{
    double ms = (double)(eb_now_us() - t0_us) / 1000.0;
    pthread_mutex_lock(&bc->sh->lock);
    bc->sh->sum->step_ms[step] += ms;
    pthread_mutex_unlock(&bc->sh->lock);
    if (bc->sh->o->step)
        bc->sh->o->step(bc->sh->o->user, bc->b->name, step, ms);
}

static bool stopped(const board_ctx *bc)
{
    return bc->sh->o->stop && *bc->sh->o->stop;
}

/* Entries in a stable order whatever the boards' pace: board (lab order),
 * tier (profile order), test, repeat. Concurrent and sequential runs then
 * write the same file. */
static const eb_run_opts *sort_opts; /* qsort has no user pointer; set under the lock */

static int rank_of(const eb_entry *e, int *tier_rank)
{
    const eb_run_opts *o = sort_opts;
    int b = o->n_boards;
    for (int i = 0; i < o->n_boards; i++)
        if (!strcmp(o->boards[i].name, e->board)) {
            b = i;
            break;
        }
    *tier_rank = 1 << 20;
    const eb_chip *c = eb_profiles_chip(o->profiles, e->chip);
    for (int i = 0; c && i < c->n_tiers; i++)
        if (!strcmp(c->tiers[i].name, e->tier))
            *tier_rank = i;
    return b;
}

static int entry_cmp(const void *pa, const void *pb)
{
    const eb_entry *a = pa, *b = pb;
    int ta, tb;
    int ba = rank_of(a, &ta), bb = rank_of(b, &tb);
    if (ba != bb)
        return ba - bb;
    int c = strcmp(a->board, b->board);
    if (!c)
        c = strcmp(a->chip, b->chip);
    if (c)
        return c;
    if (ta != tb)
        return ta < tb ? -1 : 1;
    if (ta == 1 << 20 && (c = strcmp(a->tier, b->tier)) != 0)
        return c;
    if (a->test != b->test)
        return a->test - b->test;
    return a->repeat - b->repeat;
}

/* Saves both files; called with the lock held. */
static int save_locked(run_shared *sh, eb_error *err)
{
    sort_opts = sh->o;
    if (sh->results.n_entries > 1)
        qsort(sh->results.entries, (size_t)sh->results.n_entries, sizeof *sh->results.entries, entry_cmp);
    eb_iso8601_utc(sh->results.generated);
    int rc = eb_results_save_json(&sh->results, sh->json_path, err);
    if (!rc)
        rc = eb_results_save_csv(&sh->results, sh->csv_path, err);
    return rc;
}

static void console_capture(void *user, const char *line)
{
    board_ctx *bc = user;
    eb_prov_track_line(&bc->prov, line);
    if (bc->console_log) {
        fprintf(bc->console_log, "%s\n", line);
        fflush(bc->console_log);
    }
}

static const char *file_label(const board_ctx *bc)
{
    return bc->b->name[0] ? bc->b->name : "board";
}

/* ------------------------------------------------------------ board steps */

static void close_console(board_ctx *bc)
{
    eb_console_free(bc->con);
    bc->con = NULL;
    eb_port_close(bc->port);
    bc->port = NULL;
}

/* Starts the console session on bc->port, or on a newly opened port when
 * bc->port is NULL. app: the descriptor of the image just flashed (NULL if
 * none), standing in for a boot log the console may have missed. */
static int open_console(board_ctx *bc, const eb_image_info *app, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    uint64_t t0 = eb_now_us();
    int rc;
    if (!bc->port && (rc = eb_port_open(&bc->port, bc->b->port, o->baud, err)) != 0)
        return rc;
    eb_console_open(&bc->con, bc->port, err);
    eb_console_set_stop(bc->con, o->stop);
    eb_console_set_capture(bc->con, console_capture, bc);
    eb_console_add_secret(bc->con, o->password);
    if (app && app->has_app_desc)
        eb_console_note_app(bc->con, app->project_name, app->version, app->idf_ver);
    if (bc->b->dialect[0]) {
        bc->drv = eb_console_driver_by_name(bc->b->dialect);
        if (!bc->drv)
            return eb_fail(err, EB_ECONFIG, "no console dialect '%s'", bc->b->dialect);
        eb_console_set_prompts(bc->con, bc->drv->prompts);
        rc = bc->drv->ready(bc->drv, bc->con, eb_deadline_in(READY_MS), err);
    } else {
        rc = eb_console_detect(bc->con, bc->chip->name, &bc->drv, eb_deadline_in(READY_MS), err);
    }
    if (rc)
        return rc;
    bc->ident = *eb_console_boot(bc->con);
    if (bc->drv->identify) {
        rc = bc->drv->identify(bc->drv, bc->con, &bc->ident, eb_deadline_in(CMD_MS), err);
        if (rc)
            return rc;
    }
    if (bc->ident.chip[0] && strcmp(bc->ident.chip, bc->chip->name) != 0)
        return eb_fail(err, EB_ECONFIG, "%s: the board is an %s, not an %s: pass --chip %s",
                       bc->b->port, bc->ident.chip, bc->chip->name, bc->ident.chip);
    step_done(bc, EB_STEP_OPEN, t0);
    return 0;
}

static void fill_meta(board_ctx *bc)
{
    run_shared *sh = bc->sh;
    pthread_mutex_lock(&sh->lock);
    eb_board_meta *m = eb_results_board(&sh->results, bc->b->name, true);
    snprintf(m->board, sizeof m->board, "%s", bc->b->name);
    snprintf(m->chip, sizeof m->chip, "%s", bc->chip->name);
    if (bc->ident.mac[0])
        snprintf(m->mac, sizeof m->mac, "%s", bc->ident.mac);
    snprintf(m->port, sizeof m->port, "%s", bc->b->port);
    if (bc->drv)
        snprintf(m->dialect, sizeof m->dialect, "%s", bc->drv->name);
    if (bc->ident.project[0])
        snprintf(m->fw_project, sizeof m->fw_project, "%s", bc->ident.project);
    if (bc->ident.app_version[0])
        snprintf(m->fw_version, sizeof m->fw_version, "%s", bc->ident.app_version);
    if (bc->ident.idf_version[0])
        snprintf(m->idf_version, sizeof m->idf_version, "%s", bc->ident.idf_version);
    if (bc->fw_sha256[0])
        snprintf(m->fw_sha256, sizeof m->fw_sha256, "%s", bc->fw_sha256);
    if (bc->wifi.ssid[0]) {
        snprintf(m->ap_ssid, sizeof m->ap_ssid, "%s", bc->wifi.ssid);
        m->rssi = bc->wifi.rssi;
    }
    if (bc->wifi.ip[0])
        snprintf(m->board_ip, sizeof m->board_ip, "%s", bc->wifi.ip);
    snprintf(m->pc_ip, sizeof m->pc_ip, "%s", bc->b->pc_ip);
    snprintf(m->host, sizeof m->host, "%s", sh->host);
    snprintf(m->iperf_version, sizeof m->iperf_version, "%s", sh->iperf_version);
    if (!m->started[0])
        eb_iso8601_utc(m->started);
    eb_iso8601_utc(m->finished);
    pthread_mutex_unlock(&sh->lock);
}

/* Stock firmware: the tier is an image of its own, flashed from the manifest. */
static int flash_tier(board_ctx *bc, const eb_tier *t, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    eb_image_set set = {0};
    eb_manifest_query q = {
        .manifest = o->manifest, .firmware = o->firmware ? o->firmware : "iperf-example",
        .chip = bc->chip->name, .tier = t->name, .cache_dir = NULL,
    };
    int rc = eb_image_set_from_manifest(&set, &q, err);
    if (rc) {
        eb_error_prefix(err, "tier %s needs its own image (stock firmware): ", t->name);
        return rc;
    }
    close_console(bc);
    infof(bc, EB_RUN_EV_INFO, "%s: flashing the %s image for tier %s", bc->label, q.firmware, t->name);
    eb_flash_opts fo = {.profiles = o->profiles, .expect_chip = bc->chip->name};
    eb_flash_session *fs = NULL;
    rc = eb_flash_open(&fs, bc->b->port, &fo, err);
    if (!rc)
        rc = eb_flash_write(fs, set.regions, set.n, NULL, err);
    if (!rc)
        rc = eb_flash_reset_after(fs, err);
    /* The app boots as soon as the loader lets go: the console takes the port
     * over without closing it, so the boot log is read rather than lost
     * between a close and a reopen. */
    if (!rc && (bc->port = eb_flash_release_port(fs, err)) == NULL)
        rc = err->code ? err->code : EB_EIO;
    eb_flash_close(fs);
    if (!rc && bc->port->baud != o->baud)
        rc = eb_port_set_baud(bc->port, o->baud, err);
    /* The application is the region at the app partition (the highest offset). */
    const eb_flash_region *app = NULL;
    for (int i = 0; i < set.n; i++)
        if (!app || set.regions[i].offset > app->offset)
            app = &set.regions[i];
    eb_image_info info;
    bool have_info = false;
    if (!rc && app) {
        eb_sha256_hex(app->data, app->len, bc->fw_sha256);
        eb_error ierr = {0};
        have_info = eb_image_parse(app->data, app->len, !strcmp(bc->chip->name, "esp8266"), &info,
                                   &ierr) == 0;
    }
    eb_image_set_free(&set);
    if (rc) {
        close_console(bc);
        return rc;
    }
    return open_console(bc, have_info ? &info : NULL, err);
}

static int apply_tier_and_wifi(board_ctx *bc, const eb_tier *t, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    uint64_t t0 = eb_now_us();
    int rc;
    bc->tier_note[0] = 0;
    if (bc->drv->runtime_tiers && bc->drv->set_tier) {
        rc = bc->drv->set_tier(bc->drv, bc->con, t, eb_deadline_in(WIFI_MS), err);
        /* One image serves every tier: say which build-time settings it cannot switch. */
        if (!rc && bc->drv->tier_built)
            rc = bc->drv->tier_built(bc->drv, bc->con, t, bc->tier_note, sizeof bc->tier_note,
                                     eb_deadline_in(CMD_MS), err);
        if (!rc && bc->tier_note[0])
            infof(bc, EB_RUN_EV_WARN, "%s: tier %s: the firmware's build-time settings differ: %s; "
                  "the runtime settings are the tier's", bc->label, t->name, bc->tier_note);
    } else {
        rc = flash_tier(bc, t, err);
    }
    if (rc)
        return rc;
    step_done(bc, EB_STEP_TIER, t0);
    t0 = eb_now_us();
    memset(&bc->wifi, 0, sizeof bc->wifi);
    for (int i = 1;; i++) {
        rc = bc->drv->scan(bc->drv, bc->con, o->ssid, &bc->wifi, eb_deadline_in(CMD_MS), err);
        if (!rc || i >= SCAN_TRIES || eb_console_port_failed(bc->con) || stopped(bc))
            break;
    }
    if (rc)
        return rc;
    for (int i = 1;; i++) {
        rc = bc->drv->connect(bc->drv, bc->con, o->ssid, o->password, &bc->wifi,
                              eb_deadline_in(WIFI_MS), err);
        if (!rc || i >= CONNECT_TRIES || eb_console_port_failed(bc->con) || stopped(bc))
            break;
        infof(bc, EB_RUN_EV_WARN, "%s: %s; retrying", bc->label, err->msg);
    }
    if (rc)
        return rc;
    step_done(bc, EB_STEP_WIFI, t0);
    infof(bc, EB_RUN_EV_INFO, "%s: tier %s, connected to '%s' (RSSI %d dBm), board address %s",
          bc->label, t->name, bc->wifi.ssid, bc->wifi.rssi, bc->wifi.ip);
    bc->tier = t;
    fill_meta(bc);
    return 0;
}

/* ------------------------------------------------------------ one test */

static double last_mbps(const eb_interval *iv, int n)
{
    return n > 0 ? iv[n - 1].mbps : NAN;
}

/* The latest non-final PC data line, for live progress. */
static double pc_last_mbps(eb_iperf_proc *p, int *count)
{
    eb_iperf_run *r = eb_iperf_proc_run(p);
    int n = 0;
    double v = NAN;
    for (int i = 0; i < r->n_samples; i++) {
        if (r->samples[i].final || r->samples[i].server_report || r->samples[i].sum)
            continue;
        n++;
        v = r->samples[i].iv.mbps;
    }
    *count = n;
    return v;
}

static void udp_figures(eb_entry *e, bool with_jitter)
{
    long lost = 0, total = 0;
    double jsum = 0;
    int jn = 0;
    for (int i = 0; i < e->n_receiver; i++) {
        const eb_interval *iv = &e->receiver[i];
        if (iv->lost >= 0 && iv->total > 0) {
            lost += iv->lost;
            total += iv->total;
        }
        if (isfinite(iv->jitter_ms)) {
            jsum += iv->jitter_ms;
            jn++;
        }
    }
    e->loss_pct = total > 0 ? 100.0 * (double)lost / (double)total : NAN;
    e->jitter_ms = with_jitter && jn ? jsum / jn : NAN;
}

typedef struct test_io {
    board_ctx *bc;
    const eb_run_item *it;
    eb_board_iperf cfg;
    eb_board_run run;
    eb_iperf_proc *pc;
    unsigned boots;
    uint64_t t0;           /* traffic start; 0 before */
    uint64_t last_emit_us;
    int seen;
} test_io;

/* Reads board lines and PC output for up to ms; returns 0, or an error
 * (EB_EINTR stop, EB_EIO port gone or reboot). */
static int pump(test_io *io, int ms, eb_error *err)
{
    board_ctx *bc = io->bc;
    char line[EB_CONSOLE_LINE_MAX];
    eb_deadline d = eb_deadline_in((uint64_t)ms);
    while (!eb_deadline_passed(d)) {
        int ev = eb_console_next(bc->con, line, sizeof line, eb_deadline_in(20), err);
        if (ev < 0)
            return -ev;
        if (eb_console_boot(bc->con)->boots != io->boots)
            return eb_fail(err, EB_EIO, "%s: the board rebooted during %s (%s)", bc->label,
                           eb_test_name(io->it->test), eb_console_boot(bc->con)->reset_reason);
        if (ev == EB_CON_LINE)
            bc->drv->iperf_line(bc->drv, &io->cfg, line, &io->run);
        bool pc_ended = false;
        if (io->pc && eb_iperf_proc_running(io->pc))
            pc_ended = eb_iperf_pump(io->pc, eb_deadline_in(0)) == 1;
        /* Live progress on each receiver interval. */
        int n;
        double v;
        if (io->cfg.board_sends)
            v = pc_last_mbps(io->pc, &n);
        else {
            n = io->run.n;
            v = last_mbps(io->run.iv, io->run.n);
        }
        /* Progress on each new receiver interval, and at least every 250 ms
         * so that the elapsed time ticks on a terminal. */
        uint64_t now = eb_now_us();
        if (io->t0 && (n > io->seen || now - io->last_emit_us >= 250000)) {
            io->seen = n;
            io->last_emit_us = now;
            emit(bc, EB_RUN_EV_PROGRESS, io->it, NULL, (double)(now - io->t0) / 1e6, v, NULL);
        }
        if (stopped(bc))
            return eb_fail(err, EB_EINTR, "interrupted");
        /* Return as soon as something the caller waits for happened. */
        if (io->run.done || io->run.failed || pc_ended)
            return 0;
    }
    return 0;
}

/* How long after the configured end a board may take to finish a test. */
static double grace_s(const eb_run_opts *o)
{
    return 5 + 2 * o->interval_s;
}

static void iperf_log_path(const board_ctx *bc, const eb_run_item *it, char *out, size_t cap)
{
    snprintf(out, cap, "%s/iperf-%s-%s-%s-r%d.log", bc->sh->o->out_dir, file_label(bc), it->tier->name,
             eb_test_name(it->test), it->repeat);
}

static int run_test(board_ctx *bc, const eb_run_item *it, eb_entry *e, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    test_io io = {.bc = bc, .it = it};
    eb_board_run_reset(&io.run);
    io.cfg.board_sends = test_is_tx(it->test);
    io.cfg.udp = test_is_udp(it->test);
    snprintf(io.cfg.peer, sizeof io.cfg.peer, "%s", bc->b->pc_ip);
    io.cfg.port = bc->b->iperf_port;
    io.cfg.time_s = o->duration_s;
    io.cfg.interval_s = o->interval_s;
    io.cfg.udp_rate_mbps = io.cfg.udp ? eb_run_udp_rate(o, it->tier, it->test) : 0;
    io.boots = eb_console_boot(bc->con)->boots;
    const char *prog = o->iperf ? o->iperf : eb_iperf_program();
    char logp[1200], port_s[16], t_s[32], i_s[32], rate_s[32], srv_t[32];
    iperf_log_path(bc, it, logp, sizeof logp);
    snprintf(port_s, sizeof port_s, "%u", io.cfg.port);
    snprintf(t_s, sizeof t_s, "%g", o->duration_s);
    snprintf(i_s, sizeof i_s, "%g", o->interval_s);
    snprintf(rate_s, sizeof rate_s, "%gm", io.cfg.udp_rate_mbps);
    /* The PC server ends by itself even if espbench is killed. */
    snprintf(srv_t, sizeof srv_t, "%g", o->duration_s + 30);
    int rc = 0;
    uint64_t t_setup = eb_now_us();
    eb_iso8601_utc(e->started);

    if (io.cfg.board_sends) {
        const char *args[20];
        int n = 0;
        args[n++] = prog;
        args[n++] = "-s";
        if (io.cfg.udp)
            args[n++] = "-u";
        args[n++] = "-B";
        args[n++] = bc->b->pc_ip;
        args[n++] = "-p";
        args[n++] = port_s;
        args[n++] = "-i";
        args[n++] = i_s;
        args[n++] = "-y";
        args[n++] = "C";
        args[n++] = "-t";
        args[n++] = srv_t;
        args[n] = NULL;
        rc = eb_iperf_spawn(&io.pc, prog, args, logp, err);
        if (rc)
            goto out;
        /* Start the board client only once the PC server listens. */
        eb_deadline ld = eb_deadline_in(3000);
        int b;
        while ((b = eb_net_port_bound(bc->b->pc_ip, io.cfg.port, io.cfg.udp)) == 0 && !eb_deadline_passed(ld)) {
            eb_iperf_pump(io.pc, eb_deadline_in(20));
            if (!eb_iperf_proc_running(io.pc))
                break;
        }
        if (b < 0)
            eb_sleep_ms(300);
        if (b == 0) {
            eb_iperf_stop(io.pc);
            rc = eb_iperf_proc_check(io.pc, err);
            if (!rc)
                rc = eb_fail(err, EB_EIO, "PC iperf server did not listen on %s port %u", bc->b->pc_ip, io.cfg.port);
            goto out;
        }
        rc = bc->drv->iperf_start(bc->drv, bc->con, &io.cfg, &io.run, eb_deadline_in(CMD_MS), err);
        if (rc)
            goto out;
        step_done(bc, EB_STEP_SETUP, t_setup);
        io.t0 = eb_now_us();
        emit(bc, EB_RUN_EV_TEST_START, it, NULL, 0, NAN, NULL);
        eb_deadline end = eb_deadline_in((uint64_t)((o->duration_s + grace_s(o)) * 1000));
        while (!io.run.done && !io.run.failed && !eb_deadline_passed(end)) {
            rc = pump(&io, 100, err);
            if (rc)
                goto out;
        }
        step_done(bc, EB_STEP_TRAFFIC, io.t0);
        uint64_t t_down = eb_now_us();
        if (io.run.failed) {
            rc = eb_fail(err, EB_EIO, "%s: board iperf failed: %s", bc->label, io.run.msg);
            goto out;
        }
        if (!io.run.done) {
            bc->drv->iperf_abort(bc->drv, bc->con, eb_deadline_in(CMD_MS), err);
            rc = eb_fail(err, EB_EIO, "%s: the board's iperf was still running %g s after the end of %s "
                         "(stalled?); aborted it", bc->label, grace_s(o), eb_test_name(it->test));
            goto out;
        }
        /* The server's last interval lines follow the end of the traffic:
         * wait until it printed as many as the board did (or a bounded time). */
        eb_deadline tail = eb_deadline_in((uint64_t)(o->interval_s * 1000) + 1500);
        for (;;) {
            int pc_n;
            pc_last_mbps(io.pc, &pc_n);
            if (pc_n >= io.run.n || eb_deadline_passed(tail) || eb_iperf_pump(io.pc, eb_deadline_in(20)) == 1)
                break;
        }
        eb_iperf_stop(io.pc);
        rc = eb_iperf_proc_check(io.pc, err);
        if (rc)
            goto out;
        eb_iperf_run *r = eb_iperf_proc_run(io.pc);
        e->receiver = r->intervals;
        e->n_receiver = r->n_intervals;
        e->sender = io.run.iv;
        e->n_sender = io.run.n;
        step_done(bc, EB_STEP_TEARDOWN, t_down);
    } else {
        rc = bc->drv->iperf_start(bc->drv, bc->con, &io.cfg, &io.run, eb_deadline_in(CMD_MS), err);
        if (rc)
            goto out;
        const char *args[20];
        int n = 0;
        args[n++] = prog;
        args[n++] = "-c";
        args[n++] = bc->wifi.ip;
        args[n++] = "-p";
        args[n++] = port_s;
        if (io.cfg.udp) {
            args[n++] = "-u";
            args[n++] = "-b";
            args[n++] = rate_s;
        }
        args[n++] = "-t";
        args[n++] = t_s;
        args[n++] = "-i";
        args[n++] = i_s;
        args[n++] = "-f";
        args[n++] = "b";
        args[n] = NULL;
        rc = eb_iperf_spawn(&io.pc, prog, args, logp, err);
        if (rc)
            goto out;
        step_done(bc, EB_STEP_SETUP, t_setup);
        io.t0 = eb_now_us();
        emit(bc, EB_RUN_EV_TEST_START, it, NULL, 0, NAN, NULL);
        eb_deadline end = eb_deadline_in((uint64_t)((o->duration_s + grace_s(o)) * 1000));
        while (eb_iperf_proc_running(io.pc) && !eb_deadline_passed(end)) {
            rc = pump(&io, 100, err);
            if (rc)
                goto out;
            if (eb_iperf_pump(io.pc, eb_deadline_in(0)) == 1) {
                eb_iperf_wait(io.pc, eb_deadline_in(2000));
                break;
            }
        }
        step_done(bc, EB_STEP_TRAFFIC, io.t0);
        uint64_t t_down = eb_now_us();
        if (eb_iperf_proc_running(io.pc))
            eb_iperf_stop(io.pc);
        else
            eb_iperf_wait(io.pc, eb_deadline_in(100));
        /* The board prints its last interval and summary after the client ends. */
        eb_deadline bd = eb_deadline_in((uint64_t)(o->interval_s * 1000 + 3000));
        while (!io.run.done && !io.run.failed && !eb_deadline_passed(bd)) {
            rc = pump(&io, 100, err);
            if (rc)
                goto out;
        }
        if (!io.run.done)
            bc->drv->iperf_abort(bc->drv, bc->con, eb_deadline_in(CMD_MS), err);
        rc = eb_iperf_proc_check(io.pc, err);
        if (rc)
            goto out;
        if (io.run.n == 0) {
            rc = eb_fail(err, EB_EIO, "%s: the board reported no intervals%s%s", bc->label,
                         io.run.msg[0] ? ": " : "", io.run.msg);
            goto out;
        }
        eb_iperf_run *r = eb_iperf_proc_run(io.pc);
        e->receiver = io.run.iv;
        e->n_receiver = io.run.n;
        e->sender = r->intervals;
        e->n_sender = r->n_intervals;
        step_done(bc, EB_STEP_TEARDOWN, t_down);
    }

    /* Free memory right after the traffic. */
    {
        uint64_t t_mem = eb_now_us();
        eb_mem_info m = {-1, -1, -1};
        if (bc->drv->memory(bc->drv, bc->con, &m, eb_deadline_in(CMD_MS), err) == 0) {
            e->free_heap = m.free_internal;
            e->min_free_heap = m.min_free_internal;
            e->largest_block = m.largest_block;
        } else if (eb_console_port_failed(bc->con) || stopped(bc)) {
            rc = err->code ? err->code : EB_EIO;
            goto out;
        } else {
            infof(bc, EB_RUN_EV_WARN, "%s: free memory unknown: %s", bc->label, err->msg);
            eb_error_clear(err);
        }
        if (eb_console_boot(bc->con)->boots != io.boots) {
            rc = eb_fail(err, EB_EIO, "%s: the board rebooted during %s", bc->label, eb_test_name(it->test));
            goto out;
        }
        step_done(bc, EB_STEP_MEMORY, t_mem);
    }
    /* A receiver that went quiet before the end (a stalled board, a dropped
     * link) measured part of the test only: that is a failure, not a figure. */
    {
        double covered = e->n_receiver ? e->receiver[e->n_receiver - 1].end_s : 0;
        if (covered < o->duration_s - o->interval_s * 1.01) {
            rc = eb_fail(err, EB_EIO, "%s: the receiver reported only %.1f s of the %g s of %s", bc->label,
                         covered, o->duration_s, eb_test_name(it->test));
            goto out;
        }
    }
    eb_stats_compute(e->receiver, e->n_receiver, o->interval_s, o->warmup_s, &e->rx_stats);
    eb_stats_compute(e->sender, e->n_sender, o->interval_s, o->warmup_s, &e->tx_stats);
    e->mean_mbps = e->rx_stats.mean;
    e->peak_mbps = e->rx_stats.peak_1s;
    if (io.cfg.udp)
        /* A board UDP client sends no timestamps: PC-side jitter means nothing. */
        udp_figures(e, !io.cfg.board_sends);
    if (e->rx_stats.n == 0) {
        rc = eb_fail(err, EB_EIO, "%s: no steady receiver interval in %s (%d intervals, warm-up %g s): "
                     "lengthen --duration", bc->label, eb_test_name(it->test), e->n_receiver, o->warmup_s);
        goto out;
    }
    eb_iso8601_utc(e->finished);
    /* Deep-copy the interval arrays: the sources die with io. */
    {
        eb_entry tmp;
        eb_entry_copy(&tmp, e);
        *e = tmp;
    }
out:
    if (rc == EB_EINTR && io.run.started && !io.run.done && !eb_console_port_failed(bc->con)) {
        /* Leave the board idle for the next run (the reply is not awaited:
         * the console reads are already cut short by the stop flag). */
        eb_error ignored;
        bc->drv->iperf_abort(bc->drv, bc->con, eb_deadline_in(200), &ignored);
    }
    if (rc) {
        e->receiver = e->sender = NULL;
        e->n_receiver = e->n_sender = 0;
    }
    eb_iperf_free(io.pc);
    eb_board_run_free(&io.run);
    return rc;
}

static void entry_base(board_ctx *bc, const eb_run_item *it, eb_entry *e)
{
    const eb_run_opts *o = bc->sh->o;
    eb_entry_init(e);
    snprintf(e->board, sizeof e->board, "%s", bc->b->name);
    snprintf(e->chip, sizeof e->chip, "%s", bc->chip->name);
    snprintf(e->tier, sizeof e->tier, "%s", it->tier->name);
    e->test = it->test;
    e->repeat = it->repeat;
    e->ref_mbps = it->tier->ref_mbps[it->test];
    e->duration_s = o->duration_s;
    e->interval_s = o->interval_s;
    e->warmup_s = o->warmup_s;
    e->udp_rate_mbps = test_is_udp(it->test) ? eb_run_udp_rate(o, it->tier, it->test) : NAN;
    eb_entry_set_tier_params(e, it->tier);
    if (bc->tier == it->tier)
        snprintf(e->tier_note, sizeof e->tier_note, "%s", bc->tier_note);
    eb_prov_track_test_start(&bc->prov);
}

static int record(board_ctx *bc, const eb_entry *e, eb_error *err)
{
    uint64_t t0 = eb_now_us();
    pthread_mutex_lock(&bc->sh->lock);
    eb_entry *stored = eb_results_put(&bc->sh->results, e);
    eb_prov_track_stamp(&bc->prov, bc->drv ? eb_dialect_mbit_base(bc->drv->dialect) : NAN, &stored->prov);
    if (strcmp(e->status, "ok") == 0)
        bc->sh->sum->done++;
    else
        bc->sh->sum->failed++;
    int rc = save_locked(bc->sh, err);
    pthread_mutex_unlock(&bc->sh->lock);
    step_done(bc, EB_STEP_SAVE, t0);
    return rc;
}

static bool already_done(board_ctx *bc, const eb_run_item *it)
{
    pthread_mutex_lock(&bc->sh->lock);
    eb_entry *e = eb_results_find(&bc->sh->results, bc->b->name, bc->chip->name, it->tier->name,
                                  it->test, it->repeat);
    bool done = e && strcmp(e->status, "ok") == 0;
    pthread_mutex_unlock(&bc->sh->lock);
    return done;
}

/* Runs one board's plan. Returns 0 or the error that ended the board. */
static int run_board(board_ctx *bc)
{
    run_shared *sh = bc->sh;
    const eb_run_opts *o = sh->o;
    eb_error *err = &bc->err;
    eb_run_item *plan = calloc(MAX_PLAN, sizeof *plan);
    if (!plan)
        abort();
    int np = eb_run_plan(o, bc->chip, plan, MAX_PLAN, err);
    if (np < 0) {
        free(plan);
        return err->code;
    }
    if (np > MAX_PLAN)
        np = MAX_PLAN;
    bc->total = np;
    pthread_mutex_lock(&sh->lock);
    sh->sum->planned += np;
    pthread_mutex_unlock(&sh->lock);

    int todo = 0;
    for (int i = 0; i < np; i++)
        if (!(o->resume && already_done(bc, &plan[i])))
            todo++;
    int rc = 0;
    if (todo == 0) {
        for (int i = 0; i < np; i++) {
            bc->index = i + 1;
            emit(bc, EB_RUN_EV_SKIP, &plan[i], NULL, 0, NAN, NULL);
        }
        pthread_mutex_lock(&sh->lock);
        sh->sum->skipped += np;
        pthread_mutex_unlock(&sh->lock);
        free(plan);
        return 0;
    }

    char clog[1200];
    snprintf(clog, sizeof clog, "%s/console-%s.log", o->out_dir, file_label(bc));
    bc->console_log = fopen(clog, "ae");
    if (!bc->console_log) {
        rc = eb_fail(err, EB_EIO, "cannot write %s: %s", clog, strerror(errno));
        free(plan);
        return rc;
    }
    rc = open_console(bc, NULL, err);
    if (rc)
        goto done;
    infof(bc, EB_RUN_EV_INFO, "%s: %s on %s speaks %s (%s %s, IDF %s)", bc->label, bc->chip->name,
          bc->b->port, bc->drv->name, bc->ident.project[0] ? bc->ident.project : "?",
          bc->ident.app_version, bc->ident.idf_version[0] ? bc->ident.idf_version : "?");
    fill_meta(bc);

    for (int i = 0; i < np && !rc; i++) {
        const eb_run_item *it = &plan[i];
        bc->index = i + 1;
        if (o->resume && already_done(bc, it)) {
            pthread_mutex_lock(&sh->lock);
            sh->sum->skipped++;
            pthread_mutex_unlock(&sh->lock);
            emit(bc, EB_RUN_EV_SKIP, it, NULL, 0, NAN, NULL);
            continue;
        }
        for (int attempt = 0;; attempt++) {
            if (stopped(bc)) {
                rc = eb_fail(err, EB_EINTR, "interrupted");
                break;
            }
            eb_error_clear(err);
            int trc = 0;
            bool board_level = false; /* the failure is not the test's */
            if (bc->tier != it->tier) {
                trc = apply_tier_and_wifi(bc, it->tier, err);
                board_level = trc != 0;
            }
            eb_entry e;
            entry_base(bc, it, &e);
            if (!trc)
                trc = run_test(bc, it, &e, err);
            if (!trc) {
                rc = record(bc, &e, err);
                emit(bc, EB_RUN_EV_TEST_DONE, it, NULL, 0, e.mean_mbps, &e);
                eb_entry_free(&e);
                break;
            }
            if (trc == EB_EINTR || stopped(bc)) {
                rc = EB_EINTR;
                eb_fail(err, EB_EINTR, "interrupted");
                break;
            }
            bool rebooted = strstr(err->msg, "rebooted") != NULL;
            /* No console (a tier's flashing failed after closing it) or a lost
             * port: the board cannot go on. */
            bool fatal = !bc->con || eb_console_port_failed(bc->con) || trc == EB_ECONFIG ||
                         (board_level && !rebooted);
            if (!fatal && attempt < o->retries) {
                infof(bc, EB_RUN_EV_WARN, "%s: %s/%s: %s; retrying (%d of %d)", bc->label,
                      it->tier->name, eb_test_name(it->test), err->msg, attempt + 1, o->retries);
                /* Whatever happened, start the next attempt from a known state. */
                bc->tier = NULL;
                eb_error ready_err = {0};
                if (bc->drv->ready(bc->drv, bc->con, eb_deadline_in(READY_MS), &ready_err) &&
                    eb_console_port_failed(bc->con)) {
                    *err = ready_err;
                    fatal = true;
                } else {
                    continue;
                }
            }
            /* Reported: the test fails with the reason; the board goes on
             * unless the failure was the board's (port gone, no AP, ...). */
            snprintf(e.status, sizeof e.status, "failed");
            snprintf(e.error, sizeof e.error, "%.255s", err->msg);
            eb_iso8601_utc(e.finished);
            eb_error keep = *err;
            record(bc, &e, err);
            emit(bc, EB_RUN_EV_TEST_DONE, it, NULL, 0, NAN, &e);
            eb_entry_free(&e);
            *err = keep;
            if (fatal)
                rc = trc;
            else
                bc->tier = NULL;
            break;
        }
    }
done:
    if (bc->con)
        fill_meta(bc);
    close_console(bc);
    if (bc->console_log)
        fclose(bc->console_log);
    bc->console_log = NULL;
    free(plan);
    return rc;
}

static void *board_thread(void *arg)
{
    board_ctx *bc = arg;
    bc->err.code = run_board(bc);
    return NULL;
}

int eb_run(const eb_run_opts *o_in, eb_run_summary *sum, eb_error *err)
{
    eb_run_opts o = *o_in;
    eb_run_opts_defaults(&o);
    memset(sum, 0, sizeof *sum);
    uint64_t t_start = eb_now_us();
    if (!o.out_dir || !o.n_boards)
        return eb_fail(err, EB_ECONFIG, "run: no output directory or no board");
    if (!o.ssid || !*o.ssid)
        return eb_fail(err, EB_ECONFIG, "run: no AP SSID: pass --ssid or set ap.ssid in the lab file");
    if (eb_mkdir_p(o.out_dir) != 0)
        return eb_fail(err, EB_EIO, "cannot create %s: %s; check --out and its permissions", o.out_dir,
                       strerror(errno));

    run_shared sh = {.o = &o, .sum = sum};
    pthread_mutex_init(&sh.lock, NULL);
    eb_results_init(&sh.results);
    snprintf(sh.json_path, sizeof sh.json_path, "%s/results.json", o.out_dir);
    snprintf(sh.csv_path, sizeof sh.csv_path, "%s/results.csv", o.out_dir);
    if (gethostname(sh.host, sizeof sh.host) != 0)
        snprintf(sh.host, sizeof sh.host, "unknown");
    sh.host[sizeof sh.host - 1] = 0;

    int rc = 0;
    if (access(sh.json_path, F_OK) == 0) {
        if (!o.resume) {
            rc = eb_fail(err, EB_ECONFIG, "%s exists: pass --resume to continue that run, or choose "
                         "another --out", sh.json_path);
            goto out;
        }
        rc = eb_results_load(&sh.results, sh.json_path, err);
        if (rc) {
            eb_error_prefix(err, "--resume: ");
            goto out;
        }
    }
    snprintf(sh.results.espbench_version, sizeof sh.results.espbench_version, "%s", eb_version());

    /* The PC side first: no iperf2, no run. */
    eb_iperf_version v;
    rc = eb_iperf_probe(o.iperf ? o.iperf : eb_iperf_program(), &v, err);
    if (rc)
        goto out;
    snprintf(sh.iperf_version, sizeof sh.iperf_version, "%.63s", v.text);
    snprintf(sum->iperf_version, sizeof sum->iperf_version, "%s", sh.iperf_version);

    board_ctx *bcs = calloc((size_t)o.n_boards, sizeof *bcs);
    if (!bcs)
        abort();
    for (int i = 0; i < o.n_boards; i++) {
        bcs[i].sh = &sh;
        bcs[i].b = &o.boards[i];
        bcs[i].label = o.boards[i].name[0] ? o.boards[i].name : o.boards[i].port;
        snprintf(bcs[i].fw_sha256, sizeof bcs[i].fw_sha256, "%s", o.boards[i].fw_sha256);
        eb_prov_track_init(&bcs[i].prov, eb_version(), sh.iperf_version, o.env);
        bcs[i].chip = eb_profiles_chip(o.profiles, o.boards[i].chip);
        if (!bcs[i].chip) {
            rc = eb_fail(err, EB_ECONFIG, "no profile for chip '%s' (see 'espbench profiles')", o.boards[i].chip);
            free(bcs);
            goto out;
        }
        /* Check the plan (unknown tiers) before touching any board. */
        eb_run_item probe[1];
        if (eb_run_plan(&o, bcs[i].chip, probe, 0, err) < 0) {
            rc = err->code;
            free(bcs);
            goto out;
        }
    }
    if (o.n_boards == 1) {
        bcs[0].err.code = run_board(&bcs[0]);
    } else {
        pthread_t *th = calloc((size_t)o.n_boards, sizeof *th);
        if (!th)
            abort();
        bool *started = calloc((size_t)o.n_boards, sizeof *started);
        if (!started)
            abort();
        for (int i = 0; i < o.n_boards; i++)
            started[i] = pthread_create(&th[i], NULL, board_thread, &bcs[i]) == 0;
        for (int i = 0; i < o.n_boards; i++) {
            if (started[i])
                pthread_join(th[i], NULL);
            else
                board_thread(&bcs[i]);
        }
        free(started);
        free(th);
    }
    /* The first board error is the run's; EB_EINTR wins (exit 4). */
    for (int i = 0; i < o.n_boards; i++) {
        if (bcs[i].err.code == EB_EINTR) {
            *err = bcs[i].err;
            rc = EB_EINTR;
            break;
        }
        if (bcs[i].err.code && !rc) {
            *err = bcs[i].err;
            rc = bcs[i].err.code;
        }
    }
    if (!rc && sum->failed)
        rc = eb_fail(err, EB_EIO, "%d of %d tests failed (see the error column of %s)", sum->failed,
                     sum->planned, sh.csv_path);
    free(bcs);
    pthread_mutex_lock(&sh.lock);
    eb_error serr;
    if (save_locked(&sh, &serr) && !rc) {
        *err = serr;
        rc = serr.code;
    }
    pthread_mutex_unlock(&sh.lock);
out:
    sum->wall_s = (double)(eb_now_us() - t_start) / 1e6;
    sum->test_s = (sum->done) * o.duration_s;
    eb_results_free(&sh.results);
    pthread_mutex_destroy(&sh.lock);
    return rc;
}
