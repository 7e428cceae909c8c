/* A results matrix built in code: every tier of a chip with the docs'
 * figures (from the chip's profile) plus deterministic noise, intervals on
 * both sides and the tier parameters — what a --sim run writes. */
#ifndef TEST_RESULTS_FIXTURE_H
#define TEST_RESULTS_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "espbench/formats/profile.h"
#include "espbench/formats/results.h"

/* Deterministic noise in [-amp, +amp]. */
static inline double fixture_noise(unsigned *seed, double amp)
{
    *seed = *seed * 1103515245u + 12345u;
    return ((double)((*seed >> 8) & 0xffff) / 65535.0 * 2 - 1) * amp;
}

static inline void fixture_entry(eb_entry *e, const eb_chip *c, const eb_tier *t, int test, int repeat,
                                 unsigned *seed, eb_interval *rx, eb_interval *tx, int n_iv)
{
    eb_entry_init(e);
    snprintf(e->board, sizeof e->board, "sim");
    snprintf(e->chip, sizeof e->chip, "%s", c->name);
    snprintf(e->tier, sizeof e->tier, "%s", t->name);
    e->test = test;
    e->repeat = repeat;
    double ref = t->ref_mbps[test];
    double mean = ref * (1 + fixture_noise(seed, 0.02));
    for (int i = 0; i < n_iv; i++) {
        double v = mean * (1 + fixture_noise(seed, 0.01));
        rx[i] = (eb_interval){i, i + 1, v * 1e6 / 8, v, test >= EB_TEST_UDP_TX ? 0.05 : NAN,
                              test >= EB_TEST_UDP_TX ? 3 : -1, test >= EB_TEST_UDP_TX ? 7000 : -1};
        tx[i] = (eb_interval){i, i + 1, v * 1e6 / 8 * 1.01, v * 1.01, NAN, -1, -1};
    }
    e->receiver = eb_ivs_view(rx, n_iv);
    e->sender = eb_ivs_view(tx, n_iv);
    e->mean_mbps = e->rx_stats.mean = mean;
    e->peak_mbps = e->rx_stats.peak_1s = mean * 1.01;
    e->rx_stats.n = n_iv;
    e->tx_stats.mean = mean * 1.01;
    e->tx_stats.n = n_iv;
    if (test >= EB_TEST_UDP_TX) {
        e->loss_pct = 0.04;
        e->jitter_ms = 0.05;
        e->udp_rate_mbps = ceil(ref * 1.2);
    }
    e->free_heap = isfinite(t->ref_avail_kb) ? (long)(t->ref_avail_kb * 1024) : -1;
    e->min_free_heap = e->free_heap > 0 ? e->free_heap - 2048 : -1;
    e->ref_mbps = ref;
    e->duration_s = n_iv;
    e->interval_s = 1;
    e->warmup_s = 0;
    snprintf(e->started, sizeof e->started, "2026-12-02T10:%02d:00Z", repeat);
    snprintf(e->finished, sizeof e->finished, "2026-12-02T10:%02d:10Z", repeat);
    eb_entry_set_tier_params(e, t);
}

/* Every tier of c (PSRAM tiers too if with_psram), each test, `repeats` times. */
static inline void fixture_build_tiers(eb_results *r, const eb_chip *c, int repeats, unsigned seed, bool with_psram)
{
    eb_results_init(r);
    snprintf(r->espbench_version, sizeof r->espbench_version, "0.1.0");
    snprintf(r->generated, sizeof r->generated, "2026-12-02T11:00:00Z");
    eb_board_meta *b = eb_results_board(r, "sim", true);
    snprintf(b->chip, sizeof b->chip, "%s", c->name);
    snprintf(b->fw_project, sizeof b->fw_project, "espbench");
    snprintf(b->idf_version, sizeof b->idf_version, "v5.5");
    for (int t = 0; t < c->n_tiers; t++) {
        if (c->tiers[t].psram && !with_psram)
            continue;
        for (int rep = 0; rep < repeats; rep++)
            for (int test = 0; test < EB_TEST_COUNT; test++) {
                eb_interval rx[5], tx[5];
                eb_entry e;
                fixture_entry(&e, c, &c->tiers[t], test, rep, &seed, rx, tx, 5);
                eb_results_add(r, &e);
            }
    }
}

/* The docs' main table: the non-PSRAM tiers. */
static inline void fixture_build(eb_results *r, const eb_chip *c, int repeats, unsigned seed)
{
    fixture_build_tiers(r, c, repeats, seed, false);
}

#endif
