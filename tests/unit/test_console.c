/* Console session over a scripted fake port: ANSI stripping, partial lines,
 * prompts (alone and glued to log lines), echo dropping, reboots noticed from
 * the boot log, deadlines, a vanished port, Ctrl-C, and password redaction. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/protocols/console.h"
#include "fake_port.h"

typedef struct fixture {
    fake_port fp;
    eb_console *c;
    char line[EB_CONSOLE_LINE_MAX];
    eb_error err;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    fake_init(&f->fp);
    eb_console_open(&f->c, &f->fp.port, &f->err);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    eb_console_free(f->c);
    fake_free(&f->fp);
    free(f);
    return 0;
}

static int next(fixture *f, int ms) { return eb_console_next(f->c, f->line, sizeof f->line, eb_deadline_in((uint64_t)ms), &f->err); }

static void test_strip_ansi_cr_nul(void **state)
{
    (void)state;
    char s[] = "\x1b[0;32mI (12) wifi: ok\x1b[0m\r";
    size_t n = eb_console_strip(s, strlen(s));
    s[n] = 0;
    assert_string_equal(s, "I (12) wifi: ok");
    /* v5.1 prints a NUL unit character before "bits/sec". */
    char t[] = "0-1 sec 1.00 \0bits/sec";
    n = eb_console_strip(t, sizeof t - 1);
    t[n] = 0;
    assert_string_equal(t, "0-1 sec 1.00 bits/sec");
}

static void test_partial_lines_and_escapes_across_chunks(void **state)
{
    fixture *f = *state;
    fake_push(&f->fp, "I (1) iperf: mode=tcp-");
    fake_push(&f->fp, "server\x1b[0;");   /* escape split across reads */
    fake_push(&f->fp, "32m sip=0.0.0.0:5001\r");
    fake_push(&f->fp, "\n");
    assert_int_equal(next(f, 500), EB_CON_LINE);
    assert_string_equal(f->line, "I (1) iperf: mode=tcp-server sip=0.0.0.0:5001");
}

static void test_prompt_alone_and_glued_to_a_log_line(void **state)
{
    fixture *f = *state;
    /* The REPL's coloured prompt, then another task's log on the same line. */
    fake_push(&f->fp, "\x1b[0;32miperf> \x1b[0mI (87967) iperf: accept: 192.168.1.2,43726\r\n");
    assert_int_equal(next(f, 500), EB_CON_PROMPT);
    assert_string_equal(f->line, "iperf> ");
    assert_int_equal(next(f, 500), EB_CON_LINE);
    assert_string_equal(f->line, "I (87967) iperf: accept: 192.168.1.2,43726");
    /* A prompt arriving in pieces is still one prompt. */
    fake_push(&f->fp, "espb");
    fake_push(&f->fp, "ench> ");
    assert_int_equal(next(f, 500), EB_CON_PROMPT);
    assert_string_equal(f->line, "espbench> ");
}

static void test_echo_of_the_command_is_dropped(void **state)
{
    fixture *f = *state;
    fake_rule_add(&f->fp, "heap\r\n", "heap\r\nmin heap size: 123456\r\niperf> ");
    assert_int_equal(eb_console_send(f->c, "heap", eb_deadline_in(100), &f->err), 0);
    assert_string_equal(fake_written(&f->fp), "heap\r\n");
    assert_int_equal(next(f, 500), EB_CON_LINE);
    assert_string_equal(f->line, "min heap size: 123456");
    assert_int_equal(next(f, 500), EB_CON_PROMPT);
}

static void test_echo_behind_a_prompt_is_dropped(void **state)
{
    fixture *f = *state;
    fake_rule_add(&f->fp, "mem\r\n", "espbench> mem\r\n#EB:OK free_internal=1\r\n");
    assert_int_equal(eb_console_send(f->c, "mem", eb_deadline_in(100), &f->err), 0);
    assert_int_equal(next(f, 500), EB_CON_PROMPT);
    assert_int_equal(next(f, 500), EB_CON_LINE);
    assert_string_equal(f->line, "#EB:OK free_internal=1");
}

static void test_reboot_noticed_from_boot_log(void **state)
{
    fixture *f = *state;
    fake_push(&f->fp, "#EB:EV iperf.interval start=0.00 end=1.00 bytes=100\r\n"
                      "ets Jun  8 2016 00:22:57\r\n\r\n"
                      "rst:0xc (SW_CPU_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\r\n"
                      "I (27) app_init: Project name:     espbench\r\n"
                      "I (27) app_init: ESP-IDF:          v5.3\r\n"
                      "#EB:EV boot fw=1.0.0 idf=v5.3 chip=esp32\r\n");
    int lines = 0;
    while (next(f, 200) == EB_CON_LINE)
        lines++;
    assert_int_equal(lines, 6);
    const eb_console_boot_info *b = eb_console_boot(f->c);
    assert_int_equal(b->boots, 1); /* one reboot, though both rst: and #EB:EV boot were seen */
    assert_string_equal(b->reset_reason, "rst:0xc (SW_CPU_RESET)");
    assert_string_equal(b->project, "espbench");
    assert_string_equal(b->idf_version, "v5.3");
    assert_string_equal(b->chip, "esp32");
}

static void test_noted_app_fills_gaps_until_a_reboot(void **state)
{
    fixture *f = *state;
    /* The boot log went by unseen: what the flashed image says stands in. */
    fake_push(&f->fp, "I (27) app_init: Project name:     iperf\r\n");
    assert_int_equal(next(f, 200), EB_CON_LINE);
    eb_console_note_app(f->c, "other", "tier-a", "v5.3");
    eb_console_note_app(f->c, NULL, "", "v9.9");
    const eb_console_boot_info *b = eb_console_boot(f->c);
    assert_string_equal(b->project, "iperf"); /* the board's own word is kept */
    assert_string_equal(b->app_version, "tier-a");
    assert_string_equal(b->idf_version, "v5.3");
    /* A reboot forgets them: the next app may be another. */
    fake_push(&f->fp, "rst:0xc (SW_CPU_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\r\n");
    assert_int_equal(next(f, 200), EB_CON_LINE);
    assert_string_equal(b->project, "");
    assert_string_equal(b->app_version, "");
    assert_string_equal(b->idf_version, "");
}

static void test_deadline_keeps_the_partial_line(void **state)
{
    fixture *f = *state;
    fake_push(&f->fp, "I (5) half a li");
    uint64_t t0 = eb_now_ms();
    assert_int_equal(next(f, 150), EB_CON_TIMEOUT);
    assert_true(eb_now_ms() - t0 >= 140);
    fake_push(&f->fp, "ne\n");
    assert_int_equal(next(f, 150), EB_CON_LINE);
    assert_string_equal(f->line, "I (5) half a line");
}

static void test_port_gone_is_an_io_error(void **state)
{
    fixture *f = *state;
    fake_push(&f->fp, "last words\r\n");
    f->fp.fail_at_end = true;
    assert_int_equal(next(f, 200), EB_CON_LINE);
    assert_false(eb_console_port_failed(f->c));
    assert_int_equal(next(f, 200), -EB_EIO);
    assert_true(eb_console_port_failed(f->c));
    assert_string_equal(f->err.msg, "console fake://board: fake://board: port gone (device removed)");
}

static void test_stop_flag_interrupts_a_read(void **state)
{
    fixture *f = *state;
    volatile sig_atomic_t stop = 1;
    eb_console_set_stop(f->c, &stop);
    assert_int_equal(next(f, 5000), -EB_EINTR);
    assert_int_equal(f->err.code, EB_EINTR);
}

typedef struct cap {
    char text[2048];
} cap;

static void capture(void *user, const char *line)
{
    cap *c = user;
    strncat(c->text, line, sizeof c->text - strlen(c->text) - 2);
    strcat(c->text, "\n");
}

static void test_password_never_captured(void **state)
{
    fixture *f = *state;
    cap c = {""};
    eb_console_set_capture(f->c, capture, &c);
    eb_console_add_secret(f->c, "hunter22");
    fake_rule_add(&f->fp, "sta ", "sta bench hunter22\r\nI (1) wifi: pass hunter22 bad\r\n");
    assert_int_equal(eb_console_send(f->c, "sta bench hunter22", eb_deadline_in(100), &f->err), 0);
    assert_int_equal(eb_console_send_secret(f->c, "hunter22", eb_deadline_in(100), &f->err), 0);
    while (next(f, 100) > 0)
        ;
    assert_null(strstr(c.text, "hunter22"));
    assert_string_equal(c.text, "> sta bench ****\nsta bench ****\nI (1) wifi: pass **** bad\n");
    /* The secret line itself reached the board. */
    assert_non_null(strstr(fake_written(&f->fp), "\r\nhunter22\r\n"));
}

static void test_redact_in_place(void **state)
{
    (void)state;
    char s[64] = "a pw b pw";
    eb_console_redact(s, sizeof s, "pw");
    assert_string_equal(s, "a **** b ****");
}

static void test_sync_sends_empty_lines_until_a_prompt(void **state)
{
    fixture *f = *state;
    /* The board drops the first empty line (still booting) and answers the second:
     * sync sends again after a quiet second, and stops once the prompt came. */
    fake_push(&f->fp, "I (100) boot: still booting\r\n");
    fake_rule_add(&f->fp, "\r\n", "\r\nespbench> ");
    f->fp.rules[0].ignore = 1;
    assert_int_equal(eb_console_sync(f->c, eb_deadline_in(4000), &f->err), 0);
    assert_string_equal(fake_written(&f->fp), "\r\n\r\n");
}

static void test_sync_fails_clearly_without_a_prompt(void **state)
{
    fixture *f = *state;
    assert_int_equal(eb_console_sync(f->c, eb_deadline_in(300), &f->err), EB_EIO);
    assert_non_null(strstr(f->err.msg, "console fake://board: no prompt within the deadline"));
}

/* eb_console_wait_for: the wait every driver shares. The caller's event
 * function waits for "started"; a deadline is its own message. */
typedef struct wait_seen {
    int lines, timeouts;
} wait_seen;

static int wait_started(void *u, int ev, const char *line, eb_error *err)
{
    wait_seen *s = u;
    if (ev == EB_CON_TIMEOUT) {
        s->timeouts++;
        return eb_fail(err, EB_EIO, "no start line");
    }
    s->lines++;
    return strstr(line, "started") ? EB_CON_DONE : 0;
}

static void test_wait_ends_at_the_line_it_waits_for(void **state)
{
    fixture *f = *state;
    fake_push(&f->fp, "I (1) iperf: preparing\r\nI (2) iperf: started\r\nI (3) later\r\n");
    wait_seen s = {0};
    eb_console_wait w = {.boots = eb_console_boot(f->c)->boots, .doing = "starting", .on_event = wait_started, .u = &s};
    assert_int_equal(eb_console_wait_for(f->c, &w, eb_deadline_in(2000), &f->err), 0);
    assert_int_equal(s.lines, 2);
    assert_int_equal(next(f, 200), EB_CON_LINE); /* the line after stays for the next reader */
    assert_string_equal(f->line, "I (3) later");
}

static void test_wait_fails_on_a_reboot_with_its_reason(void **state)
{
    fixture *f = *state;
    fake_push(&f->fp, "I (1) iperf: preparing\r\nrst:0xc (SW_CPU_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\r\n"
                      "I (2) iperf: started\r\n");
    wait_seen s = {0};
    eb_console_wait w = {.boots = eb_console_boot(f->c)->boots, .doing = "starting", .on_event = wait_started, .u = &s};
    assert_int_equal(eb_console_wait_for(f->c, &w, eb_deadline_in(2000), &f->err), EB_EIO);
    assert_int_equal(f->err.kind, EB_KIND_REBOOT);
    assert_string_equal(f->err.msg, "console fake://board: board rebooted (rst:0xc (SW_CPU_RESET)) while starting");
    assert_int_equal(s.lines, 1); /* the start after the reboot is not taken */
}

static void test_wait_gives_the_caller_its_deadline(void **state)
{
    fixture *f = *state;
    fake_push(&f->fp, "I (1) iperf: preparing\r\n");
    wait_seen s = {0};
    eb_console_wait w = {.boots = eb_console_boot(f->c)->boots, .doing = "starting", .on_event = wait_started, .u = &s};
    assert_int_equal(eb_console_wait_for(f->c, &w, eb_deadline_in(200), &f->err), EB_EIO);
    assert_string_equal(f->err.msg, "no start line");
    assert_int_equal(s.lines, 1);
    assert_int_equal(s.timeouts, 1);
}

static int count_quiet(void *u, int ev, const char *line, eb_error *err)
{
    (void)line, (void)err;
    wait_seen *s = u;
    if (ev == EB_CON_TIMEOUT)
        s->timeouts++;
    return 0;
}

static void test_wait_in_slices_sees_each_quiet_slice_and_ends_well(void **state)
{
    fixture *f = *state;
    wait_seen s = {0};
    eb_console_wait w = {.boots = 0, .doing = "testing", .on_event = count_quiet, .u = &s, .slice_ms = 20};
    assert_int_equal(eb_console_wait_for(f->c, &w, eb_deadline_in(200), &f->err), 0);
    assert_true(s.timeouts >= 2); /* slices before the deadline, then the deadline itself */
}

static void test_boot_line_markers(void **state)
{
    (void)state;
    assert_true(eb_console_is_boot_line("rst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)"));
    assert_true(eb_console_is_boot_line(" ets Jan  8 2013,rst cause:2, boot mode:(3,6)"));
    assert_true(eb_console_is_boot_line("#EB:EV boot fw=1.0.0"));
    assert_false(eb_console_is_boot_line("#EB:EV iperf.done"));
    assert_false(eb_console_is_boot_line("I (1) boot: ESP-IDF v5.3 2nd stage bootloader"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strip_ansi_cr_nul),
        cmocka_unit_test_setup_teardown(test_partial_lines_and_escapes_across_chunks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prompt_alone_and_glued_to_a_log_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_echo_of_the_command_is_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_echo_behind_a_prompt_is_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reboot_noticed_from_boot_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deadline_keeps_the_partial_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_port_gone_is_an_io_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_flag_interrupts_a_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_password_never_captured, setup, teardown),
        cmocka_unit_test(test_redact_in_place),
        cmocka_unit_test_setup_teardown(test_sync_sends_empty_lines_until_a_prompt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sync_fails_clearly_without_a_prompt, setup, teardown),
        cmocka_unit_test(test_boot_line_markers),
        cmocka_unit_test_setup_teardown(test_wait_ends_at_the_line_it_waits_for, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wait_fails_on_a_reboot_with_its_reason, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wait_gives_the_caller_its_deadline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wait_in_slices_sees_each_quiet_slice_and_ends_well, setup, teardown),
        cmocka_unit_test_setup_teardown(test_noted_app_fills_gaps_until_a_reboot, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
