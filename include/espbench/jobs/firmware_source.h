/* Where images to flash come from: FILE@OFFSET arguments, an ESP-IDF build
 * directory (flasher_args.json), or a firmware manifest (docs/firmware-manifest.md)
 * with local files or URLs fetched into the cache. The result is a list of
 * regions for eb_flash_write(). */
#ifndef ESPBENCH_FIRMWARE_SOURCE_H
#define ESPBENCH_FIRMWARE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/base/error.h"
#include "espbench/jobs/flash.h"

typedef struct eb_image_set {
    eb_flash_region *regions; /* data owned by the set */
    int n;
    char chip[24];            /* chip named by the source ("" when it names none) */
    char console[24];         /* manifest "console" ("uart0", "usb-serial-jtag"; "" when not given) */
} eb_image_set;

void eb_image_set_free(eb_image_set *s);

/* "FILE@0x10000" (offset decimal or 0x hex). Appends to set. */
int eb_image_set_add_arg(eb_image_set *s, const char *arg, eb_error *err);
/* Reads DIR/flasher_args.json (or DIR/build/flasher_args.json). */
int eb_image_set_from_build_dir(eb_image_set *s, const char *dir, eb_error *err);

typedef struct eb_manifest_query {
    const char *manifest;    /* path; NULL = the source tree's / installed firmware/manifest.json */
    const char *firmware;    /* firmware name, e.g. "espbench" or "iperf-example-v5.4" */
    const char *chip;        /* "esp32c3" */
    const char *tier;        /* for stock firmware built per tier; NULL otherwise */
    const char *cache_dir;   /* for URL images; NULL = eb_cache_dir() */
} eb_manifest_query;
/* Looks the images up in a manifest; files are read relative to the
 * manifest's directory, URLs fetched (eb_fetch). Every image's sha256 is
 * checked before use. */
int eb_image_set_from_manifest(eb_image_set *s, const eb_manifest_query *q, eb_error *err);
/* One image of a manifest entry, checked: a "file" below the manifest's
 * directory (no absolute path, no ".."), or an http(s) "url"; 64-hex sha256. */
#define EB_MANIFEST_MAX_IMAGES 64
typedef struct eb_manifest_image {
    uint32_t offset;
    bool is_url;
    char ref[1024];          /* file (relative to the manifest) or URL */
    char sha256[65];
    size_t max_bytes;        /* "size" (download limit); 0 = the default */
    char console[24];        /* the firmware's "console" ("" when not given) */
} eb_manifest_image;
/* Pure part of eb_image_set_from_manifest: parses manifest text (mpath names
 * it in messages) and returns the query's images (malloc'd, *n of them). */
int eb_manifest_lookup(const char *text, size_t len, const char *mpath, const eb_manifest_query *q,
                       eb_manifest_image **out, int *n, eb_error *err);
/* Default manifest path: $ESPBENCH_FIRMWARE/manifest.json, else the source
 * tree's firmware/manifest.json. */
const char *eb_manifest_default_path(void);

#endif
