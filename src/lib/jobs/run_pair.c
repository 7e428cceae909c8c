/* Board to board (pair) tests: two boards test each other with no PC in the
 * data path — the ESP8266 iperf example's "between two ESP8266 running this
 * example", and the UDP client/server write-ups that tune one board against
 * another. The board under test is the client (sender) in the *_tx tests and
 * the server (receiver) in the *_rx tests; its peer takes the other end.
 * Both consoles are driven by the board's thread through their own dialect
 * drivers, both sides' intervals are kept, and the receiver's are the
 * headline as in a test against the PC.
 *
 * Order of a test, as for the PC: the receiver's server first (the real
 * firmware's `iperf -s` returns once its task has the socket; a short wait
 * on its console covers the task start), then the sender's client to the
 * receiver's station address. The receiver's own end is the test's end:
 * in Espressif's iperf component (espressif/iperf-cmd, iperf/iperf.c) a
 * server's timers start at its first datagram and run for -t, and a UDP
 * client sends numbered datagrams only, no end marker. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/clock.h"
#include "espbench/base/version.h"
#include "run_internal.h"

#define PAIR_SERVER_SETTLE_MS 300

/* ------------------------------------------------------------- resolve */

/* The tiers the board will run (its plan), each checked against the peer's chip. */
static int check_peer_tiers(const eb_run_opts *o, const eb_run_board *b, const eb_chip *chip, const eb_chip *pc,
                            eb_run_setup *st, eb_error *err)
{
    eb_run_item *plan = calloc(EB_RUN_MAX_PLAN, sizeof *plan);
    if (!plan)
        abort();
    eb_run_opts chk = *o;
    chk.shard_index = chk.shard_total = 0;
    eb_run_opts_defaults(&chk);
    eb_error perr = {0};
    int np = eb_run_plan(&chk, chip, plan, EB_RUN_MAX_PLAN, &perr);
    int rc = 0;
    for (int i = 0; i < np && i < EB_RUN_MAX_PLAN && !rc; i++) {
        const char *want = eb_run_peer_tier(b, eb_run_item_tier(&plan[i])->name);
        if (eb_chip_tier(pc, want))
            continue;
        char names[512];
        eb_chip_tier_names(pc, names, sizeof names);
        rc = run_bad_request(st, err, "%s%speer %s has no tier '%s' (tiers: %s): pass --peer-tier%s",
                             b->name[0] ? b->name : "", b->name[0] ? ": " : "", pc->name, want, names,
                             b->peer.tier[0] ? " with one of them" : " (or peer: tier: in the lab file)");
    }
    free(plan);
    return rc;
}

static int check_peer(const eb_run_opts *o, eb_run_board *b, eb_run_setup *st, eb_error *err)
{
    const eb_chip *chip = eb_profiles_chip(&st->profiles, b->chip);
    const eb_chip *pc = eb_profiles_chip(&st->profiles, b->peer.chip);
    if (!pc)
        return run_bad_request(st, err, "no profile for peer chip '%s' (see 'espbench profiles')", b->peer.chip);
    if (b->hosted && b->hosted_at[0]) /* a lab board's coprocessor: and peer: */
        return run_bad_request(st, err, "%s: board '%s': a board-to-board test (peer:) takes boards with their own "
                               "radio, not an ESP-Hosted pair: drop coprocessor: or peer:", b->hosted_at, b->name);
    if (b->hosted)
        return run_bad_request(st, err, "a board-to-board test takes boards with their own radio, not an "
                               "ESP-Hosted pair (--coprocessor): drop one of them");
    if (!strcmp(b->peer.port, b->port) && b->port[0])
        return run_bad_request(st, err, "the peer's port is the board's own (%s): the peer is a second board",
                               b->port);
    if (b->peer.tier[0] && !eb_chip_tier(pc, b->peer.tier)) {
        char names[512];
        eb_chip_tier_names(pc, names, sizeof names);
        return run_bad_request(st, err, "--peer-tier '%s': peer %s has no such tier (tiers: %s)", b->peer.tier,
                               pc->name, names);
    }
    if (!b->peer.name[0])
        snprintf(b->peer.name, sizeof b->peer.name, "%.42s%speer", b->name, b->name[0] ? "-" : "");
    return chip ? check_peer_tiers(o, b, chip, pc, st, err) : 0;
}

int run_pair_resolve(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    /* A lab file's --peer-* and --sim's --peer-port: refused by their board
     * sources (run_sources_check); a source that starts its boards' peers
     * needs no peer port, and its ports are one per board. */
    bool asked = rq->peer_port || rq->peer_chip || rq->peer_tier;
    bool own_peers = run_sources_provide(rq, RUN_SRC_OWN_PEERS);
    bool own_ports = run_sources_provide(rq, RUN_SRC_OWN_PORTS);
    if (asked && !rq->peer_port && !own_peers)
        return run_bad_request(st, err, "--peer-chip/--peer-tier need the peer board: pass --peer-port URL");
    if (asked && rq->coprocessor)
        return run_bad_request(st, err, "--peer-* and --coprocessor do not combine: a board-to-board test takes "
                               "two boards with their own radio");
    if (asked) {
        eb_run_peer *p = &o->boards[0].peer;
        snprintf(p->chip, sizeof p->chip, "%s", rq->peer_chip ? rq->peer_chip : o->boards[0].chip);
        if (rq->peer_port)
            snprintf(p->port, sizeof p->port, "%s", rq->peer_port);
        if (rq->peer_tier)
            snprintf(p->tier, sizeof p->tier, "%s", rq->peer_tier);
        if (rq->dialect)
            snprintf(p->dialect, sizeof p->dialect, "%s", rq->dialect);
    }
    for (int i = 0; i < o->n_boards; i++) {
        eb_run_board *b = &o->boards[i];
        if (!b->peer.chip[0])
            continue;
        if (!own_peers && !b->peer.port[0])
            return run_bad_request(st, err, "board '%s': its peer has no port", b->name);
        int rc = check_peer(o, b, st, err);
        if (rc)
            return rc;
        for (int k = 0; k < o->n_boards && !own_ports; k++) { /* one port, one board */
            const eb_run_board *other = &o->boards[k];
            if ((k != i && !strcmp(other->port, b->peer.port)) ||
                (k > i && other->peer.port[0] && !strcmp(other->peer.port, b->peer.port)))
                return run_bad_request(st, err, "the peer of '%s' is on %s, which board '%s' uses too: each board "
                                       "needs a port of its own", b->name, b->peer.port, other->name);
        }
    }
    return 0;
}

/* ------------------------------------------------------------- the peer's part */

static void pair_entry(board_ctx *bc, const eb_run_item *it, eb_entry *e)
{
    board_ctx *p = bc->far;
    eb_provenance *v = eb_entry_prov_mut(e);
    snprintf(v->peer_board, sizeof v->peer_board, "%s", p->b->name);
    snprintf(v->peer_chip, sizeof v->peer_chip, "%s", p->chip->name);
    snprintf(v->peer_tier, sizeof v->peer_tier, "%s", eb_run_peer_tier(bc->b, eb_run_item_tier(it)->name));
    e->ref_mbps = NAN; /* the docs measured against a PC: no published figure for a pair */
    const char *mac = p->ident.mac[0] ? p->ident.mac : p->prov.seen.mac;
    snprintf(v->peer_mac, sizeof v->peer_mac, "%s", mac);
    snprintf(v->peer_ip, sizeof v->peer_ip, "%s", p->wifi.ip);
    const char *idf = p->ident.idf_version[0] ? p->ident.idf_version : p->prov.seen.idf_version;
    snprintf(v->peer_idf_version, sizeof v->peer_idf_version, "%s", idf);
    if (p->drv)
        snprintf(v->peer_dialect, sizeof v->peer_dialect, "%s", p->drv->name);
}

/* ------------------------------------------------------------- the test */

typedef struct pair_side {
    board_ctx *bc;
    eb_board_iperf cfg;
    eb_board_run run;
    unsigned boots;
} pair_side;

typedef struct pair_io {
    board_ctx *bc;         /* the board under test */
    const eb_run_item *it;
    pair_side send, recv;
    uint64_t t0, last_emit_us;
    int seen;
} pair_io;

static void side_init(pair_side *s, board_ctx *bc, const eb_run_item *it, bool sends)
{
    const eb_run_opts *o = bc->sh->o;
    memset(s, 0, sizeof *s);
    s->bc = bc;
    eb_board_run_reset(&s->run);
    s->cfg.board_sends = sends;
    s->cfg.udp = eb_run_test_is_udp(it->test);
    s->cfg.time_s = o->duration_s;
    s->cfg.interval_s = o->interval_s;
    run_iperf_options(bc, s->cfg.options, sizeof s->cfg.options);
    s->boots = eb_console_boot(bc->con)->boots;
}

/* One console line of a side, if one arrives within ms. */
static int pump_side(pair_io *io, pair_side *s, int ms, eb_error *err)
{
    char line[EB_CONSOLE_LINE_MAX];
    int ev = eb_console_next(s->bc->con, line, sizeof line, eb_deadline_in((uint64_t)ms), err);
    if (ev < 0)
        return -ev;
    if (eb_console_boot(s->bc->con)->boots != s->boots)
        return run_rebooted(s->bc, io->it, err);
    if (ev == EB_CON_LINE)
        s->bc->drv->iperf_line(s->bc->drv, &s->cfg, line, &s->run);
    return 0;
}

/* Reads both consoles for up to ms with live progress from the receiver;
 * returns early once the receiver finished or either side failed. */
static int pump(pair_io *io, int ms, eb_error *err)
{
    eb_deadline d = eb_deadline_in((uint64_t)ms);
    while (!eb_deadline_passed(d)) {
        int rc = pump_side(io, &io->recv, 10, err);
        if (!rc)
            rc = pump_side(io, &io->send, 10, err);
        if (rc)
            return rc;
        uint64_t now = eb_now_us();
        int n = io->recv.run.n;
        if (io->t0 && (n > io->seen || now - io->last_emit_us >= 250000)) {
            io->seen = n;
            io->last_emit_us = now;
            run_emit(io->bc, EB_RUN_EV_PROGRESS, io->it, NULL, (double)(now - io->t0) / 1e6,
                     n > 0 ? io->recv.run.iv[n - 1].mbps : NAN, NULL);
        }
        if (run_stopped(io->bc))
            return eb_fail(err, EB_EINTR, "interrupted");
        if (io->recv.run.done || io->recv.run.failed || io->send.run.failed)
            return 0;
    }
    return 0;
}

static int start_ends(pair_io *io, eb_error *err)
{
    pair_side *r = &io->recv, *s = &io->send;
    uint64_t t_setup = eb_now_us();
    int rc = r->bc->drv->iperf_start(r->bc->drv, r->bc->con, &r->cfg, &r->run, eb_deadline_in(EB_RUN_CMD_MS), err);
    if (rc)
        return rc;
    eb_deadline settle = eb_deadline_in(PAIR_SERVER_SETTLE_MS);
    while (!eb_deadline_passed(settle) && !r->run.failed)
        if ((rc = pump_side(io, r, 20, err)) != 0)
            return rc;
    if (r->run.failed)
        return eb_fail(err, EB_EIO, "%s: the receiving board's iperf server failed: %s", r->bc->label, r->run.msg);
    rc = s->bc->drv->iperf_start(s->bc->drv, s->bc->con, &s->cfg, &s->run, eb_deadline_in(EB_RUN_CMD_MS), err);
    if (rc)
        return rc;
    run_step_done(io->bc, EB_STEP_SETUP, t_setup);
    return 0;
}

/* Leaves a side's iperf idle (best effort: the test's outcome is known). */
static void abort_side(pair_side *s)
{
    if (!s->run.started || s->run.done || eb_console_port_failed(s->bc->con))
        return;
    eb_error ignored = {0};
    s->bc->drv->iperf_abort(s->bc->drv, s->bc->con, eb_deadline_in(EB_RUN_CMD_MS), &ignored);
}

static int traffic(pair_io *io, eb_error *err)
{
    const eb_run_opts *o = io->bc->sh->o;
    io->t0 = eb_now_us();
    run_emit(io->bc, EB_RUN_EV_TEST_START, io->it, NULL, 0, NAN, NULL);
    double grace = eb_run_grace_s(o);
    eb_deadline end = eb_deadline_in((uint64_t)((o->duration_s + grace) * 1000));
    int rc = 0;
    while (!io->recv.run.done && !io->recv.run.failed && !io->send.run.failed && !eb_deadline_passed(end))
        if ((rc = pump(io, 100, err)) != 0)
            return rc;
    run_step_done(io->bc, EB_STEP_TRAFFIC, io->t0);
    uint64_t t_down = eb_now_us();
    if (io->send.run.failed)
        return eb_fail(err, EB_EIO, "%s: the sending board's iperf failed: %s", io->send.bc->label, io->send.run.msg);
    if (io->recv.run.failed)
        return eb_fail(err, EB_EIO, "%s: the receiving board's iperf failed: %s", io->recv.bc->label,
                       io->recv.run.msg);
    if (!io->recv.run.done)
        return eb_fail(err, EB_EIO, "%s: the receiving board's iperf was still running %g s after the end of %s "
                       "(stalled?); aborted it", io->recv.bc->label, grace, eb_test_name(io->it->test));
    /* The sender's summary follows the end of its traffic: wait a bounded time. */
    eb_deadline tail = eb_deadline_in((uint64_t)(o->interval_s * 1000) + 1500);
    while (!io->send.run.done && !io->send.run.failed && !eb_deadline_passed(tail))
        if ((rc = pump_side(io, &io->send, 50, err)) != 0)
            return rc;
    run_step_done(io->bc, EB_STEP_TEARDOWN, t_down);
    return 0;
}

int run_pair_test(board_ctx *bc, const eb_run_item *it, eb_entry *e, eb_error *err)
{
    bool tx = eb_run_test_is_tx(it->test);
    pair_io io = {.bc = bc, .it = it};
    board_ctx *sender = tx ? bc : bc->far, *receiver = tx ? bc->far : bc;
    side_init(&io.send, sender, it, true);
    side_init(&io.recv, receiver, it, false);
    snprintf(io.send.cfg.peer, sizeof io.send.cfg.peer, "%s", receiver->wifi.ip);
    snprintf(io.recv.cfg.peer, sizeof io.recv.cfg.peer, "%s", sender->wifi.ip);
    io.send.cfg.port = io.recv.cfg.port = bc->b->iperf_port;
    /* The offered rate follows the same rule as against the PC, from the
     * board under test's side: its plan's (eb_run_plan). */
    io.send.cfg.udp_rate_mbps = io.send.cfg.udp ? it->at[EB_DIM_UDP_RATE] : 0;
    eb_iso8601_utc(e->started);
    int rc = receiver->wifi.ip[0] ? 0
                                  : eb_fail(err, EB_EIO, "%s: the receiving board has no address", receiver->label);
    if (!rc)
        rc = start_ends(&io, err);
    if (!rc)
        rc = traffic(&io, err);
    if (rc) {
        abort_side(&io.send);
        abort_side(&io.recv);
    }
    if (!rc && io.recv.run.n == 0)
        rc = eb_fail(err, EB_EIO, "%s: the receiving board reported no intervals%s%s", receiver->label,
                     io.recv.run.msg[0] ? ": " : "", io.recv.run.msg);
    if (!rc) {
        e->receiver = eb_ivs_view(io.recv.run.iv, io.recv.run.n);
        e->sender = eb_ivs_view(io.send.run.iv, io.send.run.n);
        rc = run_read_memory(bc, it, tx ? io.send.boots : io.recv.boots, e, err);
    }
    if (!rc) {
        pair_entry(bc, it, e);
        rc = run_test_figures(bc, it, e, NULL, err); /* no relayed final: both ends are boards */
    }
    if (rc) {
        e->receiver = e->sender = EB_IVS_EMPTY; /* the views' arrays are their owners' */
    }
    eb_board_run_free(&io.send.run);
    eb_board_run_free(&io.recv.run);
    return rc;
}

/* ------------------------------------------------------------- the peer end */

/* The peer's part of the board's result (the peer is the far end). */
void run_pair_stamp(board_ctx *peer, const eb_run_item *it, run_result *r)
{
    if (r->entry)
        pair_entry(peer->dut, it, r->entry);
}
