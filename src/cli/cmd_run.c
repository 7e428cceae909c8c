/* Placeholder until the run command lands; replaced by its owner. */
#include <stdio.h>
#include "commands.h"

const char cmd_run_usage[] = "usage: espbench run ...\n";

int cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "espbench run: not available in this build\n");
    return EB_ECONFIG;
}
