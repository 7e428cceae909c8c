/* The test kinds of a run (run_internal.h run_kind): what a test measures,
 * its result, how it is recorded and how it fails. A test has one kind,
 * looked up by the test; the end that serves it is named by the kind (the
 * far end's throughput or round trips, the board's own transport test), so
 * a board whose ends cannot serve a kind is refused before anything starts:
 *   throughput  tcp/udp tx/rx against the far end (the PC: run_test.c; a
 *               peer board: run_pair.c); an entry, and with
 *               --latency-under-load the far end's round trips beside its
 *               traffic (run_latency.c): a latency set tagged with the test
 *   latency     round trips from the far end, which only the PC measures
 *               (run_latency.c); a latency set
 *   transport   raw_tx/raw_rx of an ESP-Hosted pair, an image of their own
 *               (run_hosted.c); an entry */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "espbench/formats/dims.h"
#include "run_internal.h"

/* ------------------------------------------------------------ an entry */

/* An entry's key and settings for the item (its dimensions, tier
 * settings, reference figure at its key); the figure source of a virtual
 * board's entry is its fixture's stamp (run_end_vboard.c). */
static void entry_start(board_ctx *bc, const eb_run_item *it, run_result *r)
{
    const eb_run_opts *o = bc->sh->o;
    eb_entry *e = &r->e;
    eb_entry_init(e);
    r->entry = e;
    r->prov = eb_entry_prov_mut(e);
    snprintf(e->board, sizeof e->board, "%s", bc->b->name);
    snprintf(e->chip, sizeof e->chip, "%s", bc->chip->name);
    e->test = it->test;
    run_dims_key(o, it, &(run_key){e->tier, sizeof e->tier, &e->repeat, r->prov});
    e->ref_mbps = eb_tier_ref(eb_run_item_tier(it), it->test, r->prov);
    e->duration_s = o->duration_s;
    e->interval_s = o->interval_s;
    e->warmup_s = o->warmup_s;
    for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++) /* a row's value where the entry keeps it */
        if (eb_dim(d)->entry_off)
            memcpy((char *)e + eb_dim(d)->entry_off, &it->at[d], sizeof(double));
    eb_entry_set_tier_params(e, eb_run_item_tier(it));
    if (bc->tier == eb_run_item_tier(it))
        eb_entry_set_tier_note(e, bc->tier_note);
    eb_prov_track_test_start(&bc->prov);
}

static int entry_record(board_ctx *bc, const eb_run_item *it, run_result *r, eb_error *err)
{
    int rc = run_record(bc, &r->e, err);
    run_emit(bc, EB_RUN_EV_TEST_DONE, it, NULL, 0, r->e.mean_mbps, &r->e);
    int lrc = run_latency_record_loaded(bc, it, r, rc ? &(eb_error){0} : err);
    return rc ? rc : lrc;
}

static void entry_failed(run_result *r, const char *why)
{
    snprintf(r->e.status, sizeof r->e.status, "failed");
    eb_entry_set_error(&r->e, "%s", why);
    eb_iso8601_utc(r->e.finished);
}

/* ------------------------------------------------------------ the kinds */

static bool far_throughput(const run_end_ops *own, const run_end_ops *far)
{
    (void)own;
    return far && far->tests->throughput != NULL;
}

static int far_throughput_test(board_ctx *bc, const eb_run_item *it, run_result *r, eb_error *err)
{
    return bc->far->ops->tests->throughput(bc, it, &r->e, err);
}

/* --latency-under-load: the far end's round trips beside the traffic. */
static int throughput_test(board_ctx *bc, const eb_run_item *it, run_result *r, eb_error *err)
{
    if (bc->sh->o->latency_under_load && bc->far->ops->tests->round_trips)
        return run_latency_under_load(bc, it, r, far_throughput_test, err);
    return far_throughput_test(bc, it, r, err);
}

static bool far_round_trips(const run_end_ops *own, const run_end_ops *far)
{
    (void)own;
    return far && far->tests->round_trips != NULL;
}

static int latency_test(board_ctx *bc, const eb_run_item *it, run_result *r, eb_error *err)
{
    return bc->far->ops->tests->round_trips(bc, it, &r->lat, err);
}

static bool own_transport(const run_end_ops *own, const run_end_ops *far)
{
    (void)far;
    return own->tests->transport != NULL;
}

static int transport_test(board_ctx *bc, const eb_run_item *it, run_result *r, eb_error *err)
{
    return bc->ops->tests->transport(bc, it, &r->e, err);
}

#define RAW_TESTS ((1u << EB_TEST_RAW_TX) | (1u << EB_TEST_RAW_RX))

static const run_kind kinds[] = {
    {"throughput", EB_RUN_THROUGHPUT_TESTS, false, far_throughput, "the far end cannot take a throughput test",
     entry_start, throughput_test, entry_record, entry_failed},
    {"latency", 1u << EB_RUN_LATENCY, false, far_round_trips,
     "the latency test measures round trips from the PC, not between two boards: drop latency from --tests or "
     "the peer (--peer-*, a lab board's peer:)",
     run_latency_start, latency_test, run_latency_record, run_latency_failed},
    {"transport", RAW_TESTS, true, own_transport,
     "--tests raw_tx/raw_rx measure an ESP-Hosted transport: pass --coprocessor CHIP",
     entry_start, transport_test, entry_record, entry_failed},
};

const run_kind *run_kind_of(int test)
{
    for (size_t i = 0; test >= 0 && test < 32 && i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].tests & (1u << test))
            return &kinds[i];
    return NULL;
}

int run_kinds_check(const eb_run_opts *o, eb_error *err)
{
    int rc = run_ends_check(o, err); /* the ends exist and take the request's values */
    if (rc)
        return rc;
    unsigned tests = eb_run_tests(o);
    if (o->latency_under_load && !(tests & EB_RUN_THROUGHPUT_TESTS))
        return eb_fail(err, EB_ECONFIG, "--latency-under-load probes round trips beside a throughput test, and "
                       "--tests has none (latency alone is the idle test): add tcp_tx, tcp_rx, udp_tx or udp_rx, "
                       "or drop --latency-under-load");
    for (int b = 0; b < o->n_boards; b++) {
        const eb_run_board *bd = &o->boards[b];
        const run_end_ops *own, *far;
        run_end_rows(bd, &own, &far);
        for (int t = 0; t < 32; t++) {
            const run_kind *k = (tests & (1u << t)) ? run_kind_of(t) : NULL;
            if (k && !k->can(own, far))
                return eb_fail(err, EB_ECONFIG, "%s%s%s", bd->name[0] && o->n_boards > 1 ? bd->name : "",
                               bd->name[0] && o->n_boards > 1 ? ": " : "", k->cannot);
        }
        if (o->latency_under_load && !far->tests->round_trips)
            return eb_fail(err, EB_ECONFIG, "%s%s--latency-under-load probes round trips from the PC beside its "
                           "traffic, not between two boards: drop it or the peer (--peer-*, a lab board's peer:)",
                           bd->name[0] && o->n_boards > 1 ? bd->name : "", bd->name[0] && o->n_boards > 1 ? ": " : "");
    }
    return 0;
}
