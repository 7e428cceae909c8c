/* `espbench parse`: a log no built-in parser reads, read with a pattern
 * file (pattern.h): the file that fits, and its tests as segments. */
#include "espbench/jobs/parse_job.h"
#include "espbench/base/str.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/board_parse.h"
#include "espbench/formats/dialect.h"
#include "espbench/formats/iperf_parse.h"
#include "espbench/formats/pattern.h"
#include "parse_internal.h"

/* Whether a built-in parser reads the log: an interval, mode, #EB: or
 * iperf2 data line in its first 5000 lines. */
static bool builtin_reads(pj_src *src)
{
    line_iter it;
    pj_iter_start(&it, src);
    const char *line;
    size_t n;
    eb_iperf_line il;
    eb_board_line bl;
    while (pj_next_line(&it, &line, &n) && it.lineno <= 5000) {
        eb_iperf_parse_line(line, n, &il);
        if (il.kind == EB_IPL_DATA || il.kind == EB_IPL_SERVER_BANNER || il.kind == EB_IPL_CLIENT_BANNER)
            return true;
        eb_board_parse_line(EB_DIALECT_UNKNOWN, line, n, &bl, NULL);
        if (bl.event == EB_BEV_INTERVAL || bl.event == EB_BEV_MODE || memmem(line, n, "#EB:", 4))
            return true;
    }
    return false;
}

/* The pattern a log is read with: --pattern, else the first built-in
 * pattern file whose lines the log has (only for a log nothing else reads).
 * The pattern matcher takes the whole log: such a log is read whole (up to
 * the log cap), a built-in one is streamed. *rc: a read error. */
const eb_pattern *pj_pattern_for(pj_src *src, const eb_parse_opts *o, eb_error *err, int *rc)
{
    *rc = 0;
    if (o->pattern)
        return o->pattern;
    if (!o->patterns || o->side != EB_SIDE_AUTO || o->dialect != EB_DIALECT_UNKNOWN || builtin_reads(src))
        return NULL;
    if ((*rc = pj_src_whole(src, err)))
        return NULL;
    for (int i = 0; i < o->patterns->n; i++)
        if (eb_pattern_detect(&o->patterns->v[i], src->data, src->len))
            return &o->patterns->v[i];
    return NULL;
}

/* A log in a pattern file's dialect: the matcher's tests become segments
 * (the board's side: its intervals are the board's). */
int pj_parse_pattern(eb_parse_out *out, const char *name, pj_src *src, const eb_pattern *p, seg_list *segs,
                     eb_error *err)
{
    int rc = pj_src_whole(src, err);
    if (rc)
        return rc;
    eb_pattern_log pl;
    eb_pattern_parse_log(p, name, src->data, src->len, &pl);
    copy_str(out->meta.dialect, sizeof out->meta.dialect, p->name);
    /* the boot log, if the capture has one, still names the chip and the app */
    eb_board_detect det;
    eb_board_detect_init(&det);
    line_iter it;
    pj_iter_start(&it, src);
    const char *line;
    size_t n;
    while (pj_next_line(&it, &line, &n) && it.lineno <= 5000)
        eb_board_detect_line(&det, line, n);
    if (det.project[0])
        copy_str(out->meta.fw_project, sizeof out->meta.fw_project, det.project);
    if (det.idf[0])
        copy_str(out->meta.idf_version, sizeof out->meta.idf_version, det.idf);
    if (det.chip[0] && !out->meta.chip[0])
        copy_str(out->meta.chip, sizeof out->meta.chip, det.chip);
    int with_data = 0;
    const char *first_error = NULL;
    for (int i = 0; i < pl.n; i++) {
        eb_pattern_test *t = &pl.tests[i];
        seg *s = pj_seg_new(segs, t->line);
        s->test = t->test;
        s->receiver = t->receiver;
        s->iv = eb_ivs_adopt(t->iv, t->n); /* the segment takes the intervals */
        t->iv = NULL;
        s->has_summary = t->has_summary;
        s->summary = t->summary;
        if (t->error[0])
            pj_seg_set_error(s, "%s", t->error);
        with_data += s->iv.n > 0 || s->has_summary;
        if (!first_error && s->error)
            first_error = s->error;
    }
    int at = 0;
    for (int i = 0; i < p->n_rules && !at; i++)
        at = p->rules[i].kind == EB_PAT_INTERVAL ? p->rules[i].line : 0;
    if (with_data == 0)
        rc = first_error ? eb_fail(err, EB_ECONFIG, "%s", first_error)
                         : eb_fail(err, EB_ECONFIG,
                                   "%s: no line matches the interval regex of pattern '%s' (%s:%d); is it the "
                                   "firmware's log?",
                                   name, p->name, p->path, at);
    eb_pattern_log_free(&pl);
    return rc;
}

