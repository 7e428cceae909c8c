/* The ROM serial loader of the virtual board (download mode), and the flasher
 * stub behaviour once a host has uploaded and started its stub. */
#ifndef VB_ROM_H
#define VB_ROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vb_board.h"
#include "vb_flash.h"

typedef struct vb_rom vb_rom;

typedef struct vb_rom_hooks {
    /* CHANGE_BAUDRATE: switch once the queued acknowledgement has gone out. */
    void (*set_baud_after_reply)(void *ctx, uint32_t baud);
    /* The line speed now (UART_CLKDIV follows it). */
    uint32_t (*current_baud)(void *ctx);
    void *ctx;
} vb_rom_hooks;

vb_rom *vb_rom_new(vb_board *b, vb_flash *flash, const vb_rom_hooks *hooks);
void vb_rom_free(vb_rom *r);
/* Back to the ROM loader's initial state (after a reset into download mode). */
void vb_rom_reset(vb_rom *r);
/* Bytes from the host while in download mode (SLIP; junk between frames ignored). */
void vb_rom_feed(vb_rom *r, const uint8_t *data, size_t len);
/* One decoded packet (what vb_rom_feed calls per frame). */
void vb_rom_handle(vb_rom *r, const uint8_t *pkt, size_t len);
bool vb_rom_stub_running(const vb_rom *r);
/* Flash timing: the eb_now_us() until which the chip is busy (erasing,
 * programming, hashing); answers made meanwhile go out at that time, when the
 * main loop calls vb_rom_poll (and it takes no host bytes before). */
uint64_t vb_rom_busy_until(const vb_rom *r);
/* When the answers held back go out (0 = none held): the end of the work
 * queued before them. The main loop wakes then. */
uint64_t vb_rom_answer_at(const vb_rom *r);
void vb_rom_poll(vb_rom *r, uint64_t now_us);
/* A loader slow to boot (Espressif's QEMU under load): for us after each
 * reset the ROM takes no byte; what the host sends meanwhile is held and
 * handled when the boot ends (vb_rom_poll or the next vb_rom_feed). */
void vb_rom_set_boot_us(vb_rom *r, uint64_t us);
/* True once a command has been answered since the last reset (the ROM's
 * baud detection is over). */
bool vb_rom_synced(const vb_rom *r);
/* True if pkt is a well-formed SYNC request (application mode watches for it). */
bool vb_rom_is_sync(const uint8_t *pkt, size_t len);

/* The board's base MAC: Espressif OUI, the rest derived from the seed and chip. */
void vb_board_mac(const vb_board *b, uint8_t mac[6]);
/* The JEDEC id the emulated flash answers to RDID (0x9F): capacity byte = log2(size). */
uint32_t vb_flash_jedec_id(size_t flash_size);

#endif
