/* Firmware builds per ESP-IDF: the cache key, the version header parser, the
 * probe of a checkout that is none, and the tree hash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/jobs/idf_build.h"

#define COMMIT "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define TREE "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/* The key is SHA-256 over a fixed text (computed independently with Python's hashlib). */
static void test_cache_key_golden_and_parts(void **state)
{
    (void)state;
    char k[65], o[65];
    eb_idf_cache_key(COMMIT, "esp32s3", EB_IDF_FW_ESPBENCH, "CONFIG_X=y\n", TREE, k);
    assert_string_equal(k, "01d8d18c3c922bd98842efa71ebebf6619f54c07b5a217f53450cf6c224724ee");
    eb_idf_cache_key(COMMIT, "esp32s3", EB_IDF_FW_ESPBENCH, "CONFIG_X=y\n", TREE, o);
    assert_string_equal(k, o);
    /* Every part changes it. */
    eb_idf_cache_key("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "esp32s3", EB_IDF_FW_ESPBENCH, "CONFIG_X=y\n", TREE, o);
    assert_string_not_equal(k, o);
    eb_idf_cache_key(COMMIT, "esp32", EB_IDF_FW_ESPBENCH, "CONFIG_X=y\n", TREE, o);
    assert_string_not_equal(k, o);
    eb_idf_cache_key(COMMIT, "esp32s3", EB_IDF_FW_IPERF_EXAMPLE, "CONFIG_X=y\n", TREE, o);
    assert_string_not_equal(k, o);
    eb_idf_cache_key(COMMIT, "esp32s3", EB_IDF_FW_ESPBENCH, "CONFIG_X=n\n", TREE, o);
    assert_string_not_equal(k, o);
    eb_idf_cache_key(COMMIT, "esp32s3", EB_IDF_FW_ESPBENCH, "CONFIG_X=y\n",
                     "cbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", o);
    assert_string_not_equal(k, o);
    /* No sdkconfig is the empty text. */
    eb_idf_cache_key(COMMIT, "esp32s3", EB_IDF_FW_ESPBENCH, NULL, TREE, k);
    eb_idf_cache_key(COMMIT, "esp32s3", EB_IDF_FW_ESPBENCH, "", TREE, o);
    assert_string_equal(k, o);
}

static const char header_v531[] =
    "/*\n * SPDX-FileCopyrightText: 2019-2024 Espressif Systems (Shanghai) CO LTD\n */\n#pragma once\n"
    "/** Major version number (X.x.x) */\n#define ESP_IDF_VERSION_MAJOR   5\n"
    "/** Minor version number (x.X.x) */\n#define ESP_IDF_VERSION_MINOR   3\n"
    "/** Patch version number (x.x.X) */\n#define ESP_IDF_VERSION_PATCH   1\n"
    "#define ESP_IDF_VERSION_VAL(major, minor, patch) ((major << 16) | (minor << 8) | (patch))\n";

static void test_version_header(void **state)
{
    (void)state;
    char v[64];
    eb_error e;
    assert_int_equal(eb_idf_version_parse(header_v531, strlen(header_v531), "h", v, sizeof v, &e), 0);
    assert_string_equal(v, "v5.3.1");
    static const char no_patch[] = "#define ESP_IDF_VERSION_MAJOR 5\n#define ESP_IDF_VERSION_MINOR 4\n"
                                   "#define ESP_IDF_VERSION_PATCHX 2\n";
    assert_int_equal(eb_idf_version_parse(no_patch, strlen(no_patch), "idf/esp_idf_version.h", v, sizeof v, &e),
                     EB_ECONFIG);
    assert_string_equal(e.msg, "idf/esp_idf_version.h: no '#define ESP_IDF_VERSION_PATCH N'; is this an ESP-IDF "
                               "checkout?");
    static const char not_number[] = "#define ESP_IDF_VERSION_MAJOR x\n";
    assert_int_equal(eb_idf_version_parse(not_number, strlen(not_number), "h", v, sizeof v, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "h: no '#define ESP_IDF_VERSION_MAJOR N'; is this an ESP-IDF checkout?");
    assert_int_equal(eb_idf_version_parse("", 0, "h", v, sizeof v, &e), EB_ECONFIG);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_probe_and_tree_hash(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_idf_build-XXXXXX";
    assert_non_null(mkdtemp(dir));
    eb_idf_checkout co;
    eb_error e;
    char msg[1200];
    assert_int_equal(eb_idf_probe(dir, &co, &e), EB_ECONFIG);
    snprintf(msg, sizeof msg, "--idf %s: no components/esp_common/include/esp_idf_version.h there: not an ESP-IDF "
             "checkout", dir);
    assert_string_equal(e.msg, msg);
    char p[512];
    snprintf(p, sizeof p, "%s/components", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/components/esp_common", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/components/esp_common/include", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/components/esp_common/include/esp_idf_version.h", dir);
    write_file(p, header_v531);
    assert_int_equal(eb_idf_probe(dir, &co, &e), 0);
    assert_string_equal(co.version, "v5.3.1");
    assert_string_equal(co.commit, ""); /* not a git checkout */

    char h1[65], h2[65], h3[65];
    assert_int_equal(eb_idf_tree_hash(dir, h1, &e), 0);
    /* What a build makes is not part of the sources. */
    snprintf(p, sizeof p, "%s/sdkconfig", dir);
    write_file(p, "CONFIG_BUILT=y\n");
    snprintf(p, sizeof p, "%s/build-esp32", dir);
    mkdir(p, 0755);
    assert_int_equal(eb_idf_tree_hash(dir, h2, &e), 0);
    assert_string_equal(h1, h2);
    snprintf(p, sizeof p, "%s/components/esp_common/include/esp_idf_version.h", dir);
    write_file(p, "changed");
    assert_int_equal(eb_idf_tree_hash(dir, h3, &e), 0);
    assert_string_not_equal(h1, h3);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);

    assert_int_equal(eb_idf_probe("/nonexistent/idf", &co, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "--idf /nonexistent/idf: No such file or directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_key_golden_and_parts),
        cmocka_unit_test(test_version_header),
        cmocka_unit_test(test_probe_and_tree_hash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
