/* File-system helpers shared by the jobs. */
#ifndef ESPBENCH_FS_H
#define ESPBENCH_FS_H

/* Creates a directory and its missing parents (like `mkdir -p`). 0, or -1
 * with errno set. */
int eb_mkdir_p(const char *path);

#include <stddef.h>

/* A folder stands for the file `name` in it (a run folder for its
 * results.json): when path is a directory, writes "path/name" into out and
 * returns out; else returns path. */
const char *eb_path_or_in_dir(const char *path, const char *name, char *out, size_t cap);

#endif
