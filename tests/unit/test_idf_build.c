/* Firmware builds per ESP-IDF: the cache key, the version header parser, the
 * probe of a checkout that is none, and the tree hash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/formats/sdkconfig.h"
#include "espbench/jobs/idf_build.h"

#define COMMIT "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define TREE "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

#define STATE "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
#define GCC "xtensa-esp-elf-gcc (crosstool-NG esp-13.2.0_20240530) 13.2.0"

/* The key is SHA-256 over a fixed text (computed independently with Python's hashlib). */
static void test_cache_key_golden_and_parts(void **state)
{
    (void)state;
    char k[65], o[65];
    const eb_idf_key_parts base = {.idf_commit = COMMIT, .idf_state = STATE, .toolchain = GCC, .chip = "esp32s3",
                                   .fw = EB_IDF_FW_ESPBENCH, .sdkconfig = "CONFIG_X=y\n", .firmware_hash = TREE};
    eb_idf_cache_key(&base, k);
    assert_string_equal(k, "a23410854d34dbad5f4c22bca60b7182ed032eabb434bf404874c6929e5e6400");
    eb_idf_cache_key(&base, o);
    assert_string_equal(k, o);
    /* Every part changes it: a dirty tree or a submodule (state), another compiler too. */
    eb_idf_key_parts p = base;
    p.idf_commit = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab";
    eb_idf_cache_key(&p, o);
    assert_string_not_equal(k, o);
    p = base, p.idf_state = "d";
    eb_idf_cache_key(&p, o);
    assert_string_not_equal(k, o);
    p = base, p.toolchain = "xtensa-esp-elf-gcc (crosstool-NG esp-14.2.0_20241119) 14.2.0";
    eb_idf_cache_key(&p, o);
    assert_string_not_equal(k, o);
    p = base, p.chip = "esp32";
    eb_idf_cache_key(&p, o);
    assert_string_not_equal(k, o);
    p = base, p.fw = EB_IDF_FW_IPERF_EXAMPLE;
    eb_idf_cache_key(&p, o);
    assert_string_not_equal(k, o);
    p = base, p.sdkconfig = "CONFIG_X=n\n";
    eb_idf_cache_key(&p, o);
    assert_string_not_equal(k, o);
    p = base, p.firmware_hash = "cbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    eb_idf_cache_key(&p, o);
    assert_string_not_equal(k, o);
    /* No sdkconfig is the empty text. */
    p = base, p.sdkconfig = NULL;
    eb_idf_cache_key(&p, k);
    p.sdkconfig = "";
    eb_idf_cache_key(&p, o);
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

/* PATH after another version's export: its IDF_PATH/tools, its Python
 * environment and the IDF_TOOLS_PATH tools go; the user's own stay. */
static void test_clean_path(void **state)
{
    (void)state;
    char out[1024];
    eb_idf_clean_path("/home/u/esp/v5.1/tools:/home/u/.espressif/tools/xtensa-esp-elf/esp-13.2.0/xtensa-esp-elf/bin:"
                      "/home/u/.espressif/python_env/idf5.1_py3.11_env/bin:/home/u/bin:/usr/bin:/home/u/esp/v5.10/x:"
                      "/home/u/.espressif/toolsX:/bin",
                      "/home/u/esp/v5.1", "/home/u/.espressif/python_env/idf5.1_py3.11_env", "/home/u/.espressif/", out,
                      sizeof out);
    assert_string_equal(out, "/home/u/bin:/usr/bin:/home/u/esp/v5.10/x:/home/u/.espressif/toolsX:/bin");
    eb_idf_clean_path("/usr/bin::/bin", NULL, NULL, NULL, out, sizeof out);
    assert_string_equal(out, "/usr/bin:/bin");
    eb_idf_clean_path("/a/tools", "/a", NULL, NULL, out, sizeof out);
    assert_string_equal(out, "");
    /* Every variable an export sets is in the list, IDF_TARGET too; the user's own are not. */
    const char *want[] = {"IDF_PATH", "IDF_PYTHON_ENV_PATH", "IDF_TARGET", "ESP_IDF_VERSION", "IDF_TOOLS_EXPORT_CMD",
                          "IDF_TOOLS_INSTALL_CMD", "OPENOCD_SCRIPTS", "ESP_ROM_ELF_DIR"};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        bool found = false;
        for (int i = 0; eb_idf_export_vars[i]; i++)
            found |= strcmp(eb_idf_export_vars[i], want[k]) == 0;
        assert_true(found);
    }
    for (int i = 0; eb_idf_export_vars[i]; i++) {
        assert_string_not_equal(eb_idf_export_vars[i], "IDF_TOOLS_PATH");
        assert_string_not_equal(eb_idf_export_vars[i], "HOME");
    }
}

/* The probe's output: export.sh (v5.4+) returned 0 after activate.py died;
 * the first ERROR: line is the cause, quoted as export printed it. */
static void test_env_parse(void **state)
{
    (void)state;
    eb_idf_env e;
    static const char missing[] =
        "\nERROR: ESP-IDF Python virtual environment \"/h/.espressif/python_env/idf5.4_py3.11_env/bin/python\" not "
        "found. Please run the install script to set it up before proceeding.\n"
        "espbench-env: export.sh did not set IDF_PATH to this checkout (IDF_PATH=unset)\n";
    eb_idf_env_parse(missing, strlen(missing), &e);
    assert_false(e.ok);
    assert_string_equal(e.problem, "export.sh did not set IDF_PATH to this checkout (IDF_PATH=unset)");
    assert_string_equal(e.export_error, "ERROR: ESP-IDF Python virtual environment "
                                        "\"/h/.espressif/python_env/idf5.4_py3.11_env/bin/python\" not found. Please "
                                        "run the install script to set it up before proceeding.");
    static const char other[] =
        "Activating ESP-IDF 5.4\nERROR: Python environment is set to /e which was generated for ESP-IDF 5.3 instead "
        "of the current 5.4. The issue can be solved by ...\n\nERROR: Activation script failed\n"
        "espbench-env: idf.py on PATH is /v53/tools/idf.py, not this checkout's\n";
    eb_idf_env_parse(other, strlen(other), &e);
    assert_false(e.ok);
    assert_string_equal(e.export_error, "ERROR: Python environment is set to /e which was generated for ESP-IDF 5.3 "
                                        "instead of the current 5.4. The issue can be solved by ...");
    static const char good[] = "Activating ESP-IDF 5.4\nDone!\n"
                               "espbench-cc: xtensa-esp-elf-gcc (crosstool-NG esp-13.2.0_20240530) 13.2.0\n";
    eb_idf_env_parse(good, strlen(good), &e);
    assert_true(e.ok);
    assert_string_equal(e.toolchain, "xtensa-esp-elf-gcc (crosstool-NG esp-13.2.0_20240530) 13.2.0");
    eb_idf_env_parse("", 0, &e);
    assert_false(e.ok);
    assert_string_equal(e.problem, "the environment check printed nothing");
}

/* The firmware stops at #error below v5.1.2 (firmware/main/fw_main.c); the
 * range is eb_idf_firmware_supported()'s, the message starts with who. */
static void test_version_check(void **state)
{
    (void)state;
    eb_error e;
    assert_int_equal(eb_idf_version_check("v5.1.2", "--idf x", &e), 0);
    assert_int_equal(eb_idf_version_check("v6.0.0", "--idf x", &e), 0);
    assert_int_equal(eb_idf_version_check("v5.1.0", "--good v5.1", &e), EB_ECONFIG);
    assert_string_equal(e.msg, "--good v5.1: ESP-IDF v5.1.0 is older than the firmware supports; the espbench "
                               "firmware is checked with v5.1.2 to v6.0.x (docs/firmware.md, \"Checking against "
                               "ESP-IDF\"): use a newer checkout");
    assert_int_equal(eb_idf_version_check("v4.4.7", "--idf /x", &e), EB_ECONFIG);
}

/* sdkconfig.json (kconfgen's --output json) into the build-time fields;
 * a tier's fields out as sdkconfig lines. */
static void test_sdkconfig_fields(void **state)
{
    (void)state;
    static const char json[] = "{\"LWIP_TCP_SND_BUF_DEFAULT\": 65534, \"LWIP_TCP_WND_DEFAULT\": 5760,\n"
                               " \"LWIP_TCP_RECVMBOX_SIZE\": 64, \"LWIP_UDP_RECVMBOX_SIZE\": 6,\n"
                               " \"ESP_WIFI_IRAM_OPT\": true, \"ESP_WIFI_RX_IRAM_OPT\": false,\n"
                               " \"ESP_WIFI_STATIC_RX_BUFFER_NUM\": 10, \"IDF_TARGET\": \"esp32s3\"}";
    eb_tier t;
    memset(&t, 0, sizeof t);
    t.set[EB_F_STATIC_RX] = true;
    t.value[EB_F_STATIC_RX] = 24;
    t.set[EB_F_TCPIP_MBOX] = true;
    eb_error e;
    assert_int_equal(eb_sdkconfig_json_build_fields(json, strlen(json), "sdkconfig.json", &t, &e), 6);
    assert_true(t.set[EB_F_TCP_SND_BUF_KB]);
    assert_int_equal(t.value[EB_F_TCP_SND_BUF_KB], 65);
    assert_false(t.set[EB_F_TCP_WND_KB]); /* 5760: Kconfig's default, the model's unset field */
    assert_int_equal(t.value[EB_F_TCP_MBOX], 64);
    assert_false(t.set[EB_F_UDP_MBOX]);   /* 6: the default */
    assert_false(t.set[EB_F_WIFI_IRAM_OPT]); /* y: the default */
    assert_true(t.set[EB_F_WIFI_RX_IRAM_OPT]);
    assert_int_equal(t.value[EB_F_WIFI_RX_IRAM_OPT], 0);
    assert_false(t.set[EB_F_TCPIP_MBOX]); /* absent: ESP-IDF's default, as built */
    assert_false(t.set[EB_F_LWIP_IRAM_OPT]);
    assert_int_equal(t.value[EB_F_STATIC_RX], 24); /* runtime: the tier's, not the build's */
    assert_true(eb_sdkconfig_reads(EB_F_TCP_WND_KB));
    assert_false(eb_sdkconfig_reads(EB_F_STATIC_RX));
    assert_false(eb_sdkconfig_reads(EB_F_ICACHE_KB));
    assert_true(eb_sdkconfig_same(EB_F_TCP_WND_KB, true, 64, true, 65)); /* both 65534 bytes */
    assert_false(eb_sdkconfig_same(EB_F_TCP_WND_KB, true, 32, true, 65));
    assert_true(eb_sdkconfig_same(EB_F_LWIP_IRAM_OPT, false, 0, true, 0)); /* unset is Kconfig's n */
    assert_false(eb_sdkconfig_same(EB_F_WIFI_IRAM_OPT, false, 0, true, 0)); /* Kconfig's default is y */
    assert_int_equal(eb_sdkconfig_json_build_fields("[1]", 3, "x.json", &t, &e), -1);
    /* The espbench image's usual build (a kconfgen sdkconfig.json): the same Kconfig values as built. */
    FILE *f = fopen(FIXTURES_DIR "/idf-build/sdkconfig/esp32s3-v5.3.json", "r");
    assert_non_null(f);
    char text[4096];
    size_t len = fread(text, 1, sizeof text, f);
    fclose(f);
    eb_tier u;
    memset(&u, 0, sizeof u);
    assert_int_equal(eb_sdkconfig_json_build_fields(text, len, "esp32s3-v5.3.json", &u, &e), 8);
    assert_true(eb_sdkconfig_same(EB_F_TCP_WND_KB, true, 64, u.set[EB_F_TCP_WND_KB], u.value[EB_F_TCP_WND_KB]));
    assert_true(u.set[EB_F_LWIP_IRAM_OPT] && u.value[EB_F_LWIP_IRAM_OPT] == 1);
    assert_false(u.set[EB_F_WIFI_IRAM_OPT]); /* y, Kconfig's default */
    assert_string_equal(e.msg, "x.json: not an sdkconfig.json (a JSON object of Kconfig options)");

    eb_tier r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "tx-prior");
    r.set[EB_F_STATIC_RX] = r.set[EB_F_RX_BA_WIN] = r.set[EB_F_TCP_WND_KB] = r.set[EB_F_LWIP_IRAM_OPT] = true;
    r.value[EB_F_STATIC_RX] = 6;
    r.value[EB_F_RX_BA_WIN] = 0;
    r.value[EB_F_TCP_WND_KB] = 65;
    r.value[EB_F_LWIP_IRAM_OPT] = 0;
    eb_chip c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "esp32");
    eb_buf b;
    eb_buf_init(&b);
    eb_sdkconfig_render_tier(&c, &r, &b);
    assert_string_equal(eb_buf_cstr(&b), "# espbench tier tx-prior of esp32 (rendered from the profiles)\n"
                                         "CONFIG_ESP_WIFI_STATIC_RX_BUFFER_NUM=6\n"
                                         "# CONFIG_ESP_WIFI_AMPDU_RX_ENABLED is not set\n"
                                         "CONFIG_LWIP_TCP_WND_DEFAULT=65534\n"
                                         "# CONFIG_LWIP_IRAM_OPTIMIZATION is not set\n");
    eb_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_key_golden_and_parts),
        cmocka_unit_test(test_version_header),
        cmocka_unit_test(test_probe_and_tree_hash),
        cmocka_unit_test(test_clean_path),
        cmocka_unit_test(test_env_parse),
        cmocka_unit_test(test_version_check),
        cmocka_unit_test(test_sdkconfig_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
