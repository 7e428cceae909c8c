/* The emulated ESP32-C3 (adapters/qemu_proc.c, jobs/qemu_board.c): the flash
 * file, a program that is missing or refuses its options, and with QEMU and
 * the chip's genuine ROM (../shared/tools/qemu-esp32c3, or $ESPBENCH_QEMU):
 * an image written through the ROM loader, the chip booted from its flash
 * without the strap (the ROM's boot lines on the UART), the same image
 * skipped as unchanged on a second start, QEMU gone after its stop.
 * Without QEMU the emulator's cases are skipped (exit 77), or fail with
 * ESPBENCH_REQUIRE_ALL=1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/adapters/qemu_proc.h"
#include "espbench/adapters/profile_dirs.h"
#include "espbench/base/clock.h"
#include "espbench/jobs/qemu_board.h"
#include "vb_mkimage.h"

static char tmpdir[64];
static char qemu[1024];

static void sh(const char *cmd)
{
    if (system(cmd) != 0)
        fail_msg("command failed: %s", cmd);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void test_flash_file_is_erased_and_kept(void **state)
{
    (void)state;
    char p[128];
    snprintf(p, sizeof p, "%s/f.bin", tmpdir);
    eb_error err = {0};
    assert_int_equal(eb_qemu_flash_file(p, 1u << 20, &err), 0);
    size_t n;
    unsigned char *b = slurp(p, &n);
    assert_int_equal(n, 1u << 20);
    for (size_t i = 0; i < n; i++)
        if (b[i] != 0xFF)
            fail_msg("byte %zu is 0x%02x, not erased", i, b[i]);
    /* A flash of the right size keeps what it holds: a re-flash can skip. */
    FILE *f = fopen(p, "r+b");
    fputc(0x42, f);
    fclose(f);
    assert_int_equal(eb_qemu_flash_file(p, 1u << 20, &err), 0);
    free(b);
    b = slurp(p, &n);
    assert_int_equal(b[0], 0x42);
    free(b);
    /* Of another size it is made again. */
    assert_int_equal(eb_qemu_flash_file(p, 2u << 20, &err), 0);
    b = slurp(p, &n);
    assert_int_equal(n, 2u << 20);
    assert_int_equal(b[0], 0xFF);
    free(b);
}

static void test_missing_program(void **state)
{
    (void)state;
    char flash[128];
    snprintf(flash, sizeof flash, "%s/m.bin", tmpdir);
    eb_qemu_opts o = {.program = "/nonexistent/qemu-system-riscv32", .flash = flash};
    eb_qemu *q = NULL;
    eb_error err = {0};
    assert_int_equal(eb_qemu_start(&q, &o, &err), EB_ECONFIG);
    assert_null(q);
    assert_string_equal(err.msg, "qemu: '/nonexistent/qemu-system-riscv32' not found or not executable; install "
                                 "Espressif's QEMU (idf_tools.py install qemu-riscv32), give --qemu-bin PATH or "
                                 "set ESPBENCH_QEMU (docs/emulator.md)");
    o.program = "no-such-qemu-here";
    assert_int_equal(eb_qemu_start(&q, &o, &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "'no-such-qemu-here' not found on PATH;"));
}

/* A QEMU that refuses its options says why in its last line: quoted. */
static void test_refusing_program_quoted(void **state)
{
    (void)state;
    char prog[128], log[128], flash[128], cmd[512];
    snprintf(prog, sizeof prog, "%s/fake-qemu", tmpdir);
    snprintf(log, sizeof log, "%s/fake.log", tmpdir);
    snprintf(flash, sizeof flash, "%s/r.bin", tmpdir);
    snprintf(cmd, sizeof cmd,
             "printf '#!/bin/sh\\necho \"$0: -M esp32c3: unsupported machine type\" >&2\\nexit 1\\n' > %s && "
             "chmod +x %s",
             prog, prog);
    sh(cmd);
    eb_qemu_opts o = {.program = prog, .flash = flash, .log = log};
    eb_qemu *q = NULL;
    eb_error err = {0};
    assert_int_equal(eb_qemu_start(&q, &o, &err), EB_ECONFIG);
    char want[600];
    snprintf(want, sizeof want, "qemu: '%s' ended before its UART listened: %s: -M esp32c3: unsupported machine type (%s)",
             prog, prog, log);
    assert_string_equal(err.msg, want);
}

/* Reads the UART for up to ms; returns what came. */
static size_t read_uart(const char *url, char *buf, size_t cap, int ms)
{
    unsigned port = 0;
    assert_int_equal(sscanf(url, "socket://127.0.0.1:%u", &port), 1);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    size_t n = 0;
    eb_deadline d = eb_deadline_in((uint64_t)ms);
    while (n < cap - 1 && !eb_deadline_passed(d)) {
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, eb_deadline_left_ms(d)) <= 0)
            continue;
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
        buf[n] = 0;
        if (strstr(buf, "invalid header"))
            break;
    }
    buf[n] = 0;
    close(fd);
    return n;
}

static bool gone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

static void test_flash_then_boot_then_skip(void **state)
{
    (void)state;
    if (!qemu[0])
        skip();
    char app[128], out[128];
    snprintf(app, sizeof app, "%s/app.bin", tmpdir);
    snprintf(out, sizeof out, "%s/board", tmpdir);
    char *mk[] = {"mkimage", "--chip", "esp32c3", "--project", "qemu-test", "--idf", "v6.0",
                  "--size", "24001", "-o", app, NULL};
    assert_int_equal(vb_mkimage_main(11, mk), 0);
    eb_profiles profiles;
    eb_error err = {0};
    const char *dirs[] = {SOURCE_DIR "/profiles"};
    assert_int_equal(eb_profiles_load(&profiles, dirs, 1, &err), 0);
    eb_image_set set = {0};
    char arg[160];
    snprintf(arg, sizeof arg, "%s@0x10000", app);
    assert_int_equal(eb_image_set_add_arg(&set, arg, &err), 0);

    eb_qemu_board_opts o = {.profiles = &profiles, .out_dir = out, .program = qemu, .images = &set};
    eb_qemu_board *b = NULL;
    if (eb_qemu_board_start(&b, &o, &err) != 0)
        fail_msg("%s", err.msg);
    int w, u;
    eb_qemu_board_flashed(b, &w, &u);
    assert_int_equal(w, 1);
    assert_int_equal(u, 0);
    assert_int_equal(strlen(eb_qemu_board_app_sha256(b)), 64);
    /* Booted from the flash, without the strap: no bootloader at 0x0, so the
     * genuine ROM says so on UART0, again and again. */
    char buf[4096];
    read_uart(eb_qemu_board_port(b), buf, sizeof buf, 30000);
    if (!strstr(buf, "invalid header"))
        fail_msg("no boot lines from the ROM on the UART: '%s'", buf);
    pid_t pid = eb_qemu_board_pid(b);
    eb_qemu_board_stop(b);
    assert_true(gone(pid));

    size_t n, an;
    char fp[160];
    snprintf(fp, sizeof fp, "%s/qemu-flash.bin", out);
    unsigned char *f = slurp(fp, &n);
    unsigned char *img = slurp(app, &an);
    assert_int_equal(n, EB_QEMU_FLASH_BYTES);
    assert_memory_equal(f + 0x10000, img, an);
    /* Nothing outside the sectors written: erased as it was made. */
    size_t end = 0x10000 + ((an + 4095) & ~(size_t)4095);
    for (size_t i = 0; i < n; i++)
        if ((i < 0x10000 || i >= end) && f[i] != 0xFF)
            fail_msg("byte 0x%zx changed outside the written sectors", i);
    free(f);

    /* The same image again: the flash job's MD5 finds it there. */
    assert_int_equal(eb_qemu_board_start(&b, &o, &err), 0);
    eb_qemu_board_flashed(b, &w, &u);
    assert_int_equal(w, 0);
    assert_int_equal(u, 1);

    /* Another firmware on the running board (run --qemu's tier images): the
     * unchanged region skipped, the new one written, QEMU started anew
     * (another pid, another UART) and the chip booted from its flash again. */
    char app2[128];
    snprintf(app2, sizeof app2, "%s/app2.bin", tmpdir);
    char *mk2[] = {"mkimage", "--chip", "esp32c3", "--project", "qemu-test-2", "--idf", "v6.0",
                   "--size", "9001", "-o", app2, NULL};
    assert_int_equal(vb_mkimage_main(11, mk2), 0);
    eb_image_set set2 = {0};
    assert_int_equal(eb_image_set_add_arg(&set2, arg, &err), 0);
    snprintf(arg, sizeof arg, "%s@0x30000", app2);
    assert_int_equal(eb_image_set_add_arg(&set2, arg, &err), 0);
    char port1[64];
    snprintf(port1, sizeof port1, "%s", eb_qemu_board_port(b));
    pid = eb_qemu_board_pid(b);
    if (eb_qemu_board_reflash(b, &set2, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(gone(pid));
    eb_qemu_board_flashed(b, &w, &u);
    assert_int_equal(w, 1);
    assert_int_equal(u, 1);
    assert_string_not_equal(eb_qemu_board_port(b), port1);
    read_uart(eb_qemu_board_port(b), buf, sizeof buf, 30000);
    if (!strstr(buf, "invalid header"))
        fail_msg("no boot lines after the reflash: '%s'", buf);
    /* A reset: QEMU restarted on the same flash, the chip boots again. */
    pid = eb_qemu_board_pid(b);
    if (eb_qemu_board_reboot(b, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(gone(pid));
    read_uart(eb_qemu_board_port(b), buf, sizeof buf, 30000);
    if (!strstr(buf, "invalid header"))
        fail_msg("no boot lines after the reset: '%s'", buf);
    pid = eb_qemu_board_pid(b);
    eb_qemu_board_stop(b);
    assert_true(gone(pid));
    size_t an2;
    f = slurp(fp, &n);
    unsigned char *img2 = slurp(app2, &an2);
    assert_memory_equal(f + 0x10000, img, an);
    assert_memory_equal(f + 0x30000, img2, an2);
    free(f);
    free(img2);
    eb_image_set_free(&set2);
    free(img);
    eb_image_set_free(&set);
    eb_profiles_free(&profiles);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/espbench-qemu-XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    const char *e = getenv("ESPBENCH_QEMU");
    snprintf(qemu, sizeof qemu, "%s", e && *e ? e : SOURCE_DIR "/../shared/tools/qemu-esp32c3/qemu-system-riscv32");
    if (access(qemu, X_OK) != 0) {
        if (getenv("ESPBENCH_REQUIRE_ALL") && !strcmp(getenv("ESPBENCH_REQUIRE_ALL"), "1")) {
            fprintf(stderr, "FAIL: no QEMU at %s, and ESPBENCH_REQUIRE_ALL=1 allows no skip\n", qemu);
            return 1;
        }
        qemu[0] = 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flash_file_is_erased_and_kept),
        cmocka_unit_test(test_missing_program),
        cmocka_unit_test(test_refusing_program_quoted),
        cmocka_unit_test(test_flash_then_boot_then_skip),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    if (!rc && !qemu[0]) {
        printf("SKIP: the emulator's cases: no QEMU (../shared/tools/qemu-esp32c3 or ESPBENCH_QEMU)\n");
        return 77;
    }
    return rc;
}
