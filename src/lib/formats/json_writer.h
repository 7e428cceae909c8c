/* A streaming JSON writer: values go straight into an eb_buf as text, with no
 * tree of nodes in between. Its layout is byte for byte that of cJSON_Print
 * (cJSON 1.7, formatted): "{" newline, members indented by one tab per level
 * as "key":<tab>value, ",\n" between members, arrays as "[a, b]". results.json
 * was written by cJSON before; keeping its layout keeps every existing file,
 * golden fixture and diff stable.
 *
 * Numbers: integers as %d, others as the shorter of %1.15g and %1.17g that
 * reads back the same; NAN and infinities as null. */
#ifndef ESPBENCH_JSON_WRITER_H
#define ESPBENCH_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/buf.h"

#define EB_JW_MAX_DEPTH 16

typedef struct eb_jw {
    eb_buf *out;
    int depth;                       /* open containers */
    bool array[EB_JW_MAX_DEPTH];     /* per level: an array (else an object) */
    bool items[EB_JW_MAX_DEPTH];     /* per level: something written already */
} eb_jw;

void eb_jw_init(eb_jw *w, eb_buf *out);

/* `key` names the member inside an object and is ignored inside an array
 * and at the top level. */
void eb_jw_object(eb_jw *w, const char *key);
void eb_jw_array(eb_jw *w, const char *key);
void eb_jw_end(eb_jw *w);
void eb_jw_str(eb_jw *w, const char *key, const char *s);
void eb_jw_num(eb_jw *w, const char *key, double v); /* null unless finite */
void eb_jw_int(eb_jw *w, const char *key, long v);
void eb_jw_null(eb_jw *w, const char *key);
/* Writes the member's key (or the array separator) and returns the buffer for
 * the caller to append one value of its own as text. */
eb_buf *eb_jw_raw(eb_jw *w, const char *key);

/* A finite number as the writer prints it, into out (NUL-terminated); returns
 * its length. */
size_t eb_jw_fmt_num(double v, char out[32]);

#endif
