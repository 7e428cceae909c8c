/* A console session with a board's application firmware over any eb_port:
 * a line reader with deadlines that strips ANSI escapes, keeps partial lines,
 * recognises prompts (also when glued to the front of a log line), drops the
 * echo of the command just sent, notices reboots from the boot log at any
 * time, and copies every line (secrets redacted) to an optional capture sink.
 * What the lines mean is the dialect driver's business (console_driver.h). */
#ifndef ESPBENCH_CONSOLE_H
#define ESPBENCH_CONSOLE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/clock.h"
#include "espbench/base/error.h"
#include "espbench/adapters/port.h"

#define EB_CONSOLE_LINE_MAX 1024

typedef struct eb_console eb_console;

/* What eb_console_next() delivered. */
enum eb_console_event {
    EB_CON_TIMEOUT = 0, /* deadline passed, nothing complete */
    EB_CON_LINE = 1,    /* one line, ANSI and CR stripped, no newline */
    EB_CON_PROMPT = 2,  /* a prompt arrived (the line buffer holds its text) */
};

/* Receives each line (and each command sent, prefixed "> "), already
 * redacted, for the raw console log. */
typedef void (*eb_console_capture_fn)(void *user, const char *line);

/* What the boot log said about the application (filled as lines go by). */
typedef struct eb_console_boot_info {
    unsigned boots;          /* reboots seen since the session opened */
    char reset_reason[64];   /* "rst:0x1 (POWERON_RESET)" text, last one */
    char project[33];        /* "Project name:" of the app, "" if not seen */
    char app_version[33];
    char idf_version[33];
    char chip[24];           /* from "#EB:EV boot chip=" or "ESP-ROM:esp32s3-..." */
    char mac[24];            /* from "#EB:EV boot mac=" or a "mac:" line */
    char net[8];             /* the espbench firmware's network: "eth" on its Ethernet image, "" = Wi-Fi */
} eb_console_boot_info;

/* The session does not own the port. */
int eb_console_open(eb_console **out, eb_port *port, eb_error *err);
void eb_console_free(eb_console *c);

eb_port *eb_console_port(eb_console *c);

/* Reads are cut short with EB_EINTR when *stop becomes non-zero (Ctrl-C). */
void eb_console_set_stop(eb_console *c, volatile sig_atomic_t *stop);
void eb_console_set_capture(eb_console *c, eb_console_capture_fn fn, void *user);
/* Text that must never reach the capture sink (the Wi-Fi password). Up to 4. */
void eb_console_add_secret(eb_console *c, const char *secret);
/* The prompts to recognise. The default list covers every known dialect
 * ("espbench> ", "iperf> ", "esp32> "); a driver may narrow it. NULL-terminated. */
void eb_console_set_prompts(eb_console *c, const char *const *prompts);

/* Next line or prompt. Returns EB_CON_LINE / EB_CON_PROMPT with line filled,
 * EB_CON_TIMEOUT at the deadline, or -EB_EIO / -EB_EINTR with err set. */
int eb_console_next(eb_console *c, char *line, size_t cap, eb_deadline d, eb_error *err);

/* The wait every driver and the test runner share: read events until the
 * caller has what it waits for, failing when the board reboots meanwhile. */
#define EB_CON_DONE (-1) /* on_event: what the wait was for arrived */
typedef struct eb_console_wait {
    unsigned boots;    /* eb_console_boot(c)->boots when the wait began */
    const char *doing; /* "connecting": "console URL: board rebooted (REASON) while connecting" */
    /* Each event that is not a reboot: returns EB_CON_DONE, 0 to wait on, or an
     * error code with err set. It sees EB_CON_TIMEOUT once at the deadline (and,
     * with slice_ms, at the end of each quiet slice); 0 there ends the wait with 0. */
    int (*on_event)(void *u, int ev, const char *line, eb_error *err);
    void *u;
    unsigned slice_ms; /* 0: read to the deadline */
    /* NULL: the message above; else writes the caller's own (EB_KIND_REBOOT is set after). */
    int (*on_reboot)(void *u, eb_error *err);
} eb_console_wait;

/* Returns 0 (done, or the deadline passed with on_event content), on_event's
 * error, EB_EIO with EB_KIND_REBOOT on a reboot, or the port's / a stop's
 * error (eb_console_next's, as a positive code). */
int eb_console_wait_for(eb_console *c, const eb_console_wait *w, eb_deadline d, eb_error *err);

/* Sends one command line (CR LF appended). The next line equal to cmd (the
 * board's echo, possibly behind a prompt) is dropped by eb_console_next. */
int eb_console_send(eb_console *c, const char *cmd, eb_deadline d, eb_error *err);

/* Sends a line that must stay secret (a password the firmware reads without
 * echo): never captured, no echo expected. */
int eb_console_send_secret(eb_console *c, const char *text, eb_deadline d, eb_error *err);

/* Sends an empty line and waits for a prompt (discarding other lines). */
int eb_console_sync(eb_console *c, eb_deadline d, eb_error *err);

/* True once a read from the port failed (port gone, connection closed):
 * the session is over, unlike a reboot or a timeout. */
bool eb_console_port_failed(const eb_console *c);

/* Boot information and the reboot counter. */
const eb_console_boot_info *eb_console_boot(const eb_console *c);
/* What is known about the application when its boot log went by unseen (the
 * firmware's `version` reply, the descriptor of the image just flashed): fills
 * only the fields the boot log left empty; NULL or "" leaves a field alone. A
 * later boot log overrides them, and a reboot clears them as it clears its own. */
void eb_console_note_app(eb_console *c, const char *project, const char *app_version,
                         const char *idf_version);

/* Pure helpers, exposed for tests. */
/* Removes ANSI escape sequences, CR and NUL bytes from s in place. */
size_t eb_console_strip(char *s, size_t len);
/* True when the line is a boot-log marker (ROM banner, reset reason, espbench boot event). */
bool eb_console_is_boot_line(const char *line);
/* Replaces every occurrence of secret in s (NUL-terminated, capacity cap) with "****". */
void eb_console_redact(char *s, size_t cap, const char *secret);

#endif
