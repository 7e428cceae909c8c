/* Whether a port can be listened on (net_port.h). iperf2 2.1.8 sets
 * SO_REUSEADDR on its listener (Listener.cpp) and two UDP sockets that
 * both set it may share a port on Linux, so the check binds as iperf2 does
 * for TCP, and without SO_REUSEADDR for UDP: any other holder counts. */
#include "espbench/adapters/net_port.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int eb_net_port_free(const char *ip, uint16_t port, bool udp, eb_error *err)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len;
    struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, ip, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons(port);
        len = sizeof *a4;
    } else if (inet_pton(AF_INET6, ip, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons(port);
        len = sizeof *a6;
    } else {
        return 0;
    }
    int fd = socket(ss.ss_family, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0; /* no socket to check with: iperf2 will say what it finds */
    int one = 1;
    if (!udp)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc = bind(fd, (struct sockaddr *)&ss, len);
    int e = errno;
    if (rc == 0 && !udp && listen(fd, 1) != 0) {
        rc = -1;
        e = errno;
    }
    close(fd);
    if (rc == 0)
        return 0;
    if (e == EADDRINUSE)
        return eb_fail(err, EB_ECONFIG,
                       "PC port %u on %s (%s) is taken by another program (an iperf server left running?): pass "
                       "--iperf-port N with a free port (or iperf_port: in the lab file)",
                       port, ip, udp ? "UDP" : "TCP");
    if (e == EADDRNOTAVAIL)
        return eb_fail(err, EB_ECONFIG, "PC address %s is not an address of this computer (%s); check --pc-address",
                       ip, strerror(e));
    return 0; /* EACCES and the like: iperf2 meets the same and says so */
}
