/* The results folder's lock and write check (dir_lock.h). flock(2) locks
 * belong to the open file description: two descriptors of one process
 * conflict like two processes, so a process keeps one per folder and counts
 * its takers (the run's resolve and the run itself both take it). */
#include "espbench/adapters/dir_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "espbench/base/fs.h"

struct eb_dir_lock {
    struct eb_dir_lock *next;
    dev_t dev;
    ino_t ino;
    int fd;
    int refs;
};

static pthread_mutex_t held_mu = PTHREAD_MUTEX_INITIALIZER;
static eb_dir_lock *held;

/* Whether an argument follows an option that may name a secret. */
static int secret_option(const char *a)
{
    return strncmp(a, "--", 2) == 0 && (strstr(a, "password") || strstr(a, "secret") || strstr(a, "token"));
}

/* This process's command line, spaces between the words, secrets' values
 * left out (an option's value such as --password-env's may be mistyped). */
static void own_command(char *out, size_t cap)
{
    snprintf(out, cap, "?");
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char raw[1024];
    ssize_t n = read(fd, raw, sizeof raw - 1);
    close(fd);
    if (n <= 0)
        return;
    raw[n] = 0;
    size_t len = 0;
    int hide_next = 0;
    out[0] = 0;
    for (char *a = raw; a < raw + n && len + 1 < cap; a += strlen(a) + 1) {
        const char *word = a;
        char cut[96];
        if (hide_next)
            word = "...";
        else if (secret_option(a) && strchr(a, '=')) {
            snprintf(cut, sizeof cut, "%.*s=...", (int)(strchr(a, '=') - a), a);
            word = cut;
        }
        hide_next = secret_option(a) && !strchr(a, '=');
        len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? " " : "", word);
    }
    if (len >= cap)
        out[cap - 1] = 0;
}

/* "pid 123: espbench run ..." from the holder's .lock text. */
static void holder_of(int fd, char *out, size_t cap)
{
    char text[600];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = 0;
    long pid = 0;
    char cmd[512] = "";
    if (sscanf(text, "pid %ld\ncommand %511[^\n]", &pid, cmd) >= 1 && pid > 0)
        snprintf(out, cap, "pid %ld%s%s", pid, cmd[0] ? ": " : "", cmd);
    else
        snprintf(out, cap, "its pid not known yet");
}

static eb_dir_lock *find_held(dev_t dev, ino_t ino)
{
    for (eb_dir_lock *l = held; l; l = l->next)
        if (l->dev == dev && l->ino == ino)
            return l;
    return NULL;
}

static int lock_fd(const char *dir, const char *path, int fd, eb_error *err)
{
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    int e = errno;
    if (e != EWOULDBLOCK)
        return eb_fail(err, EB_EIO, "cannot lock %s: %s", path, strerror(e));
    char who[600];
    holder_of(fd, who, sizeof who);
    return eb_fail(err, EB_ECONFIG,
                   "%s is in use by another espbench (%s); one run writes into a folder at a time: wait for it to "
                   "end or choose another --out",
                   dir, who);
}

int eb_dir_lock_take(const char *dir, eb_dir_lock **out, eb_error *err)
{
    *out = NULL;
    char path[1100];
    snprintf(path, sizeof path, "%s/.lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return eb_fail(err, EB_EIO, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return eb_fail(err, EB_EIO, "cannot stat %s: %s", path, strerror(e));
    }
    pthread_mutex_lock(&held_mu);
    eb_dir_lock *l = find_held(st.st_dev, st.st_ino);
    if (l) {
        l->refs++;
        pthread_mutex_unlock(&held_mu);
        close(fd);
        *out = l;
        return 0;
    }
    int rc = lock_fd(dir, path, fd, err);
    if (rc) {
        pthread_mutex_unlock(&held_mu);
        close(fd);
        return rc;
    }
    l = calloc(1, sizeof *l);
    if (!l)
        abort();
    *l = (eb_dir_lock){.next = held, .dev = st.st_dev, .ino = st.st_ino, .fd = fd, .refs = 1};
    held = l;
    pthread_mutex_unlock(&held_mu);
    /* Who holds it, for the next one who tries; best effort. */
    char cmd[512], text[600];
    own_command(cmd, sizeof cmd);
    int n = snprintf(text, sizeof text, "pid %ld\ncommand %s\n", (long)getpid(), cmd);
    if (ftruncate(fd, 0) == 0 && n > 0 && pwrite(fd, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1, 0) < 0)
        (void)0;
    *out = l;
    return 0;
}

void eb_dir_lock_release(eb_dir_lock *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&held_mu);
    if (--l->refs == 0) {
        for (eb_dir_lock **p = &held; *p; p = &(*p)->next)
            if (*p == l) {
                *p = l->next;
                break;
            }
        /* The file stays: removing it would race with a run that just opened it. */
        close(l->fd);
        free(l);
    }
    pthread_mutex_unlock(&held_mu);
}

int eb_dir_check_writable(const char *dir, eb_error *err)
{
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return eb_fail(err, EB_EIO, "--out %s: %s", dir, strerror(ENOTDIR));
    if (eb_mkdir_p(dir) != 0)
        return eb_fail(err, EB_EIO, "--out %s: cannot create the folder: %s", dir, strerror(errno));
    char path[1100];
    snprintf(path, sizeof path, "%s/.espbench-probe-%ld", dir, (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return eb_fail(err, EB_EIO, "--out %s: cannot create a file there (%s): %s", dir, path, strerror(errno));
    /* Enough to need fresh blocks: a full disk fails here, not in a board's log. */
    static const char zeros[65536];
    int e = 0;
    errno = 0;
    if (write(fd, zeros, sizeof zeros) != (ssize_t)sizeof zeros)
        e = errno ? errno : ENOSPC;
    if (!e && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    unlink(path);
    if (e)
        return eb_fail(err, EB_EIO, "--out %s: cannot write a file there (%s): %s", dir, path, strerror(e));
    return 0;
}
