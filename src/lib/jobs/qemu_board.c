/* An emulated ESP32-C3 made ready for a run: flash file, the images written
 * through the genuine ROM loader with the download strap, then the chip
 * booted from its flash. QEMU's strap is fixed when it starts, so "reset
 * into the app" is a second QEMU on the same flash file without it; the
 * first is stopped by its pid before (the file is never open twice). */
#include "espbench/jobs/qemu_board.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "espbench/base/fs.h"
#include "espbench/base/log.h"
#include "espbench/base/sha256.h"
#include "espbench/jobs/flash.h"

#define APP_OFFSET 0x10000u

struct eb_qemu_board {
    eb_qemu *q;
    eb_qemu_board_opts o; /* kept for each restart: its texts copied below */
    char program[PATH_MAX], rom_dir[PATH_MAX], fwd_addr[48];
    char flash[PATH_MAX], log[PATH_MAX];
    char sha256[72];
    int written, unchanged;
};

const char *eb_qemu_board_port(const eb_qemu_board *b) { return eb_qemu_port(b->q); }
const char *eb_qemu_board_flash(const eb_qemu_board *b) { return b->flash; }
const char *eb_qemu_board_log(const eb_qemu_board *b) { return b->log; }
const char *eb_qemu_board_program(const eb_qemu_board *b) { return eb_qemu_program_used(b->q); }
const char *eb_qemu_board_app_sha256(const eb_qemu_board *b) { return b->sha256; }
pid_t eb_qemu_board_pid(const eb_qemu_board *b) { return eb_qemu_pid(b->q); }

void eb_qemu_board_flashed(const eb_qemu_board *b, int *written, int *unchanged)
{
    *written = b->written;
    *unchanged = b->unchanged;
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int eb_qemu_images_from_dir(eb_image_set *s, const char *dir, uint32_t bootloader_offset, eb_error *err)
{
    char p[PATH_MAX + 32];
    static const struct {
        const char *file;
        uint32_t offset; /* 0 = the chip's bootloader offset */
    } parts[] = {{"bootloader.bin", 0}, {"partition-table.bin", 0x8000}, {"espbench.bin", APP_OFFSET}};
    /* The three files first: a copied build folder keeps a flasher_args.json whose paths are the build's. */
    size_t have = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, parts[i].file);
        have += is_file(p);
    }
    snprintf(p, sizeof p, "%s/flasher_args.json", dir);
    bool build = is_file(p);
    snprintf(p, sizeof p, "%s/build/flasher_args.json", dir);
    if (have < sizeof parts / sizeof parts[0] && (build || is_file(p)))
        return eb_image_set_from_build_dir(s, dir, err);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, parts[i].file);
        if (!is_file(p))
            return eb_fail(err, EB_ECONFIG,
                           "%s: no %s here, and no flasher_args.json: give the firmware's ESP-IDF build folder "
                           "or a folder with bootloader.bin, partition-table.bin and espbench.bin",
                           dir, parts[i].file);
        char arg[PATH_MAX + 64];
        snprintf(arg, sizeof arg, "%s@0x%x", p, parts[i].offset ? parts[i].offset : bootloader_offset);
        int rc = eb_image_set_add_arg(s, arg, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* The images through the ROM loader: no reset lines on socket://, no stub
 * (Espressif's stubs do not answer in QEMU: docs/flashing.md), the loader
 * left as it is, since QEMU is stopped next. */
static int write_images(eb_qemu_board *b, const eb_qemu_board_opts *o, const eb_image_set *s, eb_error *err)
{
    eb_flash_opts fo = {.profiles = o->profiles, .expect_chip = "esp32c3", .before = "no-reset",
                        .after = "no-reset", .stub = "off", .emulated = true};
    eb_flash_session *fs = NULL;
    eb_flash_region_result *res = calloc((size_t)s->n, sizeof *res);
    if (!res)
        abort();
    int rc = eb_flash_open(&fs, eb_qemu_port(b->q), &fo, err);
    if (!rc)
        rc = eb_flash_write(fs, s->regions, s->n, res, err);
    eb_flash_close(fs);
    b->written = b->unchanged = 0;
    for (int i = 0; !rc && i < s->n; i++) {
        b->written += res[i].written;
        b->unchanged += res[i].skipped;
        if (s->regions[i].offset == APP_OFFSET)
            rc = eb_sha256_hex(s->regions[i].data, s->regions[i].len, b->sha256, err);
    }
    free(res);
    if (rc)
        eb_error_prefix(err, "qemu: flashing %s through the ROM loader: ", eb_qemu_port(b->q));
    return rc;
}

static int start_qemu(eb_qemu_board *b, const eb_qemu_board_opts *o, bool download, eb_error *err)
{
    eb_qemu_opts qo = {.program = o->program, .rom_dir = o->rom_dir, .flash = b->flash, .download = download,
                       .fwd_addr = o->fwd_addr, .log = b->log};
    if (!download) { /* the forwards only where traffic goes: the app */
        qo.n_fwd = o->n_fwd < EB_QEMU_MAX_FWD ? o->n_fwd : EB_QEMU_MAX_FWD;
        memcpy(qo.fwd, o->fwd, sizeof qo.fwd[0] * (size_t)qo.n_fwd);
    }
    int rc = eb_qemu_start(&b->q, &qo, err);
    if (!rc)
        eb_log(EB_LOG_DEBUG, "qemu: pid %d, %s mode, UART on %s", (int)eb_qemu_pid(b->q),
               download ? "download" : "app", eb_qemu_port(b->q));
    return rc;
}

/* A text of the options kept in the board (NULL stays NULL). */
static const char *keep(char *dst, size_t cap, const char *src)
{
    if (!src)
        return NULL;
    snprintf(dst, cap, "%s", src);
    return dst;
}

/* The images written in download mode, then "reset into the app" (unless
 * keep_loader): QEMU stopped by its pid and started again without the strap. */
static int flash_and_boot(eb_qemu_board *b, const eb_image_set *set, eb_error *err)
{
    const eb_qemu_board_opts *o = &b->o;
    bool flashing = set && set->n > 0;
    int rc = start_qemu(b, o, flashing || o->keep_loader, err);
    if (!rc && flashing)
        rc = write_images(b, o, set, err);
    if (!rc && flashing && !o->keep_loader) {
        eb_qemu_stop(b->q); /* by its pid: the strap is only read when QEMU starts */
        b->q = NULL;
        rc = start_qemu(b, o, false, err);
    }
    return rc;
}

int eb_qemu_board_start(eb_qemu_board **out, const eb_qemu_board_opts *o, eb_error *err)
{
    *out = NULL;
    const char *name = o->name && *o->name ? o->name : "qemu";
    if (eb_mkdir_p(o->out_dir) != 0)
        return eb_fail(err, EB_EIO, "cannot create %s: %s; check --out and its permissions", o->out_dir,
                       strerror(errno));
    eb_qemu_board *b = calloc(1, sizeof *b);
    if (!b)
        abort();
    b->o = *o;
    b->o.program = keep(b->program, sizeof b->program, o->program);
    b->o.rom_dir = keep(b->rom_dir, sizeof b->rom_dir, o->rom_dir);
    b->o.fwd_addr = keep(b->fwd_addr, sizeof b->fwd_addr, o->fwd_addr);
    b->o.images = NULL; /* the caller's: each start or reflash is given its own */
    b->o.name = b->o.out_dir = NULL;
    snprintf(b->flash, sizeof b->flash, "%s/%s-flash.bin", o->out_dir, name);
    snprintf(b->log, sizeof b->log, "%s/%s.log", o->out_dir, name);
    int rc = eb_qemu_flash_file(b->flash, EB_QEMU_FLASH_BYTES, err);
    if (!rc)
        rc = flash_and_boot(b, o->images, err);
    if (rc) {
        eb_qemu_board_stop(b);
        return rc;
    }
    *out = b;
    return 0;
}

int eb_qemu_board_reflash(eb_qemu_board *b, const eb_image_set *images, eb_error *err)
{
    eb_qemu_stop(b->q);
    b->q = NULL;
    return flash_and_boot(b, images, err);
}

int eb_qemu_board_reboot(eb_qemu_board *b, eb_error *err)
{
    eb_qemu_stop(b->q);
    b->q = NULL;
    return start_qemu(b, &b->o, false, err);
}

void eb_qemu_board_stop(eb_qemu_board *b)
{
    if (!b)
        return;
    eb_qemu_stop(b->q);
    free(b);
}
