/* Lab files on disk: read (size-capped before parsing), parsed by the pure
 * parser (formats/lab_parse.c), then the Wi-Fi password read from the
 * source the file names — an environment variable or a file, never the
 * lab file itself. Errors point at the password_env/password_file value. */
#include "espbench/formats/lab.h"
#include "espbench/formats/yaml_guard.h"
#include "espbench/adapters/lab_file.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int eb_password_from_env(const char *var, char *out, size_t cap, eb_error *err)
{
    const char *v = getenv(var);
    if (!v)
        return eb_fail(err, EB_ECONFIG, "the Wi-Fi password is read from the environment variable %s, "
                       "which is not set", var);
    if (strlen(v) >= cap)
        return eb_fail(err, EB_ECONFIG, "the Wi-Fi password in %s is longer than %zu characters", var, cap - 1);
    snprintf(out, cap, "%s", v);
    return 0;
}

int eb_password_from_file(const char *path, char *out, size_t cap, eb_error *err)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return eb_fail(err, EB_ECONFIG, "cannot read the Wi-Fi password file %s: %s", path, strerror(errno));
    char line[256] = "";
    if (!fgets(line, sizeof line, f))
        line[0] = 0;
    fclose(f);
    line[strcspn(line, "\r\n")] = 0;
    if (strlen(line) >= cap) {
        memset(line, 0, sizeof line);
        return eb_fail(err, EB_ECONFIG, "the Wi-Fi password in %s is longer than %zu characters", path, cap - 1);
    }
    snprintf(out, cap, "%s", line);
    memset(line, 0, sizeof line);
    return 0;
}

int eb_lab_read_password(eb_lab *lab, eb_error *err)
{
    int rc = 0;
    if (lab->password_env[0])
        rc = eb_password_from_env(lab->password_env, lab->password, sizeof lab->password, err);
    else if (lab->password_file[0])
        rc = eb_password_from_file(lab->password_file, lab->password, sizeof lab->password, err);
    else
        return 0;
    if (rc) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return eb_fail(err, EB_ECONFIG, "%s:%d:%d: %s", lab->file, lab->password_line, lab->password_col, msg);
    }
    lab->has_password = true;
    return 0;
}

int eb_lab_load(eb_lab *lab, const char *path, eb_error *err)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return eb_fail(err, EB_ECONFIG, "cannot read lab file %s: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        if (len + n > EB_YAML_MAX_BYTES) { /* refused without reading the rest */
            fclose(f);
            free(text);
            return eb_fail(err, EB_ECONFIG, "%s: larger than the %u-byte limit for a lab file; is this the right file?",
                           path, EB_YAML_MAX_BYTES);
        }
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            text = realloc(text, cap);
            if (!text)
                abort();
        }
        memcpy(text + len, buf, n);
        len += n;
    }
    fclose(f);
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    int rc = eb_lab_parse(lab, text ? text : "", len, path, dirname(dir), err);
    free(text);
    if (!rc && (rc = eb_lab_read_password(lab, err)) != 0)
        eb_lab_free(lab);
    return rc;
}

