/* The tune search (tune.h): the space respects the Kconfig ranges and the
 * validation rules and holds the published ranks; objectives and --fix are
 * parsed with one-line errors; Pareto frontiers and hypervolumes of known
 * points; the plan fits the budget; the search against the model finds
 * the exhaustive frontier within the budget and replays identically. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/formats/model.h"
#include "espbench/formats/profile.h"
#include "espbench/jobs/tune.h"
#include "espbench/adapters/model_files.h"
#include "espbench/adapters/profile_dirs.h"

typedef struct fixture {
    eb_profiles p;
    eb_model m;
    const eb_chip *chip;
    const eb_model_chip *mc;
} fixture;

static int setup(void **state)
{
    static fixture f;
    eb_error err;
    const char *dir = SOURCE_DIR "/profiles";
    if (eb_profiles_load(&f.p, &dir, 1, &err) || eb_model_load(&f.m, SOURCE_DIR "/profiles/model/model.yaml", &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    f.chip = eb_profiles_chip(&f.p, "esp32");
    f.mc = eb_model_chip_get(&f.m, "esp32");
    *state = &f;
    return f.chip && f.mc ? 0 : -1;
}

static int teardown(void **state)
{
    fixture *f = *state;
    eb_model_free(&f->m);
    eb_profiles_free(&f->p);
    return 0;
}

static void build(fixture *f, const char *objective, const eb_tune_fix *fix, int n_fix, eb_tune_space *s)
{
    eb_tune_objective o;
    eb_error err;
    assert_int_equal(eb_tune_objective_parse(objective, &o, &err), 0);
    assert_int_equal(eb_tune_space_build(s, f->mc, f->chip, &o, fix, n_fix, &err), 0);
}

static void test_objective(void **state)
{
    (void)state;
    eb_tune_objective o;
    eb_error err;
    char buf[64];
    assert_int_equal(eb_tune_objective_parse("tcp_tx=2,udp_rx=1", &o, &err), 0);
    assert_int_equal(eb_tune_objective_tests(&o), 2);
    double mbps[EB_TEST_COUNT] = {30, 99, 99, 60};
    assert_true(fabs(eb_tune_objective_score(&o, mbps) - 40) < 1e-9);
    assert_string_equal(eb_tune_objective_format(&o, buf, sizeof buf), "tcp_tx=2,udp_rx=1");
    assert_int_equal(eb_tune_objective_parse("tcp_tx", &o, &err), 0);
    assert_string_equal(eb_tune_objective_format(&o, buf, sizeof buf), "tcp_tx");
    assert_int_equal(eb_tune_objective_parse("tcp_tx,tcp_tx=2", &o, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--objective tcp_tx,tcp_tx=2: tcp_tx is given twice");
    assert_int_equal(eb_tune_objective_parse("tcp_tx=-1", &o, &err), EB_ECONFIG);
    assert_int_equal(eb_tune_objective_parse("tcp", &o, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--objective tcp: unknown test 'tcp' (tcp_tx, tcp_rx, udp_tx, udp_rx)");
}

static void test_fix(void **state)
{
    (void)state;
    eb_tune_fix fx[EB_TUNE_MAX_FIX];
    int n = 0;
    eb_error err;
    assert_int_equal(eb_tune_fix_add(fx, &n, "static_rx=6", &err), 0);
    assert_int_equal(eb_tune_fix_add(fx, &n, "static_rx=6", &err), 0); /* the same twice is fine */
    assert_int_equal(n, 1);
    assert_int_equal(eb_tune_fix_add(fx, &n, "rx_ba_win=Disable", &err), 0);
    assert_int_equal(fx[1].value, 0);
    assert_int_equal(eb_tune_fix_add(fx, &n, "static_rx=200", &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "outside the Kconfig range"));
    assert_int_equal(eb_tune_fix_add(fx, &n, "bogus=1", &err), EB_ECONFIG);
    assert_int_equal(eb_tune_fix_add(fx, &n, "static_rx", &err), EB_ECONFIG);
    assert_int_equal(eb_tune_fix_add(fx, &n, "lwip_iram_opt=0", &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "is a build-time setting"));
}

/* Every candidate passes tier validation (the BA window rule included), lies
 * in its Kconfig range, and the published ranks are in the space. */
static void test_space(void **state)
{
    fixture *f = *state;
    eb_tune_space s;
    build(f, "tcp_tx", NULL, 0, &s);
    assert_true(s.n > 1000 && s.n < s.n_combos);
    for (int i = 0; i < s.n; i++) {
        eb_tier t;
        eb_error err;
        eb_tune_cand_tier(&s, i, &t);
        assert_int_equal(eb_tier_validate(&t, &err), 0);
        int ba = t.value[EB_F_RX_BA_WIN];
        assert_true(ba == 0 || (ba <= t.value[EB_F_DYNAMIC_RX] && ba <= 2 * t.value[EB_F_STATIC_RX]));
        assert_true(t.value[EB_F_TCP_WND_KB] == 65); /* as the image is built */
    }
    int published = 0;
    for (int i = 0; i < s.n; i++)
        published += s.cands[i].published >= 0;
    int want = 0;
    for (int i = 0; i < f->chip->n_tiers; i++)
        want += !f->chip->tiers[i].psram;
    assert_int_equal(published, want);
    char name[64];
    int c = eb_tune_cand_find(&s, "tune-s6-d16-t28-b8");
    assert_true(c >= 0);
    assert_string_equal(f->chip->tiers[s.cands[c].published].name, "tx-prior");
    int nb = eb_tune_cand_neighbour(&s, c, 2, +1); /* dynamic_tx one step up */
    assert_string_equal(eb_tune_cand_name(&s, nb, name, sizeof name), "tune-s6-d16-t32-b8");
    eb_tune_space_free(&s);
}

static void test_fix_space_and_contradiction(void **state)
{
    fixture *f = *state;
    eb_tune_fix fx[EB_TUNE_MAX_FIX];
    int n = 0;
    eb_error err;
    assert_int_equal(eb_tune_fix_add(fx, &n, "dynamic_tx=16", &err), 0);
    eb_tune_space s;
    build(f, "tcp_tx", fx, n, &s);
    for (int i = 0; i < s.n; i++)
        assert_int_equal(s.cands[i].v[2], 16);
    eb_tune_space_free(&s);
    assert_int_equal(eb_tune_fix_add(fx, &n, "static_rx=2", &err), 0);
    assert_int_equal(eb_tune_fix_add(fx, &n, "rx_ba_win=16", &err), 0);
    eb_tune_objective o;
    eb_tune_objective_parse("tcp_tx", &o, &err);
    assert_int_equal(eb_tune_space_build(&s, f->mc, f->chip, &o, fx, n, &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "--fix dynamic_tx=16, --fix static_rx=2 and --fix rx_ba_win=16 contradict: "
                                    "rx_ba_win = 16 exceeds"));
}

static void test_pareto_and_hypervolume(void **state)
{
    (void)state;
    eb_tune_point p[] = {
        {50, 100, 0}, {40, 120, 1}, {45, 110, 2}, {44, 105, 3} /* dominated by 2 */, {60, 90, 4} /* under floor */,
        {30, 120, 5} /* dominated by 1 */,
    };
    int out[6];
    int k = eb_tune_pareto(p, 6, 95, out);
    assert_int_equal(k, 3);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 2);
    assert_int_equal(out[2], 1);
    /* 50 x (100-95) + 45 x (110-100) + 40 x (120-110) */
    assert_true(fabs(eb_tune_hypervolume(p, 6, 95) - (250 + 450 + 400)) < 1e-9);
    int pick[2];
    assert_int_equal(eb_tune_spread(p, 3, 2, 95, pick), 2);
}

static void test_plan_errors(void **state)
{
    fixture *f = *state;
    eb_tune_space s;
    build(f, "tcp_tx", NULL, 0, &s);
    eb_tune_config c = {.budget_s = 5, .min_free_kb = 100};
    eb_tune_plan p;
    eb_error err;
    assert_int_equal(eb_tune_make_plan(&s, &c, &p, &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "--budget 5s is too small: one probe of each of the"));
    c.budget_s = 480;
    c.min_free_kb = 400;
    assert_int_equal(eb_tune_make_plan(&s, &c, &p, &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "--min-free-kb 400: no tier reaches it: the most any candidate leaves free is"));
    c.min_free_kb = 100;
    assert_int_equal(eb_tune_make_plan(&s, &c, &p, &err), 0);
    assert_true(p.predicted_s <= 480);
    assert_true(p.n_published >= 3 && p.n_model >= 3);
    double sum = 0;
    for (int r = 0; r < p.n_rungs; r++)
        sum += p.rung_cost_s[r];
    assert_true(sum + p.final_cost_s <= 480);
    eb_tune_space_free(&s);
}

/* What each probe asked for, to check a replay takes the same path. */
typedef struct recorder {
    eb_tune_model_probe mp;
    int cand[512];
    double d[512];
    int n;
} recorder;

static int record_probe(void *user, int cand, double d, int k, eb_tune_measure *m, eb_error *err)
{
    recorder *r = user;
    if (r->n < 512) {
        r->cand[r->n] = cand;
        r->d[r->n] = d;
        r->n++;
    }
    return eb_tune_model_probe_fn(&r->mp, cand, d, k, m, err);
}

/* On the model with noise, the search stays within its budget, measures a
 * small share of the space and finds >= 0.95 of the exhaustive frontier's
 * hypervolume; the same seed replays the same probes. */
static void test_search_on_model(void **state)
{
    fixture *f = *state;
    eb_tune_space s;
    build(f, "tcp_tx", NULL, 0, &s);
    eb_tune_config c = {.budget_s = 480, .min_free_kb = 100};
    eb_tune_plan p;
    eb_error err;
    assert_int_equal(eb_tune_make_plan(&s, &c, &p, &err), 0);
    static recorder a, b;
    for (int run = 0; run < 2; run++) {
        recorder *r = run ? &b : &a;
        memset(r, 0, sizeof *r);
        r->mp = (eb_tune_model_probe){.s = &s, .cfg = c, .noise_pct = 3, .rng = 12345};
        eb_model_link_default(&r->mp.truth);
        eb_tune_result res;
        assert_int_equal(eb_tune_search(&s, &c, &p, record_probe, r, NULL, NULL, NULL, &res, &err), 0);
        assert_true(res.spent_s <= c.budget_s);
        assert_true(res.n_frontier >= 3);
        eb_tune_quality q;
        eb_tune_quality_of(&s, &res, &r->mp.truth, c.min_free_kb, &q);
        assert_true(q.hv_ratio >= 0.95);
        assert_true(q.probed_fraction <= 0.10);
        /* The frontier re-measured at the longest test (all of it unless the
         * budget ran out first, and most of it anyway). */
        int remeasured = 0;
        for (int i = 0; i < res.n_frontier; i++)
            remeasured += res.stat[res.frontier[i]].longest_d >= p.final_d;
        fprintf(stderr, "frontier %d, re-measured %d, budget out %d, probes %d, hv %.4f\n", res.n_frontier,
                remeasured, res.budget_out, res.probes, q.hv_ratio);
        assert_true(remeasured == res.n_frontier || res.budget_out);
        assert_true(remeasured * 4 >= res.n_frontier * 3);
        for (int i = 0; i + 1 < res.n_frontier; i++) /* each point worth the heap it costs: >= 0.5 % more */
            assert_true(res.stat[res.frontier[i]].score >= 1.005 * res.stat[res.frontier[i + 1]].score);
        eb_tune_result_free(&res);
    }
    assert_int_equal(a.n, b.n);
    assert_memory_equal(a.cand, b.cand, sizeof a.cand[0] * (size_t)a.n);
    eb_tune_space_free(&s);
}

/* A board four times slower per probe than the plan assumes: the phases
 * end where the plan's costs put them, the budget holds, and the frontier
 * is still found. */
static void test_search_slow_board(void **state)
{
    fixture *f = *state;
    eb_tune_space s;
    build(f, "tcp_tx", NULL, 0, &s);
    eb_tune_config c = {.budget_s = 480, .min_free_kb = 100};
    eb_tune_plan p;
    eb_error err;
    assert_int_equal(eb_tune_make_plan(&s, &c, &p, &err), 0);
    eb_tune_model_probe mp = {.s = &s, .cfg = c, .noise_pct = 2, .overhead_s = 4, .rng = 777};
    eb_model_link_default(&mp.truth);
    eb_tune_result res;
    assert_int_equal(eb_tune_search(&s, &c, &p, eb_tune_model_probe_fn, &mp, NULL, NULL, NULL, &res, &err), 0);
    assert_true(res.spent_s <= c.budget_s);
    eb_tune_quality q;
    eb_tune_quality_of(&s, &res, &mp.truth, c.min_free_kb, &q);
    assert_true(q.hv_ratio >= 0.95);
    int remeasured = 0;
    for (int i = 0; i < res.n_frontier; i++)
        remeasured += res.stat[res.frontier[i]].longest_d >= p.final_d;
    assert_true(remeasured * 4 >= res.n_frontier * 3);
    eb_tune_result_free(&res);
    eb_tune_space_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_objective),
        cmocka_unit_test(test_fix),
        cmocka_unit_test(test_space),
        cmocka_unit_test(test_fix_space_and_contradiction),
        cmocka_unit_test(test_pareto_and_hypervolume),
        cmocka_unit_test(test_plan_errors),
        cmocka_unit_test(test_search_on_model),
        cmocka_unit_test(test_search_slow_board),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
