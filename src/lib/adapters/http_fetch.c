/* Firmware downloads into the XDG cache with libcurl: resumable through a
 * ".part" file and a range request, size-limited, and checked against the
 * expected SHA-256 before anyone uses the file.
 *
 * libcurl is loaded on the first download (dlopen), not at start-up: its
 * dependency tree (TLS, LDAP, Kerberos, SSH, IDN, ...) is some 30 shared
 * objects, which cost every espbench command about as much start-up time as
 * the rest of it together, while only a manifest with a URL downloads. */
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "espbench/base/fs.h"
#include "espbench/adapters/fetch.h"
#include "espbench/base/buf.h"
#include "espbench/base/log.h"
#include "espbench/base/sha256.h"

/* The libcurl functions this file uses, resolved from the library at first use. */
static struct curl_api {
    __typeof__(curl_global_init) *global_init;
    __typeof__(curl_easy_init) *easy_init;
    __typeof__(curl_easy_setopt) *easy_setopt;
    __typeof__(curl_easy_getinfo) *easy_getinfo;
    __typeof__(curl_easy_perform) *easy_perform;
    __typeof__(curl_easy_cleanup) *easy_cleanup;
    __typeof__(curl_easy_strerror) *easy_strerror;
    __typeof__(curl_free) *free;
    __typeof__(curl_url) *url;
    __typeof__(curl_url_cleanup) *url_cleanup;
    __typeof__(curl_url_get) *url_get;
    __typeof__(curl_url_set) *url_set;
} cu;

#define CURL_SONAME "libcurl.so.4"

static int curl_load(eb_error *err)
{
    static void *lib;
    if (lib)
        return EB_OK;
    void *h = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return eb_fail(err, EB_EIO, "downloads need libcurl (%s): %s; install it (Debian: libcurl4)", CURL_SONAME,
                       dlerror());
    static const struct {
        const char *name;
        size_t off;
    } syms[] = {
        {"curl_global_init", offsetof(struct curl_api, global_init)},
        {"curl_easy_init", offsetof(struct curl_api, easy_init)},
        {"curl_easy_setopt", offsetof(struct curl_api, easy_setopt)},
        {"curl_easy_getinfo", offsetof(struct curl_api, easy_getinfo)},
        {"curl_easy_perform", offsetof(struct curl_api, easy_perform)},
        {"curl_easy_cleanup", offsetof(struct curl_api, easy_cleanup)},
        {"curl_easy_strerror", offsetof(struct curl_api, easy_strerror)},
        {"curl_free", offsetof(struct curl_api, free)},
        {"curl_url", offsetof(struct curl_api, url)},
        {"curl_url_cleanup", offsetof(struct curl_api, url_cleanup)},
        {"curl_url_get", offsetof(struct curl_api, url_get)},
        {"curl_url_set", offsetof(struct curl_api, url_set)},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(h, syms[i].name);
        if (!f) {
            dlclose(h);
            return eb_fail(err, EB_EIO, "%s has no %s: a libcurl older than 7.62; install a current libcurl4",
                           CURL_SONAME, syms[i].name);
        }
        memcpy((char *)&cu + syms[i].off, &f, sizeof f);
    }
    if (cu.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        dlclose(h);
        return eb_fail(err, EB_EIO, "libcurl failed to initialise");
    }
    lib = h;
    return EB_OK;
}

int eb_cache_dir(char *out, size_t cap, eb_error *err)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(out, cap, "%s/espbench", xdg);
    else if (home && *home)
        n = snprintf(out, cap, "%s/.cache/espbench", home);
    else
        return eb_fail(err, EB_EIO, "no cache directory: set XDG_CACHE_HOME or HOME");
    if (n < 0 || (size_t)n >= cap)
        return eb_fail(err, EB_EIO, "cache directory path too long");
    if (eb_mkdir_p(out) != 0)
        return eb_fail(err, EB_EIO, "cannot create the cache directory %s: %s", out, strerror(errno));
    return EB_OK;
}

static bool valid_sha(const char *s)
{
    if (!s || strlen(s) != 64)
        return false;
    for (int i = 0; i < 64; i++)
        if (!strchr("0123456789abcdefABCDEF", s[i]))
            return false;
    return true;
}

typedef struct {
    FILE *f;
    CURL *h;
    curl_off_t have;    /* bytes in the .part file */
    curl_off_t limit;
    bool too_big;
    char foreign[512];  /* a redirect to another host, refused */
} sink;

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *user)
{
    sink *s = user;
    size_t n = size * nmemb;
    long code = 0;
    cu.easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &code);
    if (code >= 300 && code < 400)
        return n; /* a redirect's own body is not the file */
    if (s->have + (curl_off_t)n > s->limit) {
        s->too_big = true;
        return 0; /* aborts the transfer */
    }
    if (fwrite(ptr, 1, n, s->f) != n)
        return 0;
    s->have += (curl_off_t)n;
    return n;
}

/* scheme://host:port of a URL into out ("" if it does not parse). */
static void origin_of(const char *url, char *out, size_t cap)
{
    out[0] = '\0';
    CURLU *u = cu.url();
    char *scheme = NULL, *host = NULL, *port = NULL;
    if (u && cu.url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        cu.url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        cu.url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        cu.url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK)
        snprintf(out, cap, "%s://%s:%s", scheme, host, port);
    cu.free(scheme);
    cu.free(host);
    cu.free(port);
    cu.url_cleanup(u);
}

/* Performs the request, following up to 5 redirects itself: only to the same
 * scheme, host and port as the manifest's URL (the host it pins). A redirect
 * elsewhere stops with s->foreign set, before anything is asked of that host. */
static CURLcode perform_pinned(CURL *h, const char *url, sink *s, long *http)
{
    char want[300], next_origin[300], cur[2048];
    origin_of(url, want, sizeof want);
    snprintf(cur, sizeof cur, "%s", url);
    for (int hop = 0;; hop++) {
        CURLcode rc = cu.easy_perform(h);
        *http = 0;
        cu.easy_getinfo(h, CURLINFO_RESPONSE_CODE, http);
        char *loc = NULL;
        if (rc != CURLE_OK || *http < 300 || *http >= 400 ||
            cu.easy_getinfo(h, CURLINFO_REDIRECT_URL, &loc) != CURLE_OK || !loc)
            return rc;
        origin_of(loc, next_origin, sizeof next_origin);
        if (strncmp(url, "http", 4) || strcmp(want, next_origin)) {
            snprintf(s->foreign, sizeof s->foreign, "%s", loc);
            return CURLE_TOO_MANY_REDIRECTS;
        }
        if (hop == 5)
            return CURLE_TOO_MANY_REDIRECTS;
        snprintf(cur, sizeof cur, "%s", loc);
        cu.easy_setopt(h, CURLOPT_URL, cur);
    }
}

/* One transfer attempt; resume says whether to send a range request. */
static CURLcode transfer(const char *url, const char *part, bool resume, sink *s, long timeout_s, long *http,
                         char *cerr)
{
    struct stat st;
    s->have = resume && stat(part, &st) == 0 ? (curl_off_t)st.st_size : 0;
    s->f = fopen(part, s->have ? "ab" : "wb");
    if (!s->f)
        return CURLE_WRITE_ERROR;
    CURL *h = cu.easy_init();
    if (!h) {
        fclose(s->f);
        return CURLE_FAILED_INIT;
    }
    cu.easy_setopt(h, CURLOPT_URL, url);
    cu.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https,file");
    cu.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L); /* perform_pinned follows same-host redirects */
    cu.easy_setopt(h, CURLOPT_FAILONERROR, 1L);
    cu.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    cu.easy_setopt(h, CURLOPT_TIMEOUT, timeout_s);
    cu.easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 15L);
    /* A server that stalls mid-body is given up on well before the whole
     * transfer's limit; the part is kept for the next run to resume. */
    cu.easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    cu.easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 30L);
    cu.easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, s->limit);
    cu.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    cu.easy_setopt(h, CURLOPT_WRITEDATA, s);
    cu.easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
    if (s->have)
        cu.easy_setopt(h, CURLOPT_RESUME_FROM_LARGE, s->have);
    s->h = h;
    CURLcode rc = perform_pinned(h, url, s, http);
    cu.easy_cleanup(h);
    if (fclose(s->f) != 0 && rc == CURLE_OK)
        rc = CURLE_WRITE_ERROR;
    return rc;
}

int eb_fetch(const char *url, const eb_fetch_opts *opts, char *path, size_t path_cap, eb_error *err)
{
    if (!valid_sha(opts->sha256))
        return eb_fail(err, EB_ECONFIG, "%s: a 64-hex-digit sha256 is required to download it", url);
    char dir[900], want[65];
    for (int i = 0; i < 64; i++)
        want[i] = (char)(opts->sha256[i] | 0x20); /* lowercase hex */
    want[64] = '\0';
    if (opts->cache_dir) {
        snprintf(dir, sizeof dir, "%s", opts->cache_dir);
        if (eb_mkdir_p(dir) != 0)
            return eb_fail(err, EB_EIO, "cannot create %s: %s", dir, strerror(errno));
    } else if (eb_cache_dir(dir, sizeof dir, err) != EB_OK) {
        return EB_EIO;
    }
    char final[1024], part[1040], have[65];
    snprintf(final, sizeof final, "%s/%s", dir, want);
    snprintf(part, sizeof part, "%s.part", final);
    if (snprintf(path, path_cap, "%s", final) >= (int)path_cap)
        return eb_fail(err, EB_EIO, "cache path too long");
    eb_error e;
    if (access(final, R_OK) == 0) {
        if (eb_sha256_file(final, have, &e) == EB_OK && !strcmp(have, want))
            return EB_OK;
        unlink(final); /* corrupted cache entry: fetch again */
    }
    if (curl_load(err) != EB_OK)
        return EB_EIO;
    sink s = {.limit = (curl_off_t)(opts->max_bytes ? opts->max_bytes : 64u << 20)};
    long timeout = opts->timeout_s > 0 ? opts->timeout_s : 120, http = 0;
    char cerr[CURL_ERROR_SIZE] = "";
    CURLcode rc = transfer(url, part, true, &s, timeout, &http, cerr);
    if (rc == CURLE_RANGE_ERROR || (rc == CURLE_HTTP_RETURNED_ERROR && http == 416)) {
        /* The server cannot resume (or the part is already whole): check the
         * part, else start over. */
        if (eb_sha256_file(part, have, &e) == EB_OK && !strcmp(have, want))
            rc = CURLE_OK;
        else
            rc = transfer(url, part, false, &s, timeout, &http, cerr);
    }
    if (s.foreign[0]) {
        unlink(part);
        return eb_fail(err, EB_EIO, "%s: redirected to %.300s, a different host; refusing it (put the final URL in the manifest)",
                       url, s.foreign);
    }
    if (s.too_big || rc == CURLE_FILESIZE_EXCEEDED) {
        unlink(part);
        return eb_fail(err, EB_EIO, "%s: larger than the %lld-byte limit; refusing it", url, (long long)s.limit);
    }
    if (rc != CURLE_OK) {
        if (rc == CURLE_HTTP_RETURNED_ERROR) {
            unlink(part);
            return eb_fail(err, EB_EIO, "%s: HTTP %ld; check the URL in the manifest", url, http);
        }
        if (rc == CURLE_PARTIAL_FILE || rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_RECV_ERROR)
            return eb_fail(err, EB_EIO, "%s: download interrupted after %lld bytes (%s); run again to resume", url,
                           (long long)s.have, cerr[0] ? cerr : cu.easy_strerror(rc));
        unlink(part);
        return eb_fail(err, EB_EIO, "%s: %s", url, cerr[0] ? cerr : cu.easy_strerror(rc));
    }
    if (eb_sha256_file(part, have, &e) != EB_OK) {
        unlink(part);
        *err = e;
        return EB_EIO;
    }
    if (strcmp(have, want) != 0) {
        unlink(part);
        return eb_fail(err, EB_EIO, "%s: sha256 %s does not match the expected %s; the download was deleted", url, have, want);
    }
    if (rename(part, final) != 0)
        return eb_fail(err, EB_EIO, "cannot move %s into place: %s", final, strerror(errno));
    eb_log(EB_LOG_DEBUG, "fetched %s into %s", url, final);
    return EB_OK;
}

/* A small request to a lab instrument's HTTP interface (instrument.h): no
 * redirects, no proxy from the environment (the instrument is on the bench's
 * network), the body capped, one deadline for the whole exchange. */
typedef struct {
    eb_buf *out;
    size_t cap;
    bool too_big;
} small_sink;

static size_t on_small(char *ptr, size_t size, size_t nmemb, void *user)
{
    small_sink *s = user;
    size_t n = size * nmemb;
    if (s->out->len + n > s->cap) {
        s->too_big = true;
        return 0;
    }
    eb_buf_append(s->out, ptr, n);
    return n;
}

int eb_http_request(const char *url, const char *post_body, const char *userpwd, long timeout_ms, eb_buf *out,
                    long *status, eb_error *err)
{
    *status = 0;
    int rc = curl_load(err);
    if (rc)
        return rc;
    CURL *h = cu.easy_init();
    if (!h)
        return eb_fail(err, EB_EIO, "%s: libcurl could not start a request", url);
    small_sink s = {out, 64 * 1024, false};
    char cerr[CURL_ERROR_SIZE] = "";
    cu.easy_setopt(h, CURLOPT_URL, url);
    cu.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    cu.easy_setopt(h, CURLOPT_NOPROXY, "*");
    cu.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    cu.easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 5000L);
    cu.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_small);
    cu.easy_setopt(h, CURLOPT_WRITEDATA, &s);
    cu.easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
    if (userpwd) {
        cu.easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        cu.easy_setopt(h, CURLOPT_USERPWD, userpwd);
    }
    if (post_body) {
        cu.easy_setopt(h, CURLOPT_POSTFIELDS, post_body);
        cu.easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(post_body));
    }
    CURLcode c = cu.easy_perform(h);
    cu.easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    cu.easy_cleanup(h);
    if (s.too_big)
        return eb_fail(err, EB_EIO, "answered more than %zu bytes", s.cap);
    if (c != CURLE_OK)
        return eb_fail(err, EB_EIO, "no answer: %s", cerr[0] ? cerr : cu.easy_strerror(c));
    return 0;
}
