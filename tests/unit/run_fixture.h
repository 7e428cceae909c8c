/* What the run-loop unit tests share (test_run_board.c, test_run_loop.c):
 * the profiles, a progress collector counting retries, finished and failed
 * tests and latency sets, and a run folder removed after each scenario. */
#ifndef TEST_RUN_FIXTURE_H
#define TEST_RUN_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/adapters/profile_dirs.h"
#include "espbench/adapters/results_file.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/results.h"
#include "espbench/jobs/run.h"

static eb_profiles profiles;
static char dir[64]; /* the scenario's run folder */

typedef struct seen {
    int retries, done, failed, latency;
    char last_error[256];
} seen;

static void on_progress(void *user, const eb_run_progress *p)
{
    seen *s = user;
    if (p->event == EB_RUN_EV_WARN && strstr(p->message, "retrying ("))
        s->retries++;
    if (p->event == EB_RUN_EV_LATENCY_DONE)
        s->latency++;
    if (p->event == EB_RUN_EV_TEST_DONE) {
        if (!strcmp(p->entry->status, "ok"))
            s->done++;
        else {
            s->failed++;
            snprintf(s->last_error, sizeof s->last_error, "%s", eb_entry_error(p->entry));
        }
    }
}

static int setup(void **state)
{
    (void)state;
    eb_error err = {0};
    const char *dirs[] = {SOURCE_DIR "/profiles"};
    return eb_profiles_load(&profiles, dirs, 1, &err) ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    eb_profiles_free(&profiles);
    return 0;
}

/* Frees the scenario's results and removes its run folder; with
 * EB_TEST_KEEP_RUNS=DIR it is moved there first, numbered, so the files of
 * two builds can be compared (results.json/csv, logs). */
static void cleanup(eb_results *res)
{
    eb_results_free(res);
    static int kept;
    char cmd[700];
    const char *keep = getenv("EB_TEST_KEEP_RUNS");
    if (keep && strlen(keep) < 512) {
        snprintf(cmd, sizeof cmd, "cp -r %s %s/%02d", dir, keep, ++kept);
        assert_int_equal(system(cmd), 0);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

#endif
