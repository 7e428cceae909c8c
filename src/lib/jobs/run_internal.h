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

#include "espbench/protocols/console.h"
#include "espbench/protocols/console_driver.h"
#include "espbench/formats/esp_image.h"
#include "espbench/adapters/pc.h"
#include "espbench/adapters/port.h"
#include "espbench/formats/provenance.h"
#include "espbench/jobs/run.h"

#define EB_RUN_READY_MS 15000
#define EB_RUN_CMD_MS 10000
#define EB_RUN_WIFI_MS 30000
#define EB_RUN_MAX_PLAN 4096

/* --aggregate: the boards meet before each test (run_aggregate.c). */
typedef struct run_meet {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int members;   /* boards still running their plan */
    int arrived;   /* at the open meeting */
    int gen;       /* meetings closed so far */
    int met;       /* how many boards the last closed meeting had */
} run_meet;

/* What all board threads share. */
typedef struct run_shared {
    const eb_run_opts *o;
    eb_pc *pc;            /* o->pc, or this computer's */
    eb_results results;
    pthread_mutex_t lock; /* results, summary, progress callbacks */
    eb_run_summary *sum;
    char json_path[1024], csv_path[1024];
    char host[64];
    char iperf_version[64];
    run_meet meet;
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
    int concurrent;        /* --aggregate: boards that started the current test together; 0 = no aggregate */
    eb_pattern_driver pattern_drv; /* --pattern: the board's driver (drv points here) */
    /* Board to board: the peer's context (owned, NULL = tests against the
     * PC) and the board it describes (made from b->peer). */
    struct board_ctx *peer;
    eb_run_board peer_board;
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
/* Whether board/chip finished the item (status ok) in the results so far. */
bool run_item_done(run_shared *sh, const eb_run_board *b, const char *chip, const eb_run_item *it);
void run_count(board_ctx *bc, int *field, int n);
/* Saves results.json and results.csv in a stable order; lock held. */
int run_save_locked(run_shared *sh, eb_error *err);

/* run_aggregate.c: --aggregate. check: every board has the same plan
 * length (else EB_ECONFIG); wait: meets the other boards before a test and
 * returns how many started it together (a board missing the wait's deadline
 * is left behind); leave: a board whose plan ended. done_everywhere: with
 * --aggregate an item counts as done only when every board finished it
 * (--resume then redoes it on all, so the figures stay concurrent). */
int run_aggregate_check(const run_shared *sh, board_ctx *bcs, int n, eb_error *err);
void run_meet_init(run_meet *m, int members);
void run_meet_destroy(run_meet *m);
int run_meet_wait(board_ctx *bc);
void run_meet_leave(board_ctx *bc);
bool run_done_everywhere(board_ctx *bc, const eb_run_item *it);

/* run_board.c */
int run_board(board_ctx *bc);
/* Flashes the manifest's images of firmware/tier (stock firmware) over the
 * board's port and opens the console on the new image; what names the
 * image in messages ("tier minimum"). */
int run_flash_manifest(board_ctx *bc, const char *firmware, const char *tier, const char *what, eb_error *err);

/* run_hosted.c: ESP-Hosted pairs (--coprocessor). */
int run_hosted_resolve(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
int run_hosted_sim_images(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
void run_hosted_setup_free(eb_run_setup *st);
/* --coprocessor-port: the co-processor's firmware from the manifest, over its own port. */
int run_hosted_flash_coprocessor(board_ctx *bc, eb_error *err);
/* The pair's part of an entry: transport provenance, raw reference, figure source. */
void run_hosted_entry(board_ctx *bc, const eb_run_item *it, eb_entry *e);
/* raw_tx / raw_rx: flashes the raw-throughput image, reads its report. */
int run_hosted_raw(board_ctx *bc, const eb_run_item *it, eb_entry *e, eb_error *err);

/* run_latency.c: the latency test on a connected board. base fills the key
 * and start; run_latency measures into l (status "failed" with figures when
 * nothing answered) and returns an error only when it could not run. */
void run_latency_base(board_ctx *bc, const eb_run_item *it, eb_latency *l);
int run_latency(board_ctx *bc, const eb_run_item *it, eb_latency *l, eb_error *err);
/* run_ctx.c: stores a latency test (with provenance), saves, reports it. */
int run_record_latency(board_ctx *bc, const eb_latency *l, eb_error *err);
void run_emit_latency(board_ctx *bc, const eb_run_item *it, const eb_latency *l);

/* run_test.c: one test on a connected board; fills e's intervals and figures. */
int run_test(board_ctx *bc, const eb_run_item *it, eb_entry *e, eb_error *err);
/* The pieces a test runner shares: the reboot error (kind REBOOT), free
 * memory after the traffic (a reboot since `boots` fails the test), and the
 * checks and figures of a measured entry (deep-copies its intervals). */
int run_rebooted(board_ctx *bc, const eb_run_item *it, eb_error *err);
int run_read_memory(board_ctx *bc, const eb_run_item *it, unsigned boots, eb_entry *e, eb_error *err);
int run_test_figures(board_ctx *bc, const eb_run_item *it, eb_entry *e, const eb_interval *udp_final, eb_error *err);

/* run_resolve.c: an error of the request itself (a usage error, exit 2). */
int run_bad_request(eb_run_setup *st, eb_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* run_pair.c: board to board (eb_run_peer). resolve checks the request's
 * --peer-* flags and the lab's peers (EB_ECONFIG, a usage error) and fills
 * each board's peer (run_resolve.c starts a virtual board per peer under
 * --sim); make/free give a board its peer's context (sharing sh); the test
 * runs one plan item between the two boards; entry fills the pair's part
 * of an entry (peer name, chip, tier, MAC, address, firmware). */
int run_pair_resolve(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
int run_pair_make(board_ctx *bc, eb_error *err);
void run_pair_free(board_ctx *bc);
/* The peer's tier for an item (EB_ECONFIG when its chip lacks it). */
const eb_tier *run_pair_tier(board_ctx *bc, const eb_run_item *it, eb_error *err);
int run_pair_test(board_ctx *bc, const eb_run_item *it, eb_entry *e, eb_error *err);
void run_pair_entry(board_ctx *bc, const eb_run_item *it, eb_entry *e);

#endif
