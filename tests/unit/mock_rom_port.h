/* A scripted ROM loader behind an eb_port (test double for the ROM client):
 * requests written by the host are decoded and answered at once; reads return
 * queued replies or 0 (an expired deadline) immediately, so timeouts cost
 * nothing. Faults are counters the test sets. flashrom-style: the test owns
 * the device state and asserts on it and on the request log. */
#ifndef MOCK_ROM_PORT_H
#define MOCK_ROM_PORT_H

#include <openssl/evp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "espbench/base/buf.h"
#include "espbench/adapters/port.h"
#include "espbench/formats/rom_proto.h"
#include "espbench/formats/slip.h"

typedef struct mock_rom {
    eb_port port;
    /* device */
    int chip_id;              /* reported by GET_SECURITY_INFO; -1: not supported */
    uint32_t magic;
    int status_bytes;
    uint32_t mac_reg;         /* eFuse MAC words (ESP32+ layout) */
    uint8_t mac[6];
    uint32_t spi_base, spi_w0;
    uint32_t jedec;
    uint8_t *flash;
    size_t flash_size;
    /* faults */
    int silent;               /* do not answer anything */
    int checksum_faults;      /* answer the next N _DATA blocks with error 0x07 */
    int refuse_baud;          /* answer CHANGE_BAUDRATE with an error */
    int ignore_baud;          /* ack CHANGE_BAUDRATE but keep the old rate */
    uint32_t dev_baud, host_baud;
    int gone_after_blocks;    /* >0: the port fails after this many DEFL_DATA blocks */
    int chatty;               /* an app printing without pause: every read returns console text */
    int no_deflate;           /* a ROM without FLASH_DEFL_*: answers them as an unknown command, 8 times */
    uint32_t inflate_window;  /* ESP32 ROM: its circular inflate buffer (<= 64 KiB), programmed whole at a stream's end */
    uint8_t inflate_buf[0x10000];
    int stub;                 /* a flasher stub runs: SYNC value 0, 2 status bytes, SPI_ATTACH takes 4 bytes */
    int stub_reboots;         /* FLASH_END 0 from the stub: back to the ROM loader */
    int stub_never_greets;    /* MEM_END starts code that never says OHAI (1), or says it and no more (2):
                                 silent until a reset by the lines */
    bool hung;
    int damage_replies;       /* the next N replies carry a bad SLIP escape (DB 01) in place of value[0] */
    /* state */
    eb_slip_decoder dec;
    eb_buf out;
    uint8_t ops[4096];        /* opcodes received, in order */
    int n_ops;
    int defl_blocks;
    uint32_t regs_addr[64], regs_val[64];
    int n_regs;
    z_stream z;
    bool z_active;
    uint32_t write_at;
    bool dtr, rts;
    int line_changes;
    bool lines_ok;
    char line_log[256];       /* "DR" pairs as set, e.g. "00 01 11 10 00" */
    uint8_t prev_op;          /* the last command answered and its value: what the ROM echoes */
    uint32_t prev_value;
    uint32_t defl_start;
    long longest_idle_ms;     /* longest deadline a read found nothing to return for (a wait) */
    bool app_running;         /* the ROM ran user code: SYNC is not answered */
} mock_rom;

static void mock_reply(mock_rom *m, uint8_t op, uint32_t value, const uint8_t *payload, size_t n, uint8_t status,
                       uint8_t error)
{
    eb_buf pkt;
    eb_buf_init(&pkt);
    m->prev_op = op, m->prev_value = value;
    if (m->stub) /* the stub: [error, status] with its code first, 2 bytes */
        eb_rom_build_response(&pkt, op, value, payload, n, status ? error : 0, 0, 2);
    else
        eb_rom_build_response(&pkt, op, value, payload, n, status, error, m->status_bytes);
    if (m->damage_replies > 0) {
        /* Line noise: C0, the 4 header bytes before the value, DB 01 for value[0], the rest. */
        m->damage_replies--;
        eb_buf frame;
        eb_buf_init(&frame);
        eb_slip_encode(&frame, pkt.data, pkt.len);
        eb_buf_append(&m->out, frame.data, 5);
        eb_buf_append(&m->out, "\xdb\x01", 2);
        eb_buf_append(&m->out, frame.data + 6, frame.len - 6);
        eb_buf_free(&frame);
    } else {
        eb_slip_encode(&m->out, pkt.data, pkt.len);
    }
    eb_buf_free(&pkt);
}

/* What the ESP32 ROM sends for a command it does not know: frames under the
 * opcode and value of the command before it, status 1, error 0x05, 8 times. */
static void mock_unknown(mock_rom *m)
{
    uint8_t op = m->prev_op;
    uint32_t value = m->prev_value;
    for (int i = 0; i < 8; i++)
        mock_reply(m, op, value, NULL, 0, 1, EB_ROM_ERR_INVALID_MSG);
}

static uint32_t mock_reg(mock_rom *m, uint32_t addr)
{
    if (addr == EB_ROM_CHIP_MAGIC_REG)
        return m->magic;
    if (addr == m->mac_reg)
        return (uint32_t)m->mac[2] << 24 | (uint32_t)m->mac[3] << 16 | (uint32_t)m->mac[4] << 8 | m->mac[5];
    if (addr == m->mac_reg + 4)
        return (uint32_t)m->mac[0] << 8 | m->mac[1];
    for (int i = 0; i < m->n_regs; i++)
        if (m->regs_addr[i] == addr)
            return m->regs_val[i];
    return 0;
}

static void mock_set_reg(mock_rom *m, uint32_t addr, uint32_t v)
{
    for (int i = 0; i < m->n_regs; i++)
        if (m->regs_addr[i] == addr) {
            m->regs_val[i] = v;
            return;
        }
    if (m->n_regs < 64) {
        m->regs_addr[m->n_regs] = addr;
        m->regs_val[m->n_regs++] = v;
    }
}

/* Flash erases whole 4 KiB sectors. */
static void mock_erase(mock_rom *m, uint32_t at, uint32_t size)
{
    uint64_t end = ((uint64_t)at + size + 0xFFF) & ~(uint64_t)0xFFF;
    if (size && end <= m->flash_size)
        memset(m->flash + at, 0xFF, (size_t)(end - at));
}

/* FLASH_DEFL_DATA: inflate into the flash; an ESP32-like ROM (inflate_window)
 * ends the stream as the genuine one does (docs/flashing.md). */
static void mock_defl_data(mock_rom *m, const eb_rom_request *q)
{
    const uint8_t *d = q->data;
    uint32_t n = eb_rd32le(d);
    if (m->checksum_faults > 0 || (q->checksum & 0xFF) != eb_rom_checksum(d + 16, n)) {
        if (m->checksum_faults > 0)
            m->checksum_faults--;
        mock_reply(m, q->op, 0, NULL, 0, 1, EB_ROM_ERR_CHECKSUM);
        return;
    }
    m->defl_blocks++;
    m->z.next_in = (Bytef *)(d + 16);
    m->z.avail_in = n;
    while (m->z.avail_in) {
        uint8_t tmp[4096];
        m->z.next_out = tmp;
        m->z.avail_out = sizeof tmp;
        int zr = inflate(&m->z, Z_NO_FLUSH);
        size_t got = sizeof tmp - m->z.avail_out;
        memcpy(m->flash + m->write_at, tmp, got);
        for (size_t i = 0; m->inflate_window && i < got; i++)
            m->inflate_buf[(m->write_at - m->defl_start + i) % m->inflate_window] = tmp[i];
        m->write_at += (uint32_t)got;
        if (zr == Z_STREAM_END && m->inflate_window) {
            /* The ESP32 ROM programs its whole circular buffer, unerased, at
             * the window holding the end (the next one on a boundary). */
            uint32_t w = m->inflate_window, at = m->defl_start + (m->write_at - m->defl_start) / w * w;
            for (uint32_t i = 0; i < w && at + i < m->flash_size; i++)
                m->flash[at + i] &= m->inflate_buf[i];
        }
        if (zr != Z_OK)
            break;
    }
    mock_reply(m, q->op, 0, NULL, 0, 0, 0);
}

/* MEM_BEGIN/DATA: taken; MEM_END with an entry starts the "stub": OHAI, or
 * silence (stub_never_greets). */
static void mock_mem(mock_rom *m, const eb_rom_request *q)
{
    mock_reply(m, q->op, 0, NULL, 0, 0, 0);
    if (q->op != EB_ROM_MEM_END || eb_rd32le(q->data + 4) == 0)
        return;
    if (m->stub_never_greets != 1) { /* 2: greets, then answers nothing */
        eb_buf f;
        eb_buf_init(&f);
        eb_slip_encode(&f, (const uint8_t *)"OHAI", 4);
        eb_buf_append(&m->out, f.data, f.len);
        eb_buf_free(&f);
        m->stub = 1;
    }
    m->hung = m->stub_never_greets != 0;
}

static void mock_handle(mock_rom *m, const uint8_t *pkt, size_t len)
{
    eb_rom_request q;
    if (eb_rom_parse_request(pkt, len, &q) != 0)
        return;
    if (m->n_ops < (int)sizeof m->ops)
        m->ops[m->n_ops++] = q.op;
    if (m->silent || m->hung || m->dev_baud != m->host_baud || m->app_running)
        return; /* silent, the two ends disagree on the baud, or the app runs: nothing answers */
    const uint8_t *d = q.data;
    switch (q.op) {
    case EB_ROM_SYNC:
        for (int i = 0; i < 8; i++)
            mock_reply(m, q.op, m->stub ? 0 : EB_ROM_SYNC_WORD, NULL, 0, 0, 0);
        break;
    case EB_ROM_SPI_ATTACH:
        /* ROM: pin config + "is legacy" word; stub: exactly one word, else 0xC0. */
        if (m->stub && q.size != 4)
            mock_reply(m, q.op, 0, NULL, 0, 1, EB_STUB_ERR_BAD_DATA_LEN);
        else
            mock_reply(m, q.op, 0, NULL, 0, 0, 0);
        break;
    case EB_ROM_FLASH_END:
        mock_reply(m, q.op, 0, NULL, 0, 0, 0);
        if (m->stub && eb_rd32le(d) == 0) { /* the stub resets the chip: the ROM loader comes back at 115200 */
            m->stub = 0;
            m->stub_reboots++;
            m->dev_baud = 115200;
        } else if (!m->stub && eb_rd32le(d) == 1) {
            m->app_running = true; /* the ROM runs user code */
        }
        break;
    case EB_ROM_GET_SECURITY_INFO:
        if (m->chip_id < 0 && m->stub) {
            mock_reply(m, q.op, 0, NULL, 0, 1, 0xFF); /* ESP32 stub: not implemented */
        } else if (m->chip_id < 0) {
            mock_unknown(m);
        } else {
            uint8_t info[20] = {0};
            eb_wr32le(info + 12, (uint32_t)m->chip_id);
            mock_reply(m, q.op, 0, info, 20, 0, 0);
        }
        break;
    case EB_ROM_READ_REG:
        mock_reply(m, q.op, mock_reg(m, eb_rd32le(d)), NULL, 0, 0, 0);
        break;
    case EB_ROM_WRITE_REG: {
        uint32_t addr = eb_rd32le(d), v = eb_rd32le(d + 4);
        if (addr == m->spi_base && (v & (1u << 18))) {
            mock_set_reg(m, m->spi_base + m->spi_w0, m->jedec);
            v &= ~(1u << 18);
        }
        mock_set_reg(m, addr, v);
        mock_reply(m, q.op, 0, NULL, 0, 0, 0);
        break;
    }
    case EB_ROM_CHANGE_BAUDRATE:
        mock_reply(m, q.op, 0, NULL, 0, m->refuse_baud ? 1 : 0, m->refuse_baud ? EB_ROM_ERR_INVALID_MSG : 0);
        if (!m->refuse_baud && !m->ignore_baud)
            m->dev_baud = eb_rd32le(d);
        break;
    case EB_ROM_FLASH_BEGIN:
        m->write_at = eb_rd32le(d + 12);
        mock_erase(m, m->write_at, eb_rd32le(d));
        mock_reply(m, q.op, 0, NULL, 0, 0, 0);
        break;
    case EB_ROM_FLASH_DATA: {
        uint32_t n = eb_rd32le(d);
        if (m->write_at + (uint64_t)n <= m->flash_size)
            memcpy(m->flash + m->write_at, d + 16, n);
        m->write_at += n;
        mock_reply(m, q.op, 0, NULL, 0, 0, 0);
        break;
    }
    case EB_ROM_FLASH_DEFL_BEGIN:
        if (m->no_deflate) {
            mock_unknown(m); /* the answer carries the previous command's opcode */
            break;
        }
        if (m->z_active)
            inflateEnd(&m->z);
        memset(&m->z, 0, sizeof m->z);
        inflateInit(&m->z);
        m->z_active = true;
        m->write_at = m->defl_start = eb_rd32le(d + 12);
        /* The ROM erases the whole region up front. */
        mock_erase(m, m->write_at, eb_rd32le(d));
        mock_reply(m, q.op, 0, NULL, 0, 0, 0);
        break;
    case EB_ROM_FLASH_DEFL_DATA:
        mock_defl_data(m, &q);
        break;
    case EB_ROM_MEM_BEGIN:
    case EB_ROM_MEM_DATA:
    case EB_ROM_MEM_END:
        mock_mem(m, &q);
        break;
    case EB_ROM_RUN_USER_CODE:
        break; /* no answer; an ESP32-family stub returns into the ROM, which does not start the app */
    case EB_ROM_SPI_FLASH_MD5: {
        uint32_t off = eb_rd32le(d), n = eb_rd32le(d + 4);
        uint8_t md[16];
        unsigned int mdlen;
        EVP_Digest(m->flash + off, n, md, &mdlen, EVP_md5(), NULL);
        char hex[33];
        for (int i = 0; i < 16; i++)
            snprintf(hex + 2 * i, 3, "%02x", md[i]);
        if (m->stub)
            mock_reply(m, q.op, 0, md, 16, 0, 0);
        else
            mock_reply(m, q.op, 0, (const uint8_t *)hex, 32, 0, 0);
        break;
    }
    default: /* SPI_SET_PARAMS: ok */
        mock_reply(m, q.op, 0, NULL, 0, 0, 0);
        break;
    }
}

static int mock_open(eb_port *p, const char *t, eb_error *e) { (void)p, (void)t, (void)e; return 0; }
/* eb_port_close() frees the struct itself after this. */
static void mock_close(eb_port *p)
{
    mock_rom *m = (mock_rom *)p;
    if (m->z_active)
        inflateEnd(&m->z);
    eb_slip_decoder_free(&m->dec);
    eb_buf_free(&m->out);
    free(m->flash);
}

static int mock_write(eb_port *p, const void *buf, size_t len, eb_deadline d, eb_error *err)
{
    (void)d;
    mock_rom *m = (mock_rom *)p;
    if (m->gone_after_blocks && m->defl_blocks >= m->gone_after_blocks)
        return eb_fail(err, EB_EIO, "port %s: device gone during write (Input/output error); check the cable and retry", p->url);
    const uint8_t *b = buf;
    while (len) {
        int done = 0;
        size_t used = eb_slip_decode(&m->dec, b, len, &done, NULL);
        b += used;
        len -= used;
        if (done) {
            mock_handle(m, m->dec.packet.data, m->dec.packet.len);
            eb_slip_decoder_next(&m->dec);
        }
    }
    return 0;
}

static long mock_read(eb_port *p, void *buf, size_t cap, eb_deadline d, eb_error *err)
{
    (void)err;
    mock_rom *m = (mock_rom *)p;
    if (!m->chatty && m->out.len == 0) {
        /* Nothing to come: a real port would wait the whole deadline. */
        long wait = (long)((int64_t)d - (int64_t)eb_now_ms());
        if (wait > m->longest_idle_ms)
            m->longest_idle_ms = wait;
    }
    if (m->chatty) {
        static const char line[] = "I (1234) wifi: still printing\r\n";
        size_t k = sizeof line - 1 < cap ? sizeof line - 1 : cap;
        memcpy(buf, line, k);
        return (long)k;
    }
    size_t n = m->out.len < cap ? m->out.len : cap;
    if (n == 0)
        return 0;
    memcpy(buf, m->out.data, n);
    eb_buf_consume(&m->out, n);
    return (long)n;
}

static int mock_set_baud(eb_port *p, uint32_t b, eb_error *e)
{
    (void)e;
    ((mock_rom *)p)->host_baud = b;
    return 0;
}
static int mock_set_lines(eb_port *p, bool dtr, bool rts, eb_error *e)
{
    (void)e;
    mock_rom *m = (mock_rom *)p;
    if (!m->lines_ok)
        return 1;
    if (m->rts && !rts && dtr) { /* EN released with IO0 low: the ROM loader, at 115200 */
        m->hung = m->app_running = false;
        m->stub = 0;
        m->dev_baud = 115200;
    }
    m->dtr = dtr, m->rts = rts;
    m->line_changes++;
    size_t n = strlen(m->line_log);
    snprintf(m->line_log + n, sizeof m->line_log - n, "%s%d%d", n ? " " : "", dtr, rts);
    return 0;
}
static void mock_flush(eb_port *p) { eb_buf_reset(&((mock_rom *)p)->out); }
static int mock_fd(eb_port *p) { (void)p; return -1; }

static const eb_port_ops mock_ops = {"mock", mock_open, mock_close, mock_write, mock_read,
                                     mock_set_baud, mock_set_lines, mock_flush, mock_fd};

/* An ESP32-C3-like device with 4 MB of erased flash. */
static mock_rom *mock_rom_new(void)
{
    mock_rom *m = calloc(1, sizeof *m);
    m->port.ops = &mock_ops;
    snprintf(m->port.url, sizeof m->port.url, "mock0");
    m->port.baud = 115200;
    m->dev_baud = m->host_baud = 115200;
    m->port.can_set_lines = true;
    m->chip_id = 5;
    m->magic = 0x6921506F;
    m->status_bytes = 4;
    m->mac_reg = 0x60008844;
    memcpy(m->mac, "\x7c\xdf\xa1\x01\x02\x03", 6);
    m->spi_base = 0x60002000;
    m->spi_w0 = 0x58;
    m->jedec = 0x1640C8; /* RDID bytes C8 40 16 in W0: 4 MB */
    m->flash_size = 4u << 20;
    m->flash = malloc(m->flash_size);
    memset(m->flash, 0xFF, m->flash_size);
    eb_slip_decoder_init(&m->dec);
    eb_buf_init(&m->out);
    return m;
}

static void mock_rom_free(mock_rom *m) { eb_port_close(&m->port); }

static int mock_count_op(const mock_rom *m, uint8_t op)
{
    int n = 0;
    for (int i = 0; i < m->n_ops; i++)
        n += m->ops[i] == op;
    return n;
}

#endif
