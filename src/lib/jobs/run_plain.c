/* The plain board: each throughput test against the PC (run_test.c). Last
 * in the table: a variant before it that runs an item (a peer board, an
 * ESP-Hosted raw test, latency) takes it first. */
#include "run_internal.h"

static bool plain_runs(const board_ctx *bc, const eb_run_item *it)
{
    (void)bc;
    return it->test >= 0 && it->test < EB_TEST_COUNT;
}

static int plain_test(board_ctx *bc, const eb_run_item *it, run_result *r, eb_error *err)
{
    return run_test(bc, it, &r->e, err);
}

const run_variant run_variant_plain = {
    .name = "plain",
    .runs = plain_runs,
    .test = plain_test,
};
