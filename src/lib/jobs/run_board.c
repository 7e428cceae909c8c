/* The core of a board's run: the loop over its plan with retries. What a
 * variant adds (a peer board, an ESP-Hosted pair, latency, a link sweep,
 * aggregate meetings, pattern firmware) comes through the hooks of the
 * variant table (run_variants.c); this file names none of them. Failures
 * are classified by their kind (error.h): a reboot or a failed test is
 * retried, a lost port or a failed board-level step ends the board, Ctrl-C
 * ends the run with what was finished kept. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_internal.h"

#define EACH_VARIANT(v, bc)                                                                                   \
    for (const run_variant *const *v##_p = run_variants, *v; (v = *v##_p) != NULL; v##_p++)                 \
        if (run_variant_joins(v, bc))

/* The variant that runs an item: the first in the table that runs it. */
static const run_variant *owner_of(const board_ctx *bc, const eb_run_item *it)
{
    EACH_VARIANT(v, bc)
    if (v->runs && v->test && v->runs(bc, it))
        return v;
    return NULL;
}

static bool item_done(board_ctx *bc, const eb_run_item *it)
{
    bool done;
    EACH_VARIANT(v, bc)
    if (v->done && v->done(bc, it, &done))
        return done;
    return run_item_done(bc->sh, bc->b, bc->chip->name, it);
}

static void plan_ended(board_ctx *bc)
{
    EACH_VARIANT(v, bc)
    if (v->leave)
        v->leave(bc);
}

/* ------------------------------------------------------------ one item */

static void result_start(board_ctx *bc, const run_variant *owner, const eb_run_item *it, run_result *r)
{
    memset(r, 0, sizeof *r);
    if (owner->start) {
        owner->start(bc, it, r);
    } else {
        run_entry_base(bc, it, &r->e);
        r->entry = &r->e;
        r->prov = eb_entry_prov_mut(&r->e);
    }
    EACH_VARIANT(v, bc)
    if (v->stamp)
        v->stamp(bc, it, r);
}

static int record_result(board_ctx *bc, const run_variant *owner, const eb_run_item *it, run_result *r,
                         eb_error *err)
{
    if (owner->record)
        return owner->record(bc, it, r, err);
    int rc = run_record(bc, &r->e, err);
    run_emit(bc, EB_RUN_EV_TEST_DONE, it, NULL, 0, r->e.mean_mbps, &r->e);
    return rc;
}

/* Records a failed test with its reason; err is kept. */
static void record_failure(board_ctx *bc, const run_variant *owner, const eb_run_item *it, run_result *r,
                           eb_error *err)
{
    if (owner->failed) {
        owner->failed(r, err->msg);
    } else {
        snprintf(r->e.status, sizeof r->e.status, "failed");
        eb_entry_set_error(&r->e, "%s", err->msg);
        eb_iso8601_utc(r->e.finished);
    }
    eb_error keep = *err;
    record_result(bc, owner, it, r, err);
    *err = keep;
}

/* One attempt: the variants' steps around the tier (if not applied yet),
 * then the owner's test. */
static int attempt_item(board_ctx *bc, const run_variant *owner, const eb_run_item *it, run_result *r,
                        eb_error *err)
{
    eb_error_clear(err);
    int rc = 0;
    EACH_VARIANT(v, bc)
    if (!rc && v->before_tier)
        rc = v->before_tier(bc, it, err);
    if (!rc && bc->tier != it->tier && !owner->own_tier)
        rc = run_apply_tier(bc, it->tier, err);
    EACH_VARIANT(v, bc)
    if (!rc && v->after_tier)
        rc = v->after_tier(bc, it, err);
    result_start(bc, owner, it, r);
    return rc ? rc : owner->test(bc, it, r, err);
}

/* Whether a failed attempt ends the board: no console (a tier's flashing
 * failed), a lost port, a configuration error, a board-level step that
 * failed for another reason than a reboot, or a variant's other board lost. */
static bool board_cannot_go_on(const board_ctx *bc, int trc, const eb_error *err)
{
    if (!bc->con || eb_console_port_failed(bc->con) || err->kind == EB_KIND_PORT_LOST || trc == EB_ECONFIG ||
        err->kind == EB_KIND_BOARD)
        return true;
    EACH_VARIANT(v, bc)
    if (v->lost && v->lost(bc))
        return true;
    return false;
}

/* After a failed attempt: the tiers forgotten and, before a retry, the
 * boards brought to a known state. Returns 0, or the error of a board
 * whose console is gone. */
static int reset_board(board_ctx *bc, bool ready, eb_error *err)
{
    int rc = ready ? run_board_ready(bc, err) : (bc->tier = NULL, 0);
    EACH_VARIANT(v, bc)
    if (!rc && v->reset)
        rc = v->reset(bc, ready, err);
    return rc;
}

/* Runs one plan item with retries. Returns 0 (done or failed and recorded,
 * the board goes on) or the error that ends the board. */
static int run_item(board_ctx *bc, const eb_run_item *it, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    const run_variant *owner = owner_of(bc, it);
    if (!owner)
        return eb_fail(err, EB_ECONFIG, "%s: no variant of the run runs %s", bc->label, eb_run_test_name(it->test));
    for (int attempt = 0;; attempt++) {
        if (run_stopped(bc))
            return eb_fail(err, EB_EINTR, "interrupted");
        run_result r;
        int trc = attempt_item(bc, owner, it, &r, err);
        if (!trc) {
            int rc = record_result(bc, owner, it, &r, err);
            eb_entry_free(&r.e);
            return rc;
        }
        if (trc == EB_EINTR || run_stopped(bc)) {
            eb_entry_free(&r.e);
            return eb_fail(err, EB_EINTR, "interrupted");
        }
        bool fatal = board_cannot_go_on(bc, trc, err);
        if (!fatal && err->kind != EB_KIND_FINAL && attempt < o->retries) {
            run_infof(bc, EB_RUN_EV_WARN, "%s: %s/%s: %s; retrying (%d of %d)", bc->label, it->tier->name,
                      eb_run_test_name(it->test), err->msg, attempt + 1, o->retries);
            /* Whatever happened, start the next attempt from a known state. */
            if (reset_board(bc, true, err) == 0) {
                eb_entry_free(&r.e);
                continue;
            }
            fatal = true;
        }
        /* Reported: the test fails with the reason; the board goes on
         * unless the failure was the board's (port gone, no AP, ...). */
        record_failure(bc, owner, it, &r, err);
        eb_entry_free(&r.e);
        reset_board(bc, false, err);
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

static int open_board(board_ctx *bc, eb_error *err)
{
    int rc = run_board_log(bc, err);
    EACH_VARIANT(v, bc)
    if (!rc && v->before_open)
        rc = v->before_open(bc, err);
    if (!rc)
        rc = run_board_open(bc, err);
    EACH_VARIANT(v, bc)
    if (!rc && v->after_open)
        rc = v->after_open(bc, err);
    return rc;
}

static void close_board(board_ctx *bc)
{
    run_board_close(bc);
    EACH_VARIANT(v, bc)
    if (v->close)
        v->close(bc);
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
    int rc = open_board(bc, err);
    for (int i = 0; i < np && !rc; i++) {
        bc->index = i + 1;
        if (o->resume && item_done(bc, &plan[i])) {
            run_count(bc, &bc->sh->sum->skipped, 1);
            run_emit(bc, EB_RUN_EV_SKIP, &plan[i], NULL, 0, NAN, NULL);
            continue;
        }
        EACH_VARIANT(v, bc)
        if (v->begin_item)
            v->begin_item(bc, &plan[i]);
        rc = run_item(bc, &plan[i], err);
    }
    plan_ended(bc);
    close_board(bc);
    free(plan);
    return rc;
}
