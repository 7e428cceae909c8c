/* What a tune frontier point gives up (tune_tradeoff.c): every point on all
 * four tests, measured or predicted; a cost flagged beyond --max-cost on a
 * test outside the objective against the chip's default tier; a point of
 * one probe tentative. The result is made by hand so each figure is known:
 * the C3's best TCP TX point of one dynamic RX buffer and AMPDU RX off. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/adapters/model_files.h"
#include "espbench/adapters/profile_dirs.h"
#include "espbench/formats/model.h"
#include "espbench/formats/profile.h"
#include "espbench/jobs/tune.h"

static eb_profiles prof;
static eb_model model;
static eb_tune_space space;

static int setup(void **state)
{
    (void)state;
    eb_error err;
    const char *dir = SOURCE_DIR "/profiles";
    if (eb_profiles_load(&prof, &dir, 1, &err) || eb_model_load(&model, SOURCE_DIR "/profiles/model/model.yaml", &err))
        return -1;
    eb_tune_objective o;
    if (eb_tune_objective_parse("tcp_tx", &o, &err))
        return -1;
    return eb_tune_space_build(&space, eb_model_chip_get(&model, "esp32c3"), eb_profiles_chip(&prof, "esp32c3"), &o,
                               NULL, 0, &err);
}

static int teardown(void **state)
{
    (void)state;
    eb_tune_space_free(&space);
    eb_model_free(&model);
    eb_profiles_free(&prof);
    return 0;
}

/* A result where candidate c was measured n times at tcp_tx mbps. */
static void one_point(eb_tune_result *r, int c, int n, double mbps)
{
    memset(r, 0, sizeof *r);
    r->stat = calloc((size_t)space.n, sizeof *r->stat);
    assert_non_null(r->stat);
    r->stat[c].n = n;
    r->stat[c].score = r->stat[c].mbps[EB_TEST_TCP_TX] = mbps;
    r->stat[c].lo = mbps - 0.2;
    r->stat[c].hi = mbps + 0.2;
    r->stat[c].free_kb = 170;
    r->frontier = malloc(sizeof *r->frontier);
    r->frontier[0] = c;
    r->n_frontier = 1;
}

static void test_costs_and_tentative(void **state)
{
    (void)state;
    int c = eb_tune_cand_find(&space, "tune-s2-d1-t24-b0");
    assert_true(c >= 0);
    eb_tune_result r;
    one_point(&r, c, 1, 36.13);
    eb_tune_tradeoff t;
    eb_tune_tradeoff_of(&space, &r, c, 20, &t);
    assert_string_equal(eb_tune_baseline_name(&space), "default");
    /* TCP TX measured; the others the model's (the probes ran tcp_tx only). */
    assert_true(t.measured[EB_TEST_TCP_TX]);
    assert_false(t.measured[EB_TEST_TCP_RX] || t.measured[EB_TEST_UDP_TX] || t.measured[EB_TEST_UDP_RX]);
    assert_true(fabs(t.mbps[EB_TEST_TCP_TX] - 36.13) < 1e-9);
    assert_true(fabs(t.mbps[EB_TEST_TCP_RX] - space.cands[c].pred_mbps[EB_TEST_TCP_RX]) < 1e-9);
    assert_true(t.cost[EB_TEST_TCP_RX] && t.cost[EB_TEST_UDP_RX] && !t.cost[EB_TEST_UDP_TX] && !t.cost[EB_TEST_TCP_TX]);
    assert_int_equal(t.n_costs, 2);
    assert_true(t.tentative);
    char buf[400];
    assert_string_equal(eb_tune_tradeoff_costs(&t, buf, sizeof buf),
                        "TCP RX -79 % (6.40 predicted vs 30.47), UDP RX -54 % (21.67 predicted vs 47.29)");
    /* A share above both: no cost; two probes: not tentative. */
    r.stat[c].n = 2;
    eb_tune_tradeoff_of(&space, &r, c, 80, &t);
    assert_int_equal(t.n_costs, 0);
    assert_false(t.tentative);
    char *text = eb_tune_frontier_table(&space, &r, 0);
    assert_non_null(strstr(text, "tier                         TCP TX     TCP RX     UDP TX     UDP RX  notes\n"
                                 "tune-s2-d1-t24-b0           36.13 m     6.40 p    39.86 p    21.67 p  COSTS TCP RX "
                                 "-79 % (6.40 predicted vs 30.47), UDP RX -54 % (21.67 predicted vs 47.29)\n"));
    assert_non_null(strstr(text, "more than 20 % below the default tier's figure (--max-cost)"));
    free(text);
    free(r.stat);
    free(r.frontier);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_costs_and_tentative),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
