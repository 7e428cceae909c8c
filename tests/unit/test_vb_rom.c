/* The vboard's ROM loader driven in-process: SLIP requests in, responses out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <zlib.h>

#include "espbench/base/clock.h"
#include "espbench/formats/rom_proto.h"
#include "espbench/formats/slip.h"
#include "espbench/adapters/profile_dirs.h"
#include "espbench/protocols/rom_client.h"
#include "vb_faults.h"
#include "vb_rom.h"

typedef struct fixture {
    eb_chip chip;
    vb_board b;
    vb_flash flash;
    vb_rom *rom;
    eb_buf out;          /* bytes the board wrote */
    int resets;
    bool reset_download;
    char reset_reason[16];
    uint32_t baud_after;
} fixture;

static void cap_write(vb_board *b, const void *d, size_t n) { eb_buf_append(&((fixture *)b->impl)->out, d, n); }
static void cap_reset(vb_board *b, bool download, const char *reason)
{
    fixture *f = b->impl;
    snprintf(f->reset_reason, sizeof f->reset_reason, "%s", reason ? reason : "");
    f->resets++;
    f->reset_download = download;
}
static void hook_baud(void *ctx, uint32_t baud) { ((fixture *)ctx)->baud_after = baud; }
static uint32_t hook_cur(void *ctx)
{
    (void)ctx;
    return 115200;
}

/* The chip's facts come from the shipped profiles, as in the vboard. */
static fixture *fx_new(const char *name)
{
    fixture *f = calloc(1, sizeof *f);
    eb_profiles prof;
    eb_error err;
    eb_error_clear(&err);
    const char *dirs[] = {SOURCE_DIR "/profiles"};
    if (eb_profiles_load(&prof, dirs, 1, &err))
        fail_msg("%s", err.msg);
    const eb_chip *c = eb_profiles_chip(&prof, name);
    assert_non_null(c);
    f->chip = *c;
    f->chip.tiers = NULL;
    f->chip.n_tiers = 0;
    eb_profiles_free(&prof);
    assert_int_equal(vb_flash_open(&f->flash, NULL, f->chip.flash_size, NULL), 0);
    f->b.chip = &f->chip;
    f->b.flash = f->flash.data;
    f->b.flash_size = f->flash.size;
    f->b.seed = 7;
    pthread_mutex_init(&f->b.lock, NULL);
    f->b.write = cap_write;
    f->b.request_reset = cap_reset;
    f->b.impl = f;
    eb_buf_init(&f->out);
    vb_rom_hooks h = {hook_baud, hook_cur, f};
    f->rom = vb_rom_new(&f->b, &f->flash, &h);
    return f;
}

static void fx_free(fixture *f)
{
    vb_rom_free(f->rom);
    vb_flash_close(&f->flash);
    eb_buf_free(&f->out);
    pthread_mutex_destroy(&f->b.lock);
    free(f);
}

static void send_req(fixture *f, uint8_t op, const uint8_t *data, size_t len, uint32_t chk)
{
    eb_buf req, wire;
    eb_buf_init(&req);
    eb_buf_init(&wire);
    eb_rom_build_request(&req, op, data, len, chk);
    eb_buf_append(&wire, "junk", 4); /* line noise before a frame is ignored */
    eb_buf_append_byte(&wire, 0xC0);
    eb_slip_encode(&wire, req.data, req.len);
    vb_rom_feed(f->rom, wire.data, wire.len);
    eb_buf_free(&req);
    eb_buf_free(&wire);
}

static void send_data(fixture *f, uint8_t op, uint32_t seq, const uint8_t *d, size_t n)
{
    eb_buf req, wire;
    eb_buf_init(&req);
    eb_buf_init(&wire);
    eb_rom_build_data_request(&req, op, seq, d, n);
    eb_slip_encode(&wire, req.data, req.len);
    vb_rom_feed(f->rom, wire.data, wire.len);
    eb_buf_free(&req);
    eb_buf_free(&wire);
}

/* Decodes the next frame the board wrote into pkt (consumed from out). */
static bool next_frame(fixture *f, eb_buf *pkt)
{
    eb_slip_decoder d;
    eb_slip_decoder_init(&d);
    int done = 0;
    size_t used = eb_slip_decode(&d, f->out.data, f->out.len, &done, NULL);
    if (done) {
        eb_buf_reset(pkt);
        eb_buf_append(pkt, d.packet.data, d.packet.len);
        eb_buf_consume(&f->out, used);
    }
    eb_slip_decoder_free(&d);
    return done;
}

static eb_rom_response expect_resp(fixture *f, uint8_t op, size_t payload, int status_bytes, eb_buf *pkt)
{
    assert_true(next_frame(f, pkt));
    eb_rom_response r;
    assert_int_equal(eb_rom_parse_response(pkt->data, pkt->len, payload, &r), 0);
    assert_int_equal(r.op, op);
    if (r.status == 0)
        assert_int_equal(r.size, payload + (size_t)status_bytes);
    return r;
}

static const uint8_t sync_body[36] = {0x07, 0x07, 0x12, 0x20, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
                                      0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
                                      0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55};

static void test_sync_eight_replies(void **state)
{
    (void)state;
    fixture *f = fx_new("esp32s3");
    send_req(f, EB_ROM_SYNC, sync_body, 36, 0);
    eb_buf pkt;
    eb_buf_init(&pkt);
    const uint8_t want[] = {0x01, 0x08, 0x04, 0x00, 0x07, 0x07, 0x12, 0x20, 0, 0, 0, 0};
    for (int i = 0; i < 8; i++) {
        assert_true(next_frame(f, &pkt));
        assert_int_equal(pkt.len, sizeof want);
        assert_memory_equal(pkt.data, want, sizeof want);
    }
    assert_false(next_frame(f, &pkt));
    assert_true(vb_rom_is_sync(want, 0) == false);
    eb_buf_free(&pkt);
    fx_free(f);
}

static uint32_t read_reg(fixture *f, uint32_t addr)
{
    uint8_t a[4];
    eb_wr32le(a, addr);
    send_req(f, EB_ROM_READ_REG, a, 4, 0);
    eb_buf pkt;
    eb_buf_init(&pkt);
    eb_rom_response r = expect_resp(f, EB_ROM_READ_REG, 0, 4, &pkt);
    assert_int_equal(r.status, 0);
    eb_buf_free(&pkt);
    return r.value;
}

static void write_reg(fixture *f, uint32_t addr, uint32_t value)
{
    uint8_t d[16];
    eb_wr32le(d, addr);
    eb_wr32le(d + 4, value);
    eb_wr32le(d + 8, 0xFFFFFFFFu);
    eb_wr32le(d + 12, 0);
    send_req(f, EB_ROM_WRITE_REG, d, 16, 0);
    eb_buf pkt;
    eb_buf_init(&pkt);
    assert_int_equal(expect_resp(f, EB_ROM_WRITE_REG, 0, 4, &pkt).status, 0);
    eb_buf_free(&pkt);
}

static void test_registers(void **state)
{
    (void)state;
    fixture *f = fx_new("esp32s3");
    assert_int_equal(read_reg(f, 0x40001000u), 0x9);
    uint8_t mac[6];
    vb_board_mac(&f->b, mac);
    assert_int_equal(mac[0], 0x7C);
    assert_int_equal(read_reg(f, 0x60007048u), (uint32_t)(mac[0] << 8 | mac[1]));
    assert_int_equal(read_reg(f, 0x60007044u), eb_rd32le((uint8_t[]){mac[5], mac[4], mac[3], mac[2]}));
    assert_int_equal(read_reg(f, 0x60000014u), 347); /* 40 MHz crystal at 115200 */
    write_reg(f, 0x12345678u, 0xCAFE);
    assert_int_equal(read_reg(f, 0x12345678u), 0xCAFE);
    /* RDID through the SPI user-command registers: capacity byte 0x17 = 8 MB (the S3 profile's flash) */
    write_reg(f, 0x60002020u, (7u << 28) | 0x9F);
    write_reg(f, 0x60002000u, 1u << 18);
    assert_int_equal(read_reg(f, 0x60002000u), 0);
    assert_int_equal(read_reg(f, 0x60002058u), 0x1740EF);
    assert_int_equal(vb_flash_jedec_id(4u << 20), 0x1640EF);
    fx_free(f);
}

static void test_security_info(void **state)
{
    (void)state;
    eb_buf pkt;
    eb_buf_init(&pkt);
    fixture *f = fx_new("esp32s3");
    send_req(f, EB_ROM_GET_SECURITY_INFO, NULL, 0, 0);
    eb_rom_response r = expect_resp(f, EB_ROM_GET_SECURITY_INFO, 20, 4, &pkt);
    assert_int_equal(r.status, 0);
    assert_int_equal(eb_rd32le(r.data + 12), 9);
    fx_free(f);
    f = fx_new("esp32s2");
    send_req(f, EB_ROM_GET_SECURITY_INFO, NULL, 0, 0);
    r = expect_resp(f, EB_ROM_GET_SECURITY_INFO, 12, 4, &pkt);
    assert_int_equal(r.size, 16);
    fx_free(f);
    /* The ESP32 ROM has no GET_SECURITY_INFO: after a SYNC it answers with
     * eight frames carrying SYNC's opcode and value, status 1, error 0x05
     * (issue 12, observed on the real ROM) - never with 0x14. */
    f = fx_new("esp32");
    send_req(f, EB_ROM_SYNC, sync_body, 36, 0);
    eb_buf_reset(&f->out);
    send_req(f, EB_ROM_GET_SECURITY_INFO, NULL, 0, 0);
    const uint8_t want[] = {0x01, 0x08, 0x04, 0x00, 0x07, 0x07, 0x12, 0x20, 1, 0x05, 0, 0};
    for (int i = 0; i < 8; i++) {
        assert_true(next_frame(f, &pkt));
        assert_int_equal(pkt.len, sizeof want);
        assert_memory_equal(pkt.data, want, sizeof want);
    }
    assert_false(next_frame(f, &pkt));
    /* after a READ_REG the echo is READ_REG's opcode and value */
    uint8_t a[4];
    eb_wr32le(a, 0x40001000u);
    send_req(f, EB_ROM_READ_REG, a, 4, 0);
    assert_int_equal(expect_resp(f, EB_ROM_READ_REG, 0, 4, &pkt).value, 0x00F01D83u);
    send_req(f, EB_ROM_GET_SECURITY_INFO, NULL, 0, 0);
    r = expect_resp(f, EB_ROM_READ_REG, 0, 4, &pkt);
    assert_int_equal(r.value, 0x00F01D83u);
    assert_int_equal(r.status, 1);
    assert_int_equal(r.error, EB_ROM_ERR_INVALID_MSG);
    fx_free(f);
    /* the forgiving board answers with the request's own opcode */
    f = fx_new("esp32");
    f->b.forgiving = true;
    send_req(f, EB_ROM_GET_SECURITY_INFO, NULL, 0, 0);
    r = expect_resp(f, EB_ROM_GET_SECURITY_INFO, 0, 4, &pkt);
    assert_int_equal(r.error, EB_ROM_ERR_INVALID_MSG);
    assert_false(next_frame(f, &pkt));
    fx_free(f);
    /* the C3 ROM has it (esptool ESP32C3ROM uses get_security_info) */
    f = fx_new("esp32c3");
    send_req(f, EB_ROM_GET_SECURITY_INFO, NULL, 0, 0);
    r = expect_resp(f, EB_ROM_GET_SECURITY_INFO, 20, 4, &pkt);
    assert_int_equal(r.status, 0);
    assert_int_equal(eb_rd32le(r.data + 12), 5);
    fx_free(f);
    eb_buf_free(&pkt);
}

static void md5_hex(const uint8_t *d, size_t n, char out[33])
{
    uint8_t md[16];
    unsigned len = 16;
    EVP_Digest(d, n, md, &len, EVP_md5(), NULL);
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static void begin(fixture *f, uint8_t op, uint32_t size, uint32_t blocks, uint32_t bsize, uint32_t off, int sb)
{
    uint8_t d[16];
    eb_wr32le(d, size);
    eb_wr32le(d + 4, blocks);
    eb_wr32le(d + 8, bsize);
    eb_wr32le(d + 12, off);
    send_req(f, op, d, 16, 0);
    eb_buf pkt;
    eb_buf_init(&pkt);
    assert_int_equal(expect_resp(f, op, 0, sb, &pkt).status, 0);
    eb_buf_free(&pkt);
}

static eb_rom_response data_resp(fixture *f, uint8_t op, uint32_t seq, const uint8_t *d, size_t n, int sb)
{
    send_data(f, op, seq, d, n);
    eb_buf pkt;
    eb_buf_init(&pkt);
    eb_rom_response r = expect_resp(f, op, 0, sb, &pkt);
    eb_buf_free(&pkt);
    return r;
}

static void test_flash_and_md5(void **state)
{
    (void)state;
    fixture *f = fx_new("esp32s3");
    uint8_t blk[0x400];
    for (size_t i = 0; i < sizeof blk; i++)
        blk[i] = (uint8_t)(i * 13);
    begin(f, EB_ROM_FLASH_BEGIN, 0x800, 2, 0x400, 0x20000, 4);
    assert_int_equal(data_resp(f, EB_ROM_FLASH_DATA, 0, blk, sizeof blk, 4).status, 0);
    /* bad checksum */
    eb_rom_response r;
    eb_buf req, wire;
    eb_buf_init(&req);
    eb_buf_init(&wire);
    eb_rom_build_data_request(&req, EB_ROM_FLASH_DATA, 1, blk, sizeof blk);
    req.data[4] ^= 0x5A;
    eb_slip_encode(&wire, req.data, req.len);
    vb_rom_feed(f->rom, wire.data, wire.len);
    eb_buf pkt;
    eb_buf_init(&pkt);
    r = expect_resp(f, EB_ROM_FLASH_DATA, 0, 4, &pkt);
    assert_int_equal(r.status, 1);
    assert_int_equal(r.error, EB_ROM_ERR_CHECKSUM);
    assert_int_equal(data_resp(f, EB_ROM_FLASH_DATA, 1, blk, sizeof blk, 4).status, 0);
    assert_memory_equal(f->flash.data + 0x20400, blk, sizeof blk);

    uint8_t q[16] = {0};
    eb_wr32le(q, 0x20000);
    eb_wr32le(q + 4, 0x800);
    send_req(f, EB_ROM_SPI_FLASH_MD5, q, 16, 0);
    r = expect_resp(f, EB_ROM_SPI_FLASH_MD5, 32, 4, &pkt);
    char want[33];
    md5_hex(f->flash.data + 0x20000, 0x800, want);
    assert_memory_equal(r.data, want, 32);
    /* unknown opcode (answered as the previous reply, MD5's, eight times) and bad size */
    send_req(f, 0x77, NULL, 0, 0);
    for (int i = 0; i < 8; i++) {
        r = expect_resp(f, EB_ROM_SPI_FLASH_MD5, 0, 4, &pkt);
        assert_int_equal(r.status, 1);
        assert_int_equal(r.error, EB_ROM_ERR_INVALID_MSG);
    }
    send_req(f, EB_ROM_READ_REG, q, 3, 0);
    r = expect_resp(f, EB_ROM_READ_REG, 0, 4, &pkt);
    assert_int_equal(r.error, EB_ROM_ERR_INVALID_MSG);
    eb_buf_free(&pkt);
    eb_buf_free(&req);
    eb_buf_free(&wire);
    fx_free(f);
}

static void test_deflate_across_blocks_and_faults(void **state)
{
    (void)state;
    fixture *f = fx_new("esp32s3");
    size_t n = 100000;
    uint8_t *img = malloc(n);
    for (size_t i = 0; i < n; i++)
        img[i] = (uint8_t)((i * 2654435761u) >> (i % 7 ? 24 : 13));
    uLongf clen = compressBound(n);
    uint8_t *c = malloc(clen);
    assert_int_equal(compress2(c, &clen, img, n, 9), Z_OK);
    uint32_t blocks = (uint32_t)((clen + 0x3FF) / 0x400);
    vb_fault fault;
    assert_int_equal(vb_fault_parse("rom-checksum:2", &fault, NULL), 0);
    assert_int_equal(vb_board_add_fault(&f->b, &fault, NULL), 0);
    begin(f, EB_ROM_FLASH_DEFL_BEGIN, (uint32_t)n, blocks, 0x400, 0x10000, 4);
    for (int k = 0; k < 2; k++) {
        eb_rom_response r = data_resp(f, EB_ROM_FLASH_DEFL_DATA, 0, c, 0x400, 4);
        assert_int_equal(r.status, 1);
        assert_int_equal(r.error, EB_ROM_ERR_CHECKSUM);
    }
    for (uint32_t s = 0; s < blocks; s++) {
        size_t len = clen - s * 0x400 < 0x400 ? clen - s * 0x400 : 0x400;
        assert_int_equal(data_resp(f, EB_ROM_FLASH_DEFL_DATA, s, c + s * 0x400, len, 4).status, 0);
    }
    assert_memory_equal(f->flash.data + 0x10000, img, n);
    /* flash-write fault: the next write fails with 0x08 */
    assert_int_equal(vb_fault_parse("flash-write", &fault, NULL), 0);
    assert_int_equal(vb_board_add_fault(&f->b, &fault, NULL), 0);
    begin(f, EB_ROM_FLASH_BEGIN, 0x400, 1, 0x400, 0x30000, 4);
    eb_rom_response r = data_resp(f, EB_ROM_FLASH_DATA, 0, img, 0x400, 4);
    assert_int_equal(r.status, 1);
    assert_int_equal(r.error, EB_ROM_ERR_FLASH_WRITE);
    assert_int_equal(data_resp(f, EB_ROM_FLASH_DATA, 0, img, 0x400, 4).status, 0);
    /* FLASH_END with reboot: acknowledged, then a software reset that comes
     * back in download mode (the strapping pins are not sampled again) */
    uint8_t zero[4] = {0};
    send_req(f, EB_ROM_FLASH_END, zero, 4, 0);
    eb_buf pkt;
    eb_buf_init(&pkt);
    assert_int_equal(expect_resp(f, EB_ROM_FLASH_END, 0, 4, &pkt).status, 0);
    assert_int_equal(f->resets, 1);
    assert_true(f->reset_download);
    /* FLASH_END 1 to the ROM: it leaves the loader and runs the app */
    uint8_t one[4] = {1, 0, 0, 0};
    send_req(f, EB_ROM_FLASH_END, one, 4, 0);
    assert_int_equal(expect_resp(f, EB_ROM_FLASH_END, 0, 4, &pkt).status, 0);
    assert_int_equal(f->resets, 2);
    assert_false(f->reset_download);
    assert_string_equal(f->reset_reason, "run");
    eb_buf_free(&pkt);
    free(img);
    free(c);
    fx_free(f);
}

static void test_stub_and_baud(void **state)
{
    (void)state;
    fixture *f = fx_new("esp32s3");
    eb_buf pkt;
    eb_buf_init(&pkt);
    uint8_t cb[8];
    eb_wr32le(cb, 921600);
    eb_wr32le(cb + 4, 0);
    send_req(f, EB_ROM_CHANGE_BAUDRATE, cb, 8, 0);
    assert_int_equal(expect_resp(f, EB_ROM_CHANGE_BAUDRATE, 0, 4, &pkt).status, 0);
    assert_int_equal(f->baud_after, 921600);
    /* ERASE_REGION is a stub command: the ROM does not know it and echoes
     * the previous reply (CHANGE_BAUDRATE) with error 0x05, eight times */
    uint8_t er[8] = {0};
    send_req(f, EB_ROM_ERASE_REGION, er, 8, 0);
    for (int i = 0; i < 8; i++)
        assert_int_equal(expect_resp(f, EB_ROM_CHANGE_BAUDRATE, 0, 4, &pkt).error, EB_ROM_ERR_INVALID_MSG);
    assert_false(next_frame(f, &pkt));
    uint8_t mb[16];
    eb_wr32le(mb, 0x100);
    eb_wr32le(mb + 4, 1);
    eb_wr32le(mb + 8, 0x1800);
    eb_wr32le(mb + 12, 0x40380000);
    send_req(f, EB_ROM_MEM_BEGIN, mb, 16, 0);
    assert_int_equal(expect_resp(f, EB_ROM_MEM_BEGIN, 0, 4, &pkt).status, 0);
    uint8_t code[0x100];
    memset(code, 0x13, sizeof code);
    assert_int_equal(data_resp(f, EB_ROM_MEM_DATA, 0, code, sizeof code, 4).status, 0);
    uint8_t me[8];
    eb_wr32le(me, 0);
    eb_wr32le(me + 4, 0x40380010); /* inside the uploaded code, in IRAM */
    send_req(f, EB_ROM_MEM_END, me, 8, 0);
    assert_int_equal(expect_resp(f, EB_ROM_MEM_END, 0, 4, &pkt).status, 0);
    assert_true(next_frame(f, &pkt));
    assert_int_equal(pkt.len, 4);
    assert_memory_equal(pkt.data, "OHAI", 4);
    assert_true(vb_rom_stub_running(f->rom));
    /* stub: SYNC value 0, two status bytes, raw MD5, [code, 0] errors */
    send_req(f, EB_ROM_SYNC, sync_body, 36, 0);
    eb_rom_response r = expect_resp(f, EB_ROM_SYNC, 0, 2, &pkt);
    assert_int_equal(r.value, 0);
    eb_buf_reset(&f->out);
    uint8_t q[16] = {0};
    eb_wr32le(q, 0);
    eb_wr32le(q + 4, 0x1000);
    send_req(f, EB_ROM_SPI_FLASH_MD5, q, 16, 0);
    r = expect_resp(f, EB_ROM_SPI_FLASH_MD5, 16, 2, &pkt);
    assert_int_equal(pkt.len, 8 + 16 + 2);
    begin(f, EB_ROM_FLASH_BEGIN, 0x4000, 1, 0x4000, 0, 2);
    eb_buf req, wire;
    eb_buf_init(&req);
    eb_buf_init(&wire);
    eb_rom_build_data_request(&req, EB_ROM_FLASH_DATA, 0, code, sizeof code);
    req.data[4] ^= 1;
    eb_slip_encode(&wire, req.data, req.len);
    vb_rom_feed(f->rom, wire.data, wire.len);
    assert_true(next_frame(f, &pkt));
    assert_int_equal(pkt.len, 10);
    assert_int_equal(pkt.data[8], EB_STUB_ERR_BAD_CHECKSUM);
    assert_int_equal(pkt.data[9], 0);
    /* FLASH_END (stay) before all data arrived: bad data length */
    uint8_t one[4] = {1, 0, 0, 0};
    send_req(f, EB_ROM_FLASH_END, one, 4, 0);
    r = expect_resp(f, EB_ROM_FLASH_END, 0, 2, &pkt);
    assert_int_equal(r.status, EB_STUB_ERR_BAD_DATA_LEN);
    assert_int_equal(f->resets, 0);
    eb_buf_free(&req);
    eb_buf_free(&wire);
    eb_buf_free(&pkt);
    fx_free(f);
}

static void test_esp8266_two_status_bytes(void **state)
{
    (void)state;
    fixture *f = fx_new("esp8266");
    f->chip.magic[0] = 0xFFF0C101u;
    f->chip.efuse_mac_reg = 0x3FF00050u;
    uint8_t a[4];
    eb_wr32le(a, 0x40001000u);
    send_req(f, EB_ROM_READ_REG, a, 4, 0);
    eb_buf pkt;
    eb_buf_init(&pkt);
    eb_rom_response r = expect_resp(f, EB_ROM_READ_REG, 0, 2, &pkt);
    assert_int_equal(r.value, 0xFFF0C101u);
    assert_int_equal(pkt.len, 10);
    uint8_t mac[6];
    vb_board_mac(&f->b, mac);
    eb_wr32le(a, 0x3FF00054u); /* OTP MAC1: mac[3], mac[4]; OUI 18:FE:34 implied */
    send_req(f, EB_ROM_READ_REG, a, 4, 0);
    r = expect_resp(f, EB_ROM_READ_REG, 0, 2, &pkt);
    assert_int_equal(r.value, (uint32_t)(mac[3] << 8 | mac[4]));
    assert_int_equal(mac[0], 0x18);
    eb_buf_free(&pkt);
    fx_free(f);
}


/* Uploads a stub-shaped image (one IRAM segment, entry inside) and checks OHAI. */
static void start_stub(fixture *f)
{
    eb_buf pkt;
    eb_buf_init(&pkt);
    int sb = f->chip.rom_status_bytes;
    uint32_t iram = f->chip.mem.iram + 0x8000;
    uint8_t mb[16];
    eb_wr32le(mb, 0x100);
    eb_wr32le(mb + 4, 1);
    eb_wr32le(mb + 8, 0x1800);
    eb_wr32le(mb + 12, iram);
    send_req(f, EB_ROM_MEM_BEGIN, mb, 16, 0);
    assert_int_equal(expect_resp(f, EB_ROM_MEM_BEGIN, 0, sb, &pkt).status, 0);
    uint8_t code[0x100];
    memset(code, 0x13, sizeof code);
    assert_int_equal(data_resp(f, EB_ROM_MEM_DATA, 0, code, sizeof code, sb).status, 0);
    uint8_t me[8];
    eb_wr32le(me, 0);
    eb_wr32le(me + 4, iram + 0x10);
    send_req(f, EB_ROM_MEM_END, me, 8, 0);
    assert_int_equal(expect_resp(f, EB_ROM_MEM_END, 0, sb, &pkt).status, 0);
    assert_true(next_frame(f, &pkt));
    assert_memory_equal(pkt.data, "OHAI", 4);
    eb_buf_free(&pkt);
}

/* A resent block is written at the next position (stubs ignore sequence
 * numbers; the ROM is taken to do the same); the forgiving board skips it. */
static void test_resent_block_written_next(void **state)
{
    (void)state;
    uint8_t a[0x400], b[0x400];
    memset(a, 0x11, sizeof a);
    memset(b, 0x22, sizeof b);
    for (int mode = 0; mode < 3; mode++) { /* ROM, stub, forgiving ROM */
        fixture *f = fx_new("esp32c3");
        f->b.forgiving = mode == 2;
        if (mode == 1)
            start_stub(f);
        int sb = mode == 1 ? 2 : 4;
        begin(f, EB_ROM_FLASH_BEGIN, 0xC00, 3, 0x400, 0x40000, sb);
        assert_int_equal(data_resp(f, EB_ROM_FLASH_DATA, 0, a, sizeof a, sb).status, 0);
        assert_int_equal(data_resp(f, EB_ROM_FLASH_DATA, 0, a, sizeof a, sb).status, 0); /* resent */
        assert_int_equal(data_resp(f, EB_ROM_FLASH_DATA, 1, b, sizeof b, sb).status, 0);
        assert_memory_equal(f->flash.data + 0x40000, a, sizeof a);
        if (mode == 2) {
            assert_memory_equal(f->flash.data + 0x40400, b, sizeof b);
        } else {
            assert_memory_equal(f->flash.data + 0x40400, a, sizeof a); /* the copy went to block 1 */
            assert_memory_equal(f->flash.data + 0x40800, b, sizeof b);
        }
        fx_free(f);
    }
}

static void test_stub_strictness(void **state)
{
    (void)state;
    eb_buf pkt;
    eb_buf_init(&pkt);
    fixture *f = fx_new("esp32");
    start_stub(f);
    /* SPI_ATTACH: exactly 4 bytes (esptool sends 4 to a stub), 0xC0 otherwise */
    uint8_t att[8] = {0};
    send_req(f, EB_ROM_SPI_ATTACH, att, 8, 0);
    eb_rom_response r = expect_resp(f, EB_ROM_SPI_ATTACH, 0, 2, &pkt);
    assert_int_equal(r.status, EB_STUB_ERR_BAD_DATA_LEN);
    send_req(f, EB_ROM_SPI_ATTACH, att, 4, 0);
    assert_int_equal(expect_resp(f, EB_ROM_SPI_ATTACH, 0, 2, &pkt).status, 0);
    /* not implemented: 0xFF with the request's opcode (ESP32 stub: no security info) */
    send_req(f, EB_ROM_GET_SECURITY_INFO, NULL, 0, 0);
    assert_int_equal(expect_resp(f, EB_ROM_GET_SECURITY_INFO, 0, 2, &pkt).status, 0xFF);
    uint8_t rs[8] = {0};
    send_req(f, EB_ROM_READ_FLASH_SLOW, rs, 8, 0);
    assert_int_equal(expect_resp(f, EB_ROM_READ_FLASH_SLOW, 0, 2, &pkt).status, 0xFF);
    send_req(f, 0x42, NULL, 0, 0);
    assert_int_equal(expect_resp(f, 0x42, 0, 2, &pkt).status, 0xFF);
    assert_false(next_frame(f, &pkt));
    /* RUN_USER_CODE: no answer; an ESP32 stub returns into the ROM loader */
    send_req(f, EB_ROM_RUN_USER_CODE, NULL, 0, 0);
    assert_false(next_frame(f, &pkt));
    assert_int_equal(f->resets, 0);
    assert_false(vb_rom_stub_running(f->rom));
    send_req(f, EB_ROM_SYNC, sync_body, 36, 0);
    assert_int_equal(expect_resp(f, EB_ROM_SYNC, 0, 4, &pkt).value, EB_ROM_SYNC_WORD);
    fx_free(f);
    /* the ESP8266 stub runs the application */
    f = fx_new("esp8266");
    start_stub(f);
    send_req(f, EB_ROM_RUN_USER_CODE, NULL, 0, 0);
    assert_false(next_frame(f, &pkt));
    assert_int_equal(f->resets, 1);
    assert_false(f->reset_download);
    assert_string_equal(f->reset_reason, "run");
    fx_free(f);
    eb_buf_free(&pkt);
}

static void send_ack(fixture *f, uint32_t n)
{
    uint8_t a[4];
    eb_wr32le(a, n);
    eb_buf wire;
    eb_buf_init(&wire);
    eb_slip_encode(&wire, a, 4);
    vb_rom_feed(f->rom, wire.data, wire.len);
    eb_buf_free(&wire);
}

/* Stub READ_FLASH: no more than max_in_flight bytes before the host's ack;
 * packets over 4096 bytes: acknowledged, then nothing. */
static void test_read_flash_waits_for_acks(void **state)
{
    (void)state;
    eb_buf pkt;
    eb_buf_init(&pkt);
    fixture *f = fx_new("esp32s3");
    start_stub(f);
    for (int i = 0; i < 3072; i++)
        f->flash.data[0x1000 + i] = (uint8_t)(i * 7);
    uint8_t q[16];
    eb_wr32le(q, 0x1000);
    eb_wr32le(q + 4, 3072);
    eb_wr32le(q + 8, 1024);
    eb_wr32le(q + 12, 1024);
    send_req(f, EB_ROM_READ_FLASH, q, 16, 0);
    assert_int_equal(expect_resp(f, EB_ROM_READ_FLASH, 0, 2, &pkt).status, 0);
    for (int k = 0; k < 3; k++) {
        assert_true(next_frame(f, &pkt));
        assert_int_equal(pkt.len, 1024);
        assert_memory_equal(pkt.data, f->flash.data + 0x1000 + 1024 * k, 1024);
        assert_false(next_frame(f, &pkt)); /* waits for the ack */
        send_ack(f, 1024u * (uint32_t)(k + 1));
    }
    assert_true(next_frame(f, &pkt));
    assert_int_equal(pkt.len, 16);
    uint8_t md[16];
    unsigned mdn = 16;
    EVP_Digest(f->flash.data + 0x1000, 3072, md, &mdn, EVP_md5(), NULL);
    assert_memory_equal(pkt.data, md, 16);
    /* 8 KiB packets: the command is acknowledged and nothing follows */
    eb_wr32le(q + 8, 8192);
    send_req(f, EB_ROM_READ_FLASH, q, 16, 0);
    assert_int_equal(expect_resp(f, EB_ROM_READ_FLASH, 0, 2, &pkt).status, 0);
    assert_false(next_frame(f, &pkt));
    /* the stub is still there for the next command */
    send_req(f, EB_ROM_SYNC, sync_body, 36, 0);
    assert_int_equal(expect_resp(f, EB_ROM_SYNC, 0, 2, &pkt).value, 0);
    fx_free(f);
    eb_buf_free(&pkt);
}

/* MEM_END whose entry is not in uploaded IRAM code: no stub, the chip goes
 * silent; the forgiving board still turns into the stub. */
static void test_mem_end_needs_a_stub_image(void **state)
{
    (void)state;
    eb_buf pkt;
    eb_buf_init(&pkt);
    for (int forgiving = 0; forgiving < 2; forgiving++) {
        fixture *f = fx_new("esp32c6");
        f->b.forgiving = forgiving;
        uint8_t mb[16];
        eb_wr32le(mb, 0x100);
        eb_wr32le(mb + 4, 1);
        eb_wr32le(mb + 8, 0x1800);
        eb_wr32le(mb + 12, 0x40810000);
        send_req(f, EB_ROM_MEM_BEGIN, mb, 16, 0);
        assert_int_equal(expect_resp(f, EB_ROM_MEM_BEGIN, 0, 4, &pkt).status, 0);
        uint8_t code[0x100] = {0};
        assert_int_equal(data_resp(f, EB_ROM_MEM_DATA, 0, code, sizeof code, 4).status, 0);
        uint8_t me[8];
        eb_wr32le(me, 0);
        eb_wr32le(me + 4, 0x40900000); /* outside what was uploaded */
        send_req(f, EB_ROM_MEM_END, me, 8, 0);
        assert_int_equal(expect_resp(f, EB_ROM_MEM_END, 0, 4, &pkt).status, 0);
        if (forgiving) {
            assert_true(next_frame(f, &pkt));
            assert_memory_equal(pkt.data, "OHAI", 4);
        } else {
            assert_false(next_frame(f, &pkt));
            send_req(f, EB_ROM_SYNC, sync_body, 36, 0);
            assert_false(next_frame(f, &pkt)); /* running garbage: silent until a reset */
            vb_rom_reset(f->rom);
            send_req(f, EB_ROM_SYNC, sync_body, 36, 0);
            assert_true(next_frame(f, &pkt));
        }
        fx_free(f);
    }
    eb_buf_free(&pkt);
}

/* Sends img as one zlib stream at off through FLASH_DEFL_BEGIN/DATA. */
static void defl_stream(fixture *f, uint32_t off, const uint8_t *img, size_t n, int sb)
{
    uLongf clen = compressBound(n);
    uint8_t *c = malloc(clen);
    assert_int_equal(compress2(c, &clen, img, n, 9), Z_OK);
    uint32_t blocks = (uint32_t)((clen + 0x3FF) / 0x400);
    begin(f, EB_ROM_FLASH_DEFL_BEGIN, (uint32_t)((n + 0x3FF) & ~(size_t)0x3FF), blocks, 0x400, off, sb);
    for (uint32_t b = 0; b < blocks; b++) {
        size_t len = clen - b * 0x400 < 0x400 ? clen - b * 0x400 : 0x400;
        assert_int_equal(data_resp(f, EB_ROM_FLASH_DEFL_DATA, b, c + b * 0x400, len, sb).status, 0);
    }
    free(c);
}

/* The end of a compressed stream as the genuine ESP32 ROM does it (measured
 * in Espressif's QEMU on the chip's own ROM, docs/flashing.md): the whole 32
 * KiB circular inflate buffer is programmed, unerased, at the region's window
 * holding the end — the next window when the end is on a boundary — so past
 * the data comes the buffer's older content (the stream's bytes 32 KiB
 * earlier; zeros after a reset; an earlier stream's bytes). The C3 ROM and
 * the stubs write what they inflated (the C3 ROM pads the end to 4 bytes from
 * its own 32 KiB buffer). Cases: {chip, stub, region offset, length}. */
static void test_esp32_deflate_stream_end(void **state)
{
    (void)state;
    static const struct {
        const char *chip;
        bool stub;
        uint32_t off;
        size_t n;
    } cases[] = {
        {"esp32", false, 0x10000, 40000},   /* ends inside its second window */
        {"esp32", false, 0x10000, 0x10000}, /* ends on a boundary: the window after it */
        {"esp32", false, 0x9000, 70001},    /* windows counted from the region, not the flash */
        {"esp32", false, 0x10000, 5000},    /* first window after a reset: zeros */
        {"esp32c3", false, 0x10000, 0x10000},
        {"esp32c3", false, 0x10000, 70001}, /* its end padded to 4 bytes from its 32 KiB buffer */
        {"esp32", true, 0x10000, 0x10000},
    };
    const size_t max = 70001, span = 0x30000;
    uint8_t *img = malloc(max);
    for (size_t i = 0; i < max; i++)
        img[i] = (uint8_t)((i * 2654435761u) >> 13);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        fixture *f = fx_new(cases[k].chip);
        if (cases[k].stub)
            start_stub(f);
        int sb = cases[k].stub ? 2 : 4;
        uint32_t off = cases[k].off;
        size_t n = cases[k].n, w = strcmp(cases[k].chip, "esp32") || cases[k].stub ? 0 : 0x8000;
        memset(f->flash.data + off, 0xA5, span); /* a pattern where the image goes and past it */
        defl_stream(f, off, img, n, sb);
        const uint8_t *fl = f->flash.data + off;
        assert_memory_equal(fl, img, n);
        size_t sector_end = (n + 0xFFF) & ~(size_t)0xFFF, win = w ? n / w * w : 0;
        for (size_t p = n; p < span; p++) {
            uint8_t want = p < sector_end ? 0xFF : 0xA5; /* the rest of the last sector is erased */
            if (w && p >= win && p < win + w)
                want &= p >= w ? img[p - w] : 0x00;
            if (!w && !cases[k].stub && p < ((n + 3) & ~(size_t)3))
                want &= img[p - 0x8000]; /* ESP32-C3: rom_deflate_pad 4 */
            if (fl[p] != want)
                fail_msg("case %zu: +0x%zx is 0x%02x, want 0x%02x", k, p, fl[p], want);
        }
        fx_free(f);
    }
    /* A stream's stale bytes can be an earlier stream's: the buffer is kept. */
    fixture *f = fx_new("esp32");
    memset(f->flash.data, 0xA5, f->flash.size);
    defl_stream(f, 0x10000, img, 0x8000 + 6000, 4); /* the buffer: img[32768..38767], then img[6000..32767] */
    defl_stream(f, 0x100000, img + 7, 5000, 4);
    for (size_t p = 5000; p < 0x8000; p++) {
        uint8_t want = (p < 0x2000 ? 0xFF : 0xA5) & (p < 6000 ? img[0x8000 + p] : img[p]);
        if (f->flash.data[0x100000 + p] != want)
            fail_msg("second stream +0x%zx is 0x%02x, want 0x%02x", p, f->flash.data[0x100000 + p], want);
    }
    assert_int_equal(f->flash.data[0x108000], 0xA5);
    fx_free(f);
    free(img);
}

/* Flash timing: the ROM answers FLASH_BEGIN after erasing the region (W25Q32JV
 * typical: 150 ms per 64 KiB block, 45 ms per 4 KiB sector); the stub answers
 * at once and spends the time as it writes; MD5 reads the flash. */
static void test_flash_timing(void **state)
{
    (void)state;
    eb_buf pkt;
    eb_buf_init(&pkt);
    assert_int_equal(vb_flash_erase_us(&vb_w25q32jv, 0x10000, 0x11000), 150000 + 45000);
    assert_int_equal(vb_flash_erase_us(&vb_w25q32jv, 0x1000, 0x1000), 45000);
    assert_int_equal(vb_flash_program_us(&vb_w25q32jv, 0x100, 0x400), 4 * 400);
    fixture *f = fx_new("esp32c3");
    f->b.flash_timing = true;
    uint64_t t0 = eb_now_us();
    uint8_t d[16];
    eb_wr32le(d, 0x11000);
    eb_wr32le(d + 4, 0x44);
    eb_wr32le(d + 8, 0x400);
    eb_wr32le(d + 12, 0x10000);
    send_req(f, EB_ROM_FLASH_BEGIN, d, 16, 0);
    assert_false(next_frame(f, &pkt)); /* still erasing */
    uint64_t until = vb_rom_busy_until(f->rom);
    assert_true(until >= t0 + 195000 && until <= eb_now_us() + 195000);
    vb_rom_poll(f->rom, until - 1);
    assert_false(next_frame(f, &pkt));
    vb_rom_poll(f->rom, until);
    assert_int_equal(expect_resp(f, EB_ROM_FLASH_BEGIN, 0, 4, &pkt).status, 0);
    fx_free(f);

    f = fx_new("esp32c3");
    start_stub(f);
    f->b.flash_timing = true;
    begin(f, EB_ROM_FLASH_BEGIN, 0x4000, 1, 0x4000, 0x20000, 2); /* answered at once */
    uint8_t *blk = calloc(1, 0x4000);
    t0 = eb_now_us();
    assert_int_equal(data_resp(f, EB_ROM_FLASH_DATA, 0, blk, 0x4000, 2).status, 0); /* acked before writing */
    until = vb_rom_busy_until(f->rom);
    assert_true(until >= t0 + 4 * 45000 + 64 * 400); /* four sectors erased, 64 pages programmed */
    uint8_t q[16] = {0};
    eb_wr32le(q, 0x20000);
    eb_wr32le(q + 4, 0x4000);
    send_req(f, EB_ROM_SPI_FLASH_MD5, q, 16, 0);
    assert_false(next_frame(f, &pkt)); /* after the write and the read */
    assert_true(vb_rom_busy_until(f->rom) >= until + 1600);
    vb_rom_poll(f->rom, vb_rom_busy_until(f->rom));
    assert_int_equal(expect_resp(f, EB_ROM_SPI_FLASH_MD5, 16, 2, &pkt).status, 0);
    fx_free(f);

    /* The stub's compressed write (esp-flasher-stub): FLASH_DEFL_BEGIN starts the first 64 KiB
     * erase and answers at once; a block is acknowledged first, its output collects in a 32 KiB
     * buffer, written (after the erase) when full or at the stream's end. */
    f = fx_new("esp32c3");
    start_stub(f);
    f->b.flash_timing = true;
    uint8_t *raw = malloc(0x6000);
    uint32_t x = 1;
    for (int i = 0; i < 0x6000; i++) /* incompressible: the stream takes two blocks */
        raw[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 24);
    uLongf zlen = compressBound(0x6000);
    uint8_t *z = malloc(zlen);
    assert_int_equal(compress2(z, &zlen, raw, 0x6000, 9), Z_OK);
    t0 = eb_now_us();
    begin(f, EB_ROM_FLASH_DEFL_BEGIN, 0x6000, 2, 0x4000, 0x20000, 2);
    assert_int_equal(vb_rom_busy_until(f->rom), 0); /* the erase runs in the flash, not in the CPU */
    assert_int_equal(data_resp(f, EB_ROM_FLASH_DEFL_DATA, 0, z, 0x4000, 2).status, 0);
    /* under 32 KiB inflated and the stream goes on: into the buffer, nothing written yet (no
     * sector's wait past the reply; measured from the reply, which a busy machine may delay) */
    uint64_t t1 = eb_now_us();
    assert_true(vb_rom_busy_until(f->rom) < t1 + 45000);
    assert_int_equal(data_resp(f, EB_ROM_FLASH_DEFL_DATA, 1, z + 0x4000, zlen - 0x4000, 2).status, 0);
    /* the stream's end: the buffer is written once the erase (six sectors, the first started by
     * FLASH_DEFL_BEGIN) has reached it; the stub takes the next command after that */
    assert_true(vb_rom_busy_until(f->rom) >= t0 + 6 * 45000 + 96 * 400);
    assert_true(vb_rom_busy_until(f->rom) <= eb_now_us() + 6 * 45000 + 96 * 400);
    free(raw);
    free(z);
    free(blk);
    fx_free(f);
    eb_buf_free(&pkt);
}

/* A loader slow to boot takes no byte until the boot ends, then answers every
 * SYNC that waited in the line eight times (the genuine ESP32 ROM in
 * Espressif's QEMU). The boot is ended by polling at its end time, so the
 * test does not depend on the machine's speed. */
static void test_slow_boot_answers_queued_syncs(void **state)
{
    (void)state;
    fixture *f = fx_new("esp32");
    vb_rom_set_boot_us(f->rom, 600u * 1000000u); /* ends only when polled at its time */
    vb_rom_reset(f->rom);
    uint64_t t0 = eb_now_us();
    for (int i = 0; i < 3; i++)
        send_req(f, EB_ROM_SYNC, sync_body, 36, 0);
    assert_int_equal(f->out.len, 0);
    uint64_t at = vb_rom_answer_at(f->rom);
    assert_true(at > t0);
    assert_true(vb_rom_busy_until(f->rom) >= at); /* vb_run takes no host byte meanwhile */
    vb_rom_poll(f->rom, at - 1);
    assert_int_equal(f->out.len, 0);
    vb_rom_poll(f->rom, at);
    eb_buf pkt;
    eb_buf_init(&pkt);
    int n = 0;
    while (next_frame(f, &pkt)) {
        assert_int_equal(pkt.data[1], EB_ROM_SYNC);
        n++;
    }
    assert_int_equal(n, 3 * 8);
    assert_int_equal(vb_rom_answer_at(f->rom), 0);
    /* a reset loses what the line held */
    send_req(f, EB_ROM_SYNC, sync_body, 36, 0);
    vb_rom_reset(f->rom);
    vb_rom_poll(f->rom, vb_rom_busy_until(f->rom));
    assert_int_equal(f->out.len, 0);
    eb_buf_free(&pkt);
    fx_free(f);
}

/* ---- the ROM client against this loader, in process -------------------- */

static int ip_write(eb_port *p, const void *buf, size_t len, eb_deadline d, eb_error *err)
{
    (void)d, (void)err;
    vb_rom_feed(((fixture *)p->impl)->rom, buf, len);
    return EB_OK;
}

/* Waits for the board's output up to the deadline, as a serial line does:
 * the client's SYNC tries then take their time while the loader boots. */
static long ip_read(eb_port *p, void *buf, size_t cap, eb_deadline d, eb_error *err)
{
    (void)err;
    fixture *f = p->impl;
    for (;;) {
        vb_rom_poll(f->rom, eb_now_us());
        if (f->out.len || eb_deadline_passed(d))
            break;
        eb_sleep_ms(1);
    }
    size_t n = f->out.len < cap ? f->out.len : cap;
    if (n)
        memcpy(buf, f->out.data, n);
    eb_buf_consume(&f->out, n);
    return (long)n;
}

static int ip_baud(eb_port *p, uint32_t baud, eb_error *err) { (void)err; p->baud = baud; return EB_OK; }
static int ip_lines(eb_port *p, bool dtr, bool rts, eb_error *err) { (void)p, (void)dtr, (void)rts, (void)err; return 1; }
static void ip_flush(eb_port *p) { eb_buf_reset(&((fixture *)p->impl)->out); }
static int ip_fd(eb_port *p) { (void)p; return -1; }
static const eb_port_ops in_process = {"in-process", NULL, NULL, ip_write, ip_read, ip_baud, ip_lines, ip_flush, ip_fd};

static eb_rom_client *client_new(fixture *f, eb_port *port, eb_profiles *prof)
{
    eb_error err;
    const char *dirs[] = {SOURCE_DIR "/profiles"};
    if (eb_profiles_load(prof, dirs, 1, &err))
        fail_msg("%s", err.msg);
    *port = (eb_port){.ops = &in_process, .url = "in-process", .baud = 115200, .impl = f};
    eb_rom_client *c = eb_rom_client_new(port, prof);
    /* SYNC tries as short as esptool's keep many queued during the boot; the
     * command deadline is generous for a busy machine. */
    eb_rom_timeouts t = {.sync_ms = 20, .command_ms = 10000, .erase_per_mb_ms = 10000, .md5_per_mb_ms = 10000};
    eb_rom_client_set_timeouts(c, &t);
    return c;
}

/* The client retries SYNC while the ROM boots (2 s here); afterwards the ROM
 * answers every try eight times. The client drains them after its sync, so
 * chip detection finds its answers. Before the drain, detection failed with
 * "no matching reply to GET_SECURITY_INFO (100 other packets)". */
static void test_client_syncs_with_slow_booting_rom(void **state)
{
    (void)state;
    fixture *f = fx_new("esp32");
    vb_rom_set_boot_us(f->rom, 2000000);
    vb_rom_reset(f->rom);
    eb_port port;
    eb_profiles prof;
    eb_rom_client *c = client_new(f, &port, &prof);
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_rom_sync(c, 1000, &err), EB_OK);
    eb_rom_chip_info info;
    if (eb_rom_detect_chip(c, &info, &err) != EB_OK)
        fail_msg("%s", err.msg);
    assert_string_equal(info.chip->name, "esp32");
    assert_false(info.by_security_info);
    uint8_t mac[6];
    assert_int_equal(eb_rom_read_mac(c, mac, &err), EB_OK);
    eb_rom_client_free(c);
    eb_profiles_free(&prof);
    fx_free(f);
}

/* SYNC replies that arrive after the client's drain (a host slower than the
 * ROM's queue) are skipped while matching a later answer, however many:
 * here 20 SYNCs' worth, 160 replies, ahead of GET_SECURITY_INFO's. */
static void test_client_skips_late_sync_replies(void **state)
{
    (void)state;
    fixture *f = fx_new("esp32");
    eb_port port;
    eb_profiles prof;
    eb_rom_client *c = client_new(f, &port, &prof);
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_rom_sync(c, 3, &err), EB_OK);
    for (int i = 0; i < 20; i++)
        send_req(f, EB_ROM_SYNC, sync_body, 36, 0);
    eb_rom_chip_info info;
    if (eb_rom_detect_chip(c, &info, &err) != EB_OK)
        fail_msg("%s", err.msg);
    assert_string_equal(info.chip->name, "esp32");
    /* and a read answered after as many late replies */
    for (int i = 0; i < 20; i++)
        send_req(f, EB_ROM_SYNC, sync_body, 36, 0);
    uint32_t magic = 0;
    assert_int_equal(eb_rom_read_reg(c, EB_ROM_CHIP_MAGIC_REG, &magic, &err), EB_OK);
    assert_int_equal(magic, info.magic);
    eb_rom_client_free(c);
    eb_profiles_free(&prof);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sync_eight_replies),
        cmocka_unit_test(test_slow_boot_answers_queued_syncs),
        cmocka_unit_test(test_client_syncs_with_slow_booting_rom),
        cmocka_unit_test(test_client_skips_late_sync_replies),
        cmocka_unit_test(test_registers),
        cmocka_unit_test(test_security_info),
        cmocka_unit_test(test_flash_and_md5),
        cmocka_unit_test(test_deflate_across_blocks_and_faults),
        cmocka_unit_test(test_stub_and_baud),
        cmocka_unit_test(test_esp8266_two_status_bytes),
        cmocka_unit_test(test_resent_block_written_next),
        cmocka_unit_test(test_stub_strictness),
        cmocka_unit_test(test_read_flash_waits_for_acks),
        cmocka_unit_test(test_mem_end_needs_a_stub_image),
        cmocka_unit_test(test_esp32_deflate_stream_end),
        cmocka_unit_test(test_flash_timing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
