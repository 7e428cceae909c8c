/* The run planner: option defaults, the ordered plan of one board (tier x
 * test x repeat), the CI shard that keeps a slice of the matrix, and the UDP
 * offered rate of a test. Pure: no board, no file. */
#include <errno.h>
#include <math.h>
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

double eb_run_item_udp_rate(const eb_run_opts *o, const eb_chip *chip, const eb_run_item *it)
{
    if (o->sweep.var == EB_DIM_UDP_RATE && it->point >= 0 && it->point < o->sweep.n)
        return o->sweep.values[it->point];
    return eb_run_udp_rate(o, chip, it->tier, it->test);
}

static int unknown_tier(const eb_chip *chip, const char *name, eb_error *err)
{
    char list[512];
    eb_chip_tier_names(chip, list, sizeof list);
    return -eb_fail(err, EB_ECONFIG, "chip %s has no tier '%s' (tiers: %s; or all, psram)", chip->name, name,
                    list);
}

/* The tiers named by o (in the order given; "all" and "psram" expand in
 * profile order). Returns the count or -code. */
static int select_tiers(const eb_run_opts *o, const eb_chip *chip, const eb_tier **tiers, int max, eb_error *err)
{
    /* "all" = the docs' main table (tiers without PSRAM); "psram" = the PSRAM tiers. */
    static const char *const all_list[] = {"all"};
    const char *const *names = o->n_tiers ? o->tiers : all_list;
    int n_names = o->n_tiers ? o->n_tiers : 1, nt = 0;
    for (int i = 0; i < n_names; i++) {
        bool all = !strcmp(names[i], "all"), psram = !strcmp(names[i], "psram");
        if (all || psram) {
            for (int k = 0; k < chip->n_tiers && nt < max; k++)
                if (chip->tiers[k].psram == psram)
                    tiers[nt++] = &chip->tiers[k];
            continue;
        }
        const eb_tier *t = eb_chip_tier(chip, names[i]);
        if (!t)
            return unknown_tier(chip, names[i], err);
        if (nt < max)
            tiers[nt++] = t;
    }
    return nt;
}

/* Is the cell of this tier and test in the plan (test chosen, shard kept,
 * and for a udp-rate sweep a UDP test: the offered rate does not touch TCP)? */
static bool cell_planned(const eb_run_opts *o, const eb_chip *chip, const eb_tier *t, int test)
{
    if (!(o->tests & (1u << test)))
        return false;
    if (o->sweep.n > 0 && o->sweep.var == EB_DIM_UDP_RATE && test != EB_RUN_LATENCY && !eb_run_test_is_udp(test))
        return false;
    if (o->shard_total > 0) {
        char key[128];
        eb_shard_key(key, sizeof key, chip->name, t->name, test); /* ".../latency" for latency */
        if (!eb_shard_select(o->shard_index, o->shard_total, key))
            return false;
    }
    return true;
}

static void plan_add(eb_run_item *out, int cap, int *n, const eb_tier *t, int test, int repeats, int point)
{
    for (int r = 0; r < repeats; r++) {
        if (*n < cap)
            out[*n] = (eb_run_item){.tier = t, .test = test, .repeat = r, .point = point};
        (*n)++;
    }
}

/* Order: radio point (band, bandwidth, PHY, power save, coexistence: one
 * association for all its tests), tier, sweep point (one link or rate
 * setting for all its tests), test, repeat. Latency comes first at each
 * point, on an idle link; with a udp-rate sweep it runs once per tier (the
 * offered rate does not touch it). */
int eb_run_plan(const eb_run_opts *o, const eb_chip *chip, eb_run_item *out, int cap, eb_error *err)
{
    const eb_tier *tiers[EB_RUN_MAX_TIERS + 64];
    int nt = select_tiers(o, chip, tiers, (int)(sizeof tiers / sizeof tiers[0]), err);
    if (nt < 0)
        return nt;
    bool sweep = o->sweep.n > 0;
    bool rate_sweep = sweep && o->sweep.var == EB_DIM_UDP_RATE;
    bool latency = (o->tests & (1u << EB_RUN_LATENCY)) != 0;
    int points = sweep ? o->sweep.n : 1;
    int n = 0;
    /* ESP-Hosted's raw transport tests (run_hosted.c) do not depend on the
     * tier: once per board, first, filed under the first tier. */
    for (int test = EB_TEST_RAW_TX; nt > 0 && test < EB_TEST_ALL_COUNT; test++)
        if (cell_planned(o, chip, tiers[0], test))
            plan_add(out, cap, &n, tiers[0], test, o->repeat, -1);
    int first = n, radio_points = eb_radio_points(&o->radio);
    for (int rp = 0; rp < radio_points; rp++) {
        for (int i = 0; i < nt; i++) {
            if (latency && rate_sweep && cell_planned(o, chip, tiers[i], EB_RUN_LATENCY))
                plan_add(out, cap, &n, tiers[i], EB_RUN_LATENCY, o->repeat, -1);
            for (int p = 0; p < points; p++) {
                if (latency && !rate_sweep && cell_planned(o, chip, tiers[i], EB_RUN_LATENCY))
                    plan_add(out, cap, &n, tiers[i], EB_RUN_LATENCY, o->repeat, sweep ? p : -1);
                for (int test = 0; test < EB_TEST_COUNT; test++)
                    if (cell_planned(o, chip, tiers[i], test))
                        plan_add(out, cap, &n, tiers[i], test, o->repeat, sweep ? p : -1);
            }
        }
        for (int k = first; k < n && k < cap; k++) /* the items this radio point added */
            out[k].radio = rp;
        first = n;
    }
    for (int k = 0; k < n && k < cap; k++) /* each UDP test carries its offered rate to its ends */
        if (eb_run_test_is_udp(out[k].test))
            out[k].udp_rate_mbps = eb_run_item_udp_rate(o, chip, &out[k]);
    return n;
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
