/* Placeholder until the flash command lands; replaced by its owner. */
#include <stdio.h>
#include "commands.h"

const char cmd_flash_usage[] = "usage: espbench flash ...\n";

int cmd_flash(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "espbench flash: not available in this build\n");
    return EB_ECONFIG;
}
