/* Pattern files (pattern.h, espbench-patterns(5)): YAML into compiled PCRE2
 * rules. Every error is one line "FILE:LINE:COL: what; what to do"; a regex
 * PCRE2 refuses is placed at its offending character inside the YAML file
 * (the scalar's position, walked through its quoting, plus PCRE2's offset). */
#include "espbench/formats/pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "espbench/base/buf.h"
#include "yaml_doc.h"

static const char *const field_names[EB_PF_COUNT] = {
    "start", "end", "duration", "bytes", "bytes_unit", "rate", "rate_unit",
    "lost", "total", "jitter", "direction", "message",
};

#define FIELD_LIST "start, end, duration, bytes, bytes_unit, rate, rate_unit, lost, total, jitter, direction, message"

static int field_from_name(const char *s)
{
    for (int f = 0; f < EB_PF_COUNT; f++)
        if (!strcmp(s, field_names[f]))
            return f;
    return -1;
}

typedef struct ctx {
    const char *name;
    const char *text;
    size_t len;
    yaml_document_t *doc;
    eb_error *err;
    eb_pattern *p;
} ctx;

/* ------------------------------------------------------- positions */

/* Byte offset of a libyaml mark (line, and column in characters). */
static size_t mark_offset(const ctx *x, const yaml_mark_t *m)
{
    size_t i = 0, line = 0;
    while (i < x->len && line < m->line)
        line += x->text[i++] == '\n';
    for (size_t c = 0; c < m->column && i < x->len && x->text[i] != '\n'; c++) {
        i++;
        while (i < x->len && ((unsigned char)x->text[i] & 0xC0) == 0x80)
            i++;
    }
    return i;
}

/* 1-based line and column (in characters) of a byte offset. */
static void offset_pos(const ctx *x, size_t off, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < off && i < x->len; i++) {
        if (x->text[i] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)x->text[i] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static size_t skip_blanks(const ctx *x, size_t i, size_t end, size_t max)
{
    for (size_t k = 0; k < max && i < end && (x->text[i] == ' ' || x->text[i] == '\t'); k++)
        i++;
    return i;
}

/* The source byte of the scalar value's byte voff: the value's bytes are
 * the source's except for quotes, escapes ('' and \x) and the indentation
 * and line breaks of multi-line and block scalars. */
static size_t value_to_source(const ctx *x, const yaml_node_t *n, size_t voff)
{
    size_t i = mark_offset(x, &n->start_mark), end = mark_offset(x, &n->end_mark);
    yaml_scalar_style_t style = n->data.scalar.style;
    size_t indent = 0;
    bool block = style == YAML_LITERAL_SCALAR_STYLE || style == YAML_FOLDED_SCALAR_STYLE;
    if (style == YAML_SINGLE_QUOTED_SCALAR_STYLE || style == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
        i++;
    } else if (block) {
        while (i < end && x->text[i] != '\n')
            i++;
        i += i < end;
        size_t j = i;
        while (j < end && x->text[j] == ' ')
            j++;
        indent = j - i;
        i = j;
    }
    for (size_t k = 0; k < voff && i < end; k++) {
        char ch = x->text[i];
        if (ch == '\n') {
            i = block ? skip_blanks(x, i + 1, end, indent) : skip_blanks(x, i + 1, end, SIZE_MAX);
        } else if (style == YAML_SINGLE_QUOTED_SCALAR_STYLE && ch == '\'' && i + 1 < end && x->text[i + 1] == '\'') {
            i += 2;
        } else if (style == YAML_DOUBLE_QUOTED_SCALAR_STYLE && ch == '\\' && i + 1 < end) {
            char e = x->text[i + 1];
            i += e == 'x' ? 4 : e == 'u' ? 6 : e == 'U' ? 10 : 2;
        } else {
            i++;
        }
    }
    return i < end ? i : end;
}

__attribute__((format(printf, 4, 5))) static int fail_off(ctx *x, size_t off, const char *label, const char *fmt,
                                                          ...)
{
    char msg[EB_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line, col;
    offset_pos(x, off, &line, &col);
    return eb_fail(x->err, EB_ECONFIG, "%s:%d:%d: %s%s%s", x->name, line, col, label ? label : "",
                   label ? ": " : "", msg);
}

#define fail_at(x, node, label, ...) fail_off((x), mark_offset((x), &(node)->start_mark), (label), __VA_ARGS__)

/* ------------------------------------------------------- YAML helpers */

static const char *scalar(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static const char *kind_name(const yaml_node_t *n)
{
    return n->type == YAML_MAPPING_NODE ? "a mapping" : n->type == YAML_SEQUENCE_NODE ? "a list" : "a scalar";
}

static int want_scalar(ctx *x, const yaml_node_t *n, const char *label)
{
    if (n->type == YAML_SCALAR_NODE)
        return 0;
    return fail_at(x, n, label, "expected a single value, got %s", kind_name(n));
}

static int want_mapping(ctx *x, const yaml_node_t *n, const char *label)
{
    if (n->type == YAML_MAPPING_NODE)
        return 0;
    return fail_at(x, n, label, "expected a mapping (key: value lines), got %s", kind_name(n));
}

static int copy_scalar(ctx *x, const yaml_node_t *n, const char *label, char *dst, size_t cap)
{
    if (want_scalar(x, n, label))
        return EB_ECONFIG;
    if (n->data.scalar.length >= cap)
        return fail_at(x, n, label, "longer than %zu characters", cap - 1);
    memcpy(dst, scalar(n), n->data.scalar.length + 1);
    return 0;
}

/* Checks a mapping's keys against the allowed list (NULL-terminated):
 * unknown and duplicate keys are errors. */
static int check_keys(ctx *x, const yaml_node_t *map, const char *label, const char *const *allowed)
{
    char list[400] = "";
    for (int a = 0; allowed[a]; a++) {
        strncat(list, a ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, allowed[a], sizeof list - strlen(list) - 1);
    }
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(x->doc, pr->key);
        if (want_scalar(x, k, label))
            return EB_ECONFIG;
        int a = 0;
        while (allowed[a] && strcmp(allowed[a], scalar(k)))
            a++;
        if (!allowed[a])
            return fail_at(x, k, label, "unknown key '%s' (allowed: %s)", scalar(k), list);
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < pr; q++) {
            yaml_node_t *k2 = yaml_document_get_node(x->doc, q->key);
            if (!strcmp(scalar(k2), scalar(k)))
                return fail_at(x, k, label, "duplicate key '%s' (first at line %d)", scalar(k),
                               (int)k2->start_mark.line + 1);
        }
    }
    return 0;
}

static yaml_node_t *map_get(ctx *x, const yaml_node_t *map, const char *key, yaml_node_t **key_node)
{
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(x->doc, pr->key);
        if (k->type == YAML_SCALAR_NODE && !strcmp(scalar(k), key)) {
            if (key_node)
                *key_node = k;
            return yaml_document_get_node(x->doc, pr->value);
        }
    }
    return NULL;
}

/* ------------------------------------------------------- regexes */

/* Compiles a regex scalar; a PCRE2 error is placed at its character. */
static int compile(ctx *x, const yaml_node_t *n, const char *label, pcre2_code **out)
{
    if (want_scalar(x, n, label))
        return EB_ECONFIG;
    if (n->data.scalar.length == 0)
        return fail_at(x, n, label, "empty regex; write the regular expression of the line");
    int code;
    PCRE2_SIZE off;
    *out = pcre2_compile((PCRE2_SPTR)scalar(n), n->data.scalar.length, 0, &code, &off, NULL);
    if (*out)
        return 0;
    PCRE2_UCHAR msg[256];
    if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
        snprintf((char *)msg, sizeof msg, "error %d", code);
    return fail_off(x, value_to_source(x, n, off), label,
                    "invalid regex (PCRE2: %s at offset %zu); fix the regular expression (PCRE2 syntax, see "
                    "espbench-patterns(5))",
                    (const char *)msg, (size_t)off);
}

/* Where a named group is written in the regex ("(?<name>", "(?P<name>",
 * "(?'name'"), as a value offset; 0 if not found. */
static size_t group_offset(const yaml_node_t *n, const char *name)
{
    static const char *const forms[] = {"(?<%s>", "(?P<%s>", "(?'%s'"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char pat[80];
        snprintf(pat, sizeof pat, forms[i], name);
        const char *hit = strstr(scalar(n), pat);
        if (hit)
            return (size_t)(hit - scalar(n));
    }
    return 0;
}

/* The rule's `groups:` mapping (field: group name). */
static int map_groups(ctx *x, eb_pattern_rule *r, pcre2_code *code, const yaml_node_t *groups, const char *label,
                      bool mapped[EB_PF_COUNT])
{
    char where[80];
    snprintf(where, sizeof where, "%s groups", label);
    if (want_mapping(x, groups, where))
        return EB_ECONFIG;
    const char *allowed[EB_PF_COUNT + 1];
    for (int f = 0; f < EB_PF_COUNT; f++)
        allowed[f] = field_names[f];
    allowed[EB_PF_COUNT] = NULL;
    if (check_keys(x, groups, where, allowed))
        return EB_ECONFIG;
    for (yaml_node_pair_t *pr = groups->data.mapping.pairs.start; pr < groups->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(x->doc, pr->key);
        yaml_node_t *v = yaml_document_get_node(x->doc, pr->value);
        if (want_scalar(x, v, where))
            return EB_ECONFIG;
        int f = field_from_name(scalar(k));
        int num = pcre2_substring_number_from_name(code, (PCRE2_SPTR)scalar(v));
        if (num < 0)
            return fail_at(x, v, where,
                           "%s: the regex has no group named '%s'; add (?<%s>...) to the regex or name one it has",
                           scalar(k), scalar(v), scalar(v));
        r->group[f] = num;
        mapped[f] = true;
    }
    return 0;
}

/* Named groups not mapped under groups: take the field of their name; any
 * other named group is a typo until shown otherwise. */
static int default_groups(ctx *x, eb_pattern_rule *r, pcre2_code *code, const yaml_node_t *regex, const char *label,
                          const bool mapped[EB_PF_COUNT])
{
    uint32_t count = 0, size = 0;
    PCRE2_SPTR table = NULL;
    pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &count);
    pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &size);
    pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
    for (uint32_t i = 0; i < count; i++) {
        PCRE2_SPTR e = table + i * size;
        int num = (e[0] << 8) | e[1];
        const char *gname = (const char *)e + 2;
        bool used = false;
        for (int f = 0; f < EB_PF_COUNT; f++)
            used |= mapped[f] && r->group[f] == num;
        int f = field_from_name(gname);
        if (f >= 0 && !mapped[f]) {
            r->group[f] = num;
            used = true;
        }
        if (!used)
            return fail_off(x, value_to_source(x, regex, group_offset(regex, gname)), label,
                            "regex group '%s' carries nothing: name it one of " FIELD_LIST
                            ", or map it under groups:",
                            gname);
    }
    return 0;
}

static int rule_units(ctx *x, eb_pattern_rule *r, const yaml_node_t *units, const char *label)
{
    static const char *const allowed[] = {"bytes", "rate", "time", NULL};
    char where[80];
    snprintf(where, sizeof where, "%s units", label);
    if (want_mapping(x, units, where) || check_keys(x, units, where, allowed))
        return EB_ECONFIG;
    for (yaml_node_pair_t *pr = units->data.mapping.pairs.start; pr < units->data.mapping.pairs.top; pr++) {
        const char *k = scalar(yaml_document_get_node(x->doc, pr->key));
        yaml_node_t *v = yaml_document_get_node(x->doc, pr->value);
        if (want_scalar(x, v, where))
            return EB_ECONFIG;
        const char *s = scalar(v);
        size_t n = v->data.scalar.length;
        if (!strcmp(k, "bytes") && (r->bytes_scale = eb_pattern_bytes_unit(s, n, x->p->unit_base)) <= 0)
            return fail_at(x, v, where, "bytes: '%s' is not a unit of bytes (B, KB, MB, GB, KiB, MBytes ...)", s);
        if (!strcmp(k, "rate") && (r->rate_scale = eb_pattern_rate_unit(s, n, x->p->unit_base)) <= 0)
            return fail_at(x, v, where, "rate: '%s' is not a unit of rate (bps, Kbps, Mbps, Gbits/sec, MB/s ...)", s);
        if (!strcmp(k, "time")) {
            if (!strcmp(s, "s"))
                r->time_scale = 1;
            else if (!strcmp(s, "ms"))
                r->time_scale = 1e-3;
            else
                return fail_at(x, v, where, "time: '%s' is not s or ms", s);
        }
    }
    return 0;
}

/* What each kind of rule needs. */
static int rule_complete(ctx *x, const eb_pattern_rule *r, const yaml_node_t *at, const char *label)
{
    static const char hint[] = "name a group (?<%s>...) in the regex or map one under groups:";
    char msg[200];
    if (r->kind == EB_PAT_INTERVAL) {
        static const int need[] = {EB_PF_START, EB_PF_END};
        for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
            if (!r->group[need[i]]) {
                snprintf(msg, sizeof msg, hint, field_names[need[i]]);
                return fail_at(x, at, label, "no group for '%s'; %s", field_names[need[i]], msg);
            }
        if (!r->group[EB_PF_RATE] && !r->group[EB_PF_BYTES])
            return fail_at(x, at, label, "no group for 'rate' or 'bytes'; name a group (?<rate>...) or (?<bytes>...) "
                                         "in the regex or map one under groups:");
    }
    if (r->group[EB_PF_RATE] && !r->group[EB_PF_RATE_UNIT] && r->rate_scale <= 0)
        return fail_at(x, at, label, "the rate has no unit; add a group (?<rate_unit>...) or units: {rate: Mbps}");
    if (r->group[EB_PF_BYTES] && !r->group[EB_PF_BYTES_UNIT] && r->bytes_scale <= 0)
        return fail_at(x, at, label, "the bytes have no unit; add a group (?<bytes_unit>...) or units: {bytes: B}");
    return 0;
}

static int load_rule(ctx *x, const yaml_node_t *n, int kind, const char *label)
{
    eb_pattern *p = x->p;
    if (p->n_rules >= EB_PAT_MAX_RULES)
        return fail_at(x, n, label, "more than %d rules in one file", EB_PAT_MAX_RULES);
    const yaml_node_t *regex = n, *groups = NULL, *units = NULL;
    if (n->type == YAML_MAPPING_NODE) {
        static const char *const allowed[] = {"regex", "groups", "units", NULL};
        if (check_keys(x, n, label, allowed))
            return EB_ECONFIG;
        regex = map_get(x, n, "regex", NULL);
        groups = map_get(x, n, "groups", NULL);
        units = map_get(x, n, "units", NULL);
        if (!regex)
            return fail_at(x, n, label, "no regex: key; write the regular expression of the line");
    } else if (n->type != YAML_SCALAR_NODE) {
        return fail_at(x, n, label, "expected a regex or a mapping with regex:, groups:, units:, got %s", kind_name(n));
    }
    eb_pattern_rule *r = &p->rules[p->n_rules];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->time_scale = 1;
    r->line = (int)regex->start_mark.line + 1;
    r->col = (int)regex->start_mark.column + 1;
    pcre2_code *code = NULL;
    char rlabel[80];
    snprintf(rlabel, sizeof rlabel, "%s regex", label);
    if (compile(x, regex, rlabel, &code))
        return EB_ECONFIG;
    r->code = code;
    p->n_rules++; /* owned by p from here on: freed with it on any error */
    bool mapped[EB_PF_COUNT] = {false};
    if (groups && map_groups(x, r, code, groups, label, mapped))
        return EB_ECONFIG;
    if (default_groups(x, r, code, regex, rlabel, mapped))
        return EB_ECONFIG;
    if (units && rule_units(x, r, units, label))
        return EB_ECONFIG;
    uint32_t captures = 0;
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &captures);
    if ((int)captures > p->max_groups)
        p->max_groups = (int)captures;
    return rule_complete(x, r, n, label);
}

/* A rule, or a list of rules, of one kind. */
static int load_rules(ctx *x, const yaml_node_t *n, int kind, const char *key)
{
    if (n->type != YAML_SEQUENCE_NODE)
        return load_rule(x, n, kind, key);
    int i = 0;
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        char label[48];
        snprintf(label, sizeof label, "%s[%d]", key, ++i);
        if (load_rule(x, yaml_document_get_node(x->doc, *it), kind, label))
            return EB_ECONFIG;
    }
    if (i == 0)
        return fail_at(x, n, key, "an empty list; give at least one rule or leave the key out");
    return 0;
}

/* ------------------------------------------------------- commands */

static int check_placeholders(ctx *x, const yaml_node_t *n, const char *label)
{
    static const char *const known[] = {"{peer}", "{port}", "{time}", "{interval}", "{rate}", "{ssid}", "{password}"};
    const char *s = scalar(n);
    for (const char *b = strchr(s, '{'); b; b = strchr(b + 1, '{')) {
        const char *e = strchr(b, '}');
        bool ok = false;
        for (size_t i = 0; e && i < sizeof known / sizeof known[0]; i++)
            ok |= (size_t)(e - b + 1) == strlen(known[i]) && !strncmp(b, known[i], strlen(known[i]));
        if (!ok)
            return fail_off(x, value_to_source(x, n, (size_t)(b - s)), label,
                            "unknown placeholder '%.*s'; one of {peer} {port} {time} {interval} {rate} {ssid} "
                            "{password}",
                            e ? (int)(e - b + 1) : 1, b);
    }
    return 0;
}

static int command_list(ctx *x, const yaml_node_t *n, const char *key, char **out)
{
    int count = 0;
    const yaml_node_t *one = n;
    yaml_node_item_t *it = n->type == YAML_SEQUENCE_NODE ? n->data.sequence.items.start : NULL;
    for (;;) {
        if (it) {
            if (it >= n->data.sequence.items.top)
                break;
            one = yaml_document_get_node(x->doc, *it++);
        }
        char label[48];
        snprintf(label, sizeof label, "commands %s", key);
        if (want_scalar(x, one, label) || check_placeholders(x, one, label))
            return EB_ECONFIG;
        if (count >= EB_PAT_MAX_COMMANDS - 1)
            return fail_at(x, one, label, "more than %d commands", EB_PAT_MAX_COMMANDS - 1);
        out[count] = strdup(scalar(one));
        if (!out[count++])
            abort();
        if (!it)
            break;
    }
    return 0;
}

static int load_commands(ctx *x, const yaml_node_t *n)
{
    static const char *const allowed[] = {"prompt", "connect", "connected", "sender", "receiver", "started", "abort",
                                          NULL};
    eb_pattern_commands *c = &x->p->cmd;
    if (want_mapping(x, n, "commands") || check_keys(x, n, "commands", allowed))
        return EB_ECONFIG;
    x->p->has_commands = true;
    for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
        const char *k = scalar(yaml_document_get_node(x->doc, pr->key));
        yaml_node_t *v = yaml_document_get_node(x->doc, pr->value);
        int rc = 0;
        if (!strcmp(k, "prompt"))
            rc = copy_scalar(x, v, "commands prompt", c->prompt, sizeof c->prompt);
        else if (!strcmp(k, "connect") || !strcmp(k, "sender") || !strcmp(k, "receiver"))
            rc = command_list(x, v, k, !strcmp(k, "connect") ? c->connect : !strcmp(k, "sender") ? c->sender
                                                                                               : c->receiver);
        else if (!strcmp(k, "abort")) {
            rc = want_scalar(x, v, "commands abort") || check_placeholders(x, v, "commands abort") ? EB_ECONFIG : 0;
            if (!rc && !(c->abort_cmd = strdup(scalar(v))))
                abort();
        }
        else if (!strcmp(k, "started"))
            rc = compile(x, v, "commands started regex", (pcre2_code **)&c->started);
        else if (!strcmp(k, "connected")) {
            rc = compile(x, v, "commands connected regex", (pcre2_code **)&c->connected);
            if (!rc && (c->connected_ip = pcre2_substring_number_from_name(c->connected, (PCRE2_SPTR) "ip")) < 0)
                rc = fail_at(x, v, "commands connected regex", "no group named 'ip'; add (?<ip>...) around the "
                                                               "board's address");
        }
        if (rc)
            return rc;
    }
    if (!c->sender[0] || !c->receiver[0])
        return fail_at(x, n, "commands", "needs both sender: and receiver: (the commands that start a test where the "
                                         "board sends, and where it receives)");
    return 0;
}

/* ------------------------------------------------------- the document */

static int load_directions(ctx *x, const yaml_node_t *n)
{
    if (want_mapping(x, n, "directions"))
        return EB_ECONFIG;
    eb_pattern *p = x->p;
    for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(x->doc, pr->key);
        yaml_node_t *v = yaml_document_get_node(x->doc, pr->value);
        if (p->n_directions >= EB_PAT_MAX_DIRECTIONS)
            return fail_at(x, k, "directions", "more than %d values", EB_PAT_MAX_DIRECTIONS);
        if (copy_scalar(x, k, "directions", p->directions[p->n_directions].value,
                        sizeof p->directions[0].value) ||
            want_scalar(x, v, "directions"))
            return EB_ECONFIG;
        if (strcmp(scalar(v), "sender") && strcmp(scalar(v), "receiver"))
            return fail_at(x, v, "directions", "%s: '%s' is not sender or receiver", scalar(k), scalar(v));
        p->directions[p->n_directions++].receiver = !strcmp(scalar(v), "receiver");
    }
    return 0;
}

static int load_detect(ctx *x, const yaml_node_t *n)
{
    static const char *const allowed[] = {"min_intervals", NULL};
    if (want_mapping(x, n, "detect") || check_keys(x, n, "detect", allowed))
        return EB_ECONFIG;
    yaml_node_t *v = map_get(x, n, "min_intervals", NULL);
    if (v) {
        char *end;
        long m = want_scalar(x, v, "detect min_intervals") ? -1 : strtol(scalar(v), &end, 10);
        if (m < 1 || m > 1000 || *end)
            return fail_at(x, v, "detect min_intervals", "expected a whole number 1..1000");
        x->p->min_intervals = (int)m;
    }
    return 0;
}

/* The keys that rules depend on (unit base) and the plain values. */
static int load_values(ctx *x, const char *k, const yaml_node_t *v)
{
    eb_pattern *p = x->p;
    if (!strcmp(k, "name")) {
        if (copy_scalar(x, v, "name", p->name, sizeof p->name))
            return EB_ECONFIG;
        if (!p->name[0] || strspn(p->name, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != strlen(p->name))
            return fail_at(x, v, "name", "'%s': use lower-case letters, digits, '-', '_' and '.'", p->name);
        return 0;
    }
    if (!strcmp(k, "description"))
        return copy_scalar(x, v, "description", p->description, sizeof p->description);
    if (!strcmp(k, "protocol")) {
        if (want_scalar(x, v, "protocol"))
            return EB_ECONFIG;
        if (strcmp(scalar(v), "udp") && strcmp(scalar(v), "tcp"))
            return fail_at(x, v, "protocol", "'%s' is not udp or tcp", scalar(v));
        p->udp = !strcmp(scalar(v), "udp");
        return 0;
    }
    if (!strcmp(k, "side")) {
        if (want_scalar(x, v, "side"))
            return EB_ECONFIG;
        if (strcmp(scalar(v), "sender") && strcmp(scalar(v), "receiver"))
            return fail_at(x, v, "side", "'%s' is not sender or receiver (which end of the test printed the log)",
                           scalar(v));
        p->receiver = !strcmp(scalar(v), "receiver");
        return 0;
    }
    if (!strcmp(k, "unit_base")) {
        if (want_scalar(x, v, "unit_base"))
            return EB_ECONFIG;
        if (strcmp(scalar(v), "1000") && strcmp(scalar(v), "1024"))
            return fail_at(x, v, "unit_base", "'%s' is not 1000 or 1024 (what K, M and G stand for)", scalar(v));
        p->unit_base = atof(scalar(v));
        return 0;
    }
    if (!strcmp(k, "directions"))
        return load_directions(x, v);
    if (!strcmp(k, "detect"))
        return load_detect(x, v);
    return 0;
}

static int load_rule_keys(ctx *x, const char *k, const yaml_node_t *v)
{
    if (!strcmp(k, "start"))
        return load_rules(x, v, EB_PAT_START, k);
    if (!strcmp(k, "interval"))
        return load_rule(x, v, EB_PAT_INTERVAL, k);
    if (!strcmp(k, "summary"))
        return load_rules(x, v, EB_PAT_SUMMARY, k);
    if (!strcmp(k, "errors"))
        return load_rules(x, v, EB_PAT_ERROR, k);
    if (!strcmp(k, "commands"))
        return load_commands(x, v);
    return 0;
}

/* Checks across rules: required keys, a summary that carries a figure, and
 * direction groups with a directions: map. */
static int load_checks(ctx *x, const yaml_node_t *root)
{
    static const char *const required[] = {"name", "protocol", "side", "interval"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!map_get(x, root, required[i], NULL))
            return fail_at(x, root, NULL, "the pattern file has no '%s:' key; see espbench-patterns(5)", required[i]);
    eb_pattern *p = x->p;
    bool summary = false, figure = false;
    for (int i = 0; i < p->n_rules; i++) {
        const eb_pattern_rule *r = &p->rules[i];
        if (r->kind == EB_PAT_SUMMARY) {
            summary = true;
            figure |= r->group[EB_PF_RATE] || r->group[EB_PF_BYTES];
        }
        if (r->group[EB_PF_DIRECTION] && p->n_directions == 0)
            return eb_fail(x->err, EB_ECONFIG,
                           "%s:%d:%d: the regex has a 'direction' group but the file no directions: map; add "
                           "directions: {VALUE: sender, VALUE: receiver}",
                           x->name, r->line, r->col);
    }
    yaml_node_t *s = map_get(x, root, "summary", NULL);
    if (summary && !figure)
        return fail_at(x, s, "summary", "no rule has a 'rate' or 'bytes' group; one line of the summary must carry "
                                        "the figure");
    return 0;
}

static int load_document(ctx *x, const yaml_node_t *root)
{
    static const char *const allowed[] = {"name",     "description", "protocol", "side",       "unit_base", "start",
                                          "interval", "summary",     "errors",   "directions", "detect",    "commands",
                                          NULL};
    if (!root)
        return eb_fail(x->err, EB_ECONFIG, "%s:1:1: empty pattern file; see espbench-patterns(5)", x->name);
    if (want_mapping(x, root, NULL) || check_keys(x, root, NULL, allowed))
        return EB_ECONFIG;
    for (int pass = 0; pass < 2; pass++)
        for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
            const char *k = scalar(yaml_document_get_node(x->doc, pr->key));
            const yaml_node_t *v = yaml_document_get_node(x->doc, pr->value);
            int rc = pass == 0 ? load_values(x, k, v) : load_rule_keys(x, k, v);
            if (rc)
                return rc;
        }
    return load_checks(x, root);
}

int eb_pattern_load_buffer(eb_pattern *p, const char *text, size_t len, const char *name, eb_error *err)
{
    memset(p, 0, sizeof *p);
    p->unit_base = 1000;
    p->min_intervals = 3;
    p->receiver = true;
    snprintf(p->path, sizeof p->path, "%s", name);
    yaml_document_t doc;
    int rc = eb_yaml_load(&doc, text, len, name, err);
    if (rc)
        return rc;
    ctx x = {.name = name, .text = text, .len = len, .doc = &doc, .err = err, .p = p};
    rc = load_document(&x, yaml_document_get_root_node(&doc));
    yaml_document_delete(&doc);
    if (rc)
        eb_pattern_free(p);
    return rc;
}

static void free_list(char **v)
{
    for (int i = 0; i < EB_PAT_MAX_COMMANDS && v[i]; i++)
        free(v[i]);
}

void eb_pattern_free(eb_pattern *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n_rules; i++)
        pcre2_code_free(p->rules[i].code);
    free_list(p->cmd.connect);
    free_list(p->cmd.sender);
    free_list(p->cmd.receiver);
    free(p->cmd.abort_cmd);
    pcre2_code_free(p->cmd.connected);
    pcre2_code_free(p->cmd.started);
    memset(p, 0, sizeof *p);
}

void eb_patterns_free(eb_pattern_set *s)
{
    for (int i = 0; s && i < s->n; i++)
        eb_pattern_free(&s->v[i]);
    if (s) {
        free(s->v);
        s->v = NULL;
        s->n = 0;
    }
}

const eb_pattern *eb_patterns_find(const eb_pattern_set *s, const char *name)
{
    for (int i = 0; s && name && i < s->n; i++)
        if (!strcmp(s->v[i].name, name))
            return &s->v[i];
    return NULL;
}
