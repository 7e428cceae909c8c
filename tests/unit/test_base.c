/* Base module: errors, deadlines, buffers, dialect names. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/base/buf.h"
#include "espbench/base/clock.h"
#include "espbench/base/digest.h"
#include "espbench/formats/dialect.h"
#include "espbench/base/error.h"
#include "espbench/base/fs.h"
#include "espbench/base/log.h"
#include "espbench/base/mix64.h"
#include "espbench/base/sha256.h"

static void test_fail_sets_code_and_message(void **state)
{
    (void)state;
    eb_error err;
    eb_error_clear(&err);
    int rc = eb_fail(&err, EB_EIO, "%s: no such port", "/dev/ttyUSB9");
    assert_int_equal(rc, EB_EIO);
    assert_int_equal(err.code, EB_EIO);
    assert_string_equal(err.msg, "/dev/ttyUSB9: no such port");
    assert_int_equal(eb_fail(NULL, EB_ECONFIG, "ignored"), EB_ECONFIG);
}

static void test_prefix_keeps_message_and_truncates(void **state)
{
    (void)state;
    eb_error err;
    eb_fail(&err, EB_EIO, "timed out");
    eb_error_prefix(&err, "flash %s: ", "esp32");
    assert_string_equal(err.msg, "flash esp32: timed out");
    char longmsg[EB_ERROR_MSG_MAX + 100];
    memset(longmsg, 'x', sizeof longmsg - 1);
    longmsg[sizeof longmsg - 1] = '\0';
    eb_fail(&err, EB_EIO, "%s", longmsg);
    eb_error_prefix(&err, "p: ");
    assert_int_equal(strlen(err.msg), EB_ERROR_MSG_MAX - 1);
    assert_memory_equal(err.msg, "p: xxx", 6);
}

static void test_code_names(void **state)
{
    (void)state;
    assert_string_equal(eb_code_name(EB_OK), "ok");
    assert_string_equal(eb_code_name(EB_ECONFIG), "config");
    assert_string_equal(eb_code_name(99), "unknown");
}

/* splitmix64 seeded with 0: its first two outputs (the reference sequence). */
static void test_mix64_is_splitmix64(void **state)
{
    (void)state;
    assert_true(eb_mix64(0) == 0xE220A8397B1DCDAFull);
    assert_true(eb_mix64(0x9E3779B97F4A7C15ull) == 0x6E789E6AA1B965F4ull);
}

static void test_deadline(void **state)
{
    (void)state;
    /* A minute is not over between two calls on any machine; 20 ms are after a 30 ms sleep. */
    eb_deadline d = eb_deadline_in(60000);
    assert_false(eb_deadline_passed(d));
    int left = eb_deadline_left_ms(d);
    assert_true(left > 0 && left <= 60000);
    d = eb_deadline_in(20);
    eb_sleep_ms(30);
    assert_true(eb_deadline_passed(d));
    assert_int_equal(eb_deadline_left_ms(d), 0);
    char iso[32];
    eb_iso8601_utc(iso);
    assert_int_equal(strlen(iso), 20);
    assert_int_equal(iso[10], 'T');
    assert_int_equal(iso[19], 'Z');
}

static void test_buf(void **state)
{
    (void)state;
    eb_buf b;
    eb_buf_init(&b);
    for (int i = 0; i < 1000; i++)
        eb_buf_printf(&b, "%d,", i % 10);
    assert_int_equal(b.len, 2000);
    eb_buf_consume(&b, 1990);
    assert_string_equal(eb_buf_cstr(&b), "5,6,7,8,9,");
    eb_buf_consume(&b, 100);
    assert_int_equal(b.len, 0);
    uint8_t le[4];
    eb_wr32le(le, 0x20120707u);
    assert_int_equal(le[0], 0x07);
    assert_int_equal(le[3], 0x20);
    assert_int_equal(eb_rd32le(le), 0x20120707u);
    eb_buf_free(&b);
}

static int logged;
static char last_log[128];
static void sink(void *user, int level, const char *msg)
{
    (void)user;
    (void)level;
    logged++;
    strncpy(last_log, msg, sizeof last_log - 1);
}

static void test_log_once(void **state)
{
    (void)state;
    eb_log_set_sink(sink, NULL, EB_LOG_INFO);
    eb_log(EB_LOG_DEBUG, "hidden");
    assert_int_equal(logged, 0);
    eb_log_once("k", EB_LOG_WARN, "cannot set DTR/RTS on %s", "/dev/pts/3");
    eb_log_once("k", EB_LOG_WARN, "cannot set DTR/RTS on %s", "/dev/pts/3");
    assert_int_equal(logged, 1);
    assert_string_equal(last_log, "cannot set DTR/RTS on /dev/pts/3");
    eb_log_set_sink(NULL, NULL, EB_LOG_INFO);
}

static void test_dialect_from_app(void **state)
{
    (void)state;
    static const struct {
        const char *project, *idf, *chip;
        const char *want;
    } cases[] = {
        {"espbench", "v5.3.1", "esp32", "espbench"},
        {"iperf", "v3.3", "esp32", "idf-legacy"},
        {"iperf", "v4.3.2", "esp32", "idf-legacy"},
        {"iperf", "v4.4", "esp32", "idf-v4.4"},
        {"iperf", "v5.0.2", "esp32", "idf-v4.4"},
        {"iperf", "v5.1", "esp32c6", "idf-v5.1"},
        {"iperf", "v5.2.1", "esp32", "idf-v5.1"},
        {"iperf", "v5.3", "esp32s3", "iperf-cmd-0.1"},
        {"iperf", "v6.0.2", "esp32", "iperf-cmd-0.1"},
        {"iperf", "v6.1-beta1", "esp32", "iperf-cmd-1.0"},
        {"iperf", "v3.4-dev", "esp8266", "esp8266"},
        {"iperf", "garbage", "esp32", "unknown"},
        /* Versions with absurd numbers (from a damaged log) must not overflow. */
        {"iperf", "v99999999.1", "esp32", "iperf-cmd-1.0"},
        {"iperf", "v4.99999999999", "esp32", "idf-v4.4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int d = eb_dialect_from_app(cases[i].project, cases[i].idf, cases[i].chip);
        assert_string_equal(eb_dialect_name(d), cases[i].want);
    }
    assert_int_equal(eb_dialect_from_name("idf-v5.1"), EB_DIALECT_IDF_V51);
    assert_int_equal(eb_dialect_from_name("nope"), EB_DIALECT_UNKNOWN);
    assert_true(fabs(eb_dialect_mbit_base(EB_DIALECT_IDF_V51) - 1048576.0) < 1e-9);
    assert_true(fabs(eb_dialect_mbit_base(EB_DIALECT_IDF_V44) - 1e6) < 1e-9);
}

static void test_mkdir_p(void **state)
{
    (void)state;
    char base[] = "/tmp/espbench-mkdir-XXXXXX";
    assert_non_null(mkdtemp(base));
    char deep[256];
    snprintf(deep, sizeof deep, "%s/a/b/c", base);
    assert_int_equal(eb_mkdir_p(deep), 0);
    struct stat st;
    assert_int_equal(stat(deep, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(eb_mkdir_p(deep), 0); /* already there */
    char file[256];
    snprintf(file, sizeof file, "%s/f", base);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(deep, sizeof deep, "%s/f/x", base); /* a file in the way */
    assert_int_equal(eb_mkdir_p(deep), -1);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", base);
    assert_int_equal(system(cmd), 0);
}

/* Digests from the libcrypto loaded on first use: the FIPS 180-2 / RFC 1321
 * "abc" vectors, one piece or several, and a file's SHA-256. */
static void test_digest(void **state)
{
    (void)state;
    eb_error err = {0};
    uint8_t md[EB_SHA256_LEN];
    char hex[65];
    assert_int_equal(eb_digest(EB_DIGEST_MD5, "abc", 3, md, &err), 0);
    eb_hex(md, EB_MD5_LEN, hex);
    assert_string_equal(hex, "900150983cd24fb0d6963f7d28e17f72");
    assert_int_equal(eb_sha256_hex("abc", 3, hex, &err), 0);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    eb_digest_ctx *c;
    assert_int_equal(eb_digest_begin(&c, EB_DIGEST_SHA256, &err), 0);
    eb_digest_update(c, "a", 1);
    eb_digest_update(c, "", 0);
    eb_digest_update(c, "bc", 2);
    eb_digest_end(c, md);
    eb_hex(md, EB_SHA256_LEN, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    char path[] = "/tmp/espbench-digest-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "abc", 3), 3);
    close(fd);
    assert_int_equal(eb_sha256_file(path, hex, &err), 0);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    unlink(path);
    assert_int_equal(eb_sha256_file(path, hex, &err), EB_EIO);
    assert_non_null(strstr(err.msg, ": cannot read: No such file or directory"));
    assert_string_equal(hex, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fail_sets_code_and_message),
        cmocka_unit_test(test_prefix_keeps_message_and_truncates),
        cmocka_unit_test(test_code_names),
        cmocka_unit_test(test_mix64_is_splitmix64),
        cmocka_unit_test(test_deadline),
        cmocka_unit_test(test_buf),
        cmocka_unit_test(test_log_once),
        cmocka_unit_test(test_dialect_from_app),
        cmocka_unit_test(test_mkdir_p),
        cmocka_unit_test(test_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
