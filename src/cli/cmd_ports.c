/* espbench ports: local serial ports with USB VID:PID, serial number and the
 * kind of USB-UART (Espressif USB-Serial/JTAG, CP210x, CH340, FTDI). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "espbench/adapters/port.h"

const char cmd_ports_usage[] =
    "usage: espbench ports\n"
    "\n"
    "Lists local serial ports, one per line: path, USB VID:PID, USB serial number,\n"
    "kind (Espressif USB-Serial/JTAG 303A:1001, CP210x, CH340, FTDI) and description.\n"
    "Remote ports are not listed; use rfc2217://HOST:PORT or socket://HOST:PORT with --port.\n";

int cmd_ports(int argc, char **argv)
{
    static const struct option opts[] = {{0, 0, 0, 0}};
    optind = 1;
    opterr = 0; /* one message, ours, naming the option */
    int c;
    while ((c = cli_getopt(argc, argv, "", opts)) != -1)
        return cli_option_error("ports");
    if (optind < argc)
        return cli_usage_error("ports", "unexpected argument '%s'", argv[optind]);
    eb_port_info *ports;
    int n;
    eb_error err;
    eb_error_clear(&err);
    if (eb_port_list(&ports, &n, &err) != EB_OK)
        return cli_error(&err);
    if (n == 0) {
        fprintf(stderr, "espbench: no local serial ports found (is the board plugged in?)\n");
        free(ports);
        return 0;
    }
    printf("%-24s %-9s %-20s %-26s %s\n", "PORT", "VID:PID", "SERIAL", "KIND", "DESCRIPTION");
    for (int i = 0; i < n; i++) {
        char vidpid[16] = "-";
        if (ports[i].vid || ports[i].pid)
            snprintf(vidpid, sizeof vidpid, "%04X:%04X", ports[i].vid, ports[i].pid);
        printf("%-24s %-9s %-20s %-26s %s\n", ports[i].path, vidpid, ports[i].serial[0] ? ports[i].serial : "-",
               ports[i].kind ? ports[i].kind : "-", ports[i].description[0] ? ports[i].description : "-");
    }
    free(ports);
    return 0;
}
