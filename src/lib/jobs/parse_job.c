/* `espbench parse`: logs of a run done by hand into results entries.
 * See parse_job.h for the rules (side and dialect detection, cutting a log
 * into tests, pairing board and PC logs). */
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
#include "espbench/base/fs.h"

void eb_parse_opts_init(eb_parse_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dialect = EB_DIALECT_UNKNOWN;
    o->side = EB_SIDE_AUTO;
    o->test = -1;
    o->warmup_s = 1.0;
}

void eb_parse_out_init(eb_parse_out *out)
{
    memset(out, 0, sizeof *out);
    out->meta.rssi = 0;
    eb_prov_init(&out->prov);
}

void eb_parse_out_free(eb_parse_out *out)
{
    for (int i = 0; i < out->n_entries; i++)
        eb_entry_free(&out->entries[i]);
    free(out->entries);
    free(out->udp_reports);
    for (int i = 0; i < out->n_warnings; i++)
        free(out->warnings[i]);
    free(out->warnings);
    memset(out, 0, sizeof *out);
}

/* ------------------------------------------------------------ helpers */

void pj_add_warning(eb_parse_out *out, const char *text)
{
    char **p = realloc(out->warnings, (size_t)(out->n_warnings + 1) * sizeof *p);
    if (!p || !(p[out->n_warnings] = strdup(text)))
        abort();
    out->warnings = p;
    out->n_warnings++;
}

/* ------------------------------------------------------------- sources */

void pj_iter_start(line_iter *it, pj_src *src)
{
    it->src = src;
    it->p = src->data;
    it->e = src->data ? src->data + src->len : NULL;
    it->lineno = 0;
    if (!src->data && src->rd)
        (void)eb_line_reader_rewind(src->rd); /* a regular file: a failed seek is a read error below */
}

bool pj_next_line(line_iter *it, const char **line, size_t *len)
{
    if (!it->src->data && it->src->rd) {
        if (!eb_line_reader_next(it->src->rd, line, len))
            return false;
        it->lineno++;
        return true;
    }
    if (it->p >= it->e)
        return false;
    const char *nl = memchr(it->p, '\n', (size_t)(it->e - it->p));
    const char *end = nl ? nl : it->e;
    *line = it->p;
    *len = (size_t)(end - it->p);
    it->p = nl ? nl + 1 : it->e;
    it->lineno++;
    return true;
}

int pj_src_whole(pj_src *src, eb_error *err)
{
    if (src->data)
        return 0;
    int rc = eb_file_read(src->path, EB_PARSE_LOG_MAX_BYTES, "not a console or iperf log? (split a longer one)",
                          &src->whole, err);
    if (!rc) {
        src->data = src->whole.data ? (const char *)src->whole.data : "";
        src->len = src->whole.len;
    }
    return rc;
}

bool pj_over_budget(eb_parse_out *out, long long add)
{
    out->json_bytes += add;
    return out->json_bytes > (long long)EB_RESULTS_MAX_BYTES;
}

int pj_budget_error(const char *name, long lineno, eb_error *err)
{
    return eb_fail(err, EB_ECONFIG,
                   "%s:%ld: the results would be larger than %u MB, the most espbench reads back (report, "
                   "compare, merge); split the log between tests and parse the parts into separate files",
                   name, lineno, EB_RESULTS_MAX_BYTES >> 20);
}

/* Whether the log holds ESP-Hosted's raw throughput report (" sec Tx:");
 * a file is searched block by block, not cut into lines. */
static bool has_raw_tp(pj_src *src)
{
    static const char key[] = " sec Tx:";
    if (src->data)
        return memmem(src->data, src->len, key, sizeof key - 1) != NULL;
    return eb_line_reader_contains(src->rd, key, sizeof key - 1);
}

/* ------------------------------------------------------- side detection */

int pj_detect_side(pj_src *src)
{
    int board = 0, pc = 0;
    line_iter it;
    pj_iter_start(&it, src);
    const char *line;
    size_t n;
    eb_iperf_line il;
    eb_board_line bl;
    while (pj_next_line(&it, &line, &n) && it.lineno <= 5000) {
        bool tab = memchr(line, '\t', n) != NULL;
        eb_iperf_parse_line(line, n, &il);
        switch (il.kind) {
        case EB_IPL_SERVER_BANNER:
        case EB_IPL_CLIENT_BANNER: pc += 10; break;
        case EB_IPL_DATA: pc += il.csv ? 2 : tab ? 0 : 1; break;
        case EB_IPL_CONNECTED: pc += 3; break;
        case EB_IPL_SENT:
        case EB_IPL_SERVER_REPORT: pc += 3; break;
        case EB_IPL_ERROR: pc += il.iperf3 ? 10 : 0; break; /* a refused iperf3 client prints only that */
        default: break;
        }
        eb_board_parse_line(EB_DIALECT_UNKNOWN, line, n, &bl, NULL);
        switch (bl.event) {
        case EB_BEV_MODE: board += 10; break;
        case EB_BEV_INTERVAL:
            board += bl.style == EB_IVS_ID_BYTES ? (tab ? 2 : 0) : 2;
            break;
        case EB_BEV_NONE:
        case EB_BEV_TABLE_HEADER:
        case EB_BEV_FREE_HEAP: break;
        default: board += memmem(line, n, "#EB:", 4) ? 10 : 1; break;
        }
    }
    if (board == 0 && pc == 0)
        return EB_SIDE_AUTO;
    return board > pc ? EB_SIDE_BOARD : EB_SIDE_PC;
}


/* Chip, failure count and the board log's provenance over every entry so far. */
static void finish_log(eb_parse_out *out, const eb_parse_opts *o)
{
    out->n_logs++;
    const char *chip = o->chip ? o->chip : out->meta.chip[0] ? out->meta.chip : "unknown";
    out->n_failed = 0;
    for (int i = 0; i < out->n_entries; i++) {
        copy_str(out->entries[i].chip, sizeof out->entries[i].chip, chip);
        out->n_failed += strcmp(out->entries[i].status, "ok") != 0;
        if (!eb_prov_empty(&out->prov))
            eb_prov_merge(eb_entry_prov_mut(&out->entries[i]), &out->prov);
    }
    if (o->chip)
        copy_str(out->meta.chip, sizeof out->meta.chip, o->chip);
}

/* The iperf tests of a log: its side's segments, then entries. */
static int parse_tests(eb_parse_out *out, const char *name, pj_src *src, const eb_pattern *pat, int side,
                       const eb_parse_opts *o, eb_error *err)
{
    seg_list segs = {0};
    char unit_note[512] = "";
    int rc = pat                     ? pj_parse_pattern(out, name, src, pat, &segs, err)
             : side == EB_SIDE_BOARD ? pj_parse_board(out, name, src, o, &segs, unit_note, sizeof unit_note, err)
                                     : pj_parse_pc(out, name, src, &segs, err);
    if (rc == 0)
        rc = pj_add_segments(out, name, &segs, o, side == EB_SIDE_BOARD, unit_note, err);
    pj_seg_list_free(&segs);
    return rc;
}

static int parse_src(eb_parse_out *out, const char *name, pj_src *src, const eb_parse_opts *o, eb_error *err)
{
    eb_parse_opts defaults;
    if (!o) {
        eb_parse_opts_init(&defaults);
        o = &defaults;
    }
    int rc = 0;
    const eb_pattern *pat = pj_pattern_for(src, o, err, &rc);
    if (rc)
        return rc;
    int side = pat ? EB_SIDE_BOARD : o->side;
    /* An ESP-Hosted host's console may hold the raw throughput report, alone or beside iperf tests. */
    int n_raw = 0;
    if (!pat && side != EB_SIDE_PC && o->test < 0 && has_raw_tp(src)) {
        if ((rc = pj_src_whole(src, err)))
            return rc;
        n_raw = pj_raw_tp_entries(out, src->data, src->len, o);
    }
    if (side == EB_SIDE_AUTO) {
        side = pj_detect_side(src);
        if (side == EB_SIDE_AUTO && n_raw == 0)
            return eb_fail(err, EB_ECONFIG,
                           "%s: neither a board console log nor iperf2 output (no interval, mode= or banner "
                           "lines); pass --side",
                           name);
    }
    if (side != EB_SIDE_AUTO) {
        rc = parse_tests(out, name, src, pat, side, o, err);
        if (rc == EB_ECONFIG && n_raw > 0) { /* the raw report and a boot log, no iperf test */
            eb_error_clear(err);
            rc = 0;
        }
    }
    if (rc == 0 && src->rd && src->rd->read_errno)
        rc = eb_fail(err, EB_EIO, "%s: cannot read: %s", name, strerror(src->rd->read_errno));
    if (rc == 0)
        finish_log(out, o);
    return rc;
}

int eb_parse_log_buffer(eb_parse_out *out, const char *name, const char *data, size_t len, const eb_parse_opts *o,
                        eb_error *err)
{
    pj_src src = {.data = data ? data : "", .len = data ? len : 0};
    return parse_src(out, name, &src, o, err);
}

int eb_parse_log_file(eb_parse_out *out, const char *path, const eb_parse_opts *o, eb_error *err)
{
    static const char hint[] = "not a console or iperf log? (split a longer one)";
    eb_line_reader rd;
    pj_src src = {.path = path};
    eb_buf_init(&src.whole);
    int rc = eb_line_reader_open(&rd, path, EB_PARSE_LOG_MAX_BYTES, hint, err);
    if (rc == 0)
        src.rd = &rd;
    else if (rc < 0) /* a pipe: read whole, up to the cap */
        rc = pj_src_whole(&src, err);
    if (rc == 0)
        rc = parse_src(out, path, &src, o, err);
    if (src.rd)
        eb_line_reader_close(&rd);
    eb_buf_free(&src.whole);
    return rc;
}

int eb_parse_to_results(const eb_parse_out *out, eb_results *r, eb_error *err)
{
    eb_board_meta *m = eb_results_board(r, "", true);
    if (!m)
        return eb_fail(err, EB_EIO, "results: cannot add the board's metadata");
    *m = out->meta;
    m->board[0] = '\0';
    for (int i = 0; i < out->n_entries; i++)
        if (!eb_results_add(r, &out->entries[i]))
            return eb_fail(err, EB_EIO, "results: cannot add entry %s", eb_test_name(out->entries[i].test));
    return 0;
}

int eb_parse_move_to_results(eb_parse_out *out, eb_results *r, eb_error *err)
{
    eb_board_meta *m = eb_results_board(r, "", true);
    if (!m)
        return eb_fail(err, EB_EIO, "results: cannot add the board's metadata");
    *m = out->meta;
    m->board[0] = '\0';
    eb_results_take(r, &out->entries, &out->n_entries, &out->cap_entries);
    return 0;
}
