/* The environment an ESP-IDF build starts from (idf_build.h): what another
 * export left is taken out, the checkout's export.sh is sourced and checked,
 * and the version the firmware needs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/adapters/proc_run.h"
#include "espbench/base/buf.h"
#include "espbench/formats/idf_version.h"
#include "espbench/jobs/idf_build.h"

/* What an export sets. export.sh -> tools/activate.py sets IDF_PATH,
 * IDF_PATH_OLD, IDF_PYTHON_ENV_PATH, ESP_IDF_VERSION; export_utils/
 * shell_types.py IDF_TOOLS_INSTALL_CMD, IDF_TOOLS_EXPORT_CMD,
 * IDF_DEACTIVATE_FILE_PATH; tools.json's export_vars OPENOCD_SCRIPTS,
 * ESP_ROM_ELF_DIR, ESP_CLANG_LIBS_PATH, IDF_CCACHE_ENABLE. A leaked
 * IDF_PYTHON_ENV_PATH makes another version's export fail (idf_tools.py
 * check_python_venv_compatibility: "... which was generated for ESP-IDF X
 * instead of the current Y"); a leaked IDF_TARGET that differs from the chip
 * stops idf.py (tools/idf_py_actions/tools.py _check_idf_target). IDF_TOOLS_PATH,
 * IDF_COMPONENT_* and the user's own variables stay. */
const char *const eb_idf_export_vars[] = {
    "IDF_PATH", "IDF_PATH_OLD", "IDF_PATH_FORCE", "IDF_PYTHON_ENV_PATH", "ESP_IDF_VERSION", "IDF_TARGET",
    "IDF_TOOLCHAIN", "IDF_TOOLS_EXPORT_CMD", "IDF_TOOLS_INSTALL_CMD", "IDF_DEACTIVATE_FILE_PATH",
    "IDF_ADD_PATHS_EXTRAS", "IDF_PY_COMP_WORDBREAKS", "OPENOCD_SCRIPTS", "ESP_ROM_ELF_DIR", "ESP_CLANG_LIBS_PATH",
    "IDF_CCACHE_ENABLE", "ESP_PYTHON", "IDF_SKIP_CHECK_SUBMODULES", NULL,
};

static bool under(const char *entry, size_t n, const char *dir, const char *sub)
{
    if (!dir || !*dir)
        return false;
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    char pre[1200];
    int k = snprintf(pre, sizeof pre, "%.*s%s", (int)dl, dir, sub ? sub : "");
    if (k <= 0 || (size_t)k >= sizeof pre)
        return false;
    return n >= (size_t)k && memcmp(entry, pre, (size_t)k) == 0 && (n == (size_t)k || entry[k] == '/');
}

void eb_idf_clean_path(const char *path, const char *idf_path, const char *py_env, const char *tools_path,
                       char *out, size_t cap)
{
    size_t o = 0;
    if (cap)
        out[0] = 0;
    for (const char *p = path ? path : ""; *p || p == path;) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        bool drop = n == 0 || under(p, n, idf_path, NULL) || under(p, n, py_env, NULL) ||
                    under(p, n, tools_path, "/tools") || under(p, n, tools_path, "/python_env");
        if (!drop && o + n + 2 < cap) {
            if (o)
                out[o++] = ':';
            memcpy(out + o, p, n);
            o += n;
            out[o] = 0;
        }
        if (!e)
            break;
        p = e + 1;
    }
}

/* A line that starts with prefix (leading blanks and trailing blanks or CR
 * skipped) into out: the first such line, whole, or the last one, the text
 * after prefix. False when no line does. The first ERROR: is the cause
 * (idf_tools.py's fatal()), the later ones activate.py's "Activation script
 * failed" around it; the probe's own verdict is its last line. */
static bool find_line(const char *text, size_t len, const char *prefix, bool last, char *out, size_t cap)
{
    bool found = false;
    size_t pl = strlen(prefix);
    for (size_t i = 0; i < len;) {
        const char *l = text + i, *end = memchr(l, '\n', len - i);
        size_t n = end ? (size_t)(end - l) : len - i;
        i += n + 1;
        while (n && (*l == ' ' || *l == '\t'))
            l++, n--;
        while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
            n--;
        if (n < pl || memcmp(l, prefix, pl) != 0)
            continue;
        found = true;
        if (!last) {
            snprintf(out, cap, "%.*s", (int)n, l);
            break;
        }
        snprintf(out, cap, "%.*s", (int)(n - pl), l + pl);
    }
    return found;
}

void eb_idf_env_parse(const char *text, size_t len, eb_idf_env *out)
{
    memset(out, 0, sizeof *out);
    /* activate.py's die() and idf_tools.py's fatal() print "ERROR: ..." on stderr. */
    find_line(text, len, "ERROR:", false, out->export_error, sizeof out->export_error);
    if (find_line(text, len, "espbench-env: ", true, out->problem, sizeof out->problem))
        return;
    if (find_line(text, len, "espbench-cc: ", true, out->toolchain, sizeof out->toolchain) && out->toolchain[0]) {
        out->ok = true;
        return;
    }
    snprintf(out->problem, sizeof out->problem, "the environment check printed nothing");
}

/* Takes out what an export left ($1 the unset list is text of constants),
 * sets the cleaned PATH ($3), sources export.sh ($1/export.sh with IDF_PATH
 * $1) and checks it: from v5.4 export.sh evaluates `activate.py --export` and
 * returns 0 even when activate.py died, so its status alone proves nothing. */
static const char probe_script[] =
    "export PATH=\"$3\"\n"
    ". \"$1/export.sh\" || { echo \"espbench-env: export.sh returned $?\"; exit 97; }\n"
    "[ -n \"${IDF_PATH-}\" ] && [ \"$IDF_PATH\" -ef \"$1\" ] || "
    "{ echo \"espbench-env: export.sh did not set IDF_PATH to this checkout (IDF_PATH=${IDF_PATH-unset})\"; exit 97; }\n"
    "p=$(command -v idf.py || true)\n"
    "[ -n \"$p\" ] && [ \"$p\" -ef \"$1/tools/idf.py\" ] || "
    "{ echo \"espbench-env: idf.py on PATH is ${p:-missing}, not this checkout's\"; exit 97; }\n"
    /* The compilers ESP-IDF installs: Xtensa per chip before v5.2, one for all from v5.2; RISC-V. */
    "case $2 in esp32|esp32s2|esp32s3) cc=\"xtensa-esp-elf-gcc xtensa-$2-elf-gcc\" ;; *) cc=riscv32-esp-elf-gcc ;; esac\n"
    "for c in $cc; do command -v \"$c\" >/dev/null 2>&1 && "
    "{ echo \"espbench-cc: $(\"$c\" --version 2>&1 | head -n 1)\"; exit 0; }; done\n"
    "echo \"espbench-env: no $cc on PATH after export.sh\"; exit 97\n";

int eb_idf_env_script(char *out, size_t cap, const char *body)
{
    size_t o = (size_t)snprintf(out, cap, "unset");
    for (int i = 0; eb_idf_export_vars[i] && o < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, " %s", eb_idf_export_vars[i]);
    if (o < cap)
        o += (size_t)snprintf(out + o, cap - o, "\n%s", body);
    return o < cap ? 0 : -1;
}

void eb_idf_env_path(char *out, size_t cap)
{
    const char *tools = getenv("IDF_TOOLS_PATH");
    char def[1024] = "";
    if ((!tools || !*tools) && getenv("HOME")) {
        snprintf(def, sizeof def, "%s/.espressif", getenv("HOME")); /* idf_tools.py IDF_TOOLS_PATH_DEFAULT */
        tools = def;
    }
    eb_idf_clean_path(getenv("PATH"), getenv("IDF_PATH"), getenv("IDF_PYTHON_ENV_PATH"), tools, out, cap);
}

int eb_idf_env_probe(const eb_idf_checkout *idf, const char *chip, eb_idf_env *env, eb_error *err)
{
    memset(env, 0, sizeof *env);
    char script[2048], path[8192];
    eb_idf_env_script(script, sizeof script, probe_script);
    eb_idf_env_path(path, sizeof path);
    const char *argv[] = {"bash", "-c", script, "espbench-idf-env", idf->path, chip, path, NULL};
    size_t cap = 256u << 10;
    char *text = malloc(cap);
    if (!text)
        return eb_fail(err, EB_EIO, "out of memory");
    eb_error ig;
    int rc = eb_proc_output(argv, idf->path, 300, text, cap, &ig);
    eb_idf_env_parse(text, strlen(text), env);
    free(text);
    if (rc == EB_EINTR)
        return eb_fail(err, EB_EINTR, "interrupted");
    if (env->ok)
        return 0;
    return eb_fail(err, EB_ECONFIG, "ESP-IDF %s (%s): its environment is not set up: %s%s%s%s; run %s/install.sh %s",
                   idf->version, idf->path, env->problem, env->export_error[0] ? " (export.sh: " : "",
                   env->export_error, env->export_error[0] ? ")" : "", idf->path, chip);
}

int eb_idf_version_check(const char *version, const char *who, eb_error *err)
{
    if (eb_idf_firmware_supported(version, err) == 0)
        return 0;
    return eb_error_prefix(err, "%s: ", who);
}

int eb_idf_version_at(const char *repo, const char *rev, char *out, size_t cap, eb_error *err)
{
    char spec[256];
    snprintf(spec, sizeof spec, "%s:components/esp_common/include/esp_idf_version.h", rev);
    const char *argv[] = {"git", "-C", repo, "show", spec, NULL};
    char text[8192];
    eb_error ig;
    if (eb_proc_output(argv, NULL, 60, text, sizeof text, &ig) != 0)
        return eb_fail(err, EB_ECONFIG, "%s in %s: no components/esp_common/include/esp_idf_version.h: not an "
                                        "ESP-IDF revision", rev, repo);
    return eb_idf_version_parse(text, strlen(text), spec, out, cap, err);
}
