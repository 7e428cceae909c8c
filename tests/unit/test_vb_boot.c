/* ROM boot output per ROM style, and the bootable-app check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vb_boot.h"

static eb_chip chip(const char *name, int id, const char *banner)
{
    eb_chip c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", name);
    c.chip_id = id;
    c.image_format = id < 0 ? EB_IMAGE_ESP8266 : EB_IMAGE_ESP32;
    snprintf(c.rom_banner, sizeof c.rom_banner, "%s", banner);
    return c;
}

static void test_banners(void **state)
{
    (void)state;
    eb_buf b;
    eb_buf_init(&b);
    eb_chip s3 = chip("esp32s3", 9, "ESP-ROM:esp32s3-20210327");
    vb_boot_rom_banner(&s3, VB_RST_POWERON, true, &b);
    assert_string_equal(eb_buf_cstr(&b), "ESP-ROM:esp32s3-20210327\r\nBuild:Mar 27 2021\r\n"
                                         "rst:0x1 (POWERON),boot:0x3 (DOWNLOAD(USB/UART0))\r\nwaiting for download\r\n");
    eb_buf_reset(&b);
    eb_chip c3 = chip("esp32c3", 5, "ESP-ROM:esp32c3-api1-20210207");
    vb_boot_rom_banner(&c3, VB_RST_PANIC, false, &b);
    assert_string_equal(eb_buf_cstr(&b), "ESP-ROM:esp32c3-api1-20210207\r\nBuild:Feb  7 2021\r\n"
                                         "rst:0xc (RTC_SW_CPU_RST),boot:0x8 (SPI_FAST_FLASH_BOOT)\r\n"
                                         "Saved PC:0x420104a6\r\n");
    eb_buf_reset(&b);
    eb_chip e32 = chip("esp32", 0, "ets Jun  8 2016 00:22:57");
    vb_boot_rom_banner(&e32, VB_RST_WDT, false, &b);
    assert_string_equal(eb_buf_cstr(&b),
                        "ets Jun  8 2016 00:22:57\r\n\r\nrst:0x10 (RTCWDT_RTC_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\r\n");
    eb_buf_reset(&b);
    eb_chip e8266 = chip("esp8266", -1, "ets Jan  8 2013,rst cause:2, boot mode:(1,7)");
    vb_boot_rom_banner(&e8266, VB_RST_POWERON, false, &b);
    assert_string_equal(eb_buf_cstr(&b), "\r\n ets Jan  8 2013,rst cause:1, boot mode:(3,6)\r\n\r\n");
    eb_buf_reset(&b);
    vb_boot_invalid_header_line(&s3, 0xffffffffu, &b);
    assert_string_equal(eb_buf_cstr(&b), "invalid header: 0xffffffff\r\n");
    assert_int_equal(vb_reset_cause_from_name("panic"), VB_RST_PANIC);
    assert_int_equal(vb_reset_cause_from_name("whatever"), VB_RST_SW);
    eb_buf_free(&b);
}

static void test_find_app(void **state)
{
    (void)state;
    eb_chip s3 = chip("esp32s3", 9, "ESP-ROM:esp32s3-20210327");
    size_t fsize = 1u << 20;
    uint8_t *flash = malloc(fsize);
    memset(flash, 0xFF, fsize);
    eb_image_info info;
    assert_false(vb_boot_find_app(&s3, flash, fsize, &info));
    eb_buf img;
    eb_buf_init(&img);
    eb_image_spec spec = {.chip_id = 9, .project_name = "demo", .version = "1", .idf_ver = "v5.3", .size = 40000};
    assert_int_equal(eb_image_build(&spec, &img, NULL), 0);
    memcpy(flash + VB_APP_OFFSET, img.data, img.len);
    assert_true(vb_boot_find_app(&s3, flash, fsize, &info));
    assert_string_equal(info.project_name, "demo");
    eb_chip c3 = chip("esp32c3", 5, "ESP-ROM:esp32c3-api1-20210207");
    assert_false(vb_boot_find_app(&c3, flash, fsize, &info)); /* another chip's image */
    flash[VB_APP_OFFSET + 1000] ^= 0xFF;
    assert_false(vb_boot_find_app(&s3, flash, fsize, &info)); /* corrupted */
    eb_buf_free(&img);
    free(flash);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_banners),
        cmocka_unit_test(test_find_app),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
