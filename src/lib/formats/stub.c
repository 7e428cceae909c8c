/* Flasher stub JSON (see stub.h). The fields are those esptool's and
 * esp-flasher-stub's elf2json write: entry, text + text_start, data +
 * data_start, bss_start; esp-flasher-stub adds plugin_* and plugins. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/stub.h"

void eb_stub_free(eb_stub *s)
{
    if (!s)
        return;
    free(s->text);
    free(s->data);
    s->text = s->data = NULL;
    s->text_len = s->data_len = 0;
}

static int b64_value(unsigned char ch)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = ch ? strchr(alphabet, ch) : NULL;
    return p ? (int)(p - alphabet) : -1;
}

/* Standard base64 with optional '=' padding; -1 and the offending index on a
 * character outside the alphabet. */
static long b64_decode(const char *in, uint8_t **out, size_t *bad_at)
{
    size_t n = strlen(in);
    uint8_t *buf = malloc(n / 4 * 3 + 3);
    if (!buf)
        return -2;
    size_t o = 0, pad = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i] == '=') {
            pad++;
            continue;
        }
        int v = b64_value((unsigned char)in[i]);
        if (v < 0 || pad) {
            free(buf);
            *bad_at = i;
            return -1;
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            buf[o++] = (uint8_t)(acc >> bits);
        }
    }
    *out = buf;
    return (long)o;
}

/* line:col of a byte offset, for the parser's stop point. */
static void line_col(const uint8_t *t, size_t len, size_t at, int *line, int *col)
{
    *line = 1, *col = 1;
    for (size_t i = 0; i < at && i < len; i++, (*col)++)
        if (t[i] == '\n')
            (*line)++, *col = 0;
}

/* The field KEY of the stub file, or NULL with *rc set: EB_OK when an optional field is absent,
 * an error when a required one is. */
static const cJSON *stub_field(const char *name, const cJSON *root, const char *key, bool required, bool *has,
                               int *rc, eb_error *err)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, key);
    if (has)
        *has = j != NULL;
    *rc = EB_OK;
    if (!j && required)
        *rc = eb_fail(err, EB_ECONFIG,
                      "%s: no \"%s\": not a flasher stub file (one has entry, text, text_start, data, data_start)",
                      name, key);
    return j;
}

static int get_u32(const char *name, const cJSON *root, const char *key, bool required, uint32_t *v, bool *has,
                   eb_error *err)
{
    int rc;
    const cJSON *j = stub_field(name, root, key, required, has, &rc, err);
    if (!j)
        return rc;
    if (!cJSON_IsNumber(j) || j->valuedouble < 0 || j->valuedouble > 4294967295.0 ||
        j->valuedouble != (double)(uint32_t)j->valuedouble)
        return eb_fail(err, EB_ECONFIG, "%s: \"%s\" is not an address (a whole number 0..0xffffffff)", name, key);
    *v = (uint32_t)j->valuedouble;
    return EB_OK;
}

static int get_bytes(const char *name, const cJSON *root, const char *key, bool required, uint8_t **out,
                     size_t *len, bool *has, eb_error *err)
{
    int rc;
    const cJSON *j = stub_field(name, root, key, required, has, &rc, err);
    if (!j)
        return rc;
    if (!cJSON_IsString(j))
        return eb_fail(err, EB_ECONFIG, "%s: \"%s\" is not a base64 string", name, key);
    size_t bad = 0;
    long n = b64_decode(j->valuestring, out, &bad);
    if (n == -2)
        return eb_fail(err, EB_EIO, "out of memory reading %s", name);
    if (n < 0)
        return eb_fail(err, EB_ECONFIG, "%s: \"%s\" is not base64 (character %zu is '%c')", name, key, bad + 1,
                       j->valuestring[bad]);
    *len = (size_t)n;
    return EB_OK;
}

static int check_layout(const char *name, const eb_stub *s, eb_error *err)
{
    if (s->text_len == 0)
        return eb_fail(err, EB_ECONFIG, "%s: \"text\" is empty", name);
    if ((uint64_t)s->text_start + s->text_len > 0x100000000ull ||
        (s->has_data && (uint64_t)s->data_start + s->data_len > 0x100000000ull))
        return eb_fail(err, EB_ECONFIG, "%s: a segment runs past the end of the address space", name);
    if (s->entry < s->text_start || s->entry - s->text_start >= s->text_len)
        return eb_fail(err, EB_ECONFIG, "%s: \"entry\" 0x%08x lies outside \"text\" (0x%08x..0x%08zx)", name, s->entry,
                       s->text_start, (size_t)s->text_start + s->text_len);
    if (s->has_data && s->data_len && s->data_start < s->text_start + s->text_len &&
        s->text_start < s->data_start + s->data_len)
        return eb_fail(err, EB_ECONFIG, "%s: \"text\" and \"data\" overlap", name);
    return EB_OK;
}

int eb_stub_parse(const char *name, const uint8_t *json, size_t len, const eb_profiles *profiles, eb_stub *out,
                  eb_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", name);
    snprintf(out->origin, sizeof out->origin, "file");
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts((const char *)json, len, &end, 0);
    if (!root) {
        int line, col;
        size_t at = end ? (size_t)(end - (const char *)json) : 0;
        while (at > 0 && at <= len && isalnum(json[at - 1])) /* cJSON may stop inside the bad word */
            at--;
        line_col(json, len, at, &line, &col);
        return eb_fail(err, EB_ECONFIG, "%s:%d:%d: not valid JSON; a flasher stub file is the JSON esptool ships", name,
                       line, col);
    }
    int rc = EB_OK;
    if (!cJSON_IsObject(root))
        rc = eb_fail(err, EB_ECONFIG, "%s: not a JSON object: not a flasher stub file", name);
    if (!rc)
        rc = get_u32(name, root, "entry", true, &out->entry, NULL, err);
    if (!rc)
        rc = get_u32(name, root, "text_start", true, &out->text_start, NULL, err);
    if (!rc)
        rc = get_bytes(name, root, "text", true, &out->text, &out->text_len, NULL, err);
    bool has_data_start = false;
    if (!rc)
        rc = get_bytes(name, root, "data", false, &out->data, &out->data_len, &out->has_data, err);
    if (!rc)
        rc = get_u32(name, root, "data_start", out->has_data, &out->data_start, &has_data_start, err);
    if (!rc && has_data_start && !out->has_data)
        rc = eb_fail(err, EB_ECONFIG, "%s: \"data_start\" without \"data\"", name);
    if (!rc)
        rc = get_u32(name, root, "bss_start", false, &out->bss_start, &out->has_bss, err);
    const cJSON *plugins = cJSON_GetObjectItemCaseSensitive(root, "plugins");
    if (!rc && plugins && !cJSON_IsObject(plugins))
        rc = eb_fail(err, EB_ECONFIG, "%s: \"plugins\" is not an object", name);
    if (!rc && plugins)
        out->n_plugins = cJSON_GetArraySize(plugins);
    if (!rc)
        rc = check_layout(name, out, err);
    cJSON_Delete(root);
    if (rc) {
        eb_stub_free(out);
        return rc;
    }
    const eb_chip *named = eb_stub_chip_from_name(name, profiles);
    if (named) {
        snprintf(out->chip, sizeof out->chip, "%s", named->name);
        snprintf(out->chip_display, sizeof out->chip_display, "%s", named->display);
    }
    return EB_OK;
}

const eb_chip *eb_stub_chip_from_name(const char *path, const eb_profiles *profiles)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char stem[64];
    snprintf(stem, sizeof stem, "%s", base);
    char *dot = strstr(stem, ".json");
    if (dot)
        *dot = '\0';
    char *dash = strchr(stem, '-'); /* esp32p4-rev1: the ESP32-P4's older revisions */
    if (dash)
        *dash = '\0';
    char name[64];
    if (!strncmp(stem, "stub_flasher_", 13)) /* esptool 4: stub_flasher_32c3, stub_flasher_8266 */
        snprintf(name, sizeof name, "esp%s", stem + 13);
    else
        snprintf(name, sizeof name, "%s", stem);
    return profiles ? eb_profiles_chip(profiles, name) : NULL;
}

/* Instruction RAM of a chip: from its memory map's iram start to the
 * flash-mapped windows above it (the vboard's stub rule, vb_rom.c). */
static bool in_iram(const eb_chip *c, uint32_t addr)
{
    if (!c->has_memory_map)
        return true;
    uint32_t lo = c->mem.iram, hi = c->mem.irom;
    if (c->mem.drom && c->mem.drom > lo && c->mem.drom < hi)
        hi = c->mem.drom;
    if (hi <= lo)
        hi = 0xFFFFFFFFu;
    return addr >= lo && addr < hi;
}

int eb_stub_check_chip(const eb_stub *s, const eb_chip *chip, eb_error *err)
{
    if (s->chip[0] && strcmp(s->chip, chip->name) != 0)
        return eb_fail(err, EB_ECONFIG, "%s: this stub is for the %s, but the board is an %s; give the %s's stub (%s.json)",
                       s->path, s->chip_display, chip->display, chip->display, chip->name);
    if (!s->chip[0] && !in_iram(chip, s->text_start))
        return eb_fail(err, EB_ECONFIG,
                       "%s: its code loads at 0x%08x, outside the %s's instruction RAM: a stub for another chip; "
                       "give the %s's stub (%s.json)",
                       s->path, s->text_start, chip->display, chip->display, chip->name);
    return EB_OK;
}
