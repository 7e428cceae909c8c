/* The tune search against the model itself (tune.h): what bench/ measures
 * the search with — no board, probes are predictions plus noise — and the
 * quality of a frontier against the exhaustive search. Pure. */
#include "espbench/jobs/tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* xorshift64* (Vigna 2016): small, deterministic, good enough for noise. */
static double uniform(unsigned long long *s)
{
    unsigned long long x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return ((x * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(unsigned long long *s)
{
    double u = uniform(s), v = uniform(s);
    if (u < 1e-300)
        u = 1e-300;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void truth_of(const eb_tune_space *s, int cand, const eb_model_link *l, eb_prediction *p)
{
    eb_tier t;
    eb_tune_cand_tier(s, cand, &t);
    eb_model_predict(s->mc, s->chip, &t, l, p);
}

int eb_tune_model_probe_fn(void *user, int cand, double duration_s, int k, eb_tune_measure *out,
                           eb_error *err)
{
    (void)k;
    (void)err;
    eb_tune_model_probe *mp = user;
    if (!mp->rng)
        mp->rng = 0x9E3779B97F4A7C15ULL;
    eb_prediction p;
    truth_of(mp->s, cand, &mp->truth, &p);
    double iv = mp->cfg.interval_s > 0 ? mp->cfg.interval_s : 0.5;
    int n = (int)floor(duration_s / iv + 1e-9) - 1; /* steady intervals: one is warm-up */
    if (n < 1)
        n = 1;
    for (int t = 0; t < EB_TEST_COUNT; t++) {
        if (!(mp->s->obj.w[t] > 0))
            continue;
        double sd = p.mbps[t] * mp->noise_pct / 100 / sqrt(n);
        out->mbps[t] = p.mbps[t] + sd * gauss(&mp->rng);
        out->se[t] = sd;
    }
    out->free_kb = p.free_kb;
    int nt = eb_tune_objective_tests(&mp->s->obj);
    out->cost_s = mp->overhead_s > 0 ? nt * (duration_s + mp->overhead_s)
                                     : eb_tune_probe_cost(&mp->cfg, nt, duration_s);
    return 0;
}

void eb_tune_quality_of(const eb_tune_space *s, const eb_tune_result *r, const eb_model_link *truth,
                        double floor_kb, eb_tune_quality *q)
{
    memset(q, 0, sizeof *q);
    eb_tune_point *all = malloc(sizeof *all * (size_t)(s->n > 0 ? s->n : 1));
    eb_tune_point *mine = malloc(sizeof *mine * (size_t)(r->n_frontier + 1));
    int *front = malloc(sizeof *front * (size_t)(s->n > 0 ? s->n : 1));
    if (!all || !mine || !front) {
        free(all);
        free(mine);
        free(front);
        return;
    }
    for (int i = 0; i < s->n; i++) {
        eb_prediction p;
        truth_of(s, i, truth, &p);
        all[i] = (eb_tune_point){eb_tune_objective_score(&s->obj, p.mbps), p.free_kb, i};
    }
    for (int i = 0; i < r->n_frontier; i++)
        mine[i] = all[r->frontier[i]];
    q->hv_exhaustive = eb_tune_hypervolume(all, s->n, floor_kb);
    q->exhaustive_points = eb_tune_pareto(all, s->n, floor_kb, front);
    q->hv_tuner = eb_tune_hypervolume(mine, r->n_frontier, floor_kb);
    q->hv_ratio = q->hv_exhaustive > 0 ? q->hv_tuner / q->hv_exhaustive : NAN;
    q->probed_fraction = s->n ? (double)r->probed / s->n : NAN;
    free(all);
    free(mine);
    free(front);
}
