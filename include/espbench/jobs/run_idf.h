/* run --idf: the matrix over ESP-IDF versions (docs/idf-regression.md). Each
 * checkout's firmware is built (cached, idf_build.h) and measured in a run of
 * its own, in OUT/idf-VERSION-COMMIT/ (so each resumes on its own); the runs'
 * results are then merged into OUT/results.json, every entry carrying the
 * IDF's version and commit in its provenance. */
#ifndef ESPBENCH_RUN_IDF_H
#define ESPBENCH_RUN_IDF_H

#include <signal.h>
#include <stdbool.h>

#include "espbench/base/error.h"
#include "espbench/jobs/idf_build.h"
#include "espbench/jobs/run.h"

typedef struct eb_run_idf_step {
    eb_idf_checkout idf;
    eb_idf_build_result build;
    char image[1200];  /* the app image of the build (BUILD/espbench.bin) */
    char out_dir[1024]; /* this IDF's run folder */
} eb_run_idf_step;

/* Probes the checkout and builds its firmware for chip with req's settings
 * (req->idf and req->chip are set here), and names the step's run folder
 * under out_dir. A failed build: the build's one-line error. */
int eb_run_idf_prepare(const char *idf_path, const char *chip, const char *out_dir, eb_idf_build_req *req,
                       eb_run_idf_step *step, eb_error *err);

/* Merges the steps' results (those with a results.json) into
 * out_dir/results.json and .csv; an entry without an IDF version or commit
 * gets its step's. Returns 0, or the first load/merge/save error. */
int eb_run_idf_collect(const char *out_dir, const eb_run_idf_step *steps, int n, eb_error *err);

/* A build folder onto every board of a resolved run (o->boards), with the
 * flash job as `espbench flash --build-dir` does it (o->stub, regions whose
 * MD5 matches skipped, verified), then reset into the application; flashed
 * (may be NULL) after each board. */
int eb_run_flash_build(const eb_run_opts *o, const eb_profiles *profiles, const char *build_dir, const char *chip,
                       void (*flashed)(void *user, const char *port), void *user, eb_error *err);

/* What a virtual board can find between ESP-IDF builds, for front ends to say. */
#define EB_SIM_IDF_NOTE                                                                                        \
    "the virtual board's figures follow each build's settings (config/sdkconfig.json: lwIP windows and "       \
    "mailboxes, IRAM options) through the throughput model; changes in library code (Wi-Fi blobs, lwIP, "       \
    "drivers) cannot be simulated: measure those on a board (--port)"

/* What happens, for the front end to print (the library prints nothing). */
enum eb_run_idf_event_kind {
    EB_RUN_IDF_STALE,        /* step's checkout has submodules not at HEAD's commits (built as checked out) */
    EB_RUN_IDF_CHECKED,      /* every checkout's version read and its environment checked */
    EB_RUN_IDF_BUILD,        /* step's build starts (index of n) */
    EB_RUN_IDF_BUILT,        /* step's image is ready (step->build.cached, .seconds) */
    EB_RUN_IDF_BUILD_FAILED, /* err: the build's one line; the others go on */
    EB_RUN_IDF_FLASHED,      /* a real board has the step's image (board: its port) */
    EB_RUN_IDF_RUN,          /* step's run starts in step->out_dir */
    EB_RUN_IDF_RUN_END,      /* sum, n_boards, rc, err: the run's end (print its summary) */
    EB_RUN_IDF_MERGED,       /* merged runs in out */
};

typedef struct eb_run_idf_event {
    enum eb_run_idf_event_kind kind;
    int index, n;                 /* the step, of n checkouts */
    const eb_run_idf_step *step;
    const eb_error *err;
    const eb_run_summary *sum;
    int n_boards, rc, merged;
    const char *board;            /* EB_RUN_IDF_FLASHED: the port */
    const char *out;              /* the run's folder */
} eb_run_idf_event;

typedef struct eb_run_idf_req {
    const char *const *idf_paths; /* --idf checkouts */
    int n_idf;
    const char *cache_dir;        /* --idf-cache; NULL = eb_cache_dir()/idf-builds */
    const eb_run_request *rq;     /* as for one run: one --chip; out_dir NULL = espbench-CHIP-idf-DATE */
    const eb_run_opts *o;         /* as for one run (its progress callbacks too) */
    volatile sig_atomic_t *stop;
    void (*event)(void *user, const eb_run_idf_event *ev);
    void *user;
} eb_run_idf_req;

/* The matrix: every checkout's version and environment checked before any
 * build (one line: EB_ECONFIG); per checkout the firmware built (cached), on
 * a virtual board (rq->sim) or flashed onto each board of the run (the flash
 * job: stub, unchanged regions skipped), measured in a run folder of its own;
 * the runs merged into OUT/results.json. Errors, first that applies: a usage
 * error (*usage, EB_ECONFIG), interrupted (EB_EINTR), a run's configuration
 * error (EB_ECONFIG, stops), a run's I/O error (EB_EIO) over a test that fell
 * short (EB_ESHORT), the merge's error, then "N of M ESP-IDF builds failed"
 * (EB_ECONFIG when one failed for the environment, no network; else EB_EIO).
 * out gets the run's folder. */
int eb_run_idf(const eb_run_idf_req *req, char *out, size_t cap, bool *usage, eb_error *err);

#endif
