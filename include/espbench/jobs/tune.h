/* `espbench tune`: the tiers on the throughput / free-heap frontier of one
 * board (docs/tune.md).
 *
 * Three parts:
 *  - the search space (tune_space.c, pure): every runtime-switchable Wi-Fi
 *    buffer setting on a ladder of values inside its Kconfig range (the
 *    field table of profile_fields.c), every combination the tier validation
 *    accepts (RX BA window <= min(dynamic RX, 2 x static RX), ...), the
 *    build-time settings as the espbench image has them (eb_model_as_built),
 *    each candidate with the model's prediction; Pareto frontiers and their
 *    hypervolume;
 *  - the search (tune_search.c, pure): a plan sized to the budget, then
 *    successive halving over measurements handed in by a probe callback;
 *  - the job (tune_job.c, tune_output.c): probes through the run job on a
 *    board (a tier defined on the fly per candidate), a journal so a killed
 *    tune resumes, and the outputs (frontier table, results.json,
 *    frontier.yaml, sdkconfig fragments, frontier.html). */
#ifndef ESPBENCH_TUNE_H
#define ESPBENCH_TUNE_H

#include <signal.h>
#include <stdbool.h>

#include "espbench/base/error.h"
#include "espbench/formats/model.h"
#include "espbench/formats/profile.h"

#define EB_TUNE_MAX_FIELDS 4   /* static_rx, dynamic_rx, dynamic_tx, rx_ba_win */
#define EB_TUNE_MAX_LADDER 40
#define EB_TUNE_MAX_FIX 8

/* ---- objective ----------------------------------------------------------- */

/* Weights over the four tests; the score is sum(w x Mbit/s) / sum(w). */
typedef struct eb_tune_objective {
    double w[EB_TEST_COUNT];
} eb_tune_objective;

/* "tcp_tx" or "tcp_tx=2,udp_rx=1"; EB_ECONFIG with one line otherwise. */
int eb_tune_objective_parse(const char *text, eb_tune_objective *o, eb_error *err);
int eb_tune_objective_tests(const eb_tune_objective *o); /* how many tests weigh */
double eb_tune_objective_score(const eb_tune_objective *o, const double mbps[EB_TEST_COUNT]);
/* "tcp_tx" or "tcp_tx=2,udp_rx=1" (canonical), into buf. */
const char *eb_tune_objective_format(const eb_tune_objective *o, char *buf, size_t n);

/* ---- search space --------------------------------------------------------- */

typedef struct eb_tune_fix {
    int field;  /* enum eb_field */
    int value;
    char text[64]; /* "static_rx=4" as given */
} eb_tune_fix;

/* Parses one --fix KEY=VALUE and adds it; EB_ECONFIG on an unknown key, a bad
 * value, a build-time setting, or the same key fixed to two values. */
int eb_tune_fix_add(eb_tune_fix *fix, int *n_fix, const char *text, eb_error *err);

typedef struct eb_tune_cand {
    int v[EB_TUNE_MAX_FIELDS];  /* value of each space field */
    int step[EB_TUNE_MAX_FIELDS]; /* its index on the field's ladder */
    double pred_mbps[EB_TEST_COUNT];
    double pred_score, pred_free_kb;
    int published;              /* index of the chip tier with these settings, -1 none */
} eb_tune_cand;

typedef struct eb_tune_space {
    const eb_chip *chip;
    const eb_model_chip *mc;
    eb_tune_objective obj;
    int n_fields;
    int field[EB_TUNE_MAX_FIELDS];           /* enum eb_field */
    int n_values[EB_TUNE_MAX_FIELDS];
    int values[EB_TUNE_MAX_FIELDS][EB_TUNE_MAX_LADDER];
    eb_tier base;               /* the image's build-time settings plus the fixed ones */
    eb_tune_cand *cands;        /* every valid combination */
    int n;
    int n_combos;               /* combinations before validation */
} eb_tune_space;

/* Builds the space of chip c (non-PSRAM image, eb_model_as_built) with the
 * fixed settings, and predicts every candidate. EB_ECONFIG when the fixed
 * settings contradict each other or the rules ("--fix static_rx=4 and --fix
 * rx_ba_win=16 contradict: ..."). */
int eb_tune_space_build(eb_tune_space *s, const eb_model_chip *mc, const eb_chip *c,
                        const eb_tune_objective *obj, const eb_tune_fix *fix, int n_fix,
                        eb_error *err);
void eb_tune_space_free(eb_tune_space *s);
/* Candidate i as a tier (name "tune-s6-d16-t28-b8", runtime fields set). */
void eb_tune_cand_tier(const eb_tune_space *s, int i, eb_tier *out);
/* "tune-s6-d16-t28-b8" (b0 = BA window Disable). */
const char *eb_tune_cand_name(const eb_tune_space *s, int i, char *buf, size_t n);
/* "static_rx=6 dynamic_rx=16 dynamic_tx=28 rx_ba_win=8" */
const char *eb_tune_cand_settings(const eb_tune_space *s, int i, char *buf, size_t n);
/* Index of the candidate with name, -1 if none. */
int eb_tune_cand_find(const eb_tune_space *s, const char *name);
/* Index of the candidate one ladder step from i along field k (dir -1/+1),
 * -1 when off the ladder or not valid. */
int eb_tune_cand_neighbour(const eb_tune_space *s, int i, int k, int dir);
/* EB_ECONFIG when no candidate's predicted free heap reaches floor_kb
 * (names the most any candidate leaves free). */
int eb_tune_check_floor(const eb_tune_space *s, double floor_kb, eb_error *err);

/* ---- frontiers ------------------------------------------------------------ */

/* A point: maximise both score and free heap. */
typedef struct eb_tune_point {
    double score, free_kb;
    int id;
} eb_tune_point;

/* Indices (into pts) of the non-dominated points with free_kb >= floor_kb,
 * in increasing free heap; returns how many (out holds n). */
int eb_tune_pareto(const eb_tune_point *pts, int n, double floor_kb, int *out);
/* Area dominated by the points above the floor, reference (score 0, floor). */
double eb_tune_hypervolume(const eb_tune_point *pts, int n, double floor_kb);
/* The model's frontier of the space above floor_kb (candidate indices, by
 * free heap); *out malloc'd. */
int eb_tune_model_frontier(const eb_tune_space *s, double floor_kb, int **out);
/* Greedy pick of k points of a frontier by hypervolume contribution (the
 * best-spread subset); writes indices into front order to out. */
int eb_tune_spread(const eb_tune_point *front, int n, int k, double floor_kb, int *out);

/* ---- the search ------------------------------------------------------------ */

typedef struct eb_tune_config {
    double budget_s;        /* probe time allowed (seconds of probes, overheads included) */
    double min_free_kb;
    double d0_s;            /* shortest test (rung 0); 0 = 1.5 */
    double interval_s;      /* 0 = 0.5 */
    double overhead_s;      /* per test, tier switch + iperf start/stop; 0 = 1.0 */
    double heap_margin_kb;  /* candidates the model puts this far under the floor still start; 0 = 10 */
    /* --max-cost: a frontier point more than this share (%) below the
     * baseline tier on a test outside the objective is flagged; 0 =
     * EB_TUNE_MAX_COST_PCT. */
    double max_cost_pct;
} eb_tune_config;

#define EB_TUNE_MAX_COST_PCT 20.0

#define EB_TUNE_MAX_RUNGS 4

typedef struct eb_tune_plan {
    int n_published;         /* starting points from the published ranks */
    int n_model;             /* ... from the model's predicted frontier */
    int n_explore;           /* neighbours of the measured frontier, rung 0 */
    int n_rungs;
    int rung_n[EB_TUNE_MAX_RUNGS];
    double rung_d[EB_TUNE_MAX_RUNGS];
    double rung_cost_s[EB_TUNE_MAX_RUNGS];
    double final_d;          /* re-measurement of the frontier */
    double final_cost_s;     /* what is left for it */
    double predicted_s;
    int starts[64];          /* candidate indices of the starting points */
    int n_starts;
    int n_tests;
    int model_front_n;       /* size of the model's frontier above the floor */
} eb_tune_plan;

/* The plan for the budget. EB_ECONFIG when the budget cannot probe each
 * starting point once, or no candidate reaches the floor. */
int eb_tune_make_plan(const eb_tune_space *s, const eb_tune_config *cfg, eb_tune_plan *p,
                      eb_error *err);
/* Cost of one probe of duration d (all the objective's tests). */
double eb_tune_probe_cost(const eb_tune_config *cfg, int n_tests, double d);

/* One measurement of a candidate. */
typedef struct eb_tune_measure {
    double mbps[EB_TEST_COUNT];   /* NAN for tests the objective leaves out */
    double se[EB_TEST_COUNT];     /* standard error of each mean (from its intervals) */
    double free_kb;               /* free heap read from the board after the probe */
    double cost_s;                /* wall time the probe took */
    double duration_s;
} eb_tune_measure;

/* Measures candidate cand for duration_s; k = how many measurements it has
 * already (so the run job can name the repeat). 0, EB_EINTR, or an error. */
typedef int (*eb_tune_probe_fn)(void *user, int cand, double duration_s, int k,
                                eb_tune_measure *out, eb_error *err);

typedef struct eb_tune_stat {
    int n;                  /* measurements */
    double score, se;       /* duration-weighted mean, standard error */
    double lo, hi;          /* 95 % interval */
    double free_kb;         /* least free heap seen */
    double mbps[EB_TEST_COUNT];
    double longest_d;
} eb_tune_stat;

typedef struct eb_tune_progress {
    const char *phase;      /* "start", "explore", "rung 1", "final" */
    double spent_s, budget_s;
    int probes;
    int best;               /* candidate with the best score above the floor, -1 */
    double best_score, best_free_kb;
    int cand;               /* the candidate just probed */
} eb_tune_progress;
typedef void (*eb_tune_progress_fn)(void *user, const eb_tune_progress *p);

typedef struct eb_tune_result {
    eb_tune_stat *stat;     /* per candidate (n = space n), malloc'd */
    int *frontier;          /* candidate indices, by free heap */
    int n_frontier;
    int probes;             /* measurements taken */
    int probed;             /* distinct candidates measured */
    double spent_s;
    bool budget_out;        /* stopped by the budget before CIs separated */
} eb_tune_result;

int eb_tune_search(const eb_tune_space *s, const eb_tune_config *cfg, const eb_tune_plan *plan,
                   eb_tune_probe_fn probe, void *user, eb_tune_progress_fn progress,
                   void *puser, volatile sig_atomic_t *stop, eb_tune_result *r, eb_error *err);
void eb_tune_result_free(eb_tune_result *r);

/* ---- the search against the model (bench/, --model-run) -------------------- */

/* A probe that asks the model instead of a board: candidate i's prediction
 * under the truth link, with Gaussian noise of noise_pct per report interval
 * (so a longer probe is steadier), its cost the planned one. Deterministic
 * for a seed. */
typedef struct eb_tune_model_probe {
    const eb_tune_space *s;
    eb_tune_config cfg;
    eb_model_link truth;      /* the "board's" conditions (published = the model the tuner starts from) */
    double noise_pct;
    double overhead_s;        /* > 0: what a probe really costs per test beyond its duration
                               * (a slower board than the plan assumes); 0 = as planned */
    unsigned long long rng;   /* state; set from a seed, never 0 */
} eb_tune_model_probe;
int eb_tune_model_probe_fn(void *user, int cand, double duration_s, int k, eb_tune_measure *out,
                           eb_error *err);

/* How good a tune's frontier is: the hypervolume (above the floor) of its
 * frontier points at their true values (the model under the truth link)
 * against the exhaustive search's frontier of the same space. */
typedef struct eb_tune_quality {
    double hv_tuner, hv_exhaustive, hv_ratio;
    int exhaustive_points;
    double probed_fraction;   /* distinct candidates measured / candidates */
} eb_tune_quality;
void eb_tune_quality_of(const eb_tune_space *s, const eb_tune_result *r, const eb_model_link *truth,
                        double floor_kb, eb_tune_quality *q);

/* ---- the job ---------------------------------------------------------------- */

typedef struct eb_tune_request {
    const char *chip;
    const char *port;          /* a board; NULL with sim */
    bool sim;
    double sim_noise_pct;
    const char *sim_project;   /* NULL = espbench (another = stock firmware) */
    eb_model_link sim_link;    /* the vboard's link (--sim-rssi/...) */
    bool sim_link_set;
    const char *ssid, *password_env, *pc_address;
    const char *profiles_dir;
    const char *out_dir;
    bool resume;
    eb_tune_objective obj;
    eb_tune_fix fix[EB_TUNE_MAX_FIX];
    int n_fix;
    eb_tune_config cfg;
    volatile sig_atomic_t *stop;
    eb_tune_progress_fn progress;
    void *user;
    /* run job messages (board steps), may be NULL */
    void (*info)(void *user, const char *msg);
} eb_tune_request;

/* Runs a tune of space s with plan: the board (or a vboard) from the run
 * job's resolver, a refusal of stock firmware, the journal, the search, the
 * outputs in out_dir (also after an interruption: EB_EINTR). r is filled
 * (eb_tune_result_free) whatever the result. */
int eb_tune_run(const eb_tune_request *rq, const eb_tune_space *s, const eb_tune_plan *plan,
                eb_tune_result *r, eb_error *err);

/* What a frontier point gives up (tune_tradeoff.c): its figures on all four
 * tests — measured where the probes ran the test, else the model's
 * prediction — against the baseline tier (the chip's "default" tier, else
 * its first published one: measured when probed, else predicted, else the
 * docs' figure); a cost is a test outside the objective more than
 * max_cost_pct below the baseline; a point whose interval rests on one probe
 * is tentative. */
typedef struct eb_tune_tradeoff {
    double mbps[EB_TEST_COUNT];
    bool measured[EB_TEST_COUNT];     /* else predicted (NAN: neither) */
    double base_mbps[EB_TEST_COUNT];  /* the baseline's; NAN unknown */
    bool cost[EB_TEST_COUNT];         /* outside the objective and below the share */
    double change_pct[EB_TEST_COUNT]; /* against the baseline; NAN unknown */
    int n_costs;
    bool tentative;                   /* one probe */
} eb_tune_tradeoff;
/* The baseline tier's name ("default"), NULL when the chip has none. */
const char *eb_tune_baseline_name(const eb_tune_space *s);
void eb_tune_tradeoff_of(const eb_tune_space *s, const eb_tune_result *r, int cand, double max_cost_pct,
                         eb_tune_tradeoff *out);
/* "TCP RX -82 % (6.40 p vs 34.70), UDP RX -55 % (...)": the costs, into buf. */
const char *eb_tune_tradeoff_costs(const eb_tune_tradeoff *t, char *buf, size_t n);

/* Outputs (tune_output.c): the frontier table (malloc'd text: the search's
 * figures, then every point on all four tests with its costs and whether it
 * is tentative), frontier.yaml, sdkconfig fragments, frontier.html.
 * max_cost_pct as eb_tune_config's (0 = the default). */
char *eb_tune_frontier_table(const eb_tune_space *s, const eb_tune_result *r, double max_cost_pct);
int eb_tune_write_outputs(const eb_tune_space *s, const eb_tune_plan *plan,
                          const eb_tune_result *r, double floor_kb, double max_cost_pct, const char *out_dir,
                          eb_error *err);
/* The plan as text (--dry-run), malloc'd. */
char *eb_tune_plan_text(const eb_tune_space *s, const eb_tune_plan *plan,
                        const eb_tune_config *cfg);

#endif
