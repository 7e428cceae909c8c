/* ROM serial loader client: one request at a time, SLIP framed, every read
 * bounded by a deadline. Facts: docs/flashing.md and the ROM protocol notes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/digest.h"
#include "espbench/base/log.h"
#include "espbench/protocols/rom_client.h"
#include "espbench/formats/rom_proto.h"
#include "espbench/formats/slip.h"
#include "zlib_parallel.h"

struct eb_rom_client {
    eb_port *port;
    const eb_profiles *profiles;
    const eb_chip *chip;
    eb_rom_timeouts to;
    eb_slip_decoder dec;
    eb_buf rx;        /* received bytes not yet fed to the decoder */
    eb_buf resp;      /* the last matching response packet */
    eb_rom_response last;
    int last_rom_error; /* error byte of the last failed command, -1 none */
    bool unsupported;   /* the last command was rejected as unknown */
    bool stub;          /* a flasher stub answers (SYNC value 0), e.g. left by another tool */
    bool no_deflate;    /* the loader refused FLASH_DEFL_BEGIN once: write plain from then on */
    bool stub_silent;   /* an uploaded stub was started and never greeted: nothing answers until a reset */
};

static const eb_rom_timeouts default_timeouts = {
    .sync_ms = 100, .command_ms = 3000, .erase_per_mb_ms = 40000, .md5_per_mb_ms = 8000,
};

eb_rom_client *eb_rom_client_new(eb_port *port, const eb_profiles *profiles)
{
    eb_rom_client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->port = port;
    c->profiles = profiles;
    c->to = default_timeouts;
    eb_slip_decoder_init(&c->dec);
    eb_buf_init(&c->rx);
    eb_buf_init(&c->resp);
    c->last_rom_error = -1;
    return c;
}

void eb_rom_client_free(eb_rom_client *c)
{
    if (!c)
        return;
    eb_slip_decoder_free(&c->dec);
    eb_buf_free(&c->rx);
    eb_buf_free(&c->resp);
    free(c);
}

void eb_rom_client_set_timeouts(eb_rom_client *c, const eb_rom_timeouts *t) { c->to = *t; }
void eb_rom_set_chip(eb_rom_client *c, const eb_chip *chip) { c->chip = chip; }

/* esptool's timeout_per_mb: at least the command timeout. */
static unsigned per_mb(const eb_rom_client *c, unsigned ms_per_mb, size_t bytes)
{
    double ms = (double)ms_per_mb * (double)bytes / 1e6;
    return ms < c->to.command_ms ? c->to.command_ms : (unsigned)ms;
}

static void drop_input(eb_rom_client *c)
{
    eb_port_flush_input(c->port);
    eb_buf_reset(&c->rx);
    eb_slip_decoder_next(&c->dec);
    c->dec.in_frame = 0;
    c->dec.escape = 0;
}

/* Waits for the next whole SLIP packet. 1 = packet in c->dec.packet,
 * 0 = deadline, negative = port error. */
static int next_packet(eb_rom_client *c, eb_deadline d, eb_error *err)
{
    for (;;) {
        if (c->rx.len) {
            int done = 0;
            size_t used = eb_slip_decode(&c->dec, c->rx.data, c->rx.len, &done, NULL);
            eb_buf_consume(&c->rx, used);
            if (done)
                return 1;
            if (used == 0)
                eb_buf_reset(&c->rx);
            continue;
        }
        /* A board that keeps talking (console output) must not hold us past the deadline. */
        if (eb_deadline_passed(d))
            return 0;
        uint8_t tmp[4096];
        long n = eb_port_read(c->port, tmp, sizeof tmp, d, err);
        if (n < 0)
            return (int)n;
        if (n == 0)
            return 0;
        eb_buf_append(&c->rx, tmp, (size_t)n);
    }
}

/* Reads and drops whatever arrives until the line has been quiet for ms. */
static void drain_quiet(eb_rom_client *c, unsigned ms)
{
    eb_error e;
    eb_deadline stop = eb_deadline_in(ms * 4);
    while (!eb_deadline_passed(stop)) {
        uint8_t tmp[512];
        long n = eb_port_read(c->port, tmp, sizeof tmp, eb_deadline_in(ms), &e);
        if (n <= 0)
            break;
    }
    eb_buf_reset(&c->rx);
    eb_slip_decoder_next(&c->dec);
    c->dec.in_frame = 0;
}

/* The ROM answers SYNC, and a command it does not know, eight times (esptool
 * loader.py: "Unsupported command response is sent 8 times"; the stub
 * mimics the SYNC answers): takes the n repeats after the first off the line
 * as they come, or stops when it has been quiet for ms. */
static void drain_repeats(eb_rom_client *c, int n, unsigned ms)
{
    eb_error e;
    for (int got = 0; got < n; got++) {
        if (next_packet(c, eb_deadline_in(ms), &e) <= 0)
            break;
        eb_slip_decoder_next(&c->dec);
    }
}

/* A successful SYNC answer arriving late: a reply to an earlier SYNC (the ROM
 * answers each one 8 times, also those that waited in the line while it
 * booted). Its status bytes (2 or 4) are all zero; the ROM's "unknown
 * command" answer under SYNC's opcode carries status 1 and is not one. */
static bool stale_sync_reply(const uint8_t *pkt, size_t len)
{
    if (len < 8 || pkt[0] != 1 || pkt[1] != EB_ROM_SYNC)
        return false;
    size_t n = (size_t)pkt[2] | (size_t)pkt[3] << 8;
    if ((n != 2 && n != 4) || len != 8 + n)
        return false;
    for (size_t i = 8; i < len; i++)
        if (pkt[i])
            return false;
    return true;
}

/* After a SYNC is answered: takes every further reply off the line until it
 * has been quiet for quiet_ms, or until the deadline. The ROM answers each
 * SYNC 8 times (esptool loader.py sync() reads 7 more after the first;
 * esp-serial-flasher protocol_uart.c reads 8 for SYNC), and a ROM that was
 * slow to boot (Espressif's QEMU) answers every SYNC retried meanwhile: more
 * than 100 late replies were seen, enough to bury the next command's answer.
 * esptool flushes its input before each SYNC attempt; a flush cannot catch
 * replies still on their way, so this waits for quiet. Returns the count. */
static int drain_sync_replies(eb_rom_client *c, unsigned quiet_ms, unsigned limit_ms)
{
    eb_error e;
    eb_deadline stop = eb_deadline_in(limit_ms);
    int n = 0;
    while (!eb_deadline_passed(stop)) {
        eb_deadline q = eb_deadline_in(quiet_ms);
        if (q > stop)
            q = stop;
        if (next_packet(c, q, &e) <= 0)
            break;
        eb_slip_decoder_next(&c->dec);
        n++;
    }
    return n;
}

/* What to do about a ROM error, appended to its message. */
static const char *error_hint(int code)
{
    static const struct {
        int code;
        const char *hint;
    } hints[] = {
        {EB_ROM_ERR_CHECKSUM, "; check the cable or lower --baud"},
        {EB_ROM_ERR_FLASH_WRITE, "; the flash did not take the write: retry, and check the board's flash if it repeats"},
        {EB_ROM_ERR_FLASH_READ, "; the flash could not be read: retry, and check the board's flash if it repeats"},
        {EB_ROM_ERR_DEFLATE, "; the compressed data arrived damaged: retry or lower --baud"},
        {EB_ROM_ERR_DEFLATE_ADLER, "; the compressed data arrived damaged: retry or lower --baud"},
    };
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
        if (hints[i].code == code)
            return hints[i].hint;
    return "";
}

/* Sends a request and waits for the response with the same opcode.
 * Returns EB_OK (status ok), EB_EIO with err set, or 1 = the ROM answered
 * with a failure status (c->last_rom_error holds the code; err set too). */
static int command(eb_rom_client *c, uint8_t op, const uint8_t *body, size_t body_len, uint32_t checksum,
                   size_t expect_payload, unsigned timeout_ms, eb_error *err)
{
    eb_buf req, frame;
    eb_buf_init(&req);
    eb_buf_init(&frame);
    eb_rom_build_request(&req, op, body, body_len, checksum);
    eb_slip_encode(&frame, req.data, req.len);
    eb_deadline d = eb_deadline_in(timeout_ms);
    c->last_rom_error = -1;
    c->unsupported = false;
    int rc = eb_port_write(c->port, frame.data, frame.len, eb_deadline_in(timeout_ms + 2000), err);
    eb_buf_free(&req);
    eb_buf_free(&frame);
    if (rc != EB_OK)
        return rc;
    bool damaged = false;
    int stale = 0;
    for (int packets = 0; packets < 100; packets++) {
        int r = next_packet(c, d, err);
        if (r < 0)
            return -r;
        if (r == 0 && damaged)
            return eb_fail(err, EB_EIO, "%s: no reply to %s within %u ms, only a damaged one; check the cable or lower --baud",
                           c->port->url, eb_rom_op_name(op), timeout_ms);
        if (r == 0)
            return eb_fail(err, EB_EIO, "%s: no reply to %s within %u ms", c->port->url, eb_rom_op_name(op),
                           timeout_ms);
        if (c->dec.bad_escape || c->dec.overflow) {
            /* A damaged frame (a bad SLIP escape, or longer than any reply):
             * its value and status bytes cannot be trusted. */
            damaged = true;
            eb_slip_decoder_next(&c->dec);
            continue;
        }
        if (op != EB_ROM_SYNC && stale_sync_reply(c->dec.packet.data, c->dec.packet.len)) {
            /* Late SYNC replies do not count against the 100 other packets
             * (esp-serial-flasher skips them until its timer runs out); the
             * deadline still bounds the wait. */
            eb_slip_decoder_next(&c->dec);
            if (++stale <= 4096)
                packets--;
            continue;
        }
        eb_rom_response resp;
        int parsed = eb_rom_parse_response(c->dec.packet.data, c->dec.packet.len, expect_payload, &resp);
        if (parsed != 0) {
            eb_slip_decoder_next(&c->dec);
            continue;
        }
        if (resp.op != op) {
            /* A ROM that does not know a command answers under the opcode and
             * value of the command before it (the ESP32 ROM after a SYNC:
             * opcode 0x08, status 1, error 0x05), several times. esptool
             * (loader.py command()) takes any such frame, whatever its opcode,
             * as "unsupported" at once; so do we, SYNC's opcode included. */
            bool unknown = resp.data_len >= 2 && resp.data[0] != 0 && resp.data[1] == EB_ROM_ERR_INVALID_MSG;
            eb_slip_decoder_next(&c->dec);
            if (unknown) {
                c->unsupported = true;
                c->last_rom_error = EB_ROM_ERR_INVALID_MSG;
                /* The ROM repeats this answer (8 times): left on the line, the
                 * copies would read as "unsupported" for the next command. */
                drain_repeats(c, 7, 50);
                eb_fail(err, EB_EIO, "%s: the ROM does not support %s", c->port->url, eb_rom_op_name(op));
                return 1;
            }
            continue;
        }
        eb_buf_reset(&c->resp);
        eb_buf_append(&c->resp, c->dec.packet.data, c->dec.packet.len);
        eb_slip_decoder_next(&c->dec);
        eb_rom_parse_response(c->resp.data, c->resp.len, expect_payload, &c->last);
        if (c->last.status != 0) {
            c->last_rom_error = c->last.error;
            c->unsupported = c->last.error == EB_ROM_ERR_INVALID_MSG;
            if (c->unsupported)
                drain_quiet(c, 50); /* repeated answers, as above */
            eb_fail(err, EB_EIO, "%s: the ROM answered %s with error 0x%02x (%s)%s", c->port->url,
                    eb_rom_op_name(op), c->last.error, eb_rom_err_name(c->last.error), error_hint(c->last.error));
            return 1;
        }
        return EB_OK;
    }
    return eb_fail(err, EB_EIO, "%s: no matching reply to %s (100 other packets)", c->port->url, eb_rom_op_name(op));
}

/* Command whose ROM failure is an error like any other (EB_EIO). */
static int command_ok(eb_rom_client *c, uint8_t op, const uint8_t *body, size_t len, size_t expect, unsigned ms,
                      eb_error *err)
{
    int rc = command(c, op, body, len, 0, expect, ms, err);
    return rc == 1 ? EB_EIO : rc;
}

int eb_rom_sync(eb_rom_client *c, int tries, eb_error *err)
{
    uint8_t body[36] = {0x07, 0x07, 0x12, 0x20};
    memset(body + 4, 0x55, 32);
    for (int i = 0; i < tries; i++) {
        drop_input(c);
        eb_error e;
        int rc = command(c, EB_ROM_SYNC, body, sizeof body, 0, 0, c->to.sync_ms, &e);
        if (rc == EB_OK) {
            /* The ROM's SYNC value is non-zero; a flasher stub's is 0. A stub is
             * what a board runs when another tool uploaded one and could not
             * reset the board (a pty, a socket): speak its dialect then. */
            bool stub = c->last.value == 0;
            if (stub && !c->stub)
                eb_log(EB_LOG_INFO, "%s: a flasher stub answers (left running by another tool); using it",
                       c->port->url);
            c->stub = stub;
            c->stub_silent = false;
            /* The rest of this SYNC's answers and those of earlier tries. */
            int late = drain_sync_replies(c, c->to.sync_ms < 50 ? 50 : c->to.sync_ms, c->to.command_ms);
            if (late > 7)
                eb_log(EB_LOG_DEBUG, "%s: %d late SYNC replies drained (%d SYNC tries)", c->port->url, late, i + 1);
            return EB_OK;
        }
        if (rc == EB_EIO && strstr(e.msg, "no reply") == NULL) {
            *err = e;
            return EB_EIO; /* port gone */
        }
        eb_sleep_ms(50);
    }
    return eb_fail(err, EB_EIO,
                   "%s: no reply to SYNC from the ROM loader; hold BOOT (IO0) while pressing RESET, or check that this is the board's port",
                   c->port->url);
}

int eb_rom_read_reg(eb_rom_client *c, uint32_t addr, uint32_t *value, eb_error *err)
{
    uint8_t b[4];
    eb_wr32le(b, addr);
    int rc = command(c, EB_ROM_READ_REG, b, 4, 0, 0, c->to.command_ms, err);
    if (rc == EB_OK)
        *value = c->last.value;
    return rc;
}

int eb_rom_write_reg(eb_rom_client *c, uint32_t addr, uint32_t value, eb_error *err)
{
    uint8_t b[16];
    eb_wr32le(b, addr);
    eb_wr32le(b + 4, value);
    eb_wr32le(b + 8, 0xFFFFFFFFu);
    eb_wr32le(b + 12, 0);
    return command_ok(c, EB_ROM_WRITE_REG, b, 16, 0, c->to.command_ms, err);
}

/* --- chip detection --- */

int eb_rom_detect_chip(eb_rom_client *c, eb_rom_chip_info *info, eb_error *err)
{
    memset(info, 0, sizeof *info);
    info->chip_id = -1;
    eb_error e;
    int rc = command(c, EB_ROM_GET_SECURITY_INFO, NULL, 0, 0, 20, c->to.command_ms, &e);
    if (rc == EB_EIO && strstr(e.msg, "no reply") == NULL) {
        *err = e;
        return EB_EIO;
    }
    if (rc == EB_OK && c->last.data_len >= 20 + 2) {
        int id = (int)eb_rd32le(c->last.data + 12);
        const eb_chip *chip = eb_profiles_chip_by_id(c->profiles, id);
        if (!chip)
            return eb_fail(err, EB_EIO, "%s: chip id %d (from GET_SECURITY_INFO) matches no chip in profiles/", c->port->url, id);
        info->chip = chip;
        info->chip_id = id;
        info->by_security_info = true;
    } else {
        /* ESP32 / ESP8266 ROMs do not know the command (answered at once as
         * unsupported; esptool's detect_chip then reads the magic register
         * without reconnecting); ESP32-S2 answers without a chip id; an
         * ESP32 stub answers 0xFF. Only after silence is a fresh sync needed. */
        uint32_t magic = 0;
        eb_error e2;
        int r = rc == EB_OK || c->last_rom_error >= 0 ? eb_rom_read_reg(c, EB_ROM_CHIP_MAGIC_REG, &magic, &e2) : EB_EIO;
        if (r != EB_OK) {
            drain_quiet(c, 50);
            if (eb_rom_sync(c, 3, err) != EB_OK)
                return EB_EIO;
            if (eb_rom_read_reg(c, EB_ROM_CHIP_MAGIC_REG, &magic, err) != EB_OK)
                return EB_EIO;
        }
        const eb_chip *chip = eb_profiles_chip_by_magic(c->profiles, magic);
        if (!chip)
            return eb_fail(err, EB_EIO, "%s: chip magic 0x%08x matches no chip in profiles/", c->port->url, magic);
        info->chip = chip;
        info->chip_id = chip->chip_id;
        info->magic = magic;
    }
    c->chip = info->chip;
    info->stub = c->stub;
    return EB_OK;
}

/* How each chip family lays out the MAC in eFuse. */
static bool is_esp8266(const eb_chip *chip) { return chip && chip->chip_id < 0; }

int eb_rom_read_mac(eb_rom_client *c, uint8_t mac[6], eb_error *err)
{
    if (!c->chip)
        return eb_fail(err, EB_EIO, "read MAC: chip not detected yet");
    uint32_t base = c->chip->efuse_mac_reg, w0, w1;
    if (eb_rom_read_reg(c, base, &w0, err) || eb_rom_read_reg(c, base + 4, &w1, err))
        return EB_EIO;
    if (is_esp8266(c->chip)) {
        /* ESP8266: OUI from a third word or from an id byte (esptool's rules). */
        uint32_t w3;
        if (eb_rom_read_reg(c, base + 12, &w3, err))
            return EB_EIO;
        static const uint8_t oui0[3] = {0x18, 0xFE, 0x34}, oui1[3] = {0x5C, 0xCF, 0x7F};
        if (w3 != 0) {
            mac[0] = (uint8_t)(w3 >> 16), mac[1] = (uint8_t)(w3 >> 8), mac[2] = (uint8_t)w3;
        } else if (((w1 >> 16) & 0xFF) == 0) {
            memcpy(mac, oui0, 3);
        } else if (((w1 >> 16) & 0xFF) == 1) {
            memcpy(mac, oui1, 3);
        } else {
            return eb_fail(err, EB_EIO, "%s: unknown ESP8266 MAC OUI in eFuse (0x%08x)", c->port->url, w1);
        }
        mac[3] = (uint8_t)(w1 >> 8), mac[4] = (uint8_t)w1, mac[5] = (uint8_t)(w0 >> 24);
        return EB_OK;
    }
    /* ESP32 and later: the MAC is the low 16 bits of the second word, then the first word, big-endian. */
    mac[0] = (uint8_t)(w1 >> 8), mac[1] = (uint8_t)w1;
    mac[2] = (uint8_t)(w0 >> 24), mac[3] = (uint8_t)(w0 >> 16), mac[4] = (uint8_t)(w0 >> 8), mac[5] = (uint8_t)w0;
    return EB_OK;
}

enum { SPI_CMD_USR = 1u << 18, SPI_USR_COMMAND = 1u << 31, SPI_USR_MISO = 1u << 28, RDID = 0x9F };

int eb_rom_read_flash_id(eb_rom_client *c, uint32_t *jedec, eb_error *err)
{
    *jedec = 0;
    if (!c->chip)
        return eb_fail(err, EB_EIO, "read flash id: chip not detected yet");
    /* The register layout is chip data (profiles: spi_regs, from esptool's targets). */
    const eb_spi_regs *l = eb_chip_spi_regs(c->chip, err);
    if (!l)
        return EB_ECONFIG;
    uint32_t base = c->chip->spi_reg_base, old_usr, old_usr2, v = 0;
    if (eb_rom_read_reg(c, base + l->usr, &old_usr, err) || eb_rom_read_reg(c, base + l->usr2, &old_usr2, err))
        return EB_EIO;
    int rc;
    if (l->miso_dlen)
        rc = eb_rom_write_reg(c, base + l->miso_dlen, 24 - 1, err);
    else
        rc = eb_rom_write_reg(c, base + l->usr1, (24 - 1) << 8, err);
    if (!rc)
        rc = eb_rom_write_reg(c, base + l->usr, SPI_USR_COMMAND | SPI_USR_MISO, err);
    if (!rc)
        rc = eb_rom_write_reg(c, base + l->usr2, (7u << 28) | RDID, err);
    if (!rc)
        rc = eb_rom_write_reg(c, base + l->w0, 0, err);
    if (!rc)
        rc = eb_rom_write_reg(c, base, SPI_CMD_USR, err);
    for (int i = 0; !rc; i++) {
        uint32_t cmd;
        rc = eb_rom_read_reg(c, base, &cmd, err);
        if (rc || !(cmd & SPI_CMD_USR))
            break;
        if (i == 10) {
            rc = eb_fail(err, EB_EIO, "%s: SPI RDID command did not complete", c->port->url);
            break;
        }
    }
    if (!rc)
        rc = eb_rom_read_reg(c, base + l->w0, &v, err);
    if (!rc)
        rc = eb_rom_write_reg(c, base + l->usr, old_usr, err);
    if (!rc)
        rc = eb_rom_write_reg(c, base + l->usr2, old_usr2, err);
    if (rc)
        return EB_EIO;
    *jedec = v & 0xFFFFFF;
    return EB_OK;
}

uint32_t eb_rom_flash_size_from_id(uint32_t jedec)
{
    /* Capacity byte -> log2(size): 0x12..0x1C as is; 0x20..0x22 (64-256 MB
     * parts); 0x32..0x3A (some vendors offset by 0x20). */
    static const struct {
        uint8_t lo, hi, base; /* log2(size) = capacity byte - base */
    } ranges[] = {{0x12, 0x1C, 0}, {0x20, 0x22, 0x20 - 26}, {0x32, 0x3A, 0x20}};
    uint8_t cap = (uint8_t)(jedec >> 16);
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (cap >= ranges[i].lo && cap <= ranges[i].hi)
            return 1u << (cap - ranges[i].base);
    return 0;
}

/* SYNC until the board answers or ms have passed: a board (or a busy
 * machine's virtual board) may take a while to follow a baud change, and
 * a fixed number of short tries gives up on one that is only slow. */
static int sync_within(eb_rom_client *c, unsigned ms, eb_error *err)
{
    eb_deadline dl = eb_deadline_in(ms);
    int rc;
    do
        rc = eb_rom_sync(c, 1, err);
    while (rc != EB_OK && !eb_deadline_passed(dl));
    return rc;
}

int eb_rom_change_baud(eb_rom_client *c, uint32_t baud, eb_error *err)
{
    uint32_t old = c->port->baud;
    uint8_t b[8];
    eb_wr32le(b, baud);
    /* 0 tells the ROM to use its own clock; a stub derives the divider from the current rate. */
    eb_wr32le(b + 4, c->stub ? c->port->baud : 0);
    int rc = command_ok(c, EB_ROM_CHANGE_BAUDRATE, b, 8, 0, c->to.command_ms, err);
    if (rc)
        return rc;
    if ((rc = eb_port_set_baud(c->port, baud, err)))
        return rc;
    eb_sleep_ms(50); /* what the chip sends while it switches (esptool's change_baud waits as long) */
    drop_input(c);
    eb_error e;
    if (sync_within(c, c->to.command_ms, &e) == EB_OK)
        return EB_OK;
    /* The board did not follow; go back to the old rate if it is still there. */
    eb_port_set_baud(c->port, old, &e);
    drop_input(c);
    if (sync_within(c, c->to.command_ms, &e) == EB_OK)
        return eb_fail(err, EB_EIO, "%s: the board did not answer at %u baud; still at %u", c->port->url, baud, old);
    return eb_fail(err, EB_EIO, "%s: lost the board after switching to %u baud; reset it and retry with --baud %u",
                   c->port->url, baud, old);
}

int eb_rom_spi_attach(eb_rom_client *c, eb_error *err)
{
    uint8_t b[8] = {0};
    /* The ROM takes a second "is legacy" word after the pin config; the
     * flasher stub takes exactly the one word and answers any other length
     * with 0xC0 (stub_flasher.c: verify_data_len(command, 4); esptool's
     * flash_spi_attach adds the word only when not talking to a stub). */
    return command_ok(c, EB_ROM_SPI_ATTACH, b, c->stub ? 4 : 8, 0, c->to.command_ms, err);
}

bool eb_rom_is_stub(const eb_rom_client *c) { return c->stub; }

static int send_block(eb_rom_client *c, uint8_t op, uint32_t seq, const uint8_t *data, size_t len,
                      unsigned timeout_ms, eb_error *err);

/* One segment into RAM: MEM_BEGIN (size, blocks, block size, address), then
 * MEM_DATA blocks of EB_ROM_RAM_BLOCK bytes with the 0xEF-XOR checksum
 * (esptool loader.py run_stub, esp-serial-flasher's stub upload). */
static int mem_segment(eb_rom_client *c, uint32_t addr, const uint8_t *data, size_t len, eb_error *err)
{
    const size_t bs = EB_ROM_RAM_BLOCK;
    uint32_t blocks = (uint32_t)((len + bs - 1) / bs);
    uint8_t b[16];
    eb_wr32le(b, (uint32_t)len);
    eb_wr32le(b + 4, blocks);
    eb_wr32le(b + 8, (uint32_t)bs);
    eb_wr32le(b + 12, addr);
    int rc = command_ok(c, EB_ROM_MEM_BEGIN, b, 16, 0, c->to.command_ms, err);
    for (uint32_t seq = 0; seq < blocks && !rc; seq++) {
        size_t off = (size_t)seq * bs, n = len - off < bs ? len - off : bs;
        rc = send_block(c, EB_ROM_MEM_DATA, seq, data + off, n, c->to.command_ms, err);
        if (rc == 1)
            rc = EB_EIO;
    }
    return rc;
}

/* After OHAI: one command the stub must answer. esp-flasher-stub v1.2.2 on
 * the ESP32-C3 in Espressif's QEMU greets and then answers nothing
 * (docs/flashing.md); that is a stub that did not start, said here rather
 * than by the first flash command. */
static int stub_answers(eb_rom_client *c, eb_error *err)
{
    c->stub = true;
    uint32_t v;
    eb_error e;
    int rc = eb_rom_read_reg(c, EB_ROM_CHIP_MAGIC_REG, &v, &e);
    if (rc == EB_OK)
        return EB_OK;
    c->stub = false;
    if (!strstr(e.msg, "no reply")) {
        *err = e;
        return rc;
    }
    c->stub_silent = true;
    return eb_fail(err, EB_EIO, "%s: the flasher stub did not start (it said OHAI, then no reply to READ_REG within %u ms)",
                   c->port->url, c->to.command_ms);
}

int eb_rom_run_stub(eb_rom_client *c, const eb_stub *stub, eb_error *err)
{
    if (c->stub)
        return EB_OK; /* one runs already (left by another tool) */
    int rc = mem_segment(c, stub->text_start, stub->text, stub->text_len, err);
    if (!rc && stub->has_data && stub->data_len)
        rc = mem_segment(c, stub->data_start, stub->data, stub->data_len, err);
    if (rc) {
        eb_error_prefix(err, "uploading the flasher stub: ");
        return rc;
    }
    /* MEM_END: word 0 says "no entry" (esptool mem_finish: entry == 0), word 1
     * the entry. The ROM answers and jumps; the stub greets with a SLIP frame
     * holding "OHAI" (stub_flasher.c stub_main; esp-flasher-stub main.c). The
     * greeting can come before a late MEM_END answer is read, so the frames
     * are read here, not through command(). */
    uint8_t b[8];
    eb_wr32le(b, 0);
    eb_wr32le(b + 4, stub->entry);
    eb_buf req, frame;
    eb_buf_init(&req);
    eb_buf_init(&frame);
    eb_rom_build_request(&req, EB_ROM_MEM_END, b, 8, 0);
    eb_slip_encode(&frame, req.data, req.len);
    rc = eb_port_write(c->port, frame.data, frame.len, eb_deadline_in(c->to.command_ms), err);
    eb_buf_free(&req);
    eb_buf_free(&frame);
    if (rc)
        return rc;
    eb_deadline d = eb_deadline_in(c->to.command_ms);
    for (int packets = 0; packets < 100; packets++) {
        int r = next_packet(c, d, err);
        if (r < 0)
            return -r;
        if (r == 0)
            break;
        const uint8_t *p = c->dec.packet.data;
        size_t n = c->dec.packet.len;
        bool ohai = n == 4 && !memcmp(p, "OHAI", 4);
        eb_rom_response resp;
        bool failed = !ohai && eb_rom_parse_response(p, n, 0, &resp) == 0 && resp.op == EB_ROM_MEM_END &&
                      resp.status != 0;
        eb_slip_decoder_next(&c->dec);
        if (ohai)
            return stub_answers(c, err);
        if (failed)
            return eb_fail(err, EB_EIO, "%s: the ROM refused to start the flasher stub (MEM_END error 0x%02x); retry with --stub off",
                           c->port->url, resp.error);
    }
    c->stub_silent = true;
    return eb_fail(err, EB_EIO, "%s: the flasher stub did not start (no OHAI within %u ms)", c->port->url,
                   c->to.command_ms);
}

bool eb_rom_stub_silent(const eb_rom_client *c) { return c->stub_silent; }

int eb_rom_spi_set_params(eb_rom_client *c, uint32_t flash_size, eb_error *err)
{
    uint8_t b[24];
    eb_wr32le(b, 0);
    eb_wr32le(b + 4, flash_size);
    eb_wr32le(b + 8, 64 * 1024);
    eb_wr32le(b + 12, 4 * 1024);
    eb_wr32le(b + 16, 256);
    eb_wr32le(b + 20, 0xFFFF);
    return command_ok(c, EB_ROM_SPI_SET_PARAMS, b, 24, 0, c->to.command_ms, err);
}

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

int eb_rom_flash_md5(eb_rom_client *c, uint32_t offset, uint32_t len, char hex[33], eb_error *err)
{
    uint8_t b[16] = {0};
    eb_wr32le(b, offset);
    eb_wr32le(b + 4, len);
    /* The ROM replies 32 hex characters, a stub 16 raw bytes. */
    int rc = command_ok(c, EB_ROM_SPI_FLASH_MD5, b, 16, c->stub ? 16 : 32, per_mb(c, c->to.md5_per_mb_ms, len), err);
    if (rc)
        return rc;
    const uint8_t *d = c->last.data;
    size_t n = c->last.data_len;
    static const char digits[] = "0123456789abcdef";
    if (n >= 32 + 2) {
        for (int i = 0; i < 32; i++) {
            if (hexval(d[i]) < 0)
                return eb_fail(err, EB_EIO, "%s: malformed MD5 reply", c->port->url);
            hex[i] = digits[hexval(d[i])];
        }
    } else if (n >= 16 + 2) { /* a stub's raw digest */
        for (int i = 0; i < 16; i++) {
            hex[2 * i] = digits[d[i] >> 4];
            hex[2 * i + 1] = digits[d[i] & 15];
        }
    } else {
        return eb_fail(err, EB_EIO, "%s: short MD5 reply (%zu bytes)", c->port->url, n);
    }
    hex[32] = '\0';
    return EB_OK;
}

/* --- writing --- */

enum { WRITE_BLOCK_ATTEMPTS = 3 };

/* ROMs of ESP32-S2 and later take a 5th "encrypted" word; ESP32/ESP8266 do
 * not, nor does the legacy stub (stub_flasher.c FLASH_BEGIN and
 * FLASH_DEFL_BEGIN: verify_data_len(command, 16); esp-serial-flasher adds the
 * word only when no stub runs). */
static bool begin_takes_encrypt_word(const eb_rom_client *c)
{
    return !c->stub && c->chip && c->chip->chip_id > 0;
}

/* The ROM takes 0x400-byte data blocks, a stub 0x4000 (esptool FLASH_WRITE_SIZE
 * and STUB's; the stub's receive buffers hold MAX_WRITE_BLOCK + 64). */
static size_t block_size(const eb_rom_client *c) { return c->stub ? EB_STUB_FLASH_BLOCK : EB_ROM_FLASH_BLOCK; }

static int send_block(eb_rom_client *c, uint8_t op, uint32_t seq, const uint8_t *data, size_t len,
                      unsigned timeout_ms, eb_error *err)
{
    for (int attempt = 1;; attempt++) {
        eb_buf body;
        eb_buf_init(&body);
        uint8_t hdr[16];
        eb_wr32le(hdr, (uint32_t)len);
        eb_wr32le(hdr + 4, seq);
        eb_wr32le(hdr + 8, 0);
        eb_wr32le(hdr + 12, 0);
        eb_buf_append(&body, hdr, 16);
        eb_buf_append(&body, data, len);
        int rc = command(c, op, body.data, body.len, eb_rom_checksum(data, len), 0, timeout_ms, err);
        eb_buf_free(&body);
        if (rc != 1)
            return rc;
        bool checksum = c->last_rom_error == EB_ROM_ERR_CHECKSUM || c->last_rom_error == EB_STUB_ERR_BAD_CHECKSUM;
        if (!checksum)
            return EB_EIO;
        if (attempt == WRITE_BLOCK_ATTEMPTS)
            return eb_fail(err, EB_EIO, "%s: block %u rejected with a checksum error %d times; check the cable or lower --baud",
                           c->port->url, seq, attempt);
        eb_log(EB_LOG_WARN, "%s: block %u: checksum error, resending (attempt %d of %d)", c->port->url, seq,
               attempt + 1, WRITE_BLOCK_ATTEMPTS);
    }
}

/* The ESP8266 ROM's FLASH_BEGIN erases the wrong amount: for a region that does
 * not start on a 64 KiB block it erases the sectors up to the block boundary
 * twice over. Hosts send the erase size that makes it erase what they mean
 * (the same arithmetic as esptool's ESP8266 get_erase_size). */
uint32_t eb_rom_esp8266_erase_size(uint32_t offset, uint32_t size)
{
    const uint32_t sector = 0x1000, sectors_per_block = 16;
    uint32_t num_sectors = (size + sector - 1) / sector;
    uint32_t start_sector = offset / sector;
    uint32_t head = sectors_per_block - start_sector % sectors_per_block;
    if (num_sectors < head)
        head = num_sectors;
    if (num_sectors < 2 * head)
        return (num_sectors + 1) / 2 * sector;
    return (num_sectors - head) * sector;
}

/* Progress over the pieces of one region (compressed part, plain tail). */
typedef struct {
    eb_rom_progress_fn fn;
    void *user;
    size_t total, wire_total; /* the whole region */
    size_t done0, wire0;      /* before the current piece */
} progress_sum;

static void piece_progress(progress_sum *ps, size_t done, size_t wire)
{
    if (ps->fn)
        ps->fn(ps->user, ps->done0 + done, ps->total, ps->wire0 + wire, ps->wire_total);
}

static size_t padded(const eb_rom_client *c, size_t len)
{
    size_t bs = block_size(c);
    return (len + bs - 1) / bs * bs;
}

/* FLASH_BEGIN's first word: the ROM erases that much before it answers (the
 * ESP8266 ROM needs its erase-size workaround); a stub takes the exact byte
 * count and erases as it writes (stub_flasher.c handle_flash_begin; esptool
 * sends the stub the size itself). */
static uint32_t begin_size(const eb_rom_client *c, uint32_t offset, size_t len, bool deflate)
{
    if (c->stub)
        return (uint32_t)len;
    if (!deflate && is_esp8266(c->chip))
        return eb_rom_esp8266_erase_size(offset, (uint32_t)len);
    return (uint32_t)padded(c, len); /* esptool: rounded up to whole blocks */
}

/* A data block's answer: the ROM writes the block before it answers; the
 * stub answers at once and then writes it, so its answer waits for the
 * previous block's erase and write (esptool's stub block timeout counts a
 * 64 KiB erase on top of the block). */
static unsigned data_block_timeout(const eb_rom_client *c, size_t uncompressed)
{
    return per_mb(c, c->to.erase_per_mb_ms, c->stub ? uncompressed + 2 * 0x10000 : uncompressed);
}

/* The ROM erases the region inside FLASH_BEGIN / FLASH_DEFL_BEGIN before it
 * answers, so that reply's deadline grows with the region (esptool:
 * timeout_per_mb(ERASE_REGION_TIMEOUT_PER_MB = 40 s, size)); a stub erases as
 * it writes and answers at once (esptool: DEFAULT_TIMEOUT). */
static unsigned begin_timeout(const eb_rom_client *c, size_t erase_size)
{
    return c->stub ? c->to.command_ms : per_mb(c, c->to.erase_per_mb_ms, erase_size);
}

static int flash_plain(eb_rom_client *c, uint32_t offset, const uint8_t *data, size_t len, progress_sum *ps,
                       eb_error *err)
{
    const size_t bs = block_size(c);
    uint32_t blocks = (uint32_t)((len + bs - 1) / bs);
    uint8_t b[20];
    eb_wr32le(b, begin_size(c, offset, len, false));
    eb_wr32le(b + 4, blocks);
    eb_wr32le(b + 8, (uint32_t)bs);
    eb_wr32le(b + 12, offset);
    eb_wr32le(b + 16, 0);
    int rc = command_ok(c, EB_ROM_FLASH_BEGIN, b, begin_takes_encrypt_word(c) ? 20 : 16, 0,
                        begin_timeout(c, len), err);
    if (rc)
        return rc;
    uint8_t *blk = malloc(bs);
    if (!blk)
        return eb_fail(err, EB_EIO, "out of memory");
    for (uint32_t seq = 0; seq < blocks && !rc; seq++) {
        size_t off = (size_t)seq * bs, n = len - off < bs ? len - off : bs;
        memset(blk, 0xFF, bs); /* pad the last block: 0xFF leaves erased flash as it is */
        memcpy(blk, data + off, n);
        rc = send_block(c, EB_ROM_FLASH_DATA, seq, blk, bs, data_block_timeout(c, bs), err);
        if (!rc)
            piece_progress(ps, off + n, off + bs);
    }
    free(blk);
    return rc;
}

/* One zlib stream through FLASH_DEFL_*. 2 = the loader has no compressed write. */
static int flash_deflate(eb_rom_client *c, uint32_t offset, size_t len, const uint8_t *z, size_t clen,
                         progress_sum *ps, eb_error *err)
{
    const size_t bs = block_size(c);
    uint32_t blocks = (uint32_t)((clen + bs - 1) / bs);
    uint32_t size = begin_size(c, offset, len, true);
    uint8_t b[20];
    eb_wr32le(b, size);
    eb_wr32le(b + 4, blocks);
    eb_wr32le(b + 8, (uint32_t)bs);
    eb_wr32le(b + 12, offset);
    eb_wr32le(b + 16, 0);
    int rc = command(c, EB_ROM_FLASH_DEFL_BEGIN, b, begin_takes_encrypt_word(c) ? 20 : 16, 0, 0,
                     begin_timeout(c, size), err);
    if (rc == 1 && c->unsupported)
        return 2;
    if (rc)
        return rc == 1 ? EB_EIO : rc;
    unsigned block_ms = data_block_timeout(c, (size_t)((double)len / blocks + bs));
    for (uint32_t seq = 0; seq < blocks && !rc; seq++) {
        size_t off = (size_t)seq * bs, n = clen - off < bs ? clen - off : bs;
        rc = send_block(c, EB_ROM_FLASH_DEFL_DATA, seq, z + off, n, block_ms, err);
        if (!rc) {
            size_t wire = off + n;
            piece_progress(ps, wire == clen ? len : (size_t)((double)len * (double)wire / (double)clen), wire);
        }
    }
    return rc;
}

/* ROM loaders whose compressed write ends badly (profile key
 * rom_deflate_window, the ESP32's 32 KiB): when the stream ends, the ESP32 ROM
 * programs its whole circular inflate buffer, unerased, at the window of the
 * stream holding the end (the window after it when the end is on a boundary;
 * windows counted from the stream's offset), so up to 32 KiB past the data
 * get older bytes AND-ed in — measured on the chip's own ROM in Espressif's
 * QEMU (docs/flashing.md). The ESP32-C3 ROM writes exactly what it inflated,
 * and so do the flasher stubs. esptool writes plain whenever no stub runs
 * (write_flash: compress defaults to IS_STUB). */
static uint32_t inflate_window(const eb_rom_client *c)
{
    return c->stub || !c->chip ? 0 : c->chip->rom_deflate_window;
}

/* How much of a region of len bytes goes compressed so that the ROM's stray
 * window lands in sectors the plain tail erases and writes afterwards: with
 * E the region's end rounded up to its last 4 KiB sector and k = E / window,
 * the compressed part ends one sector short of the k-th window boundary; its
 * stray window is then window k, which ends at or before E, and the tail's
 * FLASH_BEGIN erases from the sector where the compressed part ends. The tail
 * is 4 KiB + (E mod window) at most: under 36 KiB. 0: all plain. */
static size_t compressed_part(size_t len, uint32_t window)
{
    const size_t sector = 0x1000;
    if (!window)
        return len;
    if (window % sector)
        return 0;
    size_t k = ((len + sector - 1) & ~(sector - 1)) / window;
    return k ? k * window - sector : 0;
}

int eb_rom_flash_write(eb_rom_client *c, uint32_t offset, const uint8_t *data, size_t len, bool compress,
                       eb_rom_progress_fn progress, void *user, eb_error *err)
{
    if (offset % 0x1000)
        return eb_fail(err, EB_ECONFIG, "offset 0x%x is not a multiple of 4 KiB (the ROM erases whole sectors)", offset);
    if (len == 0)
        return EB_OK;
    size_t zpart = 0;
    if (!c->stub && c->chip && c->chip->rom_no_deflate)
        compress = false; /* the ESP8266 ROM: plain FLASH_DATA (esptool never sends it FLASH_DEFL_*) */
    if (compress && !c->no_deflate)
        zpart = compressed_part(len, inflate_window(c));
    size_t tail = len - zpart;
    uint8_t *z = NULL;
    size_t clen = 0;
    if (zpart && eb_zlib_parallel(data, zpart, &z, &clen) != 0)
        return eb_fail(err, EB_EIO, "zlib could not compress %zu bytes of the image (out of memory?)", zpart);
    progress_sum ps = {progress, user, len, clen + padded(c, tail), 0, 0};
    int rc = EB_OK;
    if (zpart) {
        rc = flash_deflate(c, offset, zpart, z, clen, &ps, err);
        if (rc == 2) {
            /* No compressed write in this loader (the ESP8266 ROM): plain from
             * now on. ESP8266/ESP32 ROMs may need a fresh sync after an unknown command. */
            c->no_deflate = true;
            eb_log_once("rom-no-deflate", EB_LOG_DEBUG, "%s: the ROM has no compressed write; writing uncompressed",
                        c->port->url);
            ps.wire_total += padded(c, zpart) - clen;
            rc = eb_rom_sync(c, 3, err);
            if (!rc)
                rc = flash_plain(c, offset, data, zpart, &ps, err);
            ps.wire0 += padded(c, zpart);
        } else {
            ps.wire0 += clen;
        }
    }
    free(z);
    ps.done0 = zpart;
    if (!rc && tail)
        rc = flash_plain(c, offset + (uint32_t)zpart, data + zpart, tail, &ps, err);
    if (!rc && c->stub) {
        /* The stub acknowledges the last block before writing it: a command it
         * answers only afterwards makes the write complete (esptool write_flash
         * reads a register for this). */
        uint32_t v;
        rc = eb_rom_read_reg(c, EB_ROM_CHIP_MAGIC_REG, &v, err);
    }
    return rc;
}

/* --- stub only: erase and read --- */

static int need_stub(const eb_rom_client *c, const char *what, eb_error *err)
{
    return c->stub ? EB_OK
                   : eb_fail(err, EB_ECONFIG, "%s: %s needs the flasher stub (the ROM loader has none); use --stub",
                             c->port->url, what);
}

int eb_rom_erase_flash(eb_rom_client *c, eb_error *err)
{
    if (need_stub(c, "erasing the whole flash", err))
        return EB_ECONFIG;
    return command_ok(c, EB_ROM_ERASE_FLASH, NULL, 0, 0, 120000, err); /* esptool CHIP_ERASE_TIMEOUT */
}

int eb_rom_erase_region(eb_rom_client *c, uint32_t offset, uint32_t size, eb_error *err)
{
    if (need_stub(c, "erasing a region", err))
        return EB_ECONFIG;
    if (offset % 0x1000 || size % 0x1000)
        return eb_fail(err, EB_ECONFIG, "erase region 0x%x+0x%x: offset and size must be multiples of 4 KiB", offset,
                       size);
    uint8_t b[8];
    eb_wr32le(b, offset);
    eb_wr32le(b + 4, size);
    return command_ok(c, EB_ROM_ERASE_REGION, b, 8, 0, per_mb(c, c->to.erase_per_mb_ms, size), err);
}

/* READ_FLASH (stub_flasher.c handle_flash_read): after the answer the stub
 * sends the data in packets of `packet` bytes while fewer than `in_flight`
 * bytes are unacknowledged; the host acknowledges each packet with the u32
 * count received so far (one SLIP frame); a 16-byte raw MD5 of the data
 * closes it. esptool: 4096-byte packets (the stub's buffer is one sector). */
int eb_rom_read_flash(eb_rom_client *c, uint32_t offset, uint32_t len, uint8_t *out, eb_error *err)
{
    enum { PACKET = 0x1000, IN_FLIGHT = 2 * PACKET };
    if (need_stub(c, "reading the flash", err))
        return EB_ECONFIG;
    uint8_t b[16];
    eb_wr32le(b, offset);
    eb_wr32le(b + 4, len);
    eb_wr32le(b + 8, PACKET);
    eb_wr32le(b + 12, IN_FLIGHT);
    int rc = command_ok(c, EB_ROM_READ_FLASH, b, 16, 0, c->to.command_ms, err);
    uint32_t got = 0;
    while (!rc && got < len) {
        int r = next_packet(c, eb_deadline_in(c->to.command_ms), err);
        if (r <= 0)
            return r < 0 ? -r : eb_fail(err, EB_EIO, "%s: READ_FLASH stopped after %u of %u bytes", c->port->url, got, len);
        size_t n = c->dec.packet.len;
        if (n == 0 || n > PACKET || n > len - got) {
            eb_slip_decoder_next(&c->dec);
            return eb_fail(err, EB_EIO, "%s: READ_FLASH sent a %zu-byte packet after %u of %u bytes", c->port->url, n,
                           got, len);
        }
        memcpy(out + got, c->dec.packet.data, n);
        got += (uint32_t)n;
        eb_slip_decoder_next(&c->dec);
        uint8_t ack[4];
        eb_wr32le(ack, got);
        eb_buf frame;
        eb_buf_init(&frame);
        eb_slip_encode(&frame, ack, 4);
        rc = eb_port_write(c->port, frame.data, frame.len, eb_deadline_in(c->to.command_ms), err);
        eb_buf_free(&frame);
    }
    if (rc)
        return rc;
    int r = next_packet(c, eb_deadline_in(c->to.command_ms), err);
    if (r <= 0)
        return r < 0 ? -r : eb_fail(err, EB_EIO, "%s: no MD5 after READ_FLASH", c->port->url);
    bool md5_frame = c->dec.packet.len == 16;
    uint8_t digest[16], want[16];
    if (md5_frame)
        memcpy(digest, c->dec.packet.data, 16);
    eb_slip_decoder_next(&c->dec);
    if (!md5_frame)
        return eb_fail(err, EB_EIO, "%s: READ_FLASH ended without its 16-byte MD5", c->port->url);
    if ((rc = eb_digest(EB_DIGEST_MD5, out, len, want, err)))
        return rc;
    if (memcmp(digest, want, 16))
        return eb_fail(err, EB_EIO, "%s: READ_FLASH data does not match the stub's MD5; retry or lower --baud",
                       c->port->url);
    return EB_OK;
}

/* Leaves the loader by the ROM's own "run user code" (esptool soft_reset on a ROM). */
static int rom_run_user_code(eb_rom_client *c, eb_error *err)
{
    uint8_t b[20] = {0};
    eb_wr32le(b + 8, EB_ROM_FLASH_BLOCK);
    int rc = command_ok(c, EB_ROM_FLASH_BEGIN, b, begin_takes_encrypt_word(c) ? 20 : 16, 0, c->to.command_ms, err);
    if (rc)
        return rc;
    uint8_t end[4];
    eb_wr32le(end, 1); /* 1 = leave the loader and run the application */
    eb_error e;
    rc = command(c, EB_ROM_FLASH_END, end, 4, 0, 0, 300, &e);
    /* The ROM may jump to the app before answering. */
    if (rc == EB_EIO && !strstr(e.msg, "no reply")) {
        *err = e;
        return EB_EIO;
    }
    return EB_OK;
}

/* A flasher stub on an ESP32-family chip cannot start the application:
 * RUN_USER_CODE makes its main return, which only the ESP8266 build turns
 * into a jump to user code (stub_flasher.c stub_main_8266; esptool's
 * soft_reset: "only supported on ESP8266"). FLASH_END 0 makes it reset the
 * chip by software, which does not re-read the strapping pins, so the ROM
 * loader comes back (esptool --after no_reset with a stub: "exit stub back to
 * ROM loader"), at the ROM's 115200 baud; its run-user-code then works. */
static int stub_back_to_rom(eb_rom_client *c, eb_error *err)
{
    uint8_t b[16] = {0};
    eb_wr32le(b + 8, EB_ROM_FLASH_BLOCK);
    int rc = command_ok(c, EB_ROM_FLASH_BEGIN, b, 16, 0, c->to.command_ms, err);
    uint8_t end[4] = {0}; /* 0 = reboot */
    if (!rc)
        rc = command_ok(c, EB_ROM_FLASH_END, end, 4, 0, c->to.command_ms, err);
    if (rc)
        return rc;
    if (c->port->baud != 115200 && (rc = eb_port_set_baud(c->port, 115200, err)))
        return rc;
    eb_sleep_ms(100); /* the reset and the ROM's boot banner */
    drop_input(c);
    if ((rc = eb_rom_sync(c, 10, err)))
        return rc;
    if (c->stub)
        return eb_fail(err, EB_EIO, "%s: the flasher stub did not reset into the ROM loader; reset the board by hand",
                       c->port->url);
    return EB_OK;
}

int eb_rom_leave_loader(eb_rom_client *c, eb_error *err)
{
    if (c->stub && is_esp8266(c->chip)) {
        /* The ESP8266 stub runs the application on RUN_USER_CODE, which it does not answer. */
        eb_buf pkt, framed;
        eb_buf_init(&pkt);
        eb_buf_init(&framed);
        eb_rom_build_request(&pkt, EB_ROM_RUN_USER_CODE, NULL, 0, 0);
        eb_slip_encode(&framed, pkt.data, pkt.len);
        int rc = eb_port_write(c->port, framed.data, framed.len, eb_deadline_in(c->to.command_ms), err);
        eb_buf_free(&pkt);
        eb_buf_free(&framed);
        return rc;
    }
    if (c->stub) {
        int rc = stub_back_to_rom(c, err);
        if (rc)
            return rc;
    }
    return rom_run_user_code(c, err);
}
