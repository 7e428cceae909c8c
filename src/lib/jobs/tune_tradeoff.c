/* What a frontier point gives up (tune.h eb_tune_tradeoff): a point found for
 * one objective can cripple a test outside it (one dynamic RX buffer and
 * AMPDU RX off: the best TCP TX point, TCP RX a fifth of the default's), and
 * a point probed once has an interval from one probe's intervals only. The
 * figures are labelled measured or predicted; nothing is hidden. */
#include "espbench/jobs/tune.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The chip's "default" tier, else its first tier without PSRAM. */
static int baseline_tier(const eb_tune_space *s)
{
    int first = -1;
    for (int t = 0; t < s->chip->n_tiers; t++) {
        if (s->chip->tiers[t].psram)
            continue;
        if (!strcmp(s->chip->tiers[t].name, "default"))
            return t;
        if (first < 0)
            first = t;
    }
    return first;
}

const char *eb_tune_baseline_name(const eb_tune_space *s)
{
    int t = baseline_tier(s);
    return t >= 0 ? s->chip->tiers[t].name : NULL;
}

/* A candidate's figure on test k: measured when probed on it, else predicted. */
static double figure(const eb_tune_space *s, const eb_tune_result *r, int c, int k, bool *measured)
{
    const eb_tune_stat *st = r && r->stat ? &r->stat[c] : NULL;
    /* The probes run the objective's tests only: the others were never measured. */
    *measured = st && st->n > 0 && s->obj.w[k] > 0 && isfinite(st->mbps[k]);
    return *measured ? st->mbps[k] : s->cands[c].pred_mbps[k];
}

static void baseline_figures(const eb_tune_space *s, const eb_tune_result *r, double out[EB_TEST_COUNT])
{
    int t = baseline_tier(s);
    int cand = -1;
    for (int i = 0; t >= 0 && i < s->n && cand < 0; i++)
        if (s->cands[i].published == t)
            cand = i;
    for (int k = 0; k < EB_TEST_COUNT; k++) {
        bool m;
        out[k] = cand >= 0 ? figure(s, r, cand, k, &m) : t >= 0 ? s->chip->tiers[t].ref_mbps[k] : NAN;
    }
}

void eb_tune_tradeoff_of(const eb_tune_space *s, const eb_tune_result *r, int cand, double max_cost_pct,
                         eb_tune_tradeoff *out)
{
    memset(out, 0, sizeof *out);
    double share = (max_cost_pct > 0 ? max_cost_pct : EB_TUNE_MAX_COST_PCT) / 100;
    baseline_figures(s, r, out->base_mbps);
    for (int k = 0; k < EB_TEST_COUNT; k++) {
        out->mbps[k] = figure(s, r, cand, k, &out->measured[k]);
        double b = out->base_mbps[k];
        out->change_pct[k] = isfinite(out->mbps[k]) && isfinite(b) && b > 0 ? (out->mbps[k] / b - 1) * 100 : NAN;
        out->cost[k] = s->obj.w[k] <= 0 && isfinite(out->change_pct[k]) && out->mbps[k] < b * (1 - share);
        out->n_costs += out->cost[k];
    }
    out->tentative = r && r->stat && r->stat[cand].n == 1;
}

const char *eb_tune_tradeoff_costs(const eb_tune_tradeoff *t, char *buf, size_t n)
{
    size_t len = 0;
    if (n)
        buf[0] = 0;
    for (int k = 0; k < EB_TEST_COUNT && len < n; k++) {
        if (!t->cost[k])
            continue;
        int w = snprintf(buf + len, n - len, "%s%s %+.0f %% (%.2f %s vs %.2f)", len ? ", " : "", eb_test_label(k),
                         t->change_pct[k], t->mbps[k], t->measured[k] ? "measured" : "predicted", t->base_mbps[k]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return buf;
}
