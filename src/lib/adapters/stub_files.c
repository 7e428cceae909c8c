/* Flasher stubs from what the PC already has (stub_files.h). */
#include "espbench/adapters/stub_files.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "espbench/adapters/fetch.h"
#include "espbench/adapters/spawn.h"
#include "espbench/base/buf.h"
#include "espbench/base/clock.h"
#include "espbench/base/fs.h"
#include "espbench/base/log.h"


#define STUB_FILE_MAX (1024 * 1024)
#define PROBE_MS 5000

/* espressif/esp-flasher-stub release files (Apache-2.0 OR MIT), by chip: a
 * pin is the URL and the SHA-256 of the file as released (v1.2.2). The
 * hashes are those of esptool-js 0.7.0's copies of these files without the
 * final newline its packaging appends: for the ESP32-S3 that is the hash a
 * public provenance record gives for the release asset, checked against the
 * release's metadata; the others follow the same way, unchecked against the
 * release itself (this was written where GitHub cannot be reached). A file
 * that does not match is not used (the ROM loader flashes, and a line says
 * why). $ESPBENCH_STUB_PINS replaces the list. */
#define STUB_RELEASE "https://github.com/espressif/esp-flasher-stub/releases/download/v1.2.2"
static const struct stub_pin {
    const char *chip, *sha256, *url;
} builtin_pins[] = {
    {"esp32", "d615e54e50af5ac7348393cca5d8edb369df9840b2ace5d07a86c40d28e39bea",
     STUB_RELEASE "/esp32.json"},
    {"esp32c2", "5d098f981742fad65a1fea606ddf0cb2a0772685bb35d3a0009029e6a7a07869",
     STUB_RELEASE "/esp32c2.json"},
    {"esp32c3", "8d342da995f01240c8671937f290757bf67bdf4bb818b022539e8e40bf61623a",
     STUB_RELEASE "/esp32c3.json"},
    {"esp32c5", "fe53ce4ad53f68bf1f8f5b4fcd17d4b6608334bb1dbda78b200b1d1f902e4bba",
     STUB_RELEASE "/esp32c5.json"},
    {"esp32c6", "a326f564fa8fe3ec69c1c17a9dd2df8918da1e37b44004019a643f5f181b8b27",
     STUB_RELEASE "/esp32c6.json"},
    {"esp32c61", "308a86cc02cac95a86cf73e4a92d37a6cfc3249117a9b4836ce2c408142adde5",
     STUB_RELEASE "/esp32c61.json"},
    {"esp32p4", "8cae9e8aec3de3433394cc347ebe49f54d21fcfc04e088a404bca5ae0eb07870",
     STUB_RELEASE "/esp32p4.json"},
    {"esp32s2", "98154bb724806a41f798e91ef842ab2768350d2c8e57ebd110a3502663dc41dd",
     STUB_RELEASE "/esp32s2.json"},
    {"esp32s3", "8816e0611701e8f7396a9fee9d1d33bc2021751bf24bda54560fb87c62de3f0b",
     STUB_RELEASE "/esp32s3.json"},
    {"esp8266", "9ce821527ecb67224bf19cf78bef45a4de5b5f03ac08f100daf8de32499972e3",
     STUB_RELEASE "/esp8266.json"},
};

int eb_stub_load_file(const char *path, const eb_profiles *profiles, eb_stub *out, eb_error *err)
{
    memset(out, 0, sizeof *out);
    eb_buf b;
    eb_buf_init(&b);
    int rc = eb_file_read(path, STUB_FILE_MAX, "a flasher stub file is a few tens of KB", &b, err);
    if (rc == EB_EIO)
        rc = eb_fail(err, EB_ECONFIG, "--stub %s: cannot read it: %s; give a stub JSON file, auto or off", path,
                     strerror(errno));
    if (!rc)
        rc = eb_stub_parse(path, b.data, b.len, profiles, out, err);
    eb_buf_free(&b);
    return rc;
}

int eb_stub_mode_check(const char *mode, const eb_profiles *profiles, eb_error *err)
{
    if (!mode || !strcmp(mode, "auto") || !strcmp(mode, "off"))
        return EB_OK;
    eb_stub s;
    int rc = eb_stub_load_file(mode, profiles, &s, err);
    eb_stub_free(&s);
    return rc;
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Runs argv with a deadline and returns its first output line (trimmed) in
 * out; false when it cannot run, fails or says nothing in time. */
static bool probe(const char *const *argv, char *out, size_t cap)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return false;
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    eb_spawn_spec sp = {.argv = argv, .out_fd = fds[1], .err_fd = null < 0 ? fds[1] : null};
    pid_t pid;
    int rc = eb_spawn(&sp, &pid);
    if (null >= 0)
        close(null);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return false;
    }
    size_t n = 0;
    eb_deadline d = eb_deadline_in(PROBE_MS);
    for (;;) {
        int left = eb_deadline_left_ms(d);
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        if (left <= 0 || poll(&p, 1, left) <= 0)
            break;
        ssize_t got = read(fds[0], out + n, cap - 1 - n);
        if (got <= 0)
            break;
        n += (size_t)got;
        if (n >= cap - 1)
            break;
    }
    close(fds[0]);
    kill(pid, SIGKILL); /* no-op when it has exited */
    eb_spawn_reap(pid, NULL);
    out[n] = '\0';
    out[strcspn(out, "\r\n")] = '\0';
    return n > 0 && out[0] == '/';
}

/* The version an installed package states: the first "KEY...\"X\"" in FILE. */
static void read_version(const char *file, const char *key, char *out, size_t cap)
{
    out[0] = '\0';
    eb_buf b;
    eb_buf_init(&b);
    eb_error e;
    if (eb_file_read(file, 4 * 1024 * 1024, NULL, &b, &e) == EB_OK) {
        const char *t = eb_buf_cstr(&b), *k = strstr(t, key);
        const char *q = k ? strchr(k + strlen(key), '"') : NULL;
        const char *q2 = q ? strchr(q + 1, '"') : NULL;
        if (q2 && q2 - q - 1 < (long)cap && q2 - q < 40)
            snprintf(out, cap, "%.*s", (int)(q2 - q - 1), q + 1);
    }
    eb_buf_free(&b);
}

/* A chip's stub in an esptool package directory: esptool 4.8 and later keep
 * the legacy stubs in stub_flasher/1/ and esp-flasher-stub's in 2/; older
 * ones stub_flasher_32c3.json beside each other. */
static bool esptool_stub_in(const char *pkg, const eb_chip *chip, char *path, size_t cap)
{
    const char *short_name = !strncmp(chip->name, "esp", 3) ? chip->name + 3 : chip->name;
    const char *forms[] = {"%s/targets/stub_flasher/1/%s.json", "%s/targets/stub_flasher/%s.json",
                           "%s/targets/stub_flasher/stub_flasher_%s.json", "%s/targets/stub_flasher/2/%s.json"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        snprintf(path, cap, forms[i], pkg, i == 2 ? short_name : chip->name);
        if (is_file(path))
            return true;
    }
    return false;
}

typedef struct found {
    char path[1024];
    char origin[96];
} found;

static bool try_esptool_pkg(const char *pkg, const eb_chip *chip, found *f)
{
    if (!esptool_stub_in(pkg, chip, f->path, sizeof f->path))
        return false;
    char init[1100], ver[32];
    snprintf(init, sizeof init, "%s/__init__.py", pkg);
    read_version(init, "__version__", ver, sizeof ver);
    snprintf(f->origin, sizeof f->origin, "esptool%s%s", ver[0] ? " " : "", ver);
    return true;
}

/* Every esptool package matching a glob of site/dist-packages directories. */
static bool try_esptool_glob(const char *pattern, const eb_chip *chip, found *f)
{
    glob_t g;
    bool ok = false;
    if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc && !ok; i++)
            ok = try_esptool_pkg(g.gl_pathv[i], chip, f);
    globfree(&g);
    return ok;
}

static bool find_esptool(const eb_chip *chip, found *f)
{
    const char *home = getenv("HOME"), *venv = getenv("VIRTUAL_ENV"), *idf = getenv("IDF_PYTHON_ENV_PATH");
    char pat[1100];
    /* the Python installs of a lab PC: a venv in use, the user's, pipx's, the system's */
    const char *roots[][2] = {
        {venv, "%s/lib/python3*/site-packages/esptool"},
        {home, "%s/.local/lib/python3*/site-packages/esptool"},
        {home, "%s/.local/share/pipx/venvs/esptool/lib/python3*/site-packages/esptool"},
        {"", "%s/usr/local/lib/python3*/dist-packages/esptool"},
        {"", "%s/usr/lib/python3/dist-packages/esptool"},
        {"", "%s/usr/lib/python3*/site-packages/esptool"},
        {idf, "%s/lib/python3*/site-packages/esptool"}, /* ESP-IDF's Python environment */
    };
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        if (!roots[i][0] || (roots[i][0][0] == '\0' && i < 3))
            continue;
        snprintf(pat, sizeof pat, roots[i][1], roots[i][0]);
        if (try_esptool_glob(pat, chip, f))
            return true;
    }
    const char *py[] = {"python3", "-c", "import esptool, os; print(os.path.dirname(esptool.__file__))", NULL};
    char dir[1024];
    return probe(py, dir, sizeof dir) && try_esptool_pkg(dir, chip, f);
}

static bool try_node_modules(const char *nm, const eb_chip *chip, found *f)
{
    snprintf(f->path, sizeof f->path, "%s/esptool-js/lib/targets/stub_flasher/%s.json", nm, chip->name);
    if (!is_file(f->path))
        return false;
    char pkg[1100], ver[32];
    snprintf(pkg, sizeof pkg, "%s/esptool-js/package.json", nm);
    read_version(pkg, "\"version\":", ver, sizeof ver);
    snprintf(f->origin, sizeof f->origin, "esptool-js%s%s", ver[0] ? " " : "", ver);
    return true;
}

static bool find_esptool_js(const eb_chip *chip, found *f)
{
    const char *np = getenv("NODE_PATH"); /* Node's own list of module folders */
    if (np && *np) {
        char *copy = strdup(np), *save = NULL;
        bool ok = false;
        for (char *t = copy ? strtok_r(copy, ":", &save) : NULL; t && !ok; t = strtok_r(NULL, ":", &save))
            ok = try_node_modules(t, chip, f);
        free(copy);
        if (ok)
            return true;
    }
    const char *home = getenv("HOME");
    char dir[1100];
    const char *fixed[] = {"node_modules", "/usr/local/lib/node_modules", "/usr/lib/node_modules"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (try_node_modules(fixed[i], chip, f))
            return true;
    if (home) {
        snprintf(dir, sizeof dir, "%s/.npm-global/lib/node_modules", home);
        if (try_node_modules(dir, chip, f))
            return true;
    }
    const char *npm[] = {"npm", "root", "-g", NULL};
    return probe(npm, dir, sizeof dir) && try_node_modules(dir, chip, f);
}

/* The pin for a chip: $ESPBENCH_STUB_PINS (lines "CHIP SHA256 URL", '#'
 * comments; an empty file pins nothing), else the built-in ones. */
static bool pin_for(const eb_chip *chip, char *sha, char *url, size_t url_cap)
{
    const char *file = getenv("ESPBENCH_STUB_PINS");
    if (!file || !*file) {
        for (size_t i = 0; i < sizeof builtin_pins / sizeof builtin_pins[0]; i++)
            if (!strcmp(builtin_pins[i].chip, chip->name)) {
                snprintf(sha, 65, "%s", builtin_pins[i].sha256);
                snprintf(url, url_cap, "%s", builtin_pins[i].url);
                return true;
            }
        return false;
    }
    FILE *fp = fopen(file, "r");
    if (!fp)
        return false;
    char line[1200], c[32], s[72], u[1100];
    bool ok = false;
    while (!ok && fgets(line, sizeof line, fp))
        if (line[0] != '#' && sscanf(line, "%31s %71s %1099s", c, s, u) == 3 && !strcmp(c, chip->name) &&
            strlen(s) == 64) {
            memcpy(sha, s, 64);
            sha[64] = '\0';
            snprintf(url, url_cap, "%s", u);
            ok = true;
        }
    fclose(fp);
    return ok;
}

/* 0 found, 1 no pin, 2 the download failed (why in hint). */
static int find_download(const eb_chip *chip, found *f, char *hint, size_t hint_cap)
{
    char sha[65], url[1100];
    if (!pin_for(chip, sha, url, sizeof url))
        return 1;
    eb_fetch_opts o = {.sha256 = sha, .max_bytes = STUB_FILE_MAX, .timeout_s = 30};
    eb_error e;
    if (eb_fetch(url, &o, f->path, sizeof f->path, &e) != EB_OK) {
        snprintf(hint, hint_cap, "could not download the pinned esp-flasher-stub file: %.500s", e.msg);
        return 2;
    }
    const char *v = strstr(url, "/download/v");
    int vlen = v ? (int)strcspn(v + 11, "/") : 0;
    snprintf(f->origin, sizeof f->origin, "esp-flasher-stub%s%.*s", v ? " " : "", vlen, v ? v + 11 : "");
    return 0;
}

int eb_stub_find(const char *mode, const eb_chip *chip, const eb_profiles *profiles, eb_stub *out, char *hint,
                 size_t hint_cap, eb_error *err)
{
    memset(out, 0, sizeof *out);
    hint[0] = '\0';
    if (mode && !strcmp(mode, "off"))
        return 1;
    int rc;
    if (mode && strcmp(mode, "auto") != 0) {
        if ((rc = eb_stub_load_file(mode, profiles, out, err)) || (rc = eb_stub_check_chip(out, chip, err))) {
            eb_stub_free(out);
            return rc;
        }
        return 0;
    }
    found f = {{0}, {0}};
    char why[600] = "";
    int dl = 1;
    if (!find_esptool(chip, &f) && !find_esptool_js(chip, &f) && (dl = find_download(chip, &f, why, sizeof why))) {
        snprintf(hint, hint_cap,
                 "%s%sno flasher stub for the %s found (esptool, esptool-js or a pinned esp-flasher-stub download): "
                 "flashing through the ROM loader; 'pip install esptool' (or npm's esptool-js) makes it faster, "
                 "see --stub in espbench(1)",
                 why, dl == 2 ? "; " : "", chip->display);
        return 1;
    }
    /* A stub that is installed but broken is worth a line, not a failed flash. */
    if ((rc = eb_stub_load_file(f.path, profiles, out, err)) || (rc = eb_stub_check_chip(out, chip, err))) {
        snprintf(hint, hint_cap, "%s; flashing through the ROM loader", err->msg);
        eb_stub_free(out);
        return 1;
    }
    snprintf(out->origin, sizeof out->origin, "%s", f.origin);
    return 0;
}
