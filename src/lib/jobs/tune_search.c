/* The tune search (tune.h): a plan sized to the budget, then successive
 * halving over measurements taken through a probe callback. Pure: the
 * callback does all I/O, so bench/ runs the same search against the model.
 *
 *   start    the published ranks the model puts near the floor, and points
 *            spread along the model's predicted frontier (greedy
 *            hypervolume), each probed once with the shortest test;
 *   explore  neighbours (one ladder step) of the measured frontier, short
 *            tests: on a real board the model only proposes;
 *   rungs    the better half by measured Pareto layer probed again with a
 *            test twice as long (successive halving, Jamieson & Talwalkar
 *            2016), twice;
 *   final    the frontier re-measured at the longest duration, then repeats
 *            of neighbouring frontier points whose 95 % intervals overlap,
 *            until they separate or the budget ends.
 * Decisions depend only on the measurements and their recorded costs, so a
 * resumed tune replaying its journal takes the same path. */
#include "espbench/jobs/tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNGS 3
#define ETA 3             /* keep 1/ETA per rung (Hyperband's default) */
/* The final phase's share of the budget: enough to re-measure the expected
 * frontier (the model's) FINAL_ROOM times over, within these bounds. */
#define FINAL_SHARE_MIN 0.2
#define FINAL_SHARE_MAX 0.35
#define FINAL_ROOM 1.5
#define MAX_REPEATS 8       /* per candidate in the final phase */
/* Two neighbours whose intervals together span less than this share of the
 * score are equivalent: more repeats would chase a difference too small to
 * matter (a 95 % interval at the se floor alone spans about 1 %). */
#define EQUIV_BAND 0.025
/* A frontier point must gain this share of throughput over the next point
 * with more free heap to be reported: less is no reason to give up heap. */
#define MIN_GAIN 0.005
#define MIN_MODEL_STARTS 3
#define REL_SE_FLOOR 0.0025 /* iperf's rounding and interval edges */
#define BUDGET_USABLE 0.95  /* the rest: starting the board, writing the outputs */

static void cfg_defaults(const eb_tune_config *in, eb_tune_config *c)
{
    *c = *in;
    if (!(c->d0_s > 0))
        c->d0_s = 1.5;
    if (!(c->interval_s > 0))
        c->interval_s = 0.5;
    if (!(c->overhead_s > 0))
        c->overhead_s = 1.0;
    if (!(c->heap_margin_kb > 0))
        c->heap_margin_kb = 10;
}

double eb_tune_probe_cost(const eb_tune_config *cfg, int n_tests, double d)
{
    eb_tune_config c;
    cfg_defaults(cfg, &c);
    return n_tests * (d + c.overhead_s);
}

/* Candidates kept for the next rung. */
static int next_rung_n(int n, int front)
{
    (void)front;
    return (n + ETA - 1) / ETA;
}

static double rungs_cost(const eb_tune_config *c, int nt, int n0, int rungs, int front)
{
    double cost = 0;
    int n = n0;
    for (int r = 0; r < rungs; r++) {
        cost += n * eb_tune_probe_cost(c, nt, c->d0_s * (1 << r));
        n = next_rung_n(n, front);
    }
    return cost;
}

static bool in_starts(const eb_tune_plan *p, int cand)
{
    for (int i = 0; i < p->n_starts; i++)
        if (p->starts[i] == cand)
            return true;
    return false;
}

/* Published ranks the model puts at or near the floor. */
static void published_starts(const eb_tune_space *s, const eb_tune_config *c, eb_tune_plan *p)
{
    for (int i = 0; i < s->n && p->n_starts < 32; i++) {
        if (s->cands[i].published >= 0 && s->cands[i].pred_free_kb >= c->min_free_kb - c->heap_margin_kb) {
            p->starts[p->n_starts++] = i;
            p->n_published++;
        }
    }
}

/* k points spread along the model's frontier (not already a start). */
static void model_starts(const eb_tune_space *s, const eb_tune_config *c, int k, eb_tune_plan *p)
{
    int *front = NULL;
    int nf = eb_tune_model_frontier(s, c->min_free_kb, &front);
    eb_tune_point *pts = malloc(sizeof *pts * (size_t)(nf > 0 ? nf : 1));
    int *pick = malloc(sizeof *pick * (size_t)(nf > 0 ? nf : 1));
    if (pts && pick && front) {
        for (int i = 0; i < nf; i++)
            pts[i] = (eb_tune_point){s->cands[front[i]].pred_score, s->cands[front[i]].pred_free_kb, front[i]};
        int room = (int)(sizeof p->starts / sizeof p->starts[0]) - p->n_starts;
        int want = k < room ? k : room;
        int m = eb_tune_spread(pts, nf, want + p->n_published, c->min_free_kb, pick);
        for (int i = 0; i < m && p->n_model < want; i++) {
            if (in_starts(p, front[pick[i]]))
                continue;
            p->starts[p->n_starts++] = front[pick[i]];
            p->n_model++;
        }
    }
    free(pts);
    free(pick);
    free(front);
}

int eb_tune_make_plan(const eb_tune_space *s, const eb_tune_config *cfg_in, eb_tune_plan *p,
                      eb_error *err)
{
    eb_tune_config c;
    cfg_defaults(cfg_in, &c);
    memset(p, 0, sizeof *p);
    int rc = eb_tune_check_floor(s, c.min_free_kb, err);
    if (rc)
        return rc;
    int nt = eb_tune_objective_tests(&s->obj);
    p->n_tests = nt;
    int *front = NULL;
    p->model_front_n = eb_tune_model_frontier(s, c.min_free_kb, &front);
    free(front);
    published_starts(s, &c, p);
    int min_model = p->model_front_n < MIN_MODEL_STARTS ? p->model_front_n : MIN_MODEL_STARTS;
    int min_starts = p->n_published + min_model;
    double c0 = eb_tune_probe_cost(&c, nt, c.d0_s);
    double usable = BUDGET_USABLE * c.budget_s;
    if (min_starts * c0 > usable) {
        char need[32];
        snprintf(need, sizeof need, "%.0fs", ceil(min_starts * c0 / BUDGET_USABLE));
        return eb_fail(err, EB_ECONFIG,
                       "--budget %gs is too small: one probe of each of the %d starting points (%d published "
                       "ranks, %d model frontier points) takes %.1f s; give --budget %s or more",
                       c.budget_s, min_starts, p->n_published, min_model, min_starts * c0, need);
    }
    /* As many rungs and rung-0 probes as the budget's share affords. */
    int rungs = RUNGS, n0 = 0;
    for (; rungs >= 1; rungs--) {
        double fin = FINAL_ROOM * p->model_front_n * eb_tune_probe_cost(&c, nt, c.d0_s * (1 << (rungs - 1))) / usable;
        double share = rungs == 1 ? 1.0 : 1 - fmin(FINAL_SHARE_MAX, fmax(FINAL_SHARE_MIN, fin));
        n0 = 0;
        while (rungs_cost(&c, nt, n0 + 1, rungs, p->model_front_n) <= share * usable && n0 < 400)
            n0++;
        if (n0 >= min_starts)
            break;
    }
    if (rungs < 1) {
        rungs = 1;
        n0 = min_starts;
    }
    int spare = n0 - min_starts;
    int explore = spare > 6 ? spare / 3 : 0;
    model_starts(s, &c, min_model + spare - explore, p);
    p->n_explore = n0 - p->n_starts > 0 ? n0 - p->n_starts : 0;
    p->n_rungs = rungs;
    int n = p->n_starts + p->n_explore;
    double used = 0;
    for (int r = 0; r < rungs; r++) {
        p->rung_n[r] = n;
        p->rung_d[r] = c.d0_s * (1 << r);
        p->rung_cost_s[r] = n * eb_tune_probe_cost(&c, nt, p->rung_d[r]);
        used += p->rung_cost_s[r];
        n = next_rung_n(n, p->model_front_n);
    }
    p->final_d = p->rung_d[rungs - 1];
    p->final_cost_s = usable - used > 0 ? usable - used : 0;
    /* The frontier (the model's, or the last rung if larger) re-measured,
     * then repeats. */
    int last = p->rung_n[rungs - 1] > p->model_front_n ? p->rung_n[rungs - 1] : p->model_front_n;
    double fin = FINAL_ROOM * last * eb_tune_probe_cost(&c, nt, p->final_d);
    p->predicted_s = used + (fin < p->final_cost_s ? fin : p->final_cost_s);
    return 0;
}

/* ------------------------------------------------------------ statistics */

typedef struct acc {
    double sd, sdx, sdx2, sd2se2;
} acc;

typedef struct search {
    const eb_tune_space *s;
    eb_tune_config c;
    eb_tune_probe_fn probe;
    void *user;
    eb_tune_progress_fn progress;
    void *puser;
    volatile sig_atomic_t *stop;
    eb_tune_result *r;
    acc *a;
    bool *failed;
    const char *phase;
    bool out_of_budget;
    double ovh_sum;       /* observed overhead per test (cost - test time), summed */
    int ovh_n;
    double phase_cap_s;   /* the current phase ends once this much is spent */
} search;

static void update_stat(search *x, int cand, const eb_tune_measure *m)
{
    eb_tune_stat *st = &x->r->stat[cand];
    acc *a = &x->a[cand];
    const eb_tune_objective *o = &x->s->obj;
    double score = eb_tune_objective_score(o, m->mbps);
    double sw = 0, var = 0;
    for (int t = 0; t < EB_TEST_COUNT; t++)
        if (o->w[t] > 0) {
            sw += o->w[t];
            double se = isfinite(m->se[t]) ? m->se[t] : 0;
            var += o->w[t] * o->w[t] * se * se;
        }
    double se = sqrt(var) / sw;
    double d = m->duration_s;
    a->sd += d;
    a->sdx += d * score;
    a->sdx2 += d * score * score;
    a->sd2se2 += d * d * se * se;
    st->n++;
    st->score = a->sdx / a->sd;
    double se_w = sqrt(a->sd2se2) / a->sd;
    double se_b = 0;
    if (st->n >= 2) {
        double var_b = (a->sdx2 / a->sd - st->score * st->score) * st->n / (st->n - 1);
        se_b = var_b > 0 ? sqrt(var_b / st->n) : 0;
    }
    st->se = fmax(fmax(se_w, se_b), REL_SE_FLOOR * fabs(st->score));
    st->lo = st->score - 1.96 * st->se;
    st->hi = st->score + 1.96 * st->se;
    st->free_kb = st->n == 1 ? m->free_kb : fmin(st->free_kb, m->free_kb);
    for (int t = 0; t < EB_TEST_COUNT; t++) /* the latest, longest figure per test */
        if (isfinite(m->mbps[t]) && d >= st->longest_d)
            st->mbps[t] = m->mbps[t];
    if (d > st->longest_d)
        st->longest_d = d;
}

static void report(search *x, int cand)
{
    if (!x->progress)
        return;
    eb_tune_progress p = {.phase = x->phase, .spent_s = x->r->spent_s, .budget_s = x->c.budget_s,
                          .probes = x->r->probes, .best = -1, .cand = cand};
    for (int i = 0; i < x->s->n; i++) {
        const eb_tune_stat *st = &x->r->stat[i];
        if (st->n && !x->failed[i] && st->free_kb >= x->c.min_free_kb && (p.best < 0 || st->score > p.best_score)) {
            p.best = i;
            p.best_score = st->score;
            p.best_free_kb = st->free_kb;
        }
    }
    x->progress(x->puser, &p);
}

/* One probe within the budget: 1 when the budget is out (nothing done). */
static int probe_one(search *x, int cand, double d, eb_error *err)
{
    if (x->stop && *x->stop)
        return eb_fail(err, EB_EINTR, "interrupted");
    int nt = eb_tune_objective_tests(&x->s->obj);
    /* What a probe costs on this board so far (the plan's guess until then). */
    double ovh = x->ovh_n ? x->ovh_sum / x->ovh_n : x->c.overhead_s;
    double est = nt * (d + (ovh > 0 ? ovh : 0));
    if (x->r->spent_s + est > BUDGET_USABLE * x->c.budget_s) {
        x->out_of_budget = true;
        return 1;
    }
    eb_tune_measure m;
    memset(&m, 0, sizeof m);
    for (int t = 0; t < EB_TEST_COUNT; t++)
        m.mbps[t] = m.se[t] = NAN;
    m.free_kb = NAN;
    int rc = x->probe(x->user, cand, d, x->r->stat[cand].n, &m, err);
    if (rc)
        return rc < 0 ? EB_EIO : rc;
    x->r->spent_s += m.cost_s > 0 ? m.cost_s : est;
    if (m.cost_s > 0) {
        x->ovh_sum += m.cost_s / nt - d;
        x->ovh_n++;
    }
    x->r->probes++;
    if (x->r->stat[cand].n == 0)
        x->r->probed++;
    m.duration_s = d;
    bool ok = isfinite(eb_tune_objective_score(&x->s->obj, m.mbps)) && isfinite(m.free_kb);
    if (!ok)
        x->failed[cand] = true;
    else
        update_stat(x, cand, &m);
    report(x, cand);
    return 0;
}

/* Measured points of the candidates in list (or every measured one). */
static int measured_points(search *x, const int *list, int n, eb_tune_point *pts)
{
    int m = 0;
    int total = list ? n : x->s->n;
    for (int j = 0; j < total; j++) {
        int i = list ? list[j] : j;
        if (x->r->stat[i].n && !x->failed[i])
            pts[m++] = (eb_tune_point){x->r->stat[i].score, x->r->stat[i].free_kb, i};
    }
    return m;
}

/* The next unprobed neighbour of the measured frontier, by the model's score. */
static int next_neighbour(search *x, eb_tune_point *pts, int *front)
{
    int m = measured_points(x, NULL, 0, pts);
    int nf = eb_tune_pareto(pts, m, x->c.min_free_kb, front);
    int best = -1;
    for (int j = 0; j < nf; j++) {
        int i = pts[front[j]].id;
        for (int k = 0; k < x->s->n_fields; k++) {
            for (int dir = -1; dir <= 1; dir += 2) {
                int nb = eb_tune_cand_neighbour(x->s, i, k, dir);
                if (nb < 0 || x->r->stat[nb].n || x->failed[nb] ||
                    x->s->cands[nb].pred_free_kb < x->c.min_free_kb - x->c.heap_margin_kb)
                    continue;
                if (best < 0 || x->s->cands[nb].pred_score > x->s->cands[best].pred_score)
                    best = nb;
            }
        }
    }
    return best;
}

/* Non-dominated sorting (NSGA-II, Deb et al. 2002): layer 0 is the
 * frontier, layer 1 the frontier of the rest, ...; points under the floor
 * rank after every point above it. */
static bool dominates(const eb_tune_point *a, const eb_tune_point *b)
{
    return a->score >= b->score && a->free_kb >= b->free_kb && (a->score > b->score || a->free_kb > b->free_kb);
}

#define MARK (-2) /* non-dominated in this pass; layered after it */

static void layers(const eb_tune_point *pts, int n, double floor_kb, int *layer)
{
    for (int i = 0; i < n; i++)
        layer[i] = -1;
    int done = 0;
    for (int l = 0; done < n; l++) {
        for (int i = 0; i < n; i++) {
            if (layer[i] != -1)
                continue;
            bool dominated = false;
            for (int j = 0; j < n && !dominated; j++)
                dominated = j != i && (layer[j] == -1 || layer[j] == MARK) && dominates(&pts[j], &pts[i]);
            if (!dominated)
                layer[i] = MARK;
        }
        for (int i = 0; i < n; i++) {
            if (layer[i] == MARK) {
                layer[i] = l;
                done++;
            }
        }
    }
    for (int i = 0; i < n; i++)
        if (pts[i].free_kb < floor_kb)
            layer[i] += n;
}

/* Crowding distance within each layer: how far a point's neighbours on its
 * layer are (free heap and score, each over the layer's range); the ends
 * are infinite, so halving keeps the whole width of the frontier. */
static void crowding(const eb_tune_point *pts, int n, const int *layer, double *crowd)
{
    for (int i = 0; i < n; i++) {
        double lo_f = INFINITY, hi_f = -INFINITY, lo_s = INFINITY, hi_s = -INFINITY;
        double left_f = -INFINITY, right_f = INFINITY, left_s = NAN, right_s = NAN;
        for (int j = 0; j < n; j++) {
            if (layer[j] != layer[i])
                continue;
            lo_f = fmin(lo_f, pts[j].free_kb), hi_f = fmax(hi_f, pts[j].free_kb);
            lo_s = fmin(lo_s, pts[j].score), hi_s = fmax(hi_s, pts[j].score);
            if (j == i)
                continue;
            if (pts[j].free_kb <= pts[i].free_kb && pts[j].free_kb > left_f)
                left_f = pts[j].free_kb, left_s = pts[j].score;
            if (pts[j].free_kb >= pts[i].free_kb && pts[j].free_kb < right_f)
                right_f = pts[j].free_kb, right_s = pts[j].score;
        }
        if (!isfinite(left_f) || !isfinite(right_f)) {
            crowd[i] = INFINITY;
            continue;
        }
        double rf = hi_f - lo_f > 0 ? hi_f - lo_f : 1, rs = hi_s - lo_s > 0 ? hi_s - lo_s : 1;
        crowd[i] = (right_f - left_f) / rf + fabs(left_s - right_s) / rs;
    }
}

static const eb_tune_point *rank_pts;
static const int *rank_layer;
static const double *rank_crowd;

static int cmp_rank(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    if (rank_layer[i] != rank_layer[j])
        return rank_layer[i] < rank_layer[j] ? -1 : 1;
    if (rank_crowd[i] != rank_crowd[j])
        return rank_crowd[i] > rank_crowd[j] ? -1 : 1;
    if (rank_pts[i].score != rank_pts[j].score)
        return rank_pts[i].score > rank_pts[j].score ? -1 : 1;
    return rank_pts[i].id < rank_pts[j].id ? -1 : 1;
}

/* The better half of list (at least its whole frontier) by layer, then
 * crowding, into list; returns the count. */
static int halve(search *x, int *list, int n)
{
    eb_tune_point *pts = malloc(sizeof *pts * (size_t)(n + 1));
    int *layer = malloc(sizeof *layer * (size_t)(n + 1));
    int *ord = malloc(sizeof *ord * (size_t)(n + 1));
    double *crowd = malloc(sizeof *crowd * (size_t)(n + 1));
    int k = 0;
    if (pts && layer && ord && crowd) {
        int m = measured_points(x, list, n, pts);
        layers(pts, m, x->c.min_free_kb, layer);
        crowding(pts, m, layer, crowd);
        int front = 0;
        for (int i = 0; i < m; i++) {
            ord[i] = i;
            front += layer[i] == 0;
        }
        rank_pts = pts;
        rank_layer = layer;
        rank_crowd = crowd;
        qsort(ord, (size_t)m, sizeof *ord, cmp_rank);
        (void)front;
        int keep = next_rung_n(n, 0);
        k = keep < m ? keep : m;
        for (int i = 0; i < k; i++)
            list[i] = pts[ord[i]].id;
    }
    free(pts);
    free(layer);
    free(ord);
    free(crowd);
    return k;
}

/* The frontier of list by the current estimates into front (candidate ids). */
static int list_frontier(search *x, const int *list, int n, int *front)
{
    eb_tune_point *pts = malloc(sizeof *pts * (size_t)(n + 1));
    int *f = malloc(sizeof *f * (size_t)(n + 1));
    int k = 0;
    if (pts && f) {
        int m = measured_points(x, list, n, pts);
        k = eb_tune_pareto(pts, m, x->c.min_free_kb, f);
        for (int i = 0; i < k; i++)
            front[i] = pts[f[i]].id;
    }
    free(pts);
    free(f);
    return k;
}

/* The final phase: re-measure the frontier once, then the neighbour pairs
 * whose intervals overlap. */
static int final_phase(search *x, const int *list, int n, double d, eb_error *err)
{
    x->phase = "final";
    int *front = malloc(sizeof *front * (size_t)(n + 1));
    if (!front)
        return eb_fail(err, EB_EIO, "out of memory");
    int rc = 0;
    /* Every frontier point measured at the final duration once; a point
     * that drops off lets another in, which gets its turn. */
    while (!rc && !x->out_of_budget) {
        int nf = list_frontier(x, list, n, front), pick = -1;
        for (int i = 0; i < nf && pick < 0; i++)
            if (x->r->stat[front[i]].longest_d < d)
                pick = front[i];
        if (pick < 0)
            break;
        rc = probe_one(x, pick, d, err);
    }
    while (!rc && !x->out_of_budget) {
        int nf;
        nf = list_frontier(x, list, n, front);
        int pick = -1;
        for (int i = 0; i + 1 < nf; i++) {
            const eb_tune_stat *a = &x->r->stat[front[i]], *b = &x->r->stat[front[i + 1]];
            if (a->lo > b->hi || b->lo > a->hi)
                continue;
            if (fmax(a->hi, b->hi) - fmin(a->lo, b->lo) < EQUIV_BAND * fmax(a->score, b->score))
                continue;
            int c = a->n < b->n || (a->n == b->n && a->se >= b->se) ? front[i] : front[i + 1];
            if (x->r->stat[c].n < MAX_REPEATS && (pick < 0 || x->r->stat[c].n < x->r->stat[pick].n))
                pick = c;
        }
        if (pick < 0)
            break;
        rc = probe_one(x, pick, d, err);
    }
    x->r->budget_out = x->out_of_budget;
    free(front);
    return rc == 1 ? 0 : rc;
}

/* The reported frontier (front by increasing free heap): from the most free
 * heap down, a point stays when it gains MIN_GAIN over the last one kept. */
static int worth_its_heap(search *x, int nf, int *front)
{
    int *keep = malloc(sizeof *keep * (size_t)(nf + 1));
    if (!keep)
        return nf;
    int k = 0;
    double bar = -INFINITY;
    for (int i = nf - 1; i >= 0; i--) {
        double score = x->r->stat[front[i]].score;
        if (score > bar) {
            keep[k++] = front[i];
            bar = score * (1 + MIN_GAIN);
        }
    }
    for (int i = 0; i < k; i++) /* back to increasing free heap */
        front[i] = keep[k - 1 - i];
    free(keep);
    return k;
}

static int start_and_explore(search *x, const eb_tune_plan *p, eb_error *err)
{
    int rc = 0;
    x->phase = "start";
    for (int i = 0; i < p->n_starts && !rc; i++)
        rc = probe_one(x, p->starts[i], p->rung_d[0], err);
    x->phase = "explore";
    x->phase_cap_s = p->rung_cost_s[0];
    eb_tune_point *pts = malloc(sizeof *pts * (size_t)x->s->n);
    int *front = malloc(sizeof *front * (size_t)x->s->n);
    if (!pts || !front)
        rc = eb_fail(err, EB_EIO, "out of memory");
    for (int e = 0; e < p->n_explore && !rc && x->r->spent_s < x->phase_cap_s; e++) {
        int nb = next_neighbour(x, pts, front);
        if (nb < 0)
            break;
        rc = probe_one(x, nb, p->rung_d[0], err);
    }
    free(pts);
    free(front);
    return rc;
}

static int run_search(search *x, const eb_tune_plan *p, eb_error *err)
{
    int rc = start_and_explore(x, p, err);
    int *list = malloc(sizeof *list * (size_t)x->s->n);
    if (!list)
        return eb_fail(err, EB_EIO, "out of memory");
    int n = 0;
    for (int i = 0; i < x->s->n; i++)
        if (x->r->stat[i].n)
            list[n++] = i;
    static const char *const rung_names[] = {"rung 0", "rung 1", "rung 2", "rung 3"};
    double d = p->rung_d[0];
    /* Each phase stops where the plan's costs put its end, so a board
     * slower than planned shortens the rungs, not the final phase. */
    for (int r = 1; r < p->n_rungs && !rc && !x->out_of_budget; r++) {
        x->phase = rung_names[r];
        x->phase_cap_s += p->rung_cost_s[r];
        n = halve(x, list, n);
        d = p->rung_d[r];
        for (int i = 0; i < n && !rc && x->r->spent_s < x->phase_cap_s; i++)
            rc = probe_one(x, list[i], d, err);
    }
    if (rc == 1)
        rc = 0;
    /* The frontier is over every candidate measured (a rung only decides who
     * gets longer tests); the final phase re-measures it. */
    n = 0;
    for (int i = 0; i < x->s->n; i++)
        if (x->r->stat[i].n)
            list[n++] = i;
    d = p->final_d;
    if (!rc)
        rc = final_phase(x, list, n, d, err);
    x->r->frontier = malloc(sizeof *x->r->frontier * (size_t)(n + 1));
    if (x->r->frontier)
        x->r->n_frontier = worth_its_heap(x, list_frontier(x, list, n, x->r->frontier), x->r->frontier);
    free(list);
    return rc == 1 ? 0 : rc;
}

int eb_tune_search(const eb_tune_space *s, const eb_tune_config *cfg, const eb_tune_plan *plan,
                   eb_tune_probe_fn probe, void *user, eb_tune_progress_fn progress,
                   void *puser, volatile sig_atomic_t *stop, eb_tune_result *r, eb_error *err)
{
    memset(r, 0, sizeof *r);
    search x = {.s = s, .probe = probe, .user = user, .progress = progress, .puser = puser,
                .stop = stop, .r = r};
    cfg_defaults(cfg, &x.c);
    r->stat = calloc((size_t)s->n, sizeof *r->stat);
    x.a = calloc((size_t)s->n, sizeof *x.a);
    x.failed = calloc((size_t)s->n, sizeof *x.failed);
    int rc;
    if (!r->stat || !x.a || !x.failed)
        rc = eb_fail(err, EB_EIO, "out of memory");
    else
        rc = run_search(&x, plan, err);
    free(x.a);
    free(x.failed);
    return rc;
}

void eb_tune_result_free(eb_tune_result *r)
{
    free(r->stat);
    free(r->frontier);
    memset(r, 0, sizeof *r);
}
