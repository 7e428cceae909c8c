/* Tiny hand-written scanners shared by the line parsers (iperf_parse.c,
 * board_parse.c). A cursor is a [p, e) byte range; every helper advances
 * *p only on success. No allocation, no locale, no regex: the parsers must
 * keep up with well over a million lines per second. */
#ifndef ESPBENCH_LINE_SCAN_H
#define ESPBENCH_LINE_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline bool ls_is_digit(char c) { return c >= '0' && c <= '9'; }
static inline bool ls_is_space(char c) { return c == ' ' || c == '\t'; }

static inline void ls_skip_ws(const char **p, const char *e)
{
    while (*p < e && ls_is_space(**p))
        (*p)++;
}

/* Consumes the literal s if the cursor starts with it. */
static inline bool ls_lit(const char **p, const char *e, const char *s)
{
    size_t n = strlen(s);
    if ((size_t)(e - *p) < n || memcmp(*p, s, n) != 0)
        return false;
    *p += n;
    return true;
}

static inline bool ls_starts(const char *p, const char *e, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(e - p) >= n && memcmp(p, s, n) == 0;
}

/* Position of s in [p, e), or NULL. */
static inline const char *ls_find(const char *p, const char *e, const char *s)
{
    /* Lines are short and needles rare: memchr on the first byte, then compare.
     * (glibc's memmem sets up a two-way search per call, which cost more than
     * the whole parse of a line; bench/ parsing.) */
    size_t n = strlen(s);
    if (n == 0)
        return p <= e ? p : NULL;
    while (p < e && (size_t)(e - p) >= n) {
        const char *c = memchr(p, s[0], (size_t)(e - p) - n + 1);
        if (!c)
            return NULL;
        if (memcmp(c + 1, s + 1, n - 1) == 0)
            return c;
        p = c + 1;
    }
    return NULL;
}

/* Unsigned decimal integer; false on no digits or overflow beyond 2^63. */
static inline bool ls_u64(const char **p, const char *e, uint64_t *out)
{
    const char *q = *p;
    uint64_t v = 0;
    while (q < e && ls_is_digit(*q)) {
        if (v > (UINT64_MAX / 2 - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(*q - '0');
        q++;
    }
    if (q == *p)
        return false;
    *out = v;
    *p = q;
    return true;
}

/* Signed decimal integer ("-1" appears in iperf CSV). */
static inline bool ls_i64(const char **p, const char *e, int64_t *out)
{
    const char *q = *p;
    bool neg = false;
    if (q < e && (*q == '-' || *q == '+')) {
        neg = *q == '-';
        q++;
    }
    uint64_t v;
    if (!ls_u64(&q, e, &v))
        return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    *p = q;
    return true;
}

/* Decimal number: [+-]digits[.digits][e[+-]digits] (also ".5" and "5.").
 * The mantissa is an exact integer scaled by one power of ten, so values with
 * up to 15 significant digits convert exactly rounded. */
static inline bool ls_num(const char **p, const char *e, double *out)
{
    static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *q = *p;
    bool neg = false;
    if (q < e && (*q == '-' || *q == '+')) {
        neg = *q == '-';
        q++;
    }
    uint64_t mant = 0;
    int digits = 0, frac = 0, dropped = 0;
    while (q < e && ls_is_digit(*q)) {
        if (mant < 100000000000000000ULL)
            mant = mant * 10 + (uint64_t)(*q - '0');
        else
            dropped++;
        digits++;
        q++;
    }
    if (q < e && *q == '.') {
        q++;
        while (q < e && ls_is_digit(*q)) {
            if (mant < 100000000000000000ULL) {
                mant = mant * 10 + (uint64_t)(*q - '0');
                frac++;
            }
            digits++;
            q++;
        }
    }
    if (digits == 0)
        return false;
    int exp10 = dropped - frac;
    if (q + 1 < e && (*q == 'e' || *q == 'E')) {
        const char *r = q + 1;
        bool eneg = false;
        if (r < e && (*r == '+' || *r == '-')) {
            eneg = *r == '-';
            r++;
        }
        if (r < e && ls_is_digit(*r)) {
            int x = 0;
            while (r < e && ls_is_digit(*r)) {
                if (x < 1000)
                    x = x * 10 + (*r - '0');
                r++;
            }
            exp10 += eneg ? -x : x;
            q = r;
        }
    }
    double v = (double)mant;
    while (exp10 > 22) {
        v *= 1e22;
        exp10 -= 22;
    }
    while (exp10 < -22) {
        v /= 1e22;
        exp10 += 22;
    }
    v = exp10 >= 0 ? v * pow10[exp10] : v / pow10[-exp10];
    *out = neg ? -v : v;
    *p = q;
    return true;
}

/* Copies [p, e) into a fixed buffer, truncating, always NUL-terminated. */
static inline void ls_copy(char *dst, size_t cap, const char *p, const char *e)
{
    size_t n = (size_t)(e - p);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, p, n);
    dst[n] = '\0';
}

/* Trims trailing blanks and CR/LF from [p, *e). */
static inline void ls_rtrim(const char *p, const char **e)
{
    while (*e > p && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r' || (*e)[-1] == '\n'))
        (*e)--;
}

#endif
