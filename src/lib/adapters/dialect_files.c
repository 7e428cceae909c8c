/* Console dialect files on disk: the *.yaml files of a directory, or the
 * dialects/ folder of every folder of the profile search path
 * (profile_files.h), read whole (size-capped) and handed together to the
 * pure loader (formats/dialect_load.c), which adds all of them or none. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "espbench/base/buf.h"
#include "espbench/formats/dialect.h"
#include "espbench/base/fs.h"
#include "espbench/adapters/profile_files.h"
#include "espbench/formats/yaml_guard.h"
#include "espbench/adapters/dialect_files.h"

typedef struct file_set {
    eb_dialect_text *v;
    eb_buf *bufs;
    char **paths;
    int n;
} file_set;

static void set_free(file_set *s)
{
    for (int i = 0; i < s->n; i++) {
        eb_buf_free(&s->bufs[i]);
        free(s->paths[i]);
    }
    free(s->v);
    free(s->bufs);
    free(s->paths);
}

static int read_one(file_set *s, char *path, int dir, eb_error *err)
{
    eb_dialect_text *v = realloc(s->v, (size_t)(s->n + 1) * sizeof *v);
    eb_buf *b = v ? realloc(s->bufs, (size_t)(s->n + 1) * sizeof *b) : NULL;
    char **p = b ? realloc(s->paths, (size_t)(s->n + 1) * sizeof *p) : NULL;
    if (v)
        s->v = v;
    if (b)
        s->bufs = b;
    if (!p) {
        free(path);
        return eb_fail(err, EB_EIO, "out of memory loading dialects");
    }
    s->paths = p;
    eb_buf_init(&s->bufs[s->n]);
    s->paths[s->n] = path;
    int i = s->n++;
    int rc = eb_file_read(path, EB_YAML_MAX_BYTES + 1, "not a dialect file?", &s->bufs[i], err);
    if (rc == EB_ECONFIG) /* over the cap */
        return eb_fail(err, EB_ECONFIG, "%s: larger than the %u-byte limit for a YAML file; is this the right file?",
                       path, EB_YAML_MAX_BYTES);
    s->v[i] = (eb_dialect_text){path, NULL, 0, dir};
    return rc;
}

static int read_dir(file_set *s, const char *dir, int index, eb_error *err)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return eb_fail(err, EB_ECONFIG, "dialects directory '%s': %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return eb_fail(err, EB_ECONFIG, "dialects directory '%s': not a directory", dir);
    char **files;
    int n = eb_profile_yaml_files(dir, NULL, &files, err);
    if (n < 0)
        return EB_EIO;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (!rc)
            rc = read_one(s, files[i], index, err); /* takes the path */
        else
            free(files[i]);
    }
    free(files);
    return rc;
}

int eb_dialects_load_dirs(const char *const *dirs, int n_dirs, eb_error *err)
{
    file_set s = {0};
    int rc = 0;
    for (int i = 0; !rc && i < n_dirs; i++)
        rc = read_dir(&s, dirs[i], i, err);
    for (int i = 0; !rc && i < s.n; i++) {
        s.v[i].text = s.bufs[i].data ? (const char *)s.bufs[i].data : "";
        s.v[i].len = s.bufs[i].len;
    }
    if (!rc)
        rc = eb_dialects_load_buffers(s.v, s.n, err);
    set_free(&s);
    return rc;
}

int eb_dialects_load_default(const char *user_dir, eb_error *err)
{
    const char *roots[EB_PROFILE_DIRS_MAX];
    int n_roots = eb_profile_search_path(user_dir, roots);
    char paths[EB_PROFILE_DIRS_MAX][1024];
    const char *dirs[EB_PROFILE_DIRS_MAX];
    int n = 0;
    for (int i = 0; i < n_roots; i++) {
        struct stat st;
        snprintf(paths[n], sizeof paths[n], "%s/dialects", roots[i]);
        if (stat(paths[n], &st) == 0 && S_ISDIR(st.st_mode)) {
            dirs[n] = paths[n];
            n++;
        }
    }
    return eb_dialects_load_dirs(dirs, n, err);
}
