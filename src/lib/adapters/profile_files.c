/* The profile search path and folder listings shared by every loader of
 * profiles/ (chips, ESP-Hosted pairs, pattern files). */
#include "espbench/adapters/profile_files.h"

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_dir(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char shipped[PATH_MAX];
static pthread_once_t shipped_once = PTHREAD_ONCE_INIT;

/* The installed profiles beside the running program: BINDIR/../DATADIR/espbench/profiles
 * (ESPBENCH_PROFILES_FROM_BIN), so a copy installed under another prefix (cmake --install
 * --prefix, DESTDIR, a package) finds its own. */
static bool beside_program(char *out, size_t cap)
{
#ifdef ESPBENCH_PROFILES_FROM_BIN
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return false;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return false;
    *slash = 0;
    char path[PATH_MAX];
    int len = snprintf(path, sizeof path, "%s/%s", self, ESPBENCH_PROFILES_FROM_BIN);
    if (len <= 0 || (size_t)len >= sizeof path || (size_t)len >= cap || !is_dir(path))
        return false;
    memcpy(out, path, (size_t)len + 1);
    return true;
#else
    (void)out;
    (void)cap;
    return false;
#endif
}

static void find_shipped(void)
{
    const char *installed = NULL, *source = NULL;
#ifdef ESPBENCH_INSTALL_PROFILES
    installed = ESPBENCH_INSTALL_PROFILES;
#endif
#ifdef ESPBENCH_SOURCE_PROFILES
    source = ESPBENCH_SOURCE_PROFILES;
#endif
    /* An installed copy wins over the source tree it was built from. */
    if (beside_program(shipped, sizeof shipped))
        return;
    if (is_dir(installed))
        snprintf(shipped, sizeof shipped, "%s", installed);
    else if (is_dir(source))
        snprintf(shipped, sizeof shipped, "%s", source);
}

const char *eb_profile_shipped_dir(void)
{
    pthread_once(&shipped_once, find_shipped);
    return shipped[0] ? shipped : NULL;
}

int eb_profile_search_path(const char *user_dir, const char *dirs[EB_PROFILE_DIRS_MAX])
{
    int n = 0;
    const char *base = eb_profile_shipped_dir();
    if (base)
        dirs[n++] = base;
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
