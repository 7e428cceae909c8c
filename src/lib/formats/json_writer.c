/* Streaming JSON text in cJSON_Print's layout; see json_writer.h. Writing a
 * large `espbench parse` result used to be most of the command's time: one
 * cJSON node per value, each allocated, printed and freed, and every number
 * printed twice and read back with strtod. */
#include "json_writer.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void eb_jw_init(eb_jw *w, eb_buf *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
}

static void put_tabs(eb_buf *b, int n)
{
    static const char tabs[EB_JW_MAX_DEPTH] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
    eb_buf_append(b, tabs, (size_t)(n < EB_JW_MAX_DEPTH ? n : EB_JW_MAX_DEPTH - 1));
}

/* The length of the valid UTF-8 sequence at p (at most n bytes), or 0 when
 * the bytes there are not one (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF). */
size_t eb_utf8_seq_len(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (len == 0 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) || (c == 0xf0 && p[1] < 0x90) ||
        (c == 0xf4 && p[1] > 0x8f))
        return 0;
    return len;
}

bool eb_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = eb_utf8_seq_len(p + i, n - i);
        if (k == 0)
            return false;
        i += k;
    }
    return true;
}

/* U+FFFD REPLACEMENT CHARACTER in UTF-8. */
static const char replacement[3] = {(char)0xef, (char)0xbf, (char)0xbd};

void eb_utf8_append(eb_buf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t run = 0, i = 0;
    while (i < n) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = eb_utf8_seq_len(p + i, n - i);
        if (k) {
            i += k;
            continue;
        }
        /* one replacement per bad byte, as Python's errors="replace" does for a lone byte */
        eb_buf_append(b, s + run, i - run);
        eb_buf_append(b, replacement, sizeof replacement);
        run = ++i;
    }
    eb_buf_append(b, s + run, n - run);
}

void eb_utf8_fix_from(eb_buf *b, size_t from)
{
    if (from >= b->len || eb_utf8_valid((const char *)b->data + from, b->len - from))
        return;
    size_t n = b->len - from;
    char *copy = malloc(n);
    if (!copy)
        abort();
    memcpy(copy, b->data + from, n);
    b->len = from;
    eb_utf8_append(b, copy, n);
    free(copy);
}

/* A string as cJSON escapes it: quote, backslash and control characters;
 * valid UTF-8 as it is. A byte that is not part of valid UTF-8 (a console
 * capture's line noise, a name cut mid-character) becomes U+FFFD: every
 * JSON file espbench writes is valid UTF-8 (RFC 8259 section 8.1), while
 * the logs keep their raw bytes. */
void eb_json_string(eb_buf *b, const char *s)
{
    eb_buf_append_byte(b, '"');
    const char *run = s ? s : "";
    for (const char *p = run;; p++) {
        unsigned char c = (unsigned char)*p;
        if (c > 31 && c != '"' && c != '\\' && c < 0x80)
            continue;
        if (c >= 0x80) {
            size_t k = eb_utf8_seq_len((const unsigned char *)p, strnlen(p, 4));
            if (k) {
                p += k - 1;
                continue;
            }
        }
        eb_buf_append(b, run, (size_t)(p - run));
        if (c == '\0')
            break;
        char esc[8];
        switch (c) {
        case '"': eb_buf_append(b, "\\\"", 2); break;
        case '\\': eb_buf_append(b, "\\\\", 2); break;
        case '\b': eb_buf_append(b, "\\b", 2); break;
        case '\f': eb_buf_append(b, "\\f", 2); break;
        case '\n': eb_buf_append(b, "\\n", 2); break;
        case '\r': eb_buf_append(b, "\\r", 2); break;
        case '\t': eb_buf_append(b, "\\t", 2); break;
        default:
            if (c >= 0x80) {
                eb_buf_append(b, replacement, sizeof replacement);
                break;
            }
            snprintf(esc, sizeof esc, "\\u%04x", c);
            eb_buf_append(b, esc, 6);
        }
        run = p + 1;
    }
    eb_buf_append_byte(b, '"');
}

/* What comes before a value: the separator, and in an object the indented
 * key. Keys are the writer's callers' own identifiers (plain ASCII, nothing to
 * escape), so they are copied as they are. */
static void member(eb_jw *w, const char *key)
{
    if (w->depth == 0)
        return;
    int l = w->depth - 1;
    if (w->array[l]) {
        if (w->items[l])
            eb_buf_append(w->out, ", ", 2);
        w->items[l] = true;
        return;
    }
    static const char sep_tabs[] = ",\n\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
    size_t tabs = (size_t)(w->depth < EB_JW_MAX_DEPTH ? w->depth : EB_JW_MAX_DEPTH - 1);
    size_t klen = strlen(key);
    eb_buf *b = w->out;
    if (b->len + klen + tabs + 8 > b->cap)
        eb_buf_reserve(b, klen + tabs + 8);
    if (w->items[l])
        eb_buf_append(b, sep_tabs, 2 + tabs);
    else
        eb_buf_append(b, sep_tabs + 2, tabs);
    b->data[b->len++] = '"';
    memcpy(b->data + b->len, key, klen);
    b->len += klen;
    memcpy(b->data + b->len, "\":\t", 3);
    b->len += 3;
    w->items[l] = true;
}

static void open_container(eb_jw *w, const char *key, bool array)
{
    member(w, key);
    eb_buf_append(w->out, array ? "[" : "{\n", array ? 1 : 2);
    if (w->depth >= EB_JW_MAX_DEPTH)
        abort(); /* a programming error: the documents written here are shallow */
    w->array[w->depth] = array;
    w->items[w->depth] = false;
    w->depth++;
}

void eb_jw_object(eb_jw *w, const char *key) { open_container(w, key, false); }

void eb_jw_array(eb_jw *w, const char *key) { open_container(w, key, true); }

void eb_jw_end(eb_jw *w)
{
    if (w->depth == 0)
        return;
    int l = --w->depth;
    if (w->array[l]) {
        eb_buf_append_byte(w->out, ']');
        return;
    }
    if (w->items[l])
        eb_buf_append_byte(w->out, '\n');
    put_tabs(w->out, w->depth);
    eb_buf_append_byte(w->out, '}');
}

void eb_jw_str(eb_jw *w, const char *key, const char *s)
{
    member(w, key);
    eb_json_string(w->out, s);
}

void eb_jw_null(eb_jw *w, const char *key)
{
    member(w, key);
    eb_buf_append(w->out, "null", 4);
}

void eb_jw_num(eb_jw *w, const char *key, double v)
{
    member(w, key);
    if (!isfinite(v)) {
        eb_buf_append(w->out, "null", 4);
        return;
    }
    char t[32];
    eb_buf_append(w->out, t, eb_jw_fmt_num(v, t));
}

void eb_jw_int(eb_jw *w, const char *key, long v)
{
    eb_jw_num(w, key, (double)v);
}

eb_buf *eb_jw_raw(eb_jw *w, const char *key)
{
    member(w, key);
    return w->out;
}

/* ------------------------------------------------------------ numbers */

static size_t put_u64(char *out, uint64_t u)
{
    char tmp[24];
    size_t n = 0, k = 0;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n)
        out[k++] = tmp[--n];
    return k;
}

static const double pow10_tab[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,
                                   1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19};
static const uint64_t pow10_u[] = {1ull,
                                   10ull,
                                   100ull,
                                   1000ull,
                                   10000ull,
                                   100000ull,
                                   1000000ull,
                                   10000000ull,
                                   100000000ull,
                                   1000000000ull,
                                   10000000000ull,
                                   100000000000ull,
                                   1000000000000ull,
                                   10000000000000ull,
                                   100000000000000ull,
                                   1000000000000000ull,
                                   10000000000000000ull,
                                   100000000000000000ull,
                                   1000000000000000000ull,
                                   10000000000000000000ull};
#define N_POW10 (int)(sizeof pow10_tab / sizeof pow10_tab[0])

/* The common case without printf. Looks for the decimal D = m / 10^d with at
 * most 15 significant digits whose nearest double is v (m and 10^d are exact
 * doubles, so the division is correctly rounded and the test is exact; the
 * rounded product a * 10^d is within 0.25 of m, so no such D is missed). If
 * there is one, it is what %1.15g prints for v — a double lies within half an
 * ulp of D, well inside half a step of the 15-digit grid — and it reads back
 * as v, so it is the choice; the smallest d gives it without trailing zeros.
 * Returns its length; 0 when there is none (then only %1.17g reads back);
 * -1 outside the range this covers, where %g may use an exponent. */
static int fmt_short_fixed(double v, char out[32])
{
    double a = fabs(v);
    if (!(a >= 1e-4 && a < 1e15))
        return -1;
    for (int d = 0; d < N_POW10; d++) {
        double s = a * pow10_tab[d];
        if (s >= 1e15)
            return 0;
        uint64_t m = (uint64_t)(s + 0.5);
        if ((double)m / pow10_tab[d] != a)
            continue;
        size_t k = 0;
        if (v < 0)
            out[k++] = '-';
        k += put_u64(out + k, m / pow10_u[d]);
        if (d > 0) {
            uint64_t frac = m % pow10_u[d];
            out[k++] = '.';
            for (int i = d - 1; i >= 0; i--) {
                out[k++] = (char)('0' + frac / pow10_u[i]);
                frac %= pow10_u[i];
            }
        }
        out[k] = '\0';
        return (int)k;
    }
    return -1;
}

size_t eb_jw_fmt_num(double v, char out[32])
{
    if (v >= -2147483648.0 && v <= 2147483647.0 && v == (double)(int)v) {
        size_t k = 0;
        long long x = (long long)v;
        if (x < 0)
            out[k++] = '-';
        k += put_u64(out + k, (uint64_t)(x < 0 ? -x : x));
        out[k] = '\0';
        return k;
    }
    int k = fmt_short_fixed(v, out);
    if (k > 0)
        return (size_t)k;
    if (k < 0) {
        snprintf(out, 32, "%1.15g", v);
        if (strtod(out, NULL) == v)
            return strlen(out);
    }
    snprintf(out, 32, "%1.17g", v);
    return strlen(out);
}
