/* run --pattern: every board runs a firmware of its own, described by a
 * pattern file: the checks that make the file drive a run (run.h), and the
 * pattern's console driver for a board. */
#include <stdio.h>

#include "espbench/formats/pattern.h"
#include "espbench/jobs/run.h"
#include "run_internal.h"

int eb_run_apply_pattern(eb_run_opts *o, const eb_pattern *p, eb_error *err)
{
    if (!p->has_commands)
        return eb_fail(err, EB_ECONFIG,
                       "--pattern %s: the pattern has no commands: block, so `run` cannot start a test on the board; "
                       "add one (espbench-patterns(5)) or capture the log and use `espbench parse --pattern`",
                       p->path);
    unsigned mine = p->udp ? (1u << EB_TEST_UDP_TX | 1u << EB_TEST_UDP_RX)
                           : (1u << EB_TEST_TCP_TX | 1u << EB_TEST_TCP_RX);
    unsigned other = EB_RUN_THROUGHPUT_TESTS & ~mine;
    if (o->tests & other)
        return eb_fail(err, EB_ECONFIG, "--pattern %s: pattern '%s' measures %s only; pass --tests %s", p->path,
                       p->name, p->udp ? "UDP" : "TCP", p->udp ? "udp_tx,udp_rx" : "tcp_tx,tcp_rx");
    if (!o->tests)
        o->tests = mine;
    o->pattern = p;
    return 0;
}

int eb_run_use_pattern(const eb_run_request *rq, eb_run_opts *o, const eb_pattern *p, bool *usage, eb_error *err)
{
    int rc = run_sources_refused(rq, RUN_OPT(PATTERN), err); /* a source whose firmware has no pattern (--sim) */
    *usage = rc || rq->dialect;
    if (rc)
        return rc;
    if (rq->dialect)
        return eb_fail(err, EB_ECONFIG, "--pattern and --dialect: give one (the pattern is the dialect)");
    return p ? eb_run_apply_pattern(o, p, err) : 0;
}

/* ------------------------------------------------------------ the driver */

/* The board (and a peer, which speaks as its board) talks through the
 * pattern's driver instead of a built-in dialect's (run_steps.c's driver
 * table). */
const eb_console_driver *run_pattern_driver(board_ctx *bc)
{
    eb_pattern_driver_init(&bc->pattern_drv, bc->sh->o->pattern);
    return &bc->pattern_drv.drv;
}
