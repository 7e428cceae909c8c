/* Runs a program to its end: argv (no shell between espbench and the paths it
 * passes), extra environment, stdout and stderr appended to a log file, a
 * deadline, and the child's whole process group killed on timeout or stop. */
#ifndef ESPBENCH_PROC_RUN_H
#define ESPBENCH_PROC_RUN_H

#include <signal.h>
#include <stddef.h>

#include "espbench/base/error.h"

typedef struct eb_proc_spec {
    const char *const *argv;   /* argv[0] looked up on PATH; NULL-terminated */
    const char *name;          /* what messages call it; NULL = argv[0] */
    const char *const *env;    /* "NAME=VALUE" set in the child on top of ours; NULL = none */
    const char *cwd;           /* NULL = ours */
    const char *log_path;      /* stdout+stderr appended here (created) */
    int timeout_s;             /* 0 = none */
    volatile sig_atomic_t *stop; /* set: kill the group, EB_EINTR; NULL = none */
} eb_proc_spec;

/* 0 when the program exited 0; *status is its exit status (128+N for signal
 * N). A non-zero exit is EB_EIO "PROGRAM exited with status N"; a timeout
 * EB_EIO "PROGRAM: no end after N s; killed"; stop EB_EINTR. */
int eb_proc_run(const eb_proc_spec *s, int *status, eb_error *err);

/* Runs argv (cwd NULL = ours) and keeps the first cap-1 bytes of its stdout in
 * out (stderr too), trailing newlines cut. Errors as eb_proc_run. */
int eb_proc_output(const char *const *argv, const char *cwd, int timeout_s, char *out, size_t cap,
                   eb_error *err);

#endif
