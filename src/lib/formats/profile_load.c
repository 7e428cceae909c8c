/* Loading chip and tier profiles from YAML (libyaml document API).
 *
 * Files are parsed into a raw model that keeps, for every value, the place it
 * came from; directories are overlaid on that model; then each chip's tiers
 * are resolved (inheritance) and validated, and only then copied out into
 * the public eb_profiles. Every error is "FILE:LINE:COL: message".
 *
 * File kinds (see espbench-profiles(5)):
 *   chip: {facts}  tiers: [...]   a whole chip; a later directory replaces it
 *   overlay: CHIP  tiers: [...]   adds tiers to, or replaces tiers of, a chip
 *                                 loaded before (earlier directory or a chip
 *                                 file of the same directory) */
#include "espbench/base/names.h"
#include "espbench/formats/profile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "espbench/formats/dialect.h"
#include "profile_facts.h"
#include "yaml_doc.h"

/* ------------------------------------------------------------------ raw model */

typedef struct raw_tier {
    eb_tier t;                 /* own values; t.set = set by this tier itself */
    bool unset[EB_F_COUNT];    /* "key: null": drop an inherited setting */
    bool rt_set[EB_F_COUNT];   /* runtime flag given by this tier */
    bool psram_set;
    int fline[EB_F_COUNT], fcol[EB_F_COUNT];
    int base_line, base_col;
} raw_tier;

typedef struct raw_chip {
    eb_chip c;                 /* facts; c.tiers unused */
    bool seen[32];             /* facts given by this file itself (index into facts[]) */
    int base_line, base_col;
    raw_tier *tiers;
    int n_tiers, cap_tiers;
    int line, col;
    int dir;                   /* index of the directory it came from */
} raw_chip;

typedef struct raw_model {
    raw_chip *chips;
    int n, cap;
} raw_model;

/* What one file holds. */
typedef struct raw_file {
    bool is_overlay;
    char overlay[24];
    int overlay_line, overlay_col;
    raw_chip chip;             /* facts (chip files) and tiers (both kinds) */
} raw_file;

static void raw_chip_free(raw_chip *c)
{
    free(c->tiers);
    c->tiers = NULL;
    c->n_tiers = c->cap_tiers = 0;
}

static void raw_model_free(raw_model *m)
{
    for (int i = 0; i < m->n; i++)
        raw_chip_free(&m->chips[i]);
    free(m->chips);
    memset(m, 0, sizeof *m);
}

static raw_tier *raw_tier_add(raw_chip *c)
{
    if (c->n_tiers == c->cap_tiers) {
        int cap = c->cap_tiers ? 2 * c->cap_tiers : 8;
        raw_tier *nt = realloc(c->tiers, (size_t)cap * sizeof *nt);
        if (!nt)
            return NULL;
        c->tiers = nt;
        c->cap_tiers = cap;
    }
    raw_tier *t = &c->tiers[c->n_tiers++];
    memset(t, 0, sizeof *t);
    return t;
}

static int raw_tier_find(const raw_chip *c, const char *name)
{
    for (int i = 0; i < c->n_tiers; i++)
        if (strcmp(c->tiers[i].t.name, name) == 0)
            return i;
    return -1;
}

static int raw_chip_find(const raw_model *m, const char *name)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->chips[i].c.name, name) == 0)
            return i;
    return -1;
}

/* ------------------------------------------------------------ YAML helpers */

typedef struct ctx {
    const char *path;
    yaml_document_t *doc;
    eb_error *err;
} ctx;

static int line_of(const yaml_node_t *n) { return (int)n->start_mark.line + 1; }
static int col_of(const yaml_node_t *n) { return (int)n->start_mark.column + 1; }

__attribute__((format(printf, 3, 4))) static int fail_at(ctx *x, const yaml_node_t *n,
                                                         const char *fmt, ...)
{
    char msg[EB_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return eb_fail(x->err, EB_ECONFIG, "%s:%d:%d: %s", x->path, line_of(n), col_of(n), msg);
}

static const char *kind_name(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_MAPPING_NODE: return "a mapping";
    case YAML_SEQUENCE_NODE: return "a list";
    default: return "a scalar";
    }
}

static const char *scalar(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static bool is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = scalar(n);
    return !*s || !strcmp(s, "~") || !strcasecmp(s, "null");
}

static int want_scalar(ctx *x, const yaml_node_t *n, const char *key, const char *what)
{
    if (n->type == YAML_SCALAR_NODE)
        return 0;
    return fail_at(x, n, "expected %s for '%s', got %s", what, key, kind_name(n));
}

static int get_long(ctx *x, const yaml_node_t *n, const char *key, long long lo, long long hi,
                    long long *out)
{
    if (want_scalar(x, n, key, "an integer"))
        return EB_ECONFIG;
    const char *s = scalar(n);
    const char *p = s;
    if (*p == '-' || *p == '+')
        p++;
    int base = (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) ? 16 : 10;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, base);
    if (!*s || *end || errno || end == s)
        return fail_at(x, n, "expected an integer for '%s', got '%s'", key, s);
    if (v < lo || v > hi)
        return fail_at(x, n, "'%s' = %s is outside %lld..%lld", key, s, lo, hi);
    *out = v;
    return 0;
}

static int get_bool(ctx *x, const yaml_node_t *n, const char *key, bool *out)
{
    if (want_scalar(x, n, key, "a boolean"))
        return EB_ECONFIG;
    static const char *const yes[] = {"true", "enable", "yes", "on"};
    static const char *const no[] = {"false", "disable", "no", "off"};
    const char *s = scalar(n);
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (!strcasecmp(s, yes[i])) {
            *out = true;
            return 0;
        }
        if (!strcasecmp(s, no[i])) {
            *out = false;
            return 0;
        }
    }
    return fail_at(x, n, "expected true/false or ENABLE/DISABLE for '%s', got '%s'", key, s);
}

static int get_double(ctx *x, const yaml_node_t *n, const char *key, bool null_ok, double *out)
{
    if (want_scalar(x, n, key, "a number"))
        return EB_ECONFIG;
    if (null_ok && is_null(n)) {
        *out = NAN;
        return 0;
    }
    const char *s = scalar(n);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < 0)
        return fail_at(x, n, "expected a non-negative number for '%s', got '%s'", key, s);
    *out = v;
    return 0;
}

static int get_str(ctx *x, const yaml_node_t *n, const char *key, char *out, size_t size)
{
    if (want_scalar(x, n, key, "a string"))
        return EB_ECONFIG;
    const char *s = scalar(n);
    if (strlen(s) >= size)
        return fail_at(x, n, "'%s' is too long (at most %zu bytes)", key, size - 1);
    memcpy(out, s, strlen(s) + 1);
    return 0;
}

/* Sizes: bytes, or a number with KB / MB. */
static int get_size(ctx *x, const yaml_node_t *n, const char *key, uint32_t *out)
{
    if (want_scalar(x, n, key, "a size"))
        return EB_ECONFIG;
    const char *s = scalar(n);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10);
    unsigned long long mul = 1;
    if (!strcasecmp(end, "KB"))
        mul = 1024;
    else if (!strcasecmp(end, "MB"))
        mul = 1024 * 1024;
    else if (*end)
        mul = 0;
    /* v > limit / mul, not v * mul > limit: the product can wrap around 64 bits. */
    if (!*s || end == s || errno || !mul || v == 0 || v > 0x80000000ull / mul)
        return fail_at(x, n, "expected a size such as 4MB for '%s', got '%s'", key, s);
    *out = (uint32_t)(v * mul);
    return 0;
}

/* Iterates a mapping's pairs; rejects non-scalar and duplicate keys. */
typedef int (*pair_fn)(ctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user);

static int each_pair(ctx *x, yaml_node_t *map, const char *what, pair_fn fn, void *user)
{
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(x, map, "expected a mapping for %s, got %s", what, kind_name(map));
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = yaml_document_get_node(x->doc, p->key);
        yaml_node_t *vn = yaml_document_get_node(x->doc, p->value);
        if (!kn || !vn)
            return fail_at(x, map, "malformed mapping in %s", what);
        if (kn->type != YAML_SCALAR_NODE)
            return fail_at(x, kn, "keys in %s must be plain names, got %s", what, kind_name(kn));
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            yaml_node_t *qk = yaml_document_get_node(x->doc, q->key);
            if (qk && qk->type == YAML_SCALAR_NODE && !strcmp(scalar(qk), scalar(kn)))
                return fail_at(x, kn, "duplicate key '%s' in %s (first at line %d)", scalar(kn),
                               what, line_of(qk));
        }
        int rc = fn(x, scalar(kn), kn, vn, user);
        if (rc)
            return rc;
    }
    return 0;
}

static int unknown_key(ctx *x, const yaml_node_t *kn, const char *key, const char *what,
                       const char *const *allowed, size_t n_allowed)
{
    char list[512] = "";
    size_t len = 0;
    for (size_t i = 0; i < n_allowed && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", allowed[i]);
    return fail_at(x, kn, "unknown key '%s' in %s (allowed: %s)", key, what, list);
}

/* ---------------------------------------------------------------- chip facts */

/* The chip facts' table (profile_facts.h): the loader and `profiles show --json` read it. */
const struct fact eb_chip_facts[] = {
    {"name", FT_STR, offsetof(eb_chip, name), sizeof((eb_chip *)0)->name, true, false},
    {"display", FT_STR, offsetof(eb_chip, display), sizeof((eb_chip *)0)->display, true, false},
    {"magic", FT_MAGIC, offsetof(eb_chip, magic), 0, true, false},
    {"chip_id", FT_INT, offsetof(eb_chip, chip_id), 0, false, false},
    {"rom_security_info", FT_BOOL, offsetof(eb_chip, rom_security_info), 0, true, false},
    {"rom_status_bytes", FT_INT, offsetof(eb_chip, rom_status_bytes), 0, true, false},
    {"efuse_mac_reg", FT_U32, offsetof(eb_chip, efuse_mac_reg), 0, true, true},
    {"spi_reg_base", FT_U32, offsetof(eb_chip, spi_reg_base), 0, true, true},
    {"bootloader_offset", FT_U32, offsetof(eb_chip, bootloader_offset), 0, true, false},
    {"flash_size", FT_SIZE, offsetof(eb_chip, flash_size), 0, true, false},
    {"has_psram", FT_BOOL, offsetof(eb_chip, has_psram), 0, true, false},
    {"rom_banner", FT_STR, offsetof(eb_chip, rom_banner), sizeof((eb_chip *)0)->rom_banner, true, false},
    {"cpu_mhz", FT_DOUBLE, offsetof(eb_chip, cpu_mhz), 0, true, false},
    {"base", FT_STR, offsetof(eb_chip, base), sizeof((eb_chip *)0)->base, false, false},
    {"arch", FT_ARCH, offsetof(eb_chip, arch), 0, false, false},
    {"cores", FT_INT, offsetof(eb_chip, cores), 0, false, false},
    {"spi_regs", FT_SPI, offsetof(eb_chip, spi), 0, false, false},
    {"memory_map", FT_MEMMAP, offsetof(eb_chip, mem), 0, false, false},
    {"image_format", FT_IMGFMT, offsetof(eb_chip, image_format), 0, false, false},
    {"uart_clkdiv_reg", FT_U32, offsetof(eb_chip, uart_clkdiv_reg), 0, false, true},
    {"uart_clk_hz", FT_U32, offsetof(eb_chip, uart_clk_hz), 0, false, false},
    {"rom_deflate_window", FT_U32, offsetof(eb_chip, rom_deflate_window), 0, false, false},
    {"rom_deflate_pad", FT_U32, offsetof(eb_chip, rom_deflate_pad), 0, false, false},
    {"rom_no_deflate", FT_BOOL, offsetof(eb_chip, rom_no_deflate), 0, false, false},
    {"rom_no_change_baud", FT_BOOL, offsetof(eb_chip, rom_no_change_baud), 0, false, false},
    {"udp_rx_rate_mbps", FT_DOUBLE, offsetof(eb_chip, udp_rx_rate_mbps), 0, false, false},
    {"wifi_bands", FT_STR, offsetof(eb_chip, wifi_bands), sizeof((eb_chip *)0)->wifi_bands, false, false},
    {"ht40_bands", FT_STR, offsetof(eb_chip, ht40_bands), sizeof((eb_chip *)0)->ht40_bands, false, false},
    {"wifi6", FT_BOOL, offsetof(eb_chip, wifi6), 0, false, false},
    {"ble", FT_BOOL, offsetof(eb_chip, ble), 0, false, false},
};
const size_t eb_chip_n_facts = sizeof eb_chip_facts / sizeof eb_chip_facts[0];
#define N_FACTS (sizeof eb_chip_facts / sizeof eb_chip_facts[0])
_Static_assert(N_FACTS <= sizeof((raw_chip *)0)->seen, "raw_chip.seen holds one flag per fact");

typedef struct chip_parse {
    eb_chip *c;
    bool *seen;
} chip_parse;

/* A mapping of register offsets or addresses: every key of `keys` that is
 * marked required must be there. */
typedef struct u32_map {
    const char *what;
    const char *const *keys;
    const bool *required;
    uint32_t *out;  /* one per key */
    size_t n;
    bool seen[8];
} u32_map;

static int u32_map_pair(ctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    u32_map *m = user;
    for (size_t i = 0; i < m->n; i++) {
        if (strcmp(m->keys[i], key))
            continue;
        long long v;
        if (get_long(x, vn, key, 0, 0xFFFFFFFFll, &v))
            return EB_ECONFIG;
        m->out[i] = (uint32_t)v;
        m->seen[i] = true;
        return 0;
    }
    return unknown_key(x, kn, key, m->what, m->keys, m->n);
}

static int parse_u32_map(ctx *x, yaml_node_t *vn, u32_map *m)
{
    int r = each_pair(x, vn, m->what, u32_map_pair, m);
    for (size_t i = 0; !r && i < m->n; i++)
        if (m->required[i] && !m->seen[i])
            r = fail_at(x, vn, "'%s' is missing the required key '%s'", m->what, m->keys[i]);
    return r;
}

static int parse_spi_regs(ctx *x, yaml_node_t *vn, eb_chip *c)
{
    static const char *const keys[] = {"usr", "usr1", "usr2", "mosi_dlen", "miso_dlen", "w0"};
    static const bool req[] = {true, true, true, false, false, true};
    uint32_t v[6] = {0};
    u32_map m = {"spi_regs", keys, req, v, 6, {0}};
    if (parse_u32_map(x, vn, &m))
        return EB_ECONFIG;
    c->spi = (eb_spi_regs){v[0], v[1], v[2], v[3], v[4], v[5]};
    c->has_spi_regs = true;
    return 0;
}

static int parse_memory_map(ctx *x, yaml_node_t *vn, eb_chip *c)
{
    static const char *const keys[] = {"drom", "irom", "dram", "iram"};
    static const bool req[] = {false, true, true, true};
    uint32_t v[4] = {0};
    u32_map m = {"memory_map", keys, req, v, 4, {0}};
    if (parse_u32_map(x, vn, &m))
        return EB_ECONFIG;
    c->mem = (eb_memory_map){.drom = v[0], .irom = v[1], .dram = v[2], .iram = v[3]};
    c->has_memory_map = true;
    return 0;
}

/* The index of the name in names, or -1 with the error in x. */
static int get_enum(ctx *x, yaml_node_t *vn, const char *key, const char *const *names, int n)
{
    if (want_scalar(x, vn, key, "a name"))
        return -1;
    for (int i = 0; i < n; i++)
        if (names[i] && !strcmp(scalar(vn), names[i]))
            return i;
    char list[128] = "";
    for (int i = 0, len = 0; i < n; i++)
        if (names[i])
            len += snprintf(list + len, sizeof list - (size_t)len, "%s%s", len ? ", " : "", names[i]);
    fail_at(x, vn, "'%s' must be one of %s, got '%s'", key, list, scalar(vn));
    return -1;
}

static int parse_magic(ctx *x, yaml_node_t *vn, eb_chip *c)
{
    long long v;
    c->n_magic = 0;
    if (vn->type == YAML_SCALAR_NODE) {
        if (get_long(x, vn, "magic", 0, 0xFFFFFFFFll, &v))
            return EB_ECONFIG;
        c->magic[c->n_magic++] = (uint32_t)v;
        return 0;
    }
    if (vn->type != YAML_SEQUENCE_NODE)
        return fail_at(x, vn, "expected an integer or a list for 'magic', got %s", kind_name(vn));
    int max = (int)(sizeof c->magic / sizeof c->magic[0]);
    for (yaml_node_item_t *it = vn->data.sequence.items.start; it < vn->data.sequence.items.top; it++) {
        yaml_node_t *in = yaml_document_get_node(x->doc, *it);
        if (c->n_magic == max)
            return fail_at(x, in, "too many magic values (at most %d)", max);
        if (get_long(x, in, "magic", 0, 0xFFFFFFFFll, &v))
            return EB_ECONFIG;
        c->magic[c->n_magic++] = (uint32_t)v;
    }
    if (c->n_magic == 0)
        return fail_at(x, vn, "'magic' needs at least one value");
    return 0;
}

static int chip_pair(ctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    chip_parse *cp = user;
    size_t i;
    for (i = 0; i < N_FACTS; i++)
        if (!strcmp(eb_chip_facts[i].key, key))
            break;
    if (i == N_FACTS) {
        const char *allowed[N_FACTS];
        for (size_t j = 0; j < N_FACTS; j++)
            allowed[j] = eb_chip_facts[j].key;
        return unknown_key(x, kn, key, "chip", allowed, N_FACTS);
    }
    cp->seen[i] = true;
    char *field = (char *)cp->c + eb_chip_facts[i].offset;
    long long v;
    switch (eb_chip_facts[i].type) {
    case FT_STR:
        return get_str(x, vn, key, field, eb_chip_facts[i].size);
    case FT_INT: {
        long long lo = -1, hi = 255;
        if (!strcmp(key, "rom_status_bytes"))
            lo = 2, hi = 4;
        if (get_long(x, vn, key, lo, hi, &v))
            return EB_ECONFIG;
        if (!strcmp(key, "rom_status_bytes") && v == 3)
            return fail_at(x, vn, "'rom_status_bytes' must be 2 or 4, got 3");
        *(int *)field = (int)v;
        return 0;
    }
    case FT_U32:
        if (get_long(x, vn, key, 0, 0xFFFFFFFFll, &v))
            return EB_ECONFIG;
        *(uint32_t *)field = (uint32_t)v;
        return 0;
    case FT_BOOL:
        return get_bool(x, vn, key, (bool *)field);
    case FT_DOUBLE:
        return get_double(x, vn, key, false, (double *)field);
    case FT_MAGIC:
        return parse_magic(x, vn, cp->c);
    case FT_SIZE:
        return get_size(x, vn, key, (uint32_t *)field);
    case FT_ARCH: {
        static const char *const names[] = {NULL, "xtensa", "riscv"};
        int a = get_enum(x, vn, key, names, 3);
        if (a < 0)
            return EB_ECONFIG;
        cp->c->arch = (enum eb_cpu_arch)a;
        return 0;
    }
    case FT_IMGFMT: {
        static const char *const names[] = {"esp32", "esp8266"};
        int a = get_enum(x, vn, key, names, 2);
        if (a < 0)
            return EB_ECONFIG;
        cp->c->image_format = (enum eb_image_format)a;
        return 0;
    }
    case FT_SPI:
        return parse_spi_regs(x, vn, cp->c);
    case FT_MEMMAP:
        return parse_memory_map(x, vn, cp->c);
    }
    return 0;
}

/* Copies fact i from a base chip (chip-level `base:`). */
static void copy_fact(eb_chip *to, const eb_chip *from, size_t i)
{
    size_t off = eb_chip_facts[i].offset, n = 0;
    switch (eb_chip_facts[i].type) {
    case FT_STR: n = eb_chip_facts[i].size; break;
    case FT_INT: n = sizeof(int); break;
    case FT_U32:
    case FT_SIZE: n = sizeof(uint32_t); break;
    case FT_BOOL: n = sizeof(bool); break;
    case FT_DOUBLE: n = sizeof(double); break;
    case FT_ARCH: n = sizeof(enum eb_cpu_arch); break;
    case FT_IMGFMT: n = sizeof(enum eb_image_format); break;
    case FT_MAGIC:
        memcpy(to->magic, from->magic, sizeof to->magic);
        to->n_magic = from->n_magic;
        return;
    case FT_SPI:
        to->spi = from->spi;
        to->has_spi_regs = from->has_spi_regs;
        return;
    case FT_MEMMAP:
        to->mem = from->mem;
        to->has_memory_map = from->has_memory_map;
        return;
    }
    memcpy((char *)to + off, (const char *)from + off, n);
}

static int parse_chip(ctx *x, yaml_node_t *kn, yaml_node_t *vn, raw_chip *rc)
{
    chip_parse cp = {.c = &rc->c, .seen = rc->seen};
    rc->c.chip_id = -1;
    rc->line = line_of(vn);
    rc->col = col_of(vn);
    int r = each_pair(x, vn, "chip", chip_pair, &cp);
    if (r)
        return r;
    if (rc->c.base[0]) {
        /* Checked once the base is known (resolve_chip_facts). */
        rc->base_line = line_of(kn);
        rc->base_col = col_of(kn);
        for (yaml_node_pair_t *p = vn->data.mapping.pairs.start; p < vn->data.mapping.pairs.top; p++) {
            yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
            if (k && !strcmp(scalar(k), "base")) {
                rc->base_line = line_of(yaml_document_get_node(x->doc, p->value));
                rc->base_col = col_of(yaml_document_get_node(x->doc, p->value));
            }
        }
        if (!rc->seen[0] || !rc->seen[1])
            return fail_at(x, kn, "chip is missing the required key '%s'", rc->seen[0] ? "display" : "name");
        return 0;
    }
    for (size_t i = 0; i < N_FACTS; i++)
        if (eb_chip_facts[i].required && !rc->seen[i])
            return fail_at(x, kn, "chip is missing the required key '%s'", eb_chip_facts[i].key);
    return 0;
}

/* --------------------------------------------------------------------- tiers */

static const char *const tier_keys[] = {"name", "label", "label_zh", "base", "psram",
                                        "image", "runtime", "settings", "reference", "reference_5g"};
#define N_TIER_KEYS (sizeof tier_keys / sizeof tier_keys[0])

static const char *const ref_keys[] = {"avail_kb", "tcp_tx_mbps", "tcp_rx_mbps", "udp_tx_mbps",
                                       "udp_rx_mbps"};
#define N_REF_KEYS (sizeof ref_keys / sizeof ref_keys[0])

static int setting_unknown(ctx *x, const yaml_node_t *kn, const char *key, const char *what)
{
    const char *allowed[EB_F_COUNT];
    for (int f = 0; f < EB_F_COUNT; f++)
        allowed[f] = eb_field_desc_get(f)->key;
    return unknown_key(x, kn, key, what, allowed, EB_F_COUNT);
}

static int setting_pair(ctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    raw_tier *rt = user;
    int f = eb_field_from_key(key);
    if (f < 0)
        return setting_unknown(x, kn, key, "settings");
    const eb_field_desc *d = eb_field_desc_get(f);
    rt->fline[f] = line_of(vn);
    rt->fcol[f] = col_of(vn);
    if (is_null(vn)) {
        rt->unset[f] = true;
        return 0;
    }
    if (d->kind == EB_FK_BOOL) {
        bool b;
        if (get_bool(x, vn, key, &b))
            return EB_ECONFIG;
        rt->t.value[f] = b;
    } else if (d->kind == EB_FK_BA && vn->type == YAML_SCALAR_NODE &&
               !strcasecmp(scalar(vn), "disable")) {
        rt->t.value[f] = 0;
    } else {
        long long v;
        if (want_scalar(x, vn, key, "an integer"))
            return EB_ECONFIG;
        if (get_long(x, vn, key, -1000000, 1000000, &v))
            return EB_ECONFIG;
        rt->t.value[f] = (int)v;
    }
    rt->t.set[f] = true;
    return 0;
}

static int runtime_pair(ctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    raw_tier *rt = user;
    int f = eb_field_from_key(key);
    if (f < 0)
        return setting_unknown(x, kn, key, "runtime");
    bool b;
    if (get_bool(x, vn, key, &b))
        return EB_ECONFIG;
    rt->rt_set[f] = true;
    rt->t.runtime[f] = b;
    return 0;
}

static int reference_pair(ctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    raw_tier *rt = user;
    if (!strcmp(key, "avail_kb"))
        return get_double(x, vn, key, true, &rt->t.ref_avail_kb);
    for (int t = 0; t < EB_TEST_COUNT; t++)
        if (!strcmp(key, ref_keys[t + 1]))
            return get_double(x, vn, key, true, &rt->t.ref_mbps[t]);
    return unknown_key(x, kn, key, "reference", ref_keys, N_REF_KEYS);
}

/* reference_5g: the docs' 5 GHz row (no memory figure: one per tier). */
static int reference_5g_pair(ctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    raw_tier *rt = user;
    for (int t = 0; t < EB_TEST_COUNT; t++)
        if (!strcmp(key, ref_keys[t + 1]))
            return get_double(x, vn, key, true, &rt->t.ref_5g_mbps[t]);
    return unknown_key(x, kn, key, "reference_5g", ref_keys + 1, N_REF_KEYS - 1);
}

static int tier_pair(ctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    raw_tier *rt = user;
    eb_tier *t = &rt->t;
    if (!strcmp(key, "name")) {
        if (get_str(x, vn, key, t->name, sizeof t->name))
            return EB_ECONFIG;
        if (!t->name[0])
            return fail_at(x, vn, "tier name must not be empty");
        t->line = line_of(vn);
        t->col = col_of(vn);
        return 0;
    }
    if (!strcmp(key, "label"))
        return get_str(x, vn, key, t->label, sizeof t->label);
    if (!strcmp(key, "label_zh"))
        return get_str(x, vn, key, t->label_zh, sizeof t->label_zh);
    if (!strcmp(key, "base")) {
        rt->base_line = line_of(vn);
        rt->base_col = col_of(vn);
        return get_str(x, vn, key, t->base, sizeof t->base);
    }
    if (!strcmp(key, "psram")) {
        rt->psram_set = true;
        return get_bool(x, vn, key, &t->psram);
    }
    if (!strcmp(key, "image"))
        return get_str(x, vn, key, t->image, sizeof t->image);
    if (!strcmp(key, "runtime")) {
        if (vn->type == YAML_SCALAR_NODE) {
            bool b;
            if (get_bool(x, vn, key, &b))
                return EB_ECONFIG;
            for (int f = 0; f < EB_F_COUNT; f++) {
                rt->rt_set[f] = true;
                t->runtime[f] = b;
            }
            return 0;
        }
        return each_pair(x, vn, "runtime", runtime_pair, rt);
    }
    if (!strcmp(key, "settings"))
        return each_pair(x, vn, "settings", setting_pair, rt);
    if (!strcmp(key, "reference"))
        return each_pair(x, vn, "reference", reference_pair, rt);
    if (!strcmp(key, "reference_5g"))
        return each_pair(x, vn, "reference_5g", reference_5g_pair, rt);
    return unknown_key(x, kn, key, "tier", tier_keys, N_TIER_KEYS);
}

static int parse_tiers(ctx *x, yaml_node_t *seq, raw_chip *rc)
{
    if (seq->type != YAML_SEQUENCE_NODE)
        return fail_at(x, seq, "expected a list for 'tiers', got %s", kind_name(seq));
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++) {
        yaml_node_t *tn = yaml_document_get_node(x->doc, *it);
        raw_tier *rt = raw_tier_add(rc);
        if (!rt)
            return eb_fail(x->err, EB_EIO, "%s: out of memory", x->path);
        rt->t.ref_avail_kb = NAN;
        for (int t = 0; t < EB_TEST_COUNT; t++)
            rt->t.ref_mbps[t] = rt->t.ref_5g_mbps[t] = NAN;
        snprintf(rt->t.file, sizeof rt->t.file, "%s", x->path);
        if (tn->type != YAML_MAPPING_NODE)
            return fail_at(x, tn, "expected a mapping for a tier, got %s", kind_name(tn));
        int r = each_pair(x, tn, "tier", tier_pair, rt);
        if (r)
            return r;
        if (!rt->t.name[0])
            return fail_at(x, tn, "tier is missing the required key 'name'");
        for (int j = 0; j < rc->n_tiers - 1; j++)
            if (!strcmp(rc->tiers[j].t.name, rt->t.name))
                return eb_fail(x->err, EB_ECONFIG, "%s:%d:%d: duplicate tier '%s' (first defined at line %d)",
                               x->path, rt->t.line, rt->t.col, rt->t.name, rc->tiers[j].t.line);
    }
    return 0;
}

/* ---------------------------------------------------------------- one file */

typedef struct top_parse {
    raw_file *rf;
    yaml_node_t *chip, *chip_key, *overlay, *tiers;
} top_parse;

static int top_pair(ctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    top_parse *tp = user;
    if (!strcmp(key, "chip")) {
        tp->chip = vn;
        tp->chip_key = kn;
    }
    else if (!strcmp(key, "overlay"))
        tp->overlay = vn;
    else if (!strcmp(key, "tiers"))
        tp->tiers = vn;
    else {
        static const char *const allowed[] = {"chip", "overlay", "tiers"};
        return unknown_key(x, kn, key, "a profile", allowed, 3);
    }
    return 0;
}

static int parse_document(ctx *x, raw_file *rf)
{
    yaml_node_t *root = yaml_document_get_root_node(x->doc);
    if (!root)
        return eb_fail(x->err, EB_ECONFIG, "%s:1:1: empty profile; expected 'chip:' and 'tiers:'",
                       x->path);
    top_parse tp = {.rf = rf};
    int r = each_pair(x, root, "a profile", top_pair, &tp);
    if (r)
        return r;
    if (tp.chip && tp.overlay)
        return fail_at(x, tp.overlay, "a profile has either 'chip' (a whole chip) or 'overlay' "
                                      "(tiers for a chip loaded before), not both");
    if (!tp.chip && !tp.overlay)
        return fail_at(x, root, "a profile needs 'chip' (a whole chip) or 'overlay' (tiers for a "
                                "chip loaded before)");
    if (tp.chip) {
        if ((r = parse_chip(x, tp.chip_key, tp.chip, &rf->chip)))
            return r;
    } else {
        rf->is_overlay = true;
        rf->overlay_line = line_of(tp.overlay);
        rf->overlay_col = col_of(tp.overlay);
        if ((r = get_str(x, tp.overlay, "overlay", rf->overlay, sizeof rf->overlay)))
            return r;
    }
    snprintf(rf->chip.c.file, sizeof rf->chip.c.file, "%s", x->path);
    if (!tp.tiers)
        return tp.chip ? fail_at(x, root, "profile is missing the required key 'tiers'") : 0;
    return parse_tiers(x, tp.tiers, &rf->chip);
}

/* Parses one profile held in memory; path names it in messages. */
static int parse_text(const char *path, const char *text, size_t len, raw_file *rf, eb_error *err)
{
    memset(rf, 0, sizeof *rf);
    yaml_document_t doc;
    int rc = eb_yaml_load(&doc, text, len, path, err);
    if (rc)
        return rc;
    ctx x = {.path = path, .doc = &doc, .err = err};
    rc = parse_document(&x, rf);
    yaml_document_delete(&doc);
    if (rc)
        raw_chip_free(&rf->chip);
    return rc;
}

/* ---------------------------------------------------------------- overlays */

static int add_chip_file(raw_model *m, raw_file *rf, int dir, eb_error *err)
{
    int i = raw_chip_find(m, rf->chip.c.name);
    if (i >= 0 && m->chips[i].dir == dir)
        return eb_fail(err, EB_ECONFIG, "%s:%d:%d: chip '%s' is already defined in %s",
                       rf->chip.c.file, rf->chip.line, rf->chip.col, rf->chip.c.name,
                       m->chips[i].c.file);
    rf->chip.dir = dir;
    if (i >= 0) {
        raw_chip_free(&m->chips[i]);
        m->chips[i] = rf->chip;
    } else {
        if (m->n == m->cap) {
            int cap = m->cap ? 2 * m->cap : 16;
            raw_chip *nc = realloc(m->chips, (size_t)cap * sizeof *nc);
            if (!nc)
                return eb_fail(err, EB_EIO, "out of memory loading profiles");
            m->chips = nc;
            m->cap = cap;
        }
        m->chips[m->n++] = rf->chip;
    }
    memset(&rf->chip, 0, sizeof rf->chip);
    return 0;
}

static void known_chips(const raw_model *m, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < m->n && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", m->chips[i].c.name);
    if (!m->n)
        snprintf(buf, n, "none");
}

static int apply_overlay(raw_model *m, raw_file *rf, eb_error *err)
{
    const char *path = rf->chip.c.file;
    int i = raw_chip_find(m, rf->overlay);
    if (i < 0) {
        char known[256];
        known_chips(m, known, sizeof known);
        return eb_fail(err, EB_ECONFIG, "%s:%d:%d: overlay for unknown chip '%s' (loaded: %s)",
                       path, rf->overlay_line, rf->overlay_col, rf->overlay, known);
    }
    raw_chip *c = &m->chips[i];
    for (int k = 0; k < rf->chip.n_tiers; k++) {
        int j = raw_tier_find(c, rf->chip.tiers[k].t.name);
        if (j >= 0) {
            c->tiers[j] = rf->chip.tiers[k];
        } else {
            raw_tier *t = raw_tier_add(c);
            if (!t)
                return eb_fail(err, EB_EIO, "out of memory loading profiles");
            *t = rf->chip.tiers[k];
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- resolving */

typedef struct resolved {
    eb_tier t;
    const char *ffile[EB_F_COUNT];
    int fline[EB_F_COUNT], fcol[EB_F_COUNT];
} resolved;

static void apply_own(resolved *r, const raw_tier *rt)
{
    const eb_tier *own = &rt->t;
    for (int f = 0; f < EB_F_COUNT; f++) {
        if (rt->unset[f]) {
            r->t.set[f] = false;
            r->t.value[f] = 0;
        }
        if (own->set[f]) {
            r->t.set[f] = true;
            r->t.value[f] = own->value[f];
        }
        if (own->set[f] || rt->unset[f]) {
            r->ffile[f] = own->file;
            r->fline[f] = rt->fline[f];
            r->fcol[f] = rt->fcol[f];
        }
        if (rt->rt_set[f])
            r->t.runtime[f] = own->runtime[f];
    }
    if (rt->psram_set)
        r->t.psram = own->psram;
    /* Per-tier identity and the docs' figures are never inherited. */
    memcpy(r->t.name, own->name, sizeof r->t.name);
    memcpy(r->t.label, own->label, sizeof r->t.label);
    memcpy(r->t.label_zh, own->label_zh, sizeof r->t.label_zh);
    memcpy(r->t.base, own->base, sizeof r->t.base);
    memcpy(r->t.image, own->image, sizeof r->t.image);
    memcpy(r->t.file, own->file, sizeof r->t.file);
    r->t.ref_avail_kb = own->ref_avail_kb;
    memcpy(r->t.ref_mbps, own->ref_mbps, sizeof r->t.ref_mbps);
    memcpy(r->t.ref_5g_mbps, own->ref_5g_mbps, sizeof r->t.ref_5g_mbps);
    r->t.line = own->line;
    r->t.col = own->col;
}

static int tier_names(const raw_chip *c, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->n_tiers && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", c->tiers[i].t.name);
    return 0;
}

/* Resolves tier i (bases first). state: 0 new, 1 on the current chain, 2 done. */
static int resolve_tier(const raw_chip *c, int i, resolved *out, int *state, int *chain, int depth,
                        eb_error *err)
{
    if (state[i] == 2)
        return 0;
    const raw_tier *rt = &c->tiers[i];
    chain[depth] = i;
    if (state[i] == 1) {
        /* Cycle: report at the base key of the tier where it closes. */
        int start = 0;
        while (chain[start] != i)
            start++;
        char path[512] = "";
        size_t len = 0;
        for (int k = start; k <= depth && len < sizeof path; k++)
            len += (size_t)snprintf(path + len, sizeof path - len, "%s%s", k > start ? " -> " : "",
                                    c->tiers[chain[k]].t.name);
        const raw_tier *at = &c->tiers[chain[depth - 1]];
        return eb_fail(err, EB_ECONFIG, "%s:%d:%d: inheritance cycle: %s", at->t.file,
                       at->base_line, at->base_col, path);
    }
    state[i] = 1;
    resolved *r = &out[i];
    memset(r, 0, sizeof *r);
    if (rt->t.base[0]) {
        int b = raw_tier_find(c, rt->t.base);
        if (b < 0) {
            char names[400];
            tier_names(c, names, sizeof names);
            return eb_fail(err, EB_ECONFIG, "%s:%d:%d: tier '%s' has unknown base tier '%s' (%s has: %s)",
                           rt->t.file, rt->base_line, rt->base_col, rt->t.name, rt->t.base,
                           c->c.name, names);
        }
        int rc = resolve_tier(c, b, out, state, chain, depth + 1, err);
        if (rc)
            return rc;
        *r = out[b];
    } else {
        for (int f = 0; f < EB_F_COUNT; f++)
            r->t.runtime[f] = eb_field_desc_get(f)->runtime;
    }
    apply_own(r, rt);
    state[i] = 2;
    return 0;
}

static int check_tier(const resolved *r, eb_error *err)
{
    int bad;
    eb_error e;
    eb_error_clear(&e);
    if (eb_tier_validate_field(&r->t, &bad, &e)) {
        if (bad >= 0 && r->ffile[bad])
            return eb_fail(err, EB_ECONFIG, "%s:%d:%d: tier '%s': %s", r->ffile[bad], r->fline[bad],
                           r->fcol[bad], r->t.name, e.msg);
        return eb_fail(err, EB_ECONFIG, "%s:%d:%d: tier '%s': %s", r->t.file, r->t.line, r->t.col,
                       r->t.name, e.msg);
    }
    /* A tier none of whose settings can change at run time can only be had
     * by flashing its own build. */
    bool any = false, any_runtime = false;
    for (int f = 0; f < EB_F_COUNT; f++) {
        if (r->t.set[f]) {
            any = true;
            any_runtime |= r->t.runtime[f];
        }
    }
    if (any && !any_runtime && !r->t.image[0])
        return eb_fail(err, EB_ECONFIG,
                       "%s:%d:%d: tier '%s': none of its settings can change at run time, so it "
                       "must name its firmware image (image: NAME)",
                       r->t.file, r->t.line, r->t.col, r->t.name);
    return 0;
}

static int resolve_chip(const raw_chip *c, eb_chip *out, eb_error *err)
{
    *out = c->c;
    out->tiers = NULL;
    out->n_tiers = 0;
    int n = c->n_tiers;
    resolved *res = calloc((size_t)(n ? n : 1), sizeof *res);
    int *state = calloc((size_t)(n ? n : 1), sizeof *state);
    int *chain = calloc((size_t)(n ? n : 1) + 1, sizeof *chain);
    out->tiers = calloc((size_t)(n ? n : 1), sizeof *out->tiers);
    int rc = 0;
    if (!res || !state || !chain || !out->tiers)
        rc = eb_fail(err, EB_EIO, "out of memory loading profiles");
    for (int i = 0; !rc && i < n; i++)
        rc = resolve_tier(c, i, res, state, chain, 0, err);
    for (int i = 0; !rc && i < n; i++)
        rc = check_tier(&res[i], err);
    for (int i = 0; !rc && i < n; i++)
        out->tiers[out->n_tiers++] = res[i].t;
    free(res);
    free(state);
    free(chain);
    if (rc) {
        free(out->tiers);
        out->tiers = NULL;
        out->n_tiers = 0;
    }
    return rc;
}

/* Chip-level `base:`: facts the chip does not give come from its base chip
 * (resolved first; cycles and unknown bases are errors at the base key).
 * Tiers are never inherited this way. state: 0 new, 1 on the chain, 2 done. */
static int resolve_chip_facts(raw_model *m, int i, int *state, eb_error *err)
{
    raw_chip *c = &m->chips[i];
    if (state[i] == 2 || !c->c.base[0]) {
        state[i] = 2;
        return 0;
    }
    if (state[i] == 1)
        return eb_fail(err, EB_ECONFIG, "%s:%d:%d: chip '%s': base chain loops back to itself (base: %s)",
                       c->c.file, c->base_line, c->base_col, c->c.name, c->c.base);
    state[i] = 1;
    int b = raw_chip_find(m, c->c.base);
    if (b < 0 || b == i) {
        char known[256];
        known_chips(m, known, sizeof known);
        return eb_fail(err, EB_ECONFIG, "%s:%d:%d: chip '%s' has unknown base chip '%s' (loaded: %s)", c->c.file,
                       c->base_line, c->base_col, c->c.name, c->c.base, known);
    }
    int rc = resolve_chip_facts(m, b, state, err);
    if (rc)
        return rc;
    c = &m->chips[i];
    for (size_t k = 0; k < N_FACTS; k++) {
        if (!c->seen[k] && m->chips[b].seen[k]) {
            copy_fact(&c->c, &m->chips[b].c, k);
            c->seen[k] = true;
        }
    }
    for (size_t k = 0; k < N_FACTS; k++)
        if (eb_chip_facts[k].required && !c->seen[k])
            return eb_fail(err, EB_ECONFIG, "%s:%d:%d: chip '%s' is missing the required key '%s' (not in it nor in "
                           "its base '%s')", c->c.file, c->line, c->col, c->c.name, eb_chip_facts[k].key, c->c.base);
    state[i] = 2;
    return 0;
}

static int model_to_profiles(raw_model *m, eb_profiles *out, eb_error *err)
{
    int *state = calloc((size_t)(m->n ? m->n : 1), sizeof *state);
    if (!state)
        return eb_fail(err, EB_EIO, "out of memory loading profiles");
    for (int i = 0; i < m->n; i++) {
        int rc = resolve_chip_facts(m, i, state, err);
        if (rc) {
            free(state);
            return rc;
        }
    }
    free(state);
    out->chips = calloc((size_t)(m->n ? m->n : 1), sizeof *out->chips);
    out->n_chips = 0;
    if (!out->chips)
        return eb_fail(err, EB_EIO, "out of memory loading profiles");
    for (int i = 0; i < m->n; i++) {
        int rc = resolve_chip(&m->chips[i], &out->chips[out->n_chips], err);
        if (rc) {
            eb_profiles_free(out);
            return rc;
        }
        out->n_chips++;
    }
    return 0;
}

/* ---------------------------------------------------------------- directories */

/* One folder's files: whole chips first, then the overlays (which may refer to them). */
static int load_folder(raw_model *m, const eb_profile_text *files, int n, int dir_index, eb_error *err)
{
    raw_file *rf = calloc((size_t)(n ? n : 1), sizeof *rf);
    if (!rf)
        return eb_fail(err, EB_EIO, "out of memory loading profiles");
    int rc = 0;
    for (int i = 0; !rc && i < n; i++)
        rc = parse_text(files[i].name, files[i].text, files[i].len, &rf[i], err);
    for (int i = 0; !rc && i < n; i++)
        if (!rf[i].is_overlay)
            rc = add_chip_file(m, &rf[i], dir_index, err);
    for (int i = 0; !rc && i < n; i++)
        if (rf[i].is_overlay)
            rc = apply_overlay(m, &rf[i], err);
    for (int i = 0; i < n; i++)
        raw_chip_free(&rf[i].chip);
    free(rf);
    return rc;
}

/* ---------------------------------------------------------------- public API */

int eb_profiles_load_texts(eb_profiles *out, const eb_profile_folder *folders, int n_folders, eb_error *err)
{
    memset(out, 0, sizeof *out);
    raw_model m = {0};
    int rc = 0;
    for (int i = 0; !rc && i < n_folders; i++)
        rc = load_folder(&m, folders[i].files, folders[i].n, i, err);
    if (!rc && m.n == 0)
        rc = eb_fail(err, EB_ECONFIG, "no chip profiles (*.yaml) found in %s%s",
                     n_folders ? folders[0].dir : "(no directory)",
                     n_folders > 1 ? " and the other profile directories" : "");
    if (!rc)
        rc = model_to_profiles(&m, out, err);
    raw_model_free(&m);
    return rc;
}

int eb_profiles_load_buffer(eb_profiles *out, const char *text, size_t len, const char *name, eb_error *err)
{
    memset(out, 0, sizeof *out);
    raw_model m = {0};
    raw_file rf;
    int rc = parse_text(name, text ? text : "", len, &rf, err);
    if (!rc && rf.is_overlay)
        rc = eb_fail(err, EB_ECONFIG, "%s:%d:%d: an overlay needs its chip's profile; load the directories together",
                     name, rf.overlay_line, rf.overlay_col);
    if (!rc)
        rc = add_chip_file(&m, &rf, 0, err);
    if (!rc)
        rc = model_to_profiles(&m, out, err);
    raw_chip_free(&rf.chip);
    raw_model_free(&m);
    return rc;
}

void eb_profiles_free(eb_profiles *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n_chips; i++)
        free(p->chips[i].tiers);
    free(p->chips);
    p->chips = NULL;
    p->n_chips = 0;
}

/* A name as reports print it ("ESP32-C3", "Iperf") is the name: exact
 * first, then the folded spelling (names.h). */
const eb_chip *eb_profiles_chip(const eb_profiles *p, const char *name)
{
    for (int i = 0; p && name && i < p->n_chips; i++)
        if (!strcmp(p->chips[i].name, name))
            return &p->chips[i];
    for (int i = 0; p && name && i < p->n_chips; i++)
        if (eb_name_same(p->chips[i].name, name))
            return &p->chips[i];
    return NULL;
}

const char *eb_profiles_chip_nearest(const eb_profiles *p, const char *name)
{
    const char *names[256];
    int n = 0;
    for (int i = 0; p && i < p->n_chips && n < 256; i++)
        names[n++] = p->chips[i].name;
    return eb_name_nearest(name, names, n);
}

const char *eb_chip_tier_nearest(const eb_chip *c, const char *name)
{
    const char *names[256];
    int n = 0;
    for (int i = 0; c && i < c->n_tiers && n < 256; i++)
        names[n++] = c->tiers[i].name;
    return eb_name_nearest(name, names, n);
}

void eb_chip_tier_names(const eb_chip *c, char *buf, size_t n)
{
    size_t len = 0;
    if (n)
        buf[0] = '\0';
    for (int i = 0; c && i < c->n_tiers && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", c->tiers[i].name);
}

const eb_tier *eb_chip_tier(const eb_chip *c, const char *tier_name)
{
    for (int i = 0; c && tier_name && i < c->n_tiers; i++)
        if (!strcmp(c->tiers[i].name, tier_name))
            return &c->tiers[i];
    for (int i = 0; c && tier_name && i < c->n_tiers; i++)
        if (eb_name_same(c->tiers[i].name, tier_name))
            return &c->tiers[i];
    return NULL;
}

const eb_chip *eb_profiles_chip_by_id(const eb_profiles *p, int chip_id)
{
    if (chip_id < 0)
        return NULL;
    for (int i = 0; p && i < p->n_chips; i++)
        if (p->chips[i].chip_id == chip_id)
            return &p->chips[i];
    return NULL;
}

const eb_chip *eb_profiles_chip_by_magic(const eb_profiles *p, uint32_t magic)
{
    for (int i = 0; p && i < p->n_chips; i++)
        for (int k = 0; k < p->chips[i].n_magic; k++)
            if (p->chips[i].magic[k] == magic)
                return &p->chips[i];
    return NULL;
}

const eb_spi_regs *eb_chip_spi_regs(const eb_chip *c, eb_error *err)
{
    if (c && c->has_spi_regs)
        return &c->spi;
    eb_fail(err, EB_ECONFIG, "chip %s: its profile (%s) has no 'spi_regs' (the SPI register offsets for the "
            "flash-ID command); add them to the chip section", c ? c->name : "?", c && c->file[0] ? c->file : "?");
    return NULL;
}

const char *eb_cpu_arch_name(enum eb_cpu_arch a)
{
    switch (a) {
    case EB_ARCH_XTENSA: return "xtensa";
    case EB_ARCH_RISCV: return "riscv";
    case EB_ARCH_UNKNOWN: break;
    }
    return "unknown";
}
