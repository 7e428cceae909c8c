/* The PC side of a test: iperf2 run as a child process.
 *
 * Spawned (spawn.h) in its own process group (so a terminal's Ctrl-C reaches
 * only espbench, which then stops it), dying with espbench, its stdout and stderr read
 * through pipes into the iperf2 output collector (iperf_parse.h) and copied
 * to a log file. Every spawned group is registered, so a signal handler can
 * kill them all (eb_iperf_kill_all, async-signal-safe), and every process is
 * reaped on every path. iperf2 exits 0 even when it could not connect:
 * success is decided from its output (eb_iperf_proc_check). */
#ifndef ESPBENCH_IPERF_PROC_H
#define ESPBENCH_IPERF_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "espbench/base/clock.h"
#include "espbench/base/error.h"
#include "espbench/formats/iperf_parse.h"

typedef struct eb_iperf_proc eb_iperf_proc;

/* The program to run: $ESPBENCH_IPERF if set, else "iperf" (searched in PATH). */
const char *eb_iperf_program(void);

/* Runs `PROGRAM -v` and checks it is iperf2 (iperf3, or no iperf at all, gets
 * a clear EB_ECONFIG message naming the fix). */
int eb_iperf_probe(const char *program, eb_iperf_version *v, eb_error *err);

/* Spawns program with args (args[0] is the program name as shown, NULL
 * terminated). Output is appended to log_path when not NULL, after a header
 * line with the command. */
int eb_iperf_spawn(eb_iperf_proc **out, const char *program, const char *const *args,
                   const char *log_path, eb_error *err);

/* Reads output until the deadline or until the process closed both pipes.
 * Returns 1 when the output ended, 0 at the deadline. */
int eb_iperf_pump(eb_iperf_proc *p, eb_deadline d);
/* Pumps until the output ends and reaps the process; at the deadline the
 * process group is stopped (SIGINT, SIGTERM, SIGKILL). Returns the collector
 * status is left to eb_iperf_proc_check(). */
void eb_iperf_wait(eb_iperf_proc *p, eb_deadline d);
/* Stops the process group now (SIGINT first so a server prints what it has,
 * then SIGTERM and SIGKILL), collects the rest of the output and reaps. */
void eb_iperf_stop(eb_iperf_proc *p);

/* The parsed output (call after wait/stop; eb_iperf_finish already applied). */
eb_iperf_run *eb_iperf_proc_run(eb_iperf_proc *p);
/* 0 when the output holds data lines and no failure; else EB_EIO with one
 * line quoting iperf ("PC iperf: tcp connect failed: Connection refused"). */
int eb_iperf_proc_check(eb_iperf_proc *p, eb_error *err);
pid_t eb_iperf_proc_pid(const eb_iperf_proc *p);
bool eb_iperf_proc_running(const eb_iperf_proc *p);
/* Kills (if needed), reaps and frees. NULL is fine. */
void eb_iperf_free(eb_iperf_proc *p);

/* SIGKILL to every live iperf process group. Async-signal-safe. */
void eb_iperf_kill_all(void);

/* True when something listens on ip:port (TCP) or has it bound (UDP),
 * read from /proc/net; used to start the board client only once the PC
 * server is up. Returns -1 when /proc/net cannot be read. */
int eb_net_port_bound(const char *ip, uint16_t port, bool udp);

#endif
