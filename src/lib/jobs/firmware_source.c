/* Image lists from FILE@OFFSET arguments, ESP-IDF build directories
 * (flasher_args.json) and firmware manifests (docs/firmware-manifest.md). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "espbench/fetch.h"
#include "espbench/firmware_source.h"
#include "espbench/fs.h"
#include "espbench/sha256.h"

void eb_image_set_free(eb_image_set *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++) {
        free((void *)s->regions[i].data);
        free((void *)s->regions[i].name);
    }
    free(s->regions);
    memset(s, 0, sizeof *s);
}

/* Firmware images and build descriptions: 64 MB is beyond any ESP flash. */
#define IMAGE_MAX_BYTES (64u << 20)

static int read_file_what(const char *what, const char *path, uint8_t **data, size_t *len, eb_error *err)
{
    eb_buf b;
    eb_buf_init(&b);
    int rc = eb_file_read(path, IMAGE_MAX_BYTES, NULL, &b, err);
    if (rc) {
        eb_buf_free(&b);
        eb_error_prefix(err, "%s ", what);
        return rc;
    }
    eb_buf_reserve(&b, 0); /* never NULL, also for an empty file */
    *data = b.data;
    *len = b.len;
    return EB_OK;
}

static int read_file(const char *path, uint8_t **data, size_t *len, eb_error *err)
{
    return read_file_what("image", path, data, len, err);
}

static int add_file(eb_image_set *s, const char *path, uint32_t offset, eb_error *err)
{
    uint8_t *data;
    size_t len;
    int rc = read_file(path, &data, &len, err);
    if (rc)
        return rc;
    eb_flash_region *r = realloc(s->regions, (size_t)(s->n + 1) * sizeof *r);
    if (!r) {
        free(data);
        return eb_fail(err, EB_EIO, "out of memory");
    }
    s->regions = r;
    s->regions[s->n++] = (eb_flash_region){.offset = offset, .data = data, .len = len, .name = strdup(path)};
    return EB_OK;
}

static int parse_offset(const char *text, uint32_t *out)
{
    if (!text || !*text)
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || *end || v > 0xFFFFFFFFull || text[0] == '-')
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int eb_image_set_add_arg(eb_image_set *s, const char *arg, eb_error *err)
{
    const char *at = strrchr(arg, '@');
    uint32_t off;
    if (!at || at == arg || parse_offset(at + 1, &off) != 0)
        return eb_fail(err, EB_ECONFIG, "'%s': expected IMAGE@OFFSET, e.g. app.bin@0x10000", arg);
    char path[1024];
    snprintf(path, sizeof path, "%.*s", (int)(at - arg), arg);
    return add_file(s, path, off, err);
}

static void sort_regions(eb_image_set *s)
{
    for (int i = 1; i < s->n; i++)
        for (int j = i; j > 0 && s->regions[j - 1].offset > s->regions[j].offset; j--) {
            eb_flash_region t = s->regions[j];
            s->regions[j] = s->regions[j - 1];
            s->regions[j - 1] = t;
        }
}

static cJSON *load_json(const char *path, eb_error *err)
{
    uint8_t *data;
    size_t len;
    if (read_file_what(strstr(path, "flasher_args") ? "build description" : "manifest", path, &data, &len, err))
        return NULL;
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts((const char *)data, len, &end, 0);
    if (!j) {
        /* Report where the parser stopped as line:col. */
        size_t at = end ? (size_t)(end - (const char *)data) : 0;
        int line = 1, col = 1;
        for (size_t i = 0; i < at && i < len; i++, col++)
            if (data[i] == '\n')
                line++, col = 0;
        eb_fail(err, EB_ECONFIG, "%s:%d:%d: invalid JSON", path, line, col);
    }
    free(data);
    return j;
}

int eb_image_set_from_build_dir(eb_image_set *s, const char *dir, eb_error *err)
{
    char path[1100], base[1024];
    snprintf(base, sizeof base, "%s", dir);
    snprintf(path, sizeof path, "%s/flasher_args.json", base);
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(base, sizeof base, "%.1000s/build", dir);
        snprintf(path, sizeof path, "%s/flasher_args.json", base);
        if (stat(path, &st) != 0)
            return eb_fail(err, EB_ECONFIG, "%s: no flasher_args.json here or in build/; is this an ESP-IDF build directory (run 'idf.py build')?", dir);
    }
    eb_error_clear(err);
    cJSON *j = load_json(path, err);
    if (!j)
        return err ? err->code : EB_ECONFIG;
    int rc = EB_OK;
    cJSON *files = cJSON_GetObjectItemCaseSensitive(j, "flash_files");
    if (!cJSON_IsObject(files) || !files->child) {
        rc = eb_fail(err, EB_ECONFIG, "%s: no \"flash_files\" object", path);
        goto out;
    }
    cJSON *extra = cJSON_GetObjectItemCaseSensitive(j, "extra_esptool_args");
    cJSON *chip = extra ? cJSON_GetObjectItemCaseSensitive(extra, "chip") : NULL;
    if (cJSON_IsString(chip))
        snprintf(s->chip, sizeof s->chip, "%s", chip->valuestring);
    for (cJSON *f = files->child; f && !rc; f = f->next) {
        uint32_t off;
        if (parse_offset(f->string, &off) != 0 || !cJSON_IsString(f)) {
            rc = eb_fail(err, EB_ECONFIG, "%s: flash_files entry \"%s\" is not OFFSET: \"FILE\"", path, f->string);
            break;
        }
        char file[2048];
        if (f->valuestring[0] == '/')
            snprintf(file, sizeof file, "%s", f->valuestring);
        else
            snprintf(file, sizeof file, "%s/%s", base, f->valuestring);
        rc = add_file(s, file, off, err);
    }
    sort_regions(s);
out:
    cJSON_Delete(j);
    return rc;
}

const char *eb_manifest_default_path(void)
{
    static char path[1024];
    const char *env = getenv("ESPBENCH_FIRMWARE");
    snprintf(path, sizeof path, "%s/manifest.json", env && *env ? env : ESPBENCH_SOURCE_FIRMWARE);
    return path;
}

#define MANIFEST_MAX_SIZE (256u * 1024u * 1024u)

static const char *str_item(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Lists an object's keys, "a, b, c", for "expected one of" messages. */
static void keys_of(const cJSON *o, char *out, size_t cap)
{
    out[0] = '\0';
    for (const cJSON *c = o ? o->child : NULL; c; c = c->next) {
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "%s%s", n ? ", " : "", c->string);
    }
}

static int add_manifest_image(eb_image_set *s, const cJSON *img, const char *mpath, const char *mdir, int idx,
                              const eb_manifest_query *q, eb_error *err)
{
    const char *off_s = str_item(img, "offset"), *file = str_item(img, "file"), *url = str_item(img, "url");
    const char *sha = str_item(img, "sha256");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(img, "size");
    uint32_t off;
    if (!off_s || parse_offset(off_s, &off) != 0)
        return eb_fail(err, EB_ECONFIG, "%s: %s/%s image %d: \"offset\" must be a string like \"0x10000\"", mpath,
                       q->firmware, q->chip, idx);
    if (!sha || strlen(sha) != 64)
        return eb_fail(err, EB_ECONFIG, "%s: %s/%s image %d: \"sha256\" (64 hex digits) is required", mpath,
                       q->firmware, q->chip, idx);
    if (!file == !url)
        return eb_fail(err, EB_ECONFIG, "%s: %s/%s image %d: give exactly one of \"file\" and \"url\"", mpath,
                       q->firmware, q->chip, idx);
    /* The download limit: a whole byte count no larger than the biggest flash
     * (256 MiB); checked before the cast, which overflows for e.g. 1e30. */
    size_t max_bytes = 0;
    if (size) {
        double v = cJSON_IsNumber(size) ? size->valuedouble : -1;
        if (v < 1 || v > MANIFEST_MAX_SIZE || v != floor(v))
            return eb_fail(err, EB_ECONFIG, "%s: %s/%s image %d: \"size\" must be a whole number of bytes from 1 to %u",
                           mpath, q->firmware, q->chip, idx, MANIFEST_MAX_SIZE);
        max_bytes = (size_t)v;
    }
    char path[2048];
    if (url) {
        eb_fetch_opts fo = {.cache_dir = q->cache_dir, .sha256 = sha, .max_bytes = max_bytes};
        int rc = eb_fetch(url, &fo, path, sizeof path, err);
        if (rc)
            return rc;
    } else {
        if (file[0] == '/')
            snprintf(path, sizeof path, "%s", file);
        else
            snprintf(path, sizeof path, "%s/%s", mdir, file);
        char have[65];
        int rc = eb_sha256_file(path, have, err);
        if (rc)
            return rc;
        if (strcasecmp(have, sha) != 0)
            return eb_fail(err, EB_EIO, "%s: sha256 %s does not match the manifest's %s; rebuild the firmware or update %s",
                           path, have, sha, mpath);
    }
    int rc = add_file(s, path, off, err);
    if (rc == EB_OK && url) {
        free((void *)s->regions[s->n - 1].name);
        s->regions[s->n - 1].name = strdup(url);
    }
    return rc;
}

/* The consoles an image can be built for (docs/firmware-manifest.md). */
static const char *const MANIFEST_CONSOLES[] = {"uart0", "usb-serial-jtag"};

/* A firmware's optional "console": which port its console is on. */
static int manifest_console(eb_image_set *s, const cJSON *fw, const char *mpath, const char *name, eb_error *err)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(fw, "console");
    if (!c)
        return EB_OK;
    for (size_t i = 0; cJSON_IsString(c) && i < sizeof MANIFEST_CONSOLES / sizeof MANIFEST_CONSOLES[0]; i++) {
        if (strcmp(c->valuestring, MANIFEST_CONSOLES[i]) == 0) {
            snprintf(s->console, sizeof s->console, "%s", c->valuestring);
            return EB_OK;
        }
    }
    return eb_fail(err, EB_ECONFIG, "%s: firmware '%s': \"console\" must be \"uart0\" or \"usb-serial-jtag\"", mpath,
                   name);
}

int eb_image_set_from_manifest(eb_image_set *s, const eb_manifest_query *q, eb_error *err)
{
    const char *mpath = q->manifest ? q->manifest : eb_manifest_default_path();
    if (!q->firmware || !q->chip)
        return eb_fail(err, EB_ECONFIG, "firmware manifest lookup needs a firmware name and a chip");
    eb_error_clear(err);
    cJSON *j = load_json(mpath, err);
    if (!j)
        return err->code ? err->code : EB_ECONFIG;
    char tmp[1024], mdir[1024], keys[512];
    snprintf(tmp, sizeof tmp, "%s", mpath);
    snprintf(mdir, sizeof mdir, "%s", dirname(tmp));
    int rc = EB_OK;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(j, "schema");
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(j, "firmware");
    if (!cJSON_IsNumber(schema) || schema->valueint != 1 || !cJSON_IsObject(all)) {
        rc = eb_fail(err, EB_ECONFIG, "%s: not an espbench firmware manifest (needs \"schema\": 1 and a \"firmware\" object)", mpath);
        goto out;
    }
    const cJSON *fw = cJSON_GetObjectItemCaseSensitive(all, q->firmware);
    if (!cJSON_IsObject(fw)) {
        keys_of(all, keys, sizeof keys);
        rc = eb_fail(err, EB_ECONFIG, "%s: no firmware '%s' (known: %s)", mpath, q->firmware, keys);
        goto out;
    }
    rc = manifest_console(s, fw, mpath, q->firmware, err);
    if (rc)
        goto out;
    const cJSON *chips = cJSON_GetObjectItemCaseSensitive(fw, "chips");
    const cJSON *entry = cJSON_GetObjectItemCaseSensitive(chips, q->chip);
    if (!cJSON_IsObject(entry)) {
        keys_of(chips, keys, sizeof keys);
        rc = eb_fail(err, EB_ECONFIG, "%s: firmware '%s' has no build for %s (has: %s)", mpath, q->firmware, q->chip, keys);
        goto out;
    }
    /* Stock firmware without run-time tiers has one build per tier. */
    const cJSON *tiers = cJSON_GetObjectItemCaseSensitive(entry, "tiers");
    if (cJSON_IsObject(tiers)) {
        keys_of(tiers, keys, sizeof keys);
        if (!q->tier) {
            rc = eb_fail(err, EB_ECONFIG, "%s: firmware '%s' for %s is built per tier; choose one with --tier (%s)", mpath,
                         q->firmware, q->chip, keys);
            goto out;
        }
        entry = cJSON_GetObjectItemCaseSensitive(tiers, q->tier);
        if (!cJSON_IsObject(entry)) {
            rc = eb_fail(err, EB_ECONFIG, "%s: firmware '%s' for %s has no tier '%s' (has: %s)", mpath, q->firmware,
                         q->chip, q->tier, keys);
            goto out;
        }
    }
    const cJSON *images = cJSON_GetObjectItemCaseSensitive(entry, "images");
    if (!cJSON_IsArray(images) || cJSON_GetArraySize(images) == 0) {
        rc = eb_fail(err, EB_ECONFIG, "%s: firmware '%s' for %s: \"images\" must be a non-empty array", mpath, q->firmware, q->chip);
        goto out;
    }
    int idx = 0;
    for (const cJSON *img = images->child; img && !rc; img = img->next, idx++)
        rc = add_manifest_image(s, img, mpath, mdir, idx, q, err);
    snprintf(s->chip, sizeof s->chip, "%s", q->chip);
    sort_regions(s);
out:
    cJSON_Delete(j);
    return rc;
}
