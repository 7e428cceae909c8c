/* The control socket: a unix stream socket taking one command per line and
 * answering one line, "ok ..." or "err ..." (docs/vboard.md). */
#ifndef VB_CONTROL_H
#define VB_CONTROL_H

#include <poll.h>
#include <stdbool.h>

#include "espbench/base/buf.h"
#include "espbench/base/error.h"

typedef struct vb_control vb_control;

/* What the commands act on (implemented by the board's main loop). Each
 * returns 0 and appends its reply text after "ok ", or an eb_code with err. */
typedef struct vb_control_target {
    int (*reset)(void *ctx, bool download, eb_buf *reply, eb_error *err);
    int (*fault)(void *ctx, const char *spec, eb_buf *reply, eb_error *err);
    int (*status)(void *ctx, eb_buf *reply, eb_error *err);
    int (*quit)(void *ctx, eb_buf *reply, eb_error *err);
    int (*link)(void *ctx, const char *spec, eb_buf *reply, eb_error *err); /* NULL: no link */
    /* The host's DTR and RTS (true = asserted) reach the auto-reset circuit. */
    int (*lines)(void *ctx, bool dtr, bool rts, eb_buf *reply, eb_error *err);
    void *ctx;
} vb_control_target;

int vb_control_open(vb_control **out, const char *path, const vb_control_target *t, eb_error *err);
/* Closes every connection and removes the socket file. */
void vb_control_close(vb_control *c);
/* Fills up to max pollfds (listener and clients); returns how many. */
int vb_control_pollfds(vb_control *c, struct pollfd *fds, int max);
/* Serves whatever the pollfds from vb_control_pollfds report. */
void vb_control_service(vb_control *c, const struct pollfd *fds, int n);
/* Runs one command line and writes the reply line (without newline) to reply. */
void vb_control_run_line(const vb_control_target *t, const char *line, eb_buf *reply);

#endif
