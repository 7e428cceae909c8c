/* Placeholder until the profiles command lands; replaced by its owner. */
#include <stdio.h>
#include "commands.h"

const char cmd_profiles_usage[] = "usage: espbench profiles ...\n";

int cmd_profiles(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "espbench profiles: not available in this build\n");
    return EB_ECONFIG;
}
