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

#include "espbench/rom_proto.h"
#include "espbench/slip.h"
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
    uint32_t baud_after;
} fixture;

static void cap_write(vb_board *b, const void *d, size_t n) { eb_buf_append(&((fixture *)b->impl)->out, d, n); }
static void cap_reset(vb_board *b, bool download, const char *reason)
{
    (void)reason;
    fixture *f = b->impl;
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
    f = fx_new("esp32");
    send_req(f, EB_ROM_GET_SECURITY_INFO, NULL, 0, 0);
    r = expect_resp(f, EB_ROM_GET_SECURITY_INFO, 0, 4, &pkt);
    assert_int_equal(r.status, 1);
    assert_int_equal(r.error, EB_ROM_ERR_INVALID_MSG);
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
    /* wrong sequence, bad checksum, bad length */
    eb_rom_response r = data_resp(f, EB_ROM_FLASH_DATA, 5, blk, sizeof blk, 4);
    assert_int_equal(r.error, EB_ROM_ERR_BAD_SEQ);
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
    /* unknown opcode and bad size */
    send_req(f, 0x77, NULL, 0, 0);
    r = expect_resp(f, 0x77, 0, 4, &pkt);
    assert_int_equal(r.status, 1);
    assert_int_equal(r.error, EB_ROM_ERR_INVALID_MSG);
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
    /* FLASH_END with reboot: acknowledged, then a reset into the app */
    uint8_t zero[4] = {0};
    send_req(f, EB_ROM_FLASH_END, zero, 4, 0);
    eb_buf pkt;
    eb_buf_init(&pkt);
    assert_int_equal(expect_resp(f, EB_ROM_FLASH_END, 0, 4, &pkt).status, 0);
    assert_int_equal(f->resets, 1);
    assert_false(f->reset_download);
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
    /* ERASE_REGION is a stub command: the ROM does not know it */
    uint8_t er[8] = {0};
    send_req(f, EB_ROM_ERASE_REGION, er, 8, 0);
    assert_int_equal(expect_resp(f, EB_ROM_ERASE_REGION, 0, 4, &pkt).error, EB_ROM_ERR_INVALID_MSG);
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
    eb_wr32le(me + 4, 0x40380400);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sync_eight_replies),
        cmocka_unit_test(test_registers),
        cmocka_unit_test(test_security_info),
        cmocka_unit_test(test_flash_and_md5),
        cmocka_unit_test(test_deflate_across_blocks_and_faults),
        cmocka_unit_test(test_stub_and_baud),
        cmocka_unit_test(test_esp8266_two_status_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
