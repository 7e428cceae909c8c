/* The model's constants file (profiles/model/model.yaml): rendering, so the
 * fit writes the same bytes for the same tables, and loading with libyaml. */
#include "espbench/formats/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "yaml_doc.h"

#include "espbench/base/buf.h"

void eb_model_free(eb_model *m)
{
    if (!m)
        return;
    free(m->chips);
    m->chips = NULL;
    m->n_chips = 0;
}

const eb_model_chip *eb_model_chip_get(const eb_model *m, const char *chip)
{
    for (int i = 0; m && chip && i < m->n_chips; i++)
        if (strcmp(m->chips[i].chip, chip) == 0)
            return &m->chips[i];
    return NULL;
}

char *eb_model_render(const eb_model *m)
{
    eb_buf b;
    eb_buf_init(&b);
    eb_buf_printf(&b,
                  "# Tier model constants (docs/model.md), fitted by `espbench model fit` from the\n"
                  "# published tables in profiles/. Generated: re-run the fit, do not edit.\n"
                  "model_version: %s\nchips:\n",
                  m->version);
    for (int i = 0; i < m->n_chips; i++) {
        const eb_model_chip *c = &m->chips[i];
        eb_buf_printf(&b, "  %s:\n    tiers_fitted: %d\n    heap_fitted: %d\n", c->chip, c->n_tiers,
                      c->n_heap);
        eb_buf_printf(&b, "    phy_mbps: %.6g\n    ref_icache_kb: %.6g\n", c->phy_mbps,
                      c->ref_icache_kb);
        for (int k = 0; k < EB_MP_COUNT; k++)
            eb_buf_printf(&b, "    %s: %.6g\n", eb_model_param_key(k), c->p[k]);
    }
    eb_buf_cstr(&b);
    return (char *)b.data; /* the caller frees it */
}

typedef struct loader {
    const char *path;
    yaml_document_t doc;
    eb_error *err;
} loader;

static int bad(loader *l, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(loader *l, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return eb_fail(l->err, EB_ECONFIG, "%s:%zu:%zu: %s; re-run `espbench model fit`", l->path,
                   n ? n->start_mark.line + 1 : 0, n ? n->start_mark.column + 1 : 0, msg);
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int number(loader *l, const yaml_node_t *n, const char *key, double *out)
{
    const char *s = scalar(n);
    char *end = NULL;
    double v = s ? strtod(s, &end) : NAN;
    if (!s || end == s || *end || !isfinite(v))
        return bad(l, n, "%s must be a number", key);
    *out = v;
    return 0;
}

static int chip_key(loader *l, eb_model_chip *c, const char *key, yaml_node_t *vn)
{
    double v = 0;
    if (number(l, vn, key, &v))
        return EB_ECONFIG;
    if (!strcmp(key, "tiers_fitted"))
        c->n_tiers = (int)v;
    else if (!strcmp(key, "heap_fitted"))
        c->n_heap = (int)v;
    else if (!strcmp(key, "phy_mbps"))
        c->phy_mbps = v;
    else if (!strcmp(key, "ref_icache_kb"))
        c->ref_icache_kb = v;
    else {
        int k = 0;
        while (k < EB_MP_COUNT && strcmp(eb_model_param_key(k), key) != 0)
            k++;
        if (k == EB_MP_COUNT)
            return bad(l, vn, "unknown model constant '%s'", key);
        c->p[k] = v;
    }
    return 0;
}

static int load_chip(loader *l, eb_model *m, yaml_node_t *name, yaml_node_t *body)
{
    if (!scalar(name) || !body || body->type != YAML_MAPPING_NODE)
        return bad(l, name, "each chip is a mapping of constants");
    eb_model_chip *c = &m->chips[m->n_chips];
    memset(c, 0, sizeof *c);
    snprintf(c->chip, sizeof c->chip, "%s", scalar(name));
    for (int k = 0; k < EB_MP_COUNT; k++)
        c->p[k] = NAN;
    for (yaml_node_pair_t *pr = body->data.mapping.pairs.start; pr < body->data.mapping.pairs.top;
         pr++) {
        yaml_node_t *kn = yaml_document_get_node(&l->doc, pr->key);
        if (!scalar(kn) || chip_key(l, c, scalar(kn), yaml_document_get_node(&l->doc, pr->value)))
            return l->err && l->err->code ? l->err->code : bad(l, kn, "bad key");
    }
    for (int k = 0; k < EB_MP_COUNT; k++)
        if (isnan(c->p[k]))
            return bad(l, body, "chip %s lacks %s", c->chip, eb_model_param_key(k));
    m->n_chips++;
    return 0;
}

static int load_root(loader *l, eb_model *m, yaml_node_t *root)
{
    if (!root || root->type != YAML_MAPPING_NODE)
        return bad(l, root, "the model file is a mapping with model_version and chips");
    yaml_node_t *chips = NULL;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&l->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(&l->doc, p->value);
        if (scalar(k) && !strcmp(scalar(k), "model_version") && scalar(v))
            snprintf(m->version, sizeof m->version, "%s", scalar(v));
        else if (scalar(k) && !strcmp(scalar(k), "chips"))
            chips = v;
        else
            return bad(l, k, "unknown key (model_version, chips)");
    }
    if (strcmp(m->version, EB_MODEL_VERSION) != 0)
        return bad(l, root, "constants are for model version '%s', this is version %s",
                   m->version, EB_MODEL_VERSION);
    if (!chips || chips->type != YAML_MAPPING_NODE)
        return bad(l, root, "chips: a mapping of chip name to constants is required");
    size_t n = (size_t)(chips->data.mapping.pairs.top - chips->data.mapping.pairs.start);
    m->chips = calloc(n ? n : 1, sizeof *m->chips);
    if (!m->chips)
        return eb_fail(l->err, EB_EIO, "%s: out of memory", l->path);
    for (yaml_node_pair_t *p = chips->data.mapping.pairs.start; p < chips->data.mapping.pairs.top;
         p++)
        if (load_chip(l, m, yaml_document_get_node(&l->doc, p->key),
                      yaml_document_get_node(&l->doc, p->value)))
            return EB_ECONFIG;
    return 0;
}

int eb_model_load_buffer(eb_model *m, const char *text, size_t len, const char *name, eb_error *err)
{
    memset(m, 0, sizeof *m);
    loader l = {.path = name, .err = err};
    int rc = eb_yaml_load(&l.doc, text, len, name, err);
    if (!rc) {
        rc = load_root(&l, m, yaml_document_get_root_node(&l.doc));
        yaml_document_delete(&l.doc);
    }
    if (rc)
        eb_model_free(m);
    return rc;
}
