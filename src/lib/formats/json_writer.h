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

/* s as a quoted JSON string (NULL as ""), the writer's escaping: for JSON a
 * caller builds by hand. */
void eb_json_string(eb_buf *b, const char *s);

/* UTF-8 for every JSON and CSV file espbench writes: text from a console
 * capture may hold any byte, the files hold valid UTF-8 only. */
/* The length of the valid sequence at p (n bytes available), 0 if invalid. */
size_t eb_utf8_seq_len(const unsigned char *p, size_t n);
bool eb_utf8_valid(const char *s, size_t n);
/* Appends s with each byte that is not part of valid UTF-8 replaced by U+FFFD. */
void eb_utf8_append(eb_buf *b, const char *s, size_t n);
/* The same, in place, for what b holds from offset `from` on (text another
 * writer appended). */
void eb_utf8_fix_from(eb_buf *b, size_t from);

#endif
