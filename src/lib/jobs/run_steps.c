/* A board's steps, run for every end through the end and dimension tables
 * (run_ends.c, run_dims.c): its port and console session (the console
 * driver chosen from a table when it opens), the tier (switched at run
 * time or flashed as an image of its own), Wi-Fi, and flashing a manifest
 * image over the board's own port. */
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
#include "espbench/formats/dialect.h"
#include "espbench/protocols/reset.h"
#include "run_internal.h"

/* A board greets within a chip's boot time, or its source's pace of it
 * (an emulated chip boots at the pace its host gives it: run --qemu). */
static uint64_t ready_ms(const board_ctx *bc)
{
    return (uint64_t)(bc->b->boot_pace > 1 ? bc->b->boot_pace : 1) * EB_RUN_READY_MS;
}

#define SCAN_TRIES 3
#define CONNECT_TRIES 2

static void end_console(board_ctx *bc)
{
    eb_console_free(bc->cons->con);
    bc->cons->con = NULL;
}

static void close_board_port(board_ctx *bc)
{
    end_console(bc);
    eb_port_close(bc->cons->port);
    bc->cons->port = NULL;
}

/* ------------------------------------------------------------ the console driver */

/* The console driver of an end, chosen when it opens: the first row that
 * applies. A peer speaks as its board (the same --pattern, its own
 * dialect). */
static bool by_pattern(const board_ctx *bc) { return bc->sh->o->pattern != NULL; }
static bool by_dialect(const board_ctx *bc) { return bc->b->dialect[0] != 0; }
static bool always(const board_ctx *bc) { (void)bc; return true; }

/* A driver named by the run: prompts set, the board's prompt awaited. */
static int driver_ready(board_ctx *bc, const eb_console_driver *d, eb_error *err)
{
    bc->cons->drv = d;
    eb_console_set_prompts(bc->cons->con, bc->cons->drv->prompts);
    return bc->cons->drv->ready(bc->cons->drv, bc->cons->con, eb_deadline_in(ready_ms(bc)), err);
}

static int pick_pattern(board_ctx *bc, eb_error *err)
{
    return driver_ready(bc, run_pattern_driver(bc), err);
}

static int pick_dialect(board_ctx *bc, eb_error *err)
{
    const eb_console_driver *d = eb_console_driver_by_name(bc->b->dialect);
    return d ? driver_ready(bc, d, err) : eb_fail(err, EB_ECONFIG, "no console dialect '%s'", bc->b->dialect);
}

static int pick_detected(board_ctx *bc, eb_error *err)
{
    return eb_console_detect(bc->cons->con, bc->chip->name, &bc->cons->drv, eb_deadline_in(ready_ms(bc)), err);
}

static const struct driver_row {
    const char *what;
    bool (*applies)(const board_ctx *bc);
    int (*pick)(board_ctx *bc, eb_error *err);
} drivers[] = {
    {"pattern", by_pattern, pick_pattern},   /* --pattern: a firmware of one's own (drv_pattern.c) */
    {"dialect", by_dialect, pick_dialect},   /* --dialect, a lab board's dialect: */
    {"detected", always, pick_detected},     /* what the board's greeting says */
};

/* Picks the console driver, waits for the prompt, asks who the board is
 * and checks the chip. */
static int greet(board_ctx *bc, eb_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
        if (drivers[i].applies(bc)) {
            rc = drivers[i].pick(bc, err);
            break;
        }
    if (rc)
        return rc;
    bc->cons->ident = *eb_console_boot(bc->cons->con);
    if (bc->cons->drv->identify) {
        rc = bc->cons->drv->identify(bc->cons->drv, bc->cons->con, &bc->cons->ident, eb_deadline_in(EB_RUN_CMD_MS), err);
        if (rc)
            return rc;
    }
    if (bc->cons->ident.chip[0] && strcmp(bc->cons->ident.chip, bc->chip->name) != 0)
        return eb_fail(err, EB_ECONFIG, "%s: the board is an %s, not an %s: pass --chip %s",
                       bc->b->port, bc->cons->ident.chip, bc->chip->name, bc->cons->ident.chip);
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
    if (!bc->cons->port && (rc = eb_port_open(&bc->cons->port, bc->b->port, o->baud, err)) != 0)
        return rc;
    bc->cons->port->lines_absent_known = bc->b->port_no_lines; /* a virtual board's pty has no DTR/RTS */
    eb_console_open(&bc->cons->con, bc->cons->port, err);
    eb_console_set_stop(bc->cons->con, o->stop);
    eb_console_set_capture(bc->cons->con, run_console_capture, bc);
    eb_console_add_secret(bc->cons->con, o->password);
    if (app && app->has_app_desc)
        eb_console_note_app(bc->cons->con, app->project_name, app->version, app->idf_ver);
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
    int rc = eb_port_set_baud(bc->cons->port, EB_ROM_BAUD, err);
    if (!rc)
        rc = eb_flash_open_port(&fs, bc->cons->port, &fo, err);
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
    if (!rc && bc->cons->port->baud != o->baud)
        rc = eb_port_set_baud(bc->cons->port, o->baud, err);
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
    if (eb_sha256_hex(app->data, app->len, bc->cons->fw_sha256, &ierr)) /* "" when unknown: the results say so */
        return false;
    return eb_image_parse(app->data, app->len, bc->chip->image_format == EB_IMAGE_ESP8266, info, &ierr) == 0;
}

/* Stock firmware: the tier is an image of its own, flashed from the manifest. */
static int flash_tier(board_ctx *bc, const eb_tier *t, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    char what[48];
    snprintf(what, sizeof what, "tier %s", t->name);
    if (bc->cons->preflashed == t) { /* flashed before the first greeting: the board runs it */
        bc->cons->preflashed = NULL;
        return 0;
    }
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

#define WIRED_NOTE "Wi-Fi buffers not applicable (Ethernet image)"

/* An emulated board (run_qemu.c): the tier's own image written when the
 * flash holds another, QEMU started anew on it, the console opened on its
 * new UART with the image's app standing in for the boot log. */
static int qemu_tier_image(board_ctx *bc, const eb_tier *t, eb_error *err)
{
    eb_image_set set = {0};
    int rc = run_qemu_tier_image(bc, t, &set, err);
    if (!rc && set.n) {
        close_board_port(bc);
        rc = run_qemu_write(bc, &set, err);
        eb_image_info info;
        if (!rc)
            rc = open_console(bc, app_info(bc, &set, &info) ? &info : NULL, err);
        if (rc && err->kind == EB_KIND_NONE)
            eb_error_kind(err, EB_KIND_BOARD);
    }
    eb_image_set_free(&set);
    return rc;
}

/* The espbench firmware's Ethernet image (the emulated board, docs/emulator.md)
 * has no Wi-Fi driver, and every runtime field is a Wi-Fi buffer. */
static bool wired(const board_ctx *bc) { return !strcmp(bc->cons->ident.net, "eth"); }

/* Switches the runtime settings and reads which build-time settings of the
 * tier the running image has other values for (bc->tier_note). On the
 * Ethernet image the tier goes by its name alone, and the note says the
 * Wi-Fi buffers do not apply. */
static int switch_tier(board_ctx *bc, const eb_tier *t, eb_error *err)
{
    bc->cons->tier_note[0] = 0;
    if (!bc->cons->drv->set_tier)
        return eb_fail(err, EB_ECONFIG, "%s: the firmware on %s cannot switch tiers", bc->label, bc->b->port);
    eb_tier named;
    bool dropped = false;
    if (wired(bc)) {
        named = *t;
        for (int f = 0; f < EB_F_COUNT; f++) {
            dropped |= named.set[f] && named.runtime[f];
            named.set[f] = named.set[f] && !named.runtime[f];
        }
        t = &named;
    }
    int rc = bc->cons->drv->set_tier(bc->cons->drv, bc->cons->con, t, eb_deadline_in(EB_RUN_WIFI_MS), err);
    if (!rc && bc->cons->drv->tier_built)
        rc = bc->cons->drv->tier_built(bc->cons->drv, bc->cons->con, t, bc->cons->tier_note, sizeof bc->cons->tier_note,
                                 eb_deadline_in(EB_RUN_CMD_MS), err);
    size_t n = strlen(bc->cons->tier_note);
    if (!rc && dropped)
        snprintf(bc->cons->tier_note + n, sizeof bc->cons->tier_note - n, "%s" WIRED_NOTE, n ? "; " : "");
    return rc;
}

/* Whether the image lacks build-time settings of the tier (the note says
 * more than that the Ethernet image has no Wi-Fi buffers). */
static bool built_differs(const board_ctx *bc) { return bc->cons->tier_note[0] && strcmp(bc->cons->tier_note, WIRED_NOTE); }

/* --manifest: the tier's own espbench image (espbench build --tier), when
 * the manifest has one; why not in why. */
static bool tier_image_listed(board_ctx *bc, const char *firmware, const eb_tier *t, char *why, size_t cap)
{
    eb_image_set set = {0};
    eb_error merr = {0};
    eb_manifest_query q = {
        .manifest = bc->sh->o->manifest, .firmware = firmware, .chip = bc->chip->name, .tier = t->name,
    };
    bool ok = eb_image_set_from_manifest(&set, &q, &merr) == 0;
    eb_image_set_free(&set);
    snprintf(why, cap, "%s", ok ? "" : merr.msg);
    return ok;
}

static int set_tier_runtime(board_ctx *bc, const eb_tier *t, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    const char *fw = o->firmware ? o->firmware : "espbench";
    char why[EB_ERROR_MSG_MAX] = "";
    int rc = switch_tier(bc, t, err);
    /* The image on the board lacks build-time settings of the tier: flash
     * the tier's own image where the manifest has one, then switch again. */
    if (!rc && built_differs(bc) && o->manifest && tier_image_listed(bc, fw, t, why, sizeof why)) {
        char what[48];
        snprintf(what, sizeof what, "tier %s", t->name);
        rc = run_flash_manifest(bc, fw, t->name, what, err);
        if (!rc)
            rc = switch_tier(bc, t, err);
    }
    if (bc->b->qemu_ctl && !why[0] && !run_qemu_own_image(bc, t)) /* the emulated board's (run_qemu.c) */
        snprintf(why, sizeof why, "give --qemu-image %s=DIR, the firmware built with the tier's settings", t->name);
    /* One image serves the tier: say which build-time settings it cannot switch. */
    if (!rc && built_differs(bc))
        run_infof(bc, EB_RUN_EV_WARN, "%s: tier %s: the firmware's build-time settings differ: %s; "
                  "the runtime settings are the tier's%s%s", bc->label, t->name, bc->cons->tier_note,
                  why[0] ? "; no image of its own: " : "", why);
    return rc;
}

/* The Ethernet image gets its address by itself (DHCP): its link reply
 * carries it once it has one. */
static int join_wired(board_ctx *bc, eb_error *err)
{
    eb_deadline d = eb_deadline_in(EB_RUN_WIFI_MS);
    eb_error last = {0};
    for (;;) {
        eb_link_info l;
        memset(&l, 0, sizeof l);
        int rc = bc->cons->drv->link ? bc->cons->drv->link(bc->cons->drv, bc->cons->con, &l, eb_deadline_in(EB_RUN_CMD_MS), &last)
                               : eb_fail(&last, EB_ECONFIG, "its console driver reads no link");
        if (!rc && l.ip[0]) {
            snprintf(bc->cons->wifi.ssid, sizeof bc->cons->wifi.ssid, "ethernet");
            snprintf(bc->cons->wifi.ip, sizeof bc->cons->wifi.ip, "%s", l.ip);
            return 0;
        }
        if (eb_deadline_passed(d) || eb_console_port_failed(bc->cons->con) || run_stopped(bc))
            return eb_fail(err, EB_EIO, "%s: the board's Ethernet has no address after %d s%s%s", bc->label,
                           EB_RUN_WIFI_MS / 1000, last.msg[0] ? ": " : "", last.msg);
        eb_sleep_ms(500);
    }
}

static int join_ap(board_ctx *bc, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    int rc;
    memset(&bc->cons->wifi, 0, sizeof bc->cons->wifi);
    if (wired(bc))
        return join_wired(bc, err);
    for (int i = 1;; i++) {
        rc = bc->cons->drv->scan(bc->cons->drv, bc->cons->con, o->ssid, &bc->cons->wifi, eb_deadline_in(EB_RUN_CMD_MS), err);
        if (!rc || i >= SCAN_TRIES || eb_console_port_failed(bc->cons->con) || run_stopped(bc))
            break;
    }
    if (rc)
        return rc;
    for (int i = 1;; i++) {
        rc = bc->cons->drv->connect(bc->cons->drv, bc->cons->con, o->ssid, o->password, &bc->cons->wifi,
                              eb_deadline_in(EB_RUN_WIFI_MS), err);
        if (!rc || i >= CONNECT_TRIES || eb_console_port_failed(bc->cons->con) || run_stopped(bc))
            break;
        run_infof(bc, EB_RUN_EV_WARN, "%s: %s; retrying", bc->label, err->msg);
    }
    return rc;
}

int run_apply_tier(board_ctx *bc, const eb_tier *t, eb_error *err)
{
    uint64_t t0 = eb_now_us();
    bc->cons->tier_note[0] = 0;
    int rc = 0;
    if (bc->b->qemu_ctl) /* the tier's own image first, where it has one */
        rc = qemu_tier_image(bc, t, err);
    if (!rc)
        rc = bc->cons->drv->runtime_tiers && bc->cons->drv->set_tier ? set_tier_runtime(bc, t, err) : flash_tier(bc, t, err);
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
    if (wired(bc))
        run_infof(bc, EB_RUN_EV_INFO, "%s: tier %s, Ethernet (no Wi-Fi on this image), board address %s", bc->label,
                  t->name, bc->cons->wifi.ip);
    else
        run_infof(bc, EB_RUN_EV_INFO, "%s: tier %s, connected to '%s' (RSSI %d dBm), board address %s", bc->label,
                  t->name, bc->cons->wifi.ssid, bc->cons->wifi.rssi, bc->cons->wifi.ip);
    bc->cons->tier = t;
    run_fill_meta(bc);
    return 0;
}

/* ------------------------------------------------------------ a reset */

/* The ways a run resets a board, the first that applies: an emulated
 * board's QEMU restarted; a virtual board's control socket; EN pulsed
 * through RTS where the port has modem lines. */
static bool is_qemu(const board_ctx *bc) { return bc->b->qemu_ctl != NULL; }
static bool has_control(const board_ctx *bc) { return bc->b->sim_control[0] != 0; }
static bool has_lines(const board_ctx *bc) { return bc->cons->port && bc->cons->port->can_set_lines; }

static int reset_qemu(board_ctx *bc, eb_error *err)
{
    close_board_port(bc);
    int rc = run_qemu_reboot(bc, err);
    return rc ? rc : open_console(bc, NULL, err);
}

static int reset_control(board_ctx *bc, eb_error *err)
{
    char reply[160];
    return eb_vboard_ctl(bc->b->sim_control, "reset", reply, sizeof reply, 5000, err);
}

static int reset_en(board_ctx *bc, eb_error *err)
{
    const eb_reset_seq *seq = eb_reset_after("hard-reset", bc->cons->port->usb_vid, bc->cons->port->usb_pid);
    int rc = seq ? eb_reset_run(bc->cons->port, seq, 0, err) : eb_fail(err, EB_ECONFIG, "no hard-reset sequence");
    return rc == 1 ? eb_fail(err, EB_EIO, "%s: the port cannot set RTS (EN)", bc->b->port) : rc;
}

static const struct reset_row {
    const char *how;
    bool (*applies)(const board_ctx *bc);
    int (*reset)(board_ctx *bc, eb_error *err);
} resets[] = {
    {"QEMU restarted", is_qemu, reset_qemu},
    {"the virtual board's reset", has_control, reset_control},
    {"EN pulsed through RTS", has_lines, reset_en},
};

int run_board_reset(board_ctx *bc, char *how, size_t cap, eb_error *err)
{
    bc->cons->tier = NULL; /* the firmware boots with its own tier: applied again */
    for (size_t i = 0; i < sizeof resets / sizeof resets[0]; i++) {
        if (!resets[i].applies(bc))
            continue;
        snprintf(how, cap, "%s", resets[i].how);
        int rc = resets[i].reset(bc, err);
        if (!rc && bc->cons->con) /* its prompt again, after the boot log */
            rc = bc->cons->drv->ready(bc->cons->drv, bc->cons->con, eb_deadline_in(ready_ms(bc)), err);
        if (rc && err->kind == EB_KIND_NONE)
            eb_error_kind(err, EB_KIND_BOARD);
        return rc;
    }
    snprintf(how, cap, "no way to reset it from here");
    eb_fail(err, EB_EIO, "%s: the port has no modem lines to reset the board", bc->b->port);
    eb_error_kind(err, EB_KIND_BOARD);
    return EB_EIO;
}

int run_board_ready(board_ctx *bc, eb_error *err)
{
    bc->cons->tier = NULL;
    eb_error ready_err = {0};
    if (bc->cons->drv->ready(bc->cons->drv, bc->cons->con, eb_deadline_in(ready_ms(bc)), &ready_err) &&
        eb_console_port_failed(bc->cons->con)) {
        *err = ready_err;
        return err->code ? err->code : EB_EIO;
    }
    return 0;
}

int run_board_log(board_ctx *bc, eb_error *err)
{
    if (bc->cons->console_log)
        return 0;
    char clog[1200];
    snprintf(clog, sizeof clog, "%s/console-%s.log", bc->sh->o->out_dir, run_file_label(bc));
    bc->cons->console_log = fopen(clog, "ae");
    if (!bc->cons->console_log)
        return eb_fail(err, EB_EIO, "cannot write %s: %s", clog, strerror(errno));
    return 0;
}

/* --manifest with --firmware NAME: the board is to run that firmware's tier
 * images, and its flash may hold nothing yet (a new or erased board, which
 * greets with no prompt): the first tier's image is written before the
 * first greeting. Not a peer: the manifest's tiers are the board's. */
static int first_open(board_ctx *bc, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    eb_run_item first = {0};
    eb_error perr = {0};
    if (!o->manifest || !o->firmware || bc->dut || eb_run_plan(o, bc->chip, &first, 1, &perr) < 1 ||
        !eb_run_item_tier(&first))
        return open_console(bc, NULL, err);
    const eb_tier *t = eb_run_item_tier(&first);
    int rc = 0;
    if (!bc->cons->port && (rc = eb_port_open(&bc->cons->port, bc->b->port, o->baud, err)) != 0)
        return rc;
    bc->cons->port->lines_absent_known = bc->b->port_no_lines;
    char what[48];
    snprintf(what, sizeof what, "tier %s", t->name);
    rc = run_flash_manifest(bc, o->firmware, t->name, what, err);
    bc->cons->preflashed = rc ? NULL : t;
    return rc;
}

int run_board_open(board_ctx *bc, eb_error *err)
{
    int rc = run_board_log(bc, err);
    if (!rc)
        rc = first_open(bc, err);
    if (rc)
        return rc;
    run_infof(bc, EB_RUN_EV_INFO, "%s: %s on %s speaks %s (%s %s, IDF %s)", bc->label, bc->chip->name,
              bc->b->port, bc->cons->drv->name, bc->cons->ident.project[0] ? bc->cons->ident.project : "?",
              bc->cons->ident.app_version, bc->cons->ident.idf_version[0] ? bc->cons->ident.idf_version : "?");
    run_fill_meta(bc);
    /* A -t or -i the firmware refuses fails every test alike: no test, no retry. */
    const eb_run_opts *o = bc->sh->o;
    return eb_dialect_check_timing(bc->cons->drv->dialect, o->duration_s, o->interval_s, bc->label, err);
}

void run_board_close(board_ctx *bc)
{
    if (bc->cons->con)
        run_fill_meta(bc);
    close_board_port(bc);
    if (bc->cons->console_log)
        fclose(bc->cons->console_log);
    bc->cons->console_log = NULL;
}
