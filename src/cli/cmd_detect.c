/* espbench detect: chip, MAC, flash size and loader on a port. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "espbench/jobs/flash.h"
#include "espbench/adapters/profile_dirs.h"

const char cmd_detect_usage[] =
    "usage: espbench detect --port PORT [--before MODE] [--after MODE]\n"
    "\n"
    "Resets the board into the ROM loader, then prints the chip (matched against the\n"
    "profiles), its MAC from eFuse, the flash size (from the flash's JEDEC id) and\n"
    "whether the ROM or a stub answered. PORT is /dev/ttyUSB0, COM3, /dev/pts/N,\n"
    "rfc2217://HOST:PORT[?ign_set_control] or socket://HOST:PORT.\n"
    "  --before MODE  default-reset (by USB VID:PID), classic, tight, usb-reset,\n"
    "                 no-reset, no-reset-no-sync\n"
    "  --after MODE   hard-reset (default) or no-reset; on a port without DTR/RTS\n"
    "                 (socket://, rfc2217 with ign_set_control, a pty) the board stays\n"
    "                 in the ROM loader unless --after hard-reset is given, so that a\n"
    "                 following 'espbench flash' finds it there\n";

int cmd_detect(int argc, char **argv)
{
    static const struct option opts[] = {
        {"port", required_argument, 0, 'p'},
        {"before", required_argument, 0, 'b'},
        {"after", required_argument, 0, 'a'},
        {0, 0, 0, 0},
    };
    const char *port = NULL, *before = NULL, *after = NULL;
    optind = 1;
    opterr = 0; /* one message, ours, naming the option */
    int c;
    while ((c = cli_getopt(argc, argv, "p:", opts)) != -1) {
        switch (c) {
        case 'p': port = optarg; break;
        case 'b': before = optarg; break;
        case 'a': after = optarg; break;
        default: return cli_option_error("detect");
        }
    }
    if (optind < argc)
        return cli_usage_error("detect", "unexpected argument '%s'", argv[optind]);
    if (!port)
        return cli_usage_error("detect", "--port is required");
    eb_error err;
    eb_error_clear(&err);
    eb_profiles prof;
    if (eb_profiles_load_default(&prof, cli_profiles_dir, &err) != EB_OK)
        return cli_error(&err);
    eb_flash_opts fo = {.profiles = &prof, .baud = EB_ROM_BAUD, .before = before, .after = after,
                        .stay_without_lines = true};
    eb_flash_session *s;
    int rc = eb_flash_open(&s, port, &fo, &err);
    if (rc == EB_OK) {
        const eb_rom_chip_info *i = eb_flash_chip(s);
        printf("port:    %s\n", port);
        printf("chip:    %s (%s, chip id %d, found by %s)\n", i->chip->display, i->chip->name, i->chip_id,
               i->by_security_info ? "GET_SECURITY_INFO" : "magic register");
        printf("mac:     %02x:%02x:%02x:%02x:%02x:%02x%s\n", i->mac[0], i->mac[1], i->mac[2], i->mac[3], i->mac[4],
               i->mac[5], i->mac_blank ? " (blank eFuse)" : "");
        if (i->flash_size_detected)
            /* RDID byte order: manufacturer, memory type, capacity ("ef4016"). */
            printf("flash:   %u MB (JEDEC id %02x%02x%02x)\n", i->flash_size >> 20, i->flash_id & 0xFF,
                   (i->flash_id >> 8) & 0xFF, (i->flash_id >> 16) & 0xFF);
        else
            printf("flash:   %u MB (not detected; the %s default)\n", i->flash_size >> 20, i->chip->display);
        printf("loader:  %s\n", i->stub ? "stub" : "ROM");
        rc = eb_flash_reset_after(s, &err);
        if (rc == EB_OK)
            printf("after:   %s\n", eb_flash_left_in_loader(s) ? "left in the ROM loader" : "reset into the application");
        eb_flash_close(s);
    }
    eb_profiles_free(&prof);
    return rc == EB_OK ? 0 : cli_error(&err);
}
