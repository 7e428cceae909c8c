/* The ROM client against the virtual board's loader in process (an eb_port
 * whose writes go to vb_rom_feed and whose reads take what the board wrote):
 * the stub upload (MEM_* of a stub JSON's segments, OHAI), then the stub's
 * dialect — 0x4000-byte compressed writes, the raw MD5, READ_FLASH with its
 * acks, ERASE_REGION / ERASE_FLASH — and the ESP8266, whose ROM takes plain
 * writes only and whose stub changes the baud rate from the old one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/adapters/profile_dirs.h"
#include "espbench/base/digest.h"
#include "espbench/adapters/stub_files.h"
#include "espbench/protocols/rom_client.h"
#include "vb_rom.h"

typedef struct fixture {
    eb_profiles prof;
    vb_board b;
    vb_flash flash;
    vb_rom *rom;
    eb_buf out; /* what the board wrote, not yet read by the client */
    eb_port port;
    eb_rom_client *c;
    uint32_t baud_after; /* the board's UART after a CHANGE_BAUDRATE */
} fixture;

static void cap_write(vb_board *b, const void *d, size_t n) { eb_buf_append(&((fixture *)b->impl)->out, d, n); }
static void cap_reset(vb_board *b, bool download, const char *reason) { (void)b, (void)download, (void)reason; }
static void hook_baud(void *ctx, uint32_t baud) { ((fixture *)ctx)->baud_after = baud; }
static uint32_t hook_cur(void *ctx) { return ((fixture *)ctx)->port.baud; }

static int p_write(eb_port *p, const void *buf, size_t len, eb_deadline d, eb_error *err)
{
    (void)d, (void)err;
    vb_rom_feed(((fixture *)p->impl)->rom, buf, len);
    return EB_OK;
}

static long p_read(eb_port *p, void *buf, size_t cap, eb_deadline d, eb_error *err)
{
    (void)d, (void)err;
    fixture *f = p->impl;
    size_t n = f->out.len < cap ? f->out.len : cap;
    memcpy(buf, f->out.data, n);
    eb_buf_consume(&f->out, n);
    return (long)n; /* 0: nothing more will come (the board answers at once) */
}

static int p_baud(eb_port *p, uint32_t baud, eb_error *err)
{
    (void)err;
    p->baud = baud;
    return EB_OK;
}
static int p_lines(eb_port *p, bool dtr, bool rts, eb_error *err) { (void)p, (void)dtr, (void)rts, (void)err; return 1; }
static void p_flush(eb_port *p) { eb_buf_reset(&((fixture *)p->impl)->out); }
static int p_fd(eb_port *p) { (void)p; return -1; }
static const eb_port_ops in_process = {"in-process", NULL, NULL, p_write, p_read, p_baud, p_lines, p_flush, p_fd};

static fixture *fx_new(const char *chip)
{
    fixture *f = calloc(1, sizeof *f);
    eb_error err;
    const char *dirs[] = {SOURCE_DIR "/profiles"};
    if (eb_profiles_load(&f->prof, dirs, 1, &err))
        fail_msg("%s", err.msg);
    f->b.chip = eb_profiles_chip(&f->prof, chip);
    assert_non_null(f->b.chip);
    assert_int_equal(vb_flash_open(&f->flash, NULL, f->b.chip->flash_size, NULL), 0);
    f->b.flash = f->flash.data;
    f->b.flash_size = f->flash.size;
    f->b.seed = 3;
    pthread_mutex_init(&f->b.lock, NULL);
    f->b.write = cap_write;
    f->b.request_reset = cap_reset;
    f->b.impl = f;
    eb_buf_init(&f->out);
    vb_rom_hooks h = {hook_baud, hook_cur, f};
    f->rom = vb_rom_new(&f->b, &f->flash, &h);
    f->port = (eb_port){.ops = &in_process, .url = "in-process", .baud = 115200, .impl = f};
    f->c = eb_rom_client_new(&f->port, &f->prof);
    /* Generous: the in-process loader answers at once on an idle machine, and a busy one must
     * only make the test slower (a short command deadline failed it with two CPU hogs running). */
    eb_rom_timeouts t = {.sync_ms = 1000, .command_ms = 5000, .erase_per_mb_ms = 5000, .md5_per_mb_ms = 5000};
    eb_rom_client_set_timeouts(f->c, &t);
    eb_rom_chip_info info;
    assert_int_equal(eb_rom_sync(f->c, 2, &err), 0);
    assert_int_equal(eb_rom_detect_chip(f->c, &info, &err), 0);
    assert_string_equal(info.chip->name, chip);
    return f;
}

static void fx_free(fixture *f)
{
    eb_rom_client_free(f->c);
    vb_rom_free(f->rom);
    vb_flash_close(&f->flash);
    eb_buf_free(&f->out);
    pthread_mutex_destroy(&f->b.lock);
    eb_profiles_free(&f->prof);
    free(f);
}

static void run_stub(fixture *f, const char *file)
{
    eb_stub s;
    eb_error err;
    assert_int_equal(eb_stub_load_file(file, &f->prof, &s, &err), 0);
    assert_false(eb_rom_is_stub(f->c));
    assert_int_equal(eb_rom_run_stub(f->c, &s, &err), 0);
    assert_true(eb_rom_is_stub(f->c));
    assert_true(vb_rom_stub_running(f->rom));
    eb_stub_free(&s);
}

static uint8_t *pattern(size_t n, uint32_t seed)
{
    uint8_t *d = malloc(n);
    for (size_t i = 0; i < n; i++)
        d[i] = (uint8_t)(i % 251 < 128 ? i * 7 : (seed = seed * 1103515245u + 12345u) >> 24);
    return d;
}

static void test_stub_session(void **state)
{
    (void)state;
    fixture *f = fx_new("esp32c3");
    eb_error err;
    uint8_t *d;
    /* Through the ROM the stub-only commands are refused without being sent. */
    assert_int_equal(eb_rom_erase_region(f->c, 0, 0x1000, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "in-process: erasing a region needs the flasher stub (the ROM loader has none); use --stub");
    run_stub(f, FIXTURES_DIR "/stubs/esp32c3.json");
    /* 100 000 bytes compressed, in 0x4000-byte blocks, with the raw 16-byte MD5 */
    d = pattern(100000, 5);
    assert_int_equal(eb_rom_flash_write(f->c, 0x20000, d, 100000, true, NULL, NULL, &err), 0);
    assert_memory_equal(f->flash.data + 0x20000, d, 100000);
    assert_int_equal(f->flash.data[0x20000 + 100000], 0xFF);
    char hex[33];
    assert_int_equal(eb_rom_flash_md5(f->c, 0x20000, 100000, hex, &err), 0);
    uint8_t md[16];
    assert_int_equal(eb_digest(EB_DIGEST_MD5, d, 100000, md, &err), 0);
    char want[33];
    eb_hex(md, 16, want);
    assert_string_equal(hex, want);
    /* READ_FLASH: 4 KiB packets acknowledged one by one, the stub's MD5 checked */
    uint8_t *back = malloc(100000);
    assert_int_equal(eb_rom_read_flash(f->c, 0x20000, 100000, back, &err), 0);
    assert_memory_equal(back, d, 100000);
    /* ERASE_REGION: 4 KiB-aligned only; then the sectors read erased */
    assert_int_equal(eb_rom_erase_region(f->c, 0x21000, 0x800, &err), EB_ECONFIG);
    assert_int_equal(eb_rom_erase_region(f->c, 0x21000, 0x2000, &err), 0);
    assert_int_equal(eb_rom_read_flash(f->c, 0x20FFC, 8, back, &err), 0);
    assert_memory_equal(back, d + 0xFFC, 4);
    assert_int_equal(back[4], 0xFF);
    assert_int_equal(f->flash.data[0x23000], d[0x3000]);
    assert_int_equal(eb_rom_erase_flash(f->c, &err), 0);
    assert_int_equal(f->flash.data[0x20000], 0xFF);
    /* plain under the stub: 0x4000-byte blocks, the last one's padding not written */
    assert_int_equal(eb_rom_flash_write(f->c, 0x30000, d, 5000, false, NULL, NULL, &err), 0);
    assert_memory_equal(f->flash.data + 0x30000, d, 5000);
    free(back);
    free(d);
    fx_free(f);
}

static void test_esp8266(void **state)
{
    (void)state;
    eb_error err;
    fixture *f = fx_new("esp8266");
    /* The ROM has neither CHANGE_BAUDRATE nor FLASH_DEFL_*: a compressed write goes plain. */
    uint8_t *d = pattern(30000, 9);
    assert_int_equal(eb_rom_flash_write(f->c, 0x10000, d, 30000, true, NULL, NULL, &err), 0);
    assert_memory_equal(f->flash.data + 0x10000, d, 30000);
    assert_int_not_equal(eb_rom_change_baud(f->c, 921600, &err), 0);
    assert_int_equal(f->baud_after, 0); /* refused as an unknown command: the UART stays */
    f->port.baud = 115200;
    eb_rom_sync(f->c, 2, &err);
    /* Through the stub: compressed, and the stub's CHANGE_BAUDRATE with the old rate */
    run_stub(f, FIXTURES_DIR "/stubs/esp8266-like.json");
    assert_int_equal(eb_rom_change_baud(f->c, 921600, &err), 0);
    assert_int_equal(f->baud_after, 921600);
    memset(f->flash.data + 0x10000, 0xFF, 0x8000);
    assert_int_equal(eb_rom_flash_write(f->c, 0x10000, d, 30000, true, NULL, NULL, &err), 0);
    assert_memory_equal(f->flash.data + 0x10000, d, 30000);
    free(d);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stub_session),
        cmocka_unit_test(test_esp8266),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
