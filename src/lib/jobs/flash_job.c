/* The flasher job: connect (reset + sync), detect, check regions, write with
 * MD5 skip and verify, reset into the application. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/adapters/stub_files.h"
#include "espbench/formats/esp_image.h"
#include "espbench/jobs/flash.h"
#include "espbench/base/digest.h"
#include "espbench/base/log.h"
#include "espbench/protocols/reset.h"
#include "espbench/formats/rom_proto.h"

struct eb_flash_session {
    eb_port *port;
    eb_rom_client *rom;
    eb_flash_opts opts;
    eb_rom_chip_info info;
    uint32_t baud;
    bool no_lines;       /* the port could not set DTR/RTS for --before */
    bool in_loader;      /* the --after step left the board in the ROM loader */
    bool after_done;     /* the --after step ran: the board's baud is no longer ours to fix */
    char loader[1200];   /* which loader wrote: "ROM", "stub: esptool-js 0.7.0 (PATH)" */
    eb_stub stub;        /* the stub found for the chip (stub_found == 0) */
    int stub_found;      /* 0 found, 1 none */
    bool stub_coming;    /* one will be started after the ROM's baud switch */
};

const char *eb_flash_loader(const eb_flash_session *s) { return s->loader; }

const eb_rom_chip_info *eb_flash_chip(const eb_flash_session *s) { return &s->info; }
uint32_t eb_flash_baud(const eb_flash_session *s) { return s->baud; }
eb_rom_client *eb_flash_rom(eb_flash_session *s) { return s->rom; }
bool eb_flash_left_in_loader(const eb_flash_session *s) { return s->in_loader; }

void eb_flash_close(eb_flash_session *s)
{
    if (!s)
        return;
    /* Closed in the loader at a raised baud (an error after the switch): put
     * it back to 115200, where the next command starts, best effort. A port
     * without DTR/RTS could not reset it out of the mismatch. */
    if (s->rom && s->port && !s->after_done && s->baud != EB_ROM_BAUD) {
        eb_error e;
        eb_rom_change_baud(s->rom, EB_ROM_BAUD, &e);
    }
    eb_rom_client_free(s->rom);
    if (!s->opts.port_lent)
        eb_port_close(s->port);
    eb_stub_free(&s->stub);
    free(s);
}

eb_port *eb_flash_release_port(eb_flash_session *s, eb_error *err)
{
    eb_port *p = s->port;
    if (p->baud != EB_ROM_BAUD && eb_port_set_baud(p, EB_ROM_BAUD, err) != EB_OK)
        return NULL;
    s->port = NULL;
    eb_rom_client_free(s->rom);
    s->rom = NULL;
    return p;
}

static bool is_no_reply(const eb_error *e) { return strstr(e->msg, "no reply") != NULL; }

/* Resets into download mode and syncs. With default-reset on a non-USB-JTAG
 * port, alternates the tight and classic sequences with a short and a long
 * boot-strap wait, as esptool does. */
static int connect_loader(eb_flash_session *s, eb_error *err)
{
    const char *before = s->opts.before ? s->opts.before : "default-reset";
    const eb_reset_seq *seq = eb_reset_before(before, s->port->usb_vid, s->port->usb_pid);
    if (!seq)
        return eb_fail(err, EB_ECONFIG, "unknown --before '%s' (expected one of: %s)", before, eb_reset_before_names());
    bool asked_default = !strcmp(before, "default-reset") || !strcmp(before, "default_reset");
    bool cycle = asked_default && strcmp(seq->name, "usb-reset") != 0;
    int attempts = s->opts.connect_attempts > 0 ? s->opts.connect_attempts : 4;
    eb_error e;
    eb_error_clear(&e);
    for (int i = 0; i < attempts; i++) {
        const eb_reset_seq *use = seq;
        if (cycle)
            use = eb_reset_before((i / 2) % 2 ? "classic" : "tight", 0, 0);
        int rc = eb_reset_run(s->port, use, i % 2 ? 500 : 0, &e);
        if (rc != EB_OK && rc != 1) {
            *err = e;
            return rc;
        }
        s->no_lines = rc == 1 || s->port->lines_unconfirmed;
        if (!seq->syncs)
            return EB_OK;
        rc = eb_rom_sync(s->rom, 5, &e);
        if (rc == EB_OK)
            return EB_OK;
        if (!is_no_reply(&e)) {
            *err = e;
            return rc;
        }
    }
    if (s->no_lines)
        /* Nothing here can have reset the board: most likely an earlier command's
         * --after left it running its application. */
        return eb_fail(err, EB_EIO,
                       "%s: no reply to SYNC from the ROM loader; hold BOOT (IO0) while pressing RESET, or check that this "
                       "is the board's port; this port cannot reset the board (no DTR/RTS, or unconfirmed ones), so after a command run with "
                       "--after hard-reset (flash's default) the board runs its application until reset by hand: "
                       "use --after no-reset to keep it in the loader",
                       s->port->url);
    *err = e;
    return EB_EIO;
}

static int setup_flash(eb_flash_session *s, eb_error *err)
{
    const eb_chip *chip = s->info.chip;
    int rc = eb_rom_read_mac(s->rom, s->info.mac, err);
    if (rc)
        return rc;
    static const uint8_t blank[6];
    s->info.mac_blank = !memcmp(s->info.mac, blank, sizeof blank);
    if (s->info.mac_blank)
        eb_log(EB_LOG_WARN, "%s: the eFuse MAC of this %s reads 00:00:00:00:00:00 (blank eFuse): results will not "
               "identify the board by its MAC; check it with esptool read_mac", s->port->url, chip->display);
    if (chip->chip_id >= 0 && (rc = eb_rom_spi_attach(s->rom, err)))
        return rc;
    uint32_t id = 0, size = 0;
    eb_error e;
    if (eb_rom_read_flash_id(s->rom, &id, &e) == EB_OK)
        size = eb_rom_flash_size_from_id(id);
    s->info.flash_id = id;
    if (size) {
        s->info.flash_size = size;
        s->info.flash_size_detected = true;
    } else {
        s->info.flash_size = chip->flash_size;
        eb_log(EB_LOG_WARN, "%s: could not read the flash id (0x%06x); assuming the %s default of %u MB",
               s->port->url, id, chip->display, chip->flash_size >> 20);
    }
    return eb_rom_spi_set_params(s->rom, s->info.flash_size, err);
}

static int check_opts(const eb_flash_opts *opts, eb_error *err)
{
    if (!opts || !opts->profiles)
        return eb_fail(err, EB_ECONFIG, "flash: no chip profiles loaded");
    if (opts->expect_chip && !eb_profiles_chip(opts->profiles, opts->expect_chip))
        return eb_fail(err, EB_ECONFIG, "unknown chip '%s'; see 'espbench profiles'", opts->expect_chip);
    if (opts->after && !eb_reset_after(opts->after, 0, 0))
        return eb_fail(err, EB_ECONFIG, "unknown --after '%s' (expected one of: %s)", opts->after, eb_reset_after_names());
    if (opts->before && !eb_reset_before(opts->before, 0, 0))
        return eb_fail(err, EB_ECONFIG, "unknown --before '%s' (expected one of: %s)", opts->before, eb_reset_before_names());
    return eb_stub_mode_check(opts->stub, opts->profiles, err);
}

int eb_flash_open(eb_flash_session **out, const char *url, const eb_flash_opts *opts, eb_error *err)
{
    *out = NULL;
    int rc = check_opts(opts, err);
    if (rc)
        return rc;
    eb_port *port;
    if ((rc = eb_port_open(&port, url, EB_ROM_BAUD, err)))
        return rc;
    return eb_flash_open_port(out, port, opts, err);
}

/* Switches to --baud with CHANGE_BAUDRATE, unless the loader cannot (the
 * ESP8266 ROM: profile rom_no_change_baud) or the port is raw TCP; a refusal
 * or a board that does not follow leaves the session at 115200. Called on the
 * ROM and again under a freshly started stub (which then carries the rate). */
static int switch_baud(eb_flash_session *s, eb_error *err)
{
    uint32_t baud = s->opts.baud ? s->opts.baud : EB_FLASH_DEFAULT_BAUD;
    const char *url = s->port->url;
    if (baud == s->baud)
        return EB_OK;
    if (!strcmp(s->port->ops->name, "socket")) {
        eb_log_once("socket-no-baud", EB_LOG_INFO, "%s: raw TCP port: staying at %u baud", url, EB_ROM_BAUD);
        return EB_OK;
    }
    if (!eb_rom_is_stub(s->rom) && s->info.chip->rom_no_change_baud) {
        if (!s->stub_coming)
            eb_log(EB_LOG_INFO, "%s: the %s ROM cannot change its baud rate: staying at %u (a flasher stub can)", url,
                   s->info.chip->display, EB_ROM_BAUD);
        return EB_OK;
    }
    eb_error e;
    int rc = eb_rom_change_baud(s->rom, baud, &e);
    if (rc == EB_OK) {
        s->baud = baud;
    } else if (strstr(e.msg, "still at")) {
        eb_log(EB_LOG_WARN, "%s; continuing at %u baud", e.msg, s->baud);
    } else if (strstr(e.msg, "error 0x") || strstr(e.msg, "does not support")) {
        eb_log(EB_LOG_WARN, "%s: the loader refused %u baud; continuing at %u", url, baud, s->baud);
    } else {
        *err = e;
        return EB_EIO;
    }
    return EB_OK;
}

/* An uploaded stub that never greets leaves the chip running code that
 * answers nothing until a reset (esp-flasher-stub v1.2.2 in Espressif's QEMU:
 * docs/flashing.md). Where the port can reset the board, the --before reset
 * brings the ROM loader back at 115200 and the write goes through the ROM;
 * elsewhere one line says what the user has to do. */
static int stub_silent(eb_flash_session *s, eb_error *err)
{
    char why[sizeof err->msg];
    memcpy(why, err->msg, sizeof why);
    s->stub_found = 1;
    s->stub_coming = false;
    const eb_reset_seq *seq = eb_reset_before(s->opts.before ? s->opts.before : "default-reset", s->port->usb_vid,
                                              s->port->usb_pid);
    if (s->no_lines || !seq || !strncmp(seq->name, "no-reset", 8)) {
        s->after_done = true; /* nothing answers: no baud to put back */
        return eb_fail(err, EB_EIO,
                       "%s, and %s, so the chip answers nothing now: put it into download mode by hand (hold BOOT, "
                       "press RESET) and run again with --stub off",
                       why, s->no_lines ? "this port cannot reset the board (no DTR/RTS, or unconfirmed ones)"
                                        : "--before no-reset does not reset the board");
    }
    eb_log(EB_LOG_WARN, "%s: resetting into the ROM loader and flashing through it (--stub off skips the stub)", why);
    int rc = s->port->baud == EB_ROM_BAUD ? EB_OK : eb_port_set_baud(s->port, EB_ROM_BAUD, err);
    s->baud = EB_ROM_BAUD;
    if (!rc)
        rc = connect_loader(s, err);
    if (!rc)
        rc = eb_rom_detect_chip(s->rom, &s->info, err);
    if (!rc)
        rc = switch_baud(s, err);
    if (rc)
        return rc;
    snprintf(s->loader, sizeof s->loader, "ROM (the flasher stub did not start)");
    return EB_OK;
}

/* --stub: finds Espressif's flasher stub for the detected chip (adapters/
 * stub_files.h), uploads and starts it. None: the ROM path and one line on
 * how to get a faster one. A stub already running (another tool left it)
 * is used as it is. */
static int start_stub(eb_flash_session *s, eb_error *err)
{
    const char *url = s->port->url;
    if (eb_rom_is_stub(s->rom)) {
        snprintf(s->loader, sizeof s->loader, "stub: left running by another tool");
        return EB_OK;
    }
    snprintf(s->loader, sizeof s->loader, "ROM");
    if (s->stub_found != 0)
        return EB_OK;
    int rc = eb_rom_run_stub(s->rom, &s->stub, err);
    if (rc && eb_rom_stub_silent(s->rom))
        return stub_silent(s, err);
    if (rc)
        return rc;
    snprintf(s->loader, sizeof s->loader, "stub: %s (%s)", s->stub.origin, s->stub.path);
    eb_log(EB_LOG_INFO, "%s: flasher stub running: %s, %s", url, s->stub.origin, s->stub.path);
    return EB_OK;
}

/* Which stub, before the ROM's baud switch (said there when none comes). */
static int find_stub(eb_flash_session *s, eb_error *err)
{
    char hint[1024];
    s->stub_found = 1;
    if (eb_rom_is_stub(s->rom))
        return EB_OK;
    int rc = eb_stub_find(s->opts.stub ? s->opts.stub : "off", s->info.chip, s->opts.profiles, &s->stub, hint, sizeof hint, err);
    if (rc > 1)
        return rc;
    s->stub_found = rc;
    s->stub_coming = rc == 0;
    if (rc == 1 && hint[0])
        eb_log_once("no-flasher-stub", EB_LOG_INFO, "%s: %s", s->port->url, hint);
    return EB_OK;
}

int eb_flash_open_port(eb_flash_session **out, eb_port *port, const eb_flash_opts *opts, eb_error *err)
{
    *out = NULL;
    int rc = check_opts(opts, err);
    if (rc) {
        if (!opts->port_lent)
            eb_port_close(port);
        return rc;
    }
    const char *url = port->url;
    eb_flash_session *s = calloc(1, sizeof *s);
    if (!s) {
        if (!opts->port_lent)
            eb_port_close(port);
        return eb_fail(err, EB_EIO, "out of memory");
    }
    s->opts = *opts;
    s->baud = port->baud;
    s->port = port;
    s->rom = eb_rom_client_new(s->port, opts->profiles);
    if (!s->rom) {
        eb_flash_close(s);
        return eb_fail(err, EB_EIO, "out of memory");
    }
    if (opts->emulated) /* QEMU's guest waits for the host's cores; a chip never does */
        eb_rom_client_set_timeouts(s->rom, &(eb_rom_timeouts){.sync_ms = 500, .command_ms = 15000,
                                                              .erase_per_mb_ms = 200000, .md5_per_mb_ms = 40000});
    if (opts->progress) {
        eb_flash_progress p = {.phase = "connect"};
        opts->progress(opts->progress_user, &p);
    }
    if ((rc = connect_loader(s, err)) || (rc = eb_rom_detect_chip(s->rom, &s->info, err)))
        goto fail;
    if (opts->expect_chip && strcmp(opts->expect_chip, s->info.chip->name) != 0) {
        const eb_chip *want = eb_profiles_chip(opts->profiles, opts->expect_chip);
        rc = eb_fail(err, EB_EIO, "wrong chip: expected %s (--chip %s) but %s has an %s; check --port or --chip",
                     want->display, opts->expect_chip, url, s->info.chip->display);
        goto fail;
    }
    /* The ROM switches first where it can (the stub then loads at --baud and
     * keeps the UART's divider: stub_main installs a receive interrupt and
     * changes no rate), else the stub switches (ESP8266). */
    if ((rc = find_stub(s, err)) || (rc = switch_baud(s, err)) || (rc = start_stub(s, err)) ||
        (eb_rom_is_stub(s->rom) && (rc = switch_baud(s, err))))
        goto fail;
    if ((rc = setup_flash(s, err)))
        goto fail;
    *out = s;
    return EB_OK;
fail:
    eb_flash_close(s);
    return rc ? rc : EB_EIO;
}

int eb_flash_check_region(const eb_chip *chip, uint32_t flash_size, const eb_flash_region *r, eb_error *err)
{
    const char *name = r->name ? r->name : "image";
    if (r->offset % 0x1000)
        return eb_fail(err, EB_ECONFIG, "%s: offset 0x%x is not a multiple of 4 KiB (0x1000)", name, r->offset);
    if (r->len == 0)
        return eb_fail(err, EB_ECONFIG, "%s: empty image", name);
    if ((uint64_t)r->offset + r->len > flash_size)
        return eb_fail(err, EB_EIO, "%s: %zu bytes at 0x%x do not fit in the %u MB flash of this %s (ends at 0x%llx, flash ends at 0x%x)",
                       name, r->len, r->offset, flash_size >> 20, chip->display,
                       (unsigned long long)r->offset + r->len, flash_size);
    /* The bootloader and the first app slot must be ESP images; anything else
     * that looks like one is checked too. */
    bool must_be_image = r->offset == chip->bootloader_offset || r->offset == 0x10000;
    if (!must_be_image && r->data[0] != EB_IMAGE_MAGIC)
        return EB_OK;
    eb_image_info info;
    eb_error e;
    bool esp8266 = chip->chip_id < 0;
    if (eb_image_parse(r->data, r->len, esp8266, &info, &e) != EB_OK)
        return eb_fail(err, EB_EIO, "%s: corrupt image header at 0x%x: %s", name, r->offset, e.msg);
    if (!info.checksum_ok || !info.sha256_ok)
        return eb_fail(err, EB_EIO, "%s: corrupt image: %s does not match its contents; rebuild or re-download it",
                       name, !info.checksum_ok ? "checksum" : "appended SHA-256");
    if (!esp8266 && info.has_ext_header && info.chip_id != chip->chip_id)
        return eb_fail(err, EB_EIO, "%s: image is built for chip id %u, but the board is an %s (chip id %d); use the %s build",
                       name, info.chip_id, chip->display, chip->chip_id, chip->name);
    return EB_OK;
}

static int md5_hex(const uint8_t *d, size_t n, char hex[33], eb_error *err)
{
    uint8_t md[EB_MD5_LEN];
    int rc = eb_digest(EB_DIGEST_MD5, d, n, md, err);
    if (!rc)
        eb_hex(md, sizeof md, hex);
    return rc;
}

typedef struct {
    eb_flash_session *s;
    eb_flash_progress p;
    uint64_t t0;
} progress_ctx;

static void on_rom_progress(void *user, size_t done, size_t total, size_t wire_done, size_t wire_total)
{
    progress_ctx *pc = user;
    pc->p.done = done;
    pc->p.total = total;
    pc->p.wire_done = wire_done;
    pc->p.wire_total = wire_total;
    pc->p.elapsed_ms = eb_now_ms() - pc->t0;
    if (pc->s->opts.progress)
        pc->s->opts.progress(pc->s->opts.progress_user, &pc->p);
}

static void report(eb_flash_session *s, progress_ctx *pc, const char *phase)
{
    if (!s->opts.progress)
        return;
    pc->p.phase = phase;
    pc->p.elapsed_ms = eb_now_ms() - pc->t0;
    s->opts.progress(s->opts.progress_user, &pc->p);
}

static int write_region(eb_flash_session *s, const eb_flash_region *r, int idx, int n, eb_flash_region_result *res,
                        eb_error *err)
{
    /* The ROM hashes and writes whole 32-bit words: pad with erased-flash bytes. */
    size_t len = (r->len + 3) & ~(size_t)3;
    uint8_t *data = malloc(len);
    if (!data)
        return eb_fail(err, EB_EIO, "out of memory");
    memcpy(data, r->data, r->len);
    memset(data + r->len, 0xFF, len - r->len);
    char want[33], have[33];
    int drc = md5_hex(data, len, want, err);
    if (drc) {
        free(data);
        return drc;
    }
    memcpy(res->md5, want, 33);
    progress_ctx pc = {.s = s, .t0 = eb_now_ms()};
    pc.p.region = idx;
    pc.p.n_regions = n;
    pc.p.offset = r->offset;
    pc.p.total = len;
    int rc = EB_OK;
    if (!s->opts.no_skip) {
        report(s, &pc, "check");
        if ((rc = eb_rom_flash_md5(s->rom, r->offset, (uint32_t)len, have, err)))
            goto out;
        if (!strcmp(have, want)) {
            res->skipped = true;
            pc.p.done = len;
            report(s, &pc, "skip");
            goto out;
        }
    }
    report(s, &pc, "write");
    rc = eb_rom_flash_write(s->rom, r->offset, data, len, !s->opts.no_compress, on_rom_progress, &pc, err);
    if (rc) {
        eb_error_prefix(err, "writing %s at 0x%x: ", r->name ? r->name : "image", r->offset);
        goto out;
    }
    res->written = true;
    res->wire_bytes = pc.p.wire_total;
    if (!s->opts.no_verify) {
        report(s, &pc, "verify");
        if ((rc = eb_rom_flash_md5(s->rom, r->offset, (uint32_t)len, have, err)))
            goto out;
        if (strcmp(have, want)) {
            rc = eb_fail(err, EB_EIO, "%s at 0x%x: MD5 of the flash (%s) does not match the image (%s) after writing; retry, or lower --baud",
                         r->name ? r->name : "image", r->offset, have, want);
            goto out;
        }
    }
    report(s, &pc, "done");
out:
    res->ms = eb_now_ms() - pc.t0;
    free(data);
    return rc;
}

int eb_flash_write(eb_flash_session *s, const eb_flash_region *regions, int n, eb_flash_region_result *results,
                   eb_error *err)
{
    const eb_chip *chip = s->info.chip;
    for (int i = 0; i < n; i++) {
        int rc = eb_flash_check_region(chip, s->info.flash_size, &regions[i], err);
        if (rc)
            return rc;
        for (int j = 0; j < i; j++) {
            const eb_flash_region *a = &regions[j], *b = &regions[i];
            if (a->offset < b->offset + b->len && b->offset < a->offset + a->len)
                return eb_fail(err, EB_ECONFIG, "%s at 0x%x overlaps %s at 0x%x", b->name ? b->name : "image",
                               b->offset, a->name ? a->name : "image", a->offset);
        }
    }
    eb_flash_region_result local;
    for (int i = 0; i < n; i++) {
        eb_flash_region_result *res = results ? &results[i] : &local;
        memset(res, 0, sizeof *res);
        int rc = write_region(s, &regions[i], i, n, res, err);
        if (rc)
            return rc;
    }
    return EB_OK;
}

/* The board stays in the loader: back at the ROM's 115200 baud, where the
 * next command (which cannot know the rate this one chose) starts talking. */
static int stay_in_loader(eb_flash_session *s, eb_error *err)
{
    s->in_loader = true;
    if (s->baud == EB_ROM_BAUD)
        return EB_OK;
    eb_error e;
    if (eb_rom_change_baud(s->rom, EB_ROM_BAUD, &e) != EB_OK) {
        eb_log(EB_LOG_WARN, "%s; the loader may still be at %u baud", e.msg, s->baud);
        return EB_OK;
    }
    s->baud = EB_ROM_BAUD;
    (void)err;
    return EB_OK;
}

int eb_flash_reset_after(eb_flash_session *s, eb_error *err)
{
    s->after_done = true;
    const eb_reset_seq *seq = eb_reset_after(s->opts.after, s->port->usb_vid, s->port->usb_pid);
    if (!seq)
        return eb_fail(err, EB_ECONFIG, "unknown --after '%s'", s->opts.after);
    if (!seq->steps || seq->steps[0].op == EB_RS_END)
        return stay_in_loader(s, err);
    /* Lines that go unconfirmed (rfc2217 ?ign_set_control, e.g. ser2net in
     * front of a pty) may reach no board: treated as absent, so that where
     * the board ends up does not depend on them. */
    bool unconfirmed = s->port->lines_unconfirmed;
    int rc = unconfirmed ? 1 : eb_reset_run(s->port, seq, 0, err);
    if (rc != 1)
        return rc;
    const char *url = s->port->url;
    const char *why = unconfirmed ? "DTR/RTS changes on this port go unconfirmed (ign_set_control)"
                                  : "cannot set DTR/RTS on this port";
    if (!s->opts.after && s->opts.stay_without_lines) {
        /* Nothing could bring the board back into the loader for the next
         * command (detect, then flash), so it stays there. */
        eb_log_once("no-modem-lines-after", EB_LOG_INFO,
                    "%s: %s, so the board stays in the ROM loader for the next command; "
                    "--after hard-reset makes it run its application",
                    url, why);
        return stay_in_loader(s, err);
    }
    /* No lines to pulse EN: ask the loader to run the app (esptool's soft reset). */
    if (!s->port->lines_absent_known)
        eb_log_once("no-modem-lines-after", EB_LOG_INFO,
                    "%s: %s, so the ROM loader is told to run the application (--after %s); "
                    "the next command here finds no loader unless the board is put into download mode by hand "
                    "(--after no-reset keeps it in the loader)",
                    url, why, seq->name);
    return eb_rom_leave_loader(s->rom, err);
}
