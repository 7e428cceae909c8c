/* Host side of the Espressif ROM serial loader over an eb_port: sync, chip
 * detection against the profiles, eFuse MAC, flash id, baud change, SPI attach,
 * compressed writes and MD5 reads. One request in flight at a time; every read
 * has a deadline. The flash job (flash.h) builds on this. */
#ifndef ESPBENCH_ROM_CLIENT_H
#define ESPBENCH_ROM_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/base/buf.h"
#include "espbench/base/error.h"
#include "espbench/adapters/port.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/stub.h"

typedef struct eb_rom_client eb_rom_client;

/* Timeouts (ms); tests may shorten them. */
typedef struct eb_rom_timeouts {
    unsigned sync_ms;          /* one SYNC attempt (esptool: 100) */
    unsigned command_ms;       /* ordinary commands (esptool: 3000) */
    unsigned erase_per_mb_ms;  /* ROM FLASH_BEGIN/FLASH_DEFL_BEGIN erase, per block
                                  (esptool: ERASE_REGION/ERASE_WRITE_TIMEOUT_PER_MB 40 s) */
    unsigned md5_per_mb_ms;    /* SPI_FLASH_MD5 (esptool: 8000) */
} eb_rom_timeouts;

/* The client does not own the port or the profiles. */
eb_rom_client *eb_rom_client_new(eb_port *port, const eb_profiles *profiles);
void eb_rom_client_free(eb_rom_client *c);
/* Replaces the default timeouts (tests shorten them against a silent mock). */
void eb_rom_client_set_timeouts(eb_rom_client *c, const eb_rom_timeouts *t);

/* Sends SYNC up to `tries` times (each with its own deadline); once one is
 * answered, reads the ROM's further replies (8 per SYNC, also to earlier
 * tries that waited in the line while it booted) until the line is quiet for
 * the SYNC timeout, at most the command timeout. Later commands skip SYNC
 * replies that still come. EB_EIO "no reply to SYNC ..." when the chip is silent. */
int eb_rom_sync(eb_rom_client *c, int tries, eb_error *err);

/* Detected facts about the chip in download mode. */
typedef struct eb_rom_chip_info {
    const eb_chip *chip;     /* the profile that matched */
    int chip_id;             /* from GET_SECURITY_INFO, or the profile's */
    uint32_t magic;          /* value of the magic register (0 if not read) */
    bool by_security_info;   /* identified by GET_SECURITY_INFO (else magic) */
    uint8_t mac[6];
    bool mac_blank;          /* all zero: a blank eFuse (the flash job warns) */
    uint32_t flash_id;       /* JEDEC id from RDID (0 when unknown) */
    uint32_t flash_size;     /* bytes */
    bool flash_size_detected;/* false: the profile's default was used */
    bool stub;               /* a flasher stub answered (left running by another tool) */
} eb_rom_chip_info;

/* GET_SECURITY_INFO, then the magic register; matched against the profiles.
 * Also sets the status-byte count for the chip (2 on ESP8266). */
int eb_rom_detect_chip(eb_rom_client *c, eb_rom_chip_info *info, eb_error *err);
/* Reads the MAC from eFuse (needs a detected chip). */
int eb_rom_read_mac(eb_rom_client *c, uint8_t mac[6], eb_error *err);
/* RDID through the SPI user-command registers; 0 and EB_EIO on failure. */
int eb_rom_read_flash_id(eb_rom_client *c, uint32_t *jedec, eb_error *err);
/* Flash size in bytes from a JEDEC id (1 << size byte), 0 if implausible. */
uint32_t eb_rom_flash_size_from_id(uint32_t jedec);

int eb_rom_read_reg(eb_rom_client *c, uint32_t addr, uint32_t *value, eb_error *err);
int eb_rom_write_reg(eb_rom_client *c, uint32_t addr, uint32_t value, eb_error *err);
/* CHANGE_BAUDRATE, then switches the host side and checks with a SYNC. */
int eb_rom_change_baud(eb_rom_client *c, uint32_t baud, eb_error *err);
int eb_rom_spi_attach(eb_rom_client *c, eb_error *err);
int eb_rom_spi_set_params(eb_rom_client *c, uint32_t flash_size, eb_error *err);

/* MD5 of a flash region as 32 lowercase hex chars. */
int eb_rom_flash_md5(eb_rom_client *c, uint32_t offset, uint32_t len, char hex[33], eb_error *err);

/* Progress of a write: uncompressed bytes done of total, compressed bytes sent. */
typedef void (*eb_rom_progress_fn)(void *user, size_t done, size_t total, size_t wire_done, size_t wire_total);

/* Writes data at offset (4 KiB aligned) in ROM-sized blocks (0x400): with
 * compress, as a zlib stream through FLASH_DEFL_* (plain FLASH_DATA on a
 * loader without it); on a ROM that programs its whole 32 KiB inflate buffer
 * at a stream's end (ESP32, profile rom_deflate_window) the compressed part
 * ends one sector short of a window boundary and the rest (4 to 36 KiB) goes
 * plain afterwards, erasing the sectors the stray window reached, so no byte
 * past the region's last 4 KiB sector changes. Blocks answered with a
 * checksum error are resent up to 3 times. */
int eb_rom_flash_write(eb_rom_client *c, uint32_t offset, const uint8_t *data, size_t len, bool compress,
                       eb_rom_progress_fn progress, void *user, eb_error *err);

/* Leaves the loader and runs the application without touching DTR/RTS: the
 * ROM's FLASH_BEGIN 0 then FLASH_END "run user code"; an ESP8266 stub's
 * RUN_USER_CODE; an ESP32-family stub first resets back into the ROM loader
 * (FLASH_END "reboot"), as its RUN_USER_CODE does not start the app. */
int eb_rom_leave_loader(eb_rom_client *c, eb_error *err);
/* Uploads a flasher stub (text, then data, through MEM_BEGIN/MEM_DATA),
 * starts it with MEM_END at its entry and waits for its "OHAI"; from then on
 * the client speaks to the stub (2 status bytes, 0x4000-byte blocks, raw MD5,
 * exact FLASH_BEGIN sizes, no 32 KiB tail rule). Already a stub: nothing. */
int eb_rom_run_stub(eb_rom_client *c, const eb_stub *stub, eb_error *err);
/* Stub only (EB_ECONFIG through the ROM): ERASE_FLASH (up to 120 s),
 * ERASE_REGION (4 KiB-aligned offset and size), READ_FLASH into out (len
 * bytes; 4 KiB packets, each acknowledged, checked against the stub's MD5). */
int eb_rom_erase_flash(eb_rom_client *c, eb_error *err);
int eb_rom_erase_region(eb_rom_client *c, uint32_t offset, uint32_t size, eb_error *err);
int eb_rom_read_flash(eb_rom_client *c, uint32_t offset, uint32_t len, uint8_t *out, eb_error *err);
/* True after eb_rom_run_stub failed because the started stub never greeted
 * ("no OHAI"): the chip runs code that answers nothing until it is reset.
 * A successful SYNC clears it. */
bool eb_rom_stub_silent(const eb_rom_client *c);
/* True when a flasher stub (SYNC value 0) answers rather than the ROM. */
bool eb_rom_is_stub(const eb_rom_client *c);

void eb_rom_set_chip(eb_rom_client *c, const eb_chip *chip);

/* The erase size to send in an ESP8266 ROM FLASH_BEGIN for a region, working
 * around the ROM's erase arithmetic. */
uint32_t eb_rom_esp8266_erase_size(uint32_t offset, uint32_t size);

#endif
