/* ROM loader client and flash job against a scripted ROM (mock_rom_port.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "espbench/formats/esp_image.h"
#include "espbench/jobs/flash.h"
#include "espbench/protocols/reset.h"
#include "espbench/protocols/rom_client.h"
#include "espbench/adapters/profile_dirs.h"
#include "mock_rom_port.h"
#include "protocols/zlib_parallel.h"

static eb_profiles profiles;

static int load_profiles(void **state)
{
    (void)state;
    const char *dirs[] = {SOURCE_DIR "/profiles"};
    eb_error err;
    eb_error_clear(&err);
    if (eb_profiles_load(&profiles, dirs, 1, &err) != EB_OK) {
        fprintf(stderr, "profiles: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static int free_profiles(void **state)
{
    (void)state;
    eb_profiles_free(&profiles);
    return 0;
}

static void test_detect_by_security_info(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    eb_rom_client *c = eb_rom_client_new(&m->port, &profiles);
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_rom_sync(c, 3, &err), EB_OK);
    eb_rom_chip_info info;
    assert_int_equal(eb_rom_detect_chip(c, &info, &err), EB_OK);
    assert_string_equal(info.chip->name, "esp32c3");
    assert_true(info.by_security_info);
    assert_int_equal(info.chip_id, 5);
    uint8_t mac[6];
    assert_int_equal(eb_rom_read_mac(c, mac, &err), EB_OK);
    assert_memory_equal(mac, "\x7c\xdf\xa1\x01\x02\x03", 6);
    uint32_t id;
    assert_int_equal(eb_rom_read_flash_id(c, &id, &err), EB_OK);
    assert_int_equal(id, 0x1640C8);
    assert_int_equal(eb_rom_flash_size_from_id(id), 4u << 20);
    /* No magic read when the chip id answered. */
    assert_int_equal(mock_count_op(m, EB_ROM_GET_SECURITY_INFO), 1);
    eb_rom_client_free(c);
    mock_rom_free(m);
}

static void test_detect_by_magic_when_security_info_unsupported(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    m->chip_id = -1;        /* ESP32 ROM: GET_SECURITY_INFO unknown */
    m->magic = 0x00F01D83;
    eb_rom_client *c = eb_rom_client_new(&m->port, &profiles);
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_rom_sync(c, 3, &err), EB_OK);
    eb_rom_chip_info info;
    assert_int_equal(eb_rom_detect_chip(c, &info, &err), EB_OK);
    assert_string_equal(info.chip->name, "esp32");
    assert_false(info.by_security_info);
    assert_int_equal(info.magic, 0x00F01D83);
    eb_rom_client_free(c);
    mock_rom_free(m);
}

static void test_unknown_magic_fails_with_value(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    m->chip_id = -1;
    m->magic = 0x12345678;
    eb_rom_client *c = eb_rom_client_new(&m->port, &profiles);
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_rom_sync(c, 1, &err), EB_OK);
    eb_rom_chip_info info;
    assert_int_equal(eb_rom_detect_chip(c, &info, &err), EB_EIO);
    assert_string_equal(err.msg, "mock0: chip magic 0x12345678 matches no chip in profiles/");
    eb_rom_client_free(c);
    mock_rom_free(m);
}

static void test_silent_board_no_sync_hint(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    m->silent = 1;
    eb_rom_client *c = eb_rom_client_new(&m->port, &profiles);
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_rom_sync(c, 3, &err), EB_EIO);
    assert_string_equal(err.msg, "mock0: no reply to SYNC from the ROM loader; hold BOOT (IO0) while pressing RESET, "
                                 "or check that this is the board's port");
    assert_int_equal(mock_count_op(m, EB_ROM_SYNC), 3);
    eb_rom_client_free(c);
    mock_rom_free(m);
}

static void test_chatty_board_does_not_hold_sync(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    m->chatty = 1;
    eb_rom_client *c = eb_rom_client_new(&m->port, &profiles);
    eb_error err;
    eb_error_clear(&err);
    uint64_t t0 = eb_now_ms();
    assert_int_equal(eb_rom_sync(c, 2, &err), EB_EIO);
    assert_true(eb_now_ms() - t0 < 2000); /* 2 x (100 ms deadline + 50 ms pause), not forever */
    assert_non_null(strstr(err.msg, "no reply to SYNC"));
    eb_rom_client_free(c);
    mock_rom_free(m);
}

static void test_flash_size_from_jedec(void **state)
{
    (void)state;
    /* W0 holds the RDID bytes little-endian: manufacturer, type, capacity. */
    assert_int_equal(eb_rom_flash_size_from_id(0x1640C8), 4u << 20);
    assert_int_equal(eb_rom_flash_size_from_id(0x1840EF), 16u << 20);
    assert_int_equal(eb_rom_flash_size_from_id(0x3940C8), 32u << 20); /* 0x39: offset range */
    assert_int_equal(eb_rom_flash_size_from_id(0x2040C8), 64u << 20);
    assert_int_equal(eb_rom_flash_size_from_id(0xFFFFFF), 0);
    assert_int_equal(eb_rom_flash_size_from_id(0), 0);
}

/* A small valid ESP32-C3 app image built by the shared image builder. */
static void build_app(eb_buf *out, int chip_id, size_t size, uint32_t seed)
{
    eb_image_spec spec = {.chip_id = chip_id, .project_name = "unit", .version = "1.0", .idf_ver = "v5.4",
                          .size = size, .seed = seed, .flash_size_freq = 0x20};
    eb_error err;
    eb_buf_init(out);
    assert_int_equal(eb_image_build(&spec, out, &err), EB_OK);
}

static eb_flash_session *open_session(mock_rom *m, eb_flash_opts *o, eb_error *err)
{
    o->profiles = &profiles;
    o->before = "no-reset";
    eb_flash_session *s = NULL;
    assert_int_equal(eb_flash_open_port(&s, &m->port, o, err), EB_OK);
    return s;
}

static void test_flash_writes_verifies_then_skips(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    eb_flash_opts o = {0};
    eb_error err;
    eb_error_clear(&err);
    eb_flash_session *s = open_session(m, &o, &err);
    assert_int_equal(eb_flash_baud(s), 921600);
    assert_int_equal(m->host_baud, 921600);
    assert_int_equal(m->dev_baud, 921600);
    assert_int_equal(eb_flash_chip(s)->flash_size, 4u << 20);
    assert_true(eb_flash_chip(s)->flash_size_detected);

    eb_buf app;
    build_app(&app, 5, 40000, 7);
    uint8_t blob[5000];
    for (size_t i = 0; i < sizeof blob; i++)
        blob[i] = (uint8_t)(i * 7);
    eb_flash_region r[2] = {{0x10000, app.data, app.len, "app.bin"}, {0x9000, blob, 4999, "blob"}};
    eb_flash_region_result res[2];
    assert_int_equal(eb_flash_write(s, r, 2, res, &err), EB_OK);
    assert_true(res[0].written && !res[0].skipped);
    assert_true(res[1].written);
    assert_memory_equal(m->flash + 0x10000, app.data, app.len);
    assert_memory_equal(m->flash + 0x9000, blob, 4999);
    assert_int_equal(m->flash[0x9000 + 4999], 0xFF); /* padding to a word is erased-flash 0xFF */
    assert_true(res[0].wire_bytes < app.len);         /* compressed */
    int blocks = m->defl_blocks;
    assert_int_equal((size_t)blocks, (res[0].wire_bytes + 1023) / 1024 + (res[1].wire_bytes + 1023) / 1024);

    /* Same images again: only MD5 reads, no writes. */
    int begins = mock_count_op(m, EB_ROM_FLASH_DEFL_BEGIN);
    assert_int_equal(eb_flash_write(s, r, 2, res, &err), EB_OK);
    assert_true(res[0].skipped && res[1].skipped);
    assert_int_equal(mock_count_op(m, EB_ROM_FLASH_DEFL_BEGIN), begins);
    assert_int_equal(m->defl_blocks, blocks);

    /* ROM without lines: the after-reset leaves the loader via FLASH_END. */
    assert_int_equal(eb_flash_reset_after(s, &err), EB_OK);
    assert_int_equal(m->ops[m->n_ops - 1], EB_ROM_FLASH_END);
    /* The port goes on to the console at the ROM's rate. */
    eb_port *port = eb_flash_release_port(s, &err);
    assert_ptr_equal(port, &m->port);
    assert_int_equal(port->baud, 115200);
    eb_flash_close(s);
    eb_buf_free(&app);
    eb_port_close(port);
}

static void test_checksum_error_retried_then_fails(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    eb_flash_opts o = {.no_skip = true};
    eb_error err;
    eb_error_clear(&err);
    eb_flash_session *s = open_session(m, &o, &err);
    uint8_t data[8192];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 13 + (i >> 5));
    eb_flash_region r = {0x20000, data, sizeof data, "data.bin"};
    m->checksum_faults = 2; /* two bad answers, third attempt passes */
    assert_int_equal(eb_flash_write(s, &r, 1, NULL, &err), EB_OK);
    assert_memory_equal(m->flash + 0x20000, data, sizeof data);

    m->checksum_faults = 3;
    assert_int_equal(eb_flash_write(s, &r, 1, NULL, &err), EB_EIO);
    assert_string_equal(err.msg, "writing data.bin at 0x20000: mock0: block 0 rejected with a checksum error 3 times; "
                                 "check the cable or lower --baud");
    eb_flash_close(s);
}

static void test_port_gone_mid_write(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    eb_flash_opts o = {.no_skip = true};
    eb_error err;
    eb_error_clear(&err);
    eb_flash_session *s = open_session(m, &o, &err);
    eb_buf app;
    build_app(&app, 5, 60000, 3);
    eb_flash_region r = {0x10000, app.data, app.len, "app.bin"};
    m->gone_after_blocks = 2;
    assert_int_equal(eb_flash_write(s, &r, 1, NULL, &err), EB_EIO);
    assert_string_equal(err.msg, "writing app.bin at 0x10000: port mock0: device gone during write (Input/output "
                                 "error); check the cable and retry");
    eb_buf_free(&app);
    eb_flash_close(s);
}

static void test_baud_refused_falls_back(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    m->refuse_baud = 1;
    eb_flash_opts o = {0};
    eb_error err;
    eb_error_clear(&err);
    eb_flash_session *s = open_session(m, &o, &err);
    assert_int_equal(eb_flash_baud(s), 115200);
    eb_flash_close(s);
}

static void test_baud_not_followed_falls_back(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    m->ignore_baud = 1; /* acks, but its UART stays at 115200 */
    eb_flash_opts o = {.baud = 460800};
    eb_error err;
    eb_error_clear(&err);
    eb_flash_session *s = open_session(m, &o, &err);
    assert_int_equal(eb_flash_baud(s), 115200);
    assert_int_equal(m->host_baud, 115200);
    /* Still usable at the old rate. */
    char hex[33];
    assert_int_equal(eb_rom_flash_md5(eb_flash_rom(s), 0, 4096, hex, &err), EB_OK);
    eb_flash_close(s);
}

static void test_esp8266_rom(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    m->chip_id = -1;          /* no GET_SECURITY_INFO */
    m->magic = 0xFFF0C101;
    m->status_bytes = 2;
    m->mac_reg = 0x3FF00050;
    m->spi_base = 0x60000200;
    m->spi_w0 = 0x40;
    m->jedec = 0x1540C8;      /* 2 MB */
    eb_flash_opts o = {0};
    eb_error err;
    eb_error_clear(&err);
    eb_flash_session *s = open_session(m, &o, &err);
    const eb_rom_chip_info *ci = eb_flash_chip(s);
    assert_string_equal(ci->chip->name, "esp8266");
    assert_int_equal(ci->flash_size, 2u << 20);
    /* OUI 18:FE:34 (id byte MAC1[23:16] = 0), then MAC1[15:8], MAC1[7:0], MAC0[31:24]:
     * the mock's words are MAC1 = 0x00007cdf, MAC0 = 0xa1010203. */
    assert_memory_equal(ci->mac, "\x18\xfe\x34\x7c\xdf\xa1", 6);
    assert_int_equal(mock_count_op(m, EB_ROM_SPI_ATTACH), 0);
    /* An ESP8266 image has no extended header and no chip id. */
    eb_buf app;
    build_app(&app, -1, 30000, 5);
    eb_flash_region r = {0x0, app.data, app.len, "esp8266.bin"};
    eb_flash_region_result res;
    assert_int_equal(eb_flash_write(s, &r, 1, &res, &err), EB_OK);
    assert_true(res.written);
    assert_memory_equal(m->flash, app.data, app.len);
    eb_buf_free(&app);
    eb_flash_close(s);
}

/* A ROM without the compressed write (a real ESP8266 ROM) repeats its
 * "unknown command" answer; the copies must not be taken as the answer to the
 * plain FLASH_BEGIN that follows. */
static void test_rom_without_deflate_writes_plain(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    m->chip_id = -1;
    m->magic = 0xFFF0C101;
    m->status_bytes = 2;
    m->mac_reg = 0x3FF00050;
    m->spi_base = 0x60000200;
    m->spi_w0 = 0x40;
    m->jedec = 0x1540C8;
    m->no_deflate = 1;
    eb_flash_opts o = {0};
    eb_error err;
    eb_error_clear(&err);
    eb_flash_session *s = open_session(m, &o, &err);
    eb_buf app;
    build_app(&app, -1, 30000, 5);
    eb_flash_region r = {0x0, app.data, app.len, "esp8266.bin"};
    eb_flash_region_result res;
    int rc = eb_flash_write(s, &r, 1, &res, &err);
    if (rc != EB_OK)
        fail_msg("%s", err.msg);
    assert_true(res.written);
    assert_int_equal(mock_count_op(m, EB_ROM_FLASH_BEGIN), 1);
    assert_int_equal(mock_count_op(m, EB_ROM_FLASH_DATA), (int)((app.len + 0x3FF) / 0x400));
    assert_memory_equal(m->flash, app.data, app.len);
    eb_buf_free(&app);
    eb_flash_close(s);
}

/* A reply damaged on the line (a bad SLIP escape) is not believed: READ_REG
 * must not return a value with a corrupted byte. */
static void test_damaged_reply_not_believed(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    eb_rom_client *c = eb_rom_client_new(&m->port, &profiles);
    eb_error err;
    eb_error_clear(&err);
    uint32_t v = 0;
    assert_int_equal(eb_rom_read_reg(c, EB_ROM_CHIP_MAGIC_REG, &v, &err), EB_OK);
    assert_int_equal(v, m->magic);
    m->damage_replies = 1;
    v = 0;
    assert_int_equal(eb_rom_read_reg(c, EB_ROM_CHIP_MAGIC_REG, &v, &err), EB_EIO);
    assert_string_equal(err.msg, "mock0: no reply to READ_REG within 3000 ms, only a damaged one; check the cable or "
                                 "lower --baud");
    assert_int_equal(v, 0);
    eb_rom_client_free(c);
    eb_port_close(&m->port);
}

static void test_reset_sequences_on_lines(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    m->lines_ok = true;
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_reset_run(&m->port, eb_reset_before("classic", 0, 0), 0, &err), EB_OK);
    assert_string_equal(m->line_log, "00 01 11 10 00");
    m->line_log[0] = '\0';
    assert_int_equal(eb_reset_run(&m->port, eb_reset_before("tight", 0, 0), 0, &err), EB_OK);
    assert_string_equal(m->line_log, "00 11 01 10 00 00");
    m->line_log[0] = '\0';
    assert_int_equal(eb_reset_run(&m->port, eb_reset_after("hard-reset", 0, 0), 0, &err), EB_OK);
    assert_string_equal(m->line_log, "01 00");
    /* With lines, the after-reset pulses EN and sends no FLASH_END. */
    assert_int_equal(mock_count_op(m, EB_ROM_FLASH_END), 0);
    mock_rom_free(m);
}

static void test_wrong_chip_refused(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    eb_flash_opts o = {.profiles = &profiles, .before = "no-reset", .expect_chip = "esp32s3"};
    eb_error err;
    eb_error_clear(&err);
    eb_flash_session *s = NULL;
    assert_int_equal(eb_flash_open_port(&s, &m->port, &o, &err), EB_EIO);
    assert_null(s);
    assert_string_equal(err.msg, "wrong chip: expected ESP32-S3 (--chip esp32s3) but mock0 has an ESP32-C3; check --port or --chip");
}

static void test_region_checks(void **state)
{
    (void)state;
    const eb_chip *c3 = eb_profiles_chip(&profiles, "esp32c3");
    eb_buf app;
    build_app(&app, 9, 20000, 1); /* an ESP32-S3 image */
    eb_error err;
    eb_error_clear(&err);
    eb_flash_region r = {0x10000, app.data, app.len, "s3.bin"};
    assert_int_equal(eb_flash_check_region(c3, 4u << 20, &r, &err), EB_EIO);
    assert_string_equal(err.msg, "s3.bin: image is built for chip id 9, but the board is an ESP32-C3 (chip id 5); use the esp32c3 build");

    r.offset = 0x3FC000; /* 20000 bytes do not fit in the last 16 KiB of 4 MB */
    eb_buf_free(&app);
    build_app(&app, 5, 20000, 1);
    r.data = app.data;
    r.len = app.len;
    assert_int_equal(eb_flash_check_region(c3, 4u << 20, &r, &err), EB_EIO);
    assert_non_null(strstr(err.msg, "do not fit in the 4 MB flash of this ESP32-C3"));

    r.offset = 0x10000;
    app.data[0] = 0xE8; /* corrupt header at the app offset */
    assert_int_equal(eb_flash_check_region(c3, 4u << 20, &r, &err), EB_EIO);
    assert_string_equal(err.msg, "s3.bin: corrupt image header at 0x10000: not an ESP image: first byte 0xe8 (expected 0xE9)");

    r.offset = 0x10800;
    assert_int_equal(eb_flash_check_region(c3, 4u << 20, &r, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "s3.bin: offset 0x10800 is not a multiple of 4 KiB (0x1000)");
    eb_buf_free(&app);
}

/* The ESP8266 ROM erase-size workaround: aligned 64 KiB blocks pass through;
 * a region starting mid-block asks for half its head sectors. */
static void test_esp8266_erase_size(void **state)
{
    (void)state;
    assert_int_equal(eb_rom_esp8266_erase_size(0x0, 0x10000), 0x8000);      /* 16 sectors, head 16 */
    assert_int_equal(eb_rom_esp8266_erase_size(0x0, 0x20000), 0x10000);     /* 32 sectors: 32 - 16 */
    assert_int_equal(eb_rom_esp8266_erase_size(0x1000, 0x1000), 0x1000);    /* 1 sector */
    assert_int_equal(eb_rom_esp8266_erase_size(0xF000, 0x3000), 0x2000);    /* head 1: 3 - 1 */
    assert_int_equal(eb_rom_esp8266_erase_size(0x8000, 0x4000), 0x2000);    /* head 8, 4 sectors: (4+1)/2 */
    assert_int_equal(eb_rom_esp8266_erase_size(0x0, 0x1801), 0x1000);       /* 2 sectors: (2+1)/2 */
}


/* The ESP32 ROM, as the real one: no GET_SECURITY_INFO, unknown commands
 * answered under the previous opcode (SYNC's). */
static mock_rom *mock_esp32(void)
{
    mock_rom *m = mock_rom_new();
    m->chip_id = -1;
    m->magic = 0x00F01D83;
    m->mac_reg = 0x3FF5A004;
    m->spi_base = 0x3FF42000;
    m->spi_w0 = 0x80;
    m->inflate_window = 0x8000; /* its inflate writes whole 32 KiB buffers */
    return m;
}

/* The ESP32 ROM's "unknown command" frames carry SYNC's opcode: taken as the
 * answer at once, with no wait for the command deadline and no second SYNC. */
static void test_esp32_unknown_command_answer_taken_at_once(void **state)
{
    (void)state;
    mock_rom *m = mock_esp32();
    eb_flash_opts o = {.baud = 115200};
    eb_error err;
    eb_error_clear(&err);
    eb_flash_session *s = open_session(m, &o, &err);
    assert_string_equal(eb_flash_chip(s)->chip->name, "esp32");
    assert_false(eb_flash_chip(s)->by_security_info);
    assert_int_equal(mock_count_op(m, EB_ROM_GET_SECURITY_INFO), 1);
    assert_int_equal(mock_count_op(m, EB_ROM_SYNC), 1);
    /* Waits on an empty line were drains (<= 200 ms), never a 3 s command deadline. */
    assert_true(m->longest_idle_ms <= 200);
    eb_flash_close(s);
}

static void prefill(mock_rom *m, uint8_t v) { memset(m->flash, v, m->flash_size); }

/* Everything outside [off, sector end of off+len) still holds the canary. */
static void assert_canaries(const mock_rom *m, const eb_flash_region *r, int n, uint8_t canary)
{
    for (size_t a = 0; a < m->flash_size; a++) {
        bool inside = false;
        for (int i = 0; i < n && !inside; i++) {
            size_t end = (r[i].offset + r[i].len + 0xFFF) & ~(size_t)0xFFF;
            if (a >= r[i].offset && a < end) {
                inside = true;
                uint8_t want = a < r[i].offset + r[i].len ? r[i].data[a - r[i].offset] : 0xFF;
                if (m->flash[a] != want)
                    fail_msg("0x%zx: 0x%02x inside region %d, want 0x%02x", a, m->flash[a], i, want);
            }
        }
        if (!inside && m->flash[a] != canary)
            fail_msg("0x%zx changed outside the written sectors: 0x%02x", a, m->flash[a]);
    }
}

/* The ESP32 ROM programs its whole 32 KiB inflate buffer at the end of a
 * compressed stream, past the data (the mock does it as the genuine ROM does:
 * docs/flashing.md); espbench ends the compressed part one sector short of a
 * window boundary and writes the rest plain, so the stray window lands in the
 * tail's erased sectors and the canaries around each region hold — for an
 * image whose sectors end on a window boundary, one ending inside a window,
 * and one under a window (all plain). */
static void test_esp32_rom_write_keeps_canaries(void **state)
{
    (void)state;
    static const struct {
        size_t size;
        int defl;
    } apps[] = {{100000, 1}, {0x10000, 1}, {0x20000 - 0x1000 + 1, 1}, {26000, 0}};
    for (size_t k = 0; k < sizeof apps / sizeof apps[0]; k++) {
        mock_rom *m = mock_esp32();
        prefill(m, 0xA5);
        eb_flash_opts o = {.no_skip = true};
        eb_error err;
        eb_error_clear(&err);
        eb_flash_session *s = open_session(m, &o, &err);
        eb_buf boot, app;
        build_app(&boot, 0, 26000, 2); /* bootloader at 0x1000: under one window, all plain */
        build_app(&app, 0, apps[k].size, 9);
        eb_flash_region r[2] = {{0x1000, boot.data, boot.len, "boot"}, {0x10000, app.data, app.len, "app"}};
        eb_flash_region_result res[2];
        if (eb_flash_write(s, r, 2, res, &err) != EB_OK)
            fail_msg("%s", err.msg);
        assert_canaries(m, r, 2, 0xA5);
        assert_int_equal(mock_count_op(m, EB_ROM_FLASH_DEFL_BEGIN), apps[k].defl);
        assert_int_equal(mock_count_op(m, EB_ROM_FLASH_BEGIN), 2);
        if (apps[k].defl)
            assert_true(res[1].wire_bytes < app.len);

        /* The mock does spoil the flash: the same write on a ROM taken as one
         * without the quirk (ESP32-C3: one stream) changes the canary past the app. */
        if (apps[k].defl) {
            prefill(m, 0xA5);
            eb_rom_set_chip(eb_flash_rom(s), eb_profiles_chip(&profiles, "esp32c3"));
            assert_int_equal(eb_rom_flash_write(eb_flash_rom(s), 0x10000, app.data, app.len, true, NULL, NULL, &err),
                             EB_OK);
            size_t past = (0x10000 + app.len + 0xFFF) & ~(size_t)0xFFF;
            assert_int_not_equal(m->flash[past], 0xA5);
        }
        eb_flash_close(s);
        eb_buf_free(&boot);
        eb_buf_free(&app); /* the session closed the mock's port */
    }
}

/* The two-core zlib stream is one stream zlib inflates to the input: small
 * (one part), large (two parts, the second primed with the 32 KiB before
 * it), and data that repeats across the split point. */
static void test_zlib_parallel_round_trip(void **state)
{
    (void)state;
    const size_t sizes[] = {1, 5000, 8 * 32768 - 1, 8 * 32768, 1048576 + 7};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        uint8_t *in = malloc(n), *z = NULL, *back = malloc(n + 1);
        for (size_t i = 0; i < n; i++)
            in[i] = (uint8_t)(i % 40000 < 20000 ? (i * 2654435761u) >> 24 : i % 251);
        size_t zlen = 0;
        assert_int_equal(eb_zlib_parallel(in, n, &z, &zlen), 0);
        uLongf blen = (uLongf)n + 1;
        assert_int_equal(uncompress(back, &blen, z, (uLong)zlen), Z_OK);
        assert_int_equal(blen, n);
        assert_memory_equal(back, in, n);
        free(in);
        free(z);
        free(back);
    }
}

/* --no-compress: plain blocks only, and the canaries hold too. */
static void test_plain_write_keeps_canaries(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    prefill(m, 0x3C);
    eb_flash_opts o = {.no_skip = true, .no_compress = true};
    eb_error err;
    eb_error_clear(&err);
    eb_flash_session *s = open_session(m, &o, &err);
    eb_buf app;
    build_app(&app, 5, 50001, 4);
    eb_flash_region r = {0x20000, app.data, app.len, "app"};
    assert_int_equal(eb_flash_write(s, &r, 1, NULL, &err), EB_OK);
    assert_canaries(m, &r, 1, 0x3C);
    assert_int_equal(mock_count_op(m, EB_ROM_FLASH_DEFL_BEGIN), 0);
    eb_flash_close(s);
    eb_buf_free(&app);
}

/* A stub left running by another tool: SPI_ATTACH carries exactly one word
 * (the stub answers 0xC0 to eight bytes), and leaving it without DTR/RTS goes
 * back to the ROM loader first (FLASH_END 0), whose run-user-code starts the
 * app; RUN_USER_CODE is not used on an ESP32-family stub. */
static void test_stub_attach_and_leave(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    m->stub = 1;
    eb_flash_opts o = {0};
    eb_error err;
    eb_error_clear(&err);
    eb_flash_session *s = open_session(m, &o, &err);
    assert_true(eb_flash_chip(s)->stub);
    assert_int_equal(eb_flash_baud(s), 921600);
    eb_buf app;
    build_app(&app, 5, 30000, 6);
    eb_flash_region r = {0x10000, app.data, app.len, "app"};
    if (eb_flash_write(s, &r, 1, NULL, &err) != EB_OK)
        fail_msg("%s", err.msg);
    assert_memory_equal(m->flash + 0x10000, app.data, app.len);
    if (eb_flash_reset_after(s, &err) != EB_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m->stub_reboots, 1);
    assert_true(m->app_running);
    assert_int_equal(mock_count_op(m, EB_ROM_RUN_USER_CODE), 0);
    assert_false(eb_flash_left_in_loader(s));
    eb_flash_close(s);
    eb_buf_free(&app);
}

/* An uploaded stub that never greets, or greets and then answers nothing
 * (esp-flasher-stub v1.2.2 in Espressif's QEMU, ESP32 and ESP32-C3): with DTR/RTS the board is reset into the ROM loader and the write goes
 * through the ROM; without them one line says what to do, and nothing waits
 * on the silent chip afterwards. */
static void test_stub_that_never_greets(void **state)
{
    (void)state;
    static const struct {
        bool lines;
        int mode;
    } cases[] = {{true, 1}, {false, 1}, {true, 2}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        bool lines = cases[k].lines;
        mock_rom *m = mock_rom_new();
        m->lines_ok = lines;
        m->stub_never_greets = cases[k].mode;
        eb_flash_opts o = {.profiles = &profiles, .stub = SOURCE_DIR "/tests/fixtures/stubs/esp32c3.json",
                           .port_lent = true};
        eb_error err;
        eb_error_clear(&err);
        eb_flash_session *s = NULL;
        int rc = eb_flash_open_port(&s, &m->port, &o, &err);
        if (!lines) {
            assert_int_equal(rc, EB_EIO);
            assert_string_equal(err.msg, "mock0: the flasher stub did not start (no OHAI within 3000 ms), and this port "
                                         "cannot reset the board (no DTR/RTS, or unconfirmed ones), so the chip answers "
                                         "nothing now: put it into download mode by hand (hold BOOT, press RESET) and "
                                         "run again with --stub off");
            assert_int_equal(mock_count_op(m, EB_ROM_CHANGE_BAUDRATE), 1); /* none sent to the silent chip */
            mock_rom_free(m);
            continue;
        }
        if (rc != EB_OK)
            fail_msg("%s", err.msg);
        assert_string_equal(eb_flash_loader(s), "ROM (the flasher stub did not start)");
        assert_false(eb_flash_chip(s)->stub);
        eb_buf app;
        build_app(&app, 5, 30000, 6);
        eb_flash_region r = {0x10000, app.data, app.len, "app"};
        if (eb_flash_write(s, &r, 1, NULL, &err) != EB_OK)
            fail_msg("%s", err.msg);
        assert_memory_equal(m->flash + 0x10000, app.data, app.len);
        assert_int_equal(mock_count_op(m, EB_ROM_MEM_END), 1);
        eb_flash_close(s);
        eb_buf_free(&app);
        mock_rom_free(m);
    }
}

/* detect on a port without DTR/RTS stays in the loader unless --after is given;
 * a blank eFuse MAC is flagged. */
static void test_detect_stays_in_loader_without_lines(void **state)
{
    (void)state;
    mock_rom *m = mock_rom_new();
    memset(m->mac, 0, 6);
    eb_flash_opts o = {.baud = 115200, .stay_without_lines = true};
    eb_error err;
    eb_error_clear(&err);
    eb_flash_session *s = open_session(m, &o, &err);
    assert_true(eb_flash_chip(s)->mac_blank);
    int ends = mock_count_op(m, EB_ROM_FLASH_END);
    assert_int_equal(eb_flash_reset_after(s, &err), EB_OK);
    assert_true(eb_flash_left_in_loader(s));
    assert_int_equal(mock_count_op(m, EB_ROM_FLASH_END), ends);
    eb_flash_close(s);

    /* Told --after hard-reset, it runs the app; the next session then finds no loader and says why. */
    m = mock_rom_new();
    o = (eb_flash_opts){.baud = 115200, .stay_without_lines = true, .after = "hard-reset"};
    s = open_session(m, &o, &err);
    assert_false(eb_flash_chip(s)->mac_blank);
    assert_int_equal(eb_flash_reset_after(s, &err), EB_OK);
    assert_false(eb_flash_left_in_loader(s));
    assert_true(m->app_running);
    eb_rom_client *c = eb_flash_rom(s);
    (void)c;
    eb_port *port = eb_flash_release_port(s, &err);
    eb_flash_close(s);
    eb_flash_opts o2 = {.profiles = &profiles, .connect_attempts = 1};
    eb_flash_session *s2 = NULL;
    assert_int_equal(eb_flash_open_port(&s2, port, &o2, &err), EB_EIO);
    assert_non_null(strstr(err.msg, "this port cannot reset the board (no DTR/RTS"));
    assert_non_null(strstr(err.msg, "--after no-reset"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_esp8266_erase_size),
        cmocka_unit_test(test_detect_by_security_info),
        cmocka_unit_test(test_detect_by_magic_when_security_info_unsupported),
        cmocka_unit_test(test_unknown_magic_fails_with_value),
        cmocka_unit_test(test_silent_board_no_sync_hint),
        cmocka_unit_test(test_chatty_board_does_not_hold_sync),
        cmocka_unit_test(test_flash_size_from_jedec),
        cmocka_unit_test(test_flash_writes_verifies_then_skips),
        cmocka_unit_test(test_checksum_error_retried_then_fails),
        cmocka_unit_test(test_port_gone_mid_write),
        cmocka_unit_test(test_baud_refused_falls_back),
        cmocka_unit_test(test_baud_not_followed_falls_back),
        cmocka_unit_test(test_esp8266_rom),
        cmocka_unit_test(test_rom_without_deflate_writes_plain),
        cmocka_unit_test(test_damaged_reply_not_believed),
        cmocka_unit_test(test_reset_sequences_on_lines),
        cmocka_unit_test(test_wrong_chip_refused),
        cmocka_unit_test(test_region_checks),
        cmocka_unit_test(test_esp32_unknown_command_answer_taken_at_once),
        cmocka_unit_test(test_esp32_rom_write_keeps_canaries),
        cmocka_unit_test(test_plain_write_keeps_canaries),
        cmocka_unit_test(test_stub_attach_and_leave),
        cmocka_unit_test(test_stub_that_never_greets),
        cmocka_unit_test(test_zlib_parallel_round_trip),
        cmocka_unit_test(test_detect_stays_in_loader_without_lines),
    };
    return cmocka_run_group_tests(tests, load_profiles, free_profiles);
}
