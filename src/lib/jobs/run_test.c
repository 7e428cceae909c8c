/* The measuring pieces of the run job. One throughput test against the PC
 * on a connected board (the PC end's, run_ends.c): starts both iperf ends (the PC's iperf2 and
 * the board's through its dialect driver), pumps both sides' output with
 * live progress, reads free memory, and computes the entry's figures with
 * the rule parse uses too (eb_entry_figures). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/clock.h"
#include "espbench/adapters/iperf_proc.h"
#include "espbench/formats/model.h"
#include "run_internal.h"
#include "run_request.h"

typedef struct test_io {
    board_ctx *bc;
    const eb_run_item *it;
    eb_board_iperf cfg;
    eb_board_run run;
    eb_pc_iperf *pc;
    unsigned boots;
    uint64_t t0;           /* traffic start; 0 before */
    uint64_t last_emit_us;
    int seen;
    /* iperf2 arguments */
    const char *prog;
    char logp[1200], port_s[16], t_s[32], i_s[32], rate_s[32], srv_t[32];
    char opt_s[EB_DIM_MAX][16]; /* the PC end's iperf settings (run_iperf.c) */
} test_io;

static double last_mbps(const eb_interval *iv, int n)
{
    return n > 0 ? iv[n - 1].mbps : NAN;
}

/* The latest non-final PC data line, for live progress. */
static double pc_last_mbps(eb_pc_iperf *p, int *count)
{
    eb_iperf_run *r = eb_pc_iperf_run(p);
    int n = 0;
    double v = NAN;
    for (int i = 0; i < r->n_samples; i++) {
        if (r->samples[i].final || r->samples[i].server_report || r->samples[i].sum)
            continue;
        n++;
        v = r->samples[i].iv.mbps;
    }
    *count = n;
    return v;
}

int run_rebooted(board_ctx *bc, const eb_run_item *it, eb_error *err)
{
    return eb_fail(err, EB_EIO, "%s: the board rebooted during %s (%s)", bc->label, eb_test_name(it->test),
                   eb_console_boot(bc->cons->con)->reset_reason),
           eb_error_kind(err, EB_KIND_REBOOT);
}

static int rebooted(test_io *io, eb_error *err)
{
    return run_rebooted(io->bc, io->it, err);
}

/* Live progress on each new receiver interval, and at least every 250 ms so
 * that the elapsed time ticks on a terminal. */
static void progress(test_io *io)
{
    int n;
    double v;
    if (io->cfg.board_sends) {
        v = pc_last_mbps(io->pc, &n);
    } else {
        n = io->run.n;
        v = last_mbps(io->run.iv, io->run.n);
    }
    uint64_t now = eb_now_us();
    if (io->t0 && (n > io->seen || now - io->last_emit_us >= 250000)) {
        io->seen = n;
        io->last_emit_us = now;
        run_emit(io->bc, EB_RUN_EV_PROGRESS, io->it, NULL, (double)(now - io->t0) / 1e6, v, NULL);
    }
}

static int pump_reboot(void *u, eb_error *err)
{
    return rebooted(u, err);
}

/* One board event (or a quiet 20 ms) while a test runs: the board's line,
 * the PC's output, progress; done as soon as something the caller waits for
 * happened. */
static int pump_event(void *u, int ev, const char *line, eb_error *err)
{
    test_io *io = u;
    board_ctx *bc = io->bc;
    if (ev == EB_CON_LINE)
        bc->cons->drv->iperf_line(bc->cons->drv, &io->cfg, line, &io->run);
    bool pc_ended = false;
    if (io->pc && eb_pc_iperf_running(io->pc))
        pc_ended = eb_pc_iperf_pump(io->pc, eb_deadline_in(0)) == 1;
    progress(io);
    if (run_stopped(bc))
        return eb_fail(err, EB_EINTR, "interrupted");
    return io->run.done || io->run.failed || pc_ended ? EB_CON_DONE : 0;
}

/* Reads board lines and PC output for up to ms; returns 0, or an error
 * (EB_EINTR stop, EB_EIO port gone or reboot). */
static int pump(test_io *io, int ms, eb_error *err)
{
    eb_console_wait w = {.boots = io->boots, .on_event = pump_event, .on_reboot = pump_reboot, .u = io, .slice_ms = 20};
    return eb_console_wait_for(io->bc->cons->con, &w, eb_deadline_in((uint64_t)ms), err);
}

static void io_init(test_io *io, board_ctx *bc, const eb_run_item *it)
{
    const eb_run_opts *o = bc->sh->o;
    memset(io, 0, sizeof *io);
    io->bc = bc;
    io->it = it;
    eb_board_run_reset(&io->run);
    io->cfg.board_sends = eb_run_test_is_tx(it->test);
    io->cfg.udp = eb_run_test_is_udp(it->test);
    /* behind an emulator's NAT the board reaches the PC at another address */
    snprintf(io->cfg.peer, sizeof io->cfg.peer, "%s", bc->b->nat_pc_ip[0] ? bc->b->nat_pc_ip : bc->b->pc_ip);
    io->cfg.port = bc->b->iperf_port;
    io->cfg.time_s = o->duration_s;
    io->cfg.interval_s = o->interval_s;
    io->cfg.udp_rate_mbps = io->cfg.udp ? it->at[EB_DIM_UDP_RATE] : 0; /* the plan's (eb_run_plan) */
    run_iperf_options(bc, io->cfg.options, sizeof io->cfg.options);
    io->boots = eb_console_boot(bc->cons->con)->boots;
    io->prog = o->iperf ? o->iperf : eb_iperf_program();
    char tag[200]; /* one log per item: tier, test, sweep point, repeat */
    run_dims_tag(o, it, eb_test_name(it->test), tag, sizeof tag);
    snprintf(io->logp, sizeof io->logp, "%s/iperf-%s%s.log", o->out_dir, run_file_label(bc), tag);
    snprintf(io->port_s, sizeof io->port_s, "%u", io->cfg.port);
    snprintf(io->t_s, sizeof io->t_s, "%g", o->duration_s);
    snprintf(io->i_s, sizeof io->i_s, "%g", o->interval_s);
    snprintf(io->rate_s, sizeof io->rate_s, "%gm", io->cfg.udp_rate_mbps);
    /* The PC server ends by itself even if espbench is killed. */
    snprintf(io->srv_t, sizeof io->srv_t, "%g", o->duration_s + 30);
}

/* How long the board may take to end its iperf after an abort: the
 * engine's next 1 s tick (espressif/iperf-cmd iperf_force_stop), but a
 * server still waiting for its client only when its accept (5 s) or
 * receive (CONFIG_IPERF_DEF_SOCKET_RX_TIMEOUT, 10 s) times out: the run's
 * allowance for a stalled iperf and 5 s more (12 s at -i 1; an emulated
 * chip's allowance is its slower clock's). */
static uint64_t stop_ms(const board_ctx *bc) { return (uint64_t)((eb_run_grace_s(bc->sh->o) + 5) * 1000); }

/* The board's iperf did not end (what: after an abort, or from before):
 * the firmware answers BUSY to the next iperf until it restarts. The point
 * fails with that line, and the board is reset so the points after it run;
 * a board that cannot be reset from here ends (EB_KIND_BOARD). */
static int iperf_stuck(test_io *io, const char *what, const char *why, eb_error *err)
{
    board_ctx *bc = io->bc;
    char how[64];
    eb_error rerr = {0};
    int rc = run_board_reset(bc, how, sizeof how, &rerr);
    if (rc) {
        eb_fail(err, EB_EIO, "%s: the board's iperf %s (%s): reset the board (EN or power) and rerun with "
                "--resume; espbench could not: %s", bc->label, what, why, rerr.msg);
        eb_error_kind(err, EB_KIND_BOARD);
    } else {
        eb_fail(err, EB_EIO, "%s: the board's iperf %s (%s): the board was reset (%s) for the next test",
                bc->label, what, why, how);
    }
    return EB_EIO;
}

/* Aborts the board's iperf and waits for its end (a dialect without an end
 * line: the abort alone). 0 when it ended; else the point fails (iperf_stuck). */
static int stop_board_iperf(test_io *io, eb_error *err)
{
    board_ctx *bc = io->bc;
    if (!bc->cons->drv->iperf_stop || io->run.done) {
        eb_error ignored = {0};
        if (!io->run.done)
            bc->cons->drv->iperf_abort(bc->cons->drv, bc->cons->con, eb_deadline_in(EB_RUN_CMD_MS), &ignored);
        return 0;
    }
    int rc = bc->cons->drv->iperf_stop(bc->cons->drv, bc->cons->con, &io->cfg, &io->run, eb_deadline_in(stop_ms(bc)), err);
    if (rc && (rc == EB_EINTR || eb_console_port_failed(bc->cons->con)))
        return rc;
    if (!rc && io->run.done)
        return 0;
    char why[EB_ERROR_MSG_MAX / 2];
    if (rc)
        snprintf(why, sizeof why, "%.*s", (int)sizeof why - 1, err->msg);
    else
        snprintf(why, sizeof why, "no iperf.done within %g s; it answers BUSY until a reset",
                 (double)stop_ms(bc) / 1000);
    return iperf_stuck(io, "did not stop after iperf --abort", why, err);
}

/* A board whose iperf answers BUSY at a start: a test before it did not end. */
static int start_refused(test_io *io, int rc, eb_error *err)
{
    if (rc && strstr(err->msg, ": BUSY: "))
        return iperf_stuck(io, "was still running from before", "it answered BUSY to a new iperf", err);
    return rc;
}

/* Starts the PC iperf2 server and waits until it listens. */
static int start_pc_server(test_io *io, eb_error *err)
{
    board_ctx *bc = io->bc;
    const char *args[40];
    int n = 0;
    args[n++] = io->prog;
    args[n++] = "-s";
    if (io->cfg.udp)
        args[n++] = "-u";
    const char *rest[] = {"-B", bc->b->pc_ip, "-p", io->port_s, "-i", io->i_s, "-y", "C", "-t", io->srv_t};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        args[n++] = rest[i];
    n += run_iperf_argv(bc->far, args + n, io->opt_s, 38 - n);
    args[n] = NULL;
    int rc = run_far_pc(io->bc)->ops->iperf_spawn(run_far_pc(io->bc), &io->pc, io->prog, args, io->logp, err);
    if (rc)
        return rc;
    /* Start the board client only once the PC server listens. */
    eb_deadline ld = eb_deadline_in(3000);
    eb_pc *pc = run_far_pc(bc);
    int b;
    while ((b = pc->ops->port_bound(pc, bc->b->pc_ip, io->cfg.port, io->cfg.udp)) == 0 && !eb_deadline_passed(ld)) {
        eb_pc_iperf_pump(io->pc, eb_deadline_in(20));
        if (!eb_pc_iperf_running(io->pc))
            break;
    }
    if (b < 0)
        eb_sleep_ms(300);
    if (b == 0) {
        eb_pc_iperf_stop(io->pc);
        rc = run_pc_iperf_final(bc, io->pc, io->cfg.port, eb_pc_iperf_check(io->pc, err), err);
        if (!rc)
            rc = eb_fail(err, EB_EIO, "PC iperf server did not listen on %s port %u", bc->b->pc_ip, io->cfg.port);
    }
    return rc;
}

/* TX tests: the board's client sends to the PC's server. */
static int board_sends(test_io *io, eb_entry *e, const eb_interval **udp_final, eb_error *err)
{
    board_ctx *bc = io->bc;
    const eb_run_opts *o = bc->sh->o;
    uint64_t t_setup = eb_now_us();
    int rc = start_pc_server(io, err);
    if (!rc)
        rc = start_refused(io, bc->cons->drv->iperf_start(bc->cons->drv, bc->cons->con, &io->cfg, &io->run,
                                                    eb_deadline_in(EB_RUN_CMD_MS), err), err);
    if (rc)
        return rc;
    run_step_done(bc, EB_STEP_SETUP, t_setup);
    io->t0 = eb_now_us();
    atomic_store(&io->bc->traffic_on, true);
    run_emit(bc, EB_RUN_EV_TEST_START, io->it, NULL, 0, NAN, NULL);
    eb_deadline end = eb_deadline_in((uint64_t)((o->duration_s + eb_run_grace_s(o)) * 1000));
    while (!io->run.done && !io->run.failed && !eb_deadline_passed(end))
        if ((rc = pump(io, 100, err)) != 0)
            return rc;
    run_step_done(bc, EB_STEP_TRAFFIC, io->t0);
    uint64_t t_down = eb_now_us();
    if (io->run.failed)
        return eb_fail(err, EB_EIO, "%s: board iperf failed: %s", bc->label, io->run.msg);
    if (!io->run.done) {
        if ((rc = stop_board_iperf(io, err)) != 0)
            return rc;
        return eb_fail(err, EB_EIO, "%s: the board's iperf was still running %g s after the end of %s "
                       "(stalled?); aborted it", bc->label, eb_run_grace_s(o), eb_test_name(io->it->test));
    }
    /* The server's last interval lines follow the end of the traffic:
     * wait until it printed as many as the board did (or a bounded time). */
    eb_deadline tail = eb_deadline_in((uint64_t)(o->interval_s * 1000) + 1500);
    for (;;) {
        int pc_n;
        pc_last_mbps(io->pc, &pc_n);
        if (pc_n >= io->run.n || eb_deadline_passed(tail) || eb_pc_iperf_pump(io->pc, eb_deadline_in(20)) == 1)
            break;
    }
    eb_pc_iperf_stop(io->pc);
    if ((rc = run_pc_iperf_final(io->bc, io->pc, io->cfg.port, eb_pc_iperf_check(io->pc, err), err)) != 0)
        return rc;
    eb_iperf_run *r = eb_pc_iperf_run(io->pc);
    e->receiver = eb_ivs_view(r->intervals, r->n_intervals);
    e->sender = eb_ivs_view(io->run.iv, io->run.n);
    /* the PC server's whole-test line, as parse reads it from the PC log */
    *udp_final = r->has_final && r->final.total > 0 ? &r->final : NULL;
    run_step_done(bc, EB_STEP_TEARDOWN, t_down);
    return 0;
}

static int start_pc_client(test_io *io, eb_error *err)
{
    const char *args[44];
    int n = 0;
    args[n++] = io->prog;
    args[n++] = "-c";
    args[n++] = io->bc->b->nat_board_ip[0] ? io->bc->b->nat_board_ip : io->bc->cons->wifi.ip;
    args[n++] = "-p";
    args[n++] = io->port_s;
    if (io->cfg.udp) {
        args[n++] = "-u";
        args[n++] = "-b";
        args[n++] = io->rate_s;
    }
    const char *rest[] = {"-t", io->t_s, "-i", io->i_s, "-f", "b"};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        args[n++] = rest[i];
    n += run_iperf_argv(io->bc->far, args + n, io->opt_s, 42 - n);
    args[n] = NULL;
    return run_far_pc(io->bc)->ops->iperf_spawn(run_far_pc(io->bc), &io->pc, io->prog, args, io->logp, err);
}

/* RX tests: the PC's client sends to the board's server. */
static int board_receives(test_io *io, eb_entry *e, const eb_interval **udp_final, eb_error *err)
{
    board_ctx *bc = io->bc;
    const eb_run_opts *o = bc->sh->o;
    uint64_t t_setup = eb_now_us();
    int rc = start_refused(io, bc->cons->drv->iperf_start(bc->cons->drv, bc->cons->con, &io->cfg, &io->run,
                                                    eb_deadline_in(EB_RUN_CMD_MS), err), err);
    if (!rc)
        rc = start_pc_client(io, err);
    if (rc)
        return rc;
    run_step_done(bc, EB_STEP_SETUP, t_setup);
    io->t0 = eb_now_us();
    atomic_store(&io->bc->traffic_on, true);
    run_emit(bc, EB_RUN_EV_TEST_START, io->it, NULL, 0, NAN, NULL);
    eb_deadline end = eb_deadline_in((uint64_t)((o->duration_s + eb_run_grace_s(o)) * 1000));
    while (eb_pc_iperf_running(io->pc) && !eb_deadline_passed(end)) {
        if ((rc = pump(io, 100, err)) != 0)
            return rc;
        if (eb_pc_iperf_pump(io->pc, eb_deadline_in(0)) == 1) {
            eb_pc_iperf_wait(io->pc, eb_deadline_in(2000));
            break;
        }
    }
    run_step_done(bc, EB_STEP_TRAFFIC, io->t0);
    uint64_t t_down = eb_now_us();
    if (eb_pc_iperf_running(io->pc))
        eb_pc_iperf_stop(io->pc);
    else
        eb_pc_iperf_wait(io->pc, eb_deadline_in(100));
    /* The board prints its last interval and summary after the client ends. */
    eb_deadline bd = eb_deadline_in((uint64_t)(o->interval_s * 1000 + 3000));
    while (!io->run.done && !io->run.failed && !eb_deadline_passed(bd))
        if ((rc = pump(io, 100, err)) != 0)
            return rc;
    if (!io->run.done && (rc = stop_board_iperf(io, err)) != 0)
        return rc;
    if ((rc = run_pc_iperf_final(io->bc, io->pc, io->cfg.port, eb_pc_iperf_check(io->pc, err), err)) != 0)
        return rc;
    if (io->run.n == 0)
        return eb_fail(err, EB_EIO, "%s: the board reported no intervals%s%s", bc->label, io->run.msg[0] ? ": " : "",
                       io->run.msg);
    eb_iperf_run *r = eb_pc_iperf_run(io->pc);
    e->receiver = eb_ivs_view(io->run.iv, io->run.n);
    e->sender = eb_ivs_view(r->intervals, r->n_intervals);
    /* The board's final relayed to the PC client, as parse reads it from the PC log. */
    *udp_final = r->has_server_report ? &r->server_report : NULL;
    run_step_done(bc, EB_STEP_TEARDOWN, t_down);
    return 0;
}

int run_read_memory(board_ctx *bc, const eb_run_item *it, unsigned boots, eb_entry *e, eb_error *err)
{
    uint64_t t_mem = eb_now_us();
    eb_mem_info m = {-1, -1, -1};
    /* A board whose fixture says it has no memory figure to show (a
     * virtual board of a chip the docs give none for): the entry's memory
     * stays unknown (the query still runs: it tells a reboot). */
    bool known = !bc->memory_unknown;
    if (bc->cons->drv->memory(bc->cons->drv, bc->cons->con, &m, eb_deadline_in(EB_RUN_CMD_MS), err) == 0) {
        if (!known)
            m = (eb_mem_info){-1, -1, -1};
        e->free_heap = m.free_internal;
        e->min_free_heap = m.min_free_internal;
        e->largest_block = m.largest_block;
    } else if (eb_console_port_failed(bc->cons->con) || run_stopped(bc)) {
        return err->code ? err->code : EB_EIO;
    } else {
        run_infof(bc, EB_RUN_EV_WARN, "%s: free memory unknown: %s", bc->label, err->msg);
        eb_error_clear(err);
    }
    if (eb_console_boot(bc->cons->con)->boots != boots)
        return run_rebooted(bc, it, err);
    run_step_done(bc, EB_STEP_MEMORY, t_mem);
    return 0;
}

int run_test_figures(board_ctx *bc, const eb_run_item *it, eb_entry *e, const eb_interval *udp_final, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    /* A receiver that went quiet before the end (a stalled board, a dropped
     * link) measured part of the test only: that is a failure, not a figure. */
    char why[160];
    if (!eb_intervals_cover(&e->receiver, o->duration_s, o->interval_s, "receiver", e->test, why,
                            sizeof why))
        return eb_fail(err, EB_EIO, "%s: %s", bc->label, why);
    eb_entry_figures(e, udp_final);
    if (e->rx_stats.n == 0)
        return eb_fail(err, EB_EIO, "%s: no steady receiver interval in %s (%d intervals, warm-up %g s): "
                       "lengthen --duration", bc->label, eb_test_name(it->test), e->receiver.n, o->warmup_s);
    eb_iso8601_utc(e->finished);
    eb_entry_own_intervals(e); /* the sources die with io */
    return 0;
}

int run_test(board_ctx *bc, const eb_run_item *it, eb_entry *e, eb_error *err)
{
    test_io io;
    io_init(&io, bc, it);
    const eb_interval *udp_final = NULL;
    eb_iso8601_utc(e->started);
    int rc = io.cfg.board_sends ? board_sends(&io, e, &udp_final, err) : board_receives(&io, e, &udp_final, err);
    if (!rc)
        rc = run_read_memory(bc, it, io.boots, e, err);
    if (!rc)
        rc = run_test_figures(bc, it, e, udp_final, err);
    if (rc == EB_EINTR && io.run.started && !io.run.done && !eb_console_port_failed(bc->cons->con)) {
        /* Leave the board idle for the next run (the reply is not awaited:
         * the console reads are already cut short by the stop flag). */
        eb_error ignored;
        bc->cons->drv->iperf_abort(bc->cons->drv, bc->cons->con, eb_deadline_in(200), &ignored);
    }
    if (rc) {
        e->receiver = e->sender = EB_IVS_EMPTY; /* the views' arrays are their owners' */
    }
    eb_pc_iperf_free(io.pc);
    eb_board_run_free(&io.run);
    return rc;
}
