/* Lab files: boards with their own iperf ports, the password from an
 * environment variable or a file (never from the file itself), and errors
 * with FILE:LINE:COL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/formats/lab.h"
#include "espbench/adapters/lab_file.h"

static int parse(eb_lab *lab, const char *text, eb_error *err)
{
    int rc = eb_lab_parse(lab, text, strlen(text), "lab.yaml", "/tmp", err);
    return rc ? rc : eb_lab_read_password(lab, err);
}

static void test_two_boards_password_from_env(void **state)
{
    (void)state;
    setenv("TEST_LAB_PASS", "p4ss word", 1);
    eb_lab lab;
    eb_error err = {0};
    int rc = parse(&lab,
                   "ap:\n  ssid: bench\n  password_env: TEST_LAB_PASS\n"
                   "pc:\n  address: 192.168.10.2\n"
                   "boards:\n"
                   "  - name: s3-a\n    chip: esp32s3\n    port: /dev/ttyUSB0\n"
                   "  - name: c3-b\n    chip: esp32c3\n    port: rfc2217://127.0.0.1:4001\n"
                   "    iperf_port: 5101\n    pc_address: 192.168.10.3\n    dialect: espbench\n",
                   &err);
    assert_int_equal(rc, 0);
    assert_string_equal(lab.ssid, "bench");
    assert_true(lab.has_password);
    assert_string_equal(lab.password, "p4ss word");
    assert_int_equal(lab.n_boards, 2);
    assert_string_equal(lab.boards[0].name, "s3-a");
    assert_int_equal(lab.boards[0].iperf_port, 5001);
    assert_string_equal(lab.boards[0].pc_ip, "192.168.10.2");
    assert_int_equal(lab.boards[1].iperf_port, 5101);
    assert_string_equal(lab.boards[1].pc_ip, "192.168.10.3");
    assert_string_equal(lab.boards[1].dialect, "espbench");
    eb_lab_free(&lab);
    assert_string_equal(lab.password, "");
}

static void test_password_in_file_is_refused(void **state)
{
    (void)state;
    eb_lab lab;
    eb_error err = {0};
    assert_int_equal(parse(&lab, "ap:\n  ssid: bench\n  password: hunter2\nboards: []\n", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "lab.yaml:3:3: a password is never written in the lab file: use "
                                 "password_env: VAR or password_file: FILE");
    assert_null(strstr(err.msg, "hunter2"));
}

static void test_password_file_relative_to_lab(void **state)
{
    (void)state;
    char dir[] = "/tmp/eblabXXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/wifi.secret", dir);
    FILE *f = fopen(path, "w");
    fputs("from-file\n", f);
    fclose(f);
    const char *text = "ap:\n  ssid: x\n  password_file: wifi.secret\nboards:\n  - {name: a, chip: esp32, port: /dev/null}\n";
    eb_lab lab;
    eb_error err = {0};
    assert_int_equal(eb_lab_parse(&lab, text, strlen(text), "lab.yaml", dir, &err), 0);
    assert_false(lab.has_password); /* the parser reads nothing */
    assert_int_equal(eb_lab_read_password(&lab, &err), 0);
    assert_string_equal(lab.password, "from-file");
    eb_lab_free(&lab);
    unlink(path);
    rmdir(dir);
}

static void test_errors_point_at_the_line(void **state)
{
    (void)state;
    eb_lab lab;
    eb_error err = {0};
    unsetenv("TEST_LAB_UNSET");
    assert_int_equal(parse(&lab, "ap:\n  ssid: x\n  password_env: TEST_LAB_UNSET\nboards: [{name: a, chip: esp32}]\n",
                           &err), EB_ECONFIG);
    assert_string_equal(err.msg, "lab.yaml:3:17: the Wi-Fi password is read from the environment variable "
                                 "TEST_LAB_UNSET, which is not set");
    assert_int_equal(parse(&lab, "boards:\n  - name: a\n    chip: esp32\n  - name: b\n    chip: esp32\n"
                                 "    iperf_port: 5001\n", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "lab.yaml:4:5: boards 'a' and 'b' share iperf_port 5001: each board needs its own");
    assert_int_equal(parse(&lab, "boards:\n  - chip: esp32\n", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "lab.yaml:2:5: board 1 has no name");
    assert_int_equal(parse(&lab, "boards:\n  - name: a\n    chip: esp32\n    iperf_port: 70000\n", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "lab.yaml:4:17: 'iperf_port' must be a port number 1..65535, not '70000'");
    assert_int_equal(parse(&lab, "boards:\n  - name: a\n    chip: esp32\n    colour: red\n", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "lab.yaml:4:5: unknown key 'colour' in a board (name, chip, port, iperf_port, "
                                 "pc_address, dialect, coprocessor, transport, coprocessor_port, peer, far_end)");
    assert_int_equal(parse(&lab, "boards: [\n", &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "lab.yaml:2:1: "));
}

/* A board's peer (board to board): its fields, the defaults, and the errors. */
static void test_peer_mapping(void **state)
{
    (void)state;
    eb_lab lab;
    eb_error err = {0};
    assert_int_equal(parse(&lab, "boards:\n  - name: a\n    chip: esp32s3\n    port: /dev/ttyUSB0\n    peer:\n"
                                 "      port: /dev/ttyUSB1\n      tier: default\n", &err), 0);
    assert_string_equal(lab.boards[0].peer.port, "/dev/ttyUSB1");
    assert_string_equal(lab.boards[0].peer.chip, "esp32s3"); /* default: the board's chip */
    assert_string_equal(lab.boards[0].peer.tier, "default");
    assert_string_equal(lab.boards[0].peer.name, "");        /* named "a-peer" when the run resolves */
    eb_lab_free(&lab);
    /* peer: before chip: the default is still the board's chip */
    assert_int_equal(parse(&lab, "boards:\n  - name: a\n    peer: {chip: esp32c3, name: c3}\n    chip: esp32\n",
                           &err), 0);
    assert_string_equal(lab.boards[0].peer.chip, "esp32c3");
    assert_string_equal(lab.boards[0].peer.name, "c3");
    eb_lab_free(&lab);
    assert_int_equal(parse(&lab, "boards:\n  - name: a\n    chip: esp32\n    peer: /dev/ttyUSB1\n", &err),
                     EB_ECONFIG);
    assert_string_equal(err.msg, "lab.yaml:4:11: 'peer' must be a mapping (port, chip, tier, name, dialect)");
    assert_int_equal(parse(&lab, "boards:\n  - name: a\n    chip: esp32\n    peer:\n      speed: 9\n", &err),
                     EB_ECONFIG);
    assert_string_equal(err.msg, "lab.yaml:5:7: unknown key 'peer.speed' (port, chip, tier, name, dialect)");
    assert_int_equal(parse(&lab, "boards:\n  - name: a\n    chip: esp32\n    port: /dev/ttyUSB0\n"
                                 "  - name: b\n    chip: esp32\n    port: /dev/ttyUSB1\n"
                                 "    peer: {port: /dev/ttyUSB0}\n", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "lab.yaml:8:11: the peer's port /dev/ttyUSB0 is board 'a': a peer is a board of "
                                 "its own, not one of the lab's boards");
}

/* An ESP-Hosted pair: coprocessor:, transport:, coprocessor_port:, and
 * where coprocessor: stands (for the run's messages about the pair). */
static void test_hosted_keys(void **state)
{
    (void)state;
    eb_lab lab;
    eb_error err = {0};
    assert_int_equal(parse(&lab, "boards:\n  - name: p4\n    chip: esp32p4\n    coprocessor: esp32c6\n"
                                 "    transport: sdio\n    coprocessor_port: /dev/ttyUSB3\n  - name: s3\n"
                                 "    chip: esp32s3\n", &err), 0);
    assert_string_equal(lab.boards[0].coprocessor, "esp32c6");
    assert_string_equal(lab.boards[0].transport, "sdio");
    assert_string_equal(lab.boards[0].coprocessor_port, "/dev/ttyUSB3");
    assert_string_equal(lab.boards[0].hosted_at, "lab.yaml:4:18");
    assert_null(lab.boards[0].hosted); /* the pair itself is the run's to resolve */
    assert_string_equal(lab.boards[1].coprocessor, "");
    assert_string_equal(lab.boards[1].hosted_at, "");
    eb_lab_free(&lab);
    assert_int_equal(parse(&lab, "boards:\n  - name: p4\n    chip: esp32p4\n    coprocessor_port: /dev/ttyUSB3\n",
                           &err), EB_ECONFIG);
    assert_string_equal(err.msg, "lab.yaml:4:5: board 'p4': coprocessor_port belongs to an ESP-Hosted pair: add "
                                 "coprocessor: CHIP");
}

static void test_fixture_lab_file_loads(void **state)
{
    (void)state;
    setenv("ESPBENCH_WIFI_PASSWORD", "x", 1);
    eb_lab lab;
    eb_error err = {0};
    assert_int_equal(eb_lab_load(&lab, FIXTURES_DIR "/lab/two-sims.yaml", &err), 0);
    assert_int_equal(lab.n_boards, 2);
    assert_string_equal(lab.boards[1].chip, "esp32s3");
    eb_lab_free(&lab);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_boards_password_from_env),
        cmocka_unit_test(test_password_in_file_is_refused),
        cmocka_unit_test(test_password_file_relative_to_lab),
        cmocka_unit_test(test_errors_point_at_the_line),
        cmocka_unit_test(test_peer_mapping),
        cmocka_unit_test(test_hosted_keys),
        cmocka_unit_test(test_fixture_lab_file_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
