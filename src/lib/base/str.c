#include "espbench/base/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t eb_strlcpy(char *dst, const char *src, size_t cap)
{
    size_t n = strlen(src);
    if (cap) {
        size_t k = n < cap - 1 ? n : cap - 1;
        memcpy(dst, src, k);
        dst[k] = '\0';
    }
    return n;
}

char *eb_vstrdup_cut(size_t cap, const char *fmt, va_list ap)
{
    char buf[1024];
    if (cap > sizeof buf)
        cap = sizeof buf;
    vsnprintf(buf, cap, fmt, ap);
    if (!buf[0])
        return NULL;
    char *s = strdup(buf);
    if (!s)
        abort();
    return s;
}

char *eb_unescape(const char *s, size_t n)
{
    char *out = malloc(n + 1), *o = out;
    if (!out)
        abort();
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\' || i + 1 == n) {
            *o++ = s[i];
            continue;
        }
        char c = s[++i];
        *o++ = c == 'r' ? '\r' : c == 'n' ? '\n' : c == 't' ? '\t' : c;
    }
    *o = 0;
    return out;
}
