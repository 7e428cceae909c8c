/* Flasher stub JSON (formats/stub.c) and the --stub FILE / pinned-download
 * sources (adapters/stub_files.c): the fields, the chip a file is for, and
 * one exact line for each bad file in tests/fixtures/stubs/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/adapters/profile_dirs.h"
#include "espbench/adapters/stub_files.h"
#include "espbench/formats/stub.h"

#define STUBS FIXTURES_DIR "/stubs/"

static eb_profiles prof;

static int setup(void **state)
{
    (void)state;
    eb_error err;
    const char *dirs[] = {SOURCE_DIR "/profiles"};
    return eb_profiles_load(&prof, dirs, 1, &err);
}

static int teardown(void **state)
{
    (void)state;
    eb_profiles_free(&prof);
    return 0;
}

static void test_good_file(void **state)
{
    (void)state;
    eb_stub s;
    eb_error err;
    assert_int_equal(eb_stub_load_file(STUBS "esp32c3.json", &prof, &s, &err), 0);
    assert_int_equal(s.entry, 0x403C0010);
    assert_int_equal(s.text_start, 0x403C0000);
    assert_int_equal(s.text_len, 600);
    for (size_t i = 0; i < s.text_len; i++)
        assert_int_equal(s.text[i], (uint8_t)(i * 37));
    assert_true(s.has_data);
    assert_int_equal(s.data_start, 0x3FCB0000);
    assert_int_equal(s.data_len, 64);
    assert_int_equal(s.data[63], 63);
    assert_true(s.has_bss);
    assert_int_equal(s.bss_start, 0x3FCA0000);
    assert_string_equal(s.chip, "esp32c3");
    assert_string_equal(s.origin, "file");
    assert_int_equal(eb_stub_check_chip(&s, eb_profiles_chip(&prof, "esp32c3"), &err), 0);
    eb_stub_free(&s);
    /* esptool 4's file name, esp-flasher-stub's plugin fields */
    assert_int_equal(eb_stub_load_file(STUBS "stub_flasher_32c3.json", &prof, &s, &err), 0);
    assert_string_equal(s.chip, "esp32c3");
    assert_int_equal(s.n_plugins, 1);
    eb_stub_free(&s);
}

static void test_chip_names(void **state)
{
    (void)state;
    assert_string_equal(eb_stub_chip_from_name("/x/esp32p4-rev1.json", &prof)->name, "esp32p4");
    assert_string_equal(eb_stub_chip_from_name("stub_flasher_8266.json", &prof)->name, "esp8266");
    assert_string_equal(eb_stub_chip_from_name("lib/targets/stub_flasher/esp32.json", &prof)->name, "esp32");
    assert_null(eb_stub_chip_from_name("mystub.json", &prof));
    assert_null(eb_stub_chip_from_name("esp32h4.json", &prof)); /* no profile */
}

static void expect_chip_error(const char *file, const char *chip, const char *msg)
{
    eb_stub s;
    eb_error err;
    assert_int_equal(eb_stub_load_file(file, &prof, &s, &err), 0);
    assert_int_equal(eb_stub_check_chip(&s, eb_profiles_chip(&prof, chip), &err), EB_ECONFIG);
    assert_string_equal(err.msg, msg);
    eb_stub_free(&s);
}

static void test_wrong_chip(void **state)
{
    (void)state;
    expect_chip_error(STUBS "esp32s3.json", "esp32c3",
                      STUBS "esp32s3.json: this stub is for the ESP32-S3, but the board is an ESP32-C3; give the "
                            "ESP32-C3's stub (esp32c3.json)");
    expect_chip_error(STUBS "other.json", "esp32c3",
                      STUBS "other.json: its code loads at 0x40080000, outside the ESP32-C3's instruction RAM: a stub "
                            "for another chip; give the ESP32-C3's stub (esp32c3.json)");
    eb_stub s;
    eb_error err;
    assert_int_equal(eb_stub_load_file(STUBS "mystub.json", &prof, &s, &err), 0);
    assert_int_equal(eb_stub_check_chip(&s, eb_profiles_chip(&prof, "esp32c3"), &err), 0);
    eb_stub_free(&s);
}

static void expect_bad(const char *name, const char *msg)
{
    char path[512];
    snprintf(path, sizeof path, STUBS "%s", name);
    eb_stub s;
    eb_error err;
    assert_int_equal(eb_stub_load_file(path, &prof, &s, &err), EB_ECONFIG);
    char want[1024];
    snprintf(want, sizeof want, "%s%s", path, msg);
    assert_string_equal(err.msg, want);
    assert_int_equal(eb_stub_mode_check(path, &prof, &err), EB_ECONFIG);
    assert_string_equal(err.msg, want);
}

static void test_bad_files(void **state)
{
    (void)state;
    expect_bad("not-json.json", ":4:5: not valid JSON; a flasher stub file is the JSON esptool ships");
    expect_bad("no-entry.json",
               ": no \"entry\": not a flasher stub file (one has entry, text, text_start, data, data_start)");
    expect_bad("bad-base64.json", ": \"text\" is not base64 (character 5 is '*')");
    expect_bad("entry-outside.json", ": \"entry\" 0x403d0000 lies outside \"text\" (0x403c0000..0x403c0258)");
    expect_bad("text-start-string.json", ": \"text_start\" is not an address (a whole number 0..0xffffffff)");
    expect_bad("data-no-start.json",
               ": no \"data_start\": not a flasher stub file (one has entry, text, text_start, data, data_start)");
    expect_bad("array.json", ": not a JSON object: not a flasher stub file");
    eb_error err;
    assert_int_equal(eb_stub_mode_check(STUBS "missing.json", &prof, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--stub " STUBS "missing.json: cannot read it: No such file or directory; give a stub "
                                 "JSON file, auto or off");
    assert_int_equal(eb_stub_mode_check("auto", &prof, &err), 0);
    assert_int_equal(eb_stub_mode_check("off", &prof, &err), 0);
    assert_int_equal(eb_stub_mode_check(NULL, &prof, &err), 0);
}

static void test_find_off_and_file(void **state)
{
    (void)state;
    eb_stub s;
    eb_error err;
    char hint[1024];
    const eb_chip *c3 = eb_profiles_chip(&prof, "esp32c3");
    assert_int_equal(eb_stub_find("off", c3, &prof, &s, hint, sizeof hint, &err), 1);
    assert_string_equal(hint, "");
    assert_int_equal(eb_stub_find(STUBS "esp32c3.json", c3, &prof, &s, hint, sizeof hint, &err), 0);
    assert_int_equal(s.text_len, 600);
    eb_stub_free(&s);
    assert_int_equal(eb_stub_find(STUBS "esp32s3.json", c3, &prof, &s, hint, sizeof hint, &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "this stub is for the ESP32-S3"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),  cmocka_unit_test(test_chip_names),
        cmocka_unit_test(test_wrong_chip), cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_find_off_and_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
