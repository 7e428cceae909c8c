/* The virtual boards as fixtures of a board (run_internal.h run_end_ops):
 * drivers of the same kind as the ends, for what a simulated or emulated
 * board brings besides its console.
 *  - vboard (run --sim): its control socket sets the link of a sweep point
 *    (RSSI, loss, round trip: vb_control.c "link") before the board
 *    connects, and its results' figure source is its model's;
 *  - qemu (run --qemu): its results are measured on an emulated chip and
 *    network (docs/emulator.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/adapters/vboard_ctl.h"
#include "espbench/formats/dims.h"
#include "espbench/formats/hosted.h"
#include "espbench/formats/radio_model.h"
#include "run_internal.h"

/* ------------------------------------------------------------ --sim */

/* The sweep point whose link the virtual board has (board_ctx.priv). */
typedef struct vboard_link {
    int point; /* -1: none set */
} vboard_link;

static int vboard_open(board_ctx *end, eb_error *err)
{
    (void)err;
    vboard_link *l = calloc(1, sizeof *l);
    if (!l)
        abort();
    l->point = -1;
    end->priv = l;
    return 0;
}

/* The point's link through the control socket, before the point's first
 * test: every link variable of the point at once (eb_sweep_link_at). */
static int vboard_prepare(board_ctx *end, const eb_run_item *it, bool own_tier, eb_error *err)
{
    (void)own_tier;
    vboard_link *vl = end->priv;
    /* A chip and tier the docs give no memory figure for: its model has
     * none to show (an ESP-Hosted pair's host model has). */
    end->dut->memory_unknown = !end->b->hosted && !eb_model_heap_known(end->dut->chip, eb_run_item_tier(it));
    const eb_sweep *sw = &end->sh->o->sweep;
    int point = run_sweep_point(end->sh->o, it);
    if (point < 0 || !eb_sweep_var_sim_only(sw->var) || vl->point == point)
        return 0;
    eb_model_link l;
    eb_sweep_link_at(it->at, &end->b->sim_link, &l);
    char cmd[160], reply[160];
    eb_sweep_link_command(&l, cmd, sizeof cmd);
    int rc = eb_vboard_ctl(end->b->sim_control, cmd, reply, sizeof reply, 5000, err);
    if (rc)
        return rc;
    vl->point = point;
    run_infof(end->dut, EB_RUN_EV_INFO, "%s: sweep %s = %g %s (link %s)", end->label, eb_sweep_var_name(sw->var),
              sw->values[point], eb_sweep_var_unit(sw->var), reply);
    return 0;
}

/* The figure source the virtual board's figures come from: the same
 * decision it makes (eb_model_figure, vb_radio.c); an ESP-Hosted pair's
 * transport runs at the published raw rate, its iperf figures are always
 * the pair model's (model_hosted.c). */
static void vboard_stamp(board_ctx *end, const eb_run_item *it, run_result *r)
{
    eb_entry *e = r->entry;
    if (!e)
        return;
    const char *src = NULL;
    if (end->b->hosted) {
        src = EB_TEST_IS_RAW(it->test) ? "published" : "model " EB_MODEL_VERSION;
    } else if (it->test < EB_TEST_COUNT) {
        eb_model_link link;
        eb_sweep_link_at(it->at, &end->b->sim_link, &link);
        src = eb_model_source(eb_run_item_tier(it), it->test, &link, end->b->sim_model) == EB_FIG_PUBLISHED &&
                      !eb_radio_modelled(r->prov) && !isnan(e->ref_mbps)
                  ? "published"
                  : "model " EB_MODEL_VERSION;
    }
    if (src)
        snprintf(e->figure_source, sizeof e->figure_source, "%s", src);
}

/* It sets the link's rows (dims.h EB_DIM_LINK: rssi, loss, rtt). */
static const run_end_decl vboard_decl = {
    .sets = EB_DIM_LINK,
    .needs = "sets the virtual board's link and needs --sim (board %s is not simulated)%s; on hardware sweep "
             "udp-rate, or change the link yourself",
    .also = " or --sim",
};

const run_end_ops run_end_vboard = {
    .name = "vboard",
    .decl = &vboard_decl,
    .open = vboard_open,
    .prepare = vboard_prepare,
    .stamp = vboard_stamp,
};

/* ------------------------------------------------------------ --qemu */

/* Measured, but on an emulated chip and network (docs/emulator.md). */
static void qemu_stamp(board_ctx *end, const eb_run_item *it, run_result *r)
{
    (void)end, (void)it;
    if (r->entry)
        snprintf(r->entry->figure_source, sizeof r->entry->figure_source, "emulator");
}

static const run_end_decl qemu_decl = {0};

const run_end_ops run_end_qemu = {
    .name = "qemu",
    .decl = &qemu_decl,
    .stamp = qemu_stamp,
};
