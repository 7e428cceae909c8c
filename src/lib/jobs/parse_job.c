/* `espbench parse`: logs of a run done by hand into results entries.
 * See parse_job.h for the rules (side and dialect detection, cutting a log
 * into tests, pairing board and PC logs). */
#include "espbench/jobs/parse_job.h"
#include "espbench/base/str.h"
#include "espbench_core.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/board_parse.h"
#include "espbench/formats/hosted.h"
#include "espbench/base/buf.h"
#include "espbench/formats/dialect.h"
#include "espbench/base/fs.h"
#include "espbench/formats/iperf_parse.h"
#include "espbench/formats/pattern.h"
#include "espbench/formats/profile.h"

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
    memset(out, 0, sizeof *out);
}

/* ------------------------------------------------------------ helpers */

typedef struct line_iter {
    const char *p, *e;
    long lineno;
} line_iter;

static bool next_line(line_iter *it, const char **line, size_t *len)
{
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

/* A growable interval list. */
typedef struct iv_list {
    eb_interval *v;
    int n, cap;
} iv_list;

static void iv_push(iv_list *l, const eb_interval *iv)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        eb_interval *p = realloc(l->v, (size_t)cap * sizeof *p);
        if (!p)
            abort();
        l->v = p;
        l->cap = cap;
    }
    l->v[l->n++] = *iv;
}

/* Truncating copies: messages and names are cut, never overflowed. */
static void copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

static int test_of(bool udp, bool board_receives)
{
    return udp ? (board_receives ? EB_TEST_UDP_RX : EB_TEST_UDP_TX)
               : (board_receives ? EB_TEST_TCP_RX : EB_TEST_TCP_TX);
}

static bool test_board_receives(int test) { return test == EB_TEST_TCP_RX || test == EB_TEST_UDP_RX; }

/* One test found in one log. */
typedef struct seg {
    int test;            /* -1 unknown */
    long line;           /* where it starts */
    bool receiver;       /* the intervals are the receiving side's */
    iv_list iv;
    bool has_summary;
    eb_interval summary;
    double interval_s, time_s;
    char *error;         /* why it failed, NULL if it did not (rare: held out of line) */
    long free_heap, min_free_heap, largest_block;
    bool running;        /* intervals seen, no end yet */
    bool has_report;     /* PC UDP client: receiver's final */
    eb_interval report;
    char *cut;           /* the error line that ended the running test ("board.log:41: board: tcp client
                          * send error, ..."), NULL if none */
    bool cut_ends;       /* the cut's error ends a test in every version (not a receive timeout) */
    bool guessed;        /* test guessed (a CSV log without banner or client final row): --test wins */
} seg;

typedef struct seg_list {
    seg *v;
    int n, cap;
} seg_list;

static seg *seg_new(seg_list *l, long line)
{
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

static void seg_set_error(seg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void seg_set_error(seg *s, const char *fmt, ...)
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

static void seg_list_free(seg_list *l)
{
    for (int i = 0; i < l->n; i++) {
        free(l->v[i].iv.v);
        free(l->v[i].error);
        free(l->v[i].cut);
    }
    free(l->v);
}

/* ------------------------------------------------------- side detection */

static int detect_side(const char *data, size_t len)
{
    int board = 0, pc = 0;
    line_iter it = {data, data + len, 0};
    const char *line;
    size_t n;
    eb_iperf_line il;
    eb_board_line bl;
    while (next_line(&it, &line, &n) && it.lineno <= 5000) {
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
static seg *test_starts(seg_list *segs, seg *cur, const eb_board_line *bl, long lineno)
{
    if (!bl->role_known)
        return cur;
    bool fresh = cur && cur->iv.n == 0 && !cur->has_summary && !cur->error;
    bool socket_line = bl->event != EB_BEV_MODE && bl->event != EB_BEV_IPERF_COMMAND;
    if (socket_line && fresh && cur->test >= 0)
        return cur; /* the socket of the test already announced */
    if (!fresh)
        cur = seg_new(segs, lineno);
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
    bool wrote_chip, wrote_project, wrote_idf; /* the log's own lines set these meta fields */
} board_pass;

/* One pass over a board log's lines with the given dialect: tests into segs,
 * facts into out->meta and out->prov; det (when not NULL) is fed every
 * line's classification on the way, so no second parse of the log detects
 * its dialect. */
static void board_lines(eb_parse_out *out, const char *name, const char *data, size_t len, int dialect,
                        eb_board_detect *det, seg_list *segs, board_pass *r)
{
    memset(r, 0, sizeof *r);
    eb_board_parser bp;
    eb_board_parser_init(&bp, dialect);
    bp.detect = det;
    bp.prov = out->prov;
    eb_board_line bl;
    seg *cur = NULL;
    line_iter it = {data, data + len, 0};
    const char *line;
    size_t n;
    while (next_line(&it, &line, &n)) {
        eb_board_parser_line(&bp, line, n, &bl);
        switch (bl.event) {
        case EB_BEV_MODE:
        case EB_BEV_IPERF_COMMAND:
        case EB_BEV_SOCKET_CREATED:
        case EB_BEV_SOCKET_BOUND:
        case EB_BEV_ACCEPTED:
        case EB_BEV_CONNECTED:
            cur = test_starts(segs, cur, &bl, it.lineno);
            break;
        case EB_BEV_INTERVAL:
            if (!cur || (!cur->running && cur->has_summary))
                cur = seg_new(segs, it.lineno);
            iv_push(&cur->iv, &bl.iv);
            cur->running = true;
            break;
        case EB_BEV_SUMMARY:
            if (!cur)
                cur = seg_new(segs, it.lineno);
            cur->has_summary = true;
            cur->summary = bl.iv;
            cur->running = false;
            break;
        case EB_BEV_IPERF_DONE:
        case EB_BEV_SOCKET_CLOSED:
            seg_told_late(cur, &bl); /* "TCP Socket client is closed." ... */
            if (cur)
                cur->running = false;
            break;
        case EB_BEV_ERROR:
        case EB_BEV_EB_ERR:
            if (!r->first_error[0]) {
                copy_str(r->first_error, sizeof r->first_error, bl.text[0] ? bl.text : bl.name);
                r->first_error_line = it.lineno;
            }
            seg_told_late(cur, &bl); /* "tcp client send error, ..." names its socket */
            /* only errors that end the running test belong to it; "iperf is
             * already running", "Unrecognized command" are about another command */
            if (cur && cur->iv.n == 0 && !cur->error && test_error(&bl))
                seg_set_error(cur, "%s:%ld: board: %s", name, it.lineno,
                          bl.text[0] ? bl.text : bl.name);
            else if (cur && cur->running && !cur->cut && test_error(&bl))
                seg_cut(cur, name, it.lineno, bl.text[0] ? bl.text : bl.name, bl.error != EB_BERR_RECV);
            break;
        case EB_BEV_PANIC:
        case EB_BEV_BOOT:
            if (cur && cur->running && !cur->error)
                seg_set_error(cur, "%s:%ld: board %s during the test", name, it.lineno,
                         bl.event == EB_BEV_PANIC ? "panicked" : "rebooted");
            if (cur)
                cur->running = false;
            if (bl.event == EB_BEV_BOOT && bl.text[0] && !bl.eb) {
                copy_str(out->meta.chip, sizeof out->meta.chip, bl.text);
                r->wrote_chip = true;
            }
            if (bl.eb) {
                const char *v;
                copy_str(out->meta.fw_project, sizeof out->meta.fw_project, "espbench");
                r->wrote_project = true;
                if ((v = eb_ebline_get(bl.eb, "fw")))
                    copy_str(out->meta.fw_version, sizeof out->meta.fw_version, v);
                if ((v = eb_ebline_get(bl.eb, "idf"))) {
                    copy_str(out->meta.idf_version, sizeof out->meta.idf_version, v);
                    r->wrote_idf = true;
                }
                if ((v = eb_ebline_get(bl.eb, "chip"))) {
                    copy_str(out->meta.chip, sizeof out->meta.chip, v);
                    r->wrote_chip = true;
                }
            }
            break;
        case EB_BEV_HEAP_MIN:
            if (cur)
                cur->min_free_heap = bl.value;
            break;
        case EB_BEV_FREE_HEAP:
            if (cur)
                cur->free_heap = bl.value;
            break;
        case EB_BEV_EB_OK:
            if (bl.eb)
                heap_from_kv(bl.eb, cur);
            break;
        case EB_BEV_GOT_IP:
            copy_str(out->meta.board_ip, sizeof out->meta.board_ip, bl.ip);
            break;
        case EB_BEV_SCAN:
            if (!out->meta.ap_ssid[0] || strcmp(out->meta.ap_ssid, bl.ssid) == 0) {
                copy_str(out->meta.ap_ssid, sizeof out->meta.ap_ssid, bl.ssid);
                out->meta.rssi = bl.rssi;
            }
            break;
        case EB_BEV_APP_VERSION:
            copy_str(out->meta.fw_version, sizeof out->meta.fw_version, bl.text);
            break;
        default:
            break;
        }
    }
    r->lines = it.lineno;
    out->prov = bp.prov;
    out->prov.unit_base = eb_dialect_mbit_base(dialect);
}

/* The dialect a log's first lines point to (a boot banner, a prompt, a mode
 * line are near its top), or unknown: the dialect of the one full pass. */
#define BOARD_PEEK_LINES 2000
static int board_first_guess(const char *data, size_t len)
{
    eb_board_detect det;
    eb_board_detect_init(&det);
    line_iter it = {data, data + len, 0};
    const char *line;
    size_t n;
    while (it.lineno < BOARD_PEEK_LINES && next_line(&it, &line, &n))
        eb_board_detect_line(&det, line, n);
    char why[320];
    return eb_board_detect_result(&det, why, sizeof why);
}

static int parse_board(eb_parse_out *out, const char *name, const char *data, size_t len, const eb_parse_opts *o,
                       seg_list *segs, eb_error *err)
{
    /* One pass parses and detects at once with a first guess of the dialect
     * (the user's, else the log's first lines'); lines read alike in every
     * dialect whose Mbit is the same (board_parse.c), so a second pass is
     * needed only when the whole log's evidence says otherwise. */
    int guess = o->dialect != EB_DIALECT_UNKNOWN ? o->dialect : board_first_guess(data, len);
    eb_board_meta meta0 = out->meta;
    eb_provenance prov0 = out->prov;
    eb_board_detect det;
    eb_board_detect_init(&det);
    board_pass r;
    board_lines(out, name, data, len, guess, &det, segs, &r);
    char why[320];
    int dialect = o->dialect;
    if (dialect == EB_DIALECT_UNKNOWN) {
        dialect = eb_board_detect_result(&det, why, sizeof why);
        if (dialect == EB_DIALECT_UNKNOWN) {
            out->meta = meta0; /* nothing of the log is taken */
            out->prov = prov0;
            return eb_fail(err, EB_ECONFIG, "%s: cannot tell the board's console dialect: %s", name, why);
        }
    }
    if (!eb_board_dialects_read_alike(dialect, guess)) {
        seg_list_free(segs);
        *segs = (seg_list){0};
        out->meta = meta0;
        out->prov = prov0;
        board_lines(out, name, data, len, dialect, NULL, segs, &r);
    }
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
        iv_push(&s->iv, &run->intervals[i]);
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
            seg_set_error(s, "%s:%ld: iperf failed: %s", name, run->error_line, colon + 2);
        else
            seg_set_error(s, "%s: %s", name, msg);
    }
}

static int parse_pc(const char *name, const char *data, size_t len, seg_list *segs, eb_error *err)
{
    eb_iperf_run run;
    eb_iperf_run_init(&run);
    seg *cur = NULL;
    bool csv_client_final = false;
    line_iter it = {data, data + len, 0};
    const char *line;
    size_t n;
    eb_iperf_line il;
    while (next_line(&it, &line, &n)) {
        eb_iperf_parse_line(line, n, &il);
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
            cur = seg_new(segs, it.lineno);
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

/* ------------------------------------------------------- pattern files */

/* Whether a built-in parser reads the log: an interval, mode, #EB: or
 * iperf2 data line in its first 5000 lines. */
static bool builtin_reads(const char *data, size_t len)
{
    line_iter it = {data, data + len, 0};
    const char *line;
    size_t n;
    eb_iperf_line il;
    eb_board_line bl;
    while (next_line(&it, &line, &n) && it.lineno <= 5000) {
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
 * pattern file whose lines the log has (only for a log nothing else reads). */
static const eb_pattern *pattern_for(const char *data, size_t len, const eb_parse_opts *o)
{
    if (o->pattern)
        return o->pattern;
    if (!o->patterns || o->side != EB_SIDE_AUTO || o->dialect != EB_DIALECT_UNKNOWN || builtin_reads(data, len))
        return NULL;
    for (int i = 0; i < o->patterns->n; i++)
        if (eb_pattern_detect(&o->patterns->v[i], data, len))
            return &o->patterns->v[i];
    return NULL;
}

/* A log in a pattern file's dialect: the matcher's tests become segments
 * (the board's side: its intervals are the board's). */
static int parse_pattern(eb_parse_out *out, const char *name, const char *data, size_t len, const eb_pattern *p,
                         seg_list *segs, eb_error *err)
{
    eb_pattern_log pl;
    eb_pattern_parse_log(p, name, data, len, &pl);
    copy_str(out->meta.dialect, sizeof out->meta.dialect, p->name);
    /* the boot log, if the capture has one, still names the chip and the app */
    eb_board_detect det;
    eb_board_detect_init(&det);
    line_iter it = {data, data + len, 0};
    const char *line;
    size_t n;
    while (next_line(&it, &line, &n) && it.lineno <= 5000)
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
        seg *s = seg_new(segs, t->line);
        s->test = t->test;
        s->receiver = t->receiver;
        s->iv.v = t->iv; /* the segment takes the intervals */
        s->iv.n = s->iv.cap = t->n;
        t->iv = NULL;
        s->has_summary = t->has_summary;
        s->summary = t->summary;
        if (t->error[0])
            seg_set_error(s, "%s", t->error);
        with_data += s->iv.n > 0 || s->has_summary;
        if (!first_error && s->error)
            first_error = s->error;
    }
    int rc = 0, at = 0;
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

/* -------------------------------------------------------------- entries */

static double median_span(const eb_interval *iv, int n)
{
    if (n <= 0)
        return NAN;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        abort();
    for (int i = 0; i < n; i++)
        s[i] = iv[i].end_s - iv[i].start_s;
    for (int i = 1; i < n; i++) /* insertion sort: n is small */
        for (int j = i; j > 0 && s[j] < s[j - 1]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    double m = s[n / 2];
    free(s);
    return m;
}

/* The occurrence-th entry of a test, if its side's slot is still empty. */
static eb_entry *find_slot(eb_parse_out *out, int test, int occurrence, bool receiver)
{
    if (occurrence >= out->n_per_test[test]) /* the common case: a new entry */
        return NULL;
    int seen = 0;
    for (int i = 0; i < out->n_entries; i++) {
        eb_entry *e = &out->entries[i];
        if (e->test != test)
            continue;
        if (seen++ == occurrence) {
            bool free_slot = receiver ? e->n_receiver == 0 : e->n_sender == 0;
            return free_slot ? e : NULL;
        }
    }
    return NULL;
}

static void reserve_entries(eb_parse_out *out, int more)
{
    if (out->n_entries + more <= out->cap_entries)
        return;
    int cap = out->n_entries + more;
    eb_entry *p = realloc(out->entries, (size_t)cap * sizeof *p);
    if (!p)
        abort();
    out->entries = p;
    eb_interval *q = realloc(out->udp_reports, (size_t)cap * sizeof *q);
    if (!q)
        abort();
    out->udp_reports = q;
    out->cap_entries = cap;
}

static eb_entry *new_entry(eb_parse_out *out, int test, const eb_parse_opts *o)
{
    if (out->n_entries == out->cap_entries)
        reserve_entries(out, out->cap_entries ? out->cap_entries : 8);
    out->udp_reports[out->n_entries] = (eb_interval){.lost = -1, .total = -1, .jitter_ms = NAN};
    eb_entry *e = &out->entries[out->n_entries++];
    eb_entry_init(e);
    e->test = test;
    e->repeat = out->n_per_test[test]++;
    copy_str(e->tier, sizeof e->tier, o->tier ? o->tier : "unknown");
    e->warmup_s = o->warmup_s;
    return e;
}

/* A partial test (docs/run.md: never a figure): an error line ended it, or
 * the board's intervals cover less than the -t its log asked for (the rule
 * run applies, eb_intervals_cover; a PC log states no -t). Not ok, no
 * headline; the message names the error line (else the test's first line)
 * and the seconds covered. */
static void judge_partial(eb_parse_out *out, int idx, const seg *s, const char *name, bool board_side)
{
    eb_entry *e = &out->entries[idx];
    double req = board_side && s->time_s > 0 ? s->time_s : NAN;
    const char *side = s->receiver ? "receiver" : "sender";
    char why[160];
    bool covers = eb_intervals_cover(s->iv.v, s->iv.n, req, e->interval_s, side, e->test, why, sizeof why);
    if (strcmp(e->status, "ok") == 0 && board_side && (!covers || (s->cut && s->cut_ends && !(req > 0)))) {
        if (covers) /* no -t to measure against: the seconds the test ran */
            snprintf(why, sizeof why, "the %s reported %.1f s of %s", side,
                     s->iv.n > 0 ? s->iv.v[s->iv.n - 1].end_s : 0.0, eb_test_name(e->test));
        if (s->cut)
            eb_entry_set_error(e, "%s; %s", s->cut, why);
        else
            eb_entry_set_error(e, "%s:%ld: %s", name, s->line, why);
        copy_str(e->status, sizeof e->status, "failed");
    }
    if (strcmp(e->status, "ok") != 0)
        eb_entry_drop_headline(e);
}

static int add_segments(eb_parse_out *out, const char *name, seg_list *segs, const eb_parse_opts *o, bool board_side,
                        eb_error *err)
{
    int occurrences[EB_TEST_COUNT] = {0};
    int n_listed = 0;
    reserve_entries(out, segs->n); /* one allocation for a long log's entries, not a doubling series */
    for (int i = 0; i < segs->n; i++) {
        seg *s = &segs->v[i];
        if (s->iv.n == 0 && !s->has_summary && !s->error)
            continue;
        /* --test: the tests nothing in the log tells, in order (one name: all of them) */
        int given = s->test >= 0 && !s->guessed ? -1
                    : o->n_test_list > 0       ? (n_listed < o->n_test_list ? o->test_list[n_listed++] : -2)
                                               : o->test;
        if (given >= 0) {
            s->test = given;
            s->receiver = board_side ? test_board_receives(given) : !test_board_receives(given);
        }
        if (given == -2)
            return eb_fail(err, EB_ECONFIG,
                           "%s:%ld: interval lines with nothing to tell which test ran, and --test lists only %d "
                           "tests; name one per such test, in the log's order", name, s->line, o->n_test_list);
        if (s->test < 0)
            return eb_fail(err, EB_ECONFIG,
                           "%s:%ld: interval lines with nothing to tell which test ran (no mode= line, echoed iperf "
                           "command or socket role line); pass --test", name,
                           s->line);
        eb_entry *e = find_slot(out, s->test, occurrences[s->test], s->receiver);
        if (!e)
            e = new_entry(out, s->test, o);
        occurrences[s->test]++;
        /* The entry takes the segment's intervals: a long log's are not copied. */
        eb_interval *copy = s->iv.n > 0 ? s->iv.v : NULL;
        if (s->receiver) {
            e->receiver = copy;
            e->n_receiver = s->iv.n;
        } else {
            e->sender = copy;
            e->n_sender = s->iv.n;
        }
        double interval = o->interval_s > 0 ? o->interval_s : s->interval_s > 0 ? s->interval_s : NAN;
        if (isnan(interval) && isnan(e->interval_s))
            interval = median_span(s->iv.v, s->iv.n);
        if (!isnan(interval))
            e->interval_s = interval;
        double dur = s->time_s > 0 ? s->time_s
                     : s->has_summary ? s->summary.end_s - s->summary.start_s
                     : s->iv.n > 0 ? s->iv.v[s->iv.n - 1].end_s : NAN;
        if (isnan(e->duration_s) || (board_side && s->time_s > 0))
            e->duration_s = dur;
        if (board_side && s->has_summary && s->summary.mbps > 0)
            e->summary_mbps = s->summary.mbps;
        if (s->free_heap >= 0)
            e->free_heap = s->free_heap;
        if (s->min_free_heap >= 0)
            e->min_free_heap = s->min_free_heap;
        if (s->largest_block >= 0)
            e->largest_block = s->largest_block;
        if (s->error && (s->iv.n == 0 || !e->error_text)) {
            if (s->iv.n == 0 || strstr(s->error, "during the test"))
                copy_str(e->status, sizeof e->status, "failed");
            free(e->error_text); /* the entry takes the message */
            e->error_text = s->error;
            s->error = NULL;
        }
        int idx = (int)(e - out->entries);
        if (s->has_report && s->report.total > 0)
            out->udp_reports[idx] = s->report;
        else if (!board_side && s->receiver && s->has_summary && s->summary.total > 0)
            out->udp_reports[idx] = s->summary; /* the PC server's whole-test line (docs/results.md) */
        eb_entry_figures(e, &out->udp_reports[idx]);
        judge_partial(out, idx, s, name, board_side);
        if (copy)
            s->iv.v = NULL; /* the entry owns it now */
    }
    return 0;
}

/* ESP-Hosted's raw transport throughput report (hosted_raw_tp.c): the
 * host's "stats: A-B sec Tx:X Rx:Y kbps" lines give a raw_tx entry (host to
 * co-processor) and a raw_rx entry, each from its direction's first to last
 * interval with traffic. Returns the number of entries added. */
static int raw_tp_entries(eb_parse_out *out, const char *data, size_t len, const eb_parse_opts *o)
{
    eb_raw_tp_result *res = calloc(1, sizeof *res);
    if (!res)
        abort();
    eb_error ignored = {0};
    int made = 0;
    for (int d = 0; d < 2 && eb_raw_tp_parse(data, len, res, &ignored) == 0; d++) {
        int first = -1, last = -1;
        for (int i = 0; i < res->n; i++)
            if ((d ? res->iv[i].rx_mbps : res->iv[i].tx_mbps) > 0)
                last = i, first = first < 0 ? i : first;
        if (first < 0)
            continue;
        eb_entry *e = new_entry(out, d ? EB_TEST_RAW_RX : EB_TEST_RAW_TX, o);
        e->n_receiver = last - first + 1;
        e->receiver = calloc((size_t)e->n_receiver, sizeof *e->receiver);
        if (!e->receiver)
            abort();
        for (int i = first; i <= last; i++) {
            const eb_raw_tp_interval *r = &res->iv[i];
            double mbps = d ? r->rx_mbps : r->tx_mbps;
            e->receiver[i - first] = (eb_interval){r->start_s, r->end_s, mbps * 1e6 / 8 * (r->end_s - r->start_s),
                                                   mbps, NAN, -1, -1};
        }
        e->interval_s = o->interval_s > 0 ? o->interval_s : res->iv[first].end_s - res->iv[first].start_s;
        e->duration_s = res->iv[last].end_s - res->iv[first].start_s;
        eb_entry_figures(e, NULL);
        made++;
    }
    free(res);
    return made;
}

int eb_parse_log_buffer(eb_parse_out *out, const char *name, const char *data, size_t len, const eb_parse_opts *o,
                        eb_error *err)
{
    eb_parse_opts defaults;
    if (!o) {
        eb_parse_opts_init(&defaults);
        o = &defaults;
    }
    const eb_pattern *pat = pattern_for(data, len, o);
    int side = pat ? EB_SIDE_BOARD : o->side;
    /* An ESP-Hosted host's console may hold the raw throughput report, alone or beside iperf tests. */
    int n_raw = !pat && side != EB_SIDE_PC && o->test < 0 && memmem(data, len, " sec Tx:", 8)
                    ? raw_tp_entries(out, data, len, o)
                    : 0;
    if (side == EB_SIDE_AUTO) {
        side = detect_side(data, len);
        if (side == EB_SIDE_AUTO && n_raw == 0)
            return eb_fail(err, EB_ECONFIG,
                           "%s: neither a board console log nor iperf2 output (no interval, mode= or banner "
                           "lines); pass --side",
                           name);
    }
    seg_list segs = {0};
    int rc = 0;
    if (side != EB_SIDE_AUTO) {
        rc = pat                    ? parse_pattern(out, name, data, len, pat, &segs, err)
             : side == EB_SIDE_BOARD ? parse_board(out, name, data, len, o, &segs, err)
                                     : parse_pc(name, data, len, &segs, err);
        if (rc == 0)
            rc = add_segments(out, name, &segs, o, side == EB_SIDE_BOARD, err);
        if (rc == EB_ECONFIG && n_raw > 0) { /* the raw report and a boot log, no iperf test */
            eb_error_clear(err);
            rc = 0;
        }
    }
    seg_list_free(&segs);
    if (rc == 0) {
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
    return rc;
}

#define LOG_MAX_BYTES (256u << 20)

int eb_parse_log_file(eb_parse_out *out, const char *path, const eb_parse_opts *o, eb_error *err)
{
    eb_buf b;
    eb_buf_init(&b);
    int rc = eb_file_read(path, LOG_MAX_BYTES, "not a console or iperf log? (split a longer one)", &b, err);
    if (!rc)
        rc = eb_parse_log_buffer(out, path, b.data ? (const char *)b.data : "", b.len, o, err);
    eb_buf_free(&b);
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
