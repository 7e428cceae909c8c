/* One board of the run: its port and console session, the tier (switched at
 * run time or flashed as an image of its own), Wi-Fi, and the loop over the
 * board's plan with retries. Failures are classified by their kind
 * (error.h): a reboot or a failed test is retried, a lost port or a failed
 * board-level step ends the board, Ctrl-C ends the run with what was
 * finished kept. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/clock.h"
#include "espbench/jobs/firmware_source.h"
#include "espbench/jobs/flash.h"
#include "espbench/base/sha256.h"
#include "espbench/adapters/vboard_ctl.h"
#include "run_internal.h"

#define SCAN_TRIES 3
#define CONNECT_TRIES 2

static void end_console(board_ctx *bc)
{
    eb_console_free(bc->con);
    bc->con = NULL;
}

static void close_board_port(board_ctx *bc)
{
    end_console(bc);
    eb_port_close(bc->port);
    bc->port = NULL;
}

/* Picks the dialect (forced or detected), waits for the prompt, asks who the
 * board is and checks the chip. */
static int greet(board_ctx *bc, eb_error *err)
{
    int rc;
    if (bc->sh->o->pattern) {
        eb_pattern_driver_init(&bc->pattern_drv, bc->sh->o->pattern);
        bc->drv = &bc->pattern_drv.drv;
        eb_console_set_prompts(bc->con, bc->drv->prompts);
        rc = bc->drv->ready(bc->drv, bc->con, eb_deadline_in(EB_RUN_READY_MS), err);
    } else if (bc->b->dialect[0]) {
        bc->drv = eb_console_driver_by_name(bc->b->dialect);
        if (!bc->drv)
            return eb_fail(err, EB_ECONFIG, "no console dialect '%s'", bc->b->dialect);
        eb_console_set_prompts(bc->con, bc->drv->prompts);
        rc = bc->drv->ready(bc->drv, bc->con, eb_deadline_in(EB_RUN_READY_MS), err);
    } else {
        rc = eb_console_detect(bc->con, bc->chip->name, &bc->drv, eb_deadline_in(EB_RUN_READY_MS), err);
    }
    if (rc)
        return rc;
    bc->ident = *eb_console_boot(bc->con);
    if (bc->drv->identify) {
        rc = bc->drv->identify(bc->drv, bc->con, &bc->ident, eb_deadline_in(EB_RUN_CMD_MS), err);
        if (rc)
            return rc;
    }
    if (bc->ident.chip[0] && strcmp(bc->ident.chip, bc->chip->name) != 0)
        return eb_fail(err, EB_ECONFIG, "%s: the board is an %s, not an %s: pass --chip %s",
                       bc->b->port, bc->ident.chip, bc->chip->name, bc->ident.chip);
    return 0;
}

/* Starts a console session on the board's port (opened here the first
 * time). app: the descriptor of the image just flashed (NULL if none),
 * standing in for a boot log the console may have missed. */
static int open_console(board_ctx *bc, const eb_image_info *app, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    uint64_t t0 = eb_now_us();
    int rc;
    if (!bc->port && (rc = eb_port_open(&bc->port, bc->b->port, o->baud, err)) != 0)
        return rc;
    bc->port->lines_absent_known = bc->b->sim; /* the virtual board's pty has no DTR/RTS */
    eb_console_open(&bc->con, bc->port, err);
    eb_console_set_stop(bc->con, o->stop);
    eb_console_set_capture(bc->con, run_console_capture, bc);
    eb_console_add_secret(bc->con, o->password);
    if (app && app->has_app_desc)
        eb_console_note_app(bc->con, app->project_name, app->version, app->idf_ver);
    if ((rc = greet(bc, err)) != 0)
        return rc;
    run_step_done(bc, EB_STEP_OPEN, t0);
    return 0;
}

/* Writes a tier's images over the board's own port, lent to the flasher,
 * and takes the port back after the hard reset without closing it, so the
 * boot log is read rather than lost between a close and a reopen. */
static int flash_over_port(board_ctx *bc, const eb_image_set *set, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    eb_flash_opts fo = {.profiles = o->profiles, .expect_chip = bc->chip->name, .port_lent = true, .stub = o->stub};
    eb_flash_session *fs = NULL;
    int rc = eb_port_set_baud(bc->port, EB_ROM_BAUD, err);
    if (!rc)
        rc = eb_flash_open_port(&fs, bc->port, &fo, err);
    if (!rc) { /* which loader wrote, for the entries' provenance (without the stub's path) */
        const char *l = eb_flash_loader(fs);
        snprintf(bc->prov.seen.flash_loader, sizeof bc->prov.seen.flash_loader, "%.*s", (int)strcspn(l, "("), l);
        for (size_t n = strlen(bc->prov.seen.flash_loader); n && bc->prov.seen.flash_loader[n - 1] == ' ';)
            bc->prov.seen.flash_loader[--n] = '\0';
        rc = eb_flash_write(fs, set->regions, set->n, NULL, err);
    }
    if (!rc)
        rc = eb_flash_reset_after(fs, err);
    if (!rc && eb_flash_release_port(fs, err) == NULL)
        rc = err->code ? err->code : EB_EIO;
    eb_flash_close(fs);
    if (!rc && bc->port->baud != o->baud)
        rc = eb_port_set_baud(bc->port, o->baud, err);
    return rc;
}

/* The application is the region at the app partition (the highest offset):
 * its hash and descriptor describe the firmware the board now runs. */
static bool app_info(board_ctx *bc, const eb_image_set *set, eb_image_info *info)
{
    const eb_flash_region *app = NULL;
    for (int i = 0; i < set->n; i++)
        if (!app || set->regions[i].offset > app->offset)
            app = &set->regions[i];
    if (!app)
        return false;
    eb_error ierr = {0};
    if (eb_sha256_hex(app->data, app->len, bc->fw_sha256, &ierr)) /* "" when unknown: the results say so */
        return false;
    return eb_image_parse(app->data, app->len, bc->chip->image_format == EB_IMAGE_ESP8266, info, &ierr) == 0;
}

/* Stock firmware: the tier is an image of its own, flashed from the manifest. */
static int flash_tier(board_ctx *bc, const eb_tier *t, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    char what[48];
    snprintf(what, sizeof what, "tier %s", t->name);
    return run_flash_manifest(bc, o->firmware ? o->firmware : "iperf-example", t->name, what, err);
}

int run_flash_manifest(board_ctx *bc, const char *firmware, const char *tier, const char *what, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    eb_image_set set = {0};
    eb_manifest_query q = {
        .manifest = o->manifest, .firmware = firmware, .chip = bc->chip->name, .tier = tier, .cache_dir = NULL,
    };
    int rc = eb_image_set_from_manifest(&set, &q, err);
    if (rc) {
        eb_error_prefix(err, "%s needs its own image (stock firmware): ", what);
        return rc;
    }
    end_console(bc);
    run_infof(bc, EB_RUN_EV_INFO, "%s: flashing the %s image for %s", bc->label, q.firmware, what);
    rc = flash_over_port(bc, &set, err);
    eb_image_info info;
    bool have_info = !rc && app_info(bc, &set, &info);
    eb_image_set_free(&set);
    if (rc)
        return rc; /* no console: the board cannot go on */
    return open_console(bc, have_info ? &info : NULL, err);
}

static int set_tier_runtime(board_ctx *bc, const eb_tier *t, eb_error *err)
{
    int rc = bc->drv->set_tier(bc->drv, bc->con, t, eb_deadline_in(EB_RUN_WIFI_MS), err);
    /* One image serves every tier: say which build-time settings it cannot switch. */
    if (!rc && bc->drv->tier_built)
        rc = bc->drv->tier_built(bc->drv, bc->con, t, bc->tier_note, sizeof bc->tier_note,
                                 eb_deadline_in(EB_RUN_CMD_MS), err);
    if (!rc && bc->tier_note[0])
        run_infof(bc, EB_RUN_EV_WARN, "%s: tier %s: the firmware's build-time settings differ: %s; "
                  "the runtime settings are the tier's", bc->label, t->name, bc->tier_note);
    return rc;
}

static int join_ap(board_ctx *bc, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    int rc;
    memset(&bc->wifi, 0, sizeof bc->wifi);
    for (int i = 1;; i++) {
        rc = bc->drv->scan(bc->drv, bc->con, o->ssid, &bc->wifi, eb_deadline_in(EB_RUN_CMD_MS), err);
        if (!rc || i >= SCAN_TRIES || eb_console_port_failed(bc->con) || run_stopped(bc))
            break;
    }
    if (rc)
        return rc;
    for (int i = 1;; i++) {
        rc = bc->drv->connect(bc->drv, bc->con, o->ssid, o->password, &bc->wifi,
                              eb_deadline_in(EB_RUN_WIFI_MS), err);
        if (!rc || i >= CONNECT_TRIES || eb_console_port_failed(bc->con) || run_stopped(bc))
            break;
        run_infof(bc, EB_RUN_EV_WARN, "%s: %s; retrying", bc->label, err->msg);
    }
    return rc;
}

/* Applies tier t and connects. A failure is the board's (EB_KIND_BOARD)
 * unless it already has a kind (reboot, port lost). */
static int apply_tier_and_wifi(board_ctx *bc, const eb_tier *t, eb_error *err)
{
    uint64_t t0 = eb_now_us();
    bc->tier_note[0] = 0;
    int rc = bc->drv->runtime_tiers && bc->drv->set_tier ? set_tier_runtime(bc, t, err) : flash_tier(bc, t, err);
    if (!rc) {
        run_step_done(bc, EB_STEP_TIER, t0);
        t0 = eb_now_us();
        rc = join_ap(bc, err);
    }
    if (rc) {
        if (err->kind == EB_KIND_NONE)
            eb_error_kind(err, EB_KIND_BOARD);
        return rc;
    }
    run_step_done(bc, EB_STEP_WIFI, t0);
    run_infof(bc, EB_RUN_EV_INFO, "%s: tier %s, connected to '%s' (RSSI %d dBm), board address %s",
              bc->label, t->name, bc->wifi.ssid, bc->wifi.rssi, bc->wifi.ip);
    bc->tier = t;
    run_fill_meta(bc);
    return 0;
}

/* ------------------------------------------------------------ the plan loop */

/* Whether a failed attempt ends the board: no console (a tier's flashing
 * failed), a lost port, a configuration error, or a board-level step that
 * failed for another reason than a reboot. */
static bool board_cannot_go_on(const board_ctx *bc, int trc, const eb_error *err)
{
    return !bc->con || eb_console_port_failed(bc->con) || err->kind == EB_KIND_PORT_LOST ||
           trc == EB_ECONFIG || err->kind == EB_KIND_BOARD ||
           (bc->peer && (!bc->peer->con || eb_console_port_failed(bc->peer->con)));
}

/* Before a retry: both boards from a known state (tier and Wi-Fi redone).
 * Returns 0, or the error of a board whose console is gone. */
static int ready_again(board_ctx *bc, eb_error *err)
{
    board_ctx *sides[2] = {bc, bc->peer};
    for (int i = 0; i < 2 && sides[i]; i++) {
        board_ctx *s = sides[i];
        s->tier = NULL;
        eb_error ready_err = {0};
        if (s->drv->ready(s->drv, s->con, eb_deadline_in(EB_RUN_READY_MS), &ready_err) &&
            eb_console_port_failed(s->con)) {
            *err = ready_err;
            return err->code ? err->code : EB_EIO;
        }
    }
    return 0;
}

/* What one attempt produced: a throughput entry, or a latency test. */
typedef struct item_out {
    eb_entry e;
    eb_latency lat;
    bool is_latency;
} item_out;

static void emit_done(board_ctx *bc, const eb_run_item *it, const item_out *out)
{
    if (out->is_latency)
        run_emit_latency(bc, it, &out->lat);
    else
        run_emit(bc, EB_RUN_EV_TEST_DONE, it, NULL, 0, out->e.mean_mbps, &out->e);
}

static int record_done(board_ctx *bc, const eb_run_item *it, const item_out *out, eb_error *err)
{
    int rc = out->is_latency ? run_record_latency(bc, &out->lat, err) : run_record(bc, &out->e, err);
    emit_done(bc, it, out);
    return rc;
}

/* Records a failed test with its reason; err is kept. */
static void record_failure(board_ctx *bc, const eb_run_item *it, item_out *out, eb_error *err)
{
    if (out->is_latency) {
        snprintf(out->lat.status, sizeof out->lat.status, "failed");
        snprintf(out->lat.error, sizeof out->lat.error, "%.255s", err->msg);
        eb_iso8601_utc(out->lat.finished);
    } else {
        snprintf(out->e.status, sizeof out->e.status, "failed");
        eb_entry_set_error(&out->e, "%s", err->msg);
        eb_iso8601_utc(out->e.finished);
    }
    eb_error keep = *err;
    record_done(bc, it, out, err);
    *err = keep;
}

/* One attempt: the tier if not applied yet, then the test. */
/* A link sweep point: the virtual board takes the point's link through its
 * control socket before the point's first test (vb_control.c "link"). */
static int apply_sweep_point(board_ctx *bc, const eb_run_item *it, eb_error *err)
{
    const eb_sweep *sw = &bc->sh->o->sweep;
    if (it->point < 0 || !eb_sweep_var_sim_only(sw->var) || bc->link_point == it->point)
        return 0;
    eb_model_link l;
    eb_sweep_link_at(sw, it->point, &bc->b->sim_link, &l);
    char cmd[160], reply[160];
    eb_sweep_link_command(&l, cmd, sizeof cmd);
    int rc = eb_vboard_ctl(bc->b->sim_control, cmd, reply, sizeof reply, 5000, err);
    if (rc)
        return rc;
    bc->link_point = it->point;
    run_infof(bc, EB_RUN_EV_INFO, "%s: sweep %s = %g %s (link %s)", bc->label, eb_sweep_var_name(sw->var),
              sw->values[it->point], eb_sweep_var_unit(sw->var), reply);
    return 0;
}

/* Board to board: the peer's tier (its --peer-tier, else the same tier) and
 * Wi-Fi, and a link sweep point on its virtual board too. */
static int apply_peer(board_ctx *bc, const eb_run_item *it, eb_error *err)
{
    board_ctx *p = bc->peer;
    const eb_tier *t = run_pair_tier(bc, it, err);
    if (!t)
        return EB_ECONFIG;
    int rc = p->b->sim_control[0] ? apply_sweep_point(p, it, err) : 0;
    if (!rc && p->tier != t)
        rc = apply_tier_and_wifi(p, t, err);
    return rc;
}

static int attempt_item(board_ctx *bc, const eb_run_item *it, item_out *out, eb_error *err)
{
    eb_error_clear(err);
    int rc = apply_sweep_point(bc, it, err);
    if (!rc && bc->tier != it->tier && !EB_TEST_IS_RAW(it->test)) /* raw tests flash their own image */
        rc = apply_tier_and_wifi(bc, it->tier, err);
    if (!rc && bc->peer) /* board to board: the peer joins with its own tier */
        rc = apply_peer(bc, it, err);
    out->is_latency = it->test == EB_RUN_LATENCY;
    if (out->is_latency) {
        eb_entry_init(&out->e); /* unused; freed like any */
        run_latency_base(bc, it, &out->lat);
        return rc ? rc : run_latency(bc, it, &out->lat, err);
    }
    run_entry_base(bc, it, &out->e);
    if (!rc)
        rc = EB_TEST_IS_RAW(it->test) ? run_hosted_raw(bc, it, &out->e, err) : run_test(bc, it, &out->e, err);
    return rc;
}

/* Runs one plan item with retries. Returns 0 (done or failed and recorded,
 * the board goes on) or the error that ends the board. */
static int run_item(board_ctx *bc, const eb_run_item *it, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    for (int attempt = 0;; attempt++) {
        if (run_stopped(bc))
            return eb_fail(err, EB_EINTR, "interrupted");
        item_out out;
        int trc = attempt_item(bc, it, &out, err);
        if (!trc) {
            int rc = record_done(bc, it, &out, err);
            eb_entry_free(&out.e);
            return rc;
        }
        if (trc == EB_EINTR || run_stopped(bc)) {
            eb_entry_free(&out.e);
            return eb_fail(err, EB_EINTR, "interrupted");
        }
        bool fatal = board_cannot_go_on(bc, trc, err);
        if (!fatal && attempt < o->retries) {
            run_infof(bc, EB_RUN_EV_WARN, "%s: %s/%s: %s; retrying (%d of %d)", bc->label, it->tier->name,
                      eb_run_test_name(it->test), err->msg, attempt + 1, o->retries);
            /* Whatever happened, start the next attempt from a known state. */
            if (ready_again(bc, err) == 0) {
                eb_entry_free(&out.e);
                continue;
            }
            fatal = true;
        }
        /* Reported: the test fails with the reason; the board goes on
         * unless the failure was the board's (port gone, no AP, ...). */
        record_failure(bc, it, &out, err);
        eb_entry_free(&out.e);
        bc->tier = NULL;
        if (bc->peer)
            bc->peer->tier = NULL;
        return fatal ? trc : 0;
    }
}

/* Everything already done (--resume): report the skips and touch nothing. */
static void skip_all(board_ctx *bc, const eb_run_item *plan, int np)
{
    for (int i = 0; i < np; i++) {
        bc->index = i + 1;
        run_emit(bc, EB_RUN_EV_SKIP, &plan[i], NULL, 0, NAN, NULL);
    }
    run_count(bc, &bc->sh->sum->skipped, np);
}

static int open_board(board_ctx *bc, eb_error *err)
{
    char clog[1200];
    snprintf(clog, sizeof clog, "%s/console-%s.log", bc->sh->o->out_dir, run_file_label(bc));
    bc->console_log = fopen(clog, "ae");
    if (!bc->console_log)
        return eb_fail(err, EB_EIO, "cannot write %s: %s", clog, strerror(errno));
    int rc = run_hosted_flash_coprocessor(bc, err); /* an ESP-Hosted pair's second port */
    if (!rc)
        rc = open_console(bc, NULL, err);
    if (rc)
        return rc;
    run_infof(bc, EB_RUN_EV_INFO, "%s: %s on %s speaks %s (%s %s, IDF %s)", bc->label, bc->chip->name,
              bc->b->port, bc->drv->name, bc->ident.project[0] ? bc->ident.project : "?",
              bc->ident.app_version, bc->ident.idf_version[0] ? bc->ident.idf_version : "?");
    run_fill_meta(bc);
    /* Board to board: the peer is opened the same way, its console logged on its own. */
    return bc->peer ? open_board(bc->peer, err) : 0;
}

int run_board(board_ctx *bc)
{
    const eb_run_opts *o = bc->sh->o;
    eb_error *err = &bc->err;
    eb_run_item *plan = calloc(EB_RUN_MAX_PLAN, sizeof *plan);
    if (!plan)
        abort();
    int np = eb_run_plan(o, bc->chip, plan, EB_RUN_MAX_PLAN, err);
    if (np < 0) {
        free(plan);
        if (o->aggregate)
            run_meet_leave(bc);
        return err->code;
    }
    if (np > EB_RUN_MAX_PLAN)
        np = EB_RUN_MAX_PLAN;
    bc->total = np;
    run_count(bc, &bc->sh->sum->planned, np);
    int todo = 0;
    for (int i = 0; i < np; i++)
        todo += !(o->resume && run_already_done(bc, &plan[i]));
    if (todo == 0) {
        skip_all(bc, plan, np);
        free(plan);
        if (o->aggregate)
            run_meet_leave(bc);
        return 0;
    }
    int rc = open_board(bc, err);
    for (int i = 0; i < np && !rc; i++) {
        bc->index = i + 1;
        if (o->resume && run_already_done(bc, &plan[i])) {
            run_count(bc, &bc->sh->sum->skipped, 1);
            run_emit(bc, EB_RUN_EV_SKIP, &plan[i], NULL, 0, NAN, NULL);
            continue;
        }
        if (o->aggregate) /* start together with the other boards */
            bc->concurrent = run_meet_wait(bc);
        rc = run_item(bc, &plan[i], err);
    }
    if (o->aggregate)
        run_meet_leave(bc);
    if (bc->con)
        run_fill_meta(bc);
    close_board_port(bc);
    if (bc->console_log)
        fclose(bc->console_log);
    bc->console_log = NULL;
    if (bc->peer) {
        if (bc->peer->con)
            run_fill_meta(bc->peer);
        close_board_port(bc->peer);
        if (bc->peer->console_log)
            fclose(bc->peer->console_log);
        bc->peer->console_log = NULL;
    }
    free(plan);
    return rc;
}
