/* What a retry cannot mend (run_request.h): the PC's iperf2 that cannot
 * listen because its port is taken fails every attempt alike, so its error
 * is final (EB_KIND_FINAL: the test fails at once) and says which option
 * mends it, as are its arguments or an address it refuses; and the ports
 * are checked before the run. */
#include <stdio.h>
#include <string.h>

#include "espbench/adapters/net_port.h"
#include "espbench/base/str.h"
#include "espbench/formats/iperf_parse.h"
#include "run_internal.h"
#include "run_request.h"

int run_pc_iperf_final(const board_ctx *bc, eb_pc_iperf *p, uint16_t port, int rc, eb_error *err)
{
    if (!rc || !p)
        return rc;
    const eb_iperf_run *run = eb_pc_iperf_run(p);
    if (run && (run->error == EB_IPERR_OPTION || run->error == EB_IPERR_UNKNOWN_HOST)) {
        /* iperf2 refusing its arguments or the address refuses them again. */
        eb_error_kind(err, EB_KIND_FINAL);
        return rc;
    }
    if (!run || run->error != EB_IPERR_BIND)
        return rc;
    char was[256];
    eb_strlcpy(was, err->msg, sizeof was);
    eb_fail(err, rc, "PC iperf could not listen on %s port %u (%s): another program holds the port; pass "
                     "--iperf-port N with a free port",
            bc->b->pc_ip, port, was);
    eb_error_kind(err, EB_KIND_FINAL);
    return rc;
}

int run_pc_ports_precheck(const eb_run_opts *in, eb_run_setup *st, eb_error *err)
{
    eb_run_opts o = *in;
    eb_run_opts_defaults(&o);
    bool tcp = o.tests & (1u << EB_TEST_TCP_TX), udp = o.tests & (1u << EB_TEST_UDP_TX);
    for (int i = 0; i < o.n_boards; i++) {
        const eb_run_board *b = &o.boards[i];
        if (b->peer.chip[0] || b->far_end[0] || !b->pc_ip[0])
            continue; /* board to board, or an end elsewhere: no server on this PC */
        uint16_t port = b->iperf_port ? b->iperf_port : 5001;
        int rc = tcp ? eb_net_port_free(b->pc_ip, port, false, err) : 0;
        if (!rc && udp)
            rc = eb_net_port_free(b->pc_ip, port, true, err);
        if (rc) {
            st->bad_request = false;
            return rc;
        }
    }
    return 0;
}
