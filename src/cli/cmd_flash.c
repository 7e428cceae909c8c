/* espbench flash: write images through the ROM loader, skipping unchanged
 * regions and verifying every written one by MD5. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "espbench/jobs/firmware_source.h"
#include "espbench/jobs/flash.h"
#include "espbench/adapters/profile_dirs.h"

const char cmd_flash_usage[] =
    "usage: espbench flash --port PORT [--chip CHIP] [--baud BAUD] [--before MODE] [--after MODE]\n"
    "                      [--no-skip] [--no-verify] [--no-compress] [--stub auto|off|FILE]\n"
    "                      (IMAGE@OFFSET... | --build-dir DIR | --firmware NAME [--tier TIER] [--manifest FILE])\n"
    "\n"
    "Writes images through Espressif's flasher stub when one is installed (esptool,\n"
    "esptool-js), else through the chip's ROM serial loader: zlib-compressed blocks, an\n"
    "MD5 check of every region afterwards, and regions whose MD5 already matches are\n"
    "skipped. Then resets the board into its application.\n"
    "  IMAGE@OFFSET     a .bin at a flash offset, e.g. app.bin@0x10000 (several allowed)\n"
    "  --build-dir DIR  an ESP-IDF build directory (reads flasher_args.json)\n"
    "  --firmware NAME  images for the detected chip from the firmware manifest\n"
    "                   (docs/firmware-manifest.md); --tier for firmware built per tier;\n"
    "                   --manifest FILE instead of firmware/manifest.json\n"
    "  --chip CHIP      refuse to flash any other chip\n"
    "  --baud BAUD      baud for writing (default 921600; 115200 if the board cannot switch)\n"
    "  --before MODE    default-reset (by USB VID:PID), classic, tight, usb-reset, no-reset,\n"
    "                   no-reset-no-sync\n"
    "  --after MODE     hard-reset (default) or no-reset\n"
    "  --no-skip        write even regions whose MD5 already matches\n"
    "  --no-verify      do not read the MD5 back after writing\n"
    "  --no-compress    send plain blocks (esptool --no-compress)\n"
    "  --stub WHAT      auto (default: an installed esptool's or esptool-js's flasher stub,\n"
    "                   or a pinned esp-flasher-stub download), off (the ROM loader), or a\n"
    "                   stub JSON FILE\n"
    "PORT: /dev/ttyUSB0, COM3, /dev/pts/N, rfc2217://HOST:PORT[?ign_set_control], socket://HOST:PORT.\n";

typedef struct {
    int tty;
    const eb_image_set *set;
} progress_view;

static const char *region_name(const progress_view *v, int i)
{
    return v->set && i < v->set->n && v->set->regions[i].name ? v->set->regions[i].name : "image";
}

/* Terminal: one redrawn bar (bytes, rate, ETA). Otherwise: plain lines. */
static void on_progress(void *user, const eb_flash_progress *p)
{
    progress_view *v = user;
    if (!strcmp(p->phase, "connect")) {
        if (v->tty)
            printf("connecting...\r");
        fflush(stdout);
        return;
    }
    const char *name = region_name(v, p->region);
    if (!strcmp(p->phase, "write") && p->total && p->done) {
        if (!v->tty)
            return;
        /* Redraw at most ten times a second, and always at the end. */
        static uint64_t last_draw;
        uint64_t now = eb_now_ms();
        if (p->done < p->total && now - last_draw < 100)
            return;
        last_draw = now;
        double secs = (double)p->elapsed_ms / 1000.0;
        double rate = secs > 0 ? (double)p->done / secs : 0;
        double eta = rate > 0 ? (double)(p->total - p->done) / rate : 0;
        int pct = (int)(100.0 * (double)p->done / (double)p->total);
        char bar[31];
        int fill = pct * 30 / 100;
        for (int i = 0; i < 30; i++)
            bar[i] = i < fill ? '=' : ' ';
        bar[30] = '\0';
        printf("\r0x%06x [%s] %3d%% %zu/%zu B %6.1f KiB/s ETA %3.0fs ", p->offset, bar, pct, p->done, p->total,
               rate / 1024.0, eta);
        fflush(stdout);
        return;
    }
    if (!strcmp(p->phase, "skip")) {
        printf("%s0x%06x %s: unchanged (MD5 matches), skipped\n", v->tty ? "\r\033[K" : "", p->offset, name);
    } else if (!strcmp(p->phase, "write") && !v->tty) {
        printf("0x%06x %s: writing %zu bytes\n", p->offset, name, p->total);
    } else if (!strcmp(p->phase, "done")) {
        double secs = (double)p->elapsed_ms / 1000.0;
        printf("%s0x%06x %s: wrote %zu bytes (%zu compressed) in %.1f s, %.1f KiB/s, MD5 verified\n",
               v->tty ? "\r\033[K" : "", p->offset, name, p->total, p->wire_total, secs,
               secs > 0 ? (double)p->total / secs / 1024.0 : 0.0);
    }
    fflush(stdout);
}

int cmd_flash(int argc, char **argv)
{
    static const struct option opts[] = {
        {"port", required_argument, 0, 'p'},      {"chip", required_argument, 0, 'c'},
        {"baud", required_argument, 0, 'B'},      {"before", required_argument, 0, 'b'},
        {"after", required_argument, 0, 'a'},     {"build-dir", required_argument, 0, 'd'},
        {"firmware", required_argument, 0, 'f'},  {"tier", required_argument, 0, 't'},
        {"manifest", required_argument, 0, 'm'},  {"no-skip", no_argument, 0, 'S'},
        {"no-verify", no_argument, 0, 'V'},       {"no-compress", no_argument, 0, 'u'},
        {"stub", required_argument, 0, 's'},      {0, 0, 0, 0},
    };
    const char *port = NULL, *chip = NULL, *build_dir = NULL, *firmware = NULL, *tier = NULL, *manifest = NULL;
    eb_flash_opts fo = {.stub = "auto"};
    optind = 1;
    opterr = 0; /* one message, ours, naming the option */
    int c;
    while ((c = cli_getopt(argc, argv, "p:c:b:", opts)) != -1) {
        switch (c) {
        case 'p': port = optarg; break;
        case 'c': chip = optarg; break;
        case 'B': {
            char *end;
            unsigned long b = strtoul(optarg, &end, 10);
            if (*end || b < 9600 || b > 4000000)
                return cli_usage_error("flash", "--baud '%s' is not a baud rate between 9600 and 4000000", optarg);
            fo.baud = (uint32_t)b;
            break;
        }
        case 'b': fo.before = optarg; break;
        case 'a': fo.after = optarg; break;
        case 'd': build_dir = optarg; break;
        case 'f': firmware = optarg; break;
        case 't': tier = optarg; break;
        case 'm': manifest = optarg; break;
        case 'S': fo.no_skip = true; break;
        case 'V': fo.no_verify = true; break;
        case 'u': fo.no_compress = true; break;
        case 's': fo.stub = optarg; break;
        default: return cli_option_error("flash");
        }
    }
    if (!port)
        return cli_usage_error("flash", "--port is required");
    int sources = (optind < argc) + (build_dir != NULL) + (firmware != NULL);
    if (sources != 1)
        return cli_usage_error("flash", "give exactly one of IMAGE@OFFSET..., --build-dir DIR or --firmware NAME");
    if (tier && !firmware)
        return cli_usage_error("flash", "--tier goes with --firmware");

    eb_error err;
    eb_error_clear(&err);
    eb_image_set set = {0};
    int rc = EB_OK;
    for (int i = optind; i < argc && rc == EB_OK; i++)
        rc = eb_image_set_add_arg(&set, argv[i], &err);
    if (rc == EB_OK && build_dir)
        rc = eb_image_set_from_build_dir(&set, build_dir, &err);
    if (rc) {
        eb_image_set_free(&set);
        return cli_error(&err);
    }
    eb_profiles prof;
    if (eb_profiles_load_default(&prof, cli_profiles_dir, &err) != EB_OK) {
        eb_image_set_free(&set);
        return cli_error(&err);
    }
    progress_view view = {.tty = cli_stdout_is_tty(), .set = &set};
    fo.profiles = &prof;
    fo.expect_chip = chip ? chip : set.chip[0] ? set.chip : NULL;
    fo.progress = on_progress;
    fo.progress_user = &view;
    uint64_t t0 = eb_now_ms();
    eb_flash_session *s = NULL;
    rc = eb_flash_open(&s, port, &fo, &err);
    if (rc == EB_OK && firmware) {
        eb_manifest_query q = {.manifest = manifest, .firmware = firmware,
                               .chip = eb_flash_chip(s)->chip->name, .tier = tier};
        rc = eb_image_set_from_manifest(&set, &q, &err);
    }
    eb_flash_region_result *res = NULL;
    if (rc == EB_OK) {
        const eb_rom_chip_info *ci = eb_flash_chip(s);
        printf("%s on %s, MAC %02x:%02x:%02x:%02x:%02x:%02x, %u MB flash, %u baud, loader: %s\n", ci->chip->display,
               port, ci->mac[0], ci->mac[1], ci->mac[2], ci->mac[3], ci->mac[4], ci->mac[5], ci->flash_size >> 20,
               eb_flash_baud(s), eb_flash_loader(s));
        res = calloc((size_t)set.n, sizeof *res);
        rc = eb_flash_write(s, set.regions, set.n, res, &err);
        if (view.tty && rc)
            printf("\n");
    }
    if (rc == EB_OK) {
        int written = 0, skipped = 0;
        for (int i = 0; i < set.n; i++)
            written += res[i].written, skipped += res[i].skipped;
        rc = eb_flash_reset_after(s, &err);
        if (rc == EB_OK)
            printf("flashed %d region%s (%d written, %d unchanged) in %.1f s; %s\n", set.n, set.n == 1 ? "" : "s",
                   written, skipped, (double)(eb_now_ms() - t0) / 1000.0,
                   eb_flash_left_in_loader(s) ? "left in the ROM loader" : "reset into the application");
    }
    free(res);
    eb_flash_close(s);
    eb_image_set_free(&set);
    eb_profiles_free(&prof);
    return rc == EB_OK ? 0 : cli_error(&err);
}
