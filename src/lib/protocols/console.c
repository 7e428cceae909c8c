/* Console session: bytes from a port become lines and prompt events.
 *
 * Cleaning happens once, as bytes arrive: ANSI escape sequences, CR and NUL
 * bytes are dropped (the v5.1 iperf prints a NUL before "bits/sec"), so every
 * consumer sees plain text. A prompt has no newline after it, so it is
 * recognised at the start of the pending text; log lines printed by other
 * tasks right after a prompt ("iperf> I (87967) iperf: accept: ...") become
 * a prompt event followed by the line. */
#include "espbench/protocols/console.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/board_parse.h"
#include "espbench/base/buf.h"
#include "espbench/formats/dialect.h"

#define MAX_SECRETS 4
#define MAX_PROMPTS 8
#define READ_SLICE_MS 100 /* stop-flag check period */


enum esc_state { ESC_NONE, ESC_START, ESC_CSI, ESC_OSC };

struct eb_console {
    eb_port *port;
    eb_buf text;                 /* cleaned, not yet delivered */
    enum esc_state esc;
    volatile sig_atomic_t *stop;
    eb_console_capture_fn capture;
    void *capture_user;
    char *secrets[MAX_SECRETS];
    int n_secrets;
    const char *prompts[MAX_PROMPTS];
    int n_prompts;
    char echo[EB_CONSOLE_LINE_MAX]; /* command whose echo is still expected */
    bool port_failed;
    bool in_boot;                /* between a reset line and the app's boot event */
    eb_console_boot_info boot;
};

int eb_console_open(eb_console **out, eb_port *port, eb_error *err)
{
    (void)err;
    eb_console *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->port = port;
    eb_buf_init(&c->text);
    eb_console_set_prompts(c, NULL);
    *out = c;
    return 0;
}

void eb_console_free(eb_console *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n_secrets; i++) {
        memset(c->secrets[i], 0, strlen(c->secrets[i]));
        free(c->secrets[i]);
    }
    eb_buf_free(&c->text);
    free(c);
}

eb_port *eb_console_port(eb_console *c) { return c->port; }
void eb_console_set_stop(eb_console *c, volatile sig_atomic_t *stop) { c->stop = stop; }

void eb_console_set_capture(eb_console *c, eb_console_capture_fn fn, void *user)
{
    c->capture = fn;
    c->capture_user = user;
}

void eb_console_add_secret(eb_console *c, const char *secret)
{
    if (!secret || !*secret || c->n_secrets >= MAX_SECRETS)
        return;
    c->secrets[c->n_secrets] = strdup(secret);
    if (!c->secrets[c->n_secrets])
        abort();
    c->n_secrets++;
}

void eb_console_set_prompts(eb_console *c, const char *const *prompts)
{
    /* Before the dialect is known: every prompt of the dialect table (dialect.h). */
    const char *every[MAX_PROMPTS + 1];
    if (!prompts) {
        eb_dialect_prompts(every, MAX_PROMPTS + 1);
        prompts = every;
    }
    c->n_prompts = 0;
    for (int i = 0; prompts[i] && c->n_prompts < MAX_PROMPTS; i++)
        c->prompts[c->n_prompts++] = prompts[i];
}

const eb_console_boot_info *eb_console_boot(const eb_console *c) { return &c->boot; }
bool eb_console_port_failed(const eb_console *c) { return c->port_failed; }

static void fill_if_empty(char *field, size_t cap, const char *value)
{
    if (!field[0] && value && *value)
        snprintf(field, cap, "%s", value);
}

void eb_console_note_app(eb_console *c, const char *project, const char *app_version,
                         const char *idf_version)
{
    eb_console_boot_info *b = &c->boot;
    fill_if_empty(b->project, sizeof b->project, project);
    fill_if_empty(b->app_version, sizeof b->app_version, app_version);
    fill_if_empty(b->idf_version, sizeof b->idf_version, idf_version);
}

/* ------------------------------------------------------------ pure helpers */

size_t eb_console_strip(char *s, size_t len)
{
    size_t o = 0;
    enum esc_state st = ESC_NONE;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        switch (st) {
        case ESC_NONE:
            if (ch == 0x1b)
                st = ESC_START;
            else if (ch != '\r' && ch != 0)
                s[o++] = (char)ch;
            break;
        case ESC_START:
            st = ch == '[' ? ESC_CSI : ch == ']' ? ESC_OSC : ESC_NONE;
            break;
        case ESC_CSI:
            if (ch >= 0x40 && ch <= 0x7e)
                st = ESC_NONE;
            break;
        case ESC_OSC:
            if (ch == 0x07)
                st = ESC_NONE;
            break;
        }
    }
    return o;
}

void eb_console_redact(char *s, size_t cap, const char *secret)
{
    size_t sl = secret ? strlen(secret) : 0;
    if (!sl)
        return;
    char *p;
    while ((p = strstr(s, secret)) != NULL) {
        size_t tail = strlen(p + sl);
        const char *mask = "****";
        size_t ml = 4;
        size_t before = (size_t)(p - s);
        if (before + ml + tail + 1 > cap)
            ml = sl < ml ? sl : ml; /* never grow past the buffer */
        memmove(p + ml, p + sl, tail + 1);
        memcpy(p, mask, ml);
    }
}

/* Lines that only appear while a chip boots. */
static const char *const boot_markers[] = {
    "rst:0x",      /* ESP32 family ROM: "rst:0x1 (POWERON_RESET),boot:0x13 ..." */
    "rst cause:",  /* ESP8266 ROM: " ets Jan  8 2013,rst cause:2, boot mode:(3,6)" */
    "#EB:EV boot", /* espbench firmware, also the only marker of a soft restart on some hosts */
    NULL,
};

bool eb_console_is_boot_line(const char *line)
{
    for (int i = 0; boot_markers[i]; i++)
        if (strstr(line, boot_markers[i]))
            return true;
    return false;
}

static void first_word(char *out, size_t cap, const char *s)
{
    size_t n = strcspn(s, " \t");
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = 0;
}

static void note_reset(eb_console *c, const eb_board_line *bl)
{
    eb_console_boot_info *b = &c->boot;
    b->boots++;
    c->in_boot = true;
    c->echo[0] = 0;
    snprintf(b->reset_reason, sizeof b->reset_reason, "%s", bl->reason);
    b->project[0] = b->idf_version[0] = b->app_version[0] = 0;
}

/* "#EB:EV boot fw=1.0.0 idf=v5.3 chip=esp32" (docs/console-protocol.md) */
static void note_espbench_boot(eb_console *c, const eb_board_line *bl)
{
    eb_console_boot_info *b = &c->boot;
    if (!c->in_boot)
        b->boots++;
    c->in_boot = false;
    c->echo[0] = 0;
    static const struct {
        const char *key;
        size_t off, cap;
    } fields[] = {
        {"chip", offsetof(eb_console_boot_info, chip), sizeof b->chip},
        {"mac", offsetof(eb_console_boot_info, mac), sizeof b->mac},
        {"fw", offsetof(eb_console_boot_info, app_version), sizeof b->app_version},
        {"idf", offsetof(eb_console_boot_info, idf_version), sizeof b->idf_version},
        {"reason", offsetof(eb_console_boot_info, reset_reason), sizeof b->reset_reason},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const char *v = eb_ebline_get(bl->eb, fields[i].key);
        if (v)
            snprintf((char *)b + fields[i].off, fields[i].cap, "%s", v);
    }
    snprintf(b->project, sizeof b->project, "espbench");
}

/* Boot facts (resets, chip, project, IDF and app versions) as the board
 * line parser classifies the line: one grammar for run and parse. */
static void note_boot_line(eb_console *c, const char *line)
{
    eb_console_boot_info *b = &c->boot;
    eb_ebline tokens;
    eb_board_line bl;
    eb_board_parse_line(EB_DIALECT_UNKNOWN, line, strlen(line), &bl, &tokens);
    switch (bl.event) {
    case EB_BEV_BOOT:
        if (bl.reset)
            note_reset(c, &bl);
        else if (bl.eb)
            note_espbench_boot(c, &bl);
        if (!bl.eb && bl.text[0]) /* "ESP-ROM:esp32s3-20210327", "ets Jun  8 2016" */
            first_word(b->chip, sizeof b->chip, bl.text);
        break;
    case EB_BEV_APP_PROJECT:
        first_word(b->project, sizeof b->project, bl.text);
        break;
    case EB_BEV_APP_VERSION:
        first_word(b->app_version, sizeof b->app_version, bl.text);
        break;
    case EB_BEV_APP_IDF:
        first_word(b->idf_version, sizeof b->idf_version, bl.text);
        break;
    default:
        if (strstr(line, "Type 'help' to get the list of commands"))
            c->in_boot = false; /* stock REPL is up: the boot is over */
        break;
    }
}

/* ------------------------------------------------------------ the reader */

static void capture(eb_console *c, const char *prefix, const char *text)
{
    if (!c->capture)
        return;
    char tmp[EB_CONSOLE_LINE_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s%s", prefix, text);
    for (int i = 0; i < c->n_secrets; i++)
        eb_console_redact(tmp, sizeof tmp, c->secrets[i]);
    c->capture(c->capture_user, tmp);
}

static void feed(eb_console *c, const char *data, size_t len)
{
    /* The escape state machine must survive chunk boundaries, so clean byte
     * by byte with the session's state instead of eb_console_strip(). */
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)data[i];
        switch (c->esc) {
        case ESC_NONE:
            if (ch == 0x1b)
                c->esc = ESC_START;
            else if (ch != '\r' && ch != 0)
                eb_buf_append_byte(&c->text, ch);
            break;
        case ESC_START:
            c->esc = ch == '[' ? ESC_CSI : ch == ']' ? ESC_OSC : ESC_NONE;
            break;
        case ESC_CSI:
            if (ch >= 0x40 && ch <= 0x7e)
                c->esc = ESC_NONE;
            break;
        case ESC_OSC:
            if (ch == 0x07)
                c->esc = ESC_NONE;
            break;
        }
    }
}

/* Length of the prompt at the start of the pending text; 0 if none; -1 when
 * the pending text is a proper prefix of a prompt (wait for more). */
static int prompt_at_start(eb_console *c)
{
    const char *t = (const char *)c->text.data;
    size_t n = c->text.len;
    bool maybe = false;
    for (int i = 0; i < c->n_prompts; i++) {
        size_t pl = strlen(c->prompts[i]);
        if (n >= pl && memcmp(t, c->prompts[i], pl) == 0)
            return (int)pl;
        if (n < pl && n > 0 && memcmp(t, c->prompts[i], n) == 0)
            maybe = true;
    }
    return maybe ? -1 : 0;
}

static void copy_out(char *line, size_t cap, const char *src, size_t n)
{
    if (!cap)
        return;
    if (n >= cap)
        n = cap - 1;
    memcpy(line, src, n);
    line[n] = 0;
}

/* One event from the pending text, or EB_CON_TIMEOUT if it needs more bytes. */
static int take_event(eb_console *c, char *line, size_t cap)
{
    for (;;) {
        int pl = prompt_at_start(c);
        if (pl > 0) {
            copy_out(line, cap, (const char *)c->text.data, (size_t)pl);
            eb_buf_consume(&c->text, (size_t)pl);
            return EB_CON_PROMPT;
        }
        const char *t = (const char *)c->text.data;
        const char *nl = c->text.len ? memchr(t, '\n', c->text.len) : NULL;
        if (!nl) {
            /* A runaway line without newline: deliver it in pieces. */
            if (c->text.len >= EB_CONSOLE_LINE_MAX - 1) {
                copy_out(line, cap, t, EB_CONSOLE_LINE_MAX - 1);
                eb_buf_consume(&c->text, EB_CONSOLE_LINE_MAX - 1);
                return EB_CON_LINE;
            }
            return EB_CON_TIMEOUT;
        }
        size_t n = (size_t)(nl - t);
        char buf[EB_CONSOLE_LINE_MAX];
        copy_out(buf, sizeof buf, t, n);
        eb_buf_consume(&c->text, n + 1);
        /* Trailing blanks carry no meaning and break exact matches. */
        size_t bl = strlen(buf);
        while (bl && (buf[bl - 1] == ' ' || buf[bl - 1] == '\t'))
            buf[--bl] = 0;
        if (!bl)
            continue;
        capture(c, "", buf);
        if (c->echo[0] && strcmp(buf, c->echo) == 0) {
            c->echo[0] = 0;
            continue;
        }
        if (eb_console_is_boot_line(buf) || c->in_boot || strstr(buf, "Project name:") ||
            strstr(buf, "ESP-IDF:") || strncmp(buf, "ESP-ROM:", 8) == 0)
            note_boot_line(c, buf);
        copy_out(line, cap, buf, bl);
        return EB_CON_LINE;
    }
}

int eb_console_next(eb_console *c, char *line, size_t cap, eb_deadline d, eb_error *err)
{
    char chunk[512];
    for (;;) {
        int ev = take_event(c, line, cap);
        if (ev != EB_CON_TIMEOUT)
            return ev;
        if (c->stop && *c->stop)
            return -eb_fail(err, EB_EINTR, "console %s: interrupted", c->port->url);
        if (eb_deadline_passed(d)) {
            /* A prompt prefix that never completed is plain text after all. */
            return EB_CON_TIMEOUT;
        }
        eb_deadline slice = eb_deadline_in(READ_SLICE_MS);
        if (slice > d)
            slice = d;
        long r = eb_port_read(c->port, chunk, sizeof chunk, slice, err);
        if (r < 0) {
            c->port_failed = true;
            eb_error_prefix(err, "console %s: ", c->port->url);
            eb_error_kind(err, EB_KIND_PORT_LOST);
            return -EB_EIO;
        }
        if (r > 0)
            feed(c, chunk, (size_t)r);
    }
}

int eb_console_wait_for(eb_console *c, const eb_console_wait *w, eb_deadline d, eb_error *err)
{
    char line[EB_CONSOLE_LINE_MAX];
    for (;;) {
        eb_deadline until = d;
        if (w->slice_ms) {
            eb_deadline slice = eb_deadline_in(w->slice_ms);
            if (slice < until)
                until = slice;
        }
        int ev = eb_console_next(c, line, sizeof line, until, err);
        if (ev < 0)
            return -ev;
        if (c->boot.boots != w->boots) {
            if (w->on_reboot)
                w->on_reboot(w->u, err);
            else
                eb_fail(err, EB_EIO, "console %s: board rebooted (%s) while %s", c->port->url, c->boot.reset_reason,
                        w->doing);
            eb_error_kind(err, EB_KIND_REBOOT);
            return err->code ? err->code : EB_EIO;
        }
        if (ev == EB_CON_TIMEOUT)
            line[0] = '\0';
        int r = w->on_event(w->u, ev, line, err);
        if (r > 0)
            return r;
        if (r == EB_CON_DONE || (ev == EB_CON_TIMEOUT && eb_deadline_passed(d)))
            return 0;
    }
}

int eb_console_send(eb_console *c, const char *cmd, eb_deadline d, eb_error *err)
{
    size_t n = strlen(cmd);
    if (n + 3 > EB_CONSOLE_LINE_MAX)
        return eb_fail(err, EB_ECONFIG, "console %s: command too long (%zu bytes)", c->port->url, n);
    char buf[EB_CONSOLE_LINE_MAX];
    memcpy(buf, cmd, n);
    memcpy(buf + n, "\r\n", 2);
    snprintf(c->echo, sizeof c->echo, "%s", cmd);
    capture(c, "> ", cmd);
    int rc = eb_port_write(c->port, buf, n + 2, d, err);
    memset(buf, 0, sizeof buf);
    if (rc) {
        eb_error_prefix(err, "console %s: sending a command: ", c->port->url);
        return rc;
    }
    return 0;
}

int eb_console_send_secret(eb_console *c, const char *text, eb_deadline d, eb_error *err)
{
    size_t n = strlen(text);
    char *buf = malloc(n + 2);
    if (!buf)
        abort();
    memcpy(buf, text, n);
    memcpy(buf + n, "\r\n", 2);
    int rc = eb_port_write(c->port, buf, n + 2, d, err);
    memset(buf, 0, n + 2);
    free(buf);
    if (rc)
        eb_error_prefix(err, "console %s: ", c->port->url);
    return rc;
}

int eb_console_sync(eb_console *c, eb_deadline d, eb_error *err)
{
    char line[EB_CONSOLE_LINE_MAX];
    /* Re-send the empty line every second: a board still booting drops input. */
    while (!eb_deadline_passed(d)) {
        int rc = eb_console_send(c, "", d, err);
        if (rc)
            return rc;
        eb_deadline step = eb_deadline_in(1000);
        if (step > d)
            step = d;
        for (;;) {
            int ev = eb_console_next(c, line, sizeof line, step, err);
            if (ev < 0)
                return -ev;
            if (ev == EB_CON_PROMPT) {
                /* Drain the prompts of the other empty lines already sent. */
                while ((ev = eb_console_next(c, line, sizeof line, eb_deadline_in(50), err)) > 0)
                    ;
                if (ev < 0)
                    return -ev;
                return 0;
            }
            if (ev == EB_CON_TIMEOUT)
                break;
        }
    }
    return eb_fail(err, EB_EIO,
                   "console %s: no prompt within the deadline; is the application running and the "
                   "console on this port (not USB-Serial/JTAG vs UART)?",
                   c->port->url);
}
