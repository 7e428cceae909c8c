/* Placeholder until the merge command lands; replaced by its owner. */
#include <stdio.h>
#include "commands.h"

const char cmd_merge_usage[] = "usage: espbench merge ...\n";

int cmd_merge(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "espbench merge: not available in this build\n");
    return EB_ECONFIG;
}
