/* The PC side of a run behind one ops struct, as ports are behind
 * eb_port_ops: the iperf2 processes, ping and the UDP echo probes. The run
 * job calls these only; eb_pc_host() is this computer's programs
 * (iperf_proc.c, ping_proc.c, udp_echo.c), eb_pc_fake_load() a scripted PC
 * for tests (pc_fake.c), so a unit test drives a whole board loop — traffic
 * included — with no process, socket or pty. An end may bring a PC side of
 * its own (run_end_ssh.c: a lab server's programs over SSH). */
#ifndef ESPBENCH_PC_H
#define ESPBENCH_PC_H

#include <stdbool.h>
#include <stdint.h>

#include "espbench/base/clock.h"
#include "espbench/base/error.h"
#include "espbench/formats/iperf_parse.h"
#include "espbench/formats/ping_parse.h"

typedef struct eb_pc eb_pc;
typedef struct eb_pc_iperf eb_pc_iperf;

typedef struct eb_pc_ops {
    const char *name; /* "host", "fake" */
    /* iperf2 -v of program (the version line). */
    int (*iperf_probe)(eb_pc *pc, const char *program, eb_iperf_version *v, eb_error *err);
    /* Starts program with args (args[0] is the program, NULL-terminated),
     * its output appended to log_path (NULL = none) and parsed as it comes. */
    int (*iperf_spawn)(eb_pc *pc, eb_pc_iperf **out, const char *program, const char *const *args,
                       const char *log_path, eb_error *err);
    /* Reads output until the deadline; 1 once the output ended, else 0. */
    int (*iperf_pump)(eb_pc_iperf *p, eb_deadline d);
    /* Waits for the end (up to d), then stops it if still running. */
    void (*iperf_wait)(eb_pc_iperf *p, eb_deadline d);
    /* Stops it (an iperf2 server prints its last lines on SIGINT). */
    void (*iperf_stop)(eb_pc_iperf *p);
    bool (*iperf_running)(const eb_pc_iperf *p);
    eb_iperf_run *(*iperf_run)(eb_pc_iperf *p);
    /* 0 when the run measured something, else the reason (EB_EIO). */
    int (*iperf_check)(eb_pc_iperf *p, eb_error *err);
    void (*iperf_free)(eb_pc_iperf *p);
    /* Whether something listens on ip:port: 1 yes, 0 not yet, -1 cannot tell. */
    int (*port_bound)(eb_pc *pc, const char *ip, uint16_t port, bool udp);
    /* count ICMP echoes (ping's output to log_path) or UDP echo probes. */
    int (*ping)(eb_pc *pc, const char *host, int count, double interval_s, eb_deadline d, const char *log_path,
                eb_ping_result *out, eb_error *err);
    int (*udp_echo)(eb_pc *pc, const char *ip, uint16_t port, int count, double interval_s, eb_deadline d,
                    eb_ping_result *out, eb_error *err);
    void (*free)(eb_pc *pc);
} eb_pc_ops;

struct eb_pc {
    const eb_pc_ops *ops;
    void *impl;
};

/* One iperf2 process (or its stand-in). */
struct eb_pc_iperf {
    const eb_pc_ops *ops;
    void *impl;
};

/* This computer: a static PC that needs no free. */
eb_pc *eb_pc_host(void);

/* A scripted PC (pc_fake.c): path is a script file, see there. */
int eb_pc_fake_load(eb_pc **out, const char *path, eb_error *err);
/* How many iperf processes a fake PC started (for tests). */
int eb_pc_fake_spawns(const eb_pc *pc);

void eb_pc_free(eb_pc *pc);

static inline int eb_pc_iperf_pump(eb_pc_iperf *p, eb_deadline d) { return p->ops->iperf_pump(p, d); }
static inline void eb_pc_iperf_wait(eb_pc_iperf *p, eb_deadline d) { p->ops->iperf_wait(p, d); }
static inline void eb_pc_iperf_stop(eb_pc_iperf *p) { p->ops->iperf_stop(p); }
static inline bool eb_pc_iperf_running(const eb_pc_iperf *p) { return p->ops->iperf_running(p); }
static inline eb_iperf_run *eb_pc_iperf_run(eb_pc_iperf *p) { return p->ops->iperf_run(p); }
static inline int eb_pc_iperf_check(eb_pc_iperf *p, eb_error *err) { return p->ops->iperf_check(p, err); }
static inline void eb_pc_iperf_free(eb_pc_iperf *p)
{
    if (p)
        p->ops->iperf_free(p);
}

#endif
