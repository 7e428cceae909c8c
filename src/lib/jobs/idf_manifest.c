/* A firmware manifest (docs/firmware-manifest.md) of cached ESP-IDF builds
 * (idf_build.h): `espbench build --manifest FILE`, so that `run --manifest
 * FILE --firmware NAME` flashes each tier's own image where a tier needs its
 * build-time settings. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "espbench/base/fs.h"
#include "espbench/base/sha256.h"
#include "espbench/jobs/firmware_source.h"
#include "espbench/jobs/idf_build.h"

/* images[] of one build folder: offset, file:// URL of the image, its SHA-256. */
static cJSON *images_of(const char *build_dir, eb_error *err)
{
    eb_image_set set = {0};
    if (eb_image_set_from_build_dir(&set, build_dir, err))
        return NULL;
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < set.n; i++) {
        const eb_flash_region *r = &set.regions[i];
        char abs[PATH_MAX], url[PATH_MAX + 8], off[16], hex[65];
        if (!realpath(r->name, abs))
            snprintf(abs, sizeof abs, "%s", r->name);
        snprintf(url, sizeof url, "file://%s", abs);
        snprintf(off, sizeof off, "0x%x", (unsigned)r->offset);
        eb_sha256_hex(r->data, r->len, hex, NULL);
        cJSON *img = cJSON_CreateObject();
        cJSON_AddStringToObject(img, "offset", off);
        cJSON_AddStringToObject(img, "url", url);
        cJSON_AddStringToObject(img, "sha256", hex);
        cJSON_AddItemToArray(arr, img);
    }
    eb_image_set_free(&set);
    return arr;
}

static cJSON *child(cJSON *o, const char *key)
{
    cJSON *c = cJSON_GetObjectItemCaseSensitive(o, key);
    return c ? c : cJSON_AddObjectToObject(o, key);
}

int eb_idf_manifest_write(const char *path, const char *firmware, const eb_idf_manifest_item *items, int n,
                          eb_error *err)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema", 1);
    cJSON *fw = child(child(root, "firmware"), firmware);
    cJSON_AddStringToObject(fw, "description", "built by espbench build (ESP-IDF build cache)");
    cJSON_AddStringToObject(fw, "console", "uart0");
    cJSON *chips = child(fw, "chips");
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        const eb_idf_manifest_item *it = &items[i];
        cJSON *imgs = images_of(it->build_dir, err);
        if (!imgs) {
            rc = err->code;
            break;
        }
        cJSON *chip = child(chips, it->chip);
        if (!cJSON_GetObjectItemCaseSensitive(chip, "idf"))
            cJSON_AddStringToObject(chip, "idf", it->idf_version);
        cJSON *slot = it->tier ? child(child(chip, "tiers"), it->tier) : chip;
        cJSON_DeleteItemFromObjectCaseSensitive(slot, "images");
        cJSON_AddItemToObject(slot, "images", imgs);
    }
    if (!rc) {
        char *text = cJSON_Print(root);
        rc = text ? eb_file_write_atomic(path, text, strlen(text), err) : eb_fail(err, EB_EIO, "out of memory");
        free(text);
    }
    cJSON_Delete(root);
    return rc;
}
