/* The board's serial line: a pty in raw mode (the host opens the slave), with
 * output paced at the host's baud (10 bits a byte) on a monotonic schedule. */
#ifndef VB_PTY_H
#define VB_PTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/base/error.h"

typedef struct vb_pty vb_pty;

/* Opens the pty and starts the writer thread. link: symlink to the slave (NULL: none). */
int vb_pty_open(vb_pty **out, const char *link, bool baud_timing, uint32_t baud, eb_error *err);
/* Stops the writer (drops unsent output), closes the master, removes the link. */
void vb_pty_close(vb_pty *p);
const char *vb_pty_slave_path(const vb_pty *p);
int vb_pty_master_fd(const vb_pty *p);
/* Queues output (any thread). */
void vb_pty_write(vb_pty *p, const void *data, size_t len);
/* Switches the line speed once everything queued so far has gone out
 * (CHANGE_BAUDRATE: the ack leaves at the old speed). */
void vb_pty_set_baud_after_queued(vb_pty *p, uint32_t baud);
/* Sets the speed now (reset: the chip starts at the host's line speed). */
void vb_pty_set_baud(vb_pty *p, uint32_t baud);
uint32_t vb_pty_baud(vb_pty *p);
/* The speed the host last set with termios (0 if unknown). */
uint32_t vb_pty_host_baud(vb_pty *p);
/* Strict (default): the board's speed changes only by CHANGE_BAUDRATE, a
 * reset or the ROM's baud detection; a host whose termios speed differs sees
 * noise and sends noise, as on a real UART. follow=true (--forgiving): the
 * board takes every termios change. */
void vb_pty_follow_host(vb_pty *p, bool follow);
bool vb_pty_baud_mismatch(vb_pty *p);
/* With mismatched speeds: the noise the board's UART makes of n host bytes,
 * into out (returns its length); 0 when the speeds match (use the bytes). */
size_t vb_pty_rx_garble(vb_pty *p, const uint8_t *in, size_t n, uint8_t *out, size_t cap);
/* True when a host has the slave open. */
bool vb_pty_host_present(vb_pty *p);
/* Waits up to timeout_ms for the queue to drain; returns true if drained. */
bool vb_pty_drain(vb_pty *p, int timeout_ms);
/* Bytes written to the master so far (tests, benchmarks). */
uint64_t vb_pty_bytes_sent(vb_pty *p);

/* vb_ttyspeed.c: c_ospeed via TCGETS2 (0 on failure). */
unsigned vb_tty_ospeed(int fd);

#endif
