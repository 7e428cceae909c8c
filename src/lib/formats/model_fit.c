/* Calibration of the tier model from the published tables, and its
 * leave-one-tier-out cross-validation.
 *
 * The fit minimises, over one chip's published tiers, the squared log error
 * of each throughput plus the squared relative error of the free heap, plus a
 * ridge term that pulls each constant towards a prior (so a chip with three
 * tiers, or a fold with one tier left out, stays physical). The search is a
 * deterministic coordinate pattern search: the same tables give the same
 * constants, bit for bit. */
#include "espbench/formats/dims.h"
#include "espbench/formats/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Datasheet top PHY rate of the published bench: HT40 MCS7 short GI (150
 * Mbit/s) on chips with 40 MHz 802.11n; HT20 (72.2) on ESP32-C2 and ESP8266. */
static const struct {
    const char *chip;
    double phy;
} phy_top[] = {{"esp32c2", 72.2}, {"esp8266", 72.2}};

static double chip_phy(const char *name)
{
    for (size_t i = 0; i < sizeof phy_top / sizeof phy_top[0]; i++)
        if (strcmp(phy_top[i].chip, name) == 0)
            return phy_top[i].phy;
    return 150.0;
}

typedef struct prior {
    const char *key;
    double value;   /* prior (ceilings and heap bases: set from the data) */
    double lo, hi;  /* bounds */
    double scale;   /* ridge scale; log-space when logsp */
    bool logsp;
} prior;

/* Priors: rounded physical guesses, documented in docs/model.md. */
static const prior priors[EB_MP_COUNT] = {
    [EB_MP_CEIL_TCP_TX] = {"ceil_tcp_tx", 50, 1, 1000, 10, true},
    [EB_MP_CEIL_TCP_RX] = {"ceil_tcp_rx", 50, 1, 1000, 10, true},
    [EB_MP_CEIL_UDP_TX] = {"ceil_udp_tx", 50, 1, 1000, 10, true},
    [EB_MP_CEIL_UDP_RX] = {"ceil_udp_rx", 50, 1, 1000, 10, true},
    [EB_MP_RTT_TX_MS] = {"rtt_tx_ms", 2, 0.05, 50, 3, true},
    [EB_MP_RTT_RX_MS] = {"rtt_rx_ms", 2, 0.05, 50, 3, true},
    [EB_MP_HOLD_TX_MS] = {"hold_tx_ms", 1, 0.02, 50, 3, true},
    [EB_MP_CONTEND_US] = {"contend_us", 110.5, 20, 110.5, 40, false},
    [EB_MP_PSRAM_FACTOR] = {"psram_factor", 0.8, 0.2, 2, 1, true},
    [EB_MP_IRAM_WIFI] = {"iram_wifi", 0.05, 0, 0.6, 0.15, false},
    [EB_MP_IRAM_RX] = {"iram_rx", 0.05, 0, 0.6, 0.15, false},
    [EB_MP_IRAM_LWIP] = {"iram_lwip", 0.05, 0, 0.6, 0.15, false},
    [EB_MP_CACHE_EXP] = {"cache_exp", 0.3, 0, 2, 0.5, false},
    [EB_MP_CPU_EXP] = {"cpu_exp", 0.8, 0, 1.5, 0.5, false},
    [EB_MP_NOCACHE_FACTOR] = {"nocache_factor", 0.5, 0.1, 1, 1, true},
    [EB_MP_HEAP_BASE_KB] = {"heap_base_kb", 200, 0, 4000, 300, false},
    [EB_MP_HEAP_PSRAM_KB] = {"heap_psram_kb", 200, 0, 4000, 300, false},
    [EB_MP_HEAP_RX_SCALE] = {"heap_rx_scale", 1, 0.05, 5, 1, true},
    [EB_MP_HEAP_TX_SCALE] = {"heap_tx_scale", 1, 0.05, 5, 1, true},
};

const char *eb_model_param_key(int param)
{
    return param >= 0 && param < EB_MP_COUNT ? priors[param].key : NULL;
}

typedef struct fit_ctx {
    const eb_chip *chip;
    const eb_tier **tiers;
    int n;
    eb_model_chip mc;
    double prior[EB_MP_COUNT];
} fit_ctx;

static double param_of(const fit_ctx *f, int i, double x)
{
    const prior *p = &priors[i];
    double v = p->logsp ? f->prior[i] * exp(x) : f->prior[i] + x * p->scale;
    return fmin(fmax(v, p->lo), p->hi);
}

static double cost(fit_ctx *f, const double *x)
{
    double c = 0;
    for (int i = 0; i < EB_MP_COUNT; i++) {
        f->mc.p[i] = param_of(f, i, x[i]);
        double r = priors[i].logsp ? x[i] / log1p(priors[i].scale) : x[i];
        c += 0.002 * r * r;
    }
    for (int k = 0; k < f->n; k++) {
        eb_prediction pr;
        eb_model_predict(&f->mc, f->chip, f->tiers[k], NULL, &pr);
        for (int t = 0; t < EB_TEST_COUNT; t++) {
            double pub = eb_tier_ref(f->tiers[k], t, NULL);
            if (isnan(pub) || pub <= 0)
                continue;
            double e = log(fmax(pr.mbps[t], 1e-3) / pub);
            c += e * e;
        }
        double heap = f->tiers[k]->ref_avail_kb;
        if (!isnan(heap) && heap > 0) {
            double e = (pr.free_kb - heap) / heap;
            c += e * e;
        }
    }
    return c;
}

/* Coordinate pattern search: try +/- step on each constant in turn, keep what
 * lowers the cost, halve the step when a sweep finds nothing. */
static void search(fit_ctx *f, double *x)
{
    double best = cost(f, x);
    for (double step = 1.0; step > 1e-4;) {
        bool improved = false;
        for (int i = 0; i < EB_MP_COUNT; i++) {
            for (int dir = -1; dir <= 1; dir += 2) {
                double keep = x[i];
                x[i] = keep + dir * step;
                double c = cost(f, x);
                if (c < best - 1e-12) {
                    best = c;
                    improved = true;
                    break;
                }
                x[i] = keep;
            }
        }
        if (!improved)
            step *= 0.5;
    }
    cost(f, x); /* leave mc.p at x */
}

static bool has_figures(const eb_tier *t)
{
    if (!isnan(t->ref_avail_kb))
        return true;
    for (int k = 0; k < EB_TEST_COUNT; k++)
        if (!isnan(eb_tier_ref(t, k, NULL)))
            return true;
    return false;
}

static void set_priors(fit_ctx *f)
{
    for (int i = 0; i < EB_MP_COUNT; i++)
        f->prior[i] = priors[i].value;
    double heap_max = NAN;
    for (int k = 0; k < f->n; k++) {
        for (int t = 0; t < EB_TEST_COUNT; t++) {
            double v = eb_tier_ref(f->tiers[k], t, NULL) * 1.2;
            double *p = &f->prior[EB_MP_CEIL_TCP_TX + t];
            if (!isnan(v) && (*p == priors[EB_MP_CEIL_TCP_TX + t].value || v > *p))
                *p = v;
        }
        if (!isnan(f->tiers[k]->ref_avail_kb))
            heap_max = isnan(heap_max) ? f->tiers[k]->ref_avail_kb
                                       : fmax(heap_max, f->tiers[k]->ref_avail_kb);
    }
    if (!isnan(heap_max))
        f->prior[EB_MP_HEAP_BASE_KB] = f->prior[EB_MP_HEAP_PSRAM_KB] = heap_max + 100;
}

int eb_model_fit_chip(const eb_chip *c, const char *skip, eb_model_chip *out, eb_error *err)
{
    fit_ctx f = {.chip = c};
    f.tiers = calloc(c->n_tiers ? (size_t)c->n_tiers : 1, sizeof *f.tiers);
    if (!f.tiers)
        return eb_fail(err, EB_EIO, "model fit %s: out of memory", c->name);
    memset(&f.mc, 0, sizeof f.mc);
    snprintf(f.mc.chip, sizeof f.mc.chip, "%s", c->name);
    f.mc.phy_mbps = chip_phy(c->name);
    for (int k = 0; k < c->n_tiers; k++) {
        const eb_tier *t = &c->tiers[k];
        if (f.mc.ref_icache_kb == 0 && t->set[EB_F_ICACHE_KB])
            f.mc.ref_icache_kb = t->value[EB_F_ICACHE_KB]; /* first (iperf) tier's cache */
        if ((skip && strcmp(t->name, skip) == 0) || !has_figures(t))
            continue;
        f.tiers[f.n++] = t;
        f.mc.n_heap += !isnan(t->ref_avail_kb);
    }
    f.mc.n_tiers = f.n;
    set_priors(&f);
    double x[EB_MP_COUNT] = {0};
    search(&f, x);
    *out = f.mc;
    free(f.tiers);
    return 0;
}

int eb_model_fit(const eb_profiles *p, eb_model *m, eb_error *err)
{
    memset(m, 0, sizeof *m);
    snprintf(m->version, sizeof m->version, "%s", EB_MODEL_VERSION);
    m->chips = calloc(p->n_chips ? (size_t)p->n_chips : 1, sizeof *m->chips);
    if (!m->chips)
        return eb_fail(err, EB_EIO, "model fit: out of memory");
    for (int i = 0; i < p->n_chips; i++) {
        int rc = eb_model_fit_chip(&p->chips[i], NULL, &m->chips[i], err);
        if (rc) {
            eb_model_free(m);
            return rc;
        }
        m->n_chips++;
    }
    return 0;
}

static double pct_err(double pred, double pub)
{
    if (isnan(pub) || pub <= 0)
        return NAN;
    return (pred - pub) / pub * 100;
}

int eb_model_cv_chip(const eb_chip *c, eb_model_cv_row **err_pct, const eb_tier ***tiers, int *n,
                     eb_error *err)
{
    *n = 0;
    *err_pct = calloc(c->n_tiers ? (size_t)c->n_tiers : 1, sizeof **err_pct);
    *tiers = calloc(c->n_tiers ? (size_t)c->n_tiers : 1, sizeof **tiers);
    if (!*err_pct || !*tiers) {
        free(*err_pct);
        free(*tiers);
        return eb_fail(err, EB_EIO, "model cross-validation %s: out of memory", c->name);
    }
    for (int k = 0; k < c->n_tiers; k++) {
        const eb_tier *t = &c->tiers[k];
        if (!has_figures(t))
            continue;
        eb_model_chip mc;
        eb_model_fit_chip(c, t->name, &mc, err);
        double *row = (*err_pct)[*n];
        (*tiers)[(*n)++] = t;
        for (int j = 0; j <= EB_TEST_COUNT; j++)
            row[j] = NAN;
        if (mc.n_tiers == 0)
            continue; /* nothing of this chip left to fit: not scored */
        eb_prediction pr;
        eb_model_predict(&mc, c, t, NULL, &pr);
        for (int j = 0; j < EB_TEST_COUNT; j++)
            row[j] = pct_err(pr.mbps[j], eb_tier_ref(t, j, NULL));
        if (mc.n_heap > 0)
            row[EB_TEST_COUNT] = pct_err(pr.free_kb, t->ref_avail_kb);
    }
    return 0;
}
