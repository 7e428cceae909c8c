/* espbench run inside the CLI: what its flags leave for after the options
 * are read (cmd_run_flags.c), and the reading itself. */
#ifndef ESPBENCH_CLI_CMD_RUN_H
#define ESPBENCH_CLI_CMD_RUN_H

#include <stdbool.h>

#include "espbench/jobs/run.h"

typedef struct run_args {
    const char *pattern;                        /* --pattern FILE|NAME */
    const char *parallel_count, *parallel_index; /* pytest-embedded's spelling of --shard */
    const char *metrics;                        /* --metrics FILE */
    const char *idf_cache;                      /* --idf-cache DIR */
    char *idf;                                  /* --idf PATH[,PATH...] */
    bool perf_lines;                            /* --performance-lines */
} run_args;

/* Reads argv into rq, o and a: 0, or the exit code after the one line
 * (unknown flag, bad value, the shard of --parallel-*, a bad --stub). */
int run_read_options(int argc, char **argv, eb_run_request *rq, eb_run_opts *o, run_args *a);

#endif
