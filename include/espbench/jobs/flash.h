/* The flasher job: open a port, put the board into download mode, detect the
 * chip, write a list of regions (skipping those whose MD5 already matches,
 * verifying every one), and reset into the application. This is the API the
 * `run` orchestrator and the `detect`/`flash` commands use. */
#ifndef ESPBENCH_FLASH_H
#define ESPBENCH_FLASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/base/error.h"
#include "espbench/adapters/port.h"
#include "espbench/formats/profile.h"
#include "espbench/protocols/rom_client.h"

#define EB_FLASH_DEFAULT_BAUD 921600u
#define EB_ROM_BAUD 115200u

typedef struct eb_flash_progress {
    const char *phase;      /* "connect", "check", "write", "verify", "skip", "done" */
    int region, n_regions;  /* 0-based index of the region being handled */
    uint32_t offset;
    size_t done, total;     /* uncompressed bytes of this region */
    size_t wire_done, wire_total; /* compressed bytes sent of this region */
    uint64_t elapsed_ms;    /* since this region's write started */
} eb_flash_progress;

typedef void (*eb_flash_progress_fn)(void *user, const eb_flash_progress *p);

typedef struct eb_flash_opts {
    const eb_profiles *profiles; /* required */
    const char *expect_chip;     /* --chip: fail if a different chip answers; NULL = any */
    uint32_t baud;               /* 0 = EB_FLASH_DEFAULT_BAUD; falls back to 115200 if the switch fails */
    const char *before;          /* --before name, NULL = "default-reset" */
    const char *after;           /* --after name, NULL = "hard-reset" */
    const char *stub;            /* --stub: "auto" (look for Espressif's flasher stub, see
                                  * adapters/stub_files.h), "off" or a stub JSON FILE;
                                  * NULL = "off" (the ROM loader alone, as detect uses) */
    int connect_attempts;        /* 0 = 4 (reset + up to 5 SYNCs each) */
    bool no_skip;                /* write even when the MD5 matches */
    bool no_verify;              /* skip the MD5 check after writing */
    bool port_lent;              /* eb_flash_open_port: the caller keeps the port (the
                                  * session never closes it; the run job lends a board's) */
    bool no_compress;            /* plain FLASH_DATA blocks (esptool --no-compress) */
    bool emulated;               /* an emulated chip (qemu_board.h): its replies wait on a busy
                                  * host (5x the command deadlines) */
    bool stay_without_lines;     /* detect: with no --after, a port that cannot set DTR/RTS
                                    leaves the board in the loader (nothing could bring it
                                    back for the next command) instead of running the app */
    eb_flash_progress_fn progress;
    void *progress_user;
} eb_flash_opts;

/* One image to write. data is borrowed (the caller keeps it alive). */
typedef struct eb_flash_region {
    uint32_t offset;
    const uint8_t *data;
    size_t len;
    const char *name;            /* file name or URL, for messages */
} eb_flash_region;

typedef struct eb_flash_region_result {
    bool skipped;                /* MD5 matched before writing */
    bool written;
    char md5[33];                /* MD5 of the data (and of the flash after verify) */
    size_t wire_bytes;           /* compressed bytes sent */
    uint64_t ms;                 /* time spent on the region */
} eb_flash_region_result;

typedef struct eb_flash_session eb_flash_session;

/* Opens the port by URL at 115200, runs the --before reset, syncs, detects
 * the chip (and checks --chip), reads MAC and flash size, attaches SPI and
 * switches to opts->baud. */
int eb_flash_open(eb_flash_session **out, const char *url, const eb_flash_opts *opts, eb_error *err);
/* The same over a port the caller opened (tests, or a port already in use);
 * the session takes ownership of the port, also on failure, unless
 * opts->port_lent (then the caller closes it, after eb_flash_close). */
int eb_flash_open_port(eb_flash_session **out, eb_port *port, const eb_flash_opts *opts, eb_error *err);
const eb_rom_chip_info *eb_flash_chip(const eb_flash_session *s);
/* Which loader writes: "ROM", "stub: ORIGIN (PATH)" (ORIGIN e.g. "esptool-js
 * 0.7.0") or "stub: left running by another tool". */
const char *eb_flash_loader(const eb_flash_session *s);
/* The baud in use after the switch (115200 when the switch fell back). */
uint32_t eb_flash_baud(const eb_flash_session *s);
/* The ROM client, for lower-level work (read registers, MD5). */
eb_rom_client *eb_flash_rom(eb_flash_session *s);

/* Checks every region before writing anything (alignment, overlaps, size
 * against the detected flash, image header chip id against the detected chip,
 * header magic of images at the app/bootloader offsets), then for each region:
 * MD5 read, skip if equal, else compressed write and MD5 verify. results may
 * be NULL or hold n entries. */
int eb_flash_write(eb_flash_session *s, const eb_flash_region *regions, int n,
                   eb_flash_region_result *results, eb_error *err);

/* Runs the --after sequence (hard reset into the application by default).
 * Without DTR/RTS: the loader is told to run the application, or, with
 * stay_without_lines and no --after, the board stays in the loader. */
int eb_flash_reset_after(eb_flash_session *s, eb_error *err);
/* True when the --after step left the board in the ROM loader. */
bool eb_flash_left_in_loader(const eb_flash_session *s);
/* Hands the port over (e.g. to the console session after the hard reset),
 * set back to 115200 baud; eb_flash_close() then leaves it open. Afterwards
 * only eb_flash_chip() and eb_flash_close() may be called. NULL on error. */
eb_port *eb_flash_release_port(eb_flash_session *s, eb_error *err);
/* Closes the port and frees the session (does not reset). NULL is fine. */
void eb_flash_close(eb_flash_session *s);

/* Checks one region against a chip without a device (used by eb_flash_write
 * and by tests): image header magic/chip id and fit within flash_size. */
int eb_flash_check_region(const eb_chip *chip, uint32_t flash_size, const eb_flash_region *r, eb_error *err);

#endif
