/* The core of a board's run: the loop over its plan with retries. A board's
 * tests have two ends (run_ends.c: the board, and a peer board or the PC),
 * and its surroundings are fixtures (the virtual board, the lab's
 * instruments); the core runs each step for all of them through the end
 * table: open, prepare (every dimension's value: run_dims.c), reset after a
 * failure, lost, stamp, close. The item's test kind (run_kinds.c) starts,
 * measures, records and fails its result; the run-level services
 * (run_service: --aggregate's meeting) are called before each item, on
 * every result and at the plan's end. Failures are classified by their kind (error.h): a
 * reboot or a failed test is retried, a lost port or a failed board-level
 * step ends the board, Ctrl-C ends the run with what was finished kept. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_internal.h"

/* The board's ends in the order the core runs them: its fixtures (set
 * before the board connects), the board, its far end. */
#define EACH_END(e, bc) for (board_ctx *e = (bc)->first; e; e = e->next)
/* The ends the board's thread opens and closes: the board and its far end
 * (a fixture is opened when it is made, closed when freed: run_ends.c). */
#define EACH_OWN_LIFE(e, bc) for (board_ctx *e = (bc); e; e = e->next)
/* The run's services. */
#define EACH_SERVICE(s, bc) for (const run_service *const *s = (bc)->sh->services; *s; s++)

/* Done before (--resume): as a service says (--aggregate: on every board),
 * else the board's own result. */
static bool item_done(board_ctx *bc, const eb_run_item *it)
{
    EACH_SERVICE(s, bc)
    if ((*s)->done)
        return (*s)->done(bc, it);
    return run_item_done(bc->sh, bc->b, bc->chip->name, it);
}

static void plan_ended(board_ctx *bc)
{
    EACH_SERVICE(s, bc)
    if ((*s)->leave)
        (*s)->leave(bc);
}

/* ------------------------------------------------------------ one item */

static void result_start(board_ctx *bc, const run_kind *kind, const eb_run_item *it, run_result *r)
{
    memset(r, 0, sizeof *r);
    kind->start(bc, it, r);
    EACH_SERVICE(s, bc)
    if ((*s)->stamp)
        (*s)->stamp(bc, r);
    EACH_END(e, bc)
    if (e->ops->stamp)
        e->ops->stamp(e, it, r);
}

/* Records a failed test with its reason; err is kept. */
static void record_failure(board_ctx *bc, const run_kind *kind, const eb_run_item *it, run_result *r,
                           eb_error *err)
{
    kind->failed(r, err->msg);
    eb_error keep = *err;
    kind->record(bc, it, r, err);
    *err = keep;
}

/* One attempt: every end prepared for the item, then the kind's test. */
static int attempt_item(board_ctx *bc, const run_kind *kind, const eb_run_item *it, run_result *r, eb_error *err)
{
    eb_error_clear(err);
    int rc = 0;
    EACH_END(e, bc)
    if (!rc && e->ops->prepare)
        rc = e->ops->prepare(e, it, kind->own_tier, err);
    result_start(bc, kind, it, r);
    return rc ? rc : kind->test(bc, it, r, err);
}

/* Whether a failed attempt ends the board: a lost port, a configuration
 * error, a board-level step that failed for another reason than a reboot,
 * or an end that cannot go on (no console: a tier's flashing failed). */
static bool board_cannot_go_on(const board_ctx *bc, int trc, const eb_error *err)
{
    if (err->kind == EB_KIND_PORT_LOST || trc == EB_ECONFIG || err->kind == EB_KIND_BOARD)
        return true;
    EACH_END(e, (board_ctx *)bc)
    if (e->ops->lost && e->ops->lost(e))
        return true;
    return false;
}

/* After a failed attempt: what every end set forgotten and, before a
 * retry, the ends brought to a known state. Returns 0, or the error of an
 * end that is gone (a console whose port failed). */
static int reset_ends(board_ctx *bc, bool retry, eb_error *err)
{
    int rc = 0;
    EACH_END(e, bc) {
        int erc = e->ops->reset ? e->ops->reset(e, retry && !rc, err) : 0;
        rc = rc ? rc : erc;
    }
    return rc;
}

/* Runs one plan item with retries. Returns 0 (done or failed and recorded,
 * the board goes on) or the error that ends the board; *recorded: whether
 * the item has its entry (a failure that ends the board is recorded first). */
static int run_item(board_ctx *bc, const eb_run_item *it, bool *recorded, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    const run_kind *kind = run_kind_of(it->test);
    *recorded = false;
    if (!kind)
        return eb_fail(err, EB_ECONFIG, "%s: no test kind runs %s", bc->label, eb_run_test_name(it->test));
    for (int attempt = 0;; attempt++) {
        if (run_stopped(bc))
            return eb_fail(err, EB_EINTR, "interrupted");
        run_result r;
        int trc = attempt_item(bc, kind, it, &r, err);
        if (!trc) {
            int rc = kind->record(bc, it, &r, err);
            *recorded = true;
            eb_entry_free(&r.e);
            return rc;
        }
        if (trc == EB_EINTR || run_stopped(bc)) {
            eb_entry_free(&r.e);
            return eb_fail(err, EB_EINTR, "interrupted");
        }
        bool fatal = board_cannot_go_on(bc, trc, err);
        if (!fatal && err->kind != EB_KIND_FINAL && attempt < o->retries) {
            run_infof(bc, EB_RUN_EV_WARN, "%s: %s/%s: %s; retrying (%d of %d)", bc->label, eb_run_item_tier(it)->name,
                      eb_run_test_name(it->test), err->msg, attempt + 1, o->retries);
            /* Whatever happened, start the next attempt from a known state. */
            if (reset_ends(bc, true, err) == 0) {
                eb_entry_free(&r.e);
                continue;
            }
            fatal = true;
        }
        /* Reported: the test fails with the reason; the board goes on
         * unless the failure was the board's (port gone, no AP, ...). */
        record_failure(bc, kind, it, &r, err);
        *recorded = true;
        eb_entry_free(&r.e);
        reset_ends(bc, false, err);
        return fatal ? trc : 0;
    }
}

/* ------------------------------------------------------------ the board */

/* Everything already done (--resume): report the skips and touch nothing. */
static void skip_all(board_ctx *bc, const eb_run_item *plan, int np)
{
    for (int i = 0; i < np; i++) {
        bc->index = i + 1;
        run_emit(bc, EB_RUN_EV_SKIP, &plan[i], NULL, 0, NAN, NULL);
    }
    run_count(bc, &bc->sh->sum->skipped, np);
}

/* Items from..np-1 that will not run (the board stopped, the run was
 * interrupted or could not start): each said with why and counted, so the
 * summary adds up to the plan; one done before (--resume) is a skip. */
static void not_run(board_ctx *bc, const eb_run_item *plan, int from, int np, const char *why)
{
    const eb_run_opts *o = bc->sh->o;
    for (int i = from; i < np; i++) {
        bc->index = i + 1;
        bool before = o->resume && item_done(bc, &plan[i]);
        run_count(bc, before ? &bc->sh->sum->skipped : &bc->sh->sum->not_run, 1);
        run_emit(bc, before ? EB_RUN_EV_SKIP : EB_RUN_EV_NOT_RUN, &plan[i], why, 0, NAN, NULL);
    }
}

void run_board_not_run(board_ctx *bc, const char *why)
{
    eb_error err;
    eb_run_item *plan = calloc(EB_RUN_MAX_PLAN, sizeof *plan);
    if (!plan)
        abort();
    int np = eb_run_plan(bc->sh->o, bc->chip, plan, EB_RUN_MAX_PLAN, &err);
    if (np > EB_RUN_MAX_PLAN)
        np = EB_RUN_MAX_PLAN;
    if (np > 0) {
        bc->total = np;
        run_count(bc, &bc->sh->sum->planned, np);
        not_run(bc, plan, 0, np, why);
    }
    free(plan);
}

static int open_ends(board_ctx *bc, eb_error *err)
{
    int rc = 0;
    EACH_OWN_LIFE(e, bc)
    if (!rc && e->ops->open)
        rc = e->ops->open(e, err);
    return rc;
}

static void close_ends(board_ctx *bc)
{
    EACH_OWN_LIFE(e, bc)
    if (e->ops->close)
        e->ops->close(e);
}

int run_board(board_ctx *bc)
{
    const eb_run_opts *o = bc->sh->o;
    eb_error *err = &bc->err;
    eb_run_item *plan = calloc(EB_RUN_MAX_PLAN, sizeof *plan);
    if (!plan)
        abort();
    int np = eb_run_plan(o, bc->chip, plan, EB_RUN_MAX_PLAN, err);
    if (np < 0) {
        free(plan);
        plan_ended(bc);
        return err->code;
    }
    if (np > EB_RUN_MAX_PLAN)
        np = EB_RUN_MAX_PLAN;
    bc->total = np;
    run_count(bc, &bc->sh->sum->planned, np);
    int todo = 0;
    for (int i = 0; i < np; i++)
        todo += !(o->resume && item_done(bc, &plan[i]));
    if (todo == 0) {
        skip_all(bc, plan, np);
        free(plan);
        plan_ended(bc);
        return 0;
    }
    int rc = open_ends(bc, err), stop = rc ? 0 : np;
    for (int i = 0; i < np && !rc; i++) {
        bc->index = i + 1;
        if (o->resume && item_done(bc, &plan[i])) {
            run_count(bc, &bc->sh->sum->skipped, 1);
            run_emit(bc, EB_RUN_EV_SKIP, &plan[i], NULL, 0, NAN, NULL);
            continue;
        }
        EACH_SERVICE(s, bc) /* --aggregate: start together with the other boards */
        if ((*s)->meet)
            (*s)->meet(bc);
        bool recorded;
        rc = run_item(bc, &plan[i], &recorded, err);
        if (rc)
            stop = recorded ? i + 1 : i;
    }
    if (rc)
        not_run(bc, plan, stop, np, err->msg);
    plan_ended(bc);
    close_ends(bc);
    free(plan);
    return rc;
}
