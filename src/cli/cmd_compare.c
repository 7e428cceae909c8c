/* Placeholder until the compare command lands; replaced by its owner. */
#include <stdio.h>
#include "commands.h"

const char cmd_compare_usage[] = "usage: espbench compare ...\n";

int cmd_compare(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "espbench compare: not available in this build\n");
    return EB_ECONFIG;
}
