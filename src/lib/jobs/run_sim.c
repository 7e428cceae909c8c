/* run --sim: a virtual board (espbench-vboard) per board, started and
 * flashed by the run, its pty the board's port: a board source
 * (run_sources.c). Its boards are the flags' one board or a lab file's;
 * it starts each board's peer too, gives the PC end a loopback address of
 * its own, and its AP's network and password are the vboard's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/dialect.h"
#include "espbench/formats/hosted.h"
#include "espbench/jobs/run.h"
#include "espbench/jobs/sim.h"
#include "run_internal.h"
#include "run_request.h"

/* The virtual AP's password (the vboard gets it through its environment). */
#define SIM_AP_PASSWORD "espbench-sim-wpa2"

_Static_assert(EB_RUN_MAX_SIM_FAULTS == EB_SIM_MAX_FAULTS, "one limit for --sim-fault");

static void announce(const eb_run_opts *o, const char *msg)
{
    if (!o->progress)
        return;
    eb_run_progress p = {.event = EB_RUN_EV_INFO, .board = "", .chip = "", .tier = "", .test = -1, .message = msg};
    o->progress(o->user, &p);
}

/* --sim board to board: a second virtual board of the peer's chip, with the
 * board's settings otherwise (its own address, seed and control socket);
 * traffic then goes from one virtual board to the other over loopback, each
 * shaped by its own chip and tier. */
static int start_peer_sim(eb_run_opts *o, eb_run_setup *st, const eb_sim_opts *board_so, eb_run_board *b, int i,
                          eb_error *err)
{
    if (!st->peer_sims) {
        st->peer_sims = calloc((size_t)o->n_boards, sizeof *st->peer_sims);
        if (!st->peer_sims)
            abort();
    }
    eb_sim_opts so = *board_so;
    so.chip = b->peer.chip;
    so.name = b->peer.name;
    so.seed = (uint32_t)(1000 + i);
    char msg[128];
    snprintf(msg, sizeof msg, "starting a virtual %s board %s (the peer)...", b->peer.chip, b->peer.name);
    announce(o, msg);
    int rc = eb_sim_start(&st->peer_sims[i], &so, err);
    if (st->n_peer_sims < i + 1)
        st->n_peer_sims = i + 1;
    if (rc)
        return rc;
    eb_sim *ps = st->peer_sims[i];
    snprintf(b->peer.port, sizeof b->peer.port, "%s", eb_sim_port(ps));
    snprintf(b->peer.fw_sha256, sizeof b->peer.fw_sha256, "%s", eb_sim_app_sha256(ps));
    snprintf(b->peer.sim_control, sizeof b->peer.sim_control, "%s", eb_sim_control(ps));
    b->peer.sim = true;
    b->peer.port_no_lines = true; /* a pty */
    return 0;
}

/* --sim: a virtual board per board, flashed, its pty as the board's port. */
static int start_sims(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    st->sims = calloc((size_t)o->n_boards, sizeof *st->sims);
    if (!st->sims)
        abort();
    for (int i = 0; i < o->n_boards && !(o->stop && *o->stop); i++) {
        eb_run_board *b = &o->boards[i];
        eb_sim_opts so = {
            .profiles = &st->profiles, .chip = b->chip, .name = b->name[0] ? b->name : "sim",
            .out_dir = o->out_dir, .ssid = o->ssid, .ap_password = SIM_AP_PASSWORD,
            .noise_pct = rq->sim_noise_pct, .seed = (uint32_t)(i + 1), .n_faults = rq->n_sim_faults,
            .project = rq->sim_project, .idf = rq->sim_idf, .app_image = rq->sim_image,
            .profiles_dir = rq->profiles_dir,
            .force_model = rq->sim_model,
        };
        if (b->hosted) { /* the pair: the host runs the stock iperf example (run_hosted.c) */
            so.coprocessor = b->hosted->coprocessor;
            so.transport = eb_hosted_bus_name(b->hosted->bus);
            so.project = rq->sim_project ? rq->sim_project : "iperf";
            so.idf = rq->sim_idf ? rq->sim_idf : "v5.5";
        }
        if (rq->sim_link_set)
            so.link = rq->sim_link;
        else
            eb_model_link_default(&so.link);
        if (o->aggregate && o->n_boards > 1) /* one simulated AP: its medium is shared */
            so.link.stations = o->n_boards;
        /* Board to board through one AP: every frame crosses the air twice
         * (the sender's uplink, the AP's downlink to the peer), so the pair's
         * two transmitters share the channel (the model's stations term). */
        if (b->peer.chip[0])
            so.link.stations = (so.link.stations > 1 ? so.link.stations : 1) * 2;
        b->sim = true;
        b->port_no_lines = true; /* a pty */
        b->sim_model = rq->sim_model;
        b->sim_link = so.link;
        for (int k = 0; k < rq->n_sim_faults; k++)
            so.faults[k] = rq->sim_faults[k];
        char msg[128];
        snprintf(msg, sizeof msg, "starting a virtual %s board%s%s...", b->chip, b->name[0] ? " " : "", b->name);
        announce(o, msg);
        int rc = eb_sim_start(&st->sims[i], &so, err);
        st->n_sims = i + 1;
        if (rc)
            return rc;
        snprintf(b->port, sizeof b->port, "%s", eb_sim_port(st->sims[i]));
        snprintf(b->fw_sha256, sizeof b->fw_sha256, "%s", eb_sim_app_sha256(st->sims[i]));
        snprintf(b->sim_control, sizeof b->sim_control, "%s", eb_sim_control(st->sims[i]));
        if (b->peer.chip[0] && (rc = start_peer_sim(o, st, &so, b, i, err)) != 0)
            return rc;
        /* The PC end gets a loopback address of its own, so parallel runs never collide. */
        if (rq->pc_address)
            snprintf(b->pc_ip, sizeof b->pc_ip, "%s", rq->pc_address);
        else if ((rc = eb_sim_free_address(b->pc_ip, sizeof b->pc_ip, (uint32_t)(7919 * (i + 1)), err)) != 0)
            return rc;
    }
    return 0;
}

/* The virtual boards, then each board's PC port, known now, checked free. */
static int sim_start(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    int rc = start_sims(rq, o, st, err);
    return rc ? rc : run_pc_ports_precheck(o, st, err);
}

static void sim_stop(eb_run_setup *st)
{
    for (int i = 0; i < st->n_sims; i++)
        eb_sim_stop(st->sims[i]);
    free(st->sims);
    st->sims = NULL;
    st->n_sims = 0;
    for (int i = 0; i < st->n_peer_sims; i++)
        eb_sim_stop(st->peer_sims[i]);
    free(st->peer_sims);
    st->peer_sims = NULL;
    st->n_peer_sims = 0;
}

/* The espbench firmware unless --sim-image or --sim-project names another. */
static int sim_dialect(const eb_run_request *rq)
{
    if (!rq->sim_image && (!rq->sim_project || !*rq->sim_project || !strcmp(rq->sim_project, "espbench")))
        return EB_DIALECT_ESPBENCH;
    return EB_DIALECT_UNKNOWN;
}

static const run_source_rule sim_refuses[] = {
    {RUN_OPT(PEER_PORT), "--peer-port is a second real board; under --sim pass --peer-chip CHIP (a second virtual "
                         "board)"},
    {RUN_OPT(PATTERN), "--pattern with --sim: the virtual board speaks the built-in dialects only; run --pattern "
                       "against the board (--port or --lab)"},
    {0, NULL},
};
/* The link variables go through a virtual board's control socket: the
 * sweep's check sees one before any starts. */
static const eb_run_board sim_standin = {.sim = true, .sim_control = "-"};
static const run_source_decl sim_decl = {
    .combines = RUN_OPT(LAB),
    .conflict = RUN_SOURCE_CHOOSE_ONE,
    .refuses = sim_refuses,
    .needs = RUN_OPT(CHIP),
    .provides = RUN_SRC_OWN_PORTS | RUN_SRC_OWN_PEERS | RUN_SRC_PC_ADDRESS | RUN_SRC_MKIMAGE,
    .board_name = "sim",
    .ssid = EB_SIM_SSID,
    .ap_password = SIM_AP_PASSWORD,
    .standin = &sim_standin,
};
const run_source run_source_sim = {"sim", RUN_OPT(SIM), &sim_decl, NULL, NULL, sim_dialect, sim_start, sim_stop};
