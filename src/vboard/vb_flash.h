/* The board's SPI flash: a file mapped MAP_SHARED (survives restarts) or
 * anonymous memory, with NOR semantics (erase sets 0xFF, writes clear bits). */
#ifndef VB_FLASH_H
#define VB_FLASH_H

#include <stddef.h>
#include <stdint.h>

#include "espbench/error.h"

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

#endif
