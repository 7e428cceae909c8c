/* results.json and results.csv on disk: the file side of the results store
 * (formats/results*.c only turn entries into bytes and back). Reads are capped,
 * writes atomic (base/fs.c); a large JSON file is streamed to disk as it is
 * written. */
#include <errno.h>

#include "espbench/base/fs.h"
#include "espbench/formats/results.h"
#include "espbench/adapters/results_file.h"


int eb_results_load(eb_results *r, const char *path, eb_error *err)
{
    eb_results_init(r);
    char in_dir[4096]; /* a run folder: its results.json */
    const char *dir = path;
    path = eb_path_or_in_dir(path, "results.json", in_dir, sizeof in_dir);
    eb_buf b;
    eb_buf_init(&b);
    int rc = eb_file_read(path, EB_RESULTS_MAX_BYTES, "not a results file?", &b, err);
    if (rc == EB_EIO && errno == ENOENT && path == in_dir)
        rc = eb_fail(err, EB_ECONFIG, "%s: a folder without results.json (not one `espbench run` wrote?): "
                     "pass a results.json or a run's --out folder", dir);
    else if (rc == EB_EIO && errno == ENOENT)
        rc = err ? (err->code = EB_ECONFIG) : EB_ECONFIG; /* a wrong path on the command line */
    if (!rc)
        rc = eb_results_parse_json(r, b.len ? (const char *)b.data : "", b.len, path, err);
    eb_buf_free(&b);
    return rc;
}

/* The file being written and its size so far: what espbench writes, it
 * reads back (eb_results_load's cap), so a larger file is refused, not left
 * for report to refuse. */
typedef struct file_sink {
    eb_atomic_file *f;
    const char *path;
    unsigned long long written;
} file_sink;

static int to_file(void *ctx, const void *data, size_t len, eb_error *err)
{
    file_sink *s = ctx;
    s->written += len;
    if (s->written > EB_RESULTS_MAX_BYTES)
        return eb_fail(err, EB_ECONFIG,
                       "%s: the results are larger than %u MB, the most espbench reads back (report, compare, "
                       "merge); not written: split the input (parse fewer or shorter logs)",
                       s->path, EB_RESULTS_MAX_BYTES >> 20);
    return eb_atomic_write(s->f, data, len, err);
}

static int save_json(const eb_results *r, const char *path, unsigned flags, eb_error *err)
{
    eb_atomic_file *f;
    int rc = eb_atomic_open_flags(&f, path, flags, err);
    if (rc)
        return rc;
    file_sink fs = {f, path, 0};
    eb_results_sink sink = {to_file, &fs};
    if ((rc = eb_results_write_json(r, &sink, err))) {
        eb_atomic_abort(f);
        return rc;
    }
    return eb_atomic_commit(f, err);
}

int eb_results_save_json(const eb_results *r, const char *path, eb_error *err) { return save_json(r, path, 0, err); }

int eb_results_save_json_derived(const eb_results *r, const char *path, eb_error *err)
{
    return save_json(r, path, EB_ATOMIC_NO_SYNC, err);
}

int eb_results_save_csv(const eb_results *r, const char *path, eb_error *err)
{
    eb_buf b;
    eb_buf_init(&b);
    eb_results_to_csv(r, &b);
    int rc = eb_file_write_atomic(path, b.data, b.len, err);
    eb_buf_free(&b);
    return rc;
}
