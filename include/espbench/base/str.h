/* Bounded string copy: C11 has none, and snprintf("%s") trips -Wformat-truncation
 * where truncating is the intent. */
#ifndef ESPBENCH_STR_H
#define ESPBENCH_STR_H

#include <stddef.h>

/* Copies src into dst (cap bytes, always NUL-terminated when cap > 0),
 * truncating; returns strlen(src) like BSD strlcpy, so callers can detect it. */
size_t eb_strlcpy(char *dst, const char *src, size_t cap);

#endif
