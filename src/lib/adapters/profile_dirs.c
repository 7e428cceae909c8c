/* Chip profiles on disk: each folder's *.yaml files read (size-capped before
 * parsing) and handed to the pure loader (formats/profile_load.c), and the
 * standard search path (profile_files.h), whose dialects/ folders join the
 * console dialect table too. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "espbench/base/buf.h"
#include "espbench/formats/dialect.h"
#include "espbench/base/fs.h"
#include "espbench/formats/profile.h"
#include "espbench/adapters/profile_files.h"
#include "espbench/formats/yaml_guard.h"
#include "espbench/adapters/dialect_files.h"
#include "espbench/adapters/profile_dirs.h"

/* Reads a profile (at most EB_YAML_MAX_BYTES; a bigger file is refused
 * without reading it all; one byte over the cap is read so that the limit is
 * named). */
static int read_profile(const char *path, eb_buf *text, eb_error *err)
{
    int rc = eb_file_read(path, EB_YAML_MAX_BYTES + 1, "not a profile?", text, err);
    if (rc == EB_EIO && errno == ENOENT) /* a wrong path: a configuration error */
        rc = err ? (err->code = EB_ECONFIG) : EB_ECONFIG;
    else if (rc == EB_ECONFIG) /* over the cap: the guard's words for any size */
        rc = eb_fail(err, EB_ECONFIG, "%s: larger than the %u-byte limit for a YAML file; is this the right file?",
                     path, EB_YAML_MAX_BYTES);
    return rc;
}

/* One folder: its files, read. */
typedef struct folder_files {
    char **paths;
    eb_buf *texts;
    eb_profile_text *files;
    int n;
} folder_files;

static void folder_free(folder_files *f)
{
    for (int i = 0; f->texts && i < f->n; i++)
        eb_buf_free(&f->texts[i]);
    free(f->texts);
    free(f->files);
    eb_profile_files_free(f->paths, f->n);
    memset(f, 0, sizeof *f);
}

static int folder_read(const char *dir, folder_files *f, eb_error *err)
{
    memset(f, 0, sizeof *f);
    struct stat st;
    errno = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return eb_fail(err, EB_ECONFIG, "profiles directory '%s': %s", dir,
                       errno ? strerror(errno) : "not a directory");
    f->n = eb_profile_yaml_files(dir, NULL, &f->paths, err);
    if (f->n < 0)
        return EB_EIO;
    f->texts = calloc((size_t)(f->n ? f->n : 1), sizeof *f->texts);
    f->files = calloc((size_t)(f->n ? f->n : 1), sizeof *f->files);
    if (!f->texts || !f->files)
        abort();
    for (int i = 0; i < f->n; i++) {
        eb_buf_init(&f->texts[i]);
        int rc = read_profile(f->paths[i], &f->texts[i], err);
        if (rc)
            return rc;
        f->files[i] = (eb_profile_text){f->paths[i], f->texts[i].data ? (const char *)f->texts[i].data : "",
                                        f->texts[i].len};
    }
    return 0;
}

int eb_profiles_load(eb_profiles *out, const char *const *dirs, int n_dirs, eb_error *err)
{
    memset(out, 0, sizeof *out);
    folder_files *ff = calloc((size_t)(n_dirs ? n_dirs : 1), sizeof *ff);
    eb_profile_folder *folders = calloc((size_t)(n_dirs ? n_dirs : 1), sizeof *folders);
    if (!ff || !folders)
        abort();
    int rc = 0;
    for (int i = 0; !rc && i < n_dirs; i++) {
        rc = folder_read(dirs[i], &ff[i], err);
        folders[i] = (eb_profile_folder){dirs[i], ff[i].files, ff[i].n};
    }
    if (!rc)
        rc = eb_profiles_load_texts(out, folders, n_dirs, err);
    for (int i = 0; i < n_dirs; i++)
        folder_free(&ff[i]);
    free(ff);
    free(folders);
    return rc;
}

int eb_profiles_load_file(eb_profiles *out, const char *path, eb_error *err)
{
    memset(out, 0, sizeof *out);
    eb_buf text;
    eb_buf_init(&text);
    int rc = read_profile(path, &text, err);
    if (!rc)
        rc = eb_profiles_load_buffer(out, text.data ? (const char *)text.data : "", text.len, path, err);
    eb_buf_free(&text);
    return rc;
}

int eb_profiles_load_default(eb_profiles *out, const char *user_dir, eb_error *err)
{
    memset(out, 0, sizeof *out);
    const char *dirs[EB_PROFILE_DIRS_MAX];
    int n = eb_profile_search_path(user_dir, dirs);
    if (n == 0)
        return eb_fail(err, EB_ECONFIG,
                       "no profiles directory: install espbench, set ESPBENCH_PROFILES or pass "
                       "--profiles DIR");
    /* The same directories' dialects/ join the console dialect table
     * (dialect.h), so whoever loads the chips speaks their dialects too. */
    int rc = eb_dialects_load_default(user_dir, err);
    return rc ? rc : eb_profiles_load(out, dirs, n, err);
}
