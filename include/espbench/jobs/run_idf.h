/* run --idf: the matrix over ESP-IDF versions (docs/idf-regression.md). Each
 * checkout's firmware is built (cached, idf_build.h) and measured in a run of
 * its own, in OUT/idf-VERSION-COMMIT/ (so each resumes on its own); the runs'
 * results are then merged into OUT/results.json, every entry carrying the
 * IDF's version and commit in its provenance. */
#ifndef ESPBENCH_RUN_IDF_H
#define ESPBENCH_RUN_IDF_H

#include "espbench/base/error.h"
#include "espbench/jobs/idf_build.h"

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

#endif
