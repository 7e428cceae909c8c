/* The dimensions of a run (run_internal.h run_dim): one row each, in the
 * order their values are applied to an end — the UDP offered rate (checked
 * and named here; the plan's item carries it to the test's sender:
 * eb_run_plan), the TX power (the espbench firmware's
 * radio_set: run_radio.c), the link (the virtual
 * board's RSSI, loss and round trip; a lab attenuator; the lab AP's channel
 * and bandwidth: before the tier, as a real link is there before the board
 * connects), the tier with its Wi-Fi connection, the repeat and the ESP-IDF
 * version. A row's connected step follows on a connected end (an RSSI
 * steered with an attenuator). Their names, units and ranges are the formats'
 * table (formats/dims.c). A new dimension is a row there and a row here
 * with its apply function; a row whose firmware cannot take it (tx_power,
 * the radio rows on a stock example) is refused up front with its reason. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/dims.h"
#include "espbench/formats/lab.h"
#include "run_internal.h"

/* ------------------------------------------------------------ sweep variables */

static bool swept(const eb_run_opts *o, int dim, const eb_run_item *it)
{
    return o->sweep.var == dim && it->point >= 0 && it->point < o->sweep.n;
}

static void sweep_key(const eb_run_opts *o, const eb_run_item *it, run_key *k)
{
    if (it->point >= 0 && it->point < o->sweep.n) { /* the point is part of the key */
        snprintf(k->prov->sweep_var, sizeof k->prov->sweep_var, "%s", eb_sweep_var_key(o->sweep.var));
        k->prov->sweep_value = o->sweep.values[it->point];
    }
}

static void sweep_tag(const eb_run_opts *o, const eb_run_item *it, char *out, size_t cap)
{
    if (it->point >= 0 && it->point < o->sweep.n)
        snprintf(out, cap, "-%s%g", eb_sweep_var_key(o->sweep.var), o->sweep.values[it->point]);
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
    const eb_tier *t = it->tier;
    if (end->dut) {
        const char *want = eb_run_peer_tier(end->dut->b, it->tier->name);
        if (!(t = eb_chip_tier(end->chip, want)))
            return eb_fail(err, EB_ECONFIG, "%s: peer %s has no tier '%s': pass --peer-tier", end->dut->label,
                           end->chip->name, want);
    }
    return end->tier == t ? 0 : run_apply_tier(end, t, err);
}

static void tier_key(const eb_run_opts *o, const eb_run_item *it, run_key *k)
{
    (void)o;
    snprintf(k->tier, k->tier_cap, "%s", it->tier->name);
}

static void tier_tag(const eb_run_opts *o, const eb_run_item *it, char *out, size_t cap)
{
    (void)o;
    snprintf(out, cap, "-%s", it->tier->name);
}

static void repeat_key(const eb_run_opts *o, const eb_run_item *it, run_key *k)
{
    (void)o;
    *k->repeat = it->repeat;
}

static void repeat_tag(const eb_run_opts *o, const eb_run_item *it, char *out, size_t cap)
{
    (void)o;
    snprintf(out, cap, "-r%d", it->repeat);
}

/* In table order: the order of application and of file-name parts. The
 * ESP-IDF version is a run of its own per version (run --idf: its image and
 * folder), recorded from what the board reports (provenance idf_version). */
static const run_dim dims[] = {
    {EB_DIM_UDP_RATE, udp_rate_check, NULL, NULL, sweep_key, sweep_tag}, /* the plan's item carries it */
    {EB_DIM_TX_POWER, run_radio_tx_power_check, run_radio_tx_power_apply, NULL, sweep_key, sweep_tag},
    /* set by the board's fixtures that declare them (run_ends.c: the
     * virtual board's link, the lab's attenuator and AP), before the board */
    {EB_DIM_RSSI, NULL, NULL, NULL, sweep_key, sweep_tag},
    {EB_DIM_LOSS, NULL, NULL, NULL, sweep_key, sweep_tag},
    {EB_DIM_RTT, NULL, NULL, NULL, sweep_key, sweep_tag},
    {EB_DIM_ATTEN, NULL, NULL, NULL, sweep_key, sweep_tag},
    {EB_DIM_CHANNEL, NULL, NULL, NULL, sweep_key, sweep_tag},
    {EB_DIM_BANDWIDTH, NULL, NULL, NULL, sweep_key, sweep_tag},
    /* the board's radio (run_radio.c): set before the tier connects; the
     * band row records the link as negotiated once connected */
    {EB_DIM_BAND, run_radio_check, NULL, run_radio_link, NULL, NULL},
    {EB_DIM_TIER, tier_check, tier_apply, NULL, tier_key, tier_tag},
    {EB_DIM_REPEAT, NULL, NULL, NULL, repeat_key, repeat_tag},
    {EB_DIM_IDF, NULL, NULL, NULL, NULL, NULL},
};
#define N_DIMS ((int)(sizeof dims / sizeof dims[0]))

static bool sweeps(const run_dim *d)
{
    return (eb_dim(d->dim)->flags & EB_DIM_SWEEPS) != 0;
}

/* Applied: a sweep row for the swept variable, the others always. */
static bool row_on(const run_dim *d, const eb_run_opts *o)
{
    return !sweeps(d) || d->dim == o->sweep.var;
}

/* In the key and file names: a sweep row at a point of its variable (a
 * default leaves keys as they are), the others always. */
static bool named(const run_dim *d, const eb_run_opts *o, const eb_run_item *it)
{
    return !sweeps(d) || swept(o, d->dim, it);
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

/* ------------------------------------------------------------ rows that own their value */

/* The list rows of the formats' table (the radio's, the iperf options'),
 * and the rows flagged EB_DIM_IPERF with no functions here: an iperf option
 * that every end running the traffic takes through its config_set, its
 * value the item's sweep point (--sweep NAME=...), else its list's (--NAME
 * V1,V2), else its default. In the key: the fields the rows own
 * (eb_radio_key) or the sweep's; in file names the same point's parts
 * (eb_dims_file_tag: "-band5-bw40-len512"). */
static bool owns_value(int d)
{
    return (eb_dim(d)->flags & EB_DIM_IPERF) != 0;
}

static double row_value(const eb_run_opts *o, int d, const eb_run_item *it)
{
    if (swept(o, d, it))
        return o->sweep.values[it->point];
    const char *v = eb_radio_value(&o->radio, it->radio, d);
    return v[0] ? atof(v) : eb_dim(d)->def;
}

static int rows_set(board_ctx *end, const eb_run_item *it, eb_error *err)
{
    int rc = 0;
    for (int d = EB_DIM_NONE + 1; d < eb_dim_count() && !rc; d++)
        if (owns_value(d) && end->ops->config_set && (end->ops->decl->sets & eb_dim(d)->flags & EB_DIM_IPERF))
            rc = end->ops->config_set(end, eb_dim(d), row_value(end->sh->o, d, it), err);
    return rc;
}

/* A swept iperf option at a value of its own. */
static int swept_row(const eb_run_opts *o, const eb_run_item *it)
{
    for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++)
        if (owns_value(d) && swept(o, d, it) && !eb_dim_is_default(eb_dim(d), row_value(o, d, it)))
            return d;
    return EB_DIM_NONE;
}

static void rows_key(const eb_run_opts *o, const eb_run_item *it, run_key *k)
{
    eb_radio_key(&o->radio, it->radio, k->prov);
    if (swept_row(o, it))
        sweep_key(o, it, k);
}

static size_t rows_tag(const eb_run_opts *o, const eb_run_item *it, char *out, size_t cap)
{
    eb_provenance p;
    eb_prov_init(&p);
    eb_radio_key(&o->radio, it->radio, &p);
    eb_dims_file_tag(&p, out, cap);
    size_t n = strlen(out);
    int d = swept_row(o, it);
    if (d && n < cap)
        n += (size_t)snprintf(out + n, cap - n, "-%s%g", eb_dim(d)->name, row_value(o, d, it));
    return n;
}

/* ------------------------------------------------------------ the table's loops */

/* The radio's rows (the formats' table, EB_DIM_RADIO), each through the
 * console's radio_set (run_radio.c), before the tier connects. */
static int radio_rows_set(board_ctx *end, const eb_run_item *it, eb_error *err)
{
    int rc = 0;
    for (int d = EB_DIM_NONE + 1; d < eb_dim_count() && !rc; d++)
        if (eb_dim(d)->flags & end->ops->decl->sets & EB_DIM_RADIO)
            rc = run_radio_apply(end, d, it, err);
    return rc;
}

bool run_dims_value(const eb_run_opts *o, int d, const eb_run_item *it, double *v)
{
    if (!swept(o, d, it) && !eb_radio_value(&o->radio, it->radio, d)[0])
        return false;
    *v = row_value(o, d, it);
    return true;
}

/* The board connected: each fixture of it (its ends before it) takes the
 * item's value of every row it declares for the next test (an rssi
 * steered with the board's report). */
static int fixtures_set(board_ctx *end, const eb_run_item *it, eb_error *err)
{
    int rc = 0;
    for (board_ctx *f = end->first; f && f != end && !rc; f = f->next)
        for (int d = EB_DIM_NONE + 1; d < eb_dim_count() && !rc && f->ops->config_set; d++) {
            double v;
            if (run_end_declares(f->ops->decl, eb_dim(d)) && run_dims_value(end->sh->o, d, it, &v))
                rc = f->ops->config_set(f, eb_dim(d), v, err);
        }
    return rc;
}

int run_dims_apply(board_ctx *end, const eb_run_item *it, bool own_tier, eb_error *err)
{
    int rc = rows_set(end, it, err);
    if (!(end->ops->decl->sets & EB_DIM_CONSOLE)) /* the rows below set a board's console */
        return rc;
    for (int i = 0; i < N_DIMS && !rc; i++) {
        if (dims[i].dim == EB_DIM_TIER && (rc = radio_rows_set(end, it, err)) != 0)
            break;
        if (dims[i].apply && row_on(&dims[i], end->sh->o) && !(own_tier && dims[i].dim == EB_DIM_TIER))
            rc = dims[i].apply(end, it, err);
    }
    if (!rc && !own_tier)
        rc = fixtures_set(end, it, err);
    for (int i = 0; i < N_DIMS && !rc; i++)
        if (dims[i].connected && row_on(&dims[i], end->sh->o) && !own_tier)
            rc = dims[i].connected(end, it, err);
    return rc;
}

void run_dims_key(const eb_run_opts *o, const eb_run_item *it, run_key *k)
{
    for (int i = 0; i < N_DIMS; i++)
        if (dims[i].key && named(&dims[i], o, it))
            dims[i].key(o, it, k);
    rows_key(o, it, k);
}

void run_dims_tag(const eb_run_opts *o, const eb_run_item *it, const char *test, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; i < N_DIMS && n < cap; i++) {
        if (dims[i].dim == EB_DIM_TIER) /* the rows owning their value before the tier */
            n += rows_tag(o, it, out + n, cap - n);
        if (!dims[i].tag || !named(&dims[i], o, it) || n >= cap)
            continue;
        char part[96] = "";
        dims[i].tag(o, it, part, sizeof part);
        n += (size_t)snprintf(out + n, cap - n, "%s", part);
        if (dims[i].dim == EB_DIM_TIER && test && n < cap) /* the test follows the tier */
            n += (size_t)snprintf(out + n, cap - n, "-%s", test);
    }
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
        snprintf(prov.peer_tier, sizeof prov.peer_tier, "%s", eb_run_peer_tier(b, it->tier->name));
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
