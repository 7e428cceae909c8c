/* The virtual board's main loop: pty, ROM loader, boot, console hand-over,
 * control socket, resets. */
#ifndef VB_RUN_H
#define VB_RUN_H

#include <stdio.h>

#include "espbench/base/error.h"
#include "vb_args.h"

/* Runs until SIGTERM/SIGINT or the control socket's quit. The pty's slave path
 * is printed on `announce` as the first line (flushed) once the board is ready.
 * Returns 0 on a clean exit or an eb_code with err. */
int vb_run(const vb_opts *o, FILE *announce, eb_error *err);

#endif
