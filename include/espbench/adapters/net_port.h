/* Whether this computer can listen on a port: checked before a run, so a
 * port another program holds is one line naming --iperf-port instead of a
 * failed test on every retry. */
#ifndef ESPBENCH_NET_PORT_H
#define ESPBENCH_NET_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "espbench/base/error.h"

/* Binds a TCP (as iperf2 does: SO_REUSEADDR, so a closing connection's
 * TIME_WAIT does not count) or UDP socket to ip:port and closes it. 0 when
 * free (or ip is not an address this check can use); EB_ECONFIG "PC port N
 * on IP (TCP) is taken: ...; pass --iperf-port ..." when in use; EB_EIO
 * with the errno text otherwise. */
int eb_net_port_free(const char *ip, uint16_t port, bool udp, eb_error *err);

#endif
