/* What the chip's ROM prints on reset (banner, reset reason, boot mode, the
 * loader lines of the second-stage bootloader, the invalid-header loop), and
 * the check for a bootable application in flash. */
#ifndef VB_BOOT_H
#define VB_BOOT_H

#include <stdbool.h>
#include <stdint.h>

#include "espbench/base/buf.h"
#include "espbench/formats/esp_image.h"
#include "espbench/formats/profile.h"

#define VB_APP_OFFSET 0x10000u

/* Reset causes: "poweron" (power-up, EN pin, control socket reset), "sw"
 * (esp_restart, FLASH_END), "panic", "wdt". Unknown names count as "sw". */
typedef enum vb_reset_cause { VB_RST_POWERON, VB_RST_SW, VB_RST_PANIC, VB_RST_WDT } vb_reset_cause;
vb_reset_cause vb_reset_cause_from_name(const char *name);
const char *vb_reset_cause_name(vb_reset_cause c);

/* The ROM banner up to and including the reset/boot-mode line; download adds
 * "waiting for download". */
void vb_boot_rom_banner(const eb_chip *c, vb_reset_cause cause, bool download, eb_buf *out);
/* The ROM's lines while it loads the second-stage bootloader (SPIWP, mode,
 * load:..., entry ...). */
void vb_boot_rom_load_lines(const eb_chip *c, eb_buf *out);
/* One line of the invalid-header loop for the first word found in flash. */
void vb_boot_invalid_header_line(const eb_chip *c, uint32_t word, eb_buf *out);
/* Lines of the invalid-header loop before the ROM watchdog resets the chip,
 * and the pause between them (milliseconds). 0 lines: the ROM prints once and halts. */
int vb_boot_invalid_header_burst(const eb_chip *c);
int vb_boot_invalid_header_period_ms(const eb_chip *c);

/* True if flash holds a valid app for this chip at VB_APP_OFFSET (header,
 * checksum, SHA-256, chip id); info is filled either way when it parses. */
bool vb_boot_find_app(const eb_chip *c, const uint8_t *flash, size_t flash_size, eb_image_info *info);

#endif
