/* iperf2 output parser: a hand-written scanner per line shape (human data
 * line, CSV row, banner, id-prefixed status lines) and a collector that turns
 * a run's lines into intervals, a final line and a status. Formats are in
 * ../shared/reference/iperf2.md; see iperf_parse.h for what is accepted. */
#include "espbench/formats/iperf_parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/line_scan.h"

/* ---------------------------------------------------------------- units */

/* Unit prefixes of byte_snprintf: none, K, M, G, T, P. */
static int unit_power(char c)
{
    switch (c) {
    case 'K': case 'k': return 1;
    case 'M': case 'm': return 2;
    case 'G': case 'g': return 3;
    case 'T': case 't': return 4;
    case 'P': case 'p': return 5;
    default: return -1;
    }
}

static double ipow(double base, int k)
{
    double v = 1.0;
    while (k-- > 0)
        v *= base;
    return v;
}

/* "Bytes", "KBytes", ... (transfer, always 1024-based). Sets *power. */
static bool scan_byte_unit(const char **p, const char *e, int *power)
{
    const char *q = *p;
    int k = 0;
    if (q < e && *q != 'B') {
        k = unit_power(*q);
        if (k < 0)
            return false;
        q++;
    }
    if (!ls_lit(&q, e, "Bytes"))
        return false;
    *power = k;
    *p = q;
    return true;
}

/* "bits/sec" (1000-based) or "Bytes/sec" (1024-based, x8). Returns bit/s per unit. */
static bool scan_rate_unit(const char **p, const char *e, double *bits_per_unit)
{
    const char *q = *p;
    int k = 0;
    if (q < e && *q != 'b' && *q != 'B') {
        k = unit_power(*q);
        if (k < 0)
            return false;
        q++;
    }
    if (ls_lit(&q, e, "bits/sec"))
        *bits_per_unit = ipow(1000.0, k);
    else if (ls_lit(&q, e, "Bytes/sec"))
        *bits_per_unit = ipow(1024.0, k) * 8.0;
    else
        return false;
    *p = q;
    return true;
}

/* "0.0000-1.0000", "0.00-1.00", " 0.0- 1.0", "0.0-10.0" */
static bool scan_interval(const char **p, const char *e, double *start, double *end)
{
    const char *q = *p;
    ls_skip_ws(&q, e);
    if (!ls_num(&q, e, start))
        return false;
    ls_skip_ws(&q, e);
    if (q >= e || *q != '-')
        return false;
    q++;
    ls_skip_ws(&q, e);
    if (!ls_num(&q, e, end))
        return false;
    *p = q;
    return true;
}

/* ------------------------------------------------------- error phrases */

static const struct {
    const char *needle;
    int kind;
    int error;
} error_phrases[] = {
    {"connect failed", EB_IPL_ERROR, EB_IPERR_CONNECT},
    {": Unknown host", EB_IPL_ERROR, EB_IPERR_UNKNOWN_HOST},
    {"bind failed", EB_IPL_ERROR, EB_IPERR_BIND},
    {"did not receive ack of last datagram", EB_IPL_WARNING, EB_IPERR_NO_ACK},
    {"read failed", EB_IPL_WARNING, EB_IPERR_READ},
    {"WARNING", EB_IPL_WARNING, EB_IPERR_OTHER_WARNING},
    {"WARN:", EB_IPL_WARNING, EB_IPERR_OTHER_WARNING},
};

/* Phrases that must start the line. */
static const struct {
    const char *prefix;
    int error;
} error_prefixes[] = {
    {"ERROR:", EB_IPERR_OPTION},
    {"Invalid value", EB_IPERR_OPTION},
    {"Usage: iperf", EB_IPERR_OPTION},
    {"usage: iperf", EB_IPERR_OPTION},
    {"iperf3: error - unable to connect", EB_IPERR_CONNECT},
    {"iperf3: error - ", EB_IPERR_OTHER},
};

static bool classify_error(const char *p, const char *e, eb_iperf_line *out)
{
    for (size_t i = 0; i < sizeof error_prefixes / sizeof error_prefixes[0]; i++)
        if (ls_starts(p, e, error_prefixes[i].prefix)) {
            out->kind = EB_IPL_ERROR;
            out->error = error_prefixes[i].error;
            out->iperf3 = error_prefixes[i].prefix[5] == '3'; /* "iperf3: error - ..." */
            return true;
        }
    /* 2.2.x: "tcp connect to HOST port N failed (Connection refused) on ..." */
    if (ls_starts(p, e, "tcp connect to ") && ls_find(p, e, " failed")) {
        out->kind = EB_IPL_ERROR;
        out->error = EB_IPERR_CONNECT;
        return true;
    }
    for (size_t i = 0; i < sizeof error_phrases / sizeof error_phrases[0]; i++)
        if (ls_find(p, e, error_phrases[i].needle)) {
            out->kind = error_phrases[i].kind;
            out->error = error_phrases[i].error;
            return true;
        }
    return false;
}

/* ------------------------------------------------------------ id token */

/* "[  1]", "[ *1]", "[*12]", "[SUM]", "[SUM-3]", "[FD1]", "[key(1)]", "[key(*1)]".
 * Returns false for header tokens ("[ ID]", "[SUM-cnt]") and anything else. */
static bool scan_id(const char **p, const char *e, eb_iperf_line *out)
{
    const char *q = *p;
    if (q >= e || *q != '[')
        return false;
    const char *close = memchr(q, ']', (size_t)(e - q));
    if (!close)
        return false;
    const char *in = q + 1;
    const char *paren = memchr(in, '(', (size_t)(close - in));
    if (paren) /* --permit-key: key(1) */
        in = paren + 1;
    if (ls_starts(in, close, "SUM") || ls_starts(in, close, "FD")) {
        const char *r = in + (in[0] == 'S' ? 3 : 2);
        if (r < close && *r == '-')
            r++;
        uint64_t n;
        if (r < close && *r != ')' && !ls_u64(&r, close, &n))
            return false; /* "[SUM-cnt]" header */
        out->sum = true;
        out->id = 0;
    } else {
        const char *r = in;
        ls_skip_ws(&r, close);
        if (r < close && *r == '*') {
            out->reverse = true;
            r++;
        }
        uint64_t n;
        if (!ls_u64(&r, close, &n) || n > 1000000)
            return false;
        out->id = (int)n;
    }
    *p = close + 1;
    return true;
}

/* -------------------------------------------------------- line shapes */

/* After the id: "0.0000-1.0000 sec  1.25 MBytes  10.5 Mbits/sec [  0.002 ms 0/893 (0%)] [...]" */
static bool scan_human_data(const char *q, const char *e, eb_iperf_line *out)
{
    double start, end;
    if (!scan_interval(&q, e, &start, &end))
        return false;
    ls_skip_ws(&q, e);
    if (!ls_lit(&q, e, "sec"))
        return false;
    ls_skip_ws(&q, e);
    double xfer;
    if (!ls_num(&q, e, &xfer))
        return false;
    ls_skip_ws(&q, e);
    if (ls_starts(q, e, "datagrams")) {
        out->kind = EB_IPL_OUT_OF_ORDER;
        out->iv.start_s = start;
        out->iv.end_s = end;
        out->count = xfer >= 0 && xfer < 9e18 ? (int64_t)xfer : -1;
        return true;
    }
    int bpow;
    if (!scan_byte_unit(&q, e, &bpow))
        return false;
    ls_skip_ws(&q, e);
    double rate, per_unit;
    if (!ls_num(&q, e, &rate))
        return false;
    ls_skip_ws(&q, e);
    if (!scan_rate_unit(&q, e, &per_unit))
        return false;
    out->kind = EB_IPL_DATA;
    out->iv.start_s = start;
    out->iv.end_s = end;
    out->iv.bytes = xfer * ipow(1024.0, bpow);
    out->bytes_exact = bpow == 0;
    out->iv.mbps = rate * per_unit / 1e6;
    if (per_unit == 1.0 && rate == floor(rate) && rate >= 0 && rate < 9e18)
        out->bits_per_s = (int64_t)rate;

    /* UDP receiver columns: "0.002 ms 0/893 (0%)"; the SUM line has only "1/855 (0.12%)";
     * 2.0.x prints "0/  893". Enhanced TCP "17623/0  20 ..." has no "(pct%)" and is not loss. */
    const char *r = q;
    ls_skip_ws(&r, e);
    double jitter = NAN, v;
    const char *s = r;
    if (ls_num(&s, e, &v)) {
        const char *t = s;
        ls_skip_ws(&t, e);
        if (ls_lit(&t, e, "ms")) {
            jitter = v;
            r = t;
            ls_skip_ws(&r, e);
        }
    }
    int64_t lost, total;
    s = r;
    if (ls_i64(&s, e, &lost) && s < e && *s == '/') {
        s++;
        ls_skip_ws(&s, e);
        if (ls_i64(&s, e, &total)) {
            ls_skip_ws(&s, e);
            if (s < e && *s == '(') {
                out->iv.lost = (long)lost;
                out->iv.total = (long)total;
                out->iv.jitter_ms = jitter;
                out->udp = true;
            }
        }
    }
    return true;
}

/* Splits the next comma-separated field. */
static bool csv_field(const char **p, const char *e, const char **fs, const char **fe)
{
    if (*p > e)
        return false;
    const char *c = memchr(*p, ',', (size_t)(e - *p));
    *fs = *p;
    *fe = c ? c : e;
    *p = c ? c + 1 : e + 1;
    return true;
}

static bool field_i64(const char *fs, const char *fe, int64_t *v)
{
    return ls_i64(&fs, fe, v) && fs == fe;
}

static bool field_num(const char *fs, const char *fe, double *v)
{
    return ls_num(&fs, fe, v) && fs == fe;
}

/* ts,cip,cport,sip,sport,id,a-b,bytes,bps[,jitter,lost,total,pct,ooo[,...]] */
static bool scan_csv(const char *p, const char *e, eb_iperf_line *out)
{
    const char *f[15][2];
    int n = 0;
    const char *q = p;
    while (n < 15 && q <= e && csv_field(&q, e, &f[n][0], &f[n][1]))
        n++;
    if (n < 9)
        return false;
    int64_t id, bytes, bps;
    if (!field_i64(f[5][0], f[5][1], &id) || !field_i64(f[7][0], f[7][1], &bytes) ||
        !field_i64(f[8][0], f[8][1], &bps))
        return false;
    const char *iv = f[6][0];
    double start, end;
    if (!scan_interval(&iv, f[6][1], &start, &end) || iv != f[6][1])
        return false;
    out->kind = EB_IPL_DATA;
    out->csv = true;
    out->bytes_exact = true;
    out->id = id < 0 ? 0 : (int)id;
    out->sum = id < 0; /* 2.0.x sum rows */
    out->iv.start_s = start;
    out->iv.end_s = end;
    out->iv.bytes = (double)bytes;
    out->bits_per_s = bps;
    out->iv.mbps = (double)bps / 1e6;
    if (n >= 14) {
        double jitter;
        int64_t lost, total, ooo;
        if (field_num(f[9][0], f[9][1], &jitter) && field_i64(f[10][0], f[10][1], &lost) &&
            field_i64(f[11][0], f[11][1], &total) && field_i64(f[13][0], f[13][1], &ooo)) {
            out->udp = true;
            out->count = ooo;
            if (total >= 0) { /* the client's final row says -1: it knows no loss */
                out->iv.jitter_ms = jitter;
                out->iv.lost = (long)lost;
                out->iv.total = (long)total;
            }
        }
    }
    return true;
}

/* iperf3: "Connecting to host H, port N", "Server listening on N (test #1)" */
static bool scan_iperf3_banner(const char *p, const char *e, eb_iperf_line *out)
{
    const char *q = p;
    if (ls_lit(&q, e, "Connecting to host ")) {
        const char *port = ls_find(q, e, ", port ");
        if (!port)
            return false;
        q = port + 7;
        out->kind = EB_IPL_CLIENT_BANNER;
    } else if (ls_lit(&q, e, "Server listening on ") && q < e && ls_is_digit(*q)) {
        out->kind = EB_IPL_SERVER_BANNER;
    } else {
        return false;
    }
    uint64_t port;
    if (ls_u64(&q, e, &port) && port < 65536)
        out->port = (int)port;
    out->iperf3 = true;
    return true;
}

/* "Server listening on UDP port 15306[ with pid N]" / "Client connecting to H, TCP port 15301" */
static bool scan_banner(const char *p, const char *e, eb_iperf_line *out)
{
    const char *q = p;
    int kind;
    if (scan_iperf3_banner(p, e, out))
        return true;
    if (ls_lit(&q, e, "Server listening on ")) {
        kind = EB_IPL_SERVER_BANNER;
    } else if (ls_lit(&q, e, "Client connecting to ")) {
        kind = EB_IPL_CLIENT_BANNER;
        const char *comma = ls_find(q, e, ", ");
        if (!comma)
            return false;
        q = comma + 2;
    } else {
        return false;
    }
    if (ls_lit(&q, e, "UDP"))
        out->udp = true;
    else if (!ls_lit(&q, e, "TCP"))
        return false;
    if (!ls_lit(&q, e, " port "))
        return false;
    uint64_t port;
    if (ls_u64(&q, e, &port) && port < 65536)
        out->port = (int)port;
    out->kind = kind;
    return true;
}

void eb_iperf_parse_line(const char *line, size_t len, eb_iperf_line *out)
{
    out->kind = EB_IPL_NONE;
    out->id = -1;
    out->sum = out->reverse = out->csv = out->udp = out->bytes_exact = false;
    out->port = 0;
    out->iv.start_s = out->iv.end_s = out->iv.bytes = out->iv.mbps = 0;
    out->iv.jitter_ms = NAN;
    out->iv.lost = out->iv.total = -1;
    out->bits_per_s = -1;
    out->count = -1;
    out->error = EB_IPERR_NONE;
    out->iperf3 = false;
    out->end_word = 0;

    const char *p = line, *e = line + len;
    ls_rtrim(p, &e);
    ls_skip_ws(&p, e);
    if (p >= e)
        return;

    if (*p == '[') {
        const char *q = p;
        if (!scan_id(&q, e, out)) {
            if (ls_find(p, e, "Interval"))
                out->kind = EB_IPL_HEADER;
            return;
        }
        ls_skip_ws(&q, e);
        if (q < e && ls_is_digit(*q)) {
            if (scan_human_data(q, e, out)) {
                /* iperf3's summary rows end with the end that measured them */
                size_t n = (size_t)(e - q);
                if (n > 9 && memcmp(e - 9, " receiver", 9) == 0)
                    out->end_word = 2;
                else if (n > 7 && memcmp(e - 7, " sender", 7) == 0)
                    out->end_word = 1;
                return;
            }
            out->kind = EB_IPL_NONE;
            return;
        }
        uint64_t n;
        if (ls_lit(&q, e, "local ")) {
            out->kind = EB_IPL_CONNECTED;
        } else if (ls_lit(&q, e, "Sent ") && ls_u64(&q, e, &n) && ls_lit(&q, e, " datagrams")) {
            out->kind = EB_IPL_SENT;
            out->count = (int64_t)n;
        } else if (ls_starts(q, e, "Server Report:")) {
            out->kind = EB_IPL_SERVER_REPORT;
        } else if (!classify_error(q, e, out)) {
            out->kind = EB_IPL_NONE;
        }
        return;
    }
    if (ls_is_digit(*p) && memchr(p, ',', (size_t)(e - p))) {
        if (scan_csv(p, e, out))
            return;
        out->kind = EB_IPL_NONE;
    }
    if (ls_starts(p, e, "(null)")) {
        out->kind = EB_IPL_CONNECTED;
        out->error = EB_IPERR_NULL_ID;
        return;
    }
    if ((*p == 'S' || *p == 'C') && scan_banner(p, e, out))
        return;
    if (*p == 'W' && ls_starts(p, e, "Waiting for server threads to complete")) {
        out->kind = EB_IPL_INTERRUPTED;
        return;
    }
    if (*p == 'R' && ls_starts(p, e, "Reverse mode, remote host ")) {
        out->kind = EB_IPL_REVERSE_MODE;
        return;
    }
    classify_error(p, e, out);
}

/* ----------------------------------------------------------- collector */

void eb_iperf_run_init(eb_iperf_run *r)
{
    memset(r, 0, sizeof *r);
    r->sent_datagrams = -1;
    r->final.jitter_ms = r->server_report.jitter_ms = NAN;
    r->final.lost = r->final.total = r->server_report.lost = r->server_report.total = -1;
}

void eb_iperf_run_free(eb_iperf_run *r)
{
    free(r->samples);
    free(r->intervals);
    memset(r, 0, sizeof *r);
}

static void set_error(eb_iperf_run *r, int error, const char *line, size_t len)
{
    if (r->error != EB_IPERR_NONE && r->error != EB_IPERR_NULL_ID)
        return;
    const char *p = line, *e = line + len;
    ls_rtrim(p, &e);
    ls_skip_ws(&p, e);
    char text[200];
    ls_copy(text, sizeof text, p, e);
    r->error = error;
    r->error_line = r->lineno;
    snprintf(r->message, sizeof r->message, "iperf output line %ld: %s", r->lineno, text);
}

/* Per-stream state; a bounded table (a run has a handful of streams; past
 * the bound the least recently added slot is reused). */
static eb_iperf_stream *stream_state(eb_iperf_run *r, int id, bool sum, bool reverse)
{
    int n = (int)(sizeof r->streams / sizeof r->streams[0]);
    for (int i = 0; i < r->n_streams_state && i < n; i++) {
        eb_iperf_stream *st = &r->streams[i];
        if (st->id == id && st->sum == sum && st->reverse == reverse)
            return st;
    }
    eb_iperf_stream *st = &r->streams[r->n_streams_state % n];
    r->n_streams_state++;
    memset(st, 0, sizeof *st);
    st->id = id;
    st->sum = sum;
    st->reverse = reverse;
    return st;
}

static void add_sample(eb_iperf_run *r, const eb_iperf_line *l)
{
    if (r->n_samples == r->cap_samples) {
        int cap = r->cap_samples ? r->cap_samples * 2 : 64;
        eb_iperf_sample *s = realloc(r->samples, (size_t)cap * sizeof *s);
        if (!s)
            abort();
        r->samples = s;
        r->cap_samples = cap;
    }
    eb_iperf_sample *s = &r->samples[r->n_samples++];
    s->id = l->id;
    s->sum = l->sum;
    s->reverse = l->reverse;
    s->csv = l->csv;
    s->bytes_exact = l->bytes_exact;
    s->line = r->lineno;
    s->iv = l->iv;
    s->final = false;
    s->server_report = false;

    /* A Server Report header was printed for this id: this is the receiver's final. */
    for (int i = 0; i < r->n_report_pending; i++)
        if (r->report_pending[i] == l->id && !l->sum) {
            s->server_report = true;
            r->report_pending[i] = r->report_pending[--r->n_report_pending];
            return;
        }

    /* The whole-test line restarts at 0 and reaches at least as far as the
     * stream's previous line (a test shorter than -i prints the same line
     * twice: the partial interval, then the final). */
    eb_iperf_stream *st = stream_state(r, s->id, s->sum, s->reverse);
    if (s->iv.start_s < 1e-6 && st->n > 0 && !st->last_final && s->iv.end_s >= st->last_end - 1e-3)
        s->final = true;
    st->n++;
    st->last_end = s->iv.end_s;
    st->last_final = s->final;
    if (!l->sum) {
        int key = l->reverse ? -l->id - 1 : l->id;
        bool known = false;
        for (int i = 0; i < r->n_stream_ids; i++)
            known |= r->stream_ids[i] == key;
        if (!known && r->n_stream_ids < (int)(sizeof r->stream_ids / sizeof r->stream_ids[0]))
            r->stream_ids[r->n_stream_ids++] = key;
    }
}

static void add_into(eb_interval *x, const eb_interval *y);

void eb_iperf_feed_line(eb_iperf_run *r, const char *line, size_t len)
{
    eb_iperf_line l;
    r->lineno++;
    eb_iperf_parse_line(line, len, &l);
    switch (l.kind) {
    case EB_IPL_SERVER_BANNER:
    case EB_IPL_CLIENT_BANNER:
        r->role = l.kind == EB_IPL_SERVER_BANNER ? EB_IPERF_ROLE_SERVER : EB_IPERF_ROLE_CLIENT;
        r->proto = l.udp ? EB_IPERF_PROTO_UDP : EB_IPERF_PROTO_TCP; /* iperf3: TCP until a line says UDP */
        r->port = l.port;
        r->iperf3 = l.iperf3;
        break;
    case EB_IPL_REVERSE_MODE:
        r->reverse_mode = true;
        break;
    case EB_IPL_CONNECTED:
        if (l.error == EB_IPERR_NULL_ID)
            set_error(r, l.error, line, len);
        break;
    case EB_IPL_INTERRUPTED:
        r->interrupted = true;
        break;
    case EB_IPL_DATA:
        if (r->interrupted && l.iv.start_s > 1e-6)
            break; /* a period flushed by SIGINT: it did not run the time it claims */
        if (l.csv)
            r->csv = true;
        if (l.udp)
            r->proto = EB_IPERF_PROTO_UDP;
        if (r->iperf3 && l.end_word) { /* a summary row, not an interval */
            int w = l.end_word - 1, k = l.sum ? 1 : 0;
            if (!r->i3_has[w][k])
                r->i3_rows[w][k] = l.iv;
            else
                add_into(&r->i3_rows[w][k], &l.iv);
            r->i3_has[w][k] = true;
            break;
        }
        add_sample(r, &l);
        break;
    case EB_IPL_SENT:
        if (r->role == EB_IPERF_ROLE_UNKNOWN)
            r->role = EB_IPERF_ROLE_CLIENT;
        r->proto = EB_IPERF_PROTO_UDP;
        if (!l.sum)
            r->sent_datagrams = (r->sent_datagrams < 0 ? 0 : r->sent_datagrams) + l.count;
        break;
    case EB_IPL_SERVER_REPORT:
        r->proto = EB_IPERF_PROTO_UDP;
        if (r->n_report_pending < (int)(sizeof r->report_pending / sizeof r->report_pending[0]))
            r->report_pending[r->n_report_pending++] = l.id;
        break;
    case EB_IPL_OUT_OF_ORDER:
        r->out_of_order += l.count;
        break;
    case EB_IPL_ERROR:
        set_error(r, l.error, line, len);
        break;
    case EB_IPL_WARNING:
        if (l.error == EB_IPERR_NO_ACK)
            r->no_ack = true;
        else if (l.error == EB_IPERR_READ)
            r->n_read_failed++;
        break;
    default:
        break;
    }
}

void eb_iperf_feed(eb_iperf_run *r, const void *data, size_t len)
{
    const char *p = data, *e = p + len;
    while (p < e) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        const char *end = nl ? nl : e;
        if (r->partial_len == 0 && nl) {
            eb_iperf_feed_line(r, p, (size_t)(end - p)); /* the common case: no copy */
        } else {
            size_t n = (size_t)(end - p);
            if (r->partial_len + n >= sizeof r->partial) {
                n = sizeof r->partial - 1 - r->partial_len;
                r->partial_overflow = true; /* an overlong line is truncated, never a data line */
            }
            memcpy(r->partial + r->partial_len, p, n);
            r->partial_len += n;
            if (nl) {
                eb_iperf_feed_line(r, r->partial, r->partial_len);
                r->partial_len = 0;
                r->partial_overflow = false;
            }
        }
        p = nl ? nl + 1 : e;
    }
}

/* Orders group samples by period, then by input order. */
static int cmp_interval(const void *a, const void *b)
{
    const eb_interval *x = a, *y = b;
    if (x->start_s != y->start_s)
        return x->start_s < y->start_s ? -1 : 1;
    if (x->end_s != y->end_s)
        return x->end_s < y->end_s ? -1 : 1;
    return 0;
}

/* Adds y into the running sum x (several streams of one period). */
static void add_into(eb_interval *x, const eb_interval *y)
{
    x->bytes += y->bytes;
    x->mbps += y->mbps;
    if (y->end_s > x->end_s)
        x->end_s = y->end_s;
    if (y->total >= 0) {
        x->lost = (x->lost < 0 ? 0 : x->lost) + y->lost;
        x->total = (x->total < 0 ? 0 : x->total) + y->total;
    }
    if (!isnan(y->jitter_ms) && (isnan(x->jitter_ms) || y->jitter_ms > x->jitter_ms))
        x->jitter_ms = y->jitter_ms;
}

static void push_interval(eb_iperf_run *r, const eb_interval *iv)
{
    if (r->n_intervals == r->cap_intervals) {
        int cap = r->cap_intervals ? r->cap_intervals * 2 : 32;
        eb_interval *p = realloc(r->intervals, (size_t)cap * sizeof *p);
        if (!p)
            abort();
        r->intervals = p;
        r->cap_intervals = cap;
    }
    r->intervals[r->n_intervals++] = *iv;
}

/* iperf3's summary rows: this end's is the whole-test line; the far
 * receiver's stands where iperf2 prints a Server Report (a UDP client's
 * loss). A client sends unless -R; a server sent when its rows say
 * "sender". */
static void iperf3_summary(eb_iperf_run *r)
{
    bool has[2] = {r->i3_has[0][0] || r->i3_has[0][1], r->i3_has[1][0] || r->i3_has[1][1]};
    int own = r->role == EB_IPERF_ROLE_CLIENT ? (r->reverse_mode ? 1 : 0) : (has[1] || !has[0] ? 1 : 0);
    r->pc_sends = own == 0;
    for (int w = 0; w < 2; w++) {
        if (!has[w] || (w != own && w == 0))
            continue; /* the far sender's row says nothing about what arrived */
        const eb_interval *row = r->i3_has[w][1] ? &r->i3_rows[w][1] : &r->i3_rows[w][0];
        if (w == own) {
            r->final = *row;
            r->has_final = true;
        } else {
            r->server_report = *row;
            r->has_server_report = true;
        }
    }
}

/* Datagram counts of one report period added up over the streams. */
typedef struct count_acc {
    double start, end;
    long lost, total;
    bool any;
} count_acc;

static void acc_add(count_acc *a, const eb_interval *iv, bool same_period_only)
{
    if (iv->total < 0)
        return;
    bool same = a->any && fabs(a->start - iv->start_s) < 1e-3 && fabs(a->end - iv->end_s) < 1e-3;
    if (same_period_only && !same) {
        *a = (count_acc){iv->start_s, iv->end_s, 0, 0, false};
    }
    a->start = iv->start_s;
    a->end = iv->end_s;
    a->lost += iv->lost;
    a->total += iv->total;
    a->any = true;
}

/* A [SUM] row without Lost/Total (iperf 2.0.x UDP servers print none with
 * -P) takes the streams' counts of the same period, printed before it. */
static void acc_fill(eb_interval *sum, const count_acc *a, bool match_period)
{
    if (sum->total >= 0 || !a->any)
        return;
    if (match_period && (fabs(a->start - sum->start_s) >= 1e-3 || fabs(a->end - sum->end_s) >= 1e-3))
        return;
    sum->lost = a->lost;
    sum->total = a->total;
}

/* The intervals and the final line of the chosen group of samples. */
static void collect_group(eb_iperf_run *r, bool use_reverse, bool use_sum, const bool *last_final)
{
    count_acc period = {0}, finals = {0};
    for (int i = 0; i < r->n_samples; i++) {
        const eb_iperf_sample *s = &r->samples[i];
        if (s->server_report || s->reverse != use_reverse)
            continue;
        if (use_sum && !s->sum) { /* the streams' counts, for [SUM] rows that lack them */
            if (!s->final)
                acc_add(&period, &s->iv, true);
            else if (last_final[i])
                acc_add(&finals, &s->iv, false);
        }
        if (s->sum != use_sum)
            continue;
        if (!s->final) {
            push_interval(r, &s->iv);
            if (use_sum)
                acc_fill(&r->intervals[r->n_intervals - 1], &period, true);
            continue;
        }
        /* the last final per stream wins (marked above); several streams add up */
        if (!last_final[i])
            continue;
        if (!r->has_final) {
            r->final = s->iv;
            r->has_final = true;
        } else {
            add_into(&r->final, &s->iv);
        }
    }
    if (use_sum && r->has_final)
        acc_fill(&r->final, &finals, false);
}

void eb_iperf_finish(eb_iperf_run *r)
{
    if (r->partial_len) {
        eb_iperf_feed_line(r, r->partial, r->partial_len);
        r->partial_len = 0;
    }
    r->n_intervals = 0;
    r->has_final = r->has_server_report = false;

    bool any_forward = false, any_sum = false;
    int n_forward = 0, n_reverse = 0;
    for (int i = 0; i < r->n_stream_ids; i++) {
        if (r->stream_ids[i] >= 0)
            n_forward++;
        else
            n_reverse++;
    }
    for (int i = 0; i < r->n_samples; i++) {
        const eb_iperf_sample *s = &r->samples[i];
        if (s->server_report)
            continue;
        any_forward |= !s->reverse;
    }
    bool use_reverse = !any_forward;
    r->n_streams = use_reverse ? n_reverse : n_forward;
    for (int i = 0; i < r->n_samples; i++)
        if (!r->samples[i].server_report && r->samples[i].reverse == use_reverse && r->samples[i].sum)
            any_sum = true;
    bool use_sum = any_sum && r->n_streams != 1;

    /* the last final line of each stream: one backward pass */
    bool *last_final = calloc((size_t)r->n_samples + 1, sizeof *last_final);
    if (!last_final)
        abort();
    {
        struct { int id; bool sum, reverse; } seen[64];
        int n_seen = 0;
        for (int i = r->n_samples - 1; i >= 0; i--) {
            const eb_iperf_sample *s = &r->samples[i];
            if (!s->final || s->server_report)
                continue;
            bool dup = false;
            for (int j = 0; j < n_seen && !dup; j++)
                dup = seen[j].id == s->id && seen[j].sum == s->sum && seen[j].reverse == s->reverse;
            if (dup)
                continue;
            last_final[i] = true;
            if (n_seen < 64) {
                seen[n_seen].id = s->id;
                seen[n_seen].sum = s->sum;
                seen[n_seen].reverse = s->reverse;
                n_seen++;
            }
        }
    }
    collect_group(r, use_reverse, use_sum, last_final);
    free(last_final);
    if (r->n_intervals > 1) {
        qsort(r->intervals, (size_t)r->n_intervals, sizeof *r->intervals, cmp_interval);
        if (!use_sum && r->n_streams > 1) { /* CSV -P: add up the streams of each period */
            int w = 0;
            for (int i = 0; i < r->n_intervals; i++) {
                if (w > 0 && fabs(r->intervals[w - 1].start_s - r->intervals[i].start_s) < 1e-3 &&
                    fabs(r->intervals[w - 1].end_s - r->intervals[i].end_s) < 1e-3)
                    add_into(&r->intervals[w - 1], &r->intervals[i]);
                else
                    r->intervals[w++] = r->intervals[i];
            }
            r->n_intervals = w;
        }
    }
    for (int i = 0; i < r->n_samples; i++) {
        const eb_iperf_sample *s = &r->samples[i];
        if (!s->server_report)
            continue;
        if (!r->has_server_report) {
            r->server_report = s->iv;
            r->has_server_report = true;
        } else {
            add_into(&r->server_report, &s->iv);
        }
    }

    if (r->iperf3)
        iperf3_summary(r);

    if (r->n_samples > 0) {
        r->status = EB_IPERF_OK;
    } else if (r->error != EB_IPERR_NONE) {
        r->status = EB_IPERF_FAILED;
    } else {
        r->status = EB_IPERF_NO_DATA;
        snprintf(r->message, sizeof r->message, "no interval lines in iperf output (%ld lines)", r->lineno);
    }
}

/* ------------------------------------------------------------ version */

int eb_iperf_version_parse(const char *text, size_t len, eb_iperf_version *out, eb_error *err)
{
    memset(out, 0, sizeof *out);
    const char *p = text, *e = text + len;
    const char *v = ls_find(p, e, "iperf version ");
    if (v) {
        const char *eol = memchr(v, '\n', (size_t)(e - v));
        const char *le = eol ? eol : e;
        ls_rtrim(v, &le);
        ls_copy(out->text, sizeof out->text, v, le);
        const char *q = v + strlen("iperf version ");
        uint64_t a = 0, b = 0, c = 0;
        if (!ls_u64(&q, le, &a) || !ls_lit(&q, le, ".") || !ls_u64(&q, le, &b))
            return eb_fail(err, EB_ECONFIG, "cannot read the iperf version from '%s'", out->text);
        if (ls_lit(&q, le, "."))
            ls_u64(&q, le, &c);
        out->major = (int)a;
        out->minor = (int)b;
        out->patch = (int)c;
        if (a != 2)
            return eb_fail(err, EB_ECONFIG, "'%s' is not iperf2; install iperf 2.x (Debian package 'iperf')",
                           out->text);
        if (b == 0 && c < 5)
            return eb_fail(err, EB_ECONFIG, "%s is too old; install iperf 2.0.5 or later (2.1.x recommended)",
                           out->text);
        return 0;
    }
    /* iperf3 -v: "iperf 3.12 (cJSON 1.7.15)" */
    const char *v3 = ls_find(p, e, "iperf 3");
    if (v3) {
        const char *eol = memchr(v3, '\n', (size_t)(e - v3));
        const char *le = eol ? eol : e;
        ls_rtrim(v3, &le);
        ls_copy(out->text, sizeof out->text, v3, le);
        out->major = 3;
        return eb_fail(err, EB_ECONFIG,
                       "found %s, but the boards speak iperf2, which iperf3 cannot talk to; "
                       "install iperf 2.x (Debian package 'iperf') or name it with --iperf",
                       out->text);
    }
    const char *le = memchr(p, '\n', len);
    if (!le)
        le = e;
    ls_rtrim(p, &le);
    char first[64];
    ls_copy(first, sizeof first, p, le);
    return eb_fail(err, EB_ECONFIG, "not iperf version output: '%s'; install iperf 2.x", first);
}
