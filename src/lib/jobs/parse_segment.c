/* `espbench parse`: a board console log and a PC iperf log cut into
 * segments, one per test (parse_job.h: where a test starts and ends, the
 * board log's dialect and unit base, a server that waited for its client). */
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
#include "espbench_core.h"


seg *pj_seg_new(seg_list *l, long line)
{
    /* The test before this one is over: its series gives back the room
     * it grew beyond its rows (a log of many tests holds only rows). */
    if (l->n > 0)
        eb_ivs_trim(&l->v[l->n - 1].iv);
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 8;
        seg *p = realloc(l->v, (size_t)cap * sizeof *p);
        if (!p)
            abort();
        l->v = p;
        l->cap = cap;
    }
    seg *s = &l->v[l->n++];
    memset(s, 0, sizeof *s);
    s->test = -1;
    s->line = line;
    s->free_heap = s->min_free_heap = s->largest_block = -1;
    s->report.lost = s->report.total = -1;
    s->report.jitter_ms = NAN;
    return s;
}

void pj_seg_set_error(seg *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(s->error);
    s->error = eb_vstrdup_cut(256, fmt, ap);
    va_end(ap);
}

/* An error line while the test ran: a receive timeout may end it (ESP-IDF
 * >= v4.4) or not (older examples retry); a send error ends it (socket_send
 * breaks out of its loop). */
static void seg_cut(seg *s, const char *name, long lineno, const char *text, bool ends)
{
    s->cut_ends = ends;
    char buf[300];
    snprintf(buf, sizeof buf, "%s:%ld: board: %s", name, lineno, text);
    s->cut = strdup(buf);
    if (!s->cut)
        abort();
    s->running = false;
}

/* A socket line after the test's start (its close, its error) tells a test
 * nothing else told. */
static void seg_told_late(seg *s, const eb_board_line *bl)
{
    if (s && bl->role_known && s->test < 0) {
        s->test = test_of(bl->udp, bl->server);
        s->receiver = bl->server;
    }
}

void pj_seg_list_free(seg_list *l)
{
    for (int i = 0; i < l->n; i++) {
        eb_ivs_free(&l->v[i].iv);
        free(l->v[i].error);
        free(l->v[i].cut);
    }
    free(l->v);
}

/* ------------------------------------------------------------ board log */

/* Heap figures from an #EB:OK reply (`heap`: min=, `free`: free=, `mem`: *_internal=). */
static void heap_from_kv(const eb_ebline *l, seg *s)
{
    static const struct {
        const char *key;
        size_t off;
    } keys[] = {
        {"free", offsetof(seg, free_heap)},         {"free_heap", offsetof(seg, free_heap)},
        {"min", offsetof(seg, min_free_heap)},      {"min_free", offsetof(seg, min_free_heap)},
        {"min_free_heap", offsetof(seg, min_free_heap)}, {"largest", offsetof(seg, largest_block)},
        {"largest_block", offsetof(seg, largest_block)},
        /* `mem`: the internal RAM the docs' "Available memory" is about (wins over the stock figures) */
        {"free_internal", offsetof(seg, free_heap)}, {"min_internal", offsetof(seg, min_free_heap)},
        {"largest_internal", offsetof(seg, largest_block)},
    };
    if (!s)
        return;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *v = eb_ebline_get(l, keys[i].key);
        if (v && *v) {
            char *end;
            long x = strtol(v, &end, 10);
            if (*end == '\0')
                *(long *)((char *)s + keys[i].off) = x;
        }
    }
}

static bool test_error(const eb_board_line *bl)
{
    static const int board_errors[] = {EB_BERR_NO_IP, EB_BERR_CONNECT, EB_BERR_RECV, EB_BERR_IPERF, EB_BERR_SEND};
    static const char *const eb_codes[] = {EBC_ERR_NOT_CONNECTED, EBC_ERR_IPERF}; /* the core's (espbench_core.h) */
    if (bl->event == EB_BEV_ERROR) {
        for (size_t i = 0; i < sizeof board_errors / sizeof board_errors[0]; i++)
            if (bl->error == board_errors[i])
                return true;
        return false;
    }
    for (size_t i = 0; i < sizeof eb_codes / sizeof eb_codes[0]; i++)
        if (strcmp(bl->name, eb_codes[i]) == 0)
            return true;
    return false;
}

/* A line that says which test starts: the mode= line, and for logs without
 * one (iperf-cmd 1.x logs at a quieter level, a capture begun late) the
 * echoed iperf command or a socket line of the examples that names its role
 * (board_parse.c: "Successfully connected", "Socket created, sending to",
 * "accept:", "Socket bound, port", iperf-cmd 1.0's "[UDP Server] Socket
 * created"). A test that has not printed anything yet takes the evidence
 * (the mode line wins over a command echo, both over a socket line);
 * otherwise a new test begins. */
static bool all_zero(const eb_ivs *l)
{
    for (int i = 0; i < l->n; i++) {
        eb_interval iv = eb_ivs_at(l, i);
        if (iv.mbps != 0 || iv.bytes != 0)
            return false;
    }
    return true;
}

static seg *test_starts(seg_list *segs, seg *cur, const eb_board_line *bl, long lineno)
{
    if (!bl->role_known)
        return cur;
    /* An older ESP-IDF TCP server (v4.0-v4.3 accept until -t elapses:
     * ../shared/reference/board-console-dialects.md 1.4) reports intervals
     * of zeros while it waits; its "accept:" line starts the test. The zeros
     * belong to no test; the mode= line's -t and interval still apply. */
    if (bl->event == EB_BEV_ACCEPTED && cur && cur->iv.n > 0 && !cur->has_summary && !cur->error &&
        (cur->test < 0 || cur->receiver) && all_zero(&cur->iv)) {
        cur->waited += cur->iv.n;
        cur->iv.n = 0;
        cur->line = lineno;
        cur->running = false;
        if (cur->test < 0) {
            cur->test = test_of(bl->udp, bl->server);
            cur->receiver = bl->server;
        }
        return cur;
    }
    bool fresh = cur && cur->iv.n == 0 && !cur->has_summary && !cur->error;
    bool socket_line = bl->event != EB_BEV_MODE && bl->event != EB_BEV_IPERF_COMMAND;
    if (socket_line && fresh && cur->test >= 0)
        return cur; /* the socket of the test already announced */
    if (!fresh)
        cur = pj_seg_new(segs, lineno);
    if (bl->event == EB_BEV_MODE || cur->test < 0) {
        cur->test = test_of(bl->udp, bl->server);
        cur->receiver = bl->server;
    }
    if (bl->interval_s > 0)
        cur->interval_s = bl->interval_s;
    if (bl->time_s > 0)
        cur->time_s = bl->time_s;
    return cur;
}

/* What one pass over a board log found beside its tests. */
typedef struct board_pass {
    char first_error[200];
    long first_error_line, lines;
    long over_budget;    /* the line where the results outgrew EB_RESULTS_MAX_BYTES (0: never) */
    bool wrote_chip, wrote_project, wrote_idf; /* the log's own lines set these meta fields */
} board_pass;

/* One pass's state: the log, its segments, the running one. */
typedef struct board_walk {
    eb_parse_out *out;
    const char *name;
    seg_list *segs;
    board_pass *r;
    seg *cur;
    long lineno;
} board_walk;

/* The boot lines: a reboot or panic ends the running test; the chip and
 * the espbench firmware's identity. */
static void on_boot(board_walk *w, const eb_board_line *bl)
{
    eb_parse_out *out = w->out;
    seg *cur = w->cur;
    if (cur && cur->running && !cur->error)
        pj_seg_set_error(cur, "%s:%ld: board %s during the test", w->name, w->lineno,
                         bl->event == EB_BEV_PANIC ? "panicked" : "rebooted");
    if (cur)
        cur->running = false;
    if (bl->event == EB_BEV_BOOT && bl->text[0] && !bl->eb) {
        copy_str(out->meta.chip, sizeof out->meta.chip, bl->text);
        w->r->wrote_chip = true;
    }
    if (!bl->eb)
        return;
    const char *v;
    copy_str(out->meta.fw_project, sizeof out->meta.fw_project, "espbench");
    w->r->wrote_project = true;
    if ((v = eb_ebline_get(bl->eb, "fw")))
        copy_str(out->meta.fw_version, sizeof out->meta.fw_version, v);
    if ((v = eb_ebline_get(bl->eb, "idf"))) {
        copy_str(out->meta.idf_version, sizeof out->meta.idf_version, v);
        w->r->wrote_idf = true;
    }
    if ((v = eb_ebline_get(bl->eb, "chip"))) {
        copy_str(out->meta.chip, sizeof out->meta.chip, v);
        w->r->wrote_chip = true;
    }
}

static void on_error(board_walk *w, const eb_board_line *bl)
{
    seg *cur = w->cur;
    const char *text = bl->text[0] ? bl->text : bl->name;
    if (!w->r->first_error[0]) {
        copy_str(w->r->first_error, sizeof w->r->first_error, text);
        w->r->first_error_line = w->lineno;
    }
    seg_told_late(cur, bl); /* "tcp client send error, ..." names its socket */
    /* only errors that end the running test belong to it; "iperf is
     * already running", "Unrecognized command" are about another command */
    if (cur && cur->iv.n == 0 && !cur->error && test_error(bl))
        pj_seg_set_error(cur, "%s:%ld: board: %s", w->name, w->lineno, text);
    else if (cur && cur->running && !cur->cut && test_error(bl))
        seg_cut(cur, w->name, w->lineno, text, bl->error != EB_BERR_RECV);
}

/* Lines about the test's data: intervals, the summary, the end. False when
 * the results outgrow what espbench reads back (the memory bound). */
static bool on_data(board_walk *w, const eb_board_line *bl)
{
    seg *cur = w->cur;
    switch (bl->event) {
    case EB_BEV_INTERVAL:
        if (!cur || (!cur->running && cur->has_summary))
            cur = w->cur = pj_seg_new(w->segs, w->lineno);
        if (pj_over_budget(w->out, PJ_JSON_INTERVAL_MIN + (cur->iv.n == 0 ? PJ_JSON_ENTRY_MIN : 0))) {
            w->r->over_budget = w->lineno;
            return false;
        }
        eb_ivs_push(&cur->iv, &bl->iv);
        cur->running = true;
        break;
    case EB_BEV_SUMMARY:
        if (!cur)
            cur = w->cur = pj_seg_new(w->segs, w->lineno);
        cur->has_summary = true;
        cur->summary = bl->iv;
        if (isfinite(bl->printed))
            snprintf(cur->summary_printed, sizeof cur->summary_printed, "%.2f %s", bl->printed, bl->unit);
        cur->running = false;
        break;
    default: /* the iperf task's or the socket's end */
        seg_told_late(cur, bl); /* "TCP Socket client is closed." ... */
        if (cur)
            cur->running = false;
        break;
    }
    return true;
}

/* Facts beside the tests: heap, address, AP, firmware version. */
static void on_fact(board_walk *w, const eb_board_line *bl)
{
    eb_board_meta *m = &w->out->meta;
    seg *cur = w->cur;
    switch (bl->event) {
    case EB_BEV_HEAP_MIN:
        if (cur)
            cur->min_free_heap = bl->value;
        break;
    case EB_BEV_FREE_HEAP:
        if (cur)
            cur->free_heap = bl->value;
        break;
    case EB_BEV_EB_OK:
        if (bl->eb)
            heap_from_kv(bl->eb, cur);
        break;
    case EB_BEV_GOT_IP:
        copy_str(m->board_ip, sizeof m->board_ip, bl->ip);
        break;
    case EB_BEV_SCAN:
        if (!m->ap_ssid[0] || strcmp(m->ap_ssid, bl->ssid) == 0) {
            copy_str(m->ap_ssid, sizeof m->ap_ssid, bl->ssid);
            m->rssi = bl->rssi;
        }
        break;
    case EB_BEV_APP_VERSION:
        copy_str(m->fw_version, sizeof m->fw_version, bl->text);
        break;
    default:
        break;
    }
}

/* One pass over a board log's lines with the given dialect (and unit base,
 * 0: the dialect's): tests into segs, facts into out->meta and out->prov;
 * det (when not NULL) is fed every line's classification on the way, so no
 * second parse of the log detects its dialect. */
static void board_lines(eb_parse_out *out, const char *name, pj_src *src, int dialect, double base,
                        eb_board_detect *det, seg_list *segs, board_pass *r)
{
    memset(r, 0, sizeof *r);
    eb_board_parser bp;
    eb_board_parser_init(&bp, dialect);
    bp.detect = det;
    bp.mbit_base = base;
    bp.prov = out->prov;
    eb_board_line bl;
    board_walk w = {out, name, segs, r, NULL, 0};
    line_iter it;
    pj_iter_start(&it, src);
    const char *line;
    size_t n;
    while (pj_next_line(&it, &line, &n)) {
        w.lineno = it.lineno;
        eb_board_parser_line(&bp, line, n, &bl);
        switch (bl.event) {
        case EB_BEV_MODE:
        case EB_BEV_IPERF_COMMAND:
        case EB_BEV_SOCKET_CREATED:
        case EB_BEV_SOCKET_BOUND:
        case EB_BEV_ACCEPTED:
        case EB_BEV_CONNECTED: w.cur = test_starts(segs, w.cur, &bl, it.lineno); break;
        case EB_BEV_INTERVAL:
        case EB_BEV_SUMMARY:
        case EB_BEV_IPERF_DONE:
        case EB_BEV_SOCKET_CLOSED:
            if (!on_data(&w, &bl)) {
                r->lines = it.lineno;
                return;
            }
            break;
        case EB_BEV_ERROR:
        case EB_BEV_EB_ERR: on_error(&w, &bl); break;
        case EB_BEV_PANIC:
        case EB_BEV_BOOT: on_boot(&w, &bl); break;
        default: on_fact(&w, &bl); break;
        }
    }
    r->lines = it.lineno;
    out->prov = bp.prov;
    out->prov.unit_base = base > 0 ? base : eb_dialect_mbit_base(dialect);
}

/* The dialect a log's first lines point to (a boot banner, a prompt, a mode
 * line are near its top), or unknown: the dialect of the one full pass. */
#define BOARD_PEEK_LINES 2000
static int board_first_guess(pj_src *src)
{
    eb_board_detect det;
    eb_board_detect_init(&det);
    line_iter it;
    pj_iter_start(&it, src);
    const char *line;
    size_t n;
    while (it.lineno < BOARD_PEEK_LINES && pj_next_line(&it, &line, &n))
        eb_board_detect_line(&det, line, n);
    char why[320];
    return eb_board_detect_result(&det, why, sizeof why);
}

/* The dialect the whole log points to; with --unit-base, a log whose
 * integer interval lines fit both ESP-IDF grammars takes the one of that
 * base. EB_DIALECT_UNKNOWN (why set) when nothing tells. */
static int board_dialect(const eb_board_detect *det, const eb_parse_opts *o, char *why, size_t cap)
{
    if (o->dialect != EB_DIALECT_UNKNOWN)
        return o->dialect;
    int d = eb_board_detect_result(det, why, cap);
    if (d == EB_DIALECT_UNKNOWN && o->unit_base > 0 && det->int_intervals)
        d = o->unit_base == 1048576.0 ? EB_DIALECT_IDF_V51 : EB_DIALECT_IDF_LEGACY;
    return d;
}

/* How the log's rates were converted, when that needs saying: --unit-base,
 * or the detector's check of conflicting or whitespace-only evidence (a
 * warning for the caller to print, and the entries' unit_base_note). */
static void unit_base_note(eb_parse_out *out, const char *name, const eb_board_detect *det, int dialect,
                           const eb_parse_opts *o, char *note, size_t cap)
{
    note[0] = '\0';
    if (o->unit_base > 0) {
        snprintf(note, cap, "%s bits per Mbit, from --unit-base", o->unit_base == 1048576.0 ? "2^20" : "1e6");
        return;
    }
    if (o->dialect != EB_DIALECT_UNKNOWN)
        return; /* --dialect settles it */
    char warn[768];
    if (eb_board_detect_unit_check(det, dialect, name, note, cap, warn, sizeof warn))
        pj_add_warning(out, warn);
    else
        note[0] = '\0';
}

int pj_parse_board(eb_parse_out *out, const char *name, pj_src *src, const eb_parse_opts *o, seg_list *segs,
                   char *unit_note, size_t note_cap, eb_error *err)
{
    /* One pass parses and detects at once with a first guess of the dialect
     * (the user's, else the log's first lines'); lines read alike in every
     * dialect whose Mbit is the same (board_parse.c), so a second pass is
     * needed only when the whole log's evidence says otherwise. */
    int guess = o->dialect != EB_DIALECT_UNKNOWN ? o->dialect : board_first_guess(src);
    eb_board_meta meta0 = out->meta;
    eb_provenance prov0 = out->prov;
    long long budget0 = out->json_bytes;
    eb_board_detect det;
    eb_board_detect_init(&det);
    board_pass r;
    board_lines(out, name, src, guess, o->unit_base, &det, segs, &r);
    if (r.over_budget)
        return pj_budget_error(name, r.over_budget, err);
    char why[320];
    int dialect = board_dialect(&det, o, why, sizeof why);
    if (dialect == EB_DIALECT_UNKNOWN) {
        out->meta = meta0; /* nothing of the log is taken */
        out->prov = prov0;
        return eb_fail(err, EB_ECONFIG, "%s: cannot tell the board's console dialect: %s", name, why);
    }
    if (o->unit_base <= 0 && !eb_board_dialects_read_alike(dialect, guess)) {
        pj_seg_list_free(segs);
        *segs = (seg_list){0};
        out->meta = meta0;
        out->prov = prov0;
        out->json_bytes = budget0;
        board_lines(out, name, src, dialect, 0, NULL, segs, &r);
    }
    unit_base_note(out, name, &det, dialect, o, unit_note, note_cap);
    copy_str(out->meta.dialect, sizeof out->meta.dialect, eb_dialect_name(dialect));
    /* The detector's facts stand where the log's own lines set nothing later. */
    if (det.project[0] && !r.wrote_project)
        copy_str(out->meta.fw_project, sizeof out->meta.fw_project, det.project);
    if (det.idf[0] && !r.wrote_idf)
        copy_str(out->meta.idf_version, sizeof out->meta.idf_version, det.idf);
    if (det.chip[0] && !r.wrote_chip && !meta0.chip[0])
        copy_str(out->meta.chip, sizeof out->meta.chip, det.chip);
    int with_data = 0;
    for (int i = 0; i < segs->n; i++)
        with_data += segs->v[i].iv.n > 0 || segs->v[i].has_summary;
    if (with_data == 0) {
        if (r.first_error[0])
            return eb_fail(err, EB_ECONFIG, "%s: no interval lines (%ld lines read); the board said at line %ld: %s",
                           name, r.lines, r.first_error_line, r.first_error);
        return eb_fail(err, EB_ECONFIG, "%s: no interval lines in the board log (%ld lines read)", name, r.lines);
    }
    return 0;
}

/* --------------------------------------------------------------- PC log */

static void close_pc_seg(eb_iperf_run *run, seg *s, bool csv_client_final, const char *name)
{
    eb_iperf_finish(run);
    int role = run->role;
    if (run->iperf3) /* iperf3 (docs/results.md): the end that sent, not the one that connected */
        role = run->pc_sends ? EB_IPERF_ROLE_CLIENT : EB_IPERF_ROLE_SERVER;
    if (role == EB_IPERF_ROLE_UNKNOWN) { /* CSV has no banner: the client's final row says total -1 */
        role = csv_client_final ? EB_IPERF_ROLE_CLIENT : EB_IPERF_ROLE_SERVER;
        s->guessed = !csv_client_final; /* a server, or a client cut before its final row */
    }
    bool udp = run->proto == EB_IPERF_PROTO_UDP;
    /* PC server = the board sends (TX); PC client = the board receives (RX) */
    s->test = test_of(udp, role == EB_IPERF_ROLE_CLIENT);
    s->receiver = role == EB_IPERF_ROLE_SERVER;
    for (int i = 0; i < run->n_intervals; i++)
        eb_ivs_push(&s->iv, &run->intervals[i]);
    if (run->has_final) {
        s->has_summary = true;
        s->summary = run->final;
    }
    if (run->has_server_report) {
        s->has_report = true;
        s->report = run->server_report;
    }
    if (run->status != EB_IPERF_OK) {
        const char *msg = run->message;
        const char *colon = strstr(msg, ": ");
        if (run->error_line > 0 && colon)
            pj_seg_set_error(s, "%s:%ld: iperf failed: %s", name, run->error_line, colon + 2);
        else
            pj_seg_set_error(s, "%s: %s", name, msg);
    }
}

int pj_parse_pc(eb_parse_out *out, const char *name, pj_src *src, seg_list *segs, eb_error *err)
{
    eb_iperf_run run;
    eb_iperf_run_init(&run);
    seg *cur = NULL;
    bool csv_client_final = false;
    line_iter it;
    pj_iter_start(&it, src);
    const char *line;
    size_t n;
    eb_iperf_line il;
    while (pj_next_line(&it, &line, &n)) {
        eb_iperf_parse_line(line, n, &il);
        if (il.kind == EB_IPL_DATA && pj_over_budget(out, PJ_JSON_INTERVAL_MIN)) {
            eb_iperf_run_free(&run);
            return pj_budget_error(name, it.lineno, err);
        }
        bool banner = il.kind == EB_IPL_SERVER_BANNER || il.kind == EB_IPL_CLIENT_BANNER;
        /* CSV has no banners: a stream that already printed its final row and
         * starts again at 0 is the next client's test */
        bool restart = false;
        if (il.kind == EB_IPL_DATA && il.csv && il.iv.start_s < 1e-6)
            for (int i = 0; i < run.n_streams_state && i < (int)(sizeof run.streams / sizeof run.streams[0]); i++)
                restart |= run.streams[i].id == il.id && run.streams[i].sum == il.sum && run.streams[i].last_final;
        if ((banner || restart) && cur && run.n_samples > 0) {
            close_pc_seg(&run, cur, csv_client_final, name);
            eb_iperf_run_free(&run);
            eb_iperf_run_init(&run);
            cur = NULL;
            csv_client_final = false;
        }
        if (!cur)
            cur = pj_seg_new(segs, it.lineno);
        if (il.kind == EB_IPL_DATA && il.csv && il.udp && il.iv.total < 0)
            csv_client_final = true;
        eb_iperf_feed_line(&run, line, n);
    }
    if (cur && run.iperf3 && run.n_samples == 0 && run.error == EB_IPERR_NONE && segs->n > 1)
        segs->n--; /* iperf3 -s prints its banner again after each test: no test follows the last */
    else if (cur)
        close_pc_seg(&run, cur, csv_client_final, name);
    int with_data = 0;
    const char *first_error = NULL;
    for (int i = 0; i < segs->n; i++) {
        with_data += segs->v[i].iv.n > 0 || segs->v[i].has_summary;
        if (!first_error && segs->v[i].error)
            first_error = segs->v[i].error;
    }
    eb_iperf_run_free(&run);
    if (with_data == 0)
        return eb_fail(err, EB_ECONFIG, "%s", first_error ? first_error : "no interval lines in iperf output");
    return 0;
}

