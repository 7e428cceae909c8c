/* The profile search path and folder listings shared by every loader of
 * profiles/ (chips, ESP-Hosted pairs, pattern files). */
#include "espbench/adapters/profile_files.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool is_dir(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int eb_profile_search_path(const char *user_dir, const char *dirs[EB_PROFILE_DIRS_MAX])
{
    int n = 0;
    const char *installed = NULL, *source = NULL;
#ifdef ESPBENCH_INSTALL_PROFILES
    installed = ESPBENCH_INSTALL_PROFILES;
#endif
#ifdef ESPBENCH_SOURCE_PROFILES
    source = ESPBENCH_SOURCE_PROFILES;
#endif
    /* An installed copy wins over the source tree it was built from. */
    if (is_dir(installed))
        dirs[n++] = installed;
    else if (is_dir(source))
        dirs[n++] = source;
    const char *env = getenv("ESPBENCH_PROFILES");
    if (env && *env)
        dirs[n++] = env;
    if (user_dir && *user_dir)
        dirs[n++] = user_dir;
    return n;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int eb_profile_yaml_files(const char *dir, const char *sub, char ***paths, eb_error *err)
{
    *paths = NULL;
    char folder[1024];
    snprintf(folder, sizeof folder, "%s%s%s", dir, sub ? "/" : "", sub ? sub : "");
    DIR *d = opendir(folder);
    if (!d)
        return 0; /* nothing of this kind in this folder */
    char **v = NULL;
    int n = 0, cap = 0;
    for (struct dirent *de; (de = readdir(d));) {
        size_t l = strlen(de->d_name);
        if (de->d_name[0] == '.' || l <= 5 || strcmp(de->d_name + l - 5, ".yaml"))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nv = realloc(v, sizeof *v * (size_t)cap);
            if (!nv)
                abort();
            v = nv;
        }
        if (asprintf(&v[n], "%s/%s", folder, de->d_name) < 0)
            abort();
        n++;
    }
    closedir(d);
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, cmp_str);
    *paths = v;
    (void)err;
    return n;
}

void eb_profile_files_free(char **paths, int n)
{
    for (int i = 0; paths && i < n; i++)
        free(paths[i]);
    free(paths);
}
