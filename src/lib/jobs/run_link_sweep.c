/* --sweep over a link variable (rssi, loss, rtt): before each attempt of a
 * point's test the virtual board takes the point's link (run_steps.c
 * run_apply_link_point, vb_control.c "link"). The point itself is part of
 * every plan item and entry key (run_plan.c, run_ctx.c); rate and power
 * sweeps change the test's own settings and need nothing here. */
#include "run_internal.h"

static bool sweep_joins(const board_ctx *bc)
{
    return bc->sh->o->sweep.n > 0;
}

static int sweep_before_tier(board_ctx *bc, const eb_run_item *it, eb_error *err)
{
    return run_apply_link_point(bc, it, err);
}

const run_variant run_variant_link_sweep = {
    .name = "link-sweep",
    .joins = sweep_joins,
    .before_tier = sweep_before_tier,
};
