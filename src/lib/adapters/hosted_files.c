/* ESP-Hosted pair profiles on disk: the *.yaml files of profiles/hosted of every folder
 * of the profile search path (profile_files.h), each parsed by the pure
 * loader (formats/hosted_profile.c). */
#include <errno.h>
#include <string.h>

#include "espbench/base/buf.h"
#include "espbench/base/fs.h"
#include "espbench/formats/hosted.h"
#include "espbench/adapters/profile_files.h"
#include "espbench/formats/yaml_guard.h"
#include "espbench/adapters/hosted_files.h"

int eb_hosted_load_file(eb_hosted_set *out, const char *path, const eb_profiles *p, eb_error *err)
{
    eb_buf text;
    eb_buf_init(&text);
    int rc = eb_file_read(path, EB_YAML_MAX_BYTES + 1, "not a pair profile?", &text, err);
    if (rc == EB_EIO && errno == ENOENT)
        rc = err->code = EB_ECONFIG;
    if (!rc)
        rc = eb_hosted_load_buffer(out, text.data ? (const char *)text.data : "", text.len, path, p, err);
    eb_buf_free(&text);
    return rc;
}

int eb_hosted_load(eb_hosted_set *out, const char *const *dirs, int n_dirs, const eb_profiles *p, eb_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = 0;
    for (int i = 0; !rc && i < n_dirs; i++) {
        char **files;
        int n = eb_profile_yaml_files(dirs[i], "hosted", &files, err);
        for (int k = 0; !rc && k < n; k++)
            rc = eb_hosted_load_file(out, files[k], p, err);
        eb_profile_files_free(files, n);
    }
    if (rc)
        eb_hosted_free(out);
    return rc;
}

int eb_hosted_load_default(eb_hosted_set *out, const eb_profiles *p, const char *user_dir, eb_error *err)
{
    const char *dirs[EB_PROFILE_DIRS_MAX];
    int n = eb_profile_search_path(user_dir, dirs);
    return eb_hosted_load(out, dirs, n, p, err);
}
