/* The board's pty: link, raw data through, termios speed tracking, CHANGE_BAUDRATE
 * ordering, dropped output without a host. No timing assertions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include "espbench/base/clock.h"
#include "vb_pty.h"

static size_t read_for(int fd, uint8_t *buf, size_t cap, int ms)
{
    size_t got = 0;
    uint64_t end = eb_now_ms() + (uint64_t)ms;
    while (got < cap && eb_now_ms() < end) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 20) > 0) {
            ssize_t r = read(fd, buf + got, cap - got);
            if (r > 0)
                got += (size_t)r;
        }
    }
    return got;
}

static void set_speed(int fd, speed_t s)
{
    struct termios t;
    assert_int_equal(tcgetattr(fd, &t), 0);
    cfsetispeed(&t, s);
    cfsetospeed(&t, s);
    assert_int_equal(tcsetattr(fd, TCSANOW, &t), 0);
}

static void test_link_data_and_speed(void **state)
{
    (void)state;
    char link[64];
    snprintf(link, sizeof link, "/tmp/vb-pty-test-%d", (int)getpid());
    vb_pty *p;
    eb_error e;
    assert_int_equal(vb_pty_open(&p, link, true, 115200, &e), 0);
    char target[128] = {0};
    assert_true(readlink(link, target, sizeof target - 1) > 0);
    assert_string_equal(target, vb_pty_slave_path(p));
    assert_false(vb_pty_host_present(p));

    int fd = open(link, O_RDWR | O_NOCTTY);
    assert_true(fd >= 0);
    assert_true(vb_pty_host_present(p));
    /* raw mode: every byte value goes through unchanged */
    uint8_t out[256], in[256];
    for (int i = 0; i < 256; i++)
        out[i] = (uint8_t)i;
    vb_pty_write(p, out, sizeof out);
    assert_int_equal(read_for(fd, in, sizeof in, 3000), sizeof in);
    assert_memory_equal(in, out, sizeof out);
    assert_true(vb_pty_drain(p, 1000));
    assert_int_equal(vb_pty_bytes_sent(p), 256);

    /* a termios change alone does not move the board's UART: until the
     * speeds match again the host reads noise and sends noise (issue 12, 7a) */
    assert_int_equal(vb_pty_baud(p), 115200);
    set_speed(fd, B921600);
    assert_int_equal(vb_pty_host_baud(p), 921600);
    assert_int_equal(vb_pty_baud(p), 115200);
    assert_true(vb_pty_baud_mismatch(p));
    vb_pty_write(p, out, 16);
    assert_int_equal(read_for(fd, in, 128, 3000), 128); /* 16 bytes at 1/8 the speed: 128 byte times */
    assert_true(memchr(in, 0xC0, 128) == NULL);
    assert_true(memcmp(in, out, 16) != 0);
    assert_true(vb_pty_drain(p, 1000));
    uint8_t noise[64];
    assert_int_equal(vb_pty_rx_garble(p, out, 64, noise, sizeof noise), 8); /* 64 fast bytes, 8 slow ones */
    /* CHANGE_BAUDRATE: applies once queued output has gone; then they match */
    vb_pty_write(p, out, 8);
    vb_pty_set_baud_after_queued(p, 921600);
    assert_true(vb_pty_drain(p, 1000));
    assert_int_equal(vb_pty_baud(p), 921600);
    assert_false(vb_pty_baud_mismatch(p));
    assert_int_equal(read_for(fd, in, 64, 3000), 64); /* the noise of the 8 bytes sent at 115200 */
    assert_int_equal(vb_pty_rx_garble(p, out, 64, noise, sizeof noise), 0);
    vb_pty_write(p, out, 64);
    assert_int_equal(read_for(fd, in, 64, 3000), 64);
    assert_memory_equal(in, out, 64);
    /* --forgiving: the board follows every termios change */
    vb_pty_follow_host(p, true);
    set_speed(fd, B460800);
    assert_int_equal(vb_pty_baud(p), 460800);
    vb_pty_set_baud(p, 115200);
    assert_int_equal(vb_pty_baud(p), 115200);
    set_speed(fd, B115200);

    /* host input reaches the master */
    assert_int_equal(write(fd, "hi", 2), 2);
    uint8_t two[2];
    assert_int_equal(read_for(vb_pty_master_fd(p), two, 2, 3000), 2);
    assert_memory_equal(two, "hi", 2);

    /* without a host, output is dropped, not delivered on the next open */
    close(fd);
    assert_false(vb_pty_host_present(p));
    vb_pty_write(p, "lost", 4);
    assert_true(vb_pty_drain(p, 1000));
    fd = open(link, O_RDWR | O_NOCTTY);
    assert_true(fd >= 0);
    assert_int_equal(read_for(fd, in, sizeof in, 200), 0);
    close(fd);
    vb_pty_close(p);
    assert_int_equal(access(link, F_OK), -1); /* link removed */
}

static void test_link_refuses_regular_file(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/vb-pty-file-%d", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    vb_pty *p;
    eb_error e;
    assert_int_equal(vb_pty_open(&p, path, false, 115200, &e), EB_ECONFIG);
    char want[160];
    snprintf(want, sizeof want, "--link %s: exists and is not a symlink (choose another path)", path);
    assert_string_equal(e.msg, want);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link_data_and_speed),
        cmocka_unit_test(test_link_refuses_regular_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
