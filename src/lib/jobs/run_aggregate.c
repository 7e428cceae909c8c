/* --aggregate: several boards into one AP at the same time, a run-level
 * service the core calls (run_service_meet: run_board.c, run_job.c). Each
 * board thread meets the others
 * before every test of its plan, so the tests
 * overlap and the report can sum them (a question users ask: do four
 * boards together carry more than one?). The meeting has a deadline: a
 * board stuck in retries does not hold the others forever; whoever waited
 * longest closes the meeting with the boards present, and each entry
 * records how many started together (provenance concurrent_boards). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "run_internal.h"

/* Longer than a test with all its retries and a tier switch: a board that
 * misses this is late for a reason of its own. */
static double meet_wait_s(const eb_run_opts *o)
{
    return (o->duration_s + 30) * (o->retries + 1) + 120;
}

static int aggregate_check(const run_shared *sh, board_ctx *bcs, int n, eb_error *err)
{
    const eb_run_opts *o = sh->o;
    if (n < 2)
        return eb_fail(err, EB_ECONFIG, "--aggregate needs two or more boards: give a lab file (--lab) with them");
    int first = -1;
    for (int i = 0; i < n; i++) {
        eb_run_item probe[1];
        int np = eb_run_plan(o, bcs[i].chip, probe, 0, err);
        if (np < 0)
            return err->code;
        if (first < 0)
            first = np;
        else if (np != first)
            return eb_fail(err, EB_ECONFIG,
                           "--aggregate needs the same tests on every board: %s has %d, %s has %d; name tiers "
                           "every chip has (--tier) and the same --tests",
                           bcs[0].label, first, bcs[i].label, np);
    }
    return 0;
}

static void meet_init(run_meet *m, int members)
{
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&m->cond, &ca);
    pthread_condattr_destroy(&ca);
    m->members = members;
    m->open = true;
}

static void meet_destroy(run_meet *m)
{
    pthread_cond_destroy(&m->cond);
    pthread_mutex_destroy(&m->lock);
}

/* Lock held. */
static void close_meeting(run_meet *m)
{
    m->met = m->arrived;
    m->arrived = 0;
    m->gen++;
    pthread_cond_broadcast(&m->cond);
}

static int meet_wait(board_ctx *bc)
{
    run_meet *m = &bc->sh->meet;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    double w = meet_wait_s(bc->sh->o);
    until.tv_sec += (time_t)w;
    pthread_mutex_lock(&m->lock);
    int gen = m->gen;
    m->arrived++;
    if (m->arrived >= m->members) {
        close_meeting(m);
    } else {
        while (m->gen == gen && !run_stopped(bc)) {
            /* Wake now and then to notice Ctrl-C (the flag is set by a signal handler). */
            struct timespec step;
            clock_gettime(CLOCK_MONOTONIC, &step);
            step.tv_sec += 1;
            if (step.tv_sec > until.tv_sec)
                step = until;
            int rc = pthread_cond_timedwait(&m->cond, &m->lock, &step);
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (m->gen == gen && rc == ETIMEDOUT && now.tv_sec >= until.tv_sec) {
                close_meeting(m); /* the late ones meet again later */
                break;
            }
        }
        if (m->gen == gen) { /* stopped: leave the meeting as if never come */
            m->arrived--;
            pthread_mutex_unlock(&m->lock);
            return 1;
        }
    }
    int met = m->met, members = m->members;
    pthread_mutex_unlock(&m->lock);
    if (met < members)
        run_infof(bc, EB_RUN_EV_WARN, "%s: --aggregate: %d of %d boards started this test together", bc->label,
                  met, members);
    return met;
}

static void meet_leave(board_ctx *bc)
{
    run_meet *m = &bc->sh->meet;
    pthread_mutex_lock(&m->lock);
    m->members--;
    if (m->arrived > 0 && m->arrived >= m->members)
        close_meeting(m);
    pthread_mutex_unlock(&m->lock);
}

static bool meet_done(board_ctx *bc, const eb_run_item *it)
{
    const eb_run_opts *o = bc->sh->o;
    for (int i = 0; i < o->n_boards; i++)
        if (!run_item_done(bc->sh, &o->boards[i], o->boards[i].chip, it))
            return false;
    return true;
}

static int meet_begin(run_shared *sh, board_ctx *bcs, int n, eb_error *err)
{
    meet_init(&sh->meet, n);
    return aggregate_check(sh, bcs, n, err);
}

static void meet_end(run_shared *sh)
{
    if (sh->meet.open)
        meet_destroy(&sh->meet);
}

/* Before each item: start together with the other boards. */
static void meet(board_ctx *bc)
{
    bc->concurrent = meet_wait(bc);
}

/* Every result says how many boards measured at once. */
static void meet_stamp(board_ctx *bc, run_result *r)
{
    r->prov->concurrent_boards = bc->concurrent;
}

const run_service run_service_meet = {
    .name = "aggregate",
    .begin = meet_begin,
    .end = meet_end,
    .meet = meet,
    .leave = meet_leave,
    .done = meet_done, /* redone on every board unless done on all: the figures stay concurrent */
    .stamp = meet_stamp,
};
