/* File-system helpers shared by every layer: directories, whole-file reads
 * with a size cap, and atomic file writes. */
#ifndef ESPBENCH_FS_H
#define ESPBENCH_FS_H

#include <stddef.h>

#include "espbench/base/buf.h"
#include "espbench/base/error.h"

/* Creates a directory and its missing parents (like `mkdir -p`). 0, or -1
 * with errno set. */
int eb_mkdir_p(const char *path);

/* A folder stands for the file `name` in it (a run folder for its
 * results.json): when path is a directory, writes "path/name" into out and
 * returns out; else returns path. */
const char *eb_path_or_in_dir(const char *path, const char *name, char *out, size_t cap);

/* Appends the whole file at path to out (eb_buf_cstr-able), reading at most
 * max bytes: a device such as /dev/zero, or a wrong file, must not be read
 * until memory runs out. Errors: "PATH: cannot read: REASON" (EB_EIO; errno
 * is left as the failing call set it, so a caller can tell ENOENT apart) and
 * "PATH: larger than N MB; HINT" (EB_ECONFIG; hint may be NULL). */
int eb_file_read(const char *path, size_t max, const char *hint, eb_buf *out, eb_error *err);

/* An atomic file write: the bytes go to a temporary file next to path, which
 * is synced and renamed over path, and the directory is synced; a killed
 * process leaves the old file or the new one, never a part. Streams: write as
 * often as needed, then commit (or abort, which removes the temporary file).
 * Commit and abort free the writer, also on failure. */
typedef struct eb_atomic_file eb_atomic_file;
int eb_atomic_open(eb_atomic_file **out, const char *path, eb_error *err);
/* EB_ATOMIC_NO_SYNC: still a temporary file renamed over path (never half a
 * file), without the file and directory fsync, for output that can be made
 * again from inputs that stay. */
#define EB_ATOMIC_NO_SYNC 1u
int eb_atomic_open_flags(eb_atomic_file **out, const char *path, unsigned flags, eb_error *err);
int eb_atomic_write(eb_atomic_file *f, const void *data, size_t len, eb_error *err);
int eb_atomic_commit(eb_atomic_file *f, eb_error *err);
void eb_atomic_abort(eb_atomic_file *f);

/* The whole file in one call. */
int eb_file_write_atomic(const char *path, const void *data, size_t len, eb_error *err);

#endif
