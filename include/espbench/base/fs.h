/* File-system helpers shared by every layer: directories, whole-file reads
 * with a size cap, and atomic file writes. */
#ifndef ESPBENCH_FS_H
#define ESPBENCH_FS_H

#include <stdbool.h>
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

/* A file read line by line in bounded memory (a buffer of EB_LINE_READER_BUF
 * bytes, whatever the file's size): `parse` streams a log this way. Open
 * checks the size before reading anything: a regular file larger than max
 * is refused at once ("PATH: N MB, larger than M MB; HINT", EB_ECONFIG).
 * Open returns -1 (reader closed, no error set) for a file that is not
 * regular (a pipe cannot be rewound): read it whole with eb_file_read. Lines
 * come without their '\n'; a line longer than the buffer comes in
 * buffer-sized pieces. */
#define EB_LINE_READER_BUF (1u << 20)
typedef struct eb_line_reader {
    int fd;
    char *buf;
    size_t start, end;      /* unread bytes: buf[start..end) */
    bool eof;
    int read_errno;         /* a read that failed mid-file (0: none) */
    unsigned long long size;/* the file's size at open */
} eb_line_reader;
int eb_line_reader_open(eb_line_reader *r, const char *path, size_t max, const char *hint, eb_error *err);
bool eb_line_reader_next(eb_line_reader *r, const char **line, size_t *len);
/* Whether the file holds needle (at most 64 bytes), searched block by block
 * through the reader's buffer; the next pass must rewind. */
bool eb_line_reader_contains(eb_line_reader *r, const char *needle, size_t n);
/* Back to the first line (0, or -1 with errno). */
int eb_line_reader_rewind(eb_line_reader *r);
void eb_line_reader_close(eb_line_reader *r);

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
