/* Placeholder until the parse command lands; replaced by its owner. */
#include <stdio.h>
#include "commands.h"

const char cmd_parse_usage[] = "usage: espbench parse ...\n";

int cmd_parse(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "espbench parse: not available in this build\n");
    return EB_ECONFIG;
}
