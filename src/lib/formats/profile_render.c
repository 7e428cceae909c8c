/* Text table (the docs' layout) and JSON renderings of a chip's profile. */
#include "espbench/formats/dims.h"
#include "espbench/formats/profile.h"

#include "profile_facts.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The docs' rank names, used to group tiers: "psram-quad-iperf" belongs to
 * group "psram-quad-", "iperf" and names without a rank suffix to group "". */
static const char *const ranks[] = {"iperf",   "tx-prior",      "high-performance", "rx-prior",
                                    "default", "memory-saving", "minimum"};

static void group_of(const char *name, char *out, size_t n)
{
    size_t len = strlen(name);
    out[0] = '\0';
    for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) {
        size_t rl = strlen(ranks[i]);
        if (len > rl + 1 && !strcmp(name + len - rl, ranks[i]) && name[len - rl - 1] == '-') {
            snprintf(out, n, "%.*s", (int)(len - rl), name);
            return;
        }
    }
}

#define MAX_COLS 64

typedef struct table {
    int n_rows, n_cols;                 /* cols include the row-label column */
    char cell[48][MAX_COLS + 1][48];
} table;

static void put(table *t, int row, int col, const char *s)
{
    snprintf(t->cell[row][col], sizeof t->cell[row][col], "%s", s);
}

static void fmt_num(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%g", v);
}

static void print_table(FILE *f, const table *t)
{
    int w[MAX_COLS + 1] = {0};
    for (int r = 0; r < t->n_rows; r++)
        for (int c = 0; c < t->n_cols; c++) {
            int l = (int)strlen(t->cell[r][c]);
            if (l > w[c])
                w[c] = l;
        }
    for (int r = 0; r < t->n_rows; r++) {
        for (int c = 0; c < t->n_cols; c++) {
            if (c == 0)
                fprintf(f, "%-*s", w[0], t->cell[r][0]);
            else
                fprintf(f, "  %*s", w[c], t->cell[r][c]);
        }
        fputc('\n', f);
    }
}

/* The reference rows a profile may hold: the docs' default table, and a
 * band's own row (reference_5g:, the ESP32-C5's 5 GHz table). A view of a
 * profile shows each one the profile gives. */
static const struct {
    const char *band;  /* the key's radio band; "" = every dimension at its default */
    const char *label; /* before the test's docs label in the text table */
    const char *json;  /* the tier's JSON key */
} ref_rows[] = {
    {"", "", "reference"},
    {"5", "5 GHz ", "reference_5g"},
};

static void ref_key(eb_provenance *key, const char *band)
{
    eb_prov_init(key);
    snprintf(key->radio_band, sizeof key->radio_band, "%s", band);
}

static bool tier_has_refs(const eb_tier *t, const eb_provenance *key)
{
    for (int test = 0; test < EB_TEST_COUNT; test++)
        if (!isnan(eb_tier_ref(t, test, key)))
            return true;
    return false;
}

static void render_group(FILE *f, const eb_chip *c, const eb_tier *const *tiers, int n)
{
    static table t;      /* large; rendering is not re-entrant anyway */
    memset(&t, 0, sizeof t);
    t.n_cols = n + 1;
    int r = 0;
    put(&t, r, 0, "Rank");
    for (int i = 0; i < n; i++)
        put(&t, r, i + 1, tiers[i]->label[0] ? tiers[i]->label : tiers[i]->name);
    r++;
    put(&t, r, 0, "Tier (espbench name)");
    for (int i = 0; i < n; i++)
        put(&t, r, i + 1, tiers[i]->name);
    r++;
    char buf[48];
    bool any_avail = false;
    for (int i = 0; i < n; i++)
        any_avail |= !isnan(tiers[i]->ref_avail_kb);
    if (any_avail) {
        put(&t, r, 0, "Available memory (KB)");
        for (int i = 0; i < n; i++) {
            fmt_num(buf, sizeof buf, tiers[i]->ref_avail_kb);
            put(&t, r, i + 1, buf);
        }
        r++;
    }
    bool any_rebuild = false;
    for (int fld = 0; fld < EB_F_COUNT; fld++) {
        bool used = false, rebuild = false;
        for (int i = 0; i < n; i++) {
            used |= tiers[i]->set[fld];
            rebuild |= tiers[i]->set[fld] && !tiers[i]->runtime[fld];
        }
        if (!used)
            continue;
        any_rebuild |= rebuild;
        snprintf(buf, sizeof buf, "%s%s", eb_field_desc_get(fld)->label, rebuild ? " *" : "");
        put(&t, r, 0, buf);
        for (int i = 0; i < n; i++) {
            if (tiers[i]->set[fld])
                eb_field_format(fld, tiers[i]->value[fld], buf, sizeof buf);
            else
                snprintf(buf, sizeof buf, "-");
            put(&t, r, i + 1, buf);
        }
        r++;
    }
    for (size_t b = 0; b < sizeof ref_rows / sizeof ref_rows[0]; b++) {
        eb_provenance key;
        ref_key(&key, ref_rows[b].band);
        bool any = false;
        for (int i = 0; i < n; i++)
            any |= tier_has_refs(tiers[i], &key);
        if (!any && b > 0) /* the default row is always shown; a band's only when the docs give it */
            continue;
        for (int test = 0; test < EB_TEST_COUNT; test++) {
            snprintf(buf, sizeof buf, "%s%s", ref_rows[b].label, eb_test_docs_label(test));
            put(&t, r, 0, buf);
            for (int i = 0; i < n; i++) {
                fmt_num(buf, sizeof buf, eb_tier_ref(tiers[i], test, &key));
                put(&t, r, i + 1, buf);
            }
            r++;
        }
    }
    t.n_rows = r;
    print_table(f, &t);
    if (any_rebuild)
        fprintf(f, "* needs a rebuild (not switchable at run time)\n");
    (void)c;
}

static void chip_header(FILE *f, const eb_chip *c)
{
    fprintf(f, "%s (%s): ", c->display, c->name);
    if (c->chip_id >= 0)
        fprintf(f, "chip id %d, ", c->chip_id);
    else
        fprintf(f, "no chip id, ");
    fprintf(f, "ROM magic");
    for (int i = 0; i < c->n_magic; i++)
        fprintf(f, "%s 0x%08X", i ? "," : "", c->magic[i]);
    fprintf(f, ", bootloader at 0x%X, flash %u MB, CPU %g MHz, PSRAM variants: %s\n",
            c->bootloader_offset, c->flash_size / (1024 * 1024), c->cpu_mhz,
            c->has_psram ? "yes" : "no");
    fprintf(f, "ROM banner: %s\n", c->rom_banner);
    if (c->base[0])
        fprintf(f, "Facts not given above inherited from: %s\n", c->base);
    fprintf(f, "CPU: %s, %d core%s; image format %s", eb_cpu_arch_name(c->arch), c->cores, c->cores == 1 ? "" : "s",
            c->image_format == EB_IMAGE_ESP8266 ? "esp8266" : "esp32");
    if (c->has_memory_map)
        fprintf(f, "; DROM 0x%08X, IROM 0x%08X, DRAM 0x%08X, IRAM 0x%08X", c->mem.drom, c->mem.irom, c->mem.dram,
                c->mem.iram);
    fputc('\n', f);
}

char *eb_chip_render_table(const eb_chip *c, const eb_tier *only)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return NULL;
    chip_header(f, c);
    const eb_tier *cols[MAX_COLS];
    if (only) {
        fputc('\n', f);
        cols[0] = only;
        render_group(f, c, cols, 1);
    } else {
        /* One block per group, groups in order of first appearance. */
        bool done[256] = {false};
        for (int i = 0; i < c->n_tiers && i < 256; i++) {
            if (done[i])
                continue;
            char g[32], g2[32];
            group_of(c->tiers[i].name, g, sizeof g);
            int n = 0;
            for (int j = i; j < c->n_tiers && j < 256 && n < MAX_COLS; j++) {
                group_of(c->tiers[j].name, g2, sizeof g2);
                if (!done[j] && !strcmp(g, g2)) {
                    cols[n++] = &c->tiers[j];
                    done[j] = true;
                }
            }
            if (g[0])
                fprintf(f, "\n%s* tiers%s\n", g, cols[0]->psram ? " (with PSRAM)" : "");
            else
                fprintf(f, "\ntiers%s\n", cols[0]->psram ? " (with PSRAM)" : "");
            render_group(f, c, cols, n);
        }
    }
    fclose(f);
    return out;
}

static void add_hex(cJSON *o, const char *key, uint32_t v)
{
    char buf[16];
    snprintf(buf, sizeof buf, "0x%08X", v);
    cJSON_AddStringToObject(o, key, buf);
}

static void add_num_or_null(cJSON *o, const char *key, double v)
{
    if (isnan(v))
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, v);
}

static void add_str_or_null(cJSON *o, const char *key, const char *s)
{
    if (s[0])
        cJSON_AddStringToObject(o, key, s);
    else
        cJSON_AddNullToObject(o, key);
}

static cJSON *tier_json(const eb_tier *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", t->name);
    cJSON_AddStringToObject(o, "label", t->label);
    cJSON_AddStringToObject(o, "label_zh", t->label_zh);
    add_str_or_null(o, "base", t->base);
    cJSON_AddBoolToObject(o, "psram", t->psram);
    add_str_or_null(o, "image", t->image);
    cJSON *set = cJSON_AddObjectToObject(o, "settings");
    cJSON *rt = cJSON_AddObjectToObject(o, "runtime");
    for (int f = 0; f < EB_F_COUNT; f++) {
        if (!t->set[f])
            continue;
        const eb_field_desc *d = eb_field_desc_get(f);
        if (d->kind == EB_FK_BOOL)
            cJSON_AddBoolToObject(set, d->key, t->value[f] != 0);
        else
            cJSON_AddNumberToObject(set, d->key, t->value[f]);
        cJSON_AddBoolToObject(rt, d->key, t->runtime[f]);
    }
    for (size_t b = 0; b < sizeof ref_rows / sizeof ref_rows[0]; b++) {
        eb_provenance point;
        ref_key(&point, ref_rows[b].band);
        if (b > 0 && !tier_has_refs(t, &point))
            continue;
        cJSON *ref = cJSON_AddObjectToObject(o, ref_rows[b].json);
        if (b == 0) /* the memory figure is one per tier (the default table's) */
            add_num_or_null(ref, "avail_kb", t->ref_avail_kb);
        for (int test = 0; test < EB_TEST_COUNT; test++) {
            char key[32];
            snprintf(key, sizeof key, "%s_mbps", eb_test_name(test));
            add_num_or_null(ref, key, eb_tier_ref(t, test, &point));
        }
    }
    return o;
}

/* One chip fact into o, by its type in the facts' table. */
static void fact_json(cJSON *o, const eb_chip *c, const struct fact *f)
{
    const char *field = (const char *)c + f->offset;
    /* the chip's name is "chip" in JSON, as in results */
    const char *key = !strcmp(f->key, "name") ? "chip" : f->key;
    switch (f->type) {
    case FT_STR:
        if (field[0] || f->required)
            cJSON_AddStringToObject(o, key, field);
        return;
    case FT_INT: {
        int v = *(const int *)field;
        if (v >= 0)
            cJSON_AddNumberToObject(o, key, v);
        else
            cJSON_AddNullToObject(o, key); /* unknown (chip_id: -1) */
        return;
    }
    case FT_U32:
    case FT_SIZE: {
        uint32_t v = *(const uint32_t *)field;
        if (f->hex)
            add_hex(o, key, v);
        else
            cJSON_AddNumberToObject(o, key, v);
        return;
    }
    case FT_BOOL:
        cJSON_AddBoolToObject(o, key, *(const bool *)field);
        return;
    case FT_DOUBLE: {
        double v = *(const double *)field;
        if (v > 0)
            cJSON_AddNumberToObject(o, key, v);
        else
            cJSON_AddNullToObject(o, key); /* not given: the consumer's default */
        return;
    }
    case FT_MAGIC: {
        cJSON *magic = cJSON_AddArrayToObject(o, key);
        for (int i = 0; i < c->n_magic; i++) {
            char buf[16];
            snprintf(buf, sizeof buf, "0x%08X", c->magic[i]);
            cJSON_AddItemToArray(magic, cJSON_CreateString(buf));
        }
        return;
    }
    case FT_ARCH:
        cJSON_AddStringToObject(o, key, eb_cpu_arch_name(c->arch));
        return;
    case FT_IMGFMT:
        cJSON_AddStringToObject(o, key, c->image_format == EB_IMAGE_ESP8266 ? "esp8266" : "esp32");
        return;
    case FT_SPI:
        if (c->has_spi_regs) {
            cJSON *spi = cJSON_AddObjectToObject(o, key);
            add_hex(spi, "usr", c->spi.usr);
            add_hex(spi, "usr1", c->spi.usr1);
            add_hex(spi, "usr2", c->spi.usr2);
            add_hex(spi, "mosi_dlen", c->spi.mosi_dlen);
            add_hex(spi, "miso_dlen", c->spi.miso_dlen);
            add_hex(spi, "w0", c->spi.w0);
        }
        return;
    case FT_MEMMAP:
        if (c->has_memory_map) {
            cJSON *mm = cJSON_AddObjectToObject(o, key);
            add_hex(mm, "drom", c->mem.drom);
            add_hex(mm, "irom", c->mem.irom);
            add_hex(mm, "dram", c->mem.dram);
            add_hex(mm, "iram", c->mem.iram);
        }
        return;
    }
}

char *eb_chip_render_json(const eb_chip *c, const eb_tier *only)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    for (size_t i = 0; i < eb_chip_n_facts; i++)
        fact_json(o, c, &eb_chip_facts[i]);
    cJSON *tiers = cJSON_AddArrayToObject(o, "tiers");
    for (int i = 0; i < c->n_tiers; i++)
        if (!only || only == &c->tiers[i])
            cJSON_AddItemToArray(tiers, tier_json(&c->tiers[i]));
    char *s = cJSON_Print(o);
    cJSON_Delete(o);
    return s;
}
