/* ESP-Hosted pair profiles: profiles/hosted/NAME.yaml (espbench-profiles(5),
 * "ESP-HOSTED PAIRS"). A pair names its two chips (which must have chip
 * profiles), its transport, the co-processor firmware's own settings, the
 * published raw transport figures and its tiers (the host's settings and the
 * published iperf figures). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "espbench/base/buf.h"
#include "espbench/formats/hosted.h"
#include "yaml_doc.h"

/* Bus facts: names, the guide's label, and the data-line counts the
 * transport offers (esp-hosted-mcu docs/sdio.md, spi_full_duplex.md,
 * spi_half_duplex.md, uart.md). */
static const struct {
    const char *name, *label;
    int widths[3];
} buses[EB_BUS_COUNT] = {
    [EB_BUS_SDIO] = {"sdio", "SDIO", {1, 4, 0}},
    [EB_BUS_SPI] = {"spi", "SPI-FD", {1, 0, 0}},
    [EB_BUS_SPI_HD] = {"spi-hd", "SPI-HD", {2, 4, 0}},
    [EB_BUS_UART] = {"uart", "UART", {1, 0, 0}},
};

const char *eb_hosted_bus_name(int bus) { return bus >= 0 && bus < EB_BUS_COUNT ? buses[bus].name : "?"; }
const char *eb_hosted_bus_label(int bus) { return bus >= 0 && bus < EB_BUS_COUNT ? buses[bus].label : "?"; }

int eb_hosted_bus_from_name(const char *name)
{
    for (int b = 0; name && b < EB_BUS_COUNT; b++)
        if (!strcasecmp(name, buses[b].name))
            return b;
    return -1;
}

const char *eb_hosted_transport_text(const eb_hosted_pair *pair, char *buf, size_t n)
{
    if (pair->bus == EB_BUS_SDIO || pair->bus == EB_BUS_SPI_HD)
        snprintf(buf, n, "%s %d-bit %g MHz, %s", eb_hosted_bus_label(pair->bus), pair->width, pair->clock_mhz,
                 pair->band);
    else
        snprintf(buf, n, "%s %g MHz, %s", eb_hosted_bus_label(pair->bus), pair->clock_mhz, pair->band);
    return buf;
}

/* ------------------------------------------------------------ YAML helpers */

typedef struct hctx {
    const char *path;
    yaml_document_t *doc;
    const eb_profiles *profiles;
    eb_error *err;
} hctx;

__attribute__((format(printf, 3, 4))) static int fail_at(hctx *x, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[EB_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return eb_fail(x->err, EB_ECONFIG, "%s:%d:%d: %s", x->path, (int)n->start_mark.line + 1,
                   (int)n->start_mark.column + 1, msg);
}

static yaml_node_t *node(hctx *x, int id) { return yaml_document_get_node(x->doc, id); }

static const char *text_of(hctx *x, const yaml_node_t *n, const char *key)
{
    if (n->type != YAML_SCALAR_NODE) {
        fail_at(x, n, "expected a scalar for '%s'", key);
        return NULL;
    }
    return (const char *)n->data.scalar.value;
}

static int get_str(hctx *x, const yaml_node_t *n, const char *key, char *out, size_t size)
{
    const char *s = text_of(x, n, key);
    if (!s)
        return EB_ECONFIG;
    if (!*s || strlen(s) >= size)
        return fail_at(x, n, "'%s' must be 1..%zu characters", key, size - 1);
    memcpy(out, s, strlen(s) + 1);
    return 0;
}

static int get_num(hctx *x, const yaml_node_t *n, const char *key, double lo, double hi, double *out)
{
    const char *s = text_of(x, n, key);
    if (!s)
        return EB_ECONFIG;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v))
        return fail_at(x, n, "expected a number for '%s', got '%s'", key, s);
    if (v < lo || v > hi)
        return fail_at(x, n, "'%s' = %s is outside %g..%g", key, s, lo, hi);
    *out = v;
    return 0;
}

/* Calls fn for each key of a mapping; rejects other node kinds. */
typedef int (*pair_fn)(hctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user);

static int each_pair(hctx *x, yaml_node_t *map, const char *what, pair_fn fn, void *user)
{
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(x, map, "expected a mapping for %s", what);
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = node(x, p->key), *vn = node(x, p->value);
        const char *key = text_of(x, kn, what);
        if (!key)
            return EB_ECONFIG;
        int rc = fn(x, key, kn, vn, user);
        if (rc)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------ settings */

/* One setting through the same text rules as every tier field. */
static int setting_pair(hctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    eb_tier *t = user;
    const char *v = text_of(x, vn, key);
    if (!v)
        return EB_ECONFIG;
    eb_error e;
    eb_error_clear(&e);
    if (eb_model_tier_set(t, key, v, &e))
        return fail_at(x, eb_field_from_key(key) < 0 ? kn : vn, "%s", e.msg);
    return 0;
}

static void tier_blank(eb_tier *t)
{
    memset(t, 0, sizeof *t);
    t->ref_avail_kb = NAN;
    for (int k = 0; k < EB_TEST_COUNT; k++)
        t->ref_mbps[k] = NAN;
}

static int reference_pair(hctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    eb_tier *t = user;
    for (int k = 0; k < EB_TEST_COUNT; k++) {
        char want[32];
        snprintf(want, sizeof want, "%s_mbps", eb_test_name(k));
        if (!strcmp(key, want))
            return get_num(x, vn, key, 0, 10000, &t->ref_mbps[k]);
    }
    return fail_at(x, kn, "unknown reference '%s' (tcp_tx_mbps, tcp_rx_mbps, udp_tx_mbps, udp_rx_mbps)", key);
}

static int tier_pair(hctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    eb_tier *t = user;
    if (!strcmp(key, "name"))
        return get_str(x, vn, key, t->name, sizeof t->name);
    if (!strcmp(key, "label"))
        return get_str(x, vn, key, t->label, sizeof t->label);
    if (!strcmp(key, "settings"))
        return each_pair(x, vn, "settings", setting_pair, t);
    if (!strcmp(key, "reference"))
        return each_pair(x, vn, "reference", reference_pair, t);
    return fail_at(x, kn, "unknown tier key '%s' (name, label, settings, reference)", key);
}

static int parse_tier(hctx *x, yaml_node_t *tn, eb_hosted_pair *pair)
{
    eb_tier *t = &pair->tiers[pair->n_tiers];
    tier_blank(t);
    snprintf(t->file, sizeof t->file, "%s", x->path);
    t->line = (int)tn->start_mark.line + 1;
    t->col = (int)tn->start_mark.column + 1;
    int rc = each_pair(x, tn, "a tier", tier_pair, t);
    if (rc)
        return rc;
    if (!t->name[0])
        return fail_at(x, tn, "a tier needs a 'name'");
    for (int i = 0; i < pair->n_tiers; i++)
        if (!strcmp(pair->tiers[i].name, t->name))
            return fail_at(x, tn, "tier '%s' is defined twice", t->name);
    if (!t->label[0])
        snprintf(t->label, sizeof t->label, "%s", t->name);
    snprintf(t->label_zh, sizeof t->label_zh, "%s", t->label);
    for (int f = 0; f < EB_F_COUNT; f++)
        t->runtime[f] = false; /* the host's options are build-time (sdkconfig) */
    eb_error e;
    eb_error_clear(&e);
    if (eb_tier_validate(t, &e))
        return fail_at(x, tn, "tier '%s': %s", t->name, e.msg);
    pair->n_tiers++;
    return 0;
}

/* ------------------------------------------------------------ the pair */

static int transport_pair(hctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    eb_hosted_pair *p = user;
    double v;
    int rc;
    if (!strcmp(key, "bus")) {
        const char *s = text_of(x, vn, key);
        if (!s)
            return EB_ECONFIG;
        p->bus = eb_hosted_bus_from_name(s);
        if (p->bus < 0)
            return fail_at(x, vn, "unknown bus '%s' (sdio, spi, spi-hd, uart)", s);
        return 0;
    }
    if (!strcmp(key, "width")) {
        if ((rc = get_num(x, vn, key, 1, 8, &v)))
            return rc;
        p->width = (int)v;
        return v == p->width ? 0 : fail_at(x, vn, "'width' must be a whole number of data lines");
    }
    if (!strcmp(key, "clock_mhz"))
        return get_num(x, vn, key, 0.001, 200, &p->clock_mhz);
    return fail_at(x, kn, "unknown transport key '%s' (bus, width, clock_mhz)", key);
}

static int raw_ref_pair(hctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    eb_hosted_pair *p = user;
    if (!strcmp(key, "raw_tx_mbps"))
        return get_num(x, vn, key, 0, 10000, &p->raw_mbps[0]);
    if (!strcmp(key, "raw_rx_mbps"))
        return get_num(x, vn, key, 0, 10000, &p->raw_mbps[1]);
    return fail_at(x, kn, "unknown reference '%s' (raw_tx_mbps, raw_rx_mbps)", key);
}

static int chip_name(hctx *x, yaml_node_t *vn, const char *key, char *out, size_t n)
{
    int rc = get_str(x, vn, key, out, n);
    if (!rc && !eb_profiles_chip(x->profiles, out))
        return fail_at(x, vn, "'%s': no chip profile named '%s'", key, out);
    return rc;
}

static int pair_pair(hctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    eb_hosted_pair *p = user;
    if (!strcmp(key, "name"))
        return get_str(x, vn, key, p->name, sizeof p->name);
    if (!strcmp(key, "host"))
        return chip_name(x, vn, key, p->host, sizeof p->host);
    if (!strcmp(key, "coprocessor"))
        return chip_name(x, vn, key, p->coprocessor, sizeof p->coprocessor);
    if (!strcmp(key, "band"))
        return get_str(x, vn, key, p->band, sizeof p->band);
    if (!strcmp(key, "transport")) {
        int rc = each_pair(x, vn, "transport", transport_pair, p);
        if (rc || p->bus < 0 || p->width == 0 || p->clock_mhz <= 0)
            return rc ? rc : fail_at(x, vn, "transport needs bus, width and clock_mhz");
        for (int i = 0; i < 3; i++)
            if (buses[p->bus].widths[i] == p->width)
                return 0;
        return fail_at(x, vn, "%s has no %d-line mode", eb_hosted_bus_label(p->bus), p->width);
    }
    if (!strcmp(key, "coprocessor_settings")) {
        eb_tier t;
        tier_blank(&t);
        int rc = each_pair(x, vn, "coprocessor_settings", setting_pair, &t);
        memcpy(p->cp_set, t.set, sizeof p->cp_set);
        memcpy(p->cp_value, t.value, sizeof p->cp_value);
        return rc;
    }
    if (!strcmp(key, "reference"))
        return each_pair(x, vn, "reference", raw_ref_pair, p);
    return fail_at(x, kn, "unknown pair key '%s' (name, host, coprocessor, transport, band, "
                   "coprocessor_settings, reference)", key);
}

static int top_pair(hctx *x, const char *key, yaml_node_t *kn, yaml_node_t *vn, void *user)
{
    eb_hosted_pair *p = user;
    if (!strcmp(key, "pair"))
        return each_pair(x, vn, "pair", pair_pair, p);
    if (!strcmp(key, "tiers")) {
        if (vn->type != YAML_SEQUENCE_NODE)
            return fail_at(x, vn, "expected a list for 'tiers'");
        int n = (int)(vn->data.sequence.items.top - vn->data.sequence.items.start);
        free(p->tiers);
        p->n_tiers = 0;
        p->tiers = calloc((size_t)(n > 0 ? n : 1), sizeof *p->tiers);
        if (!p->tiers)
            return eb_fail(x->err, EB_EIO, "out of memory");
        for (yaml_node_item_t *it = vn->data.sequence.items.start; it < vn->data.sequence.items.top; it++) {
            int rc = parse_tier(x, node(x, *it), p);
            if (rc)
                return rc;
        }
        return 0;
    }
    return fail_at(x, kn, "unknown key '%s' (pair, tiers)", key);
}

static int parse_pair_doc(hctx *x, eb_hosted_pair *p)
{
    yaml_node_t *root = yaml_document_get_root_node(x->doc);
    if (!root)
        return eb_fail(x->err, EB_ECONFIG, "%s:1:1: empty file; a pair profile needs 'pair' and 'tiers'",
                       x->path);
    int rc = each_pair(x, root, "the file", top_pair, p);
    if (rc)
        return rc;
    if (!p->name[0] || !p->host[0] || !p->coprocessor[0] || p->bus < 0)
        return fail_at(x, root, "'pair' needs name, host, coprocessor and transport");
    if (p->n_tiers == 0)
        return fail_at(x, root, "a pair needs at least one tier under 'tiers'");
    return 0;
}

static void pair_free(eb_hosted_pair *p)
{
    free(p->tiers);
    p->tiers = NULL;
    p->n_tiers = 0;
}

static int load_text(const char *path, const char *text, size_t len, const eb_profiles *prof,
                     eb_hosted_pair *p, eb_error *err)
{
    memset(p, 0, sizeof *p);
    p->bus = -1;
    p->raw_mbps[0] = p->raw_mbps[1] = NAN;
    snprintf(p->file, sizeof p->file, "%s", path);
    yaml_document_t doc;
    int rc = eb_yaml_load(&doc, text, len, path, err);
    if (rc)
        return rc;
    hctx x = {.path = path, .doc = &doc, .profiles = prof, .err = err};
    rc = parse_pair_doc(&x, p);
    yaml_document_delete(&doc);
    if (rc)
        pair_free(p);
    return rc;
}

/* ------------------------------------------------------------ files */

static int add_pair(eb_hosted_set *s, eb_hosted_pair *p, eb_error *err)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->pairs[i].name, p->name)) {
            pair_free(&s->pairs[i]);
            s->pairs[i] = *p;
            return 0;
        }
    eb_hosted_pair *np = realloc(s->pairs, (size_t)(s->n + 1) * sizeof *np);
    if (!np) {
        pair_free(p);
        return eb_fail(err, EB_EIO, "out of memory");
    }
    s->pairs = np;
    s->pairs[s->n++] = *p;
    return 0;
}

int eb_hosted_load_buffer(eb_hosted_set *out, const char *text, size_t len, const char *name, const eb_profiles *p,
                          eb_error *err)
{
    eb_hosted_pair pair;
    int rc = load_text(name, text, len, p, &pair, err);
    return rc ? rc : add_pair(out, &pair, err);
}

void eb_hosted_free(eb_hosted_set *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++)
        pair_free(&s->pairs[i]);
    free(s->pairs);
    s->pairs = NULL;
    s->n = 0;
}

/* ------------------------------------------------------------ lookups */

const eb_hosted_pair *eb_hosted_by_name(const eb_hosted_set *s, const char *name)
{
    for (int i = 0; s && name && i < s->n; i++)
        if (!strcmp(s->pairs[i].name, name))
            return &s->pairs[i];
    return NULL;
}

const eb_hosted_pair *eb_hosted_find(const eb_hosted_set *s, const char *host, const char *cp, int bus,
                                     int *n_buses)
{
    const eb_hosted_pair *found = NULL;
    int n = 0;
    for (int i = 0; s && i < s->n; i++) {
        const eb_hosted_pair *p = &s->pairs[i];
        if (strcmp(p->host, host) || strcmp(p->coprocessor, cp) || (bus >= 0 && p->bus != bus))
            continue;
        n++;
        if (!found)
            found = p;
    }
    if (n_buses)
        *n_buses = n;
    return bus < 0 && n > 1 ? NULL : found;
}

/* "sdio, spi" of the pairs of host and cp (or of every co-processor of host, cp NULL). */
static void list_of(const eb_hosted_set *s, const char *host, const char *cp, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < s->n && len < n; i++) {
        const eb_hosted_pair *p = &s->pairs[i];
        if (strcmp(p->host, host) || (cp && strcmp(p->coprocessor, cp)))
            continue;
        const char *item = cp ? eb_hosted_bus_name(p->bus) : p->coprocessor;
        if (!strstr(buf, item))
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", item);
    }
}

int eb_hosted_select(const eb_hosted_set *s, const eb_profiles *p, const char *host, const char *cp,
                     const char *transport, const eb_hosted_pair **out, eb_error *err)
{
    static const eb_hosted_words flags = {"--coprocessor ", "--transport ", "pass --transport"};
    return eb_hosted_select_as(s, p, host, cp, transport, &flags, out, err);
}

int eb_hosted_select_as(const eb_hosted_set *s, const eb_profiles *p, const char *host, const char *cp,
                        const char *transport, const eb_hosted_words *w, const eb_hosted_pair **out, eb_error *err)
{
    char names[256];
    *out = NULL;
    if (!eb_profiles_chip(p, cp))
        return eb_fail(err, EB_ECONFIG, "%s%s: no chip profile of that name; see 'espbench profiles list'", w->cp,
                       cp);
    int bus = -1;
    if (transport && (bus = eb_hosted_bus_from_name(transport)) < 0)
        return eb_fail(err, EB_ECONFIG, "%s%s: unknown transport (sdio, spi, spi-hd, uart)", w->transport,
                       transport);
    int n = 0;
    const eb_hosted_pair *pair = eb_hosted_find(s, host, cp, bus, &n);
    if (pair) {
        *out = pair;
        return 0;
    }
    list_of(s, host, cp, names, sizeof names);
    if (n > 1)
        return eb_fail(err, EB_ECONFIG, "%s%s: %s reaches it over %s; %s", w->cp, cp, host, names, w->pass_transport);
    if (names[0])
        return eb_fail(err, EB_ECONFIG, "%s%s: %s with %s has no %s pair profile (transports: %s)", w->transport,
                       transport, host, cp, transport, names);
    list_of(s, host, NULL, names, sizeof names);
    return eb_fail(err, EB_ECONFIG, "%s%s: no ESP-Hosted pair profile with host %s (co-processors: %s)", w->cp, cp,
                   host, names[0] ? names : "none");
}

int eb_hosted_apply(eb_chip *c, const eb_hosted_pair *pair, eb_error *err)
{
    eb_tier *t = malloc((size_t)pair->n_tiers * sizeof *t);
    if (!t)
        return eb_fail(err, EB_EIO, "out of memory");
    memcpy(t, pair->tiers, (size_t)pair->n_tiers * sizeof *t);
    free(c->tiers);
    c->tiers = t;
    c->n_tiers = pair->n_tiers;
    return 0;
}
