/* Console dialect rows from YAML (espbench-profiles(5), DIALECT FILES): one
 * file holds one row under `dialect:`. A row may take the keys it does not
 * give from a `base` row (in the same load or already in the table), and a
 * row that is not a built-in names the built-in `grammar` whose output it
 * prints and whose console behaviour it shares. Files are parsed, resolved
 * and checked as a whole batch before any row joins the table; every error
 * is "FILE:LINE:COL: message". Pure: the bytes come from the compiled-in
 * files or from adapters/dialect_files.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "yaml_doc.h"
#include "formats/dialect_table.h"

enum field {
    F_NAME, F_BASE, F_GRAMMAR, F_IDF_FROM, F_IDF_TO, F_MBIT, F_PROMPTS, F_CONNECT, F_SCAN, F_ABORT, F_BW,
    F_ECHO, F_TIME_MAX, F_INTERVAL_MAX, F_COUNT
};

static const char *const keys[F_COUNT] = {
    [F_NAME] = "name",         [F_BASE] = "base",       [F_GRAMMAR] = "grammar",     [F_IDF_FROM] = "idf_from",
    [F_IDF_TO] = "idf_to",     [F_MBIT] = "mbit_base",  [F_PROMPTS] = "prompts",     [F_CONNECT] = "connect",
    [F_SCAN] = "scan",         [F_ABORT] = "abort",     [F_BW] = "bandwidth",        [F_ECHO] = "udp_echo_port",
    [F_TIME_MAX] = "time_max", [F_INTERVAL_MAX] = "interval_max",
};

/* What a row must end up with, given or inherited. */
static const enum field required[] = {F_MBIT, F_PROMPTS, F_CONNECT, F_SCAN, F_ABORT};

typedef struct raw_dialect {
    eb_dialect_row r;
    char base[EB_DIALECT_NAME_MAX];
    int grammar;               /* built-in id; EB_DIALECT_UNKNOWN until given or inherited */
    bool set[F_COUNT];         /* given by the file itself */
    bool have[F_COUNT];        /* given or inherited */
    int fline[F_COUNT], fcol[F_COUNT];
    int line, col;             /* the row's mapping */
    int dir;
    int state;                 /* 0 new, 1 resolving, 2 resolved */
} raw_dialect;

typedef struct batch {
    raw_dialect *v;
    int n, cap;
} batch;

typedef struct ctx {
    const char *path;
    yaml_document_t *doc;
    eb_error *err;
} ctx;

static int fail_pos(eb_error *err, const char *path, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int fail_pos(eb_error *err, const char *path, int line, int col, const char *fmt, ...)
{
    char msg[EB_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return eb_fail(err, EB_ECONFIG, "%s:%d:%d: %s", path, line, col, msg);
}

#define LINE(n) ((int)(n)->start_mark.line + 1)
#define COL(n) ((int)(n)->start_mark.column + 1)
#define FAIL_AT(x, n, ...) fail_pos((x)->err, (x)->path, LINE(n), COL(n), __VA_ARGS__)

static const char *scalar(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static bool is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = scalar(n);
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

static const char *kind_name(const yaml_node_t *n)
{
    return n->type == YAML_MAPPING_NODE ? "a mapping" : n->type == YAML_SEQUENCE_NODE ? "a list" : "a value";
}

/* The builtin stock grammars, for messages. */
static void grammar_list(char *out, size_t cap)
{
    out[0] = '\0';
    for (int d = 0; d < EB_DIALECT_COUNT; d++) {
        if (d == EB_DIALECT_ESPBENCH)
            continue;
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", out[0] ? ", " : "", eb_dialect_builtin_name(d));
    }
}

/* ------------------------------------------------------------------ values */

/* A scalar of 1..cap-1 printable ASCII characters; token: also no blanks
 * (a command name the console splits on). */
static int text_value(ctx *x, yaml_node_t *v, const char *key, bool token, char *out, size_t cap)
{
    if (v->type != YAML_SCALAR_NODE || is_null(v))
        return FAIL_AT(x, v, "expected %s for '%s', got %s", token ? "a name" : "a text", key,
                       v->type == YAML_SCALAR_NODE ? "null" : kind_name(v));
    const char *s = scalar(v);
    size_t n = strlen(s);
    if (n == 0 || n >= cap)
        return FAIL_AT(x, v, "'%s' must be 1 to %zu characters, got %zu", key, cap - 1, n);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c > 0x7e || (token && c == ' '))
            return FAIL_AT(x, v, "'%s' = '%s': only printable ASCII%s, as the console types it", key, s,
                           token ? " without blanks" : "");
    }
    memcpy(out, s, n + 1);
    return 0;
}

/* "6.2", "v6.2", "0.0" -> 602; "latest" (idf_to only) -> 99999. */
static int idf_value(ctx *x, yaml_node_t *v, const char *key, int *out)
{
    const char *s = v->type == YAML_SCALAR_NODE ? scalar(v) : "";
    if (!strcmp(key, "idf_to") && !strcmp(s, "latest")) {
        *out = 99999;
        return 0;
    }
    const char *p = s + (*s == 'v');
    unsigned major, minor;
    int used = 0;
    if (v->type != YAML_SCALAR_NODE || sscanf(p, "%3u.%2u%n", &major, &minor, &used) != 2 || p[used] ||
        strspn(p, "0123456789.") != strlen(p))
        return FAIL_AT(x, v, "expected an ESP-IDF release such as 6.2 for '%s'%s, got '%s'", key,
                       strcmp(key, "idf_to") ? "" : " (or latest)", v->type == YAML_SCALAR_NODE ? s : kind_name(v));
    *out = (int)(major * 100 + minor);
    return 0;
}

static int mbit_value(ctx *x, yaml_node_t *v, double *out)
{
    const char *s = v->type == YAML_SCALAR_NODE ? scalar(v) : "";
    char *end;
    double d = strtod(s, &end);
    if (v->type != YAML_SCALAR_NODE || end == s || *end || (d != 1e6 && d != 1048576.0))
        return FAIL_AT(x, v, "'mbit_base' is the bits in the firmware's \"Mbits\": 1000000 or 1048576 (2^20), got '%s'",
                       v->type == YAML_SCALAR_NODE ? s : kind_name(v));
    *out = d;
    return 0;
}

static int prompts_value(ctx *x, yaml_node_t *v, eb_dialect_row *r)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return FAIL_AT(x, v, "expected a list of prompts for 'prompts', such as [\"iperf> \"], got %s",
                       kind_name(v));
    int n = 0;
    memset(r->prompts, 0, sizeof r->prompts);
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, n++) {
        yaml_node_t *p = yaml_document_get_node(x->doc, *it);
        if (!p)
            return FAIL_AT(x, v, "malformed list in 'prompts'");
        if (n == EB_DIALECT_PROMPTS_MAX)
            return FAIL_AT(x, p, "at most %d prompts in a dialect", EB_DIALECT_PROMPTS_MAX);
        int rc = text_value(x, p, "prompts", false, r->prompts[n], sizeof r->prompts[n]);
        if (rc)
            return rc;
    }
    if (n == 0)
        return FAIL_AT(x, v, "'prompts' is empty; give the prompt the firmware prints, such as \"iperf> \"");
    return 0;
}

/* A printf format of one whole-number (%d) or decimal (%g) Mbit/s figure. */
static int bw_value(ctx *x, yaml_node_t *v, eb_dialect_row *r)
{
    if (is_null(v)) {
        r->bw[0] = '\0';
        r->d.bw_integer = true;
        return 0;
    }
    int rc = text_value(x, v, "bandwidth", false, r->bw, sizeof r->bw);
    if (rc)
        return rc;
    const char *pc = strchr(r->bw, '%');
    if (!pc || (pc[1] != 'd' && pc[1] != 'g') || strchr(pc + 1, '%'))
        return FAIL_AT(x, v,
                       "'bandwidth' = '%s': the -b option with one %%d (whole Mbit/s) or %%g (decimal Mbit/s), "
                       "such as \"-b %%d\", or null when the firmware has none",
                       r->bw);
    r->d.bw_integer = pc[1] == 'd';
    return 0;
}

static int port_value(ctx *x, yaml_node_t *v, unsigned short *out)
{
    const char *s = v->type == YAML_SCALAR_NODE ? scalar(v) : "";
    char *end;
    long p = strtol(s, &end, 10);
    if (v->type != YAML_SCALAR_NODE || end == s || *end || p < 0 || p > 65535)
        return FAIL_AT(x, v, "expected a UDP port 0..65535 for 'udp_echo_port' (0: none), got '%s'",
                       v->type == YAML_SCALAR_NODE ? s : kind_name(v));
    *out = (unsigned short)p;
    return 0;
}

/* time_max, interval_max: seconds > 0 the firmware's iperf accepts for -t, -i. */
static int limit_value(ctx *x, yaml_node_t *v, const char *key, double *out)
{
    const char *s = v->type == YAML_SCALAR_NODE ? scalar(v) : "";
    char *end;
    double d = strtod(s, &end);
    if (v->type != YAML_SCALAR_NODE || end == s || *end || !(d > 0) || d > 1e12)
        return FAIL_AT(x, v, "expected seconds > 0 for '%s' (the largest value the firmware's iperf takes), got '%s'",
                       key, v->type == YAML_SCALAR_NODE ? s : kind_name(v));
    *out = d;
    return 0;
}

static int grammar_value(ctx *x, yaml_node_t *v, int *out)
{
    char name[EB_DIALECT_NAME_MAX], list[256];
    int rc = text_value(x, v, "grammar", true, name, sizeof name);
    if (rc)
        return rc;
    int g = eb_dialect_builtin_id(name);
    grammar_list(list, sizeof list);
    if (g == EB_DIALECT_UNKNOWN || g == EB_DIALECT_ESPBENCH)
        return FAIL_AT(x, v, "unknown grammar '%s': the built-in stock dialect whose lines it prints, one of %s",
                       name, list);
    *out = g;
    return 0;
}

/* ------------------------------------------------------------------ one file */

static int row_value(ctx *x, raw_dialect *rd, enum field f, yaml_node_t *v)
{
    eb_dialect_row *r = &rd->r;
    switch (f) {
    case F_NAME: {
        int rc = text_value(x, v, "name", true, r->name, sizeof r->name);
        if (!rc && strspn(r->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") !=
                       strlen(r->name))
            return FAIL_AT(x, v, "dialect name '%s': letters, digits, '.', '-' and '_' only", r->name);
        if (!rc && (!strcmp(r->name, "auto") || !strcmp(r->name, "unknown")))
            return FAIL_AT(x, v, "'%s' is a word of --dialect, not a name for a dialect", r->name);
        return rc;
    }
    case F_BASE: return text_value(x, v, "base", true, rd->base, sizeof rd->base);
    case F_GRAMMAR: return grammar_value(x, v, &rd->grammar);
    case F_IDF_FROM: return idf_value(x, v, "idf_from", &r->d.idf_from);
    case F_IDF_TO: return idf_value(x, v, "idf_to", &r->d.idf_to);
    case F_MBIT: return mbit_value(x, v, &r->d.mbit_base);
    case F_PROMPTS: return prompts_value(x, v, r);
    case F_CONNECT: return text_value(x, v, "connect", true, r->connect, sizeof r->connect);
    case F_SCAN: return text_value(x, v, "scan", true, r->scan, sizeof r->scan);
    case F_ABORT: return text_value(x, v, "abort", false, r->abort_cmd, sizeof r->abort_cmd);
    case F_BW: return bw_value(x, v, r);
    case F_ECHO: return port_value(x, v, &r->d.udp_echo_port);
    case F_TIME_MAX: return limit_value(x, v, "time_max", &r->d.time_max_s);
    case F_INTERVAL_MAX: return limit_value(x, v, "interval_max", &r->d.interval_max_s);
    case F_COUNT: break;
    }
    return 0;
}

static int parse_row(ctx *x, yaml_node_t *map, raw_dialect *rd)
{
    if (map->type != YAML_MAPPING_NODE)
        return FAIL_AT(x, map, "expected a mapping for 'dialect' (name, grammar, prompts, ...), got %s",
                       kind_name(map));
    rd->line = LINE(map);
    rd->col = COL(map);
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = yaml_document_get_node(x->doc, p->key);
        yaml_node_t *vn = yaml_document_get_node(x->doc, p->value);
        if (!kn || !vn)
            return FAIL_AT(x, map, "malformed mapping in 'dialect'");
        if (kn->type != YAML_SCALAR_NODE)
            return FAIL_AT(x, kn, "keys in 'dialect' must be plain names, got %s", kind_name(kn));
        int f = 0;
        while (f < F_COUNT && strcmp(keys[f], scalar(kn)))
            f++;
        if (f == F_COUNT) {
            char list[256] = "";
            for (int k = 0; k < F_COUNT; k++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", keys[k]);
            return FAIL_AT(x, kn, "unknown key '%s' in dialect (allowed: %s)", scalar(kn), list);
        }
        if (rd->set[f])
            return FAIL_AT(x, kn, "duplicate key '%s' in dialect (first at line %d)", keys[f], rd->fline[f]);
        rd->set[f] = rd->have[f] = true;
        rd->fline[f] = LINE(vn);
        rd->fcol[f] = COL(vn);
        int rc = row_value(x, rd, (enum field)f, vn);
        if (rc)
            return rc;
    }
    if (!rd->set[F_NAME])
        return fail_pos(x->err, x->path, rd->line, rd->col, "dialect is missing the required key 'name'");
    return 0;
}

static int parse_document(ctx *x, raw_dialect *rd)
{
    yaml_node_t *root = yaml_document_get_root_node(x->doc);
    if (!root)
        return fail_pos(x->err, x->path, 1, 1, "empty file; a dialect file holds 'dialect:' and the row's keys");
    if (root->type != YAML_MAPPING_NODE)
        return FAIL_AT(x, root, "expected a mapping with 'dialect:', got %s", kind_name(root));
    yaml_node_t *row = NULL;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = yaml_document_get_node(x->doc, p->key);
        yaml_node_t *vn = yaml_document_get_node(x->doc, p->value);
        if (!kn || !vn)
            return FAIL_AT(x, root, "malformed mapping");
        if (kn->type != YAML_SCALAR_NODE || strcmp(scalar(kn), "dialect"))
            return FAIL_AT(x, kn, "unknown key '%s' at the top of a dialect file (allowed: dialect)",
                           kn->type == YAML_SCALAR_NODE ? scalar(kn) : "?");
        if (row)
            return FAIL_AT(x, kn, "duplicate key 'dialect' (one dialect per file)");
        row = vn;
    }
    if (!row)
        return FAIL_AT(x, root, "no 'dialect:' in a dialect file");
    return parse_row(x, row, rd);
}

static int parse_text(const char *path, const char *text, size_t len, raw_dialect *rd, eb_error *err)
{
    memset(rd, 0, sizeof *rd);
    rd->grammar = EB_DIALECT_UNKNOWN;
    rd->r.d.mbit_base = 1e6;
    snprintf(rd->r.file, sizeof rd->r.file, "%s", path);
    yaml_document_t doc;
    int rc = eb_yaml_load(&doc, text, len, path, err);
    if (rc)
        return rc;
    ctx x = {.path = path, .doc = &doc, .err = err};
    rc = parse_document(&x, rd);
    yaml_document_delete(&doc);
    return rc;
}

/* ------------------------------------------------------------------ resolving */

static raw_dialect *batch_add(batch *b, eb_error *err)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 16;
        raw_dialect *v = realloc(b->v, (size_t)cap * sizeof *v);
        if (!v)
            return eb_fail(err, EB_EIO, "out of memory loading dialects"), NULL;
        b->v = v;
        b->cap = cap;
    }
    return &b->v[b->n++];
}

static int batch_find(const batch *b, const char *name, int skip)
{
    for (int i = 0; i < b->n; i++)
        if (i != skip && !strcmp(b->v[i].r.name, name))
            return i;
    return -1;
}

/* The keys rd does not give, from a complete row. */
static void inherit(raw_dialect *rd, const eb_dialect_desc *base)
{
    eb_dialect_row *r = &rd->r;
    if (!rd->have[F_MBIT])
        r->d.mbit_base = base->mbit_base;
    if (!rd->have[F_PROMPTS]) {
        memset(r->prompts, 0, sizeof r->prompts);
        for (int i = 0; i < EB_DIALECT_PROMPTS_MAX && base->prompts[i]; i++)
            snprintf(r->prompts[i], sizeof r->prompts[i], "%s", base->prompts[i]);
    }
    if (!rd->have[F_CONNECT])
        snprintf(r->connect, sizeof r->connect, "%s", base->connect_cmd);
    if (!rd->have[F_SCAN])
        snprintf(r->scan, sizeof r->scan, "%s", base->scan_cmd);
    if (!rd->have[F_ABORT])
        snprintf(r->abort_cmd, sizeof r->abort_cmd, "%s", base->abort_cmd);
    if (!rd->have[F_BW]) {
        snprintf(r->bw, sizeof r->bw, "%s", base->bw_fmt ? base->bw_fmt : "");
        r->d.bw_integer = base->bw_integer;
    }
    if (!rd->have[F_ECHO])
        r->d.udp_echo_port = base->udp_echo_port;
    if (!rd->have[F_TIME_MAX])
        r->d.time_max_s = base->time_max_s;
    if (!rd->have[F_INTERVAL_MAX])
        r->d.interval_max_s = base->interval_max_s;
    if (rd->grammar == EB_DIALECT_UNKNOWN)
        rd->grammar = base->grammar;
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        rd->have[required[i]] = true;
    rd->have[F_BW] = rd->have[F_ECHO] = rd->have[F_TIME_MAX] = rd->have[F_INTERVAL_MAX] = true;
}

static int check_row(raw_dialect *rd, eb_error *err)
{
    eb_dialect_row *r = &rd->r;
    const char *path = r->file;
    int builtin = eb_dialect_builtin_id(r->name);
    char list[256];
    grammar_list(list, sizeof list);
    if (builtin != EB_DIALECT_UNKNOWN) {
        if (rd->set[F_GRAMMAR] && rd->grammar != builtin)
            return fail_pos(err, path, rd->fline[F_GRAMMAR], rd->fcol[F_GRAMMAR],
                            "dialect '%s' is a built-in grammar itself; drop 'grammar'", r->name);
        rd->grammar = builtin;
    } else if (rd->grammar == EB_DIALECT_UNKNOWN) {
        return fail_pos(err, path, rd->line, rd->col,
                        "dialect '%s' needs 'grammar' (or a base that has one): the built-in stock dialect whose "
                        "lines it prints, one of %s",
                        r->name, list);
    } else if (rd->grammar == EB_DIALECT_ESPBENCH) {
        return fail_pos(err, path, rd->fline[F_BASE], rd->fcol[F_BASE],
                        "dialect '%s': base '%s' is the espbench firmware's own protocol, not a stock grammar; "
                        "use one of %s",
                        r->name, rd->base, list);
    }
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!rd->have[required[i]])
            return fail_pos(err, path, rd->line, rd->col, "dialect '%s' is missing the required key '%s'", r->name,
                            keys[required[i]]);
    if (rd->set[F_IDF_FROM] != rd->set[F_IDF_TO]) {
        enum field f = rd->set[F_IDF_FROM] ? F_IDF_FROM : F_IDF_TO;
        return fail_pos(err, path, rd->fline[f], rd->fcol[f],
                        "'%s' without '%s': give both (the releases whose example speaks it) or neither",
                        keys[f], keys[f == F_IDF_FROM ? F_IDF_TO : F_IDF_FROM]);
    }
    if (rd->set[F_IDF_TO] && r->d.idf_from > r->d.idf_to)
        return fail_pos(err, path, rd->fline[F_IDF_TO], rd->fcol[F_IDF_TO],
                        "idf_to %d.%d is before idf_from %d.%d", r->d.idf_to / 100, r->d.idf_to % 100,
                        r->d.idf_from / 100, r->d.idf_from % 100);
    r->d.grammar = rd->grammar;
    eb_dialect_row_link(r);
    return 0;
}

static int resolve(batch *b, int i, eb_error *err)
{
    raw_dialect *rd = &b->v[i];
    if (rd->state == 2)
        return 0;
    if (rd->state == 1)
        return fail_pos(err, rd->r.file, rd->fline[F_BASE], rd->fcol[F_BASE],
                        "inheritance cycle: dialect '%s' is its own base through '%s'", rd->r.name, rd->base);
    rd->state = 1;
    if (rd->set[F_BASE]) {
        int j = batch_find(b, rd->base, i);
        const eb_dialect_desc *base = NULL;
        if (j >= 0) {
            int rc = resolve(b, j, err);
            if (rc)
                return rc;
            rd = &b->v[i];
            base = &b->v[j].r.d;
        } else {
            /* the table's row; its own name: the row it replaces */
            base = eb_dialect_table_find(rd->base);
        }
        if (!base)
            return fail_pos(err, rd->r.file, rd->fline[F_BASE], rd->fcol[F_BASE],
                            "dialect '%s' has unknown base '%s' (a dialect loaded before or with it, such as "
                            "iperf-cmd-1.0)",
                            rd->r.name, rd->base);
        inherit(rd, base);
    }
    int rc = check_row(rd, err);
    rd->state = 2;
    return rc;
}

/* Resolves every row, then adds them all to the table. */
static int batch_commit(batch *b, bool commit, eb_error *err)
{
    for (int i = 0; i < b->n; i++) {
        int rc = resolve(b, i, err);
        if (rc)
            return rc;
    }
    if (!commit || !b->n)
        return 0;
    eb_dialect_row *rows = calloc((size_t)b->n, sizeof *rows);
    if (!rows)
        return eb_fail(err, EB_EIO, "out of memory loading dialects");
    for (int i = 0; i < b->n; i++)
        rows[i] = b->v[i].r;
    int rc = eb_dialect_table_commit(rows, b->n, err);
    free(rows);
    return rc;
}

/* Adds a parsed file: a name given twice in one directory is an error; a
 * later directory's row replaces an earlier one's. */
static int batch_take(batch *b, eb_error *err)
{
    raw_dialect *rd = &b->v[b->n - 1];
    int j = batch_find(b, rd->r.name, b->n - 1);
    if (j < 0)
        return 0;
    if (b->v[j].dir == rd->dir)
        return fail_pos(err, rd->r.file, rd->fline[F_NAME], rd->fcol[F_NAME], "duplicate dialect '%s' (also in %s)",
                        rd->r.name, b->v[j].r.file);
    b->v[j] = *rd;
    b->n--;
    return 0;
}

/* ------------------------------------------------------------------ sources */

int eb_dialect_load_builtin(eb_error *err)
{
    batch b = {0};
    int rc = 0;
    for (int i = 0; !rc && eb_dialect_builtin_names[i]; i++) {
        raw_dialect *rd = batch_add(&b, err);
        if (!rd)
            rc = EB_EIO;
        else if (!(rc = parse_text(eb_dialect_builtin_names[i], eb_dialect_builtin_texts[i],
                                   strlen(eb_dialect_builtin_texts[i]), rd, err)))
            rc = batch_take(&b, err);
    }
    /* Every id the code knows must have its row. */
    for (int d = 0; !rc && d < EB_DIALECT_COUNT; d++)
        if (batch_find(&b, eb_dialect_builtin_name(d), -1) < 0)
            rc = eb_fail(err, EB_ECONFIG, "dialects/: no file for the built-in dialect '%s'",
                         eb_dialect_builtin_name(d));
    if (!rc)
        rc = batch_commit(&b, true, err);
    free(b.v);
    return rc;
}

int eb_dialects_load_buffers(const eb_dialect_text *files, int n, eb_error *err)
{
    int rc = eb_dialects_builtin_status(err);
    batch b = {0};
    for (int i = 0; !rc && i < n; i++) {
        raw_dialect *rd = batch_add(&b, err);
        if (!rd) {
            rc = EB_EIO;
            break;
        }
        rc = parse_text(files[i].name, files[i].text ? files[i].text : "", files[i].len, rd, err);
        rd->dir = files[i].dir;
        rc = rc ? rc : batch_take(&b, err);
    }
    if (!rc)
        rc = batch_commit(&b, true, err);
    free(b.v);
    return rc;
}

int eb_dialect_check_buffer(const char *text, size_t len, const char *name, eb_error *err)
{
    (void)eb_dialect_count(); /* the built-ins, which a base may name */
    batch b = {0};
    raw_dialect *rd = batch_add(&b, err);
    int rc = rd ? parse_text(name, text ? text : "", len, rd, err) : EB_EIO;
    if (!rc)
        rc = batch_commit(&b, false, err);
    free(b.v);
    return rc;
}
