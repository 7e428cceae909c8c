/* Placeholder until the ports command lands; replaced by its owner. */
#include <stdio.h>
#include "commands.h"

const char cmd_ports_usage[] = "usage: espbench ports ...\n";

int cmd_ports(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "espbench ports: not available in this build\n");
    return EB_ECONFIG;
}
