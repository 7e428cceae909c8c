/* Placeholder until the traffic engine lands; replaced by its owner. */
#include "vb_traffic.h"

int vb_iperf_start(vb_iperf **out, const vb_iperf_cfg *cfg, vb_iperf_report_fn fn, void *user, eb_error *err)
{
    (void)cfg;
    (void)fn;
    (void)user;
    *out = NULL;
    return eb_fail(err, EB_EIO, "iperf engine not available in this build");
}
bool vb_iperf_running(vb_iperf *ip) { (void)ip; return false; }
void vb_iperf_abort(vb_iperf *ip) { (void)ip; }
void vb_iperf_free(vb_iperf *ip) { (void)ip; }
uint64_t vb_iperf_total_bytes(vb_iperf *ip) { (void)ip; return 0; }
