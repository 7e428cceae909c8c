/* The latency test over UDP echo (RFC 862 style: the board sends each
 * datagram back), for boards behind the virtual board's modelled link, where
 * the kernel's ICMP answer would say nothing about the model. Each probe
 * carries its sequence number; espbench times it (no clock on the board). */
#ifndef ESPBENCH_UDP_ECHO_H
#define ESPBENCH_UDP_ECHO_H

#include <stdint.h>

#include "espbench/base/clock.h"
#include "espbench/formats/dialect.h" /* EB_UDP_ECHO_PORT */
#include "espbench/base/error.h"
#include "espbench/formats/ping_parse.h"

#define EB_UDP_ECHO_WAIT_MS 1000 /* a reply later than this is lost (ping -W 1) */

/* Sends count probes to ip:port (IPv4 dotted) every interval_s, collects the
 * replies until EB_UDP_ECHO_WAIT_MS after the last probe or the deadline, and
 * fills out as eb_ping_summarize does. Returns 0, EB_ECONFIG for bad
 * arguments, EB_EIO when the socket fails. */
int eb_udp_echo_run(const char *ip, uint16_t port, int count, double interval_s, eb_deadline d,
                    eb_ping_result *out, eb_error *err);

#endif
