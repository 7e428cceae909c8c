/* The results folder before a run writes into it (run_request.h): a
 * --resume folder must exist and hold a run, the folder must take files (the
 * real cause — a file in the way, read-only, full disk — said before any
 * virtual board or log needs it), one run at a time writes there (the
 * lock), and a resume continues only the request that made the folder. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "espbench/adapters/dir_lock.h"
#include "espbench/adapters/results_file.h"
#include "espbench/base/buf.h"
#include "espbench/base/fs.h"
#include "run_internal.h"
#include "run_request.h"

#define REQUEST_MAX (1u << 20)

static void path_in(const char *dir, const char *file, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", dir, file);
}

static bool exists(const char *path) { return access(path, F_OK) == 0; }

/* --resume needs the folder of a run. */
static int check_resume_folder(const eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    struct stat sb;
    if (stat(o->out_dir, &sb) != 0)
        return run_bad_request(st, err, "--resume: there is no folder %s (%s); check --out, or leave out --resume to "
                                        "start a new run there",
                               o->out_dir, strerror(errno));
    return 0;
}

/* ... and a run in it: its request or its results (checked under the lock,
 * so a run that just started there is named as the holder instead). */
static int check_resume_run(const eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    char req[1100], res[1100];
    path_in(o->out_dir, EB_RUN_REQUEST_FILE, req, sizeof req);
    path_in(o->out_dir, "results.json", res, sizeof res);
    if (!exists(req) && !exists(res))
        return run_bad_request(st, err, "--resume: %s holds no results (no results.json, no %s): nothing to "
                                        "continue; leave out --resume to start a run there",
                               o->out_dir, EB_RUN_REQUEST_FILE);
    return 0;
}

/* The folder's request (request.json, else what its results.json says)
 * against this one: EB_ECONFIG naming each difference. */
static int compare_request(const eb_run_opts *o, eb_error *err)
{
    char req[1100], res[1100], diff[EB_ERROR_MSG_MAX];
    path_in(o->out_dir, EB_RUN_REQUEST_FILE, req, sizeof req);
    path_in(o->out_dir, "results.json", res, sizeof res);
    int n = 0;
    if (exists(req)) {
        eb_buf b;
        eb_buf_init(&b);
        int rc = eb_file_read(req, REQUEST_MAX, NULL, &b, err);
        if (!rc && (n = run_request_diff((const char *)b.data, b.len, o, diff, sizeof diff)) < 0)
            rc = eb_fail(err, EB_ECONFIG, "--resume: %s is not a request file espbench wrote; move it away to "
                                          "resume without the check",
                         req);
        eb_buf_free(&b);
        if (rc)
            return rc;
    } else if (exists(res)) {
        eb_results r;
        int rc = eb_results_load(&r, res, err);
        if (rc)
            return eb_error_prefix(err, "--resume: ");
        n = run_request_diff_results(&r, o, diff, sizeof diff);
        eb_results_free(&r);
    }
    if (n > 0)
        return eb_fail(err, EB_ECONFIG, "--resume: %s was made by another request (%s); resume with the same options, "
                                        "or choose another --out",
                       o->out_dir, diff);
    return 0;
}

static int write_request(const eb_run_opts *o, eb_error *err);

int run_out_ready(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    (void)rq;
    int rc;
    if (o->resume && (rc = check_resume_folder(o, st, err)) != 0)
        return rc;
    if ((rc = eb_dir_check_writable(o->out_dir, err)) != 0)
        return rc;
    if (!st->out_lock && (rc = eb_dir_lock_take(o->out_dir, &st->out_lock, err)) != 0)
        return rc;
    if (o->resume && (rc = check_resume_run(o, st, err)) != 0)
        return rc;
    if (o->resume)
        return compare_request(o, err);
    /* Recorded at once (the virtual boards' firmware follows), so a run
     * killed while its boards start is a run of its request too. */
    return write_request(o, err);
}

static int write_request(const eb_run_opts *o, eb_error *err)
{
    char path[1100];
    path_in(o->out_dir, EB_RUN_REQUEST_FILE, path, sizeof path);
    char *text = run_request_json(o);
    if (!text)
        return eb_fail(err, EB_EIO, "out of memory");
    int rc = eb_file_write_atomic(path, text, strlen(text), err);
    free(text);
    return rc;
}

int run_request_record(const eb_run_opts *o, eb_error *err)
{
    int rc;
    if (o->resume && (rc = compare_request(o, err)) != 0)
        return rc;
    return write_request(o, err);
}
