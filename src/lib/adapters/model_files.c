/* The model's constants on disk: a file (read with the YAML size cap, then
 * parsed by formats/model_file.c), and where the default one lives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "espbench/base/buf.h"
#include "espbench/base/fs.h"
#include "espbench/formats/model.h"
#include "espbench/formats/yaml_guard.h"
#include "espbench/adapters/model_files.h"
#include "espbench/adapters/profile_files.h"

int eb_model_load(eb_model *m, const char *path, eb_error *err)
{
    memset(m, 0, sizeof *m);
    eb_buf text;
    eb_buf_init(&text);
    struct stat st;
    if (stat(path, &st) != 0)
        return eb_fail(err, EB_EIO, "%s: cannot read the model constants: %s", path,
                       "no such file or not readable; run `espbench model fit`");
    int rc = eb_file_read(path, EB_YAML_MAX_BYTES + 1, "not a model constants file?", &text, err);
    if (!rc)
        rc = eb_model_load_buffer(m, text.data ? (const char *)text.data : "", text.len, path, err);
    eb_buf_free(&text);
    return rc;
}

int eb_model_load_default(eb_model *m, eb_error *err)
{
    const char *env = getenv("ESPBENCH_MODEL");
    if (env && *env)
        return eb_model_load(m, env, err);
    /* The constants ship with espbench: the installed copy, else the source tree's
     * ($ESPBENCH_PROFILES and --profiles overlay tiers, not the model). */
    const char *dirs[2] = {eb_profile_shipped_dir(), NULL};
#ifdef ESPBENCH_SOURCE_PROFILES
    dirs[1] = ESPBENCH_SOURCE_PROFILES;
#endif
    char path[1024];
    for (int i = 0; i < 2; i++) {
        struct stat st;
        if (!dirs[i])
            continue;
        snprintf(path, sizeof path, "%s/model/model.yaml", dirs[i]);
        if (stat(path, &st) == 0)
            return eb_model_load(m, path, err);
    }
    return eb_fail(err, EB_ECONFIG,
                   "no model constants (profiles/model/model.yaml): install espbench, set "
                   "ESPBENCH_MODEL or run `espbench model fit`");
}
