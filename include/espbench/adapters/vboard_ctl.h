/* A client for espbench-vboard's control socket (docs/vboard.md): one
 * command line out, one reply line back ("ok ..." or "err ..."), under a
 * deadline. Used by `run --sweep` to change a virtual board's link between
 * sweep points. */
#ifndef ESPBENCH_VBOARD_CTL_H
#define ESPBENCH_VBOARD_CTL_H

#include <stddef.h>

#include "espbench/base/error.h"

/* Sends `command` to the control socket at `path` and reads the reply into
 * `reply` (without "ok "). EB_EIO when the socket cannot be reached or does
 * not answer within timeout_ms; EB_ECONFIG when the board answers "err". */
int eb_vboard_ctl(const char *path, const char *command, char *reply, size_t cap, int timeout_ms, eb_error *err);

#endif
