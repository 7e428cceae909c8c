/* Bounded string copy: C11 has none, and snprintf("%s") trips -Wformat-truncation
 * where truncating is the intent. */
#ifndef ESPBENCH_STR_H
#define ESPBENCH_STR_H

#include <stdarg.h>
#include <stddef.h>

/* Copies src into dst (cap bytes, always NUL-terminated when cap > 0),
 * truncating; returns strlen(src) like BSD strlcpy, so callers can detect it. */
size_t eb_strlcpy(char *dst, const char *src, size_t cap);

/* The formatted text cut to cap - 1 bytes, in a heap copy of its own (free
 * it); NULL when the text is empty. Aborts only when memory runs out. */
char *eb_vstrdup_cut(size_t cap, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* A heap copy (free it) of s[0..n) with the \r \n \t \\ escapes of the
 * fake:// scripts replaced; any other escaped character stands for itself. */
char *eb_unescape(const char *s, size_t n);

#endif
