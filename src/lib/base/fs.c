/* Directories, capped whole-file reads and atomic writes: the one place the
 * tool reads or replaces a whole file. */
#include "espbench/base/fs.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int eb_mkdir_p(const char *path)
{
    char tmp[1024];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(tmp, path, n + 1);
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    }
    return mkdir(tmp, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

const char *eb_path_or_in_dir(const char *path, const char *name, char *out, size_t cap)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        size_t n = strlen(path);
        snprintf(out, cap, "%s%s%s", path, n && path[n - 1] == '/' ? "" : "/", name);
        return out;
    }
    return path;
}

/* ------------------------------------------------------------- reading */

static int read_failed(const char *path, int fd, eb_error *err)
{
    int e = errno;
    if (fd >= 0)
        close(fd);
    eb_fail(err, EB_EIO, "%s: cannot read: %s", path, strerror(e));
    errno = e;
    return EB_EIO;
}

int eb_file_read(const char *path, size_t max, const char *hint, eb_buf *out, eb_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return read_failed(path, -1, err);
    /* A regular file's size is known: one allocation, one read. Anything else
     * (a pipe, a device) is read in chunks until the cap. */
    struct stat st;
    size_t chunk = 65536;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max) {
        close(fd); /* a regular file's size is known: refused before reading a byte */
        return eb_fail(err, EB_ECONFIG, "%s: larger than %zu MB%s%s", path, max >> 20, hint ? "; " : "",
                       hint ? hint : "");
    }
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        chunk = (size_t)st.st_size + 1; /* +1: the read that sees the end */
    size_t start = out->len;
    eb_buf_reserve(out, chunk);
    for (;;) {
        if (out->cap < out->len + 2)
            eb_buf_reserve(out, chunk);
        size_t room = out->cap - out->len - 1;
        ssize_t n = read(fd, out->data + out->len, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            out->len = start;
            return read_failed(path, fd, err);
        }
        if (n == 0)
            break;
        out->len += (size_t)n;
        if (out->len - start > max) {
            close(fd);
            out->len = start;
            return eb_fail(err, EB_ECONFIG, "%s: larger than %zu MB%s%s", path, max >> 20, hint ? "; " : "",
                           hint ? hint : "");
        }
        chunk = 65536;
    }
    close(fd);
    eb_buf_cstr(out);
    return 0;
}

/* ------------------------------------------------------------ streaming */

int eb_line_reader_open(eb_line_reader *r, const char *path, size_t max, const char *hint, eb_error *err)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return read_failed(path, -1, err);
    struct stat st;
    if (fstat(fd, &st) != 0)
        return read_failed(path, fd, err);
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    if ((unsigned long long)st.st_size > max) { /* refused before reading a byte */
        close(fd);
        return eb_fail(err, EB_ECONFIG, "%s: %llu MB, larger than %zu MB%s%s", path,
                       ((unsigned long long)st.st_size + (1u << 20) - 1) >> 20, max >> 20, hint ? "; " : "",
                       hint ? hint : "");
    }
    r->buf = malloc(EB_LINE_READER_BUF);
    if (!r->buf)
        abort();
    r->fd = fd;
    r->size = (unsigned long long)st.st_size;
    return 0;
}

/* Moves the unread bytes to the front and reads more; false at the end. */
static bool reader_fill(eb_line_reader *r)
{
    if (r->eof)
        return false;
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    while (r->end < EB_LINE_READER_BUF) {
        ssize_t n = read(r->fd, r->buf + r->end, EB_LINE_READER_BUF - r->end);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n < 0)
                r->read_errno = errno;
            r->eof = true;
            break;
        }
        r->end += (size_t)n;
        break;
    }
    return true;
}

bool eb_line_reader_next(eb_line_reader *r, const char **line, size_t *len)
{
    for (;;) {
        char *s = r->buf + r->start;
        size_t avail = r->end - r->start;
        char *nl = avail ? memchr(s, '\n', avail) : NULL;
        if (nl) {
            *line = s;
            *len = (size_t)(nl - s);
            r->start += *len + 1;
            return true;
        }
        if (avail == EB_LINE_READER_BUF || (r->eof && avail > 0)) { /* a piece of a long line, or the last line */
            *line = s;
            *len = avail;
            r->start = r->end;
            return true;
        }
        if (!reader_fill(r) && r->end == r->start)
            return false;
    }
}

bool eb_line_reader_contains(eb_line_reader *r, const char *needle, size_t n)
{
    size_t keep = 0;
    off_t off = 0;
    r->start = r->end = 0; /* the buffer is scratch here: the next pass rewinds */
    for (;;) {
        ssize_t got = pread(r->fd, r->buf + keep, EB_LINE_READER_BUF - keep, off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        off += got;
        size_t len = keep + (size_t)got;
        if (memmem(r->buf, len, needle, n))
            return true;
        keep = len < n - 1 ? len : n - 1; /* a needle across two blocks */
        memmove(r->buf, r->buf + len - keep, keep);
    }
}

int eb_line_reader_rewind(eb_line_reader *r)
{
    if (lseek(r->fd, 0, SEEK_SET) < 0)
        return -1;
    r->start = r->end = 0;
    r->eof = false;
    return 0;
}

void eb_line_reader_close(eb_line_reader *r)
{
    if (r->fd >= 0)
        close(r->fd);
    free(r->buf);
    r->fd = -1;
    r->buf = NULL;
}

/* ------------------------------------------------------------- writing */

struct eb_atomic_file {
    int fd;
    char *path, *tmp;
    unsigned flags;
};

int eb_atomic_open(eb_atomic_file **out, const char *path, eb_error *err)
{
    return eb_atomic_open_flags(out, path, 0, err);
}

int eb_atomic_open_flags(eb_atomic_file **out, const char *path, unsigned flags, eb_error *err)
{
    *out = NULL;
    /* The temporary file sits next to the target so rename() stays within one file system. */
    size_t plen = strlen(path);
    eb_atomic_file *f = calloc(1, sizeof *f);
    char *tmp = malloc(plen + 16);
    char *copy = strdup(path);
    if (!f || !tmp || !copy)
        abort();
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    snprintf(tmp, plen + 16, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        free(copy);
        free(f);
        return eb_fail(err, EB_EIO, "%s: cannot create a temporary file next to it: %s", path, strerror(e));
    }
    /* mkstemp creates 0600; the files written here are ordinary files. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    f->fd = fd;
    f->flags = flags;
    f->path = copy;
    f->tmp = tmp;
    *out = f;
    return 0;
}

void eb_atomic_abort(eb_atomic_file *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    unlink(f->tmp);
    free(f->tmp);
    free(f->path);
    free(f);
}

int eb_atomic_write(eb_atomic_file *f, const void *data, size_t len, eb_error *err)
{
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(f->fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return eb_fail(err, EB_EIO, "%s: write failed: %s", f->path, strerror(w < 0 ? errno : ENOSPC));
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int eb_atomic_commit(eb_atomic_file *f, eb_error *err)
{
    /* Close even when fsync fails: the descriptor must not leak on this path. */
    bool sync = !(f->flags & EB_ATOMIC_NO_SYNC);
    int synced = sync ? fsync(f->fd) : 0, sync_errno = errno;
    int closed = close(f->fd);
    f->fd = -1;
    if (synced != 0 || closed != 0) {
        if (synced == 0)
            sync_errno = errno;
        eb_fail(err, EB_EIO, "%s: %s failed: %s; check the disk (space, permissions) and retry", f->path,
                synced != 0 ? "fsync" : "close", strerror(sync_errno));
        eb_atomic_abort(f);
        return EB_EIO;
    }
    if (rename(f->tmp, f->path) != 0) {
        eb_fail(err, EB_EIO, "%s: rename failed: %s", f->path, strerror(errno));
        eb_atomic_abort(f);
        return EB_EIO;
    }
    /* Make the rename itself durable. */
    const char *slash = strrchr(f->path, '/');
    char *dir = !sync ? NULL : slash ? strndup(f->path, (size_t)(slash - f->path + 1)) : strdup(".");
    if (dir) {
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
        free(dir);
    }
    free(f->tmp);
    free(f->path);
    free(f);
    return 0;
}

int eb_file_write_atomic(const char *path, const void *data, size_t len, eb_error *err)
{
    eb_atomic_file *f;
    int rc = eb_atomic_open(&f, path, err);
    if (rc)
        return rc;
    if ((rc = eb_atomic_write(f, data, len, err))) {
        eb_atomic_abort(f);
        return rc;
    }
    return eb_atomic_commit(f, err);
}
