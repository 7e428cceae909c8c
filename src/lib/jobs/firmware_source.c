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

#include "espbench/adapters/fetch.h"
#include "espbench/jobs/firmware_source.h"
#include "espbench/base/fs.h"
#include "espbench/base/sha256.h"

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

/* Checks one "images" entry and fills img. No I/O. */
static int check_manifest_image(const cJSON *img, const char *mpath, int idx, const eb_manifest_query *q,
                                eb_manifest_image *out, eb_error *err)
{
    const char *off_s = str_item(img, "offset"), *file = str_item(img, "file"), *url = str_item(img, "url");
    const char *sha = str_item(img, "sha256");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(img, "size");
    memset(out, 0, sizeof *out);
    if (!off_s || parse_offset(off_s, &out->offset) != 0)
        return eb_fail(err, EB_ECONFIG, "%s: %s/%s image %d: \"offset\" must be a string like \"0x10000\"", mpath,
                       q->firmware, q->chip, idx);
    if (!sha || strlen(sha) != 64 || strspn(sha, "0123456789abcdefABCDEF") != 64)
        return eb_fail(err, EB_ECONFIG, "%s: %s/%s image %d: \"sha256\" (64 hex digits) is required", mpath,
                       q->firmware, q->chip, idx);
    if (!file == !url)
        return eb_fail(err, EB_ECONFIG, "%s: %s/%s image %d: give exactly one of \"file\" and \"url\"", mpath,
                       q->firmware, q->chip, idx);
    /* Files live beside the manifest: an absolute path or a ".." component
     * would let a downloaded manifest read (and flash) any file. */
    if (file && (file[0] == '/' || !strcmp(file, "..") || !strncmp(file, "../", 3) || strstr(file, "/../") ||
                 (strlen(file) >= 3 && !strcmp(file + strlen(file) - 3, "/..")) || !file[0]))
        return eb_fail(err, EB_ECONFIG, "%s: %s/%s image %d: \"file\" \"%.200s\" points outside the manifest's directory; "
                       "give a path below it", mpath, q->firmware, q->chip, idx, file);
    /* The download limit: a whole byte count no larger than the biggest flash
     * (256 MiB); checked before the cast, which overflows for e.g. 1e30. */
    if (size) {
        double v = cJSON_IsNumber(size) ? size->valuedouble : -1;
        if (v < 1 || v > MANIFEST_MAX_SIZE || v != floor(v))
            return eb_fail(err, EB_ECONFIG, "%s: %s/%s image %d: \"size\" must be a whole number of bytes from 1 to %u",
                           mpath, q->firmware, q->chip, idx, MANIFEST_MAX_SIZE);
        out->max_bytes = (size_t)v;
    }
    if (snprintf(out->ref, sizeof out->ref, "%s", file ? file : url) >= (int)sizeof out->ref)
        return eb_fail(err, EB_ECONFIG, "%s: %s/%s image %d: \"%s\" is longer than %zu characters", mpath, q->firmware,
                       q->chip, idx, file ? "file" : "url", sizeof out->ref - 1);
    out->is_url = url != NULL;
    snprintf(out->sha256, sizeof out->sha256, "%s", sha);
    return EB_OK;
}

/* Reads one checked image (fetching a URL into the cache) into the set. */
static int add_manifest_image(eb_image_set *s, const eb_manifest_image *img, const char *mpath, const char *mdir,
                              const eb_manifest_query *q, eb_error *err)
{
    char path[2048];
    if (img->is_url) {
        eb_fetch_opts fo = {.cache_dir = q->cache_dir, .sha256 = img->sha256, .max_bytes = img->max_bytes};
        int rc = eb_fetch(img->ref, &fo, path, sizeof path, err);
        if (rc)
            return rc;
    } else {
        snprintf(path, sizeof path, "%s/%s", mdir, img->ref);
        char have[65];
        int rc = eb_sha256_file(path, have, err);
        if (rc)
            return rc;
        if (strcasecmp(have, img->sha256) != 0)
            return eb_fail(err, EB_EIO, "%s: sha256 %s does not match the manifest's %s; rebuild the firmware or update %s",
                           path, have, img->sha256, mpath);
    }
    int rc = add_file(s, path, img->offset, err);
    if (rc == EB_OK && img->is_url) {
        free((void *)s->regions[s->n - 1].name);
        s->regions[s->n - 1].name = strdup(img->ref);
    }
    return rc;
}

/* The consoles an image can be built for (docs/firmware-manifest.md). */
static const char *const MANIFEST_CONSOLES[] = {"uart0", "usb-serial-jtag"};

/* A firmware's optional "console": which port its console is on. */
static int manifest_console(const cJSON *fw, const char *mpath, const char *name, char *out, size_t cap,
                            eb_error *err)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(fw, "console");
    if (!c)
        return EB_OK;
    for (size_t i = 0; cJSON_IsString(c) && i < sizeof MANIFEST_CONSOLES / sizeof MANIFEST_CONSOLES[0]; i++) {
        if (strcmp(c->valuestring, MANIFEST_CONSOLES[i]) == 0) {
            snprintf(out, cap, "%s", c->valuestring);
            return EB_OK;
        }
    }
    return eb_fail(err, EB_ECONFIG, "%s: firmware '%s': \"console\" must be \"uart0\" or \"usb-serial-jtag\"", mpath,
                   name);
}

/* Finds the query's images in a parsed manifest and checks them. */
static int lookup_manifest(const cJSON *j, const char *mpath, const eb_manifest_query *q, eb_manifest_image **out,
                           int *n_out, eb_error *err)
{
    char keys[512];
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(j, "schema");
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(j, "firmware");
    if (!cJSON_IsNumber(schema) || schema->valuedouble != 1 || !cJSON_IsObject(all))
        return eb_fail(err, EB_ECONFIG, "%s: not an espbench firmware manifest (needs \"schema\": 1 and a \"firmware\" object)", mpath);
    const cJSON *fw = cJSON_GetObjectItemCaseSensitive(all, q->firmware);
    if (!cJSON_IsObject(fw)) {
        keys_of(all, keys, sizeof keys);
        return eb_fail(err, EB_ECONFIG, "%s: no firmware '%s' (known: %s)", mpath, q->firmware, keys);
    }
    const cJSON *chips = cJSON_GetObjectItemCaseSensitive(fw, "chips");
    const cJSON *entry = cJSON_GetObjectItemCaseSensitive(chips, q->chip);
    if (!cJSON_IsObject(entry)) {
        keys_of(cJSON_IsObject(chips) ? chips : NULL, keys, sizeof keys);
        return eb_fail(err, EB_ECONFIG, "%s: firmware '%s' has no build for %s (has: %s)", mpath, q->firmware, q->chip, keys);
    }
    /* Stock firmware without run-time tiers has one build per tier. */
    const cJSON *tiers = cJSON_GetObjectItemCaseSensitive(entry, "tiers");
    if (cJSON_IsObject(tiers)) {
        keys_of(tiers, keys, sizeof keys);
        if (!q->tier)
            return eb_fail(err, EB_ECONFIG, "%s: firmware '%s' for %s is built per tier; choose one with --tier (%s)", mpath,
                           q->firmware, q->chip, keys);
        entry = cJSON_GetObjectItemCaseSensitive(tiers, q->tier);
        if (!cJSON_IsObject(entry))
            return eb_fail(err, EB_ECONFIG, "%s: firmware '%s' for %s has no tier '%s' (has: %s)", mpath, q->firmware,
                           q->chip, q->tier, keys);
    }
    const cJSON *images = cJSON_GetObjectItemCaseSensitive(entry, "images");
    int n = cJSON_IsArray(images) ? cJSON_GetArraySize(images) : 0;
    if (n == 0 || n > EB_MANIFEST_MAX_IMAGES)
        return eb_fail(err, EB_ECONFIG, "%s: firmware '%s' for %s: \"images\" must be an array of 1 to %d images", mpath,
                       q->firmware, q->chip, EB_MANIFEST_MAX_IMAGES);
    eb_manifest_image *imgs = calloc((size_t)n, sizeof *imgs);
    if (!imgs)
        return eb_fail(err, EB_EIO, "out of memory reading %s", mpath);
    int idx = 0, rc = EB_OK;
    char console[24] = "";
    rc = manifest_console(fw, mpath, q->firmware, console, sizeof console, err);
    for (const cJSON *img = images->child; img && !rc; img = img->next, idx++) {
        rc = check_manifest_image(img, mpath, idx, q, &imgs[idx], err);
        snprintf(imgs[idx].console, sizeof imgs[idx].console, "%s", console);
    }
    if (rc) {
        free(imgs);
        return rc;
    }
    *out = imgs;
    *n_out = n;
    return EB_OK;
}

int eb_manifest_lookup(const char *text, size_t len, const char *mpath, const eb_manifest_query *q,
                       eb_manifest_image **out, int *n, eb_error *err)
{
    *out = NULL;
    *n = 0;
    if (!q->firmware || !q->chip)
        return eb_fail(err, EB_ECONFIG, "firmware manifest lookup needs a firmware name and a chip");
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!j) {
        size_t at = end ? (size_t)(end - text) : 0;
        int line = 1, col = 1;
        for (size_t i = 0; i < at && i < len; i++, col++)
            if (text[i] == '\n')
                line++, col = 0;
        return eb_fail(err, EB_ECONFIG, "%s:%d:%d: invalid JSON", mpath, line, col);
    }
    int rc = lookup_manifest(j, mpath, q, out, n, err);
    cJSON_Delete(j);
    return rc;
}

int eb_image_set_from_manifest(eb_image_set *s, const eb_manifest_query *q, eb_error *err)
{
    const char *mpath = q->manifest ? q->manifest : eb_manifest_default_path();
    if (!q->firmware || !q->chip)
        return eb_fail(err, EB_ECONFIG, "firmware manifest lookup needs a firmware name and a chip");
    uint8_t *data;
    size_t len;
    int rc = read_file_what("manifest", mpath, &data, &len, err);
    if (rc)
        return rc;
    eb_manifest_image *imgs;
    int n;
    rc = eb_manifest_lookup((const char *)data, len, mpath, q, &imgs, &n, err);
    free(data);
    if (rc)
        return rc;
    char tmp[1024], mdir[1024];
    snprintf(tmp, sizeof tmp, "%s", mpath);
    snprintf(mdir, sizeof mdir, "%s", dirname(tmp));
    for (int i = 0; i < n && !rc; i++)
        rc = add_manifest_image(s, &imgs[i], mpath, mdir, q, err);
    if (n > 0)
        snprintf(s->console, sizeof s->console, "%s", imgs[0].console);
    free(imgs);
    snprintf(s->chip, sizeof s->chip, "%s", q->chip);
    sort_regions(s);
    return rc;
}
