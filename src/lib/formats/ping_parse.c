/* ping output parser (ping_parse.h). Formats are those of iputils-ping
 * (ping/ping_common.c: "%d bytes from ...: icmp_seq=%u ttl=%d time=%.3f ms",
 * "%ld packets transmitted, %ld received, ... %g%% packet loss",
 * "rtt min/avg/max/mdev = %ld.%03ld/.../... ms") and BusyBox ping
 * ("round-trip min/avg/max = a/b/c ms"), which embedded Linux PCs carry. */
#include "espbench/formats/ping_parse.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *find_in(const char *p, const char *e, const char *needle)
{
    size_t n = strlen(needle);
    for (; p + n <= e; p++)
        if (memcmp(p, needle, n) == 0)
            return p;
    return NULL;
}

/* strtod bounded to [p, e): copies at most 63 bytes into a terminated buffer. */
static bool scan_num(const char **p, const char *e, double *v)
{
    char tmp[64];
    size_t n = (size_t)(e - *p) < sizeof tmp - 1 ? (size_t)(e - *p) : sizeof tmp - 1;
    memcpy(tmp, *p, n);
    tmp[n] = '\0';
    char *end;
    *v = strtod(tmp, &end);
    if (end == tmp || !isfinite(*v))
        return false;
    *p += end - tmp;
    return true;
}

static void parse_reply(const char *p, const char *e, eb_ping_result *out)
{
    const char *t = find_in(p, e, " time=");
    if (!t || !find_in(p, e, "bytes from"))
        return;
    if (find_in(p, e, "(DUP!)")) {
        out->duplicates++;
        return;
    }
    t += 6;
    double ms;
    if (scan_num(&t, e, &ms) && ms >= 0 && out->n_rtt < EB_PING_MAX_REPLIES)
        out->rtt_ms[out->n_rtt++] = ms;
}

static bool parse_counts(const char *p, const char *e, eb_ping_result *out)
{
    double tx, rx;
    const char *q = p;
    if (!scan_num(&q, e, &tx) || !(q = find_in(q, e, "transmitted, ")))
        return false;
    q += strlen("transmitted, ");
    if (!scan_num(&q, e, &rx) || tx < 0 || rx < 0 || tx > 1e9 || rx > 1e9)
        return false;
    out->transmitted = (int)tx;
    out->received = (int)rx;
    return true;
}

/* "rtt min/avg/max/mdev = a/b/c/d ms" or "round-trip min/avg/max = a/b/c ms". */
static bool parse_rtt(const char *p, const char *e, eb_ping_result *out)
{
    const char *q = find_in(p, e, " = ");
    if (!q)
        return false;
    q += 3;
    double v[4] = {NAN, NAN, NAN, NAN};
    int want = find_in(p, q, "mdev") ? 4 : 3;
    for (int i = 0; i < want; i++) {
        if (i > 0) {
            if (q >= e || *q != '/')
                return false;
            q++;
        }
        if (!scan_num(&q, e, &v[i]))
            return false;
    }
    out->min_ms = v[0];
    out->avg_ms = v[1];
    out->max_ms = v[2];
    out->mdev_ms = v[3];
    return true;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double nearest_rank(const double *v, int n, double pct)
{
    if (n <= 0)
        return NAN;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    int rank = (int)ceil(pct / 100.0 * n);
    double r = s[rank < 1 ? 0 : rank - 1];
    free(s);
    return r;
}

int eb_ping_parse(const char *buf, size_t len, eb_ping_result *out, eb_error *err)
{
    memset(out, 0, sizeof *out);
    out->min_ms = out->avg_ms = out->max_ms = out->mdev_ms = out->p99_ms = NAN;
    bool counts = false;
    int line = 0, rtt_line = 0;
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        line++;
        if (find_in(p, e, "packets transmitted"))
            counts = parse_counts(p, e, out);
        else if (find_in(p, e, "min/avg/max")) {
            if (!parse_rtt(p, e, out))
                return eb_fail(err, EB_EIO, "ping output line %d: cannot read the round-trip summary; "
                                            "expected \"rtt min/avg/max/mdev = a/b/c/d ms\"", line);
            rtt_line = line;
        } else
            parse_reply(p, e, out);
        p = nl ? nl + 1 : end;
    }
    if (!counts)
        return eb_fail(err, EB_EIO, "ping output (%d lines) has no \"packets transmitted\" line; "
                                    "was ping interrupted or is it not iputils/BusyBox ping?", line);
    if (out->received > out->transmitted)
        return eb_fail(err, EB_EIO, "ping output: %d received of %d transmitted; "
                                    "the summary line is malformed", out->received, out->transmitted);
    out->loss_pct = out->transmitted ? 100.0 * (out->transmitted - out->received) / out->transmitted : 100.0;
    if (out->received > 0 && !rtt_line)
        return eb_fail(err, EB_EIO, "ping output: %d replies but no round-trip summary line", out->received);
    out->p99_ms = nearest_rank(out->rtt_ms, out->n_rtt, 99.0);
    return 0;
}

void eb_ping_summarize(eb_ping_result *r)
{
    r->loss_pct = r->transmitted ? 100.0 * (r->transmitted - r->received) / r->transmitted : 100.0;
    r->min_ms = r->avg_ms = r->max_ms = r->mdev_ms = NAN;
    r->p99_ms = nearest_rank(r->rtt_ms, r->n_rtt, 99.0);
    if (r->n_rtt <= 0)
        return;
    double sum = 0, sq = 0, lo = r->rtt_ms[0], hi = r->rtt_ms[0];
    for (int i = 0; i < r->n_rtt; i++) {
        double x = r->rtt_ms[i];
        sum += x;
        sq += x * x;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    r->min_ms = lo;
    r->max_ms = hi;
    r->avg_ms = sum / r->n_rtt;
    double var = sq / r->n_rtt - r->avg_ms * r->avg_ms;
    r->mdev_ms = sqrt(var > 0 ? var : 0);
}
