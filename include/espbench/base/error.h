/* Error values that carry a message, and the exit codes the CLI maps them to.
 * Library functions return 0 on success or one of the EB_E* codes, and fill an
 * eb_error with one line the CLI can print: what went wrong, where, what to do. */
#ifndef ESPBENCH_ERROR_H
#define ESPBENCH_ERROR_H

#include <stddef.h>

/* These are also the documented exit codes of `espbench` (see man/espbench.1). */
enum eb_code {
    EB_OK = 0,
    EB_ESHORT = 1,   /* a benchmark fell short or regressed */
    EB_ECONFIG = 2,  /* usage, profile, lab file or other configuration error */
    EB_EIO = 3,      /* device, port, network, process or file I/O error */
    EB_EINTR = 4,    /* interrupted (SIGINT/SIGTERM); what was measured is kept */
};

#define EB_ERROR_MSG_MAX 768

/* What kind of failure it was, where a caller decides on it (the run job
 * retries a test after a reboot, ends a board whose port is gone). eb_fail
 * sets EB_KIND_NONE; the code that knows sets the kind with eb_error_kind. */
enum eb_error_kind {
    EB_KIND_NONE = 0,
    EB_KIND_REBOOT,     /* the board reset (or panicked) during the operation */
    EB_KIND_PORT_LOST,  /* the port is gone (device removed, connection closed) */
    EB_KIND_BOARD,      /* a board-level step failed (tier, Wi-Fi): not the test's fault */
    EB_KIND_FINAL,      /* another attempt would fail the same way (an option the board refuses,
                         * a PC port taken): the test fails without a retry */
};

typedef struct eb_error {
    int code;                    /* enum eb_code */
    int kind;                    /* enum eb_error_kind */
    char msg[EB_ERROR_MSG_MAX];  /* one line, no trailing newline */
} eb_error;

/* Sets err (if not NULL) and returns code. printf-style message. */
int eb_fail(eb_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefixes an existing message with more context ("flash esp32: " + msg). */
int eb_error_prefix(eb_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void eb_error_clear(eb_error *err);

/* Sets err->kind (if err is not NULL); returns err->code (0 when err is NULL). */
int eb_error_kind(eb_error *err, int kind);

/* A short name for an exit code ("config", "io", ...). */
const char *eb_code_name(int code);

#endif
