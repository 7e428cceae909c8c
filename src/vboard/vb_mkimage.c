/* `espbench-vboard mkimage` (see vb_mkimage.h, docs/vboard.md). */
#include "vb_mkimage.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/esp_image.h"
#include "espbench/formats/profile.h"
#include "espbench/adapters/profile_dirs.h"
#include "vb_args.h"

/* Header byte 3, high nibble: flash size code. ESP32+: 1 MB << n; ESP8266 has its own table. */
static uint8_t flash_size_code(size_t bytes, bool esp8266)
{
    static const struct { size_t mb; uint8_t code32, code8266; } t[] = {
        {1, 0, 2}, {2, 1, 3}, {4, 2, 4}, {8, 3, 8}, {16, 4, 9}, {32, 5, 9}, {64, 6, 9}, {128, 7, 9},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].mb * 1024 * 1024 == bytes)
            return esp8266 ? t[i].code8266 : t[i].code32;
    return esp8266 ? 4 : 2;
}

int vb_mkimage_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"chip", required_argument, NULL, 'c'},    {"project", required_argument, NULL, 'p'},
        {"idf", required_argument, NULL, 'i'},     {"version", required_argument, NULL, 'v'},
        {"size", required_argument, NULL, 's'},    {"seed", required_argument, NULL, 'S'},
        {"profiles", required_argument, NULL, 'P'}, {"output", required_argument, NULL, 'o'},
        {"test-efficiency", required_argument, NULL, 'E'}, {"test-build-tier", required_argument, NULL, 'T'},
        {NULL, 0, NULL, 0},
    };
    const char *chip = NULL, *project = NULL, *idf = NULL, *version = "1.0.0", *out = NULL, *pdir = NULL;
    const char *build_tier = NULL;
    unsigned long size = 786432, seed = 1;
    double efficiency = 0;
    char *end;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': chip = optarg; break;
        case 'p': project = optarg; break;
        case 'i': idf = optarg; break;
        case 'v': version = optarg; break;
        case 'o': out = optarg; break;
        case 'P': pdir = optarg; break;
        case 'T': build_tier = optarg; break;
        case 's':
            size = strtoul(optarg, &end, 0);
            if (!*optarg || *end) {
                fprintf(stderr, "espbench-vboard mkimage: --size %s: not a number of bytes\n", optarg);
                return EB_ECONFIG;
            }
            break;
        case 'E':
            efficiency = strtod(optarg, &end);
            if (!*optarg || *end || !(efficiency > 0 && efficiency <= 4)) {
                fprintf(stderr, "espbench-vboard mkimage: --test-efficiency %s: not a factor in (0, 4]\n", optarg);
                return EB_ECONFIG;
            }
            break;
        case 'S':
            seed = strtoul(optarg, &end, 0);
            if (!*optarg || *end) {
                fprintf(stderr, "espbench-vboard mkimage: --seed %s: not a number\n", optarg);
                return EB_ECONFIG;
            }
            break;
        case ':':
            fprintf(stderr, "espbench-vboard mkimage: %s needs a value; see 'espbench-vboard --help'\n", argv[optind - 1]);
            return EB_ECONFIG;
        default:
            fprintf(stderr, "espbench-vboard mkimage: unknown option %s; see 'espbench-vboard --help'\n", argv[optind - 1]);
            return EB_ECONFIG;
        }
    }
    if (!chip || !project || !idf || !out) {
        fprintf(stderr, "espbench-vboard mkimage: --chip, --project, --idf and -o are required; see 'espbench-vboard --help'\n");
        return EB_ECONFIG;
    }
    if (strlen(project) > 31 || strlen(idf) > 31 || strlen(version) > 31) {
        fprintf(stderr, "espbench-vboard mkimage: --project, --idf and --version hold at most 31 characters\n");
        return EB_ECONFIG;
    }
    eb_profiles prof;
    eb_error err;
    int rc = eb_profiles_load_default(&prof, pdir, &err);
    if (rc) {
        fprintf(stderr, "espbench-vboard mkimage: %s\n", err.msg);
        return rc;
    }
    const eb_chip *ch = eb_profiles_chip(&prof, chip);
    if (!ch) {
        fprintf(stderr, "espbench-vboard mkimage: --chip %s: no such chip in the profiles\n", chip);
        eb_profiles_free(&prof);
        return EB_ECONFIG;
    }
    if (build_tier && !eb_chip_tier(ch, build_tier)) {
        fprintf(stderr, "espbench-vboard mkimage: --test-build-tier %s: no such tier of %s in the profiles\n",
                build_tier, chip);
        eb_profiles_free(&prof);
        return EB_ECONFIG;
    }
    bool esp8266 = ch->image_format == EB_IMAGE_ESP8266;
    if (!ch->has_memory_map) {
        fprintf(stderr, "espbench-vboard mkimage: --chip %s: its profile (%s) has no 'memory_map'; add one to the "
                        "chip section (esptool's IROM/DROM_MAP_START and MEMORY_MAP)\n", chip, ch->file);
        eb_profiles_free(&prof);
        return EB_ECONFIG;
    }
    eb_memory_map mem = ch->mem;
    eb_image_spec spec = {
        .mem = &mem,
        .chip_id = esp8266 ? -1 : ch->chip_id,
        .project_name = project,
        .version = version,
        .idf_ver = idf,
        .size = size,
        .seed = (uint32_t)seed,
        .test_efficiency = efficiency,
        .test_build_tier = build_tier,
        .flash_size_freq = (uint8_t)(flash_size_code(ch->flash_size, esp8266) << 4),
    };
    eb_profiles_free(&prof);
    eb_buf img;
    eb_buf_init(&img);
    rc = eb_image_build(&spec, &img, &err);
    if (rc) {
        fprintf(stderr, "espbench-vboard mkimage: %s\n", err.msg);
        eb_buf_free(&img);
        return rc;
    }
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(img.data, 1, img.len, f) != img.len || fclose(f) != 0) {
        fprintf(stderr, "espbench-vboard mkimage: cannot write %s: %s\n", out, strerror(errno));
        eb_buf_free(&img);
        return EB_EIO;
    }
    eb_buf_free(&img);
    return 0;
}
