/* File-system helpers shared by the jobs. */
#ifndef ESPBENCH_FS_H
#define ESPBENCH_FS_H

/* Creates a directory and its missing parents (like `mkdir -p`). 0, or -1
 * with errno set. */
int eb_mkdir_p(const char *path);

#endif
