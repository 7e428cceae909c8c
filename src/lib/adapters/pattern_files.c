/* Pattern files on disk: one file (--pattern FILE), or the built-in and
 * user pattern files, the *.yaml files of profiles/patterns of every folder of the
 * profile search path (profile_files.h); each parsed by the pure loader
 * (formats/pattern_file.c). */
#include <stdlib.h>
#include <string.h>

#include "espbench/base/buf.h"
#include "espbench/base/fs.h"
#include "espbench/formats/pattern.h"
#include "espbench/adapters/profile_files.h"
#include "espbench/formats/yaml_guard.h"
#include "espbench/adapters/pattern_files.h"

int eb_pattern_load_file(eb_pattern *p, const char *path, eb_error *err)
{
    eb_buf b;
    eb_buf_init(&b);
    int rc = eb_file_read(path, EB_YAML_MAX_BYTES + 1, "not a pattern file?", &b, err);
    if (!rc)
        rc = eb_pattern_load_buffer(p, b.data ? (const char *)b.data : "", b.len, path, err);
    else
        memset(p, 0, sizeof *p);
    eb_buf_free(&b);
    return rc;
}

/* Adds dir's pattern files in name order; a file replaces a loaded pattern of the same name. */
static int load_dir(eb_pattern_set *s, const char *dir, eb_error *err)
{
    char **files;
    int n = eb_profile_yaml_files(dir, "patterns", &files, err);
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        eb_pattern p;
        if ((rc = eb_pattern_load_file(&p, files[i], err)) != 0)
            break;
        eb_pattern *slot = (eb_pattern *)eb_patterns_find(s, p.name);
        if (slot) {
            eb_pattern_free(slot);
        } else {
            eb_pattern *v = realloc(s->v, (size_t)(s->n + 1) * sizeof *v);
            if (!v)
                abort();
            s->v = v;
            slot = &s->v[s->n++];
        }
        *slot = p;
    }
    eb_profile_files_free(files, n);
    return rc;
}

int eb_patterns_load_default(eb_pattern_set *s, const char *user_dir, eb_error *err)
{
    s->v = NULL;
    s->n = 0;
    const char *dirs[EB_PROFILE_DIRS_MAX];
    int n = eb_profile_search_path(user_dir, dirs);
    for (int i = 0; i < n; i++) {
        int rc = load_dir(s, dirs[i], err);
        if (rc) {
            eb_patterns_free(s);
            return rc;
        }
    }
    return 0;
}
