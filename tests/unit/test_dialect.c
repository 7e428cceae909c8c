/* The console dialect table from YAML: the compiled-in rows carry the facts
 * of the former C table, a directory adds a row without C (the host driver
 * and the release lookup see it), and every bad row is refused with the
 * exact "file:line:col: message", adding nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/base/buf.h"
#include "espbench/protocols/console_driver.h"
#include "espbench/formats/dialect.h"
#include "espbench/base/fs.h"
#include "espbench/adapters/dialect_files.h"

#define DIALECTS FIXTURES_DIR "/dialects/"
#define NEWDIALECT FIXTURES_DIR "/profiles/newdialect/dialects"

/* The rows as the C table had them (verified there against the sources). */
static const struct {
    int id;
    const char *name;
    double mbit;
    int from, to;
    const char *prompt0, *prompt1, *connect, *scan, *abort_cmd, *bw;
    bool bw_int;
    unsigned short echo;
} builtin[] = {
    {EB_DIALECT_IDF_LEGACY, "idf-legacy", 1e6, 0, 403, "esp32> ", "iperf> ", "sta", "scan", "iperf -a", NULL, true, 0},
    {EB_DIALECT_ESP8266, "esp8266", 1e6, 0, 0, "iperf> ", NULL, "sta", "scan", "iperf -a", NULL, true, 0},
    {EB_DIALECT_IDF_V44, "idf-v4.4", 1e6, 404, 500, "iperf> ", NULL, "sta", "scan", "iperf -a", "-b %d", true, 0},
    {EB_DIALECT_IDF_V51, "idf-v5.1", 1048576.0, 501, 502, "iperf> ", NULL, "sta", "scan", "iperf -a", "-b %d", true,
     0},
    {EB_DIALECT_IPERF_CMD_01, "iperf-cmd-0.1", 1048576.0, 503, 600, "iperf> ", NULL, "sta_connect", "sta_scan",
     "iperf --abort", "-b %d", true, 0},
    {EB_DIALECT_IPERF_CMD_10, "iperf-cmd-1.0", 1e6, 601, 99999, "iperf> ", NULL, "sta_connect", "sta_scan",
     "iperf --abort", "-b %gm", false, 0},
    {EB_DIALECT_ESPBENCH, "espbench", 1e6, 0, 0, "espbench> ", NULL, "sta_connect", "sta_scan", "iperf --abort",
     "-b %gm", false, 5007},
};

static void test_builtin_rows_are_the_yaml_files(void **state)
{
    (void)state;
    eb_error err = {0};
    assert_int_equal(eb_dialects_builtin_status(&err), 0);
    assert_int_equal(eb_dialect_count(), EB_DIALECT_COUNT);
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++) {
        const eb_dialect_desc *d = eb_dialect_desc_get(builtin[i].id);
        assert_non_null(d);
        assert_int_equal(d->dialect, builtin[i].id);
        assert_int_equal(d->grammar, builtin[i].id);
        assert_string_equal(d->name, builtin[i].name);
        assert_true(d->mbit_base == builtin[i].mbit);
        assert_int_equal(d->idf_from, builtin[i].from);
        assert_int_equal(d->idf_to, builtin[i].to);
        assert_string_equal(d->prompts[0], builtin[i].prompt0);
        if (builtin[i].prompt1)
            assert_string_equal(d->prompts[1], builtin[i].prompt1);
        assert_null(d->prompts[builtin[i].prompt1 ? 2 : 1]);
        assert_string_equal(d->connect_cmd, builtin[i].connect);
        assert_string_equal(d->scan_cmd, builtin[i].scan);
        assert_string_equal(d->abort_cmd, builtin[i].abort_cmd);
        if (builtin[i].bw)
            assert_string_equal(d->bw_fmt, builtin[i].bw);
        else
            assert_null(d->bw_fmt);
        assert_int_equal(d->bw_integer, builtin[i].bw_int);
        assert_int_equal(d->udp_echo_port, builtin[i].echo);
        char file[64];
        snprintf(file, sizeof file, "dialects/%s.yaml", builtin[i].name);
        assert_string_equal(d->file, file);
        assert_int_equal(eb_dialect_from_name(builtin[i].name), builtin[i].id);
    }
    assert_null(eb_dialect_desc_get(EB_DIALECT_COUNT));
    assert_string_equal(eb_dialect_name(EB_DIALECT_UNKNOWN), "unknown");
}

static void test_release_picks_builtin(void **state)
{
    (void)state;
    static const struct {
        const char *idf;
        int want;
    } cases[] = {
        {"v3.3.1", EB_DIALECT_IDF_LEGACY}, {"v4.3", EB_DIALECT_IDF_LEGACY},      {"v4.4.7", EB_DIALECT_IDF_V44},
        {"5.0", EB_DIALECT_IDF_V44},       {"v5.1", EB_DIALECT_IDF_V51},         {"v5.2.1", EB_DIALECT_IDF_V51},
        {"v5.3", EB_DIALECT_IPERF_CMD_01}, {"v6.0-dev", EB_DIALECT_IPERF_CMD_01}, {"v6.1", EB_DIALECT_IPERF_CMD_10},
        {"v6.2", EB_DIALECT_IPERF_CMD_10}, {"v99.9", EB_DIALECT_IPERF_CMD_10},   {"abc", EB_DIALECT_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(eb_dialect_from_app("iperf", cases[i].idf, "esp32"), cases[i].want);
    assert_int_equal(eb_dialect_from_app("espbench", "v5.3", "esp32"), EB_DIALECT_ESPBENCH);
    assert_int_equal(eb_dialect_from_app("iperf", "v3.4", "esp8266"), EB_DIALECT_ESP8266);
}

/* A row from test data: its own prompt and Wi-Fi commands, the rest from
 * its base; the narrowest release range wins over iperf-cmd-1.0's open one. */
static void test_directory_adds_a_dialect(void **state)
{
    (void)state;
    eb_error err = {0};
    const char *dirs[] = {NEWDIALECT};
    assert_int_equal(eb_dialects_load_dirs(dirs, 1, &err), 0);
    int id = eb_dialect_from_name("idf-v6.2");
    assert_int_equal(id, EB_DIALECT_COUNT);
    assert_int_equal(eb_dialect_count(), EB_DIALECT_COUNT + 1);
    const eb_dialect_desc *d = eb_dialect_desc_get(id);
    assert_int_equal(d->grammar, EB_DIALECT_IPERF_CMD_10);
    assert_string_equal(d->prompts[0], "wifi> ");
    assert_null(d->prompts[1]);
    assert_string_equal(d->connect_cmd, "wifi_join");
    assert_string_equal(d->scan_cmd, "wifi_scan");
    assert_string_equal(d->abort_cmd, "iperf --abort");  /* inherited */
    assert_string_equal(d->bw_fmt, "-b %gm");
    assert_false(d->bw_integer);
    assert_true(d->mbit_base == 1e6);
    assert_int_equal(d->idf_from, 602);
    assert_int_equal(d->idf_to, 602);
    assert_string_equal(d->file, NEWDIALECT "/idf-v6.2.yaml");

    assert_int_equal(eb_dialect_from_app("iperf", "v6.2.1", "esp32c6"), id);
    assert_int_equal(eb_dialect_from_app("iperf", "v6.1", "esp32c6"), EB_DIALECT_IPERF_CMD_10);
    assert_int_equal(eb_dialect_from_app("iperf", "v6.3", "esp32c6"), EB_DIALECT_IPERF_CMD_10);

    /* The host's stock driver is made from the row. */
    const eb_console_driver *drv = eb_console_driver_by_name("idf-v6.2");
    assert_non_null(drv);
    assert_int_equal(drv->dialect, id);
    assert_string_equal(drv->name, "idf-v6.2");
    assert_string_equal(drv->prompts[0], "wifi> ");
    assert_false(drv->runtime_tiers);

    /* A console that does not know the dialect yet listens for its prompt. */
    const char *prompts[8];
    int n = eb_dialect_prompts(prompts, 8);
    bool seen = false;
    for (int i = 0; i < n; i++)
        seen = seen || !strcmp(prompts[i], "wifi> ");
    assert_true(seen);
    assert_null(prompts[n]);

    /* Loading it again changes nothing. */
    assert_int_equal(eb_dialects_load_dirs(dirs, 1, &err), 0);
    assert_int_equal(eb_dialect_count(), EB_DIALECT_COUNT + 1);
    assert_ptr_equal(eb_dialect_desc_get(id), d);
}

static void check_file(const char *file, const char *msg)
{
    char path[512], want[1024];
    snprintf(path, sizeof path, DIALECTS "bad/%s", file);
    snprintf(want, sizeof want, "%s:%s", path, msg);
    eb_buf text;
    eb_buf_init(&text);
    eb_error err = {0};
    assert_int_equal(eb_file_read(path, 1 << 20, NULL, &text, &err), 0);
    int before = eb_dialect_count();
    int rc = eb_dialect_check_buffer(text.data ? (const char *)text.data : "", text.len, path, &err);
    eb_buf_free(&text);
    if (rc != EB_ECONFIG || strcmp(err.msg, want) != 0)
        fail_msg("%s:\n  got  (%d) %s\n  want %s", file, rc, err.msg, want);
    assert_int_equal(eb_dialect_count(), before);
}

static void test_each_bad_row(void **state)
{
    (void)state;
    static const struct {
        const char *file, *msg;
    } cases[] = {
        {"unknown_key.yaml",
         "6:3: unknown key 'colour' in dialect (allowed: name, base, grammar, idf_from, idf_to, mbit_base, prompts, "
         "connect, scan, abort, bandwidth, udp_echo_port, time_max, interval_max)"},
        {"no_grammar.yaml",
         "4:3: dialect 'idf-v6.2' needs 'grammar' (or a base that has one): the built-in stock dialect whose lines it "
         "prints, one of idf-legacy, esp8266, idf-v4.4, idf-v5.1, iperf-cmd-0.1, iperf-cmd-1.0"},
        {"espbench_grammar.yaml",
         "5:12: unknown grammar 'espbench': the built-in stock dialect whose lines it prints, one of idf-legacy, "
         "esp8266, idf-v4.4, idf-v5.1, iperf-cmd-0.1, iperf-cmd-1.0"},
        {"unknown_base.yaml",
         "5:9: dialect 'idf-v6.2' has unknown base 'iperf-cmd-2.0' (a dialect loaded before or with it, such as "
         "iperf-cmd-1.0)"},
        {"bandwidth.yaml",
         "6:14: 'bandwidth' = '-b %s': the -b option with one %d (whole Mbit/s) or %g (decimal Mbit/s), such as "
         "\"-b %d\", or null when the firmware has none"},
        {"idf_word.yaml", "6:13: expected an ESP-IDF release such as 6.2 for 'idf_from', got 'six'"},
        {"idf_order.yaml", "7:11: idf_to 6.2 is before idf_from 6.3"},
        {"idf_half.yaml",
         "6:13: 'idf_from' without 'idf_to': give both (the releases whose example speaks it) or neither"},
        {"missing_key.yaml", "4:3: dialect 'idf-v6.2' is missing the required key 'connect'"},
        {"prompts_scalar.yaml",
         "6:12: expected a list of prompts for 'prompts', such as [\"iperf> \"], got a value"},
        {"syntax.yaml",
         "6:3: YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence (line 5)"},
        {"mbit.yaml",
         "6:14: 'mbit_base' is the bits in the firmware's \"Mbits\": 1000000 or 1048576 (2^20), got '1024'"},
        {"command_blank.yaml",
         "6:12: 'connect' = 'wifi join': only printable ASCII without blanks, as the console types it"},
        {"duplicate_key.yaml", "7:3: duplicate key 'scan' in dialect (first at line 6)"},
        {"echo_port.yaml", "6:18: expected a UDP port 0..65535 for 'udp_echo_port' (0: none), got '70000'"},
        {"top_key.yaml", "3:1: unknown key 'chip' at the top of a dialect file (allowed: dialect)"},
        {"builtin_grammar.yaml", "6:12: dialect 'idf-v5.1' is a built-in grammar itself; drop 'grammar'"},
        {"name_chars.yaml", "4:9: 'name' = 'idf v6.2,beta': only printable ASCII without blanks, as the console "
                            "types it"},
        {"alias.yaml", "3:10: YAML anchors (&name) are not accepted here; write the value out"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_file(cases[i].file, cases[i].msg);
}

static void check_dir(const char *dir, const char *file, const char *msg)
{
    char path[512], want[1024];
    snprintf(path, sizeof path, DIALECTS "%s", dir);
    snprintf(want, sizeof want, "%s/%s:%s", path, file, msg);
    const char *dirs[] = {path};
    eb_error err = {0};
    int before = eb_dialect_count();
    int rc = eb_dialects_load_dirs(dirs, 1, &err);
    if (rc != EB_ECONFIG || strcmp(err.msg, want) != 0)
        fail_msg("%s:\n  got  (%d) %s\n  want %s", dir, rc, err.msg, want);
    assert_int_equal(eb_dialect_count(), before);
}

static void test_bad_directories_add_nothing(void **state)
{
    (void)state;
    check_dir("cycle", "a.yaml", "4:9: inheritance cycle: dialect 'idf-v6.2' is its own base through 'idf-v6.3'");
    check_dir("dup", "b.yaml", "3:9: duplicate dialect 'idf-v6.2' (also in " DIALECTS "dup/a.yaml)");
    /* a.yaml is good, b.yaml is not: a.yaml's row is not added either */
    check_dir("mixed", "b.yaml",
              "5:13: 'idf_from' without 'idf_to': give both (the releases whose example speaks it) or neither");
    assert_int_equal(eb_dialect_from_name("idf-v7.0"), EB_DIALECT_UNKNOWN);
    eb_error err = {0};
    const char *missing[] = {DIALECTS "nosuch"};
    assert_int_equal(eb_dialects_load_dirs(missing, 1, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "dialects directory '" DIALECTS "nosuch': No such file or directory");
}

/* A directory's row of a shipped name replaces it in place: same id, its
 * own grammar; the old row stays valid for whoever holds it. */
static void test_directory_replaces_a_shipped_row(void **state)
{
    (void)state;
    const eb_dialect_desc *old = eb_dialect_desc_get(EB_DIALECT_IPERF_CMD_01);
    int count = eb_dialect_count();
    eb_error err = {0};
    const char *dirs[] = {DIALECTS "replace"};
    assert_int_equal(eb_dialects_load_dirs(dirs, 1, &err), 0);
    assert_int_equal(eb_dialect_count(), count);
    const eb_dialect_desc *d = eb_dialect_desc_get(EB_DIALECT_IPERF_CMD_01);
    assert_ptr_not_equal(d, old);
    assert_int_equal(d->grammar, EB_DIALECT_IPERF_CMD_01);
    assert_string_equal(d->scan_cmd, "wifi_scan");
    assert_string_equal(d->connect_cmd, "sta_connect");
    assert_true(d->mbit_base == 1048576.0);
    assert_int_equal(eb_dialect_from_app("iperf", "v5.4", "esp32"), EB_DIALECT_IPERF_CMD_01);
    assert_string_equal(old->scan_cmd, "sta_scan");
    /* the host driver follows the new row */
    const eb_console_driver *drv = eb_console_driver_get(EB_DIALECT_IPERF_CMD_01);
    assert_non_null(drv);
    assert_string_equal(drv->name, "iperf-cmd-0.1");
    assert_ptr_equal(drv->prompts, d->prompts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_rows_are_the_yaml_files),
        cmocka_unit_test(test_release_picks_builtin),
        cmocka_unit_test(test_each_bad_row),
        cmocka_unit_test(test_bad_directories_add_nothing),
        cmocka_unit_test(test_directory_adds_a_dialect),
        cmocka_unit_test(test_directory_replaces_a_shipped_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
