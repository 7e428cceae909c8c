/* The dimensions of a run, on the ends (run_internal.h run_dim): what a
 * row does to an end besides what every row does by the loops here (its
 * value handed to the ends that declare its kind, run_dims_apply). The
 * rows that have something of their own, in the order their values are
 * applied: the UDP offered rate (checked here; the plan's item carries it
 * to the test's sender), the TX power (the espbench firmware's radio_set:
 * run_radio.c), the radio's check and link, the tier with its Wi-Fi
 * connection. A row's connected step follows on a connected end. The link's
 * rows (the virtual board's RSSI, loss and round trip) and the lab
 * instruments' (attenuation; rssi on hardware; the AP's channel and
 * bandwidth) have nothing here: the board's fixtures that declare them set
 * them (run_ends.c; before the board, as a real link is there before the
 * board connects), and take their values for the next test once the board
 * is connected (fixtures_set). The
 * rows' names, units, ranges and where their values live are the formats'
 * table (formats/dims.c); the plan, the keys and file names run_plan.c's.
 * A row whose firmware cannot take it (tx_power, the radio rows on a
 * stock example) is refused up front with its reason. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/dims.h"
#include "run_internal.h"

/* ------------------------------------------------------------ sweep variables */

static bool swept(const eb_run_opts *o, int d)
{
    return o->sweep.n > 0 && o->sweep.var == d;
}

static bool udp_rate_check(const eb_run_opts *o, const eb_run_board *b, char *why, size_t cap)
{
    (void)b;
    unsigned tests = eb_run_tests(o);
    if (o->sweep.var != EB_DIM_UDP_RATE || o->sweep.n <= 0)
        return true;
    if (!(tests & ((1u << EB_TEST_UDP_TX) | (1u << EB_TEST_UDP_RX))))
        snprintf(why, cap, "--sweep udp-rate needs a UDP test: add udp_tx or udp_rx to --tests");
    else if (o->udp_rate_mbps > 0)
        snprintf(why, cap, "--sweep udp-rate and --udp-rate both set the offered rate: give one");
    else
        return true;
    return false;
}

/* ------------------------------------------------------------ the matrix */

static bool tier_check(const eb_run_opts *o, const eb_run_board *b, char *why, size_t cap)
{
    const eb_chip *c = b && o->profiles ? eb_profiles_chip(o->profiles, b->chip) : NULL;
    for (int t = 0; c && t < o->n_tiers; t++) {
        if (!strcmp(o->tiers[t], "all") || !strcmp(o->tiers[t], "psram") || eb_chip_tier(c, o->tiers[t]))
            continue;
        char names[1024];
        eb_chip_tier_names(c, names, sizeof names);
        snprintf(why, cap, "chip %s has no tier '%s' (tiers: %s; or all, psram)", c->name, o->tiers[t], names);
        return false;
    }
    return true;
}

/* The end's tier for the item (a peer's: its --peer-tier, else the same
 * name) applied and the end connected. */
static int tier_apply(board_ctx *end, const eb_run_item *it, eb_error *err)
{
    const eb_tier *t = eb_run_item_tier(it);
    if (end->dut) {
        const char *want = eb_run_peer_tier(end->dut->b, t->name);
        if (!(t = eb_chip_tier(end->chip, want)))
            return eb_fail(err, EB_ECONFIG, "%s: peer %s has no tier '%s': pass --peer-tier", end->dut->label,
                           end->chip->name, want);
    }
    return end->tier == t ? 0 : run_apply_tier(end, t, err);
}

/* In table order: the order of application. What a row's values are in
 * the plan (the tier's and the repeat's, the offered rate's by test) is
 * run_plan.c's; the rows of the formats' table not named here (the
 * radio's, the iperf options') have nothing of their own: their values
 * reach the ends by the loops below. The ESP-IDF version is a run of its
 * own per version (run --idf: its image and folder), recorded from what
 * the board reports (provenance idf_version). */
static const run_dim dims[] = {
    /* the senders take it from the item (run_test.c, run_pair.c) */
    {.dim = EB_DIM_UDP_RATE, .check = udp_rate_check},
    {.dim = EB_DIM_TX_POWER, .check = run_radio_tx_power_check, .apply = run_radio_tx_power_apply},
    /* the board's radio (run_radio.c): set before the tier connects; the
     * band row records the link as negotiated once connected */
    {.dim = EB_DIM_BAND, .check = run_radio_check, .connected = run_radio_link},
    {.dim = EB_DIM_TIER, .check = tier_check, .apply = tier_apply, .connects = true},
};
#define N_DIMS ((int)(sizeof dims / sizeof dims[0]))

static bool sweeps(const run_dim *d)
{
    return (eb_dim(d->dim)->flags & EB_DIM_SWEEPS) != 0;
}

/* Applied: a sweep row for the swept variable, the others always. */
static bool row_on(const run_dim *d, const eb_run_opts *o)
{
    return !sweeps(d) || swept(o, d->dim);
}

int run_dims_check(const eb_run_opts *o, bool sweep_vars, eb_error *err)
{
    for (int i = 0; i < N_DIMS; i++) {
        if (!dims[i].check || sweep_vars != sweeps(&dims[i]))
            continue;
        for (int b = 0; b < (o->n_boards ? o->n_boards : 1); b++) { /* no board: the run's own checks */
            char why[600];
            if (!dims[i].check(o, o->n_boards ? &o->boards[b] : NULL, why, sizeof why))
                return eb_fail(err, EB_ECONFIG, "%s", why);
        }
    }
    return 0;
}

/* ------------------------------------------------------------ the table's loops */

/* The board connected: each fixture of it (its ends before it) takes the
 * item's value of every row it declares for the next test (an rssi
 * steered with the board's report). */
static int fixtures_set(board_ctx *end, const eb_run_item *it, eb_error *err)
{
    int rc = 0;
    for (board_ctx *f = end->first; f && f != end && !rc; f = f->next)
        for (int d = EB_DIM_NONE + 1; d < eb_dim_count() && !rc && f->ops->config_set; d++)
            if (run_end_declares(f->ops->decl, eb_dim(d)) && !isnan(it->at[d]))
                rc = f->ops->config_set(f, eb_dim(d), it->at[d], err);
    return rc;
}

int run_dims_apply(board_ctx *end, const eb_run_item *it, bool own_tier, eb_error *err)
{
    int rc = 0;
    for (int d = EB_DIM_NONE + 1; d < eb_dim_count() && !rc; d++) /* the rows that are iperf options */
        if (end->ops->config_set && (end->ops->decl->sets & eb_dim(d)->flags & EB_DIM_IPERF))
            rc = end->ops->config_set(end, eb_dim(d), it->at[d], err);
    if (!(end->ops->decl->sets & EB_DIM_CONSOLE)) /* the rows below set a board's console */
        return rc;
    for (int i = 0; i < N_DIMS && !rc; i++) {
        if (dims[i].connects) /* the radio's rows (run_radio.c) before the tier connects */
            for (int d = EB_DIM_NONE + 1; d < eb_dim_count() && !rc; d++)
                if (eb_dim(d)->flags & end->ops->decl->sets & EB_DIM_RADIO)
                    rc = run_radio_apply(end, d, it, err);
        if (dims[i].apply && !rc && row_on(&dims[i], end->sh->o) && !(own_tier && dims[i].connects))
            rc = dims[i].apply(end, it, err);
    }
    if (!rc && !own_tier)
        rc = fixtures_set(end, it, err);
    for (int i = 0; i < N_DIMS && !rc; i++)
        if (dims[i].connected && row_on(&dims[i], end->sh->o) && !own_tier)
            rc = dims[i].connected(end, it, err);
    return rc;
}

/* Whether the item has a result that succeeded, looked up by the item's key
 * (its dimensions', and a pair test's peer). */
bool run_item_done(run_shared *sh, const eb_run_board *b, const char *chip, const eb_run_item *it)
{
    char tier[32] = "";
    eb_provenance prov;
    eb_prov_init(&prov);
    eb_result_key k = {b->name, chip, tier, it->test, 0, &prov};
    run_dims_key(sh->o, it, &(run_key){tier, sizeof tier, &k.repeat, &prov});
    if (it->test != EB_RUN_LATENCY && (b->peer.port[0] || b->peer.chip[0])) {
        snprintf(prov.peer_chip, sizeof prov.peer_chip, "%s", b->peer.chip);
        snprintf(prov.peer_tier, sizeof prov.peer_tier, "%s", eb_run_peer_tier(b, tier));
    }
    pthread_mutex_lock(&sh->lock);
    bool done;
    if (it->test == EB_RUN_LATENCY) {
        eb_latency *l = eb_results_find_latency_done(&sh->results, &k);
        done = l && strcmp(l->status, "ok") == 0;
    } else {
        eb_entry *e = eb_results_find_done(&sh->results, &k);
        done = e && strcmp(e->status, "ok") == 0;
    }
    pthread_mutex_unlock(&sh->lock);
    return done;
}
