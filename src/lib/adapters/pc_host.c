/* The PC side on this computer (pc.h): iperf2 processes (iperf_proc.c), the
 * system ping (ping_proc.c) and UDP echo probes (udp_echo.c). */
#include <stdlib.h>

#include "espbench/adapters/iperf_proc.h"
#include "espbench/adapters/pc.h"
#include "espbench/adapters/ping_proc.h"
#include "espbench/adapters/udp_echo.h"

static eb_iperf_proc *proc_of(const eb_pc_iperf *p) { return p->impl; }

static int host_probe(eb_pc *pc, const char *program, eb_iperf_version *v, eb_error *err)
{
    (void)pc;
    return eb_iperf_probe(program, v, err);
}

static const eb_pc_ops host_ops;

static int host_spawn(eb_pc *pc, eb_pc_iperf **out, const char *program, const char *const *args,
                      const char *log_path, eb_error *err)
{
    (void)pc;
    eb_iperf_proc *proc = NULL;
    int rc = eb_iperf_spawn(&proc, program, args, log_path, err);
    if (rc)
        return rc;
    eb_pc_iperf *p = malloc(sizeof *p);
    if (!p)
        abort();
    *p = (eb_pc_iperf){.ops = &host_ops, .impl = proc};
    *out = p;
    return 0;
}

static int host_pump(eb_pc_iperf *p, eb_deadline d) { return eb_iperf_pump(proc_of(p), d); }
static void host_wait(eb_pc_iperf *p, eb_deadline d) { eb_iperf_wait(proc_of(p), d); }
static void host_stop(eb_pc_iperf *p) { eb_iperf_stop(proc_of(p)); }
static bool host_running(const eb_pc_iperf *p) { return eb_iperf_proc_running(proc_of(p)); }
static eb_iperf_run *host_run(eb_pc_iperf *p) { return eb_iperf_proc_run(proc_of(p)); }
static int host_check(eb_pc_iperf *p, eb_error *err) { return eb_iperf_proc_check(proc_of(p), err); }

static void host_free(eb_pc_iperf *p)
{
    eb_iperf_free(proc_of(p));
    free(p);
}

static int host_bound(eb_pc *pc, const char *ip, uint16_t port, bool udp)
{
    (void)pc;
    return eb_net_port_bound(ip, port, udp);
}

static int host_ping(eb_pc *pc, const char *host, int count, double interval_s, eb_deadline d, const char *log_path,
                     eb_ping_result *out, eb_error *err)
{
    (void)pc;
    return eb_ping_run(host, count, interval_s, d, log_path, out, err);
}

static int host_echo(eb_pc *pc, const char *ip, uint16_t port, int count, double interval_s, eb_deadline d,
                     eb_ping_result *out, eb_error *err)
{
    (void)pc;
    return eb_udp_echo_run(ip, port, count, interval_s, d, out, err);
}

static void host_pc_free(eb_pc *pc) { (void)pc; /* static */ }

static const eb_pc_ops host_ops = {
    .name = "host", .iperf_probe = host_probe, .iperf_spawn = host_spawn, .iperf_pump = host_pump,
    .iperf_wait = host_wait, .iperf_stop = host_stop, .iperf_running = host_running, .iperf_run = host_run,
    .iperf_check = host_check, .iperf_free = host_free, .port_bound = host_bound, .ping = host_ping,
    .udp_echo = host_echo, .free = host_pc_free,
};

eb_pc *eb_pc_host(void)
{
    static eb_pc host = {.ops = &host_ops, .impl = NULL};
    return &host;
}

void eb_pc_free(eb_pc *pc)
{
    if (pc)
        pc->ops->free(pc);
}
