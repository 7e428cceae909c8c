/* Reset sequences that put a board into the ROM download mode (--before) or
 * restart it into its application (--after), as tables of steps on the DTR and
 * RTS lines. Chosen from the port's USB VID:PID unless the user overrides. */
#ifndef ESPBENCH_RESET_H
#define ESPBENCH_RESET_H

#include <stdbool.h>
#include <stdint.h>

#include "espbench/base/error.h"
#include "espbench/adapters/port.h"

/* One step: set DTR, set RTS, set both at once (tight), or wait. */
enum eb_reset_op { EB_RS_DTR, EB_RS_RTS, EB_RS_BOTH, EB_RS_WAIT, EB_RS_WAIT_DELAY, EB_RS_END };

typedef struct eb_reset_step {
    enum eb_reset_op op;
    bool dtr, rts;  /* line states (true = asserted) for EB_RS_DTR/RTS/BOTH */
    unsigned ms;    /* EB_RS_WAIT */
} eb_reset_step;

typedef struct eb_reset_seq {
    const char *name;        /* "classic", "tight", "usb-jtag", "hard-reset", "no-reset" */
    const char *description;
    bool syncs;              /* the ROM loader is synced after it (false: no-reset-no-sync) */
    const eb_reset_step *steps;
    bool after;              /* an --after sequence (restart into the application) */
} eb_reset_seq;

/* --before NAME: "default-reset" (by VID:PID), "classic", "tight", "usb-reset"
 * (alias "usb-jtag"), "no-reset", "no-reset-no-sync". NULL when unknown. */
const eb_reset_seq *eb_reset_before(const char *name, uint16_t vid, uint16_t pid);
/* --after NAME: "hard-reset", "no-reset". NULL when unknown. */
const eb_reset_seq *eb_reset_after(const char *name, uint16_t vid, uint16_t pid);
/* The sequence esptool would use for a device: USB-Serial/JTAG for 303A:1001,
 * "tight" otherwise. */
const eb_reset_seq *eb_reset_default(uint16_t vid, uint16_t pid);
/* Lists the accepted names, "default-reset, classic, ..." */
const char *eb_reset_before_names(void);
const char *eb_reset_after_names(void);

/* Runs a sequence on a port. extra_delay_ms lengthens the boot-strap wait (the
 * second connect attempt uses 500 ms more, like esptool). When the port cannot
 * set lines (pty, socket, RFC 2217 with ign_set_control) it returns 1; for a
 * --before sequence it also says so once (log key "no-modem-lines-before");
 * for an --after one the caller says what it does instead (the flash job:
 * "no-modem-lines-after"). Errors return EB_EIO. */
int eb_reset_run(eb_port *p, const eb_reset_seq *seq, unsigned extra_delay_ms, eb_error *err);

#endif
