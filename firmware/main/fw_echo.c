/* UDP echo for the latency test (host: run_latency.c, udp_echo.c): every
 * datagram that arrives on EB_UDP_ECHO_PORT goes straight back to its
 * sender. The host times the round trip; the board keeps no clock and no
 * state, so the figure is the Wi-Fi link plus lwIP, as ICMP echo would be,
 * but through the same UDP path the iperf tests use.
 *
 * lwIP BSD sockets (ESP-IDF's lwip component): bound to any address before
 * the station has one, the socket receives once DHCP has given it. The task
 * is small and low in priority: it must not disturb a throughput test. */
#include <string.h>
#include <unistd.h> /* close: sockets are VFS descriptors in ESP-IDF */

#include "freertos/FreeRTOS.h"
#include "freertos/task.h"
#include "lwip/sockets.h"

#include "fw.h"

#define ECHO_PORT 5007      /* the host's EB_UDP_ECHO_PORT (include/espbench/dialect.h) */
#define ECHO_MAX 512        /* the host's probes are a few bytes; longer datagrams are cut */
#define ECHO_STACK 3072
#define ECHO_PRIO 2         /* below lwIP's tcpip task and the iperf tasks */

static void echo_task(void *arg)
{
    (void)arg;
    int fd = socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP);
    struct sockaddr_in me = {.sin_family = AF_INET, .sin_port = htons(ECHO_PORT), .sin_addr.s_addr = htonl(INADDR_ANY)};
    if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof me) != 0) {
        if (fd >= 0)
            close(fd);
        vTaskDelete(NULL); /* no echo: the host sees no reply and says so */
        return;
    }
    static uint8_t buf[ECHO_MAX];
    for (;;) {
        struct sockaddr_in from;
        socklen_t fl = sizeof from;
        int n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
        if (n > 0)
            sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from, fl);
    }
}

void fw_echo_start(void)
{
    xTaskCreate(echo_task, "eb_echo", ECHO_STACK, NULL, ECHO_PRIO, NULL);
}
