/* Downloads into the XDG cache with libcurl: resumable, size-limited and
 * checked against a SHA-256 before use. http://, https:// and file:// URLs. */
#ifndef ESPBENCH_FETCH_H
#define ESPBENCH_FETCH_H

#include <stddef.h>

#include "espbench/base/buf.h"
#include "espbench/base/error.h"

/* $XDG_CACHE_HOME/espbench, else $HOME/.cache/espbench (created). */
int eb_cache_dir(char *out, size_t cap, eb_error *err);

typedef struct eb_fetch_opts {
    const char *cache_dir;   /* NULL = eb_cache_dir() */
    const char *sha256;      /* 64 hex chars, required */
    size_t max_bytes;        /* 0 = 64 MiB */
    long timeout_s;          /* whole transfer, 0 = 120 */
} eb_fetch_opts;

/* Fetches url into the cache (file name = sha256) unless a file with the right
 * hash is there already. A partial download ("<sha>.part") is resumed with a
 * range request. A hash mismatch deletes the file and fails (EB_EIO); a file
 * larger than max_bytes fails without keeping it. On success path holds the
 * cached file. */
int eb_fetch(const char *url, const eb_fetch_opts *opts, char *path, size_t path_cap, eb_error *err);

/* One HTTP GET (post_body NULL) or POST to a lab instrument (instrument.h):
 * the body into out (at most 64 KiB), the HTTP status into *status; userpwd
 * "user:password" for basic authentication or NULL. The message of a failure
 * says what happened without the URL (the caller names the instrument):
 * EB_EIO "no answer: ...". Never follows a redirect nor uses a proxy. */
int eb_http_request(const char *url, const char *post_body, const char *userpwd, long timeout_ms, eb_buf *out,
                    long *status, eb_error *err);

#endif
