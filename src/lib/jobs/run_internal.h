/* Private to the run job (run_*.c): the run context shared by the board
 * threads, the board context, and the seams between planner, board loop and
 * test runner.
 *
 *   run_plan.c    what to run: defaults, tier x test x repeat plan, shards, UDP rate
 *   run_resolve.c from flags/lab file to boards: lab filtering, password policy,
 *                 --sim boards, output folder (eb_run_resolve)
 *   run_ctx.c     the run context: progress events, step timing, results store
 *   run_board.c   one board: its port and console, tier (switch or flash), Wi-Fi,
 *                 the plan loop with retries and failure classification
 *   run_test.c    one test: both iperf ends, intervals, memory, figures
 *   run_job.c     eb_run: checks, the PC iperf probe, one thread per board
 *
 * Ownership: a board context owns its port for the whole board; the console
 * session reads from it and the flasher borrows it while a tier image is
 * written. */
#ifndef ESPBENCH_RUN_INTERNAL_H
#define ESPBENCH_RUN_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "espbench/console.h"
#include "espbench/console_driver.h"
#include "espbench/esp_image.h"
#include "espbench/port.h"
#include "espbench/provenance.h"
#include "espbench/run.h"

#define EB_RUN_READY_MS 15000
#define EB_RUN_CMD_MS 10000
#define EB_RUN_WIFI_MS 30000
#define EB_RUN_MAX_PLAN 4096

/* What all board threads share. */
typedef struct run_shared {
    const eb_run_opts *o;
    eb_results results;
    pthread_mutex_t lock; /* results, summary, progress callbacks */
    eb_run_summary *sum;
    char json_path[1024], csv_path[1024];
    char host[64];
    char iperf_version[64];
} run_shared;

/* One board of the run. */
typedef struct board_ctx {
    run_shared *sh;
    eb_run_board *b;
    const eb_chip *chip;
    eb_port *port;         /* owned; the console reads it, the flasher borrows it */
    eb_console *con;
    const eb_console_driver *drv;
    FILE *console_log;
    eb_console_boot_info ident;
    eb_wifi_info wifi;
    const eb_tier *tier;   /* applied and connected with it; NULL = redo */
    char tier_note[256];   /* build-time settings the board runs with other values */
    const char *label;     /* board name for messages */
    char fw_sha256[72];    /* of the application image, when known */
    int index, total;
    eb_error err;
    eb_prov_tracker prov;  /* provenance facts seen on the console */
    int link_point;        /* sweep point whose link the virtual board has; -1 = none set */
    eb_pattern_driver pattern_drv; /* --pattern: the board's driver (drv points here) */
} board_ctx;

/* run_plan.c */
bool eb_run_test_is_tx(int test);
bool eb_run_test_is_udp(int test);

/* run_ctx.c: progress, timing and the results store */
void run_emit(board_ctx *bc, int event, const eb_run_item *it, const char *msg, double elapsed, double mbps,
              const eb_entry *e);
void run_infof(board_ctx *bc, int event, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void run_step_done(board_ctx *bc, int step, uint64_t t0_us);
bool run_stopped(const board_ctx *bc);
const char *run_file_label(const board_ctx *bc);
void run_console_capture(void *user, const char *line);
void run_fill_meta(board_ctx *bc);
void run_entry_base(board_ctx *bc, const eb_run_item *it, eb_entry *e);
int run_record(board_ctx *bc, const eb_entry *e, eb_error *err);
bool run_already_done(board_ctx *bc, const eb_run_item *it);
void run_count(board_ctx *bc, int *field, int n);
/* Saves results.json and results.csv in a stable order; lock held. */
int run_save_locked(run_shared *sh, eb_error *err);

/* run_board.c */
int run_board(board_ctx *bc);

/* run_test.c: one test on a connected board; fills e's intervals and figures. */
int run_test(board_ctx *bc, const eb_run_item *it, eb_entry *e, eb_error *err);

#endif
