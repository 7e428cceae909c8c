/* run --pattern: the checks that make a pattern file drive a run (run.h). */
#include <stdio.h>

#include "espbench/formats/pattern.h"
#include "espbench/jobs/run.h"

int eb_run_apply_pattern(eb_run_opts *o, const eb_pattern *p, eb_error *err)
{
    if (!p->has_commands)
        return eb_fail(err, EB_ECONFIG,
                       "--pattern %s: the pattern has no commands: block, so `run` cannot start a test on the board; "
                       "add one (espbench-patterns(5)) or capture the log and use `espbench parse --pattern`",
                       p->path);
    unsigned mine = p->udp ? (1u << EB_TEST_UDP_TX | 1u << EB_TEST_UDP_RX)
                           : (1u << EB_TEST_TCP_TX | 1u << EB_TEST_TCP_RX);
    unsigned other = ((1u << EB_TEST_COUNT) - 1) & ~mine;
    if (o->tests & other)
        return eb_fail(err, EB_ECONFIG, "--pattern %s: pattern '%s' measures %s only; pass --tests %s", p->path,
                       p->name, p->udp ? "UDP" : "TCP", p->udp ? "udp_tx,udp_rx" : "tcp_tx,tcp_rx");
    if (!o->tests)
        o->tests = mine;
    o->pattern = p;
    return 0;
}
