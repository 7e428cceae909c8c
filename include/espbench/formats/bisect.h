/* Bisecting a throughput regression over a commit range (docs/bisect.md):
 * which commit to measure next, the verdict on a commit's figures against
 * the good end's, and the journal a killed bisect resumes from. Pure
 * functions (formats/bisect.c); the git, build and measuring steps are
 * jobs/bisect_job.c's. */
#ifndef ESPBENCH_BISECT_H
#define ESPBENCH_BISECT_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/buf.h"
#include "espbench/base/error.h"

enum eb_bisect_mark { EB_BISECT_UNTESTED, EB_BISECT_GOOD, EB_BISECT_BAD, EB_BISECT_SKIP };
const char *eb_bisect_mark_name(int mark); /* "untested", "good", "bad", "skip" */

/* marks[0] is the good end, marks[n-1] the bad end (first parent order,
 * oldest first). Returns the index to measure next, or -1 when the range is
 * resolved: then *first_bad is the first bad commit's index, or -1 when
 * skipped commits hide it — the candidates are then *amb_lo..*amb_hi. The
 * next one is the middle of the unresolved range; a skipped middle gives way
 * to the nearest untested commit (as `git bisect skip` does). */
int eb_bisect_next(const int *marks, int n, int *first_bad, int *amb_lo, int *amb_hi);

#define EB_BISECT_MAX_REPEATS 16

/* The verdict on a commit's figures against the good end's (Welch's t at
 * 95 %, stats.h): bad when worse beyond noise and by more than threshold_pct
 * of the good mean; good when within noise or better, or worse by less than
 * the threshold; else unclear (*clear false), decided on the means against
 * the threshold. */
int eb_bisect_verdict(const double *good, int n_good, const double *cur, int n_cur, double threshold_pct,
                      bool *clear);

typedef struct eb_bisect_step {
    char commit[41];
    char version[48];
    int mark;                 /* enum eb_bisect_mark */
    bool unclear;             /* decided after the last repeat without Welch's say */
    int n;                    /* figures */
    double mbps[EB_BISECT_MAX_REPEATS];
} eb_bisect_step;

typedef struct eb_bisect_journal {
    char good[41], bad[41];   /* the range's ends, full hashes */
    char chip[32], tier[64], test[16];
    double threshold_pct;
    eb_bisect_step *steps;    /* in the order measured */
    int n_steps, cap;
} eb_bisect_journal;

void eb_bisect_journal_free(eb_bisect_journal *j);
eb_bisect_step *eb_bisect_journal_add(eb_bisect_journal *j);
const eb_bisect_step *eb_bisect_journal_find(const eb_bisect_journal *j, const char *commit);
void eb_bisect_journal_to_json(const eb_bisect_journal *j, eb_buf *out);
/* Parses a journal; name is for messages. EB_ECONFIG with "NAME: ..." on a
 * malformed one. */
int eb_bisect_journal_parse(const char *text, size_t len, const char *name, eb_bisect_journal *j, eb_error *err);
/* 0 when the journal is this bisect's (ends, chip, tier, test, threshold);
 * else EB_ECONFIG naming the first field that differs. */
int eb_bisect_journal_matches(const eb_bisect_journal *j, const eb_bisect_journal *want, const char *name,
                              eb_error *err);

#endif
