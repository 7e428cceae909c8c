/* One writer per results folder: an advisory lock on DIR/.lock (flock),
 * held while a run writes there. The kernel drops it when the process ends,
 * however it ends (SIGKILL too), so a crashed run never leaves a stale lock;
 * the file's text (pid and command) only names the holder for the message.
 * And the folder checked before a run writes anything into it. */
#ifndef ESPBENCH_DIR_LOCK_H
#define ESPBENCH_DIR_LOCK_H

#include "espbench/base/error.h"

typedef struct eb_dir_lock eb_dir_lock;

/* Takes DIR/.lock (DIR must exist). The same folder taken again by this
 * process nests (the lock is dropped with the last release). Another holder:
 * EB_ECONFIG "DIR is in use by another espbench (pid N: COMMAND); wait for it
 * to end or choose another --out". Other failures: EB_EIO with the path and
 * the errno text. */
int eb_dir_lock_take(const char *dir, eb_dir_lock **out, eb_error *err);
/* Releases (NULL: nothing). */
void eb_dir_lock_release(eb_dir_lock *l);

/* The folder a run is about to write into, checked before anything starts:
 * made when missing (mkdir -p), then a probe file created, written (64 KiB),
 * synced and removed. EB_EIO with the real cause: "--out DIR: PATH: ERRNO
 * TEXT" (a file in the way, read-only, full disk, no permission). */
int eb_dir_check_writable(const char *dir, eb_error *err);

#endif
