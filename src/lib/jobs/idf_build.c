/* Firmware built per ESP-IDF checkout, cached (idf_build.h, docs/idf-builds.md). */
#include "espbench/jobs/idf_build.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "espbench/adapters/fetch.h"
#include "espbench/adapters/proc_run.h"
#include "espbench/base/buf.h"
#include "espbench/base/fs.h"
#include "espbench/base/sha256.h"

#define VERSION_HEADER "components/esp_common/include/esp_idf_version.h"

/* snprintf for paths: false when cut (callers check where a cut path would matter). */
static bool pathf(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool pathf(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, cap, fmt, ap);
    va_end(ap);
    return n >= 0 && (size_t)n < cap;
}

/* The number after "#define NAME" at a line's start, or -1. */
static long define_value(const char *text, size_t len, const char *name)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < len;) {
        const char *line = text + i;
        const char *end = memchr(line, '\n', len - i);
        size_t ll = end ? (size_t)(end - line) : len - i;
        const char *p = line, *e = line + ll;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if ((size_t)(e - p) > 7 && memcmp(p, "#define", 7) == 0) {
            p += 7;
            while (p < e && (*p == ' ' || *p == '\t'))
                p++;
            if ((size_t)(e - p) > nl && memcmp(p, name, nl) == 0 && (p[nl] == ' ' || p[nl] == '\t')) {
                p += nl;
                while (p < e && (*p == ' ' || *p == '\t'))
                    p++;
                long v = 0;
                int digits = 0;
                while (p < e && *p >= '0' && *p <= '9' && digits < 6) {
                    v = v * 10 + (*p++ - '0');
                    digits++;
                }
                if (digits)
                    return v;
            }
        }
        i += ll + 1;
    }
    return -1;
}

int eb_idf_version_parse(const char *text, size_t len, const char *hpath, char *out, size_t cap,
                         eb_error *err)
{
    static const char *const names[] = {"ESP_IDF_VERSION_MAJOR", "ESP_IDF_VERSION_MINOR",
                                        "ESP_IDF_VERSION_PATCH"};
    long v[3];
    for (int i = 0; i < 3; i++) {
        v[i] = define_value(text, len, names[i]);
        if (v[i] < 0)
            return eb_fail(err, EB_ECONFIG, "%s: no '#define %s N'; is this an ESP-IDF checkout?", hpath,
                           names[i]);
    }
    pathf(out, cap, "v%ld.%ld.%ld", v[0], v[1], v[2]);
    return 0;
}

int eb_idf_probe(const char *path, eb_idf_checkout *out, eb_error *err)
{
    memset(out, 0, sizeof *out);
    char abs[PATH_MAX];
    if (!realpath(path, abs))
        return eb_fail(err, EB_ECONFIG, "--idf %s: %s", path, strerror(errno));
    pathf(out->path, sizeof out->path, "%s", abs);
    char hpath[PATH_MAX + 64];
    pathf(hpath, sizeof hpath, "%s/" VERSION_HEADER, abs);
    eb_buf b;
    eb_buf_init(&b);
    if (eb_file_read(hpath, 1 << 20, NULL, &b, err)) {
        eb_buf_free(&b);
        return eb_fail(err, EB_ECONFIG, "--idf %s: no %s there: not an ESP-IDF checkout", path, VERSION_HEADER);
    }
    int rc = eb_idf_version_parse((const char *)b.data, b.len, hpath, out->version, sizeof out->version, err);
    eb_buf_free(&b);
    if (rc)
        return rc;
    /* Not a git checkout (a release archive): no commit, the cache keys on the path. */
    eb_error ig;
    const char *rev[] = {"git", "-C", abs, "rev-parse", "--verify", "HEAD", NULL};
    if (eb_proc_output(rev, NULL, 30, out->commit, sizeof out->commit, &ig) != 0 || strlen(out->commit) != 40)
        out->commit[0] = 0;
    const char *desc[] = {"git", "-C", abs, "describe", "--tags", "--always", NULL};
    if (out->commit[0] && eb_proc_output(desc, NULL, 30, out->describe, sizeof out->describe, &ig) != 0)
        out->describe[0] = 0;
    return 0;
}

void eb_idf_cache_key(const char *idf_commit, const char *chip, enum eb_idf_firmware fw,
                      const char *sdkconfig, const char *firmware_hash, char out[65])
{
    char cfg[65] = "";
    const char *text = sdkconfig ? sdkconfig : "";
    eb_sha256_hex(text, strlen(text), cfg, NULL);
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "espbench-idf-build 1\nidf %s\nchip %s\nfirmware %d\nsdkconfig %s\ntree %s\n",
                     idf_commit ? idf_commit : "", chip ? chip : "", (int)fw, cfg, firmware_hash ? firmware_hash : "");
    if (n < 0 || (size_t)n >= sizeof buf)
        n = (int)strlen(buf);
    eb_sha256_hex(buf, (size_t)n, out, NULL);
}

/* What a build makes or keeps, not what it reads. */
static int tree_skip(const struct dirent *d)
{
    const char *n = d->d_name;
    if (n[0] == '.')
        return 0;
    if (strcmp(n, "build") == 0 || strncmp(n, "build-", 6) == 0 || strcmp(n, "sdkconfig") == 0 ||
        strcmp(n, "sdkconfig.old") == 0 || strcmp(n, "managed_components") == 0 || strcmp(n, "images") == 0 ||
        strcmp(n, "manifest.json") == 0)
        return 0;
    return 1;
}

static int tree_walk(const char *root, const char *rel, eb_buf *acc, int depth, eb_error *err)
{
    char dir[PATH_MAX];
    pathf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
    struct dirent **names;
    int n = scandir(dir, &names, tree_skip, alphasort);
    if (n < 0)
        return eb_fail(err, EB_EIO, "%s: cannot read the folder: %s", dir, strerror(errno));
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char r[PATH_MAX], full[PATH_MAX * 2];
        pathf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", names[i]->d_name);
        pathf(full, sizeof full, "%s/%s", root, r);
        struct stat st;
        if (!rc && stat(full, &st) == 0) {
            if (S_ISDIR(st.st_mode) && depth < 16) {
                rc = tree_walk(root, r, acc, depth + 1, err);
            } else if (S_ISREG(st.st_mode)) {
                char h[65];
                rc = eb_sha256_file(full, h, err);
                if (!rc) {
                    eb_buf_append(acc, r, strlen(r));
                    eb_buf_append(acc, "\0", 1);
                    eb_buf_append(acc, h, 64);
                    eb_buf_append(acc, "\n", 1);
                }
            }
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int eb_idf_tree_hash(const char *dir, char out[65], eb_error *err)
{
    eb_buf acc;
    eb_buf_init(&acc);
    int rc = tree_walk(dir, "", &acc, 0, err);
    if (!rc)
        rc = eb_sha256_hex(acc.data ? (const void *)acc.data : "", acc.len, out, err);
    eb_buf_free(&acc);
    return rc;
}

/* rm -rf of a folder this module made. */
static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[PATH_MAX];
        pathf(p, sizeof p, "%s/%s", path, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(path);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The source folder and the sdkconfig defaults list ("a;b;c") of a firmware kind. */
static int sources(const eb_idf_build_req *req, char *src, size_t scap, char *defaults, size_t dcap,
                   const char *extra, eb_error *err)
{
    if (req->firmware == EB_IDF_FW_IPERF_EXAMPLE) {
        pathf(src, scap, "%s/examples/wifi/iperf", req->idf->path);
        pathf(defaults, dcap, "%s/sdkconfig.defaults", src);
    } else {
        pathf(src, scap, "%s", req->firmware_dir ? req->firmware_dir : ESPBENCH_SOURCE_FIRMWARE);
        pathf(defaults, dcap, "%s/sdkconfig.defaults;%s/sdkconfig.console-uart0", src, src);
    }
    struct stat st;
    if (stat(src, &st) != 0 || !S_ISDIR(st.st_mode))
        return eb_fail(err, EB_ECONFIG, "firmware source %s: not a folder", src);
    if (extra) {
        size_t n = strlen(defaults);
        pathf(defaults + n, dcap - n, ";%s", extra);
    }
    return 0;
}

static int cache_root(const eb_idf_build_req *req, char *out, size_t cap, eb_error *err)
{
    if (req->cache_dir) {
        pathf(out, cap, "%s", req->cache_dir);
    } else {
        char base[PATH_MAX];
        int rc = eb_cache_dir(base, sizeof base, err);
        if (rc)
            return rc;
        pathf(out, cap, "%s/idf-builds", base);
    }
    if (strlen(out) > 900)
        return eb_fail(err, EB_ECONFIG, "build cache %s: path longer than 900 characters", out);
    if (eb_mkdir_p(out) != 0)
        return eb_fail(err, EB_EIO, "cannot create the build cache %s: %s", out, strerror(errno));
    return 0;
}

static void progress(const eb_idf_build_req *req, const char *fmt, const char *a, const char *b)
{
    if (!req->progress)
        return;
    char line[512];
    pathf(line, sizeof line, fmt, a, b);
    req->progress(req->user, line);
}

/* Runs the checkout's export.sh and idf.py in a fresh bash; every path is an
 * argument of the script, never part of its text. */
static int run_idf_py(const eb_idf_build_req *req, const char *src, const char *build, const char *defaults,
                      const char *log, eb_error *err)
{
    static const char script[] =
        ". \"$1/export.sh\" >/dev/null || { echo \"espbench: $1/export.sh failed\" >&2; exit 1; }\n"
        "exec idf.py -C \"$2\" -B \"$3\" -DIDF_TARGET=\"$4\" -DSDKCONFIG=\"$3/sdkconfig\" "
        "\"-DSDKCONFIG_DEFAULTS=$5\" build\n";
    const char *argv[] = {"bash", "-c", script, "espbench-idf-build", req->idf->path, src, build, req->chip,
                          defaults, NULL};
    char idf_env[sizeof req->idf->path + 16];
    pathf(idf_env, sizeof idf_env, "IDF_PATH=%s", req->idf->path);
    const char *env[] = {idf_env, NULL};
    eb_proc_spec s = {.argv = argv, .name = "idf.py", .env = env, .log_path = log,
                      .timeout_s = req->timeout_s > 0 ? req->timeout_s : 1800, .stop = req->stop};
    return eb_proc_run(&s, NULL, err);
}

static int build_into(const eb_idf_build_req *req, const char *root, eb_idf_build_result *res, eb_error *err)
{
    char tmp[PATH_MAX], build[PATH_MAX + 16], log[PATH_MAX + 16], extra[PATH_MAX + 32];
    pathf(tmp, sizeof tmp, "%s/%s.tmp-%ld", root, res->key, (long)getpid());
    remove_tree(tmp);
    pathf(build, sizeof build, "%s/build", tmp);
    pathf(log, sizeof log, "%s/build.log", tmp);
    if (eb_mkdir_p(build) != 0)
        return eb_fail(err, EB_EIO, "cannot create %s: %s", build, strerror(errno));
    const char *extra_path = NULL;
    if (req->sdkconfig && *req->sdkconfig) {
        pathf(extra, sizeof extra, "%s/sdkconfig.extra", tmp);
        int rc = eb_file_write_atomic(extra, req->sdkconfig, strlen(req->sdkconfig), err);
        if (rc)
            return rc;
        extra_path = extra;
    }
    char src[PATH_MAX], defaults[3 * PATH_MAX];
    int rc = sources(req, src, sizeof src, defaults, sizeof defaults, extra_path, err);
    if (rc)
        return rc;
    double t0 = mono_s();
    rc = run_idf_py(req, src, build, defaults, log, err);
    res->seconds = mono_s() - t0;
    char flasher[PATH_MAX + 32];
    pathf(flasher, sizeof flasher, "%s/flasher_args.json", build);
    if (!rc && !is_file(flasher))
        rc = eb_fail(err, EB_EIO, "the build made no flasher_args.json");
    char final[PATH_MAX];
    pathf(final, sizeof final, "%s/%s", root, res->key);
    if (!rc && rename(tmp, final) != 0)
        rc = eb_fail(err, EB_EIO, "cannot rename %s to %s: %s", tmp, final, strerror(errno));
    if (rc) {
        /* The log outlives the failed build; the half-built folder does not. */
        pathf(res->log, sizeof res->log, "%s/%s.failed.log", root, res->key);
        if (rename(log, res->log) != 0)
            pathf(res->log, sizeof res->log, "%s", log);
        else
            remove_tree(tmp);
        return rc;
    }
    pathf(res->dir, sizeof res->dir, "%s/build", final);
    pathf(res->log, sizeof res->log, "%s/build.log", final);
    return 0;
}

int eb_idf_build_firmware(const eb_idf_build_req *req, eb_idf_build_result *res, eb_error *err)
{
    memset(res, 0, sizeof *res);
    const eb_idf_checkout *idf = req->idf;
    pathf(res->idf_version, sizeof res->idf_version, "%s", idf->version);
    pathf(res->idf_commit, sizeof res->idf_commit, "%s", idf->commit);
    char root[PATH_MAX], src[PATH_MAX], defaults[3 * PATH_MAX], tree[65];
    int rc = cache_root(req, root, sizeof root, err);
    if (!rc)
        rc = sources(req, src, sizeof src, defaults, sizeof defaults, NULL, err);
    if (!rc)
        rc = eb_idf_tree_hash(src, tree, err);
    if (rc)
        return eb_error_prefix(err, "build %s with ESP-IDF %s (%s): ", req->chip, idf->version, idf->path);
    /* Without git, the path stands for the commit. */
    char who[sizeof idf->path + 64];
    if (idf->commit[0])
        pathf(who, sizeof who, "%s", idf->commit);
    else
        pathf(who, sizeof who, "path:%s %s", idf->path, idf->version);
    eb_idf_cache_key(who, req->chip, req->firmware, req->sdkconfig, tree, res->key);
    char flasher[PATH_MAX + 64];
    pathf(flasher, sizeof flasher, "%s/%s/build/flasher_args.json", root, res->key);
    if (is_file(flasher)) {
        res->cached = true;
        pathf(res->dir, sizeof res->dir, "%s/%s/build", root, res->key);
        pathf(res->log, sizeof res->log, "%s/%s/build.log", root, res->key);
        return 0;
    }
    progress(req, "building %s with ESP-IDF %s", req->chip, idf->version);
    rc = build_into(req, root, res, err);
    if (rc) {
        char why[EB_ERROR_MSG_MAX];
        pathf(why, sizeof why, "%s", err->msg);
        return eb_fail(err, rc, "build %s with ESP-IDF %s (%s) failed: %s; see %s", req->chip, idf->version,
                       idf->path, why, res->log);
    }
    return 0;
}
