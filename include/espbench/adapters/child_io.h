/* A child process's output read to a deadline: the one read loop of every
 * program espbench runs and reads as it goes — the PC's iperf2
 * (iperf_proc.c) and the programs it runs on a remote host over SSH
 * (ssh_proc.c). Its stdout and stderr are two pipes; what comes is handed
 * to a sink as it arrives, and no read waits past the caller's deadline. */
#ifndef ESPBENCH_CHILD_IO_H
#define ESPBENCH_CHILD_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "espbench/base/clock.h"

/* which: 0 stdout, 1 stderr. */
typedef void (*eb_child_sink)(void *ctx, int which, const char *buf, size_t n);

typedef struct eb_child_out {
    int fd[2]; /* stdout, stderr read ends; -1 once ended (or never opened) */
    eb_child_sink sink;
    void *ctx;
} eb_child_out;

/* Reads both pipes into the sink until both have ended (1) or the deadline
 * (0; what is ready then is still read, so a passed deadline drains once). */
int eb_child_pump(eb_child_out *c, eb_deadline d);
/* Closes what is still open. */
void eb_child_out_close(eb_child_out *c);

/* A child in its own process group, and its output. */
typedef struct eb_child {
    pid_t pid; /* also its process group; <= 0: never started */
    bool reaped;
    int status; /* as waitpid gives it */
    eb_child_out out;
    FILE *log; /* where the sink copies the output; NULL = none */
} eb_child;

/* eb_child_pump, and the log flushed. */
int eb_child_read(eb_child *c, eb_deadline d);
/* Its pipes and its log closed. */
void eb_child_close(eb_child *c);

/* Reaps it within wait_ms: true once reaped, and then SIGKILL to its
 * process group (anything it left behind). */
bool eb_child_reap(eb_child *c, int wait_ms);
/* Reads its output to the end (up to d) and reaps it (2 s): true when it
 * is done, false when it still runs (the caller stops it). */
bool eb_child_wait(eb_child *c, eb_deadline d);

/* One step of a stop: sig to its group (0: none), its output read for
 * read_ms, then reaped within reap_ms. */
typedef struct eb_child_step {
    int sig, read_ms, reap_ms;
} eb_child_step;
/* The steps in turn until it is reaped, then waits for it: reaped on
 * every path. */
void eb_child_stop(eb_child *c, const eb_child_step *steps, size_t n);

#endif
