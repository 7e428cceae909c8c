/* --pattern FILE|NAME for `parse` and `run`: a pattern file, or a built-in
 * one by name (the profiles directory's patterns/). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "espbench/formats/pattern.h"
#include "espbench/adapters/pattern_files.h"

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

int cli_load_patterns(const char *arg, eb_pattern *pat, eb_pattern_set *builtin, eb_error *err)
{
    memset(pat, 0, sizeof *pat);
    bool file = arg && (is_file(arg) || strchr(arg, '/') || strstr(arg, ".yaml") || strstr(arg, ".yml"));
    int rc = eb_patterns_load_default(builtin, cli_profiles_dir, err);
    if (rc && !file)
        return rc;
    if (rc) { /* a file is given: a broken built-in one does not matter */
        eb_error_clear(err);
        builtin->v = NULL;
        builtin->n = 0;
    }
    if (!arg)
        return 0;
    if (file) {
        rc = eb_pattern_load_file(pat, arg, err);
    } else {
        const eb_pattern *b = eb_patterns_find(builtin, arg);
        if (b) {
            rc = eb_pattern_load_file(pat, b->path, err);
        } else {
            char names[256] = "";
            for (int i = 0; i < builtin->n; i++) {
                strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
                strncat(names, builtin->v[i].name, sizeof names - strlen(names) - 1);
            }
            rc = eb_fail(err, EB_ECONFIG, "--pattern '%s': no such file, and no built-in pattern of that name "
                                          "(built-in: %s)", arg, names[0] ? names : "none");
        }
    }
    if (rc)
        eb_patterns_free(builtin);
    return rc;
}
