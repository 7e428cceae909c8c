/* Placeholder until the detect command lands; replaced by its owner. */
#include <stdio.h>
#include "commands.h"

const char cmd_detect_usage[] = "usage: espbench detect ...\n";

int cmd_detect(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "espbench detect: not available in this build\n");
    return EB_ECONFIG;
}
