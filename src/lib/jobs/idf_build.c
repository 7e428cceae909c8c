/* Firmware built per ESP-IDF checkout, cached (idf_build.h, docs/idf-builds.md). */
#include "espbench/jobs/idf_build.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
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

/* The submodules `git submodule status --recursive` marks: '-' not
 * initialised (ESP-IDF's build initialises it: tools/cmake/git_submodules.cmake),
 * '+' at another commit than HEAD records (the build only warns "Git submodule
 * X is out of date"), so the key must hold what is checked out. */
static void count_stale(const char *status, eb_idf_checkout *out)
{
    for (const char *l = status; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        if (n > 42 && (*l == '+' || *l == '-')) {
            if (!out->stale_submodules++) {
                const char *name = l + 42, *sp = memchr(name, ' ', n - 42);
                pathf(out->stale_first, sizeof out->stale_first, "%.*s (%s)",
                      (int)(sp ? sp - name : (long)(n - 42)), name, *l == '+' ? "out of date" : "not initialised");
            }
        }
        l = e ? e + 1 : l + n;
    }
}

/* The tree's real state beyond HEAD: a hash of `git diff HEAD` (tracked
 * files, binary-safe) and the submodules' checked-out commits. */
static int tree_state(const char *abs, eb_idf_checkout *out, eb_error *err)
{
    char tmp[] = "/tmp/espbench-idf-diff-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return eb_fail(err, EB_EIO, "cannot create a temporary file in /tmp: %s", strerror(errno));
    close(fd);
    const char *diff[] = {"git", "-C", abs, "diff", "HEAD", "--binary", "--no-ext-diff", "--no-color",
                          "--ignore-submodules=all", NULL};
    eb_proc_spec ds = {.argv = diff, .name = "git diff", .log_path = tmp, .timeout_s = 300};
    char dh[65] = "";
    struct stat st;
    int rc = eb_proc_run(&ds, NULL, err);
    if (!rc)
        rc = eb_sha256_file(tmp, dh, err);
    out->dirty = !rc && stat(tmp, &st) == 0 && st.st_size > 0;
    unlink(tmp);
    if (rc)
        return eb_error_prefix(err, "--idf %s: ", abs);
    size_t cap = 1u << 20;
    char *sub = malloc(cap);
    if (!sub)
        return eb_fail(err, EB_EIO, "out of memory");
    const char *ss[] = {"git", "-C", abs, "submodule", "status", "--recursive", NULL};
    eb_error ig;
    if (eb_proc_output(ss, NULL, 300, sub, cap, &ig) != 0)
        sub[0] = 0;
    count_stale(sub, out);
    eb_buf b;
    eb_buf_init(&b);
    eb_buf_append(&b, "diff ", 5);
    eb_buf_append(&b, dh, 64);
    eb_buf_append(&b, "\nsubmodules\n", 12);
    eb_buf_append(&b, sub, strlen(sub));
    free(sub);
    rc = eb_sha256_hex(b.data, b.len, out->state, err);
    eb_buf_free(&b);
    return rc;
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
    return out->commit[0] ? tree_state(abs, out, err) : 0;
}

#define OR_EMPTY(s) ((s) ? (s) : "")

void eb_idf_cache_key(const eb_idf_key_parts *p, char out[65])
{
    char cfg[65] = "";
    const char *text = OR_EMPTY(p->sdkconfig);
    eb_sha256_hex(text, strlen(text), cfg, NULL);
    char buf[2048];
    int n = snprintf(buf, sizeof buf,
                     "espbench-idf-build 2\nidf %s\nstate %s\ntoolchain %s\nchip %s\nfirmware %d\nsdkconfig %s\n"
                     "tree %s\n",
                     OR_EMPTY(p->idf_commit), OR_EMPTY(p->idf_state), OR_EMPTY(p->toolchain), OR_EMPTY(p->chip),
                     (int)p->fw, cfg, OR_EMPTY(p->firmware_hash));
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
    /* dependencies.lock and managed_components/ are the component manager's
     * output in the project folder (IDF Component Manager docs). */
    if (strcmp(n, "build") == 0 || strncmp(n, "build-", 6) == 0 || strcmp(n, "sdkconfig") == 0 ||
        strcmp(n, "sdkconfig.old") == 0 || strcmp(n, "managed_components") == 0 || strcmp(n, "images") == 0 ||
        strcmp(n, "manifest.json") == 0 || strcmp(n, "dependencies.lock") == 0)
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

/* Copies the firmware project (what tree_skip keeps) into dst: the
 * component manager writes dependencies.lock and managed_components/ into
 * the project folder, so the build must not run in the source tree. */
static int copy_tree(const char *src, const char *dst, int depth, eb_error *err)
{
    if (eb_mkdir_p(dst) != 0)
        return eb_fail(err, EB_EIO, "cannot create %s: %s", dst, strerror(errno));
    struct dirent **names;
    int n = scandir(src, &names, tree_skip, alphasort);
    if (n < 0)
        return eb_fail(err, EB_EIO, "%s: cannot read the folder: %s", src, strerror(errno));
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char from[PATH_MAX], to[PATH_MAX];
        pathf(from, sizeof from, "%s/%s", src, names[i]->d_name);
        pathf(to, sizeof to, "%s/%s", dst, names[i]->d_name);
        free(names[i]);
        struct stat st;
        if (rc || stat(from, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth < 16)
                rc = copy_tree(from, to, depth + 1, err);
        } else if (S_ISREG(st.st_mode)) {
            eb_buf b;
            eb_buf_init(&b);
            rc = eb_file_read(from, 256u << 20, NULL, &b, err);
            if (!rc)
                rc = eb_file_write_atomic(to, b.data ? (const void *)b.data : "", b.len, err);
            if (!rc)
                chmod(to, st.st_mode & 0777);
            eb_buf_free(&b);
        }
    }
    free(names);
    return rc;
}

/* Sources export.sh in the clean environment of eb_idf_env_script, then
 * idf.py on the project copy. Every path is an argument of the script,
 * never part of its text. */
static const char build_script[] =
    "export PATH=\"$6\"\n"
    "export IDF_COMPONENT_CACHE_PATH=\"${IDF_COMPONENT_CACHE_PATH:-$7}\"\n"
    ". \"$1/export.sh\" || { echo \"espbench: $1/export.sh returned $?\" >&2; exit 97; }\n"
    "exec idf.py -C \"$2\" -B \"$3\" -DIDF_TARGET=\"$4\" -DSDKCONFIG=\"$3/sdkconfig\" "
    "\"-DSDKCONFIG_DEFAULTS=$5\" build\n";

static int run_idf_py(const eb_idf_build_req *req, const char *project, const char *build, const char *defaults,
                      const char *components, const char *log, eb_error *err)
{
    char script[2048], path[8192];
    eb_idf_env_script(script, sizeof script, build_script);
    eb_idf_env_path(path, sizeof path);
    const char *argv[] = {"bash", "-c", script, "espbench-idf-build", req->idf->path, project, build, req->chip,
                          defaults, path, components, NULL};
    eb_proc_spec s = {.argv = argv, .name = "idf.py", .log_path = log,
                      .timeout_s = req->timeout_s > 0 ? req->timeout_s : 1800, .stop = req->stop};
    return eb_proc_run(&s, NULL, err);
}

/* The registry components the project's manifests name ("espressif/iperf"),
 * comma-separated, for the no-network error. */
static void manifest_components(const char *dir, char *out, size_t cap, int depth)
{
    struct dirent **names;
    int n = scandir(dir, &names, tree_skip, alphasort);
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX];
        pathf(p, sizeof p, "%s/%s", dir, names[i]->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode) && depth < 4) {
            manifest_components(p, out, cap, depth + 1);
        } else if (strcmp(names[i]->d_name, "idf_component.yml") == 0) {
            eb_buf b;
            eb_buf_init(&b);
            eb_error ig;
            if (eb_file_read(p, 1 << 20, NULL, &b, &ig) == 0) {
                for (char *l = strtok((char *)eb_buf_cstr(&b), "\n"); l; l = strtok(NULL, "\n")) {
                    char name[128];
                    /* "  namespace/name: ..." under dependencies: */
                    if (sscanf(l, " %127[A-Za-z0-9_.-/]:", name) == 1 && strchr(name, '/') && !strstr(out, name)) {
                        size_t o = strlen(out);
                        pathf(out + o, cap - o, "%s%s", o ? ", " : "", name);
                    }
                }
            }
            eb_buf_free(&b);
        }
        free(names[i]);
    }
    if (n >= 0)
        free(names);
}

/* Why a failed build failed, from its log, when it was the environment's
 * doing: the component manager offline. */
static bool offline_failure(const char *log)
{
    eb_buf b;
    eb_buf_init(&b);
    eb_error ig;
    bool hit = eb_file_read(log, 64u << 20, NULL, &b, &ig) == 0 &&
               /* idf-component-manager's error without a connection to the registry */
               strstr(eb_buf_cstr(&b), "Cannot establish a connection to the component registry");
    eb_buf_free(&b);
    return hit;
}

/* Waits for the key's lock (another espbench building the same key), with
 * the build's deadline and stop. */
static int lock_key(const char *lock, const eb_idf_build_req *req, int *fd, eb_error *err)
{
    *fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (*fd < 0)
        return eb_fail(err, EB_EIO, "cannot open %s: %s", lock, strerror(errno));
    double end = mono_s() + (req->timeout_s > 0 ? req->timeout_s : 1800);
    while (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
        if (req->stop && *req->stop)
            return eb_fail(err, EB_EINTR, "interrupted");
        if (mono_s() > end)
            return eb_fail(err, EB_EIO, "%s: another espbench has built this key for too long", lock);
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* Builds in root/KEY, the folder it stays in: CMakeCache.txt and build.ninja
 * keep absolute paths, so a build folder renamed after the build breaks
 * `idf.py -B DIR flash`. KEY/done marks a finished build. */
static int build_into(const eb_idf_build_req *req, const char *root, const char *src, eb_idf_build_result *res,
                      eb_error *err)
{
    char dir[PATH_MAX], project[PATH_MAX + 16], build[PATH_MAX + 16], log[PATH_MAX + 16], extra[PATH_MAX + 32];
    pathf(dir, sizeof dir, "%s/%s", root, res->key);
    remove_tree(dir); /* a killed build's leftovers */
    pathf(project, sizeof project, "%s/project", dir);
    pathf(build, sizeof build, "%s/build", dir);
    pathf(log, sizeof log, "%s/build.log", dir);
    int rc = copy_tree(src, project, 0, err);
    if (!rc && eb_mkdir_p(build) != 0)
        rc = eb_fail(err, EB_EIO, "cannot create %s: %s", build, strerror(errno));
    if (rc)
        return rc;
    const char *extra_path = NULL;
    if (req->sdkconfig && *req->sdkconfig) {
        pathf(extra, sizeof extra, "%s/sdkconfig.extra", dir);
        if ((rc = eb_file_write_atomic(extra, req->sdkconfig, strlen(req->sdkconfig), err)) != 0)
            return rc;
        extra_path = extra;
    }
    char defaults[3 * PATH_MAX], comp[PATH_MAX + 16];
    /* The defaults name the project copy's files, not the source tree's. */
    if (req->firmware == EB_IDF_FW_ESPBENCH)
        pathf(defaults, sizeof defaults, "%s/sdkconfig.defaults;%s/sdkconfig.console-uart0%s%s", project, project,
              extra_path ? ";" : "", extra_path ? extra_path : "");
    else
        pathf(defaults, sizeof defaults, "%s/sdkconfig.defaults%s%s", project, extra_path ? ";" : "",
              extra_path ? extra_path : "");
    if (req->component_cache)
        pathf(comp, sizeof comp, "%s", req->component_cache);
    else
        pathf(comp, sizeof comp, "%s/components", root);
    double t0 = mono_s();
    rc = run_idf_py(req, project, build, defaults, comp, log, err);
    res->seconds = mono_s() - t0;
    char flasher[PATH_MAX + 32], done[PATH_MAX + 16];
    pathf(flasher, sizeof flasher, "%s/flasher_args.json", build);
    pathf(done, sizeof done, "%s/done", dir);
    if (!rc && !is_file(flasher))
        rc = eb_fail(err, EB_EIO, "the build made no flasher_args.json");
    if (!rc)
        rc = eb_file_write_atomic(done, res->toolchain, strlen(res->toolchain), err);
    if (rc) {
        /* The log outlives the failed build; the half-built folder does not. */
        pathf(res->log, sizeof res->log, "%s/%s.failed.log", root, res->key);
        if (rename(log, res->log) != 0)
            pathf(res->log, sizeof res->log, "%s", log);
        else
            remove_tree(dir);
        if (rc != EB_EINTR && offline_failure(res->log)) {
            char names[512] = "";
            manifest_components(src, names, sizeof names, 0);
            res->env_error = true;
            return eb_fail(err, EB_ECONFIG, "the component manager needs the network for %s and has none (the "
                           "downloads are kept in %s once fetched)", names[0] ? names : "the project's components",
                           comp);
        }
        return rc;
    }
    pathf(res->dir, sizeof res->dir, "%s", build);
    pathf(res->log, sizeof res->log, "%s", log);
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
    eb_idf_env env;
    if ((rc = eb_idf_env_probe(idf, req->chip, &env, err)) != 0) {
        res->env_error = rc != EB_EINTR;
        return rc;
    }
    pathf(res->toolchain, sizeof res->toolchain, "%s", env.toolchain);
    /* Without git, the path stands for the commit. */
    char who[sizeof idf->path + 64];
    if (idf->commit[0])
        pathf(who, sizeof who, "%s", idf->commit);
    else
        pathf(who, sizeof who, "path:%s %s", idf->path, idf->version);
    eb_idf_key_parts kp = {.idf_commit = who, .idf_state = idf->state, .toolchain = env.toolchain,
                           .chip = req->chip, .fw = req->firmware, .sdkconfig = req->sdkconfig,
                           .firmware_hash = tree};
    eb_idf_cache_key(&kp, res->key);
    char lock[PATH_MAX + 80], done[PATH_MAX + 80];
    pathf(lock, sizeof lock, "%s/%s.lock", root, res->key);
    pathf(done, sizeof done, "%s/%s/done", root, res->key);
    int fd = -1;
    rc = lock_key(lock, req, &fd, err);
    if (!rc && is_file(done)) {
        res->cached = true;
        pathf(res->dir, sizeof res->dir, "%s/%s/build", root, res->key);
        pathf(res->log, sizeof res->log, "%s/%s/build.log", root, res->key);
    } else if (!rc) {
        progress(req, "building %s with ESP-IDF %s", req->chip, idf->version);
        rc = build_into(req, root, src, res, err);
    }
    if (fd >= 0)
        close(fd); /* the lock file stays: removing it would race a waiter */
    if (rc && rc != EB_EINTR) {
        char why[EB_ERROR_MSG_MAX];
        pathf(why, sizeof why, "%s", err->msg);
        return eb_fail(err, rc, "build %s with ESP-IDF %s (%s) failed: %s; see %s", req->chip, idf->version,
                       idf->path, why, res->log[0] ? res->log : root);
    }
    return rc;
}
