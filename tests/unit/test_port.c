/* Ports: URL dispatch and errors, the termios backend on a real pty, raw TCP,
 * the Telnet/RFC 2217 decoder, and the reset tables over a port without lines. */
#include <fcntl.h>
#include <netinet/in.h>
#include <pty.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/port_internal.h"
#include "adapters/port_internal.h" /* twice: the whole header is include-guarded */
#include "espbench/base/log.h"
#include "espbench/adapters/port.h"
#include "espbench/protocols/reset.h"

static void test_url_errors(void **state)
{
    (void)state;
    eb_port *p = NULL;
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_port_open(&p, "/dev/ttyNOSUCH9", 115200, &err), EB_EIO);
    assert_null(p);
    assert_string_equal(err.msg, "port /dev/ttyNOSUCH9: no such device; check the cable, or list ports with 'espbench ports'");
    assert_int_equal(eb_port_open(&p, "telnet://127.0.0.1:23", 115200, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "port telnet://127.0.0.1:23: unknown URL scheme; use a device path, rfc2217://HOST:PORT or socket://HOST:PORT");
    assert_int_equal(eb_port_open(&p, "socket://127.0.0.1", 115200, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "port socket://127.0.0.1: expected HOST:PORT");
    assert_int_equal(eb_port_open(&p, "rfc2217://127.0.0.1:x", 115200, &err), EB_ECONFIG);
    assert_int_equal(eb_port_open(&p, "/dev/null", 115200, &err), EB_EIO);
    assert_string_equal(err.msg, "port /dev/null: not a serial device (not a tty)");
    assert_int_equal(eb_port_open(&p, "", 115200, &err), EB_ECONFIG);
}

static void test_termios_on_pty(void **state)
{
    (void)state;
    int master, slave;
    char name[64];
    assert_int_equal(openpty(&master, &slave, name, NULL, NULL), 0);
    eb_port *p = NULL;
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_port_open(&p, name, 115200, &err), EB_OK);
    assert_string_equal(p->ops->name, "termios");
    assert_int_equal(p->usb_vid, 0);

    /* Host to board and back. */
    assert_int_equal(eb_port_write(p, "\xc0\x08\xc0", 3, eb_deadline_in(1000), &err), EB_OK);
    char buf[16];
    assert_int_equal(read(master, buf, sizeof buf), 3);
    assert_memory_equal(buf, "\xc0\x08\xc0", 3);
    assert_int_equal(write(master, "hello", 5), 5);
    assert_int_equal(eb_port_read(p, buf, sizeof buf, eb_deadline_in(1000), &err), 5);
    assert_memory_equal(buf, "hello", 5);
    /* Nothing to read: returns 0 at the deadline. */
    uint64_t t0 = eb_now_ms();
    assert_int_equal(eb_port_read(p, buf, sizeof buf, eb_deadline_in(50), &err), 0);
    assert_true(eb_now_ms() - t0 >= 40);

    /* The baud reaches the pty (the vboard reads it from the master side). */
    assert_int_equal(eb_port_set_baud(p, 921600, &err), EB_OK);
    struct termios t;
    assert_int_equal(tcgetattr(master, &t), 0);
    assert_int_equal(cfgetospeed(&t), B921600);
    assert_int_equal(eb_port_set_baud(p, 12345, &err), EB_ECONFIG);

    /* A pty has no modem lines. */
    assert_int_equal(eb_port_set_lines(p, true, false, &err), 1);
    assert_false(p->can_set_lines);

    /* A second opener finds it busy. */
    eb_port *q = NULL;
    assert_int_equal(eb_port_open(&q, name, 115200, &err), EB_EIO);
    char want[256];
    snprintf(want, sizeof want, "port %s is busy: another program holds it (a monitor, esptool or another espbench); close it and retry", name);
    assert_string_equal(err.msg, want);

    /* The board goes away: a read reports it instead of waiting. */
    close(master);
    assert_true(eb_port_read(p, buf, sizeof buf, eb_deadline_in(1000), &err) < 0);
    assert_non_null(strstr(err.msg, "device gone"));
    eb_port_close(p);
    close(slave);
}

static void test_socket_roundtrip_and_close(void **state)
{
    (void)state;
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(ls, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t al = sizeof a;
    getsockname(ls, (struct sockaddr *)&a, &al);
    listen(ls, 1);
    char url[64];
    snprintf(url, sizeof url, "socket://127.0.0.1:%u", ntohs(a.sin_port));
    eb_port *p = NULL;
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_port_open(&p, url, 115200, &err), EB_OK);
    int c = accept(ls, NULL, NULL);
    assert_true(c >= 0);
    assert_int_equal(eb_port_write(p, "\xff\x01", 2, eb_deadline_in(1000), &err), EB_OK);
    char buf[8];
    assert_int_equal(read(c, buf, sizeof buf), 2); /* raw: no Telnet escaping */
    assert_int_equal(eb_port_set_lines(p, true, true, &err), 1);
    assert_int_equal(eb_port_set_baud(p, 921600, &err), EB_OK);
    close(c);
    long n = eb_port_read(p, buf, sizeof buf, eb_deadline_in(1000), &err);
    assert_int_equal(n, -EB_EIO);
    char want[128];
    snprintf(want, sizeof want, "port %s: connection closed by the server", url);
    assert_string_equal(err.msg, want);
    eb_port_close(p);
    close(ls);
}

typedef struct {
    char log[256];
    size_t len;
} tn_log;

static void tn_negotiate(void *user, uint8_t verb, uint8_t opt)
{
    tn_log *l = user;
    l->len += (size_t)snprintf(l->log + l->len, sizeof l->log - l->len, "%s %u;",
                               verb == EB_TN_WILL ? "WILL" : verb == EB_TN_WONT ? "WONT" : verb == EB_TN_DO ? "DO" : "DONT", opt);
}

static void tn_subneg(void *user, const uint8_t *body, size_t len)
{
    tn_log *l = user;
    l->len += (size_t)snprintf(l->log + l->len, sizeof l->log - l->len, "SB");
    for (size_t i = 0; i < len; i++)
        l->len += (size_t)snprintf(l->log + l->len, sizeof l->log - l->len, " %02x", body[i]);
    l->len += (size_t)snprintf(l->log + l->len, sizeof l->log - l->len, ";");
}

static void test_telnet_decoder(void **state)
{
    (void)state;
    /* ser2net's greeting, then data with an escaped 0xFF, then a baud ack
     * whose value contains 0xFF (doubled) split across two reads. */
    static const uint8_t in1[] = {0xff, 0xfb, 0x03, 0xff, 0xfd, 0x2c, 'h', 'i', 0xff, 0xff, '!',
                                  0xff, 0xfa, 0x2c, 0x65, 0x00, 0x01};
    static const uint8_t in2[] = {0xff, 0xff, 0x00, 0xff, 0xf0, 0xc0};
    tn_log l = {0};
    eb_telnet_events ev = {tn_negotiate, tn_subneg, &l};
    eb_telnet_rx rx = {0};
    uint8_t out[64];
    size_t n = eb_telnet_decode(&rx, in1, sizeof in1, out, &ev);
    assert_int_equal(n, 4);
    assert_memory_equal(out, "hi\xff!", 4);
    n = eb_telnet_decode(&rx, in2, sizeof in2, out, &ev);
    assert_int_equal(n, 1);
    assert_int_equal(out[0], 0xc0);
    assert_string_equal(l.log, "WILL 3;DO 44;SB 2c 65 00 01 ff 00;");

    eb_buf b;
    eb_buf_init(&b);
    eb_telnet_escape(&b, (const uint8_t *)"\xc0\xff\x01", 3);
    assert_int_equal(b.len, 4);
    assert_memory_equal(b.data, "\xc0\xff\xff\x01", 4);
    eb_buf_free(&b);
}

static int log_count;
static char log_last[512];
static void count_log(void *user, int level, const char *msg)
{
    (void)user, (void)level;
    log_count++;
    snprintf(log_last, sizeof log_last, "%s", msg);
}

static void test_reset_tables(void **state)
{
    (void)state;
    assert_string_equal(eb_reset_before("default-reset", 0x303A, 0x1001)->name, "usb-reset");
    assert_string_equal(eb_reset_before("default-reset", 0x10C4, 0xEA60)->name, "tight");
    assert_string_equal(eb_reset_before(NULL, 0, 0)->name, "tight");
    assert_string_equal(eb_reset_before("classic", 0x303A, 0x1001)->name, "classic");
    assert_false(eb_reset_before("no-reset-no-sync", 0, 0)->syncs);
    assert_null(eb_reset_before("sideways", 0, 0));
    assert_string_equal(eb_reset_before("no_reset", 0, 0)->name, "no-reset"); /* esptool v4 spelling */
    assert_null(eb_reset_before("no-reset-", 0, 0));
    assert_string_equal(eb_reset_after(NULL, 0, 0)->name, "hard-reset");
    assert_null(eb_reset_after("soft", 0, 0));
    assert_string_equal(eb_port_usb_kind(0x303A, 0x1001), "Espressif USB-Serial/JTAG");
    assert_string_equal(eb_port_usb_kind(0x10C4, 0xEA60), "CP210x");
    assert_string_equal(eb_port_usb_kind(0x1A86, 0x7523), "CH340");
    assert_string_equal(eb_port_usb_kind(0x0403, 0x6001), "FTDI");
    assert_null(eb_port_usb_kind(0x1234, 0x5678));

    /* On a pty the lines cannot be set: said once, and the run carries on. */
    int master, slave;
    char name[64];
    assert_int_equal(openpty(&master, &slave, name, NULL, NULL), 0);
    eb_port *p = NULL;
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_port_open(&p, name, 115200, &err), EB_OK);
    eb_log_set_sink(count_log, NULL, EB_LOG_DEBUG);
    int before = log_count;
    assert_int_equal(eb_reset_run(p, eb_reset_before("classic", 0, 0), 0, &err), 1);
    assert_int_equal(eb_reset_run(p, eb_reset_after("hard-reset", 0, 0), 0, &err), 1);
    assert_int_equal(log_count - before, 1); /* the after step's explanation is the flash job's (own key) */
    char want[256];
    snprintf(want, sizeof want, "%s: cannot set DTR/RTS on this port, so the board was not reset into download mode (--before classic); put it into download mode by hand if it does not answer", name);
    assert_string_equal(log_last, want);
    eb_log_set_sink(NULL, NULL, EB_LOG_INFO);
    eb_port_close(p);
    close(master);
    close(slave);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url_errors),
        cmocka_unit_test(test_termios_on_pty),
        cmocka_unit_test(test_socket_roundtrip_and_close),
        cmocka_unit_test(test_telnet_decoder),
        cmocka_unit_test(test_reset_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
