/* The pattern matcher (pattern.h): console lines through a pattern file's
 * rules into the intervals and summaries the built-in parsers give (decimal
 * Mbit/s). Pure functions over bytes. */
#include "espbench/formats/pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "espbench/formats/board_parse.h"
#include "espbench/formats/profile.h"

/* ------------------------------------------------------- units */

/* K, M, G, T (and k, m, g, t) as powers of the base; "Ki" etc. are 1024. */
static double prefix_scale(const char **s, const char *e, double base)
{
    static const char prefixes[] = "kmgt";
    double scale = 1;
    if (*s < e) {
        const char *hit = strchr(prefixes, (*s)[0] | 0x20);
        if (hit && (*s)[0]) {
            /* "b..." is the unit itself, never a prefix */
            (*s)++;
            if (*s < e && **s == 'i') {
                base = 1024;
                (*s)++;
            }
            for (const char *p = prefixes; p <= hit; p++)
                scale *= base;
        }
    }
    return scale;
}

static void trim(const char **s, const char **e)
{
    while (*s < *e && (**s == ' ' || **s == '\t'))
        (*s)++;
    while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
        (*e)--;
}

double eb_pattern_bytes_unit(const char *s, size_t n, double base)
{
    const char *e = s + n;
    trim(&s, &e);
    double scale = prefix_scale(&s, e, base);
    size_t rest = (size_t)(e - s);
    /* "MB", "MBytes", "Mbyte", or the prefix alone ("M" of "(?<bytes_unit>[KM]?)B") */
    if (rest == 0 || s[0] == 'B' || (rest >= 4 && !strncasecmp(s, "byte", 4)))
        return scale;
    return 0;
}

double eb_pattern_rate_unit(const char *s, size_t n, double base)
{
    const char *e = s + n;
    trim(&s, &e);
    double scale = prefix_scale(&s, e, base);
    size_t rest = (size_t)(e - s);
    if (rest == 0 || s[0] == 'b' || (rest >= 3 && !strncasecmp(s, "bit", 3)))
        return scale; /* bps, bits/sec, Bits/s */
    if (s[0] == 'B')
        return scale * 8; /* bytes per second: "MB/s", "MBytes/sec" */
    return 0;
}

/* ------------------------------------------------------- one line */

/* A regex written for one firmware may backtrack badly on another's lines:
 * each match gets a bounded budget (a line that exhausts it is no match). */
#define MATCH_LIMIT 200000
#define DEPTH_LIMIT 10000

typedef struct matcher {
    pcre2_match_data *md;
    pcre2_match_context *mc;
} matcher;

static void matcher_init(matcher *m, const eb_pattern *p)
{
    m->md = pcre2_match_data_create((uint32_t)p->max_groups + 1, NULL);
    m->mc = pcre2_match_context_create(NULL);
    if (!m->md || !m->mc)
        abort();
    pcre2_set_match_limit(m->mc, MATCH_LIMIT);
    pcre2_set_depth_limit(m->mc, DEPTH_LIMIT);
}

static void matcher_free(matcher *m)
{
    pcre2_match_data_free(m->md);
    pcre2_match_context_free(m->mc);
}

typedef struct capture {
    const char *s;
    size_t n;
} capture;

static bool group_text(const eb_pattern_rule *r, int f, const char *line, PCRE2_SIZE *ov, capture *c)
{
    int g = r->group[f];
    if (g <= 0 || ov[2 * g] == PCRE2_UNSET)
        return false;
    c->s = line + ov[2 * g];
    c->n = ov[2 * g + 1] - ov[2 * g];
    return true;
}

static bool group_number(const eb_pattern_rule *r, int f, const char *line, PCRE2_SIZE *ov, double *out)
{
    capture c;
    if (!group_text(r, f, line, ov, &c) || c.n == 0 || c.n > 63)
        return false;
    char buf[64];
    memcpy(buf, c.s, c.n);
    buf[c.n] = 0;
    char *end;
    double v = strtod(buf, &end);
    while (*end == ' ')
        end++;
    if (end == buf || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* The scale of a value whose unit is in group uf, else the rule's units:. */
static double unit_of(const eb_pattern *p, const eb_pattern_rule *r, int uf, const char *line, PCRE2_SIZE *ov)
{
    capture c;
    if (group_text(r, uf, line, ov, &c))
        return uf == EB_PF_BYTES_UNIT ? eb_pattern_bytes_unit(c.s, c.n, p->unit_base)
                                      : eb_pattern_rate_unit(c.s, c.n, p->unit_base);
    return uf == EB_PF_BYTES_UNIT ? r->bytes_scale : r->rate_scale;
}

/* The numbers a rule's groups carried into out->iv; false if a number or
 * unit did not read. */
static bool take_numbers(const eb_pattern *p, const eb_pattern_rule *r, const char *line, PCRE2_SIZE *ov,
                         eb_pattern_line *out)
{
    eb_interval *iv = &out->iv;
    double v;
    if (group_number(r, EB_PF_START, line, ov, &v) && (out->has[EB_PF_START] = true))
        iv->start_s = v * r->time_scale;
    if (group_number(r, EB_PF_END, line, ov, &v) && (out->has[EB_PF_END] = true))
        iv->end_s = v * r->time_scale;
    if (group_number(r, EB_PF_DURATION, line, ov, &v) && (out->has[EB_PF_DURATION] = true))
        iv->end_s = (out->has[EB_PF_START] ? iv->start_s : 0) + v * r->time_scale;
    if (group_number(r, EB_PF_BYTES, line, ov, &v)) {
        double u = unit_of(p, r, EB_PF_BYTES_UNIT, line, ov);
        if (u <= 0)
            return false;
        iv->bytes = v * u;
        out->has[EB_PF_BYTES] = true;
    }
    if (group_number(r, EB_PF_RATE, line, ov, &v)) {
        double u = unit_of(p, r, EB_PF_RATE_UNIT, line, ov);
        if (u <= 0)
            return false;
        iv->mbps = v * u / 1e6;
        out->has[EB_PF_RATE] = true;
    }
    if (group_number(r, EB_PF_LOST, line, ov, &v) && v >= 0 && (out->has[EB_PF_LOST] = true))
        iv->lost = (long)v;
    if (group_number(r, EB_PF_TOTAL, line, ov, &v) && v >= 0 && (out->has[EB_PF_TOTAL] = true))
        iv->total = (long)v;
    if (group_number(r, EB_PF_JITTER, line, ov, &v) && (out->has[EB_PF_JITTER] = true))
        iv->jitter_ms = v;
    return true;
}

static void take_text(const eb_pattern *p, const eb_pattern_rule *r, const char *line, size_t len, PCRE2_SIZE *ov,
                      eb_pattern_line *out)
{
    capture c;
    if (group_text(r, EB_PF_DIRECTION, line, ov, &c)) {
        for (int i = 0; i < p->n_directions; i++)
            if (strlen(p->directions[i].value) == c.n && !strncmp(p->directions[i].value, c.s, c.n)) {
                out->side = p->directions[i].receiver;
                out->has[EB_PF_DIRECTION] = true;
            }
    }
    if (r->kind == EB_PAT_ERROR) {
        if (!group_text(r, EB_PF_MESSAGE, line, ov, &c)) {
            c.s = line;
            c.n = len;
        }
        snprintf(out->message, sizeof out->message, "%.*s", (int)(c.n < 199 ? c.n : 199), c.s);
        out->has[EB_PF_MESSAGE] = true;
    }
}

/* Fills in what an interval line implies: its rate from its bytes, or its
 * bytes from its rate. False when neither can be had. */
static bool complete_interval(eb_interval *iv, const bool *has)
{
    double span = iv->end_s - iv->start_s;
    if (!(span > 0))
        return false;
    if (!has[EB_PF_RATE])
        iv->mbps = iv->bytes * 8 / span / 1e6;
    if (!has[EB_PF_BYTES])
        iv->bytes = iv->mbps * 1e6 / 8 * span;
    return isfinite(iv->mbps) && iv->mbps >= 0;
}

static void line_reset(eb_pattern_line *out)
{
    memset(out, 0, sizeof *out);
    out->iv = (eb_interval){.start_s = NAN, .end_s = NAN, .bytes = NAN, .mbps = NAN, .jitter_ms = NAN,
                            .lost = -1, .total = -1};
    out->side = -1;
}

/* Tries the rules in the order interval, summary, start, error (interval
 * lines are the most frequent); the first that matches and reads wins. */
static void match_clean(const eb_pattern *p, const char *line, size_t len, const matcher *m,
                        eb_pattern_line *out)
{
    static const int order[] = {EB_PAT_INTERVAL, EB_PAT_SUMMARY, EB_PAT_START, EB_PAT_ERROR};
    line_reset(out);
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        for (int i = 0; i < p->n_rules; i++) {
            const eb_pattern_rule *r = &p->rules[i];
            if (r->kind != order[k])
                continue;
            int rc = pcre2_match(r->code, (PCRE2_SPTR)line, len, 0, 0, m->md, m->mc);
            if (rc < 0)
                continue;
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
            /* groups past the last one set are unset, whatever an earlier match left */
            for (uint32_t g = rc > 0 ? (uint32_t)rc : 1; g < pcre2_get_ovector_count(m->md); g++)
                ov[2 * g] = ov[2 * g + 1] = PCRE2_UNSET;
            if (!take_numbers(p, r, line, ov, out) ||
                (r->kind == EB_PAT_INTERVAL && !complete_interval(&out->iv, out->has))) {
                line_reset(out);
                continue;
            }
            take_text(p, r, line, len, ov, out);
            out->kind = r->kind;
            return;
        }
    }
}

void eb_pattern_match_line(const eb_pattern *p, const char *line, size_t len, eb_pattern_line *out)
{
    matcher m;
    matcher_init(&m, p);
    char clean[1024];
    size_t n = eb_board_clean_line(line, len, clean, sizeof clean);
    match_clean(p, clean, n, &m, out);
    matcher_free(&m);
}

/* ------------------------------------------------------- a whole log */

static eb_pattern_test *test_new(const eb_pattern *p, eb_pattern_log *l, long line)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        eb_pattern_test *v = realloc(l->tests, (size_t)cap * sizeof *v);
        if (!v)
            abort();
        l->tests = v;
        l->cap = cap;
    }
    eb_pattern_test *t = &l->tests[l->n++];
    memset(t, 0, sizeof *t);
    t->receiver = p->receiver;
    t->line = line;
    t->summary = (eb_interval){.start_s = 0, .end_s = NAN, .bytes = NAN, .mbps = NAN, .jitter_ms = NAN,
                               .lost = -1, .total = -1};
    return t;
}

static void iv_push(eb_pattern_test *t, const eb_interval *iv)
{
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 64;
        eb_interval *v = realloc(t->iv, (size_t)cap * sizeof *v);
        if (!v)
            abort();
        t->iv = v;
        t->cap = cap;
    }
    t->iv[t->n++] = *iv;
}

/* A summary line's fields into the test's summary (later lines add to it). */
static void summary_merge(eb_pattern_test *t, const eb_pattern_line *pl)
{
    eb_interval *s = &t->summary;
    if (pl->has[EB_PF_START])
        s->start_s = pl->iv.start_s;
    if (pl->has[EB_PF_END] || pl->has[EB_PF_DURATION])
        s->end_s = pl->iv.end_s;
    if (pl->has[EB_PF_BYTES])
        s->bytes = pl->iv.bytes;
    if (pl->has[EB_PF_RATE])
        s->mbps = pl->iv.mbps;
    if (pl->has[EB_PF_LOST])
        s->lost = pl->iv.lost;
    if (pl->has[EB_PF_TOTAL])
        s->total = pl->iv.total;
    if (pl->has[EB_PF_JITTER])
        s->jitter_ms = pl->iv.jitter_ms;
    t->has_summary = true;
}

/* The summary's length and figures, from what the test printed. */
static void summary_finish(eb_pattern_test *t)
{
    eb_interval *s = &t->summary;
    if (!t->has_summary)
        return;
    if (isnan(s->end_s) && t->n > 0)
        s->end_s = t->iv[t->n - 1].end_s;
    double span = s->end_s - s->start_s;
    if (isnan(s->mbps) && span > 0)
        s->mbps = s->bytes * 8 / span / 1e6;
    if (isnan(s->bytes) && span > 0)
        s->bytes = s->mbps * 1e6 / 8 * span;
    if (isnan(s->mbps))
        t->has_summary = false; /* a heading without its figure */
}

static bool has_data(const eb_pattern_test *t) { return t->n > 0 || t->has_summary || t->error[0]; }

void eb_pattern_parse_log(const eb_pattern *p, const char *name, const char *data, size_t len, eb_pattern_log *out)
{
    memset(out, 0, sizeof *out);
    matcher m;
    matcher_init(&m, p);
    eb_pattern_test *cur = NULL;
    bool closed = false; /* the current test printed its summary */
    long lineno = 0;
    for (const char *s = data, *e = data + len; s < e;) {
        const char *nl = memchr(s, '\n', (size_t)(e - s));
        const char *end = nl ? nl : e;
        lineno++;
        char clean[1024];
        size_t n = eb_board_clean_line(s, (size_t)(end - s), clean, sizeof clean);
        s = nl ? nl + 1 : e;
        eb_pattern_line pl;
        match_clean(p, clean, n, &m, &pl);
        if (pl.kind == EB_PAT_NONE)
            continue;
        bool fresh = cur && !has_data(cur);
        if (!cur || (pl.kind == EB_PAT_START && !fresh) || (pl.kind == EB_PAT_INTERVAL && closed)) {
            if (cur)
                summary_finish(cur);
            cur = test_new(p, out, lineno);
            closed = false;
        }
        if (pl.side >= 0)
            cur->receiver = pl.side == 1;
        if (pl.kind == EB_PAT_INTERVAL) {
            iv_push(cur, &pl.iv);
            out->n_intervals++;
        } else if (pl.kind == EB_PAT_SUMMARY) {
            summary_merge(cur, &pl);
            out->n_summaries++;
            closed = true;
        } else if (pl.kind == EB_PAT_ERROR && !cur->error[0]) {
            snprintf(cur->error, sizeof cur->error, "%s:%ld: board: %s", name, lineno, pl.message);
        }
    }
    if (cur)
        summary_finish(cur);
    for (int i = 0; i < out->n; i++) {
        eb_pattern_test *t = &out->tests[i];
        t->test = p->udp ? (t->receiver ? EB_TEST_UDP_RX : EB_TEST_UDP_TX)
                         : (t->receiver ? EB_TEST_TCP_RX : EB_TEST_TCP_TX);
    }
    matcher_free(&m);
}

void eb_pattern_log_free(eb_pattern_log *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->tests[i].iv);
    free(l->tests);
    memset(l, 0, sizeof *l);
}

bool eb_pattern_detect(const eb_pattern *p, const char *data, size_t len)
{
    matcher m;
    matcher_init(&m, p);
    int intervals = 0, summaries = 0;
    long lineno = 0;
    for (const char *s = data, *e = data + len; s < e && lineno < 5000; lineno++) {
        const char *nl = memchr(s, '\n', (size_t)(e - s));
        const char *end = nl ? nl : e;
        char clean[1024];
        size_t n = eb_board_clean_line(s, (size_t)(end - s), clean, sizeof clean);
        s = nl ? nl + 1 : e;
        eb_pattern_line pl;
        match_clean(p, clean, n, &m, &pl);
        intervals += pl.kind == EB_PAT_INTERVAL;
        summaries += pl.kind == EB_PAT_SUMMARY && (pl.has[EB_PF_RATE] || pl.has[EB_PF_BYTES]);
        if (intervals >= p->min_intervals)
            break;
    }
    matcher_free(&m);
    return intervals >= p->min_intervals || (intervals > 0 && summaries > 0);
}
