/* Firmware sources: IMAGE@OFFSET arguments, ESP-IDF build dirs, manifests. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/jobs/firmware_source.h"

static void test_arg_parsing(void **state)
{
    (void)state;
    eb_image_set s = {0};
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_image_set_add_arg(&s, FIXTURES_DIR "/idf-build/demo.bin@0x10000", &err), EB_OK);
    assert_int_equal(eb_image_set_add_arg(&s, FIXTURES_DIR "/idf-build/demo.bin@4096", &err), EB_OK);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.regions[0].offset, 0x10000);
    assert_int_equal(s.regions[1].offset, 4096);
    assert_int_equal(s.regions[0].len, strlen("\xe9idf app stand-in\n"));
    assert_memory_equal(s.regions[0].data, "\xe9idf app stand-in\n", s.regions[0].len);

    assert_int_equal(eb_image_set_add_arg(&s, "app.bin", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "'app.bin': expected IMAGE@OFFSET, e.g. app.bin@0x10000");
    assert_int_equal(eb_image_set_add_arg(&s, "app.bin@0x1zz", &err), EB_ECONFIG);
    assert_int_equal(eb_image_set_add_arg(&s, "app.bin@-4", &err), EB_ECONFIG);
    assert_int_equal(eb_image_set_add_arg(&s, "/nonexistent/app.bin@0x10000", &err), EB_EIO);
    assert_string_equal(err.msg, "image /nonexistent/app.bin: cannot read: No such file or directory");
    assert_int_equal(s.n, 2);
    eb_image_set_free(&s);
}

static void test_build_dir(void **state)
{
    (void)state;
    eb_image_set s = {0};
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_image_set_from_build_dir(&s, FIXTURES_DIR "/idf-build", &err), EB_OK);
    assert_string_equal(s.chip, "esp32c3");
    assert_int_equal(s.n, 3);
    /* Sorted by offset. */
    assert_int_equal(s.regions[0].offset, 0x0);
    assert_int_equal(s.regions[1].offset, 0x8000);
    assert_int_equal(s.regions[2].offset, 0x10000);
    assert_string_equal(s.regions[1].name, FIXTURES_DIR "/idf-build/partition_table/partition-table.bin");
    eb_image_set_free(&s);

    assert_int_equal(eb_image_set_from_build_dir(&s, FIXTURES_DIR, &err), EB_ECONFIG);
    assert_string_equal(err.msg, FIXTURES_DIR ": no flasher_args.json here or in build/; is this an ESP-IDF build "
                                              "directory (run 'idf.py build')?");
}

static void test_manifest_lookup(void **state)
{
    (void)state;
    eb_image_set s = {0};
    eb_error err;
    eb_error_clear(&err);
    eb_manifest_query q = {.manifest = FIXTURES_DIR "/firmware/manifest.json", .firmware = "demo", .chip = "esp32c3"};
    assert_int_equal(eb_image_set_from_manifest(&s, &q, &err), EB_OK);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.regions[0].offset, 0);
    assert_string_equal(s.regions[1].name, FIXTURES_DIR "/firmware/demo/esp32c3/app.bin");
    eb_image_set_free(&s);

    /* Stock firmware built per tier. */
    q.chip = "esp8266";
    assert_int_equal(eb_image_set_from_manifest(&s, &q, &err), EB_ECONFIG);
    assert_string_equal(err.msg, FIXTURES_DIR "/firmware/manifest.json: firmware 'demo' for esp8266 is built per "
                                              "tier; choose one with --tier (default, iperf)");
    q.tier = "iperf";
    assert_int_equal(eb_image_set_from_manifest(&s, &q, &err), EB_OK);
    assert_int_equal(s.n, 1);
    assert_memory_equal(s.regions[0].data, "\xe9" "esp8266 iperf-tier build\n", s.regions[0].len);
    eb_image_set_free(&s);
    q.tier = "huge";
    assert_int_equal(eb_image_set_from_manifest(&s, &q, &err), EB_ECONFIG);
    assert_string_equal(err.msg, FIXTURES_DIR "/firmware/manifest.json: firmware 'demo' for esp8266 has no tier "
                                              "'huge' (has: default, iperf)");

    q.tier = NULL;
    q.chip = "esp32s3";
    assert_int_equal(eb_image_set_from_manifest(&s, &q, &err), EB_ECONFIG);
    assert_string_equal(err.msg, FIXTURES_DIR "/firmware/manifest.json: firmware 'demo' has no build for esp32s3 "
                                              "(has: esp32c3, esp8266)");
    q.firmware = "nope";
    assert_int_equal(eb_image_set_from_manifest(&s, &q, &err), EB_ECONFIG);
    assert_string_equal(err.msg, FIXTURES_DIR "/firmware/manifest.json: no firmware 'nope' (known: demo, bad-sha)");
}

static void test_manifest_sha_mismatch(void **state)
{
    (void)state;
    eb_image_set s = {0};
    eb_error err;
    eb_error_clear(&err);
    eb_manifest_query q = {.manifest = FIXTURES_DIR "/firmware/manifest.json", .firmware = "bad-sha", .chip = "esp32c3"};
    assert_int_equal(eb_image_set_from_manifest(&s, &q, &err), EB_EIO);
    assert_string_equal(err.msg, FIXTURES_DIR "/firmware/demo/esp32c3/app.bin: sha256 "
                                              "b7443e24d533886ad544b0a6505977e88211c236fcd8f8b34789590c0c56497a does "
                                              "not match the manifest's "
                                              "0000000000000000000000000000000000000000000000000000000000000000; "
                                              "rebuild the firmware or update " FIXTURES_DIR "/firmware/manifest.json");
    eb_image_set_free(&s);
}

static void test_manifest_invalid_json_has_position(void **state)
{
    (void)state;
    char path[] = "/tmp/espbench-manifest-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "{\n  \"schema\": 1,\n  \"firmware\": {,}\n}\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    eb_image_set s = {0};
    eb_error err;
    eb_error_clear(&err);
    eb_manifest_query q = {.manifest = path, .firmware = "demo", .chip = "esp32c3"};
    assert_int_equal(eb_image_set_from_manifest(&s, &q, &err), EB_ECONFIG);
    char want[128];
    snprintf(want, sizeof want, "%s:3:17: invalid JSON", path); /* where cJSON stopped */
    assert_string_equal(err.msg, want);
    unlink(path);
}

/* A manifest's "size" (the download limit) must be a whole byte count in
 * range: 1e30 does not fit a size_t, and 0.5 would silently mean "no limit". */
static void test_manifest_bad_size(void **state)
{
    (void)state;
    static const char *const sizes[] = {"1e30", "0.5", "-4096"};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char path[] = "/tmp/espbench-manifest-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        char text[512];
        int n = snprintf(text, sizeof text,
                         "{\"schema\": 1, \"firmware\": {\"demo\": {\"chips\": {\"esp32c3\": {\"images\": [{"
                         "\"offset\": \"0x10000\", \"url\": \"file:///nonexistent/app.bin\", \"sha256\": \"%064d\", "
                         "\"size\": %s}]}}}}}\n",
                         0, sizes[i]);
        assert_int_equal(write(fd, text, (size_t)n), (ssize_t)n);
        close(fd);
        eb_image_set s = {0};
        eb_error err;
        eb_error_clear(&err);
        eb_manifest_query q = {.manifest = path, .firmware = "demo", .chip = "esp32c3", .cache_dir = "/tmp"};
        int rc = eb_image_set_from_manifest(&s, &q, &err);
        eb_image_set_free(&s);
        unlink(path);
        assert_int_equal(rc, EB_ECONFIG);
        char want[512];
        snprintf(want, sizeof want,
                 "%s: demo/esp32c3 image 0: \"size\" must be a whole number of bytes from 1 to 268435456", path);
        assert_string_equal(err.msg, want);
    }
}

/* scripts/build-firmware.sh names each firmware's console; an unknown one is refused. */
static void test_manifest_console(void **state)
{
    (void)state;
    /* Images live beside the manifest (no absolute paths): a folder of its own. */
    char dir[] = "/tmp/espbench-manifest-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], app[256];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    snprintf(app, sizeof app, "%s/app.bin", dir);
    assert_int_equal(symlink(FIXTURES_DIR "/firmware/demo/esp32c3/app.bin", app), 0);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    char text[1024];
    const char *img = "{\"offset\": \"0x10000\", \"file\": \"app.bin\", "
                      "\"sha256\": \"b7443e24d533886ad544b0a6505977e88211c236fcd8f8b34789590c0c56497a\"}";
    int n = snprintf(text, sizeof text,
                     "{\"schema\": 1, \"firmware\": {"
                     "\"espbench\": {\"console\": \"uart0\", \"chips\": {\"esp32c3\": {\"idf\": \"v5.4.4\", \"images\": [%s]}}},"
                     "\"espbench-usb-serial-jtag\": {\"console\": \"usb-serial-jtag\", \"chips\": {\"esp32c3\": "
                     "{\"images\": [%s]}}},"
                     "\"odd\": {\"console\": \"usb\", \"chips\": {\"esp32c3\": {\"images\": [%s]}}}}}\n",
                     img, img, img);
    assert_true(n > 0 && (size_t)n < sizeof text);
    assert_int_equal(write(fd, text, (size_t)n), (ssize_t)n);
    close(fd);
    eb_error err;
    eb_error_clear(&err);
    eb_image_set s = {0};
    eb_manifest_query q = {.manifest = path, .firmware = "espbench-usb-serial-jtag", .chip = "esp32c3"};
    assert_int_equal(eb_image_set_from_manifest(&s, &q, &err), EB_OK);
    assert_string_equal(s.console, "usb-serial-jtag");
    assert_int_equal(s.n, 1);
    eb_image_set_free(&s);
    eb_image_set u = {0};
    q.firmware = "espbench";
    assert_int_equal(eb_image_set_from_manifest(&u, &q, &err), EB_OK);
    assert_string_equal(u.console, "uart0");
    eb_image_set_free(&u);
    eb_image_set o = {0};
    q.firmware = "odd";
    assert_int_equal(eb_image_set_from_manifest(&o, &q, &err), EB_ECONFIG);
    eb_image_set_free(&o);
    char want[512];
    snprintf(want, sizeof want, "%s: firmware 'odd': \"console\" must be \"uart0\" or \"usb-serial-jtag\"", path);
    assert_string_equal(err.msg, want);
    unlink(path);
    unlink(app);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arg_parsing),
        cmocka_unit_test(test_build_dir),
        cmocka_unit_test(test_manifest_lookup),
        cmocka_unit_test(test_manifest_sha_mismatch),
        cmocka_unit_test(test_manifest_invalid_json_has_position),
        cmocka_unit_test(test_manifest_bad_size),
        cmocka_unit_test(test_manifest_console),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
