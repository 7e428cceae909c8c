/* An emulated ESP32-C3 as a board of a run (`run --qemu`), or of a test:
 * its flash file made, QEMU started with the download strap, the images
 * written through espbench's own flash job over the chip's genuine ROM
 * loader (socket://), then "reset into the app": QEMU stopped and started
 * again on the same flash file without the strap, with slirp's forwards
 * to the guest's Ethernet. docs/emulator.md. */
#ifndef ESPBENCH_QEMU_BOARD_H
#define ESPBENCH_QEMU_BOARD_H

#include <stdbool.h>
#include <stdint.h>

#include "espbench/adapters/qemu_proc.h"
#include "espbench/base/error.h"
#include "espbench/formats/profile.h"
#include "espbench/jobs/firmware_source.h"

typedef struct eb_qemu_board_opts {
    const eb_profiles *profiles;
    const char *name;        /* file names: NAME-flash.bin, NAME-qemu.log; NULL = "qemu" */
    const char *out_dir;     /* where those go */
    const char *program;     /* QEMU: --qemu-bin; NULL = $ESPBENCH_QEMU or PATH */
    const char *rom_dir;     /* -L; NULL = beside the program when its ROM is there */
    const eb_image_set *images; /* written in download mode; NULL or empty = none (boot the flash as it is) */
    const char *fwd_addr;    /* the loopback address the forwards listen on; NULL = 127.0.0.1 */
    eb_qemu_fwd fwd[EB_QEMU_MAX_FWD];
    int n_fwd;
    bool keep_loader;        /* stay in download mode after writing (tests) */
} eb_qemu_board_opts;

typedef struct eb_qemu_board eb_qemu_board;

int eb_qemu_board_start(eb_qemu_board **out, const eb_qemu_board_opts *o, eb_error *err);
const char *eb_qemu_board_port(const eb_qemu_board *b);     /* socket://127.0.0.1:PORT */
const char *eb_qemu_board_flash(const eb_qemu_board *b);    /* the flash file */
const char *eb_qemu_board_log(const eb_qemu_board *b);      /* QEMU's output */
const char *eb_qemu_board_program(const eb_qemu_board *b);  /* QEMU as found */
const char *eb_qemu_board_app_sha256(const eb_qemu_board *b); /* of the image at the app offset, hex ("" = none) */
/* Regions written and skipped as unchanged by the start. */
void eb_qemu_board_flashed(const eb_qemu_board *b, int *written, int *unchanged);
pid_t eb_qemu_board_pid(const eb_qemu_board *b);
/* Another firmware: QEMU stopped by its pid, started with the download
 * strap, the images written through the ROM loader (unchanged regions
 * skipped: MD5), and the chip booted from its flash again. The UART's port
 * changes (eb_qemu_board_port); eb_qemu_board_flashed counts this write. */
int eb_qemu_board_reflash(eb_qemu_board *b, const eb_image_set *images, eb_error *err);
/* A reset: QEMU stopped by its pid and started again on the same flash,
 * without the strap (the guest boots from scratch, as after EN). The UART's
 * port changes. */
int eb_qemu_board_reboot(eb_qemu_board *b, eb_error *err);
/* Stops QEMU by its pid and frees. NULL is fine. */
void eb_qemu_board_stop(eb_qemu_board *b);

/* The images of a firmware folder: an ESP-IDF build (flasher_args.json in
 * DIR or DIR/build), else bootloader.bin at the chip's bootloader offset,
 * partition-table.bin at 0x8000 and espbench.bin at 0x10000. */
int eb_qemu_images_from_dir(eb_image_set *s, const char *dir, uint32_t bootloader_offset, eb_error *err);

#endif
