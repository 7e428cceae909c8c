/* The ROM serial loader (see vb_rom.h and docs/vboard.md).
 *
 * Requests are dispatched through a table of opcode handlers that states the
 * accepted data sizes. ROM mode answers with the chip's status bytes (4, or 2
 * on ESP8266) as [1, error, 0, 0] on failure, and an unknown command the way
 * the real ROMs do: frames carrying the previous reply's opcode and value with
 * error 0x05 (esptool loader.py "Unsupported command response is sent 8
 * times"). After MEM_END that starts an uploaded stub the board behaves as
 * Espressif's flasher stub (esptool-legacy-flasher-stub stub_flasher.c): two
 * status bytes [error, 0], 0x4000-byte blocks, raw MD5, ERASE_*, READ_FLASH
 * with an ack per packet, 0xFF for what it does not implement.
 *
 * Unless the board is --forgiving it is as strict as the hardware: resent
 * data blocks are written at the next position, SPI_ATTACH to the stub takes
 * exactly 4 bytes, FLASH_END "reboot" comes back in download mode. With
 * flash timing the answers wait for the erase, program and read times of
 * the flash part (vb_flash.h). */
#include "vb_rom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "espbench/base/clock.h"
#include "espbench/base/digest.h"
#include "espbench/base/mix64.h"
#include "espbench/formats/rom_proto.h"
#include "espbench/formats/slip.h"
#include "vb_faults.h"

#define MAX_REGS 256
#define SPI_CMD_USR (1u << 18)
#define SIZE_ANY 0xFFFFu
#define STUB_ERR_NOT_IN_FLASH_MODE 0xC6u
#define STUB_ERR_NOT_IMPLEMENTED 0xFFu /* stub_flasher.h ESP_CMD_NOT_IMPLEMENTED */
#define STUB_READ_MAX_PACKET 4096u     /* handle_flash_read: its buffer is one sector */
#define ROM_UNSUPPORTED_REPLIES 8

typedef struct reg_slot {
    uint32_t addr, value;
} reg_slot;

typedef struct xfer {
    bool active;
    bool deflate;
    uint32_t offset, size, blocks, block_size;
    uint32_t next_seq;
    uint64_t written;  /* uncompressed bytes written so far */
    uint64_t erased_to; /* stub: erases as it writes, up to here (offset-relative) */
    uint64_t erase_next; /* stub, compressed: next erase unit (offset-relative), started asynchronously */
    uint64_t out_fill;   /* stub, compressed: inflated bytes in its 32 KiB output buffer, not yet written */
    z_stream z;
    bool z_init, z_end;
} xfer;

/* Stub READ_FLASH in progress: packets go out while fewer than max_in_flight
 * bytes are unacknowledged; each host ack (a 4-byte frame, bytes received)
 * lets more go. */
typedef struct read_xfer {
    bool active;
    uint32_t addr, len, psize, in_flight, sent, acked;
} read_xfer;

/* An uploaded RAM segment (MEM_BEGIN .. MEM_DATA). */
typedef struct mem_seg {
    uint32_t addr, size;
    bool complete;
} mem_seg;
#define MAX_MEM_SEGS 8

struct vb_rom {
    vb_board *b;
    vb_flash *flash;
    vb_rom_hooks hooks;
    eb_slip_decoder dec;
    bool stub;
    reg_slot regs[MAX_REGS];
    int n_regs;
    xfer fl;
    struct {
        bool active;
        uint32_t total, blocks, block_size, addr, next_seq, received;
        mem_seg segs[MAX_MEM_SEGS];
        int n_segs;
    } mem;
    read_xfer rd;
    bool hung;           /* jumped into code that is not a stub: silent until a reset */
    uint8_t last_op;     /* the last reply's opcode and value: what an unknown command echoes */
    uint32_t last_value;
    int checksum_faults; /* remaining _DATA blocks to answer with a checksum error */
    uint64_t busy_until; /* eb_now_us() until which the chip is busy (flash timing) */
    uint8_t *inflate_buf; /* ROM with rom_deflate_window: its circular inflate buffer (see rom_stream_end) */
    uint32_t inflate_len;
    uint64_t flash_free; /* stub: until when the flash itself is busy (an erase it started runs on
                            while the CPU answers and receives: esp-flasher-stub's async erase) */
    eb_buf out;          /* response frames being assembled */
    eb_buf held;         /* frames waiting for the busy time to pass */
    uint64_t held_until; /* when they go: the end of the work before them (a stub's
                            ack of block N+1 waits for block N's write, not its own) */
    uint64_t boot_us;    /* time from a reset until the loader reads the UART (0: at once) */
    uint64_t boot_until; /* eb_now_us() when the current boot ends */
    eb_buf boot_rx;      /* host bytes that arrived during the boot, taken when it ends */
};

typedef void (*rom_handler)(vb_rom *r, const eb_rom_request *q);

/* Chip facts (UART and SPI registers, image format) come from the profile's
 * chip section (profiles/NAME.yaml, espbench-profiles(5)). */

static bool is_esp8266(const eb_chip *c) { return c->image_format == EB_IMAGE_ESP8266; }

uint32_t vb_flash_jedec_id(size_t flash_size)
{
    unsigned cap = 0;
    while (cap < 31 && ((size_t)1 << cap) < flash_size)
        cap++;
    return (uint32_t)cap << 16 | 0x40u << 8 | 0xEFu; /* Winbond-style W25Qxx id */
}

void vb_board_mac(const vb_board *b, uint8_t mac[6])
{
    uint64_t h = b->seed;
    for (const char *s = b->chip->name; *s; s++)
        h = eb_mix64(h ^ (uint8_t)*s);
    h = eb_mix64(h);
    bool esp8266 = is_esp8266(b->chip);
    mac[0] = esp8266 ? 0x18 : 0x7C; /* Espressif OUIs */
    mac[1] = esp8266 ? 0xFE : 0xDF;
    mac[2] = esp8266 ? 0x34 : 0xA1;
    mac[3] = (uint8_t)h;
    mac[4] = (uint8_t)(h >> 8);
    mac[5] = (uint8_t)(h >> 16);
}

/* ---- registers --------------------------------------------------------- */

static reg_slot *reg_find(vb_rom *r, uint32_t addr, bool create)
{
    for (int i = 0; i < r->n_regs; i++)
        if (r->regs[i].addr == addr)
            return &r->regs[i];
    if (!create)
        return NULL;
    if (r->n_regs == MAX_REGS)
        memmove(r->regs, r->regs + 1, sizeof r->regs[0] * (MAX_REGS - 1)), r->n_regs--;
    reg_slot *s = &r->regs[r->n_regs++];
    s->addr = addr;
    s->value = 0;
    return s;
}

static void reg_set(vb_rom *r, uint32_t addr, uint32_t v) { reg_find(r, addr, true)->value = v; }

static uint32_t reg_get(vb_rom *r, uint32_t addr)
{
    const eb_chip *c = r->b->chip;
    if (addr == EB_ROM_CHIP_MAGIC_REG)
        return c->n_magic > 0 ? c->magic[0] : 0;
    if (c->uart_clkdiv_reg && addr == c->uart_clkdiv_reg) {
        uint32_t baud = r->hooks.current_baud ? r->hooks.current_baud(r->hooks.ctx) : 115200;
        uint64_t clk = c->uart_clk_hz ? c->uart_clk_hz : 40000000u;
        return baud ? (uint32_t)((clk + baud / 2) / baud) & 0xFFFFFu : 347;
    }
    uint8_t mac[6];
    vb_board_mac(r->b, mac);
    uint32_t m = c->efuse_mac_reg;
    if (m && is_esp8266(c)) { /* ESP8266 OTP layout: OUI 18:FE:34 implied by mac1[23:16] == 0 */
        if (addr == m)
            return (uint32_t)mac[5] << 24;
        if (addr == m + 4)
            return (uint32_t)mac[3] << 8 | mac[4];
        if (addr == m + 8 || addr == m + 12)
            return 0;
    } else if (m) {
        if (addr == m)
            return (uint32_t)mac[2] << 24 | (uint32_t)mac[3] << 16 | (uint32_t)mac[4] << 8 | mac[5];
        if (addr == m + 4)
            return (uint32_t)mac[0] << 8 | mac[1];
    }
    reg_slot *s = reg_find(r, addr, false);
    return s ? s->value : 0;
}

/* A write of SPI_CMD with USR set runs the user command configured in USR2
 * (command bit length 7 in bits 28..31, opcode below): RDID returns the JEDEC id
 * in W0, anything else returns 0. The USR bit then reads back clear. */
static void spi_maybe_run(vb_rom *r, uint32_t addr, uint32_t value)
{
    const eb_chip *c = r->b->chip;
    uint32_t base = c->spi_reg_base;
    if (!base || !c->has_spi_regs || addr != base || !(value & SPI_CMD_USR))
        return;
    uint32_t cmd = 0;
    reg_slot *s = reg_find(r, base + c->spi.usr2, false);
    if (s && (s->value >> 28) == 7)
        cmd = s->value & 0xFFFF;
    uint32_t result = cmd == 0x9F ? vb_flash_jedec_id(r->flash->size) : 0;
    reg_set(r, base + c->spi.w0, result);
    reg_set(r, base, value & ~SPI_CMD_USR);
}

/* ---- replies ----------------------------------------------------------- */

static int status_bytes(const vb_rom *r)
{
    if (r->stub)
        return 2;
    return r->b->chip->rom_status_bytes ? r->b->chip->rom_status_bytes : 4;
}

static void frame(vb_rom *r, const uint8_t *pkt, size_t len) { eb_slip_encode(&r->out, pkt, len); }

static void reply(vb_rom *r, uint8_t op, uint32_t value, const uint8_t *payload, size_t n)
{
    eb_buf pkt;
    eb_buf_init(&pkt);
    eb_rom_build_response(&pkt, op, value, payload, n, 0, 0, status_bytes(r));
    frame(r, pkt.data, pkt.len);
    eb_buf_free(&pkt);
    r->last_op = op;
    r->last_value = value;
}

/* ROM: [1, code]; stub: [code, 0] (its status word is the code). */
static void reply_err(vb_rom *r, uint8_t op, uint8_t code)
{
    eb_buf pkt;
    eb_buf_init(&pkt);
    if (r->stub)
        eb_rom_build_response(&pkt, op, 0, NULL, 0, code, 0, 2);
    else
        eb_rom_build_response(&pkt, op, 0, NULL, 0, 1, code, status_bytes(r));
    frame(r, pkt.data, pkt.len);
    eb_buf_free(&pkt);
    r->last_op = op;
    r->last_value = 0;
}

/* A command the ROM does not know: as observed on the real ESP32 ROM (issue
 * 12: after a SYNC, opcode 0x08 with SYNC's value), the answer repeats the
 * previous reply's opcode and value with status 1, error 0x05, and esptool
 * drains eight such frames. Hosts must not wait for their own opcode. */
static void reply_unsupported_rom(vb_rom *r)
{
    eb_buf pkt;
    eb_buf_init(&pkt);
    eb_rom_build_response(&pkt, r->last_op, r->last_value, NULL, 0, 1, EB_ROM_ERR_INVALID_MSG, status_bytes(r));
    for (int i = 0; i < ROM_UNSUPPORTED_REPLIES; i++)
        frame(r, pkt.data, pkt.len);
    eb_buf_free(&pkt);
}

static bool busy(const vb_rom *r) { return r->busy_until > eb_now_us(); }

/* Output goes out now, or after the busy time when the chip is still busy. */
static void flush_out(vb_rom *r)
{
    if (!r->out.len)
        return;
    if (busy(r) || r->held.len) {
        eb_buf_append(&r->held, r->out.data, r->out.len);
        if (r->busy_until > r->held_until)
            r->held_until = r->busy_until;
    }
    else
        r->b->write(r->b, r->out.data, r->out.len);
    eb_buf_reset(&r->out);
}

/* The chip spends us microseconds on the flash (with flash timing). */
static void spend(vb_rom *r, uint64_t us)
{
    if (!r->b->flash_timing || !us)
        return;
    uint64_t now = eb_now_us();
    r->busy_until = (r->busy_until > now ? r->busy_until : now) + us;
}

uint64_t vb_rom_busy_until(const vb_rom *r) { return r->busy_until; }

uint64_t vb_rom_answer_at(const vb_rom *r)
{
    if (r->boot_rx.len)
        return r->boot_until;
    return r->held.len ? r->held_until : 0;
}

static void boot_done(vb_rom *r, uint64_t now_us);

void vb_rom_poll(vb_rom *r, uint64_t now_us)
{
    boot_done(r, now_us);
    if (now_us < r->held_until || !r->held.len)
        return;
    r->b->write(r->b, r->held.data, r->held.len);
    eb_buf_reset(&r->held);
}

/* ---- flash transfers --------------------------------------------------- */

static void xfer_end(xfer *x)
{
    if (x->z_init)
        inflateEnd(&x->z);
    memset(x, 0, sizeof *x);
}

/* The stub's erase of the next unit of the region (a 64 KiB block where one
 * starts and fits, else a 4 KiB sector: start_next_erase in both stubs),
 * started at t if the flash is idle then, and not waited for. */
static bool stub_start_erase(vb_rom *r, uint64_t t)
{
    xfer *x = &r->fl;
    uint64_t end = ((uint64_t)x->size + VB_FLASH_SECTOR - 1) & ~(uint64_t)(VB_FLASH_SECTOR - 1);
    if (!r->b->flash_timing || x->erase_next >= end || r->flash_free > t)
        return false;
    uint64_t unit = (x->offset + x->erase_next) % 0x10000u == 0 && end - x->erase_next >= 0x10000u ? 0x10000u
                                                                                                   : VB_FLASH_SECTOR;
    r->flash_free = t + vb_flash_erase_us(&vb_w25q32jv, (size_t)(x->offset + x->erase_next), (size_t)unit);
    x->erase_next += unit;
    return true;
}

static void begin_xfer(vb_rom *r, const eb_rom_request *q, bool deflate)
{
    uint32_t size = eb_rd32le(q->data), blocks = eb_rd32le(q->data + 4);
    uint32_t bsize = eb_rd32le(q->data + 8), offset = eb_rd32le(q->data + 12);
    if (bsize > EB_STUB_FLASH_BLOCK) {
        reply_err(r, q->op, r->stub ? EB_STUB_ERR_BAD_BLOCKSIZE : 0x01);
        return;
    }
    if ((uint64_t)offset + size > r->flash->size) {
        reply_err(r, q->op, r->stub ? EB_STUB_ERR_TOO_MUCH_DATA : EB_ROM_ERR_FAILED);
        return;
    }
    xfer_end(&r->fl);
    xfer *x = &r->fl;
    x->active = true;
    x->deflate = deflate;
    x->offset = offset;
    x->size = size;
    x->blocks = blocks;
    x->block_size = bsize;
    if (deflate) {
        if (inflateInit(&x->z) != Z_OK) {
            reply_err(r, q->op, r->stub ? EB_STUB_ERR_INFLATE : EB_ROM_ERR_DEFLATE);
            return;
        }
        x->z_init = true;
    }
    /* The ROM erases the whole region before it answers (esptool scales this
     * command's timeout with the size); the stub erases as it writes, so only
     * its time is spent later. The content is erased here for both: the
     * result is the same for a complete write. Uncompressed ROM writes may
     * also run past erase_size (ESP8266 erase-size workaround): cover the
     * blocks. */
    uint64_t span = size;
    if (!deflate && !r->stub && (uint64_t)blocks * bsize > span)
        span = (uint64_t)blocks * bsize;
    vb_flash_erase(r->flash, offset, (size_t)span);
    if (!r->stub)
        spend(r, vb_flash_erase_us(&vb_w25q32jv, offset, (size_t)span));
    else if (deflate)
        stub_start_erase(r, eb_now_us()); /* started, not waited for (s_init_flash_operation) */
    reply(r, q->op, 0, NULL, 0);
}

/* Time for writing n bytes at the transfer's position: the program time,
 * and for the stub the erase of the sectors the write reaches first. The
 * stub acknowledges a block before it writes it (stub_flasher.c), so the
 * ack goes out first and the next command waits. */
static void spend_write(vb_rom *r, uint64_t at_rel, uint64_t n)
{
    xfer *x = &r->fl;
    uint64_t us = vb_flash_program_us(&vb_w25q32jv, (size_t)(x->offset + at_rel), (size_t)n);
    if (r->stub && at_rel + n > x->erased_to) {
        uint64_t end = (at_rel + n + VB_FLASH_SECTOR - 1) & ~(uint64_t)(VB_FLASH_SECTOR - 1);
        if (end > x->size)
            end = (x->size + VB_FLASH_SECTOR - 1) & ~(uint64_t)(VB_FLASH_SECTOR - 1);
        /* blocks of 64 KiB where the rest of the region holds one (handle_flash_data) */
        uint64_t from = x->erased_to;
        if ((x->offset + from) % 0x10000u == 0 && x->size - from >= 0x10000u && end - from < 0x10000u)
            end = from + 0x10000u;
        if (end > from)
            us += vb_flash_erase_us(&vb_w25q32jv, (size_t)(x->offset + from), (size_t)(end - from));
        x->erased_to = end;
    }
    if (r->stub)
        flush_out(r);
    spend(r, us);
}

/* The stub's time for a compressed block that inflated to n bytes, as
 * esp-flasher-stub does it (command_handler.c s_flash_defl_data_post_process;
 * the legacy stub's handle_flash_deflated_data alike): the output goes into
 * a 32 KiB buffer (TINFL_LZ_DICT_SIZE), written when full or at the stream's
 * end, after the erase has reached it (s_ensure_flash_erased_to); before each
 * inflate step an erase of the next unit starts if the flash is idle
 * ("opportunistic erase during decompression"), and runs on while the stub
 * answers and receives the next block. The CPU is done (and takes the next
 * command) when its writes are. */
static void spend_inflated(vb_rom *r, uint64_t n, bool stream_end)
{
    xfer *x = &r->fl;
    if (!r->b->flash_timing)
        return;
    uint64_t now = eb_now_us(), t = r->busy_until > now ? r->busy_until : now;
    for (;;) {
        stub_start_erase(r, t);
        uint64_t take = n < 32768 - x->out_fill ? n : 32768 - x->out_fill;
        x->out_fill += take;
        n -= take;
        bool flush = x->out_fill == 32768 || (stream_end && n == 0 && x->out_fill);
        if (flush) {
            uint64_t at = x->erased_to, need = at + x->out_fill;
            while (x->erase_next < need) {
                t = r->flash_free > t ? r->flash_free : t;
                if (!stub_start_erase(r, t))
                    break;
            }
            t = r->flash_free > t ? r->flash_free : t;
            t += vb_flash_program_us(&vb_w25q32jv, (size_t)(x->offset + at), (size_t)x->out_fill);
            r->flash_free = t;
            x->erased_to = need; /* here: written so far (offset-relative) */
            x->out_fill = 0;
        }
        if (n == 0)
            break;
    }
    r->busy_until = t;
}

static void h_flash_begin(vb_rom *r, const eb_rom_request *q) { begin_xfer(r, q, false); }
static void rom_stream_end(vb_rom *r);
static int inflate_block(vb_rom *r, const eb_rom_request *q, size_t len);
static void h_defl_begin(vb_rom *r, const eb_rom_request *q) { begin_xfer(r, q, true); }

/* Checks a _DATA request's header, checksum and sequence. Returns the payload
 * length, or -1 after replying with an error. */
static long check_data(vb_rom *r, const eb_rom_request *q, uint32_t expected_seq, uint32_t block_size)
{
    if (q->size < EB_ROM_DATA_HDR) {
        reply_err(r, q->op, r->stub ? EB_STUB_ERR_BAD_DATA_LEN : EB_ROM_ERR_INVALID_MSG);
        return -1;
    }
    uint32_t len = eb_rd32le(q->data);
    const uint8_t *payload = q->data + EB_ROM_DATA_HDR;
    if (len != q->size - EB_ROM_DATA_HDR || (block_size && len > block_size)) {
        reply_err(r, q->op, r->stub ? EB_STUB_ERR_BAD_DATA_LEN : EB_ROM_ERR_INVALID_MSG);
        return -1;
    }
    if (r->checksum_faults == 0) {
        vb_fault f;
        if (vb_board_take_fault(r->b, "rom-checksum", NULL, &f))
            r->checksum_faults = (int)vb_fault_arg_long(&f, 1);
    }
    bool forced = r->checksum_faults > 0;
    if (forced)
        r->checksum_faults--;
    if (forced || (q->checksum & 0xFF) != eb_rom_checksum(payload, len)) {
        reply_err(r, q->op, r->stub ? EB_STUB_ERR_BAD_CHECKSUM : EB_ROM_ERR_CHECKSUM);
        return -1;
    }
    /* Real stubs never look at the sequence number (stub_flasher.c) and no
     * public source shows the ROM checking it: a block is written at the
     * next position whatever its number. Only the forgiving board checks. */
    if (r->b->forgiving && eb_rd32le(q->data + 4) != expected_seq) {
        reply_err(r, q->op, EB_ROM_ERR_BAD_SEQ);
        return -1;
    }
    return (long)len;
}

static bool take_write_fault(vb_rom *r, uint8_t op)
{
    if (!vb_board_take_fault(r->b, "flash-write", NULL, NULL))
        return false;
    reply_err(r, op, EB_ROM_ERR_FLASH_WRITE);
    return true;
}

static bool duplicate_block(vb_rom *r, const eb_rom_request *q)
{
    /* Forgiving only: a host that missed our ack resends the block it just
     * sent, and gets the ack again without a second write. */
    return r->b->forgiving && q->size >= EB_ROM_DATA_HDR && r->fl.next_seq > 0 && eb_rd32le(q->data + 4) == r->fl.next_seq - 1 &&
           (q->checksum & 0xFF) == eb_rom_checksum(q->data + EB_ROM_DATA_HDR, q->size - EB_ROM_DATA_HDR);
}

static void h_flash_data(vb_rom *r, const eb_rom_request *q)
{
    xfer *x = &r->fl;
    if (!x->active || x->deflate) {
        reply_err(r, q->op, r->stub ? STUB_ERR_NOT_IN_FLASH_MODE : EB_ROM_ERR_FAILED);
        return;
    }
    if (duplicate_block(r, q)) {
        reply(r, q->op, 0, NULL, 0);
        return;
    }
    long len = check_data(r, q, x->next_seq, x->block_size);
    if (len < 0 || take_write_fault(r, q->op))
        return;
    uint64_t at = (uint64_t)x->offset + (uint64_t)x->next_seq * x->block_size;
    /* The stub writes no more than FLASH_BEGIN announced: the last block's
     * padding is dropped (stub_write_flash.c handle_flash_data trims the
     * final block to what remains). */
    if (r->stub && x->written + (uint64_t)len > x->size)
        len = x->written < x->size ? (long)(x->size - x->written) : 0;
    if (at + (uint64_t)len > r->flash->size) {
        reply_err(r, q->op, r->stub ? EB_STUB_ERR_TOO_MUCH_DATA : EB_ROM_ERR_FLASH_WRITE);
        return;
    }
    vb_flash_program(r->flash, (size_t)at, q->data + EB_ROM_DATA_HDR, (size_t)len);
    if (r->stub)
        reply(r, q->op, 0, NULL, 0);
    spend_write(r, at - x->offset, (uint64_t)len);
    x->written += (uint64_t)len;
    x->next_seq++;
    if (!r->stub)
        reply(r, q->op, 0, NULL, 0);
}

static void h_defl_data(vb_rom *r, const eb_rom_request *q)
{
    xfer *x = &r->fl;
    if (!x->active || !x->deflate) {
        reply_err(r, q->op, r->stub ? STUB_ERR_NOT_IN_FLASH_MODE : EB_ROM_ERR_FAILED);
        return;
    }
    if (duplicate_block(r, q)) {
        reply(r, q->op, 0, NULL, 0);
        return;
    }
    long len = check_data(r, q, x->next_seq, 0);
    if (len < 0 || take_write_fault(r, q->op))
        return;
    uint64_t before = x->written;
    if (inflate_block(r, q, (size_t)len) != 0)
        return;
    if (r->stub) {
        reply(r, q->op, 0, NULL, 0);
        flush_out(r); /* acknowledged first: the stub inflates and writes after its answer */
        spend_inflated(r, x->written - before, x->z_end);
    } else {
        spend_write(r, before, x->written - before);
    }
    if (x->z_end)
        rom_stream_end(r);
    x->next_seq++;
    if (!r->stub)
        reply(r, q->op, 0, NULL, 0);
}

/* The ESP32 ROM's end of a compressed stream, byte for byte as the genuine
 * ROM does it (measured in Espressif's QEMU, esp-develop d96ca95c64, which runs
 * the chip's own mask ROM, pc-bios/esp32-v3-rom.bin; docs/flashing.md "The
 * ESP32 ROM's compressed write"): the ROM inflates into a circular buffer of
 * rom_deflate_window (32 KiB) bytes, output byte p of the stream at [p mod W],
 * kept from stream to stream, zero at power-on (after a soft reset not
 * measured: zeroed here too). When the stream ends it programs the whole
 * buffer at the window of the region holding the end —
 * windows counted from the region's offset, and when the end falls on a
 * window boundary the window after it — without erasing: bytes past the data
 * are the buffer's older content (the stream's bytes one window earlier, or an
 * earlier stream's, or zeros) AND-ed into the flash, past the region's erased
 * sectors. It does so when the last FLASH_DEFL_DATA ends the stream, whatever
 * follows (FLASH_DEFL_END stay or reboot, or nothing). The ESP32-C3 ROM
 * (rom_deflate_pad: 4) writes the stream's end rounded up to 4 bytes, the
 * padding from its own 32 KiB circular buffer (measured the same way: 70 001,
 * 70 002 and 70 003 bytes left 3, 2 and 1 bytes of the stream 32 KiB earlier
 * after the data); the flasher stubs write exactly what they inflated. */
static void rom_stream_end(vb_rom *r)
{
    xfer *x = &r->fl;
    uint32_t w = r->inflate_len, pad = r->b->chip->rom_deflate_pad;
    if (r->stub || !w)
        return;
    if (!r->b->chip->rom_deflate_window) {
        for (uint64_t p = x->written; pad && p % pad; p++)
            vb_flash_program(r->flash, (size_t)(x->offset + p), &r->inflate_buf[p % w], 1);
        return;
    }
    uint64_t at = (uint64_t)x->offset + x->written / w * w;
    if (at >= r->flash->size)
        return;
    size_t n = vb_flash_program(r->flash, (size_t)at, r->inflate_buf, w);
    spend(r, vb_flash_program_us(&vb_w25q32jv, (size_t)at, n));
}

/* Output of the ROM's inflate into its circular buffer (see rom_stream_end). */
static void rom_buffer_output(vb_rom *r, uint64_t pos, const uint8_t *d, size_t n)
{
    uint32_t w = r->inflate_len;
    if (r->stub || !w)
        return;
    for (size_t i = 0; i < n; i++)
        r->inflate_buf[(pos + i) % w] = d[i];
}

static int inflate_block(vb_rom *r, const eb_rom_request *q, size_t len)
{
    xfer *x = &r->fl;
    uint8_t outbuf[16384];
    x->z.next_in = (Bytef *)(q->data + EB_ROM_DATA_HDR);
    x->z.avail_in = (uInt)len;
    while (x->z.avail_in > 0 && !x->z_end) {
        x->z.next_out = outbuf;
        x->z.avail_out = sizeof outbuf;
        int zr = inflate(&x->z, Z_NO_FLUSH);
        size_t got = sizeof outbuf - x->z.avail_out;
        if (zr != Z_OK && zr != Z_STREAM_END && !(zr == Z_BUF_ERROR && got)) {
            reply_err(r, q->op, r->stub ? EB_STUB_ERR_INFLATE : EB_ROM_ERR_DEFLATE);
            return -1;
        }
        uint64_t at = (uint64_t)x->offset + x->written;
        if (x->written + got > x->size || at + got > r->flash->size) {
            reply_err(r, q->op, r->stub ? EB_STUB_ERR_TOO_MUCH_DATA : EB_ROM_ERR_DEFLATE);
            return -1;
        }
        vb_flash_program(r->flash, (size_t)at, outbuf, got);
        rom_buffer_output(r, x->written, outbuf, got);
        x->written += got;
        if (zr == Z_STREAM_END)
            x->z_end = true;
    }
    return 0;
}

/* FLASH_END / FLASH_DEFL_END: arg 0 "reboot" is a software reset, which does
 * not sample the strapping pins again, so the chip comes back in download
 * mode (esptool's --after no_reset relies on it; esp-serial-flasher documents
 * it). Arg 1: the stub stays; the ROM leaves the loader and runs the app
 * (esptool run(): FLASH_BEGIN 0 then FLASH_END 1). */
static void h_flash_end(vb_rom *r, const eb_rom_request *q)
{
    bool stay = eb_rd32le(q->data) != 0;
    if (r->stub && r->fl.active && r->fl.written < r->fl.size) {
        xfer_end(&r->fl);
        reply_err(r, q->op, EB_STUB_ERR_BAD_DATA_LEN);
        return;
    }
    xfer_end(&r->fl);
    reply(r, q->op, 0, NULL, 0);
    if (stay && r->stub)
        return;
    flush_out(r);
    if (!stay && !r->b->forgiving)
        r->b->request_reset(r->b, true, "sw");
    else
        r->b->request_reset(r->b, false, stay ? "run" : "sw");
}

/* ---- the other commands ------------------------------------------------ */

bool vb_rom_is_sync(const uint8_t *pkt, size_t len)
{
    eb_rom_request q;
    if (eb_rom_parse_request(pkt, len, &q) != 0 || q.op != EB_ROM_SYNC || q.size != 36)
        return false;
    if (eb_rd32le(q.data) != EB_ROM_SYNC_WORD)
        return false;
    for (int i = 4; i < 36; i++)
        if (q.data[i] != 0x55)
            return false;
    return true;
}

static void h_sync(vb_rom *r, const eb_rom_request *q)
{
    if (eb_rd32le(q->data) != EB_ROM_SYNC_WORD) {
        reply_err(r, q->op, r->stub ? EB_STUB_ERR_BAD_DATA_LEN : EB_ROM_ERR_INVALID_MSG);
        return;
    }
    /* Eight identical answers (esptool loader.py sync() reads the first and
     * "for _ in range(7)" more; esp-serial-flasher protocol_uart.c reads
     * response_cnt = 8 for SYNC); value 0 tells hosts the stub is running.
     * SYNCs queued during a slow boot (vb_rom_set_boot_us) are each answered
     * eight times once it ends: the late replies a host must skip. */
    for (int i = 0; i < 8; i++)
        reply(r, q->op, r->stub ? 0 : EB_ROM_SYNC_WORD, NULL, 0);
}

static void h_read_reg(vb_rom *r, const eb_rom_request *q) { reply(r, q->op, reg_get(r, eb_rd32le(q->data)), NULL, 0); }

static void h_write_reg(vb_rom *r, const eb_rom_request *q)
{
    if (q->size == 0 || q->size % 16) {
        reply_err(r, q->op, r->stub ? EB_STUB_ERR_BAD_DATA_LEN : EB_ROM_ERR_INVALID_MSG);
        return;
    }
    for (size_t off = 0; off < q->size; off += 16) {
        uint32_t addr = eb_rd32le(q->data + off), value = eb_rd32le(q->data + off + 4);
        uint32_t mask = eb_rd32le(q->data + off + 8);
        uint32_t old = reg_get(r, addr);
        uint32_t v = (old & ~mask) | (value & mask);
        reg_set(r, addr, v);
        spi_maybe_run(r, addr, v);
    }
    reply(r, q->op, 0, NULL, 0);
}

/* ROMs of the ESP32-S2 and later, and their stubs (ESP32S2_OR_LATER), have
 * it; the others answer as to any unknown command (vb_rom_handle). */
static void h_security_info(vb_rom *r, const eb_rom_request *q)
{
    const eb_chip *c = r->b->chip;
    /* u32 flags, u8 flash_crypt_cnt, u8 key_purposes[7], u32 chip_id, u32 eco_version */
    uint8_t info[20] = {0};
    eb_wr32le(info + 12, (uint32_t)c->chip_id);
    reply(r, q->op, 0, info, c->chip_id == 2 ? 12 : 20); /* the ESP32-S2 ROM stops after the key purposes */
}

static void h_ok(vb_rom *r, const eb_rom_request *q) { reply(r, q->op, 0, NULL, 0); }

static void h_change_baud(vb_rom *r, const eb_rom_request *q)
{
    uint32_t baud = eb_rd32le(q->data);
    if (baud < 300 || baud > 5000000) {
        reply_err(r, q->op, r->stub ? EB_STUB_ERR_BAD_DATA_LEN : 0x01);
        return;
    }
    /* The stub derives the new divider from the current one and the rate the
     * host says it is talking at (stub_io.c get_new_uart_divider: master =
     * divider x old, new divider = master / new): an old rate that is not
     * the line's puts the UART at baud x line / old. The ROM knows its clock. */
    uint32_t old = eb_rd32le(q->data + 4), now = r->hooks.current_baud ? r->hooks.current_baud(r->hooks.ctx) : 0;
    if (r->stub && now && old != now && !r->b->forgiving)
        baud = old ? (uint32_t)((uint64_t)baud * now / old) : 300;
    reply(r, q->op, 0, NULL, 0);
    flush_out(r);
    if (r->hooks.set_baud_after_reply)
        r->hooks.set_baud_after_reply(r->hooks.ctx, baud);
}

static bool md5_region(vb_rom *r, uint32_t addr, uint32_t size, uint8_t digest[16])
{
    if ((uint64_t)addr + size > r->flash->size)
        return false;
    eb_error err = {0};
    /* without libcrypto the board answers as for a region it cannot read */
    return eb_digest(EB_DIGEST_MD5, r->flash->data + addr, size, digest, &err) == 0;
}

static void h_md5(vb_rom *r, const eb_rom_request *q)
{
    uint8_t d[16];
    if (!md5_region(r, eb_rd32le(q->data), eb_rd32le(q->data + 4), d)) {
        reply_err(r, q->op, r->stub ? EB_STUB_ERR_BAD_DATA_LEN : EB_ROM_ERR_FLASH_READ_LEN);
        return;
    }
    if (r->stub && r->flash_free > r->busy_until)
        r->busy_until = r->flash_free; /* a read waits for an erase the stub left running */
    spend(r, vb_flash_read_us(&vb_w25q32jv, eb_rd32le(q->data + 4))); /* the flash is read to hash it */
    if (r->stub) {
        reply(r, q->op, 0, d, 16);
        return;
    }
    char hex[33];
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    reply(r, q->op, 0, (const uint8_t *)hex, 32);
}

static void h_read_flash_slow(vb_rom *r, const eb_rom_request *q)
{
    uint32_t addr = eb_rd32le(q->data), size = eb_rd32le(q->data + 4);
    if (size > 64 || (uint64_t)addr + size > r->flash->size) {
        reply_err(r, q->op, EB_ROM_ERR_FLASH_READ_LEN);
        return;
    }
    reply(r, q->op, 0, r->flash->data + addr, size);
}

static void h_mem_begin(vb_rom *r, const eb_rom_request *q)
{
    if (r->mem.n_segs < MAX_MEM_SEGS)
        r->mem.segs[r->mem.n_segs++] = (mem_seg){eb_rd32le(q->data + 12), eb_rd32le(q->data), false};
    r->mem.active = true;
    r->mem.total = eb_rd32le(q->data);
    r->mem.blocks = eb_rd32le(q->data + 4);
    r->mem.block_size = eb_rd32le(q->data + 8);
    r->mem.addr = eb_rd32le(q->data + 12);
    r->mem.next_seq = 0;
    r->mem.received = 0;
    reply(r, q->op, 0, NULL, 0);
}

static void h_mem_data(vb_rom *r, const eb_rom_request *q)
{
    if (!r->mem.active) {
        reply_err(r, q->op, r->stub ? 0xC6 : EB_ROM_ERR_FAILED);
        return;
    }
    long len = check_data(r, q, r->mem.next_seq, 0);
    if (len < 0)
        return;
    if (r->mem.received + (uint32_t)len > r->mem.total) {
        reply_err(r, q->op, r->stub ? EB_STUB_ERR_TOO_MUCH_DATA : 0x0E); /* invalid RAM binary size */
        return;
    }
    r->mem.received += (uint32_t)len; /* the code itself is not run: the board becomes the stub */
    r->mem.next_seq++;
    if (r->mem.received == r->mem.total && r->mem.n_segs > 0)
        r->mem.segs[r->mem.n_segs - 1].complete = true;
    reply(r, q->op, 0, NULL, 0);
}

/* What a flasher stub upload looks like (esptool, esptool-js and
 * esp-serial-flasher all send the stub JSON's text and data segments, then
 * MEM_END with the entry point, which lies in the text): every segment
 * uploaded in full, one of them in the chip's instruction RAM, and the entry
 * inside an uploaded segment. Anything else would not run a stub: the ROM
 * jumps there and the chip goes silent until it is reset. */
static bool looks_like_stub(const vb_rom *r, uint32_t entry)
{
    const eb_chip *c = r->b->chip;
    bool entry_in = false, in_iram = false;
    for (int i = 0; i < r->mem.n_segs; i++) {
        const mem_seg *m = &r->mem.segs[i];
        if (!m->complete || !m->size)
            return false;
        if (entry >= m->addr && entry - m->addr < m->size)
            entry_in = true;
        /* IRAM: at or above the map's iram start, below the flash-mapped windows */
        uint32_t lo = c->has_memory_map ? c->mem.iram : 0, hi = c->has_memory_map ? c->mem.irom : 0xFFFFFFFFu;
        if (c->has_memory_map && c->mem.drom && c->mem.drom > lo && c->mem.drom < hi)
            hi = c->mem.drom;
        /* The ESP32-P4's internal RAM (0x4FF00000, esptool's MEMORY_MAP) lies above its
         * flash windows (0x40000000): then IRAM runs to the end of the map. */
        if (hi <= lo)
            hi = 0xFFFFFFFFu;
        if (m->addr >= lo && m->addr < hi)
            in_iram = true;
    }
    return entry_in && in_iram;
}

static void h_mem_end(vb_rom *r, const eb_rom_request *q)
{
    uint32_t entry = eb_rd32le(q->data + 4);
    bool stub_image = r->b->forgiving || looks_like_stub(r, entry);
    r->mem.active = false;
    r->mem.n_segs = 0;
    reply(r, q->op, 0, NULL, 0);
    if (entry == 0)
        return;
    if (!stub_image) {
        flush_out(r);
        r->hung = true;
        return;
    }
    /* A stub that uploads another stub runs it too (stub_flasher.c MEM_END). */
    r->stub = true;
    xfer_end(&r->fl);
    memset(&r->rd, 0, sizeof r->rd);
    static const uint8_t ohai[] = {'O', 'H', 'A', 'I'};
    frame(r, ohai, sizeof ohai); /* the stub's greeting */
}

static void h_erase_flash(vb_rom *r, const eb_rom_request *q)
{
    vb_flash_erase(r->flash, 0, r->flash->size);
    spend(r, vb_w25q32jv.chip_erase_us);
    reply(r, q->op, 0, NULL, 0);
}

static void h_erase_region(vb_rom *r, const eb_rom_request *q)
{
    uint32_t off = eb_rd32le(q->data), size = eb_rd32le(q->data + 4);
    if (off % VB_FLASH_SECTOR || size % VB_FLASH_SECTOR || (uint64_t)off + size > r->flash->size) {
        reply_err(r, q->op, EB_STUB_ERR_BAD_DATA_LEN);
        return;
    }
    vb_flash_erase(r->flash, off, size);
    spend(r, vb_flash_erase_us(&vb_w25q32jv, off, size));
    reply(r, q->op, 0, NULL, 0);
}

/* Sends READ_FLASH packets while the unacknowledged bytes stay under the
 * host's max_in_flight; the MD5 of what was sent closes the transfer. */
static void read_pump(vb_rom *r)
{
    read_xfer *t = &r->rd;
    while (t->sent < t->len && t->sent - t->acked < t->in_flight) {
        uint32_t n = t->len - t->sent < t->psize ? t->len - t->sent : t->psize;
        frame(r, r->flash->data + t->addr + t->sent, n);
        t->sent += n;
    }
    if (t->acked >= t->len) {
        uint8_t d[16];
        md5_region(r, t->addr, t->len, d);
        frame(r, d, 16);
        t->active = false;
    }
}

/* A frame from the host while READ_FLASH runs: its ack, the u32 count of
 * bytes received. The stub reads it synchronously: anything that is not a
 * 4-byte frame ends the transfer with the MD5 of what was sent. */
static void read_ack(vb_rom *r, const uint8_t *pkt, size_t len)
{
    read_xfer *t = &r->rd;
    if (len != 4) {
        uint8_t d[16];
        md5_region(r, t->addr, t->sent, d);
        frame(r, d, 16);
        t->active = false;
        return;
    }
    uint32_t acked = eb_rd32le(pkt);
    if (acked > t->sent) { /* acknowledges more than was sent: the stub's loop ends */
        t->acked = acked;
        uint8_t d[16];
        md5_region(r, t->addr, t->sent, d);
        frame(r, d, 16);
        t->active = false;
        return;
    }
    t->acked = acked;
    read_pump(r);
}

/* READ_FLASH: ack, then the data in packet_size frames, an ack from the host
 * per packet (max_in_flight bytes may be outstanding), then the raw MD5.
 * Packets over 4096 bytes: the stub acknowledges the command and then sends
 * nothing (its buffer is one sector). The forgiving board streams it all. */
static void h_read_flash(vb_rom *r, const eb_rom_request *q)
{
    uint32_t off = eb_rd32le(q->data), len = eb_rd32le(q->data + 4), psize = eb_rd32le(q->data + 8);
    uint32_t in_flight = eb_rd32le(q->data + 12);
    if (!psize || psize > EB_STUB_FLASH_BLOCK || (uint64_t)off + len > r->flash->size) {
        reply_err(r, q->op, EB_STUB_ERR_BAD_DATA_LEN);
        return;
    }
    reply(r, q->op, 0, NULL, 0);
    if (!r->b->forgiving) {
        if (psize > STUB_READ_MAX_PACKET)
            return;
        r->rd = (read_xfer){true, off, len, psize, in_flight ? in_flight : psize, 0, 0};
        spend(r, vb_flash_read_us(&vb_w25q32jv, len));
        read_pump(r);
        return;
    }
    for (uint32_t done = 0; done < len; done += psize) {
        uint32_t n = len - done < psize ? len - done : psize;
        frame(r, r->flash->data + off + done, n);
        if (r->out.len > 65536)
            flush_out(r);
    }
    uint8_t d[16];
    md5_region(r, off, len, d);
    frame(r, d, 16);
}

/* The ROM takes the config word and, from esptool, an "is legacy" word; the
 * stub verifies exactly 4 bytes (stub_flasher.c ESP_SPI_ATTACH) and answers
 * 0xC0 otherwise. */
static void h_spi_attach(vb_rom *r, const eb_rom_request *q)
{
    if (r->stub && q->size != 4 && !r->b->forgiving) {
        reply_err(r, q->op, EB_STUB_ERR_BAD_DATA_LEN);
        return;
    }
    reply(r, q->op, 0, NULL, 0);
}

/* The stub's RUN_USER_CODE returns from stub_main, no answer. Only the
 * ESP8266 build points that return at the user code (stub_main_8266 sets a0);
 * the others return into the ROM's loader, which answers again (esptool: soft
 * reset "only supported on ESP8266"). The forgiving board boots the app. */
static void h_run_user_code(vb_rom *r, const eb_rom_request *q)
{
    (void)q;
    if (is_esp8266(r->b->chip) || r->b->forgiving) {
        flush_out(r);
        r->b->request_reset(r->b, false, "run");
        return;
    }
    r->stub = false;
    xfer_end(&r->fl);
    memset(&r->rd, 0, sizeof r->rd);
}

typedef struct rom_cmd {
    uint16_t size_a, size_b; /* accepted data sizes; SIZE_ANY: checked by the handler */
    bool stub_only, rom_only;
    rom_handler fn;
} rom_cmd;

/* Indexed by opcode; a missing one (fn NULL) is a command this loader does not have. */
static const rom_cmd commands[256] = {
    [EB_ROM_FLASH_BEGIN] = {.size_a = 16, .size_b = 20, .fn = h_flash_begin},
    [EB_ROM_FLASH_DATA] = {.size_a = SIZE_ANY, .size_b = SIZE_ANY, .fn = h_flash_data},
    [EB_ROM_FLASH_END] = {.size_a = 4, .size_b = 4, .fn = h_flash_end},
    [EB_ROM_MEM_BEGIN] = {.size_a = 16, .size_b = 16, .fn = h_mem_begin},
    [EB_ROM_MEM_END] = {.size_a = 8, .size_b = 8, .fn = h_mem_end},
    [EB_ROM_MEM_DATA] = {.size_a = SIZE_ANY, .size_b = SIZE_ANY, .fn = h_mem_data},
    [EB_ROM_SYNC] = {.size_a = 36, .size_b = 36, .fn = h_sync},
    [EB_ROM_WRITE_REG] = {.size_a = SIZE_ANY, .size_b = SIZE_ANY, .fn = h_write_reg},
    [EB_ROM_READ_REG] = {.size_a = 4, .size_b = 4, .fn = h_read_reg},
    [EB_ROM_SPI_SET_PARAMS] = {.size_a = 24, .size_b = 24, .fn = h_ok},
    [EB_ROM_SPI_ATTACH] = {.size_a = 4, .size_b = 8, .fn = h_spi_attach},
    [EB_ROM_READ_FLASH_SLOW] = {.size_a = 8, .size_b = 8, .rom_only = true, .fn = h_read_flash_slow},
    [EB_ROM_CHANGE_BAUDRATE] = {.size_a = 8, .size_b = 8, .fn = h_change_baud},
    [EB_ROM_FLASH_DEFL_BEGIN] = {.size_a = 16, .size_b = 20, .fn = h_defl_begin},
    [EB_ROM_FLASH_DEFL_DATA] = {.size_a = SIZE_ANY, .size_b = SIZE_ANY, .fn = h_defl_data},
    [EB_ROM_FLASH_DEFL_END] = {.size_a = 4, .size_b = 4, .fn = h_flash_end},
    [EB_ROM_SPI_FLASH_MD5] = {.size_a = 16, .size_b = 16, .fn = h_md5},
    [EB_ROM_GET_SECURITY_INFO] = {.size_a = 0, .size_b = 0, .fn = h_security_info},
    [EB_ROM_ERASE_FLASH] = {.size_a = 0, .size_b = 0, .stub_only = true, .fn = h_erase_flash},
    [EB_ROM_ERASE_REGION] = {.size_a = 8, .size_b = 8, .stub_only = true, .fn = h_erase_region},
    [EB_ROM_READ_FLASH] = {.size_a = 16, .size_b = 16, .stub_only = true, .fn = h_read_flash},
    [EB_ROM_RUN_USER_CODE] = {.size_a = 0, .size_b = 0, .stub_only = true, .fn = h_run_user_code},
};

/* Commands a chip's ROM does not have although the table lists them (the
 * stub has the others): GET_SECURITY_INFO before the ESP32-S2; on the ESP8266
 * ROM the compressed writes and CHANGE_BAUDRATE (esptool marks
 * flash_defl_begin and change_baud stub_and_esp32_function_only; tinygo's
 * espflasher gates them the same way). No public trace shows the ESP8266
 * ROM's answer to an unknown opcode; it gets the ESP32 ROM's (below) with
 * its own 2 status bytes, and hosts never send it these. */
static bool rom_lacks(const vb_rom *r, uint8_t op)
{
    const eb_chip *c = r->b->chip;
    if (op == EB_ROM_GET_SECURITY_INFO) /* also the stub's (ESP32S2_OR_LATER in stub_flasher.c) */
        return !c->rom_security_info;
    if (r->stub)
        return false;
    if (op == EB_ROM_FLASH_DEFL_BEGIN || op == EB_ROM_FLASH_DEFL_DATA || op == EB_ROM_FLASH_DEFL_END)
        return c->rom_no_deflate && !r->b->forgiving;
    if (op == EB_ROM_CHANGE_BAUDRATE)
        return c->rom_no_change_baud && !r->b->forgiving;
    return false;
}

/* A command this loader does not have. */
static void unsupported(vb_rom *r, uint8_t op)
{
    if (r->stub)
        reply_err(r, op, STUB_ERR_NOT_IMPLEMENTED);
    else if (r->b->forgiving)
        reply_err(r, op, EB_ROM_ERR_INVALID_MSG);
    else
        reply_unsupported_rom(r);
}

void vb_rom_handle(vb_rom *r, const uint8_t *pkt, size_t len)
{
    if (r->hung)
        return;
    if (r->stub && r->rd.active) {
        read_ack(r, pkt, len);
        flush_out(r);
        return;
    }
    eb_rom_request q;
    if (eb_rom_parse_request(pkt, len, &q) != 0)
        return; /* not a request (a late READ_FLASH ack, line noise): no answer */
    const rom_cmd *cmd = commands[q.op].fn ? &commands[q.op] : NULL;
    if (!cmd || (cmd->stub_only && !r->stub) || (cmd->rom_only && r->stub) || rom_lacks(r, q.op)) {
        unsupported(r, q.op);
    } else if (r->stub && q.size > EB_STUB_FLASH_BLOCK + 16 && !r->b->forgiving) {
        reply_err(r, q.op, EB_STUB_ERR_BAD_DATA_LEN); /* the stub's [0xC0, 0xEE]; hosts read the first byte */
    } else if (cmd->size_a != SIZE_ANY && q.size != cmd->size_a && q.size != cmd->size_b) {
        reply_err(r, q.op, r->stub ? EB_STUB_ERR_BAD_DATA_LEN : EB_ROM_ERR_INVALID_MSG);
    } else {
        cmd->fn(r, &q);
    }
    flush_out(r);
}

/* The line holds what the host sent while the chip boots: Espressif's QEMU
 * stops taking bytes from its chardev while the UART FIFO is full, so every
 * SYNC a host retried during the boot reaches the loader afterwards (seen
 * with the genuine ESP32 ROM there: a burst of late SYNC replies). vb_run
 * keeps them in the pty (the ROM is busy until the boot ends); an in-process
 * host hands them over here. */
void vb_rom_set_boot_us(vb_rom *r, uint64_t us) { r->boot_us = us; }

static void feed_now(vb_rom *r, const uint8_t *data, size_t len);

static void boot_done(vb_rom *r, uint64_t now_us)
{
    if (now_us < r->boot_until || !r->boot_rx.len)
        return;
    eb_buf rx = r->boot_rx;
    eb_buf_init(&r->boot_rx);
    feed_now(r, rx.data, rx.len);
    eb_buf_free(&rx);
}

void vb_rom_feed(vb_rom *r, const uint8_t *data, size_t len)
{
    uint64_t now = eb_now_us();
    if (now < r->boot_until) {
        eb_buf_append(&r->boot_rx, data, len);
        return;
    }
    boot_done(r, now);
    feed_now(r, data, len);
}

static void feed_now(vb_rom *r, const uint8_t *data, size_t len)
{
    while (len) {
        int done = 0;
        size_t used = eb_slip_decode(&r->dec, data, len, &done, NULL);
        data += used;
        len -= used;
        if (done) {
            if (!r->dec.bad_escape && !r->dec.overflow)
                vb_rom_handle(r, r->dec.packet.data, r->dec.packet.len);
            eb_slip_decoder_next(&r->dec);
        }
    }
}

vb_rom *vb_rom_new(vb_board *b, vb_flash *flash, const vb_rom_hooks *hooks)
{
    vb_rom *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->b = b;
    r->flash = flash;
    if (hooks)
        r->hooks = *hooks;
    eb_slip_decoder_init(&r->dec);
    r->dec.max_len = EB_STUB_FLASH_BLOCK + 64;
    eb_buf_init(&r->out);
    eb_buf_init(&r->held);
    eb_buf_init(&r->boot_rx);
    /* the ESP32-C3 ROM's buffer is 32 KiB too (its padding is bytes 32 KiB back) */
    uint32_t w = !b->chip ? 0 : b->chip->rom_deflate_window ? b->chip->rom_deflate_window : b->chip->rom_deflate_pad ? 32768 : 0;
    if (w && w <= (1u << 20) && (r->inflate_buf = calloc(1, w)))
        r->inflate_len = w;
    return r;
}

void vb_rom_reset(vb_rom *r)
{
    xfer_end(&r->fl);
    memset(&r->mem, 0, sizeof r->mem);
    memset(&r->rd, 0, sizeof r->rd);
    r->hung = false;
    r->last_op = 0;
    r->last_value = 0;
    r->busy_until = 0;
    r->held_until = 0;
    r->flash_free = 0;
    eb_buf_reset(&r->held);
    r->stub = false;
    r->n_regs = 0;
    r->checksum_faults = 0;
    eb_buf_reset(&r->boot_rx); /* a reset loses what the UART held */
    r->boot_until = r->boot_us ? eb_now_us() + r->boot_us : 0;
    r->busy_until = r->boot_until; /* vb_run takes no host bytes until then */
    if (r->inflate_buf)
        memset(r->inflate_buf, 0, r->inflate_len); /* zero at power-on in QEMU; assumed after any reset */
    eb_slip_decoder_next(&r->dec);
}

void vb_rom_free(vb_rom *r)
{
    if (!r)
        return;
    xfer_end(&r->fl);
    free(r->inflate_buf);
    eb_slip_decoder_free(&r->dec);
    eb_buf_free(&r->out);
    eb_buf_free(&r->held);
    eb_buf_free(&r->boot_rx);
    free(r);
}

bool vb_rom_stub_running(const vb_rom *r) { return r->stub; }

bool vb_rom_synced(const vb_rom *r) { return r->last_op != 0; }
