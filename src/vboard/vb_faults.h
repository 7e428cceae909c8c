/* Fault specs "KIND[:ARG][@WHEN]" (docs/vboard.md): parsing and arming. */
#ifndef VB_FAULTS_H
#define VB_FAULTS_H

#include "espbench/base/error.h"
#include "vb_board.h"

/* Parses a spec into out (armed). Errors (EB_ECONFIG) name the spec and list
 * the known kinds. */
int vb_fault_parse(const char *spec, vb_fault *out, eb_error *err);
/* Arms a fault on the board (reuses a fired slot when the table is full). */
int vb_board_add_fault(vb_board *b, const vb_fault *f, eb_error *err);
/* Formats a fault back to its spec ("zero:3@tcp_tx"). */
void vb_fault_format(const vb_fault *f, char *out, size_t n);
/* The numeric argument of a fired fault, or def when it has none. */
long vb_fault_arg_long(const vb_fault *f, long def);

#endif
