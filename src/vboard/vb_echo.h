/* UDP echo on the board's address (udp_echo.h is the PC side): each datagram
 * goes back after the link's modelled round-trip time (vb_board link.rtt_ms,
 * set by --rtt or the control socket's `link rtt=MS`) and is dropped with the
 * link's loss. Stands for an echo command in the espbench firmware. */
#ifndef VB_ECHO_H
#define VB_ECHO_H

#include <stdint.h>

#include "espbench/base/error.h"
#include "vb_board.h"

typedef struct vb_echo vb_echo;

int vb_echo_start(vb_echo **out, vb_board *b, uint16_t port, eb_error *err);
void vb_echo_stop(vb_echo *e); /* NULL is fine */

#endif
