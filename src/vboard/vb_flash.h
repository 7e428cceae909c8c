/* The board's SPI flash: a file mapped MAP_SHARED (survives restarts) or
 * anonymous memory, with NOR semantics (erase sets 0xFF, writes clear bits). */
#ifndef VB_FLASH_H
#define VB_FLASH_H

#include <stddef.h>
#include <stdint.h>

#include "espbench/base/error.h"

#define VB_FLASH_SECTOR 0x1000u

typedef struct vb_flash {
    uint8_t *data;
    size_t size;
    int fd;          /* -1 for anonymous flash */
} vb_flash;

/* path NULL: anonymous erased flash. A new file is created erased; a shorter
 * one is extended with 0xFF; a longer one is an error. */
int vb_flash_open(vb_flash *f, const char *path, size_t size, eb_error *err);
void vb_flash_close(vb_flash *f);
/* Erases the sectors covering [off, off+len) (clipped to the flash). */
void vb_flash_erase(vb_flash *f, size_t off, size_t len);
/* NOR program: flash &= data. Returns the bytes written (clipped). */
size_t vb_flash_program(vb_flash *f, size_t off, const uint8_t *data, size_t len);



/* SPI NOR timing, typical figures of the Winbond W25Q32JV datasheet (the part
 * whose JEDEC id the board answers, 0xEF 0x40 xx), section "AC Electrical
 * Characteristics": tPP page program 0.4 ms, tSE 4 KiB sector erase 45 ms,
 * tBE2 64 KiB block erase 150 ms, tCE chip erase 10 s (32 Mbit). Reads: the
 * loaders run the SPI bus at 40 MHz in DIO, 2 bits a clock = 10 MB/s. */
typedef struct vb_nor_timing {
    uint32_t page_program_us, sector_erase_us, block_erase_us;
    uint64_t chip_erase_us;
    uint32_t read_bytes_per_ms;
} vb_nor_timing;

extern const vb_nor_timing vb_w25q32jv;

/* Time to erase the sectors covering [off, off+len): 64 KiB block erases where
 * a whole aligned block lies inside, 4 KiB sector erases for the rest (what
 * the ROM's and the stub's erase loops do). */
uint64_t vb_flash_erase_us(const vb_nor_timing *t, size_t off, size_t len);
/* Time to program [off, off+len): one tPP per 256-byte page touched. */
uint64_t vb_flash_program_us(const vb_nor_timing *t, size_t off, size_t len);
uint64_t vb_flash_read_us(const vb_nor_timing *t, size_t len);
#endif
