/* Private to the run job (run_*.c): the run context shared by the board
 * threads, the board context, the variants' hook table, and the services
 * the variants and the core share. The files, in layers (a file calls only
 * files above it in this list; scripts/run_calls.py checks it):
 *
 *   run_plan.c      what to run: defaults, tier x test x repeat plan, shards, UDP
 *                   rate, usage errors of the request (run_bad_request)
 *   run_ctx.c       the run context: progress events, step timing, results store
 *   run_steps.c     a board's steps: port and console, tier (switch or flash),
 *                   Wi-Fi, a link sweep point, flashing a manifest image
 *   run_test.c      the measuring pieces: one test against the PC (both iperf
 *                   ends), free memory, the figures of an entry
 *   variants        one file each, a run_variant row each (run_variants.c):
 *                   run_plain.c, run_pair.c, run_hosted.c, run_latency.c,
 *                   run_aggregate.c, run_link_sweep.c, run_pattern.c
 *   run_variants.c  the table
 *   run_board.c     the core: one board's plan loop with retries and failure
 *                   classification, calling the variants' hooks
 *   run_job.c       the core: eb_run, checks, the PC iperf probe, a thread per board
 *   run_resolve.c   from flags/lab file to boards (eb_run_resolve)
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

/* --aggregate: the boards meet before each test (run_aggregate.c's state). */
typedef struct run_meet {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int members;   /* boards still running their plan */
    int arrived;   /* at the open meeting */
    int gen;       /* meetings closed so far */
    int met;       /* how many boards the last closed meeting had */
    bool open;     /* initialised (an --aggregate run) */
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
    struct run_instr *instr; /* lab instruments the run drives (run_instruments.c), NULL = none */
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
    char file_label[80];   /* in its file names: NAME-CHIP (run_file_label_init) */
    char fw_sha256[72];    /* of the application image, when known */
    int index, total;
    eb_error err;
    eb_prov_tracker prov;  /* provenance facts seen on the console */
    int link_point;        /* sweep point whose link the virtual board has; -1 = none set */
    int concurrent;        /* --aggregate: boards that started the current test together; 0 = no aggregate */
    eb_pattern_driver pattern_drv; /* --pattern: the board's driver (drv points here) */
    /* The console driver a variant imposes (run_pattern.c), NULL = the
     * board's dialect, else detected; a peer speaks as its board. */
    const eb_console_driver *(*pick_driver)(struct board_ctx *bc);
    /* Board to board: the peer's context (owned, NULL = tests against the
     * PC) and the board it describes (made from b->peer). */
    struct board_ctx *peer;
    eb_run_board peer_board;
    struct run_instr_board *instr; /* the board's attenuator (run_instruments.c), NULL = none */
} board_ctx;

/* run_plan.c */
bool eb_run_test_is_tx(int test);
bool eb_run_test_is_udp(int test);
/* An error of the request itself (a usage error, exit 2). */
int run_bad_request(eb_run_setup *st, eb_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------ run_ctx.c */

/* progress, timing and the results store */
void run_emit(board_ctx *bc, int event, const eb_run_item *it, const char *msg, double elapsed, double mbps,
              const eb_entry *e);
void run_infof(board_ctx *bc, int event, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void run_step_done(board_ctx *bc, int step, uint64_t t0_us);
bool run_stopped(const board_ctx *bc);
const char *run_file_label(const board_ctx *bc);
/* A board's files carry its name and chip ("sim-esp32c3", "bench-s3-esp32s3";
 * the chip once when the name ends with "-CHIP"; the chip alone for a board
 * of no name), so two boards or two chips never write one file. */
void run_file_label_init(board_ctx *bc);
/* "-rssi-60" for an item at a sweep point, else "": in log file names. */
void run_point_tag(const board_ctx *bc, const eb_run_item *it, char *out, size_t cap);
void run_console_capture(void *user, const char *line);
void run_fill_meta(board_ctx *bc);
/* An entry's key and settings for the item (sweep point, tier, figure source). */
void run_entry_base(board_ctx *bc, const eb_run_item *it, eb_entry *e);
int run_record(board_ctx *bc, const eb_entry *e, eb_error *err);
/* Stores a latency test (with provenance), saves, reports it. */
int run_record_latency(board_ctx *bc, const eb_latency *l, eb_error *err);
void run_emit_latency(board_ctx *bc, const eb_run_item *it, const eb_latency *l);
/* Whether board/chip finished the item (status ok) in the results so far. */
bool run_item_done(run_shared *sh, const eb_run_board *b, const char *chip, const eb_run_item *it);
void run_count(board_ctx *bc, int *field, int n);
/* Saves results.json and results.csv in a stable order; lock held. */
int run_save_locked(run_shared *sh, eb_error *err);

/* ------------------------------------------------------------ run_steps.c */

/* Opens the board's console log (OUT/console-NAME.log) unless open. */
int run_board_log(board_ctx *bc, eb_error *err);
/* Opens the port and console, greets the board (dialect, identity, chip check). */
int run_board_open(board_ctx *bc, eb_error *err);
/* Records the board's facts and closes its console, port and log. */
void run_board_close(board_ctx *bc);
/* Applies tier t and connects; a failure is the board's (EB_KIND_BOARD)
 * unless it already has a kind (reboot, port lost). */
int run_apply_tier(board_ctx *bc, const eb_tier *t, eb_error *err);
/* Before a retry: the board from a known state (tier and Wi-Fi redone);
 * an error only when its console is gone. */
int run_board_ready(board_ctx *bc, eb_error *err);
/* A link sweep point: the virtual board takes the point's link. */
int run_apply_link_point(board_ctx *bc, const eb_run_item *it, eb_error *err);
/* Flashes the manifest's images of firmware/tier (stock firmware) over the
 * board's port and opens the console on the new image; what names the
 * image in messages ("tier minimum"). */
int run_flash_manifest(board_ctx *bc, const char *firmware, const char *tier, const char *what, eb_error *err);

/* ------------------------------------------------------------ run_test.c */

/* One test against the PC on a connected board; fills e's intervals and figures. */
int run_test(board_ctx *bc, const eb_run_item *it, eb_entry *e, eb_error *err);
/* The pieces a test runner shares: the reboot error (kind REBOOT), free
 * memory after the traffic (a reboot since `boots` fails the test), and the
 * checks and figures of a measured entry (deep-copies its intervals). */
int run_rebooted(board_ctx *bc, const eb_run_item *it, eb_error *err);
int run_read_memory(board_ctx *bc, const eb_run_item *it, unsigned boots, eb_entry *e, eb_error *err);
int run_test_figures(board_ctx *bc, const eb_run_item *it, eb_entry *e, const eb_interval *udp_final, eb_error *err);

/* ------------------------------------------------------------ variants */

/* What one plan item produced: entry points at e for a throughput test,
 * NULL for a latency test (lat); prov is the result's provenance either way. */
typedef struct run_result {
    eb_entry e;
    eb_latency lat;
    eb_entry *entry;
    eb_provenance *prov;
} run_result;

/* A variant of a run (plain board, board to board, ESP-Hosted pair,
 * latency, aggregate, link sweep, pattern firmware): one file fills one
 * row; the core (run_board.c, run_job.c, run_resolve.c) calls the hooks of
 * the variants that join a board, in table order, and knows none by name.
 * Every hook may be NULL. */
typedef struct run_variant {
    const char *name;
    /* run_resolve.c: checks the request's flags of the variant (usage
     * errors through run_bad_request) and completes the options; images:
     * after the output folder and the PC probe, before --sim boards start;
     * setup_free: what resolve kept in the setup. */
    int (*resolve)(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
    int (*resolve_images)(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
    void (*setup_free)(eb_run_setup *st);
    /* run_job.c: the whole run, before any board is touched, and after. */
    int (*run_begin)(run_shared *sh, board_ctx *bcs, int n, eb_error *err);
    void (*run_end)(run_shared *sh);
    /* Whether the variant takes part in the board's run; NULL = always. */
    bool (*joins)(const board_ctx *bc);
    /* The board context: made before the run starts, freed after. */
    int (*make)(board_ctx *bc, eb_error *err);
    void (*free)(board_ctx *bc);
    /* run_board.c, a board's life: its console driver; before and after
     * its console opens; its end (close) and the end of its plan (leave). */
    const eb_console_driver *(*driver)(board_ctx *bc);
    int (*before_open)(board_ctx *bc, eb_error *err);
    int (*after_open)(board_ctx *bc, eb_error *err);
    void (*close)(board_ctx *bc);
    void (*leave)(board_ctx *bc);
    /* An item: whether --resume counts it done (true = decided in *done);
     * before its attempts; in each attempt before and after the tier. */
    bool (*done)(board_ctx *bc, const eb_run_item *it, bool *done);
    void (*begin_item)(board_ctx *bc, const eb_run_item *it);
    int (*before_tier)(board_ctx *bc, const eb_run_item *it, eb_error *err);
    int (*after_tier)(board_ctx *bc, const eb_run_item *it, eb_error *err);
    /* The items the variant runs (the first variant in the table that
     * runs an item owns it); own_tier: they bring an image of their own,
     * no tier is applied first. start fills the result's key (NULL = an
     * entry, run_entry_base); test measures; record stores and reports it
     * (NULL = an entry's); failed marks it failed with the reason. */
    bool (*runs)(const board_ctx *bc, const eb_run_item *it);
    bool own_tier;
    void (*start)(board_ctx *bc, const eb_run_item *it, run_result *r);
    int (*test)(board_ctx *bc, const eb_run_item *it, run_result *r, eb_error *err);
    int (*record)(board_ctx *bc, const eb_run_item *it, run_result *r, eb_error *err);
    void (*failed)(run_result *r, const char *why);
    /* The variant's part of every result of the board (after start). */
    void (*stamp)(board_ctx *bc, const eb_run_item *it, run_result *r);
    /* Whether the board cannot go on (its other board's console is gone);
     * reset: after a failed attempt the tier is forgotten and, when ready
     * is set (a retry follows), the board brought to a known state. */
    bool (*lost)(const board_ctx *bc);
    int (*reset)(board_ctx *bc, bool ready, eb_error *err);
} run_variant;

/* run_variants.c: the table, NULL-terminated, in the order hooks are called. */
extern const run_variant *const run_variants[];

/* The core's walk over the table: v joins bc. */
static inline bool run_variant_joins(const run_variant *v, const board_ctx *bc)
{
    return !v->joins || v->joins(bc);
}

/* run_board.c */
int run_board(board_ctx *bc);

#endif
