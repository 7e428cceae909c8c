/* The run's option defaults, the CI shard that keeps a slice of the
 * matrix, and the UDP offered rate of a test (the plan itself, a cross
 * product of the dimension rows: run_dims.c). Pure: no board, no file. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "espbench/base/names.h"
#include "espbench/formats/dims.h"
#include "espbench/jobs/run.h"
#include "run_internal.h"

#define UDP_RATE_FACTOR 1.3
#define UDP_RATE_FALLBACK 100.0

void eb_run_opts_defaults(eb_run_opts *o)
{
    if (o->duration_s <= 0)
        o->duration_s = 10;
    if (o->interval_s <= 0)
        o->interval_s = 1;
    if (o->warmup_s < 0)
        o->warmup_s = o->interval_s;
    if (o->repeat <= 0)
        o->repeat = 1;
    o->tests = eb_run_tests(o);
    if (o->retries < 0)
        o->retries = 2;
    if (o->latency_count <= 0)
        o->latency_count = EB_RUN_LATENCY_COUNT;
    if (o->latency_interval_s <= 0)
        o->latency_interval_s = EB_RUN_LATENCY_INTERVAL;
    if (!o->baud)
        o->baud = 115200;
}

unsigned eb_run_tests(const eb_run_opts *o)
{
    return o->tests ? o->tests : EB_RUN_THROUGHPUT_TESTS;
}

int eb_run_check_timing(const eb_run_opts *in, eb_error *err)
{
    eb_run_opts o = *in;
    eb_run_opts_defaults(&o);
    double d = o.duration_s, i = o.interval_s, w = o.warmup_s;
    if (i > d)
        return eb_fail(err, EB_ECONFIG, "--interval (%g) is longer than --duration (%g)", i, d);
    if (w + i > d + 1e-9)
        return eb_fail(err, EB_ECONFIG, "--duration %g leaves no full interval after the %g s warm-up "
                       "(--interval %g): lengthen --duration or shorten --warmup", d, w, i);
    return 0;
}

int eb_run_check_out(const eb_run_opts *o, eb_error *err)
{
    char prev[1200];
    snprintf(prev, sizeof prev, "%s/results.json", o->out_dir);
    if (!o->resume && access(prev, F_OK) == 0)
        return eb_fail(err, EB_ECONFIG, "%s exists: pass --resume to continue that run, or choose another --out",
                       prev);
    return 0;
}

const char *eb_run_test_name(int test)
{
    return test == EB_RUN_LATENCY ? "latency" : eb_test_name(test);
}

int eb_run_test_from_name(const char *name)
{
    return eb_name_same(name, "latency") ? EB_RUN_LATENCY : eb_test_from_name(name);
}

const char *eb_run_peer_tier(const eb_run_board *b, const char *tier)
{
    return b->peer.tier[0] ? b->peer.tier : tier;
}

/* An error of the request itself (flags that contradict or lack something):
 * the CLI shows it as a usage error. */
int run_bad_request(eb_run_setup *st, eb_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->code = EB_ECONFIG;
    err->kind = EB_KIND_NONE;
    st->bad_request = true;
    return EB_ECONFIG;
}

double eb_run_grace_s(const eb_run_opts *o)
{
    return o->grace_s > 0 ? o->grace_s : 5 + 2 * o->interval_s;
}

const eb_tier *eb_run_item_tier(const eb_run_item *it)
{
    double v = it->at[EB_DIM_TIER];
    return isfinite(v) && v >= 0 && v < it->chip->n_tiers ? &it->chip->tiers[(int)v] : NULL;
}

int eb_run_item_repeat(const eb_run_item *it)
{
    return isfinite(it->at[EB_DIM_REPEAT]) ? (int)it->at[EB_DIM_REPEAT] : 0;
}

int run_sweep_point(const eb_run_opts *o, const eb_run_item *it)
{
    for (int i = 0; o->sweep.n > 0 && i < o->sweep.n; i++)
        if (it->at[o->sweep.var] == o->sweep.values[i])
            return i;
    return -1;
}

bool eb_run_test_is_tx(int test) { return test == EB_TEST_TCP_TX || test == EB_TEST_UDP_TX; }
bool eb_run_test_is_udp(int test) { return test == EB_TEST_UDP_TX || test == EB_TEST_UDP_RX; }

double eb_run_udp_rate(const eb_run_opts *o, const eb_chip *chip, const eb_tier *t, int test)
{
    if (o->udp_rate_mbps > 0)
        return o->udp_rate_mbps;
    if (test == EB_TEST_UDP_RX) /* the PC sends: the chip's cap, as ESP-IDF's CI offers it */
        return chip && chip->udp_rx_rate_mbps > 0 ? chip->udp_rx_rate_mbps : UDP_RATE_FALLBACK;
    double ref = eb_tier_ref(t, test, NULL);
    if (isfinite(ref) && ref > 0)
        return round(ref * UDP_RATE_FACTOR * 10) / 10;
    return UDP_RATE_FALLBACK;
}

/* ------------------------------------------------------------ the plan */

static void tier_key(const eb_run_item *it, run_key *k)
{
    snprintf(k->tier, k->tier_cap, "%s", eb_run_item_tier(it)->name);
}

static void repeat_key(const eb_run_item *it, run_key *k)
{
    *k->repeat = eb_run_item_repeat(it);
}

static int unknown_tier(const eb_chip *chip, const char *name, eb_error *err)
{
    char list[512];
    eb_chip_tier_names(chip, list, sizeof list);
    return -eb_fail(err, EB_ECONFIG, "chip %s has no tier '%s' (tiers: %s; or all, psram)", chip->name, name,
                    list);
}

/* The tiers named by o (in the order given; "all" = the docs' main table,
 * the tiers without PSRAM, and "psram" the PSRAM tiers, in profile order),
 * as their indexes in the chip's tiers. Returns the count or -code. */
static int tier_axis(const eb_run_opts *o, const eb_chip *chip, double *v, int max, eb_error *err)
{
    static const char *const all_list[] = {"all"};
    const char *const *names = o->n_tiers ? o->tiers : all_list;
    int n_names = o->n_tiers ? o->n_tiers : 1, nt = 0;
    for (int i = 0; i < n_names; i++) {
        bool all = !strcmp(names[i], "all"), psram = !strcmp(names[i], "psram");
        for (int k = 0; (all || psram) && k < chip->n_tiers && nt < max; k++)
            if (chip->tiers[k].psram == psram)
                v[nt++] = k;
        if (all || psram)
            continue;
        const eb_tier *t = eb_chip_tier(chip, names[i]);
        if (!t)
            return unknown_tier(chip, names[i], err);
        if (nt < max)
            v[nt++] = (double)(t - chip->tiers);
    }
    return nt;
}

static int repeat_axis(const eb_run_opts *o, const eb_chip *chip, double *v, int max, eb_error *err)
{
    (void)chip, (void)err;
    int n = 0;
    for (; n < o->repeat && n < max; n++)
        v[n] = n;
    return n;
}

/* The offered rate a UDP test's sender takes when the run sweeps none. */
static double udp_rate_derive(const eb_run_opts *o, const eb_run_item *it)
{
    return eb_run_udp_rate(o, it->chip, eb_run_item_tier(it), it->test);
}


#define UDP_TESTS ((1u << EB_TEST_UDP_TX) | (1u << EB_TEST_UDP_RX))

/* Where a row's values nest in the plan, outermost first: a row asked as
 * a list (one association per value), the tier, a swept row, and inside
 * the test (the repeat). */
enum { NEST_LIST, NEST_TIER, NEST_SWEEP, NEST_IN_TEST };

/* What a row's values are in the plan when they are not simply what the
 * run asks of it (a list, a sweep): every other row of the formats' table
 * needs no entry. */
typedef struct plan_row {
    int dim;
    /* Its values for this run (the tier's: the chip's tiers asked, as
     * indexes; the repeat's: 0..N-1), the count or -code; where they nest. */
    int (*axis)(const eb_run_opts *o, const eb_chip *chip, double *v, int max, eb_error *err);
    int nest;
    /* Its value at an item when the run asks none (the offered rate: by
     * chip, tier and test); NULL: none (NAN). */
    double (*derive)(const eb_run_opts *o, const eb_run_item *it);
    /* The tests its value reaches (bits; 0: every test). Swept, the other
     * tests are left out of the plan, but for those in once: measured once
     * per point of the other rows, with no value of it. */
    unsigned tests, once;
    /* Its value into the result's field of its own (the tier's name, the
     * repeat); the other rows key through the provenance (eb_dims_key). */
    void (*key)(const eb_run_item *it, run_key *k);
} plan_row;

static const plan_row rows[] = {
    /* the offered rate reaches the UDP tests only: swept, the TCP tests are
     * left out and latency, on an idle link, is measured once per tier */
    {.dim = EB_DIM_UDP_RATE, .derive = udp_rate_derive, .tests = UDP_TESTS, .once = 1u << EB_RUN_LATENCY},
    {.dim = EB_DIM_TIER, .axis = tier_axis, .nest = NEST_TIER, .key = tier_key},
    {.dim = EB_DIM_REPEAT, .axis = repeat_axis, .nest = NEST_IN_TEST, .key = repeat_key},
};
#define N_ROWS ((int)(sizeof rows / sizeof rows[0]))

static const plan_row *row_of(int d)
{
    for (int i = 0; i < N_ROWS; i++)
        if (rows[i].dim == d)
            return &rows[i];
    return NULL;
}

static bool swept(const eb_run_opts *o, int d)
{
    return o->sweep.n > 0 && o->sweep.var == d;
}

/* ------------------------------------------------------------ the plan: a cross product of the rows */

/* run_internal.h: a row's asked values (the fixtures' and ends' checks use them too). */
int run_plan_asked(const eb_run_opts *o, int d, double *v, int max)
{
    int n = 0;
    if (swept(o, d))
        for (; n < o->sweep.n && n < max; n++)
            v[n] = o->sweep.values[n];
    else
        for (; n < o->radio.n[d] && n < max; n++)
            v[n] = eb_dim_value(eb_dim(d), o->radio.v[d][n]);
    return n;
}

#define AXIS_MAX 1024 /* --repeat's most */

/* A row's values for this run, and where they nest in the plan. */
typedef struct axis {
    int d, nest, n;
    double v[AXIS_MAX];
} axis;

/* Every row that has values for this run, outermost first: the rows asked
 * as lists (one association each), the tier, the swept row, then inside
 * the test the repeat; in table order within a level. The count or -code. */
static int plan_axes(const eb_run_opts *o, const eb_chip *chip, axis *ax, eb_error *err)
{
    int na = 0;
    for (int nest = NEST_LIST; nest <= NEST_IN_TEST; nest++)
        for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++) {
            const plan_row *r = row_of(d);
            int at = r && r->axis ? r->nest : swept(o, d) ? NEST_SWEEP : NEST_LIST;
            if (at != nest)
                continue;
            ax[na] = (axis){.d = d, .nest = nest};
            int n = r && r->axis ? r->axis(o, chip, ax[na].v, AXIS_MAX, err) : run_plan_asked(o, d, ax[na].v, AXIS_MAX);
            if (n < 0)
                return n;
            if (!n && r && r->axis) /* no tier: no plan */
                return 0;
            ax[na].n = n;
            na += n > 0;
        }
    return na;
}

/* Is the cell of this tier and test in the plan (test chosen, shard kept)? */
static bool cell_planned(const eb_run_opts *o, const eb_chip *chip, const eb_tier *t, int test)
{
    if (!(o->tests & (1u << test)))
        return false;
    if (o->shard_total > 0) {
        char key[128];
        eb_shard_key(key, sizeof key, chip->name, t->name, test); /* ".../latency" for latency */
        if (!eb_shard_select(o->shard_index, o->shard_total, key))
            return false;
    }
    return true;
}

/* The item of a test at the outer rows' values (idx: each axis's index):
 * a row whose value does not reach the test has none there; swept, such
 * a test is left out (false) but for its once tests, at its first point.
 * A row the run asks nothing of takes its derived value. */
static bool item_at(const eb_run_opts *o, const axis *ax, int na, const int *idx, int test, eb_run_item *it)
{
    unsigned bit = 1u << test;
    it->test = test;
    for (int k = 0; k < na && ax[k].nest < NEST_IN_TEST; k++) {
        const plan_row *r = row_of(ax[k].d);
        bool reaches = !r || !r->tests || (r->tests & bit);
        if (!reaches && ax[k].nest == NEST_SWEEP && (!(r->once & bit) || idx[k] > 0))
            return false;
        it->at[ax[k].d] = reaches ? ax[k].v[idx[k]] : NAN;
    }
    for (int i = 0; i < N_ROWS; i++) {
        bool has = false;
        for (int k = 0; k < na; k++)
            has = has || ax[k].d == rows[i].dim;
        if (rows[i].derive && !has && (!rows[i].tests || (rows[i].tests & bit)))
            it->at[rows[i].dim] = rows[i].derive(o, it);
    }
    return true;
}

/* Adds the test's items, one per value of the rows inside the test (the repeat). */
static void plan_add(const axis *ax, int na, const eb_run_item *it, eb_run_item *out, int cap, int *n)
{
    int k = na - 1;
    if (k < 0 || ax[k].nest != NEST_IN_TEST) {
        if (*n < cap)
            out[*n] = *it;
        (*n)++;
        return;
    }
    for (int i = 0; i < ax[k].n; i++, (*n)++)
        if (*n < cap) {
            out[*n] = *it;
            out[*n].at[ax[k].d] = ax[k].v[i];
        }
}

/* The tests in order at each point: latency first, on an idle link, then
 * the throughput tests. ESP-Hosted's raw transport tests (run_hosted.c) do
 * not depend on the tier or a sweep point: once per board, first, at the
 * first value of every outer row but a sweep's. */
int eb_run_plan(const eb_run_opts *o, const eb_chip *chip, eb_run_item *out, int cap, eb_error *err)
{
    axis *ax = malloc(sizeof *ax * EB_DIM_MAX);
    if (!ax)
        return -eb_fail(err, EB_EIO, "out of memory for the plan");
    int na = plan_axes(o, chip, ax, err), n = 0, idx[EB_DIM_MAX] = {0};
    int outer = 0;
    while (outer < na && ax[outer].nest < NEST_IN_TEST)
        outer++;
    eb_run_item it = {.chip = chip};
    for (int d = 0; d < EB_DIM_MAX; d++)
        it.at[d] = NAN;
    for (int test = EB_TEST_RAW_TX; na > 0 && test < EB_TEST_ALL_COUNT; test++) {
        eb_run_item raw = it;
        if (!item_at(o, ax, outer, idx, test, &raw))
            continue;
        for (int k = 0; k < outer; k++)
            if (ax[k].nest == NEST_SWEEP)
                raw.at[ax[k].d] = NAN;
        if (cell_planned(o, chip, eb_run_item_tier(&raw), test))
            plan_add(ax, na, &raw, out, cap, &n);
    }
    static const int order[] = {EB_RUN_LATENCY, EB_TEST_TCP_TX, EB_TEST_TCP_RX, EB_TEST_UDP_TX, EB_TEST_UDP_RX};
    for (bool more = na > 0; more;) {
        for (size_t t = 0; t < sizeof order / sizeof order[0]; t++) {
            eb_run_item one = it;
            if (item_at(o, ax, outer, idx, order[t], &one) && cell_planned(o, chip, eb_run_item_tier(&one), order[t]))
                plan_add(ax, na, &one, out, cap, &n);
        }
        int k = outer - 1; /* the next point: the innermost row first */
        while (k >= 0 && ++idx[k] == ax[k].n)
            idx[k--] = 0;
        more = k >= 0;
    }
    free(ax);
    return na < 0 ? na : n;
}

void run_dims_key(const eb_run_opts *o, const eb_run_item *it, run_key *k)
{
    for (int i = 0; i < N_ROWS; i++)
        if (rows[i].key)
            rows[i].key(it, k);
    eb_dims_key(it->at, o->sweep.n > 0 ? o->sweep.var : EB_DIM_NONE, o->radio.extra, k->prov);
}

/* The key rendered: the point's rows ("-rssi-60-band5"), the tier, the
 * test, the repeat. */
void run_dims_tag(const eb_run_opts *o, const eb_run_item *it, const char *test, char *out, size_t cap)
{
    char tier[32] = "";
    int repeat = 0;
    eb_provenance p;
    eb_prov_init(&p);
    run_dims_key(o, it, &(run_key){tier, sizeof tier, &repeat, &p});
    eb_dims_file_tag(&p, out, cap);
    size_t n = strlen(out);
    if (n < cap)
        snprintf(out + n, cap - n, "-%s%s%s-r%d", tier, test ? "-" : "", test ? test : "", repeat);
}
/* ------------------------------------------------------------ CI shards */

uint32_t eb_shard_hash(const char *key)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
        h ^= *p;
        h *= 16777619u;
    }
    return h;
}

bool eb_shard_select(int index, int total, const char *key)
{
    if (total <= 1)
        return true;
    if (index < 1 || index > total)
        return false;
    /* FNV-1a's low bits depend on few input bits (mod 2 only on the byte sum), so
     * mix them (MurmurHash3's finaliser) before taking the remainder. */
    uint32_t h = eb_shard_hash(key);
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return (int)(h % (uint32_t)total) == index - 1;
}

void eb_shard_key(char *out, size_t size, const char *chip, const char *tier, int test)
{
    const char *t = eb_run_test_name(test);
    snprintf(out, size, "%s/%s/%s", chip, tier, t ? t : "?");
}

int eb_shard_parse(const char *s, int *index, int *total, eb_error *err)
{
    char *end;
    errno = 0;
    long i = strtol(s, &end, 10);
    if (end == s || *end != '/' || errno)
        goto bad;
    const char *p = end + 1;
    long n = strtol(p, &end, 10);
    if (end == p || *end || errno || n < 1 || n > 10000 || i < 1 || i > n)
        goto bad;
    *index = (int)i;
    *total = (int)n;
    return 0;
bad:
    return eb_fail(err, EB_ECONFIG, "'%s' is not a shard: expected I/N with 1 <= I <= N (e.g. 1/4, as CI_NODE_INDEX/CI_NODE_TOTAL)", s);
}

int eb_run_parallel_shard(eb_run_opts *o, const char *count, const char *index, eb_error *err)
{
    if (!count && !index)
        return 0;
    if (o->shard_total)
        return eb_fail(err, EB_ECONFIG,
                       "--shard and --parallel-count/--parallel-index name the same slice: give one");
    return eb_shard_from_parallel(count, index, &o->shard_index, &o->shard_total, err);
}

/* pytest-embedded's spelling of a shard: --parallel-count N --parallel-index I,
 * its index 1-based like ours (its tests: 5 cases, count 2, index 1 runs 3 of
 * them), so I/N is the shard as it stands. */
int eb_shard_from_parallel(const char *count, const char *index, int *shard_index, int *shard_total, eb_error *err)
{
    if (!count || !index)
        return eb_fail(err, EB_ECONFIG, "--parallel-count and --parallel-index go together: give both (e.g. "
                                        "--parallel-count 4 --parallel-index 1)");
    char *end;
    errno = 0;
    long n = strtol(count, &end, 10);
    if (end == count || *end || errno || n < 1 || n > 10000)
        return eb_fail(err, EB_ECONFIG, "--parallel-count '%s': expected a whole number from 1 to 10000", count);
    errno = 0;
    long i = strtol(index, &end, 10);
    if (end == index || *end || errno || i < 1 || i > n)
        return eb_fail(err, EB_ECONFIG, "--parallel-index '%s': expected 1 to %ld (1-based, as pytest-embedded's)",
                       index, n);
    *shard_index = (int)i;
    *shard_total = (int)n;
    return 0;
}
