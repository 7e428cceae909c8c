/* The ends of a board's tests (run_internal.h run_end_ops). A board has two:
 * itself — a console (board), or an ESP-Hosted host whose co-processor is
 * flashed first (hosted) — and its far end — a peer board's console
 * (board again: board to board is two console ends) or the PC (pc). The
 * core runs every entry for both; nothing an end does is written twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/version.h"
#include "run_internal.h"

/* ------------------------------------------------------------ a console */

/* Its log and console; provenance starts with what the PC side knows. */
static int console_open(board_ctx *end, eb_error *err)
{
    run_shared *sh = end->sh;
    eb_prov_track_init(&end->prov, eb_version(), sh->iperf_version, sh->o->env);
    return run_board_open(end, err);
}

static bool console_lost(const board_ctx *end)
{
    return !end->con || eb_console_port_failed(end->con);
}

/* As the far end: the peer's part of the board's result. */
static void console_stamp(board_ctx *end, const eb_run_item *it, run_result *r)
{
    if (end->dut)
        run_pair_stamp(end, it, r);
}

const run_end_ops run_end_board = {
    .name = "board",
    .open = console_open,
    .prepare = run_dims_apply,
    .ready = run_board_ready,
    .lost = console_lost,
    .close = run_board_close,
    .stamp = console_stamp,
    .throughput = run_pair_test,
};

/* ------------------------------------------------------------ an ESP-Hosted host */

/* The co-processor's firmware over its own port first (--coprocessor-port). */
static int hosted_open(board_ctx *end, eb_error *err)
{
    int rc = run_board_log(end, err);
    if (!rc)
        rc = run_hosted_flash_coprocessor(end, err);
    return rc ? rc : console_open(end, err);
}

const run_end_ops run_end_hosted = {
    .name = "hosted",
    .open = hosted_open,
    .prepare = run_dims_apply,
    .ready = run_board_ready,
    .lost = console_lost,
    .close = run_board_close,
    .stamp = run_hosted_stamp,
    .transport = run_hosted_raw,
};

/* ------------------------------------------------------------ the PC */

/* The PC's iperf2 was probed for the run (run_job.c); each test starts and
 * ends its own programs (run_test.c, run_latency.c): no life of its own. */
const run_end_ops run_end_pc = {
    .name = "pc",
    .throughput = run_test,
    .round_trips = run_latency_test,
};

/* ------------------------------------------------------------ making ends */

void run_end_rows(const eb_run_board *b, const run_end_ops **own, const run_end_ops **far)
{
    *own = b->hosted ? &run_end_hosted : &run_end_board;
    *far = b->peer.chip[0] ? &run_end_board : &run_end_pc;
}

int run_end_init(board_ctx *end, run_shared *sh, eb_run_board *b, const run_end_ops *ops, eb_error *err)
{
    end->ops = ops;
    end->sh = sh;
    end->b = b;
    end->label = b->name[0] ? b->name : b->port;
    run_file_label_init(end);
    snprintf(end->fw_sha256, sizeof end->fw_sha256, "%s", b->fw_sha256);
    end->link_point = -1;
    end->chip = eb_profiles_chip(sh->o->profiles, b->chip);
    if (!end->chip)
        return eb_fail(err, EB_ECONFIG, "no profile for %schip '%s' (see 'espbench profiles')",
                       end->dut ? "peer " : "", b->chip);
    return 0;
}

/* The peer's board, described by the board's peer: (or --peer-*). */
static void peer_board(const eb_run_board *b, eb_run_board *pb)
{
    memset(pb, 0, sizeof *pb);
    snprintf(pb->name, sizeof pb->name, "%s", b->peer.name);
    snprintf(pb->port, sizeof pb->port, "%s", b->peer.port);
    snprintf(pb->chip, sizeof pb->chip, "%s", b->peer.chip);
    snprintf(pb->pc_ip, sizeof pb->pc_ip, "%s", b->pc_ip);
    snprintf(pb->dialect, sizeof pb->dialect, "%s", b->peer.dialect);
    snprintf(pb->fw_sha256, sizeof pb->fw_sha256, "%s", b->peer.fw_sha256);
    snprintf(pb->sim_control, sizeof pb->sim_control, "%s", b->peer.sim_control);
    pb->iperf_port = b->iperf_port;
    pb->sim = b->peer.sim;
    pb->sim_model = b->sim_model;
    pb->sim_link = b->sim_link;
}

int run_end_make_far(board_ctx *bc, eb_error *err)
{
    const run_end_ops *own, *far_ops;
    run_end_rows(bc->b, &own, &far_ops);
    board_ctx *far = calloc(1, sizeof *far);
    if (!far)
        abort();
    far->dut = bc;
    eb_run_board *b = bc->b; /* the PC: the board's address of it */
    if (far_ops != &run_end_pc) {
        peer_board(bc->b, &far->far_board);
        b = &far->far_board;
    }
    int rc = run_end_init(far, bc->sh, b, far_ops, err);
    if (rc) {
        free(far);
        return rc;
    }
    if (far_ops == &run_end_pc)
        far->label = "PC";
    bc->far = far;
    return 0;
}

void run_end_free_far(board_ctx *bc)
{
    free(bc->far);
    bc->far = NULL;
}
