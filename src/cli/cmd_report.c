/* Placeholder until the report command lands; replaced by its owner. */
#include <stdio.h>
#include "commands.h"

const char cmd_report_usage[] = "usage: espbench report ...\n";

int cmd_report(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "espbench report: not available in this build\n");
    return EB_ECONFIG;
}
