/* espbench bisect: the first ESP-IDF commit that made a board slower
 * (docs/bisect.md). The job walks the first-parent commits between a good
 * and a bad revision (formats/bisect.h picks each next one), builds the
 * firmware at each commit and measures it with repeats until its verdict is
 * clear, skips a commit that does not build, and journals every step so a
 * killed bisect resumes without measuring a finished step again. The build
 * and the measurement are a driver (the real one: git worktree + idf_build +
 * the run job; unit tests give a fake). */
#ifndef ESPBENCH_JOBS_BISECT_H
#define ESPBENCH_JOBS_BISECT_H

#include <signal.h>
#include <stdbool.h>

#include "espbench/base/error.h"
#include "espbench/formats/bisect.h"
#include "espbench/jobs/run.h"

typedef struct eb_bisect_driver {
    /* The app image of commit: 0 with image and version set; EB_ESKIP-like:
     * returns 1 when the commit does not build (skip); else an error code. */
    int (*build)(void *user, const char *commit, char *image, size_t cap, char *version, size_t vcap,
                 eb_error *err);
    /* n more figures (Mbit/s) of image into mbps. */
    int (*measure)(void *user, const char *image, int n, double *mbps, eb_error *err);
    void *user;
} eb_bisect_driver;

typedef void (*eb_bisect_progress_fn)(void *user, const char *line);

typedef struct eb_bisect_req {
    const char *const *commits; /* first parent order, oldest first: [0] good, [n-1] bad */
    int n;
    const char *chip, *tier, *test;
    double threshold_pct;       /* default 5 */
    int repeats;                /* figures per commit at first (default 3) */
    int max_repeats;            /* at most (default 8) */
    const char *journal;        /* the journal file; resumed when it exists */
    volatile sig_atomic_t *stop;
    eb_bisect_progress_fn progress;
    void *user;
} eb_bisect_req;

typedef struct eb_bisect_result {
    int first_bad;              /* index into commits, -1: hidden by skips (amb_lo..amb_hi) */
    int amb_lo, amb_hi;
    int measured;               /* commits measured by this invocation */
    int measured_total;         /* commits with figures in the journal (the ends included) */
    eb_bisect_journal journal;  /* every step; eb_bisect_journal_free() */
} eb_bisect_result;

/* EB_ESHORT when the bad end is not worse than the good one; EB_EINTR on
 * stop (the journal kept); a driver's error otherwise. */
int eb_bisect(const eb_bisect_req *rq, const eb_bisect_driver *d, eb_bisect_result *res, eb_error *err);

/* Where the range starts. ESP-IDF tags vX.Y on release/vX.Y (with
 * backports) and vX.Y-dev on master, so a GOOD tag is often no ancestor of
 * BAD: the range then starts at their merge base, measured first. */
typedef struct eb_bisect_range {
    char good[41], bad[41];  /* the revisions as commits */
    char start[41];          /* GOOD, or the merge base */
    bool from_merge_base;    /* GOOD is not an ancestor of BAD */
    char start_version[64], bad_version[64]; /* their version headers */
} eb_bisect_range;

/* The first-parent commits START..BAD of repo, oldest first, START included:
 * *out (free each and the array), *n; the range's start in *info. Every
 * end's version is checked against the firmware's lowest (one line). */
int eb_bisect_rev_list(const char *repo, const char *good, const char *bad, char ***out, int *n,
                       eb_bisect_range *info, eb_error *err);

/* The subject line of commit in repo ("" when git cannot tell). */
void eb_bisect_commit_subject(const char *repo, const char *commit, char *out, size_t cap);
/* How many commits a bisect of n measures without skips or unclear ends:
 * the two ends and ceil(log2(n - 2 + 1)) between. */
int eb_bisect_most_measured(int n);

/* The real driver: each commit checked out into a detached worktree of repo
 * (the user's checkout untouched) with its submodules at the commit's
 * (ESP-IDF's build initialises an empty submodule but only warns about an
 * out-of-date one: a Wi-Fi library bump would otherwise never be built), the
 * espbench firmware built there for chip (idf_build.h, cached under
 * cache_dir), measured with the run job: rq/o as for `run` for one tier and
 * test, the image on the virtual board (rq.sim) or flashed onto the board
 * (rq.sim false: the run's firmware_build_dir). A commit that does not build
 * is skipped; an environment error (export.sh, network) ends the bisect. */
typedef struct eb_bisect_real {
    const char *repo, *chip, *cache_dir, *work_dir;
    eb_run_request rq;
    eb_run_opts o;
    int step;
    volatile sig_atomic_t *stop;
    char worktree[1100];     /* set once the worktree exists */
} eb_bisect_real;
eb_bisect_driver eb_bisect_real_driver(eb_bisect_real *r);

/* Removes the worktree from repo (`git worktree remove --force`: it has
 * submodules). 0 when there was none. */
int eb_bisect_real_cleanup(eb_bisect_real *r, eb_error *err);

#endif
