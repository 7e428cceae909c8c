/* Private to the run job (run_*.c): the run context shared by the board
 * threads, the ends of a test, and small tables the core walks:
 *
 *   ends        run_end_ops: a board's console, an ESP-Hosted host with its
 *               co-processor, the PC (run_ends.c), and the fixtures of its
 *               surroundings (the virtual board, the lab's instruments). The
 *               core opens, prepares, resets, checks and closes EVERY end of a
 *               board the same way: board to board is two console ends.
 *   services    run_service: the run-level ones (the lab's AP, --aggregate's
 *               meeting), chosen once, called at fixed points.
 *   test kinds  run_kind: throughput, latency, the hosted raw transport
 *               (run_kinds.c), chosen by the test (each test has one kind),
 *               refused up front when an end pair cannot run it.
 *   dimensions  run_dim: tier, repeat, the sweep variables, the ESP-IDF
 *               version (run_dims.c; their names: formats/dims.c): checked
 *               up front, applied to each end, named in keys and file names.
 *
 * The files, in layers (a file calls only files below it in this list;
 * scripts/run_calls.py checks that there is no circle, and that only the
 * end and dimension tables call a board's life steps):
 *
 *   run_resolve.c   from flags/lab file to boards (eb_run_resolve)
 *   run_job.c       the core: eb_run, checks, the PC iperf probe, a thread per board
 *   run_board.c     the core: one board's plan loop with retries and failure
 *                   classification over its ends, the item's kind, the barrier
 *   run_kinds.c     the test kinds' table
 *   run_ends.c      the ends' and fixtures' rows, the making of a board's
 *                   other ends, which rows no end of a board sets
 *   run_pair.c, run_hosted.c, run_latency.c, run_aggregate.c
 *                   what an end or a kind does: a throughput test between
 *                   two consoles; the pair's resolve, images, co-processor
 *                   and raw test; round trips from the PC; the --aggregate
 *                   meeting (a service)
 *   run_end_vboard.c  the fixtures vboard (--sim's link, figure source), qemu
 *   run_test.c      a throughput test against the PC, free memory, figures
 *   run_dims.c      the dimensions' table, an item's key and file names
 *   run_instruments.c  the lab instruments (attenuator, AP, power switch):
 *                   fixtures and the lab's service
 *   run_steps.c     a board's steps: port and console (its driver chosen from
 *                   a table: --pattern, --dialect, detected), tier (switch or
 *                   flash), Wi-Fi, flashing a manifest image
 *   run_pattern.c   --pattern's checks and console driver
 *   run_sources.c   where the boards come from: the board sources' table
 *                   (--port, --lab; --sim: run_sim.c; --qemu: run_qemu.c)
 *   run_sweep.c     the --sweep spec over the dimension table
 *   run_ctx.c       the run context: progress events, step timing, results store
 *   run_plan.c      what to run: defaults, tier x test x repeat plan, shards, UDP
 *                   rate, usage errors of the request (run_bad_request)
 *
 * Beside them, over the public API: run_idf.c (run --idf, a run per
 * ESP-IDF), run_summary.c (what `run` shows, rendered for the CLI), and
 * resolve's run_request.c and run_outdir.c (the request record, the
 * folder's lock).
 *
 * Ownership: a board context owns its port for the whole board; the console
 * session reads from it and the flasher borrows it while a tier image is
 * written. */
#ifndef ESPBENCH_RUN_INTERNAL_H
#define ESPBENCH_RUN_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "espbench/protocols/console.h"
#include "espbench/protocols/console_driver.h"
#include "espbench/formats/esp_image.h"
#include "espbench/jobs/firmware_source.h"
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
    const struct run_service *services[4]; /* the run-level services (run_job.c), NULL-ended */
} run_shared;

struct run_end_ops;

/* A console end's own state (run_steps.c, run_radio.c, run_pattern.c):
 * its port and console, what the board said of itself, what was applied. */
typedef struct run_console {
    eb_port *port;         /* owned; the console reads it, the flasher borrows it */
    eb_console *con;
    const eb_console_driver *drv;
    FILE *console_log;
    eb_console_boot_info ident;
    eb_wifi_info wifi;
    const eb_tier *tier;   /* applied and connected with it; NULL = redo */
    char tier_note[256];   /* build-time settings the board runs with other values */
    const eb_tier *preflashed; /* its image flashed before the first greeting (run_steps.c) */
    char fw_sha256[72];    /* of the application image, when known */
    eb_pattern_driver pattern_drv; /* --pattern: the board's driver (drv points here) */
    eb_run_board far_board; /* a peer console: the board it describes (made from the board's peer) */
    char radio_sent[EB_DIM_MAX][64]; /* the radio setting each radio dimension sent last (run_radio.c) */
    const eb_tier *link_for; /* the association whose link is recorded (run_radio.c); NULL = none */
} run_console;

/* One end of a board's tests: the board itself, or its far end (its peer
 * board, or the PC, whose context has no console). */
typedef struct board_ctx {
    /* ---- every end's */
    const struct run_end_ops *ops;
    struct board_ctx *far; /* the board's far end (owned): a peer board or the PC */
    struct board_ctx *dut; /* a far end's or a fixture's board under test; NULL for the board */
    /* The board's ends in the order the core runs them: first its fixtures
     * (owned: the virtual board's link, the lab's instruments), then the
     * board, then its far end; next of the last is NULL. */
    struct board_ctx *first, *next;
    run_shared *sh;
    eb_run_board *b;
    const eb_chip *chip;
    const char *label;     /* board name for messages */
    char file_label[80];   /* in its file names: NAME-CHIP (run_file_label_init) */
    eb_error err;
    eb_prov_tracker prov;  /* provenance facts seen by the end (a console's lines, an SSH host's iperf2) */
    void *priv;            /* the end driver's own state (run_end_ops), freed with the end */
    eb_pc *pc;             /* a far end's PC side elsewhere (run_end_ssh.c), owned by its driver; NULL = sh->pc */
    /* ---- the board's, as its thread runs its plan (run_board.c): where it
     * is, what the run's services and its fixtures say of the item */
    int index, total;
    int concurrent;          /* --aggregate's meeting: boards that started the current test together */
    bool memory_unknown;     /* the item's free memory is no figure (set by a fixture: run_end_vboard.c) */
    atomic_bool traffic_on;  /* a throughput test's traffic runs (run_test.c): --latency-under-load's probes start */
    /* ---- a console end's (the board's, a peer board's, an ESP-Hosted
     * host's: an end whose declaration sets EB_DIM_CONSOLE): made with the
     * end (run_end_init), freed with it; NULL in the PC, SSH and fixture ends */
    struct run_console *cons;
} board_ctx;

/* run_plan.c */
bool eb_run_test_is_tx(int test);
bool eb_run_test_is_udp(int test);
/* The item's point of the run's sweep: the index of the swept row's
 * value in o->sweep.values; -1 when it has none. */
int run_sweep_point(const eb_run_opts *o, const eb_run_item *it);
/* What the run asks of row d: its sweep's points, else its list's (a row
 * of names: their indexes); returns how many, at most max. */
int run_plan_asked(const eb_run_opts *o, int d, double *v, int max);
/* An error of the request itself (a usage error, exit 2). */
int run_bad_request(eb_run_setup *st, eb_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* run_qemu.c: --qemu's checks, its emulated board started and flashed,
 * stopped: the entries of its board source (run_source_qemu). */
int run_qemu_request_check(const eb_run_request *rq, eb_run_setup *st, eb_error *err);
int run_qemu_start(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
void run_qemu_stop(eb_run_setup *st);
int run_qemu_tiers_check(const eb_run_request *rq, const eb_run_opts *o, eb_run_setup *st, eb_error *err);
/* Before a tier: its own image (--qemu-image TIER=DIR, else the default)
 * into set when the flash holds another (set->n 0: the board runs it; its
 * facts into the board's provenance). run_qemu_write writes such a set
 * (QEMU restarted with the strap, then without), run_qemu_reboot restarts
 * QEMU on the same flash (a reset); both make QEMU's new UART the board's
 * port (its console is the caller's to open again: run_steps.c), and are
 * EB_KIND_BOARD when QEMU does not come back. */
int run_qemu_tier_image(board_ctx *bc, const eb_tier *t, eb_image_set *set, eb_error *err);
int run_qemu_write(board_ctx *bc, const eb_image_set *set, eb_error *err);
int run_qemu_reboot(board_ctx *bc, eb_error *err);
/* Whether the tier has an image of its own (--qemu-image TIER=DIR). */
bool run_qemu_own_image(const board_ctx *bc, const eb_tier *t);

/* ------------------------------------------------------------ board sources (run_sources.c) */

/* The request's options a board source is chosen by, claims, refuses or
 * needs, as bits (run_sources.c reads each from its eb_run_request field;
 * --pattern is no field: its check passes the bit). */
enum run_opt {
    RUN_OPT_PORT, RUN_OPT_SIM, RUN_OPT_LAB, RUN_OPT_QEMU, RUN_OPT_QEMU_BIN, RUN_OPT_QEMU_IMAGE, RUN_OPT_QEMU_TIER_IMAGE,
    RUN_OPT_COPROCESSOR, RUN_OPT_TRANSPORT, RUN_OPT_COPROCESSOR_PORT, RUN_OPT_PEER_PORT, RUN_OPT_PEER_CHIP,
    RUN_OPT_PEER_TIER, RUN_OPT_CHIP, RUN_OPT_SSID, RUN_OPT_PC_ADDRESS, RUN_OPT_PATTERN, RUN_OPT_COUNT
};
#define RUN_OPT(name) (1u << RUN_OPT_##name)

/* What a source's boards have without being told (run_source_decl.provides). */
enum run_source_fact {
    RUN_SRC_OWN_PORTS = 1u << 0,  /* it starts its boards: their ports are its own, one per board */
    RUN_SRC_OWN_PEERS = 1u << 1,  /* it starts a board's peer too (no --peer-port, no peer port:) */
    RUN_SRC_PC_ADDRESS = 1u << 2, /* it gives the PC end its address (no --pc-address) */
    RUN_SRC_MKIMAGE = 1u << 3,    /* an ESP-Hosted pair's stock images are made for it (vboard mkimage) */
};

/* The line of the sources that do not combine (--port, --sim, --lab). */
#define RUN_SOURCE_CHOOSE_ONE "choose one of --port, --sim, --lab (--lab may be combined with --sim)"

/* Options a source claims or refuses together, and the one line (a usage error). */
typedef struct run_source_rule {
    unsigned opts; /* RUN_OPT bits */
    const char *line;
} run_source_rule;

/* What a board source declares; eb_run_resolve's checks are loops over these. */
typedef struct run_source_decl {
    unsigned combines;              /* the sources (their RUN_OPT) it may be chosen with */
    const char *conflict;           /* the line when chosen with another source */
    run_source_rule claims;         /* options that mean nothing without it */
    const run_source_rule *refuses; /* options it refuses; ends with {0} */
    unsigned needs;                 /* the flags a board it makes needs (RUN_OPT CHIP, SSID, PC_ADDRESS) */
    unsigned provides;              /* enum run_source_fact */
    const char *board_name;         /* the name of its one board from the flags */
    const char *ssid, *ap_password; /* the network its boards join when the request names none */
    const eb_run_board *standin;    /* its boards as the checks see them before they start */
} run_source_decl;

/* Where a run's boards come from: a board on a port, a lab file's boards,
 * virtual boards, an emulated board. eb_run_resolve walks the rows in
 * order (run_sources.c's list); a NULL entry: nothing to do. */
typedef struct run_source {
    const char *name;
    unsigned selects; /* the request option that chooses it (RUN_OPT) */
    const run_source_decl *decl;
    /* Its own options, before anything loads: one line, a usage error. */
    int (*check)(const eb_run_request *rq, eb_run_setup *st, eb_error *err);
    /* The run's boards (o->boards); NULL: one board from the flags (--chip,
     * --pc-address, --iperf-port, --dialect) named decl->board_name. The first
     * chosen source with boards makes them (a lab file's under --sim). */
    int (*boards)(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
    /* The dialect its boards speak when known before they open, else EB_DIALECT_UNKNOWN. */
    int (*dialect)(const eb_run_request *rq);
    /* Once the results folder is ready: its boards started (port, firmware
     * digest, addresses); stopped by eb_run_setup_free (every row, started or not). */
    int (*start)(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
    void (*stop)(eb_run_setup *st);
} run_source;

extern const run_source run_source_sim, run_source_qemu;

/* The options the request gives (RUN_OPT bits). */
unsigned run_sources_given(const eb_run_request *rq);
/* Whether a source is chosen; the flags its boards need (--chip with none). */
bool run_sources_chosen(const eb_run_request *rq);
unsigned run_sources_needs(const eb_run_request *rq);
/* Whether a chosen source provides fact (enum run_source_fact). */
bool run_sources_provide(const eb_run_request *rq, unsigned fact);
/* The first chosen source's dialect, SSID, AP password, stand-in board; NULL (UNKNOWN) when none says. */
int run_sources_dialect(const eb_run_request *rq);
const char *run_sources_ssid(const eb_run_request *rq);
const char *run_sources_ap_password(const eb_run_request *rq);
const eb_run_board *run_sources_standin(const eb_run_request *rq);
/* Before anything loads, over the rows' declarations: sources chosen
 * together that do not combine, an option without the source it belongs
 * to, an option a chosen source refuses; then each chosen source's check. */
int run_sources_check(const eb_run_request *rq, eb_run_setup *st, eb_error *err);
/* The first refusal of a chosen source among opts (RUN_OPT bits): EB_ECONFIG with its line. */
int run_sources_refused(const eb_run_request *rq, unsigned opts, eb_error *err);
/* The boards, their start once the folder is ready, and the stop of every source. */
int run_sources_boards(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
int run_sources_start(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
void run_sources_stop(eb_run_setup *st);

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
void run_console_capture(void *user, const char *line);
void run_fill_meta(board_ctx *bc);
int run_record(board_ctx *bc, const eb_entry *e, eb_error *err);
/* Stores a latency test (with provenance), saves, reports it. */
int run_record_latency(board_ctx *bc, const eb_latency *l, eb_error *err);
void run_emit_latency(board_ctx *bc, const eb_run_item *it, const eb_latency *l);
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
/* Resets the board (an emulated board's QEMU restarted, a virtual board's
 * control socket, EN through RTS) and waits for its prompt; the tier is to
 * be applied again. how: the way taken, for messages. EB_KIND_BOARD when
 * it cannot. */
int run_board_reset(board_ctx *bc, char *how, size_t cap, eb_error *err);
/* Applies tier t and connects; a failure is the board's (EB_KIND_BOARD)
 * unless it already has a kind (reboot, port lost). */
int run_apply_tier(board_ctx *bc, const eb_tier *t, eb_error *err);
/* Before a retry: the board from a known state (tier and Wi-Fi redone);
 * an error only when its console is gone. */
int run_board_ready(board_ctx *bc, eb_error *err);
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

/* ------------------------------------------------------------ results */

/* What one plan item produced: entry points at e for a throughput test,
 * NULL for a latency test (lat); prov is the result's provenance either way. */
typedef struct run_result {
    eb_entry e;
    eb_latency lat;
    eb_entry *entry;
    eb_provenance *prov;
} run_result;

/* ------------------------------------------------------------ ends (run_ends.c) */

/* The tests an end serves (the kinds reach them through here): a
 * throughput test with it as the far end of board dut; round trips from it
 * to dut; the transport test of an ESP-Hosted pair (on the board itself). */
typedef struct run_end_tests {
    int (*throughput)(board_ctx *dut, const eb_run_item *it, eb_entry *e, eb_error *err);
    int (*round_trips)(board_ctx *dut, const eb_run_item *it, eb_latency *l, eb_error *err);
    int (*transport)(board_ctx *dut, const eb_run_item *it, eb_entry *e, eb_error *err);
} run_end_tests;

/* What an end declares (libsigrok's devopts): the dimensions it sets, by
 * their flags in the dimension table (dims.h: an iperf option, a radio
 * setting, the virtual board's link) or by the lab instrument that sets
 * them (dims.h eb_dim_desc.instrument), and whether it takes one value of
 * one of them on a board. "Can this run?" is one check of the request
 * against these before anything starts (run_ends_check). */
typedef struct run_end_decl {
    unsigned sets; /* dims.h EB_DIM_* flags of the rows it sets */
    /* Whether the end takes row d's value v on board b (NULL: every value
     * of the rows in sets); false with the reason in why (what the end is,
     * what it lacks). */
    bool (*takes)(const eb_run_opts *o, const eb_run_board *b, const eb_dim_desc *d, double v, char *why,
                  size_t cap);
    int instrument; /* a fixture: the lab instrument kind (lab.h) whose rows it sets too; 0 = none */
    /* A fixture: what a board lacks when no end of it sets a row this one
     * would: needs, a format of the board's name and the other fixtures'
     * also ("--sweep rssi " + "sets the virtual board's link and needs
     * --sim (board %s is not simulated)%s; ..."); also, its part in
     * another's line (" or a lab attenuator in front of the board"). */
    const char *needs, *also;
    bool local_iperf; /* a far end whose traffic runs on this computer's iperf2 (probed before the run) */
} run_end_decl;

/* Whether end e sets row d (by the row's kind flags or its instrument). */
static inline bool run_end_declares(const struct run_end_decl *decl, const eb_dim_desc *d)
{
    return (decl->sets & d->flags & (EB_DIM_LINK | EB_DIM_RADIO | EB_DIM_IPERF)) ||
           (decl->instrument && d->instrument == decl->instrument);
}

/* An end of a test: a driver. The core calls every entry of every end of
 * a board (a NULL entry: nothing to do); a test kind calls the test that
 * serves it. An end's own state sits behind board_ctx.priv.
 *
 * A fixture is an end of the board's surroundings that runs no test: the
 * virtual board (run_end_vboard.c), the lab's attenuator and its AP
 * (run_instruments.c). It is opened when it is made, before anything runs
 * (an instrument that cannot take the run's points refuses the run), is
 * prepared before the board (the link is there before the board
 * connects), takes its rows' values for the next test through config_set
 * once the board is connected, and is reset, stamped and closed as any end. */
typedef struct run_end_ops {
    const char *name;
    const run_end_decl *decl;
    int (*open)(board_ctx *end, eb_error *err);
    /* Each dimension's value of the item applied to the end (tier and Wi-Fi
     * among them unless the kind brings its own image: own_tier); a row
     * that sets an end's value calls its config_set. */
    int (*prepare)(board_ctx *end, const eb_run_item *it, bool own_tier, eb_error *err);
    /* One dimension's value for the next test (a row the end declares). */
    int (*config_set)(board_ctx *end, const eb_dim_desc *d, double v, eb_error *err);
    /* After a failed attempt: what the end set is forgotten (set again
     * before the next attempt: the tier, an instrument's point); before a
     * retry (retry) also brought to a known state. An error only when the
     * end is gone. */
    int (*reset)(board_ctx *end, bool retry, eb_error *err);
    bool (*lost)(const board_ctx *end); /* the end cannot go on (its console is gone) */
    void (*close)(board_ctx *end);
    /* The end's part of every result of its board (after the kind's start). */
    void (*stamp)(board_ctx *end, const eb_run_item *it, run_result *r);
    const run_end_tests *tests;
} run_end_ops;

extern const run_end_ops run_end_board, run_end_hosted, run_end_pc, run_end_ssh;
/* The fixtures (run_end_vboard.c, run_instruments.c). */
extern const run_end_ops run_end_vboard, run_end_qemu, run_end_atten, run_end_lab;
/* Whether the SSH end takes a board (its far_end URL is ssh://...). */
bool run_end_ssh_wants(const eb_run_board *b);
/* Where the far end of board dut runs its iperf2 and ping: its own PC
 * side (an SSH host's), else this computer's. */
static inline eb_pc *run_far_pc(const board_ctx *dut)
{
    return dut->far && dut->far->pc ? dut->far->pc : dut->sh->pc;
}
/* The rows a board's ends take: its own and its far end's, each the first
 * row of its list in run_ends.c that wants the board (own: an ESP-Hosted
 * host, else a console; far: a peer console, an end claiming the board's
 * far_end URL, else the PC). */
void run_end_rows(const eb_run_board *b, const run_end_ops **own, const run_end_ops **far);
/* A context for end (zeroed here) of board b, chip from the profiles;
 * a console end's console state (cons) made. */
int run_end_init(board_ctx *end, run_shared *sh, eb_run_board *b, const run_end_ops *ops, eb_error *err);
/* The board's other ends, made and freed (with the ends' private and console state):
 * its far end (its peer or the PC) and its fixtures, each of run_ends.c's
 * fixture rows present at the board that sets a row the run asks which no
 * earlier one sets, or whose facts go in every result; a fixture is opened
 * as it is made. */
int run_end_make_far(board_ctx *bc, eb_error *err);
void run_end_free_far(board_ctx *bc);
/* Every board's ends against the request: a far_end URL no end claims, a
 * dimension's value an end cannot take, a row the run asks that no end of
 * the board sets. EB_ECONFIG with one line naming the board, the end and
 * the dimension. */
int run_ends_check(const eb_run_opts *o, eb_error *err);

/* ------------------------------------------------------------ test kinds (run_kinds.c) */

typedef struct run_kind {
    const char *name;
    unsigned tests;  /* its tests' bits (1u << test): a test has one kind */
    bool own_tier;   /* brings its own image: no tier applied first */
    /* Whether a board with these ends can run it; cannot: the one line
     * when not (refused before anything starts). */
    bool (*can)(const run_end_ops *own, const run_end_ops *far);
    const char *cannot;
    /* The result's key and start; the measure; stores and reports it;
     * marks it failed with the reason. */
    void (*start)(board_ctx *bc, const eb_run_item *it, run_result *r);
    int (*test)(board_ctx *bc, const eb_run_item *it, run_result *r, eb_error *err);
    int (*record)(board_ctx *bc, const eb_run_item *it, run_result *r, eb_error *err);
    void (*failed)(run_result *r, const char *why);
} run_kind;

/* The kind of a test; NULL when none runs it. */
const run_kind *run_kind_of(int test);
/* Every board's tests against its ends (o->tests, defaults applied):
 * EB_ECONFIG with the kind's line and the board when one cannot run. */
int run_kinds_check(const eb_run_opts *o, eb_error *err);

/* ------------------------------------------------------------ dimensions (run_dims.c) */

/* A result's key as the kinds hold it (an entry's or a latency set's). */
typedef struct run_key {
    char *tier;
    size_t tier_cap;
    int *repeat;
    eb_provenance *prov;
} run_key;

/* What a row of the formats' table does to an end in a run, besides what
 * every row does by the loops (its value handed to the ends that declare
 * its kind; the key and file names: run_plan.c). A row that needs nothing
 * of its own has no entry here. */
typedef struct run_dim {
    int dim; /* its row of formats/dims.c: names, unit, range, where its value lives */
    /* Whether the run can take its values on a board (b NULL: a run of no
     * board yet) before anything starts; one line in why. */
    bool (*check)(const eb_run_opts *o, const eb_run_board *b, char *why, size_t cap);
    /* The item's value applied to an end (in table order: the link before
     * the tier), and what takes a connected end (after every row's apply). */
    int (*apply)(board_ctx *end, const eb_run_item *it, eb_error *err);
    int (*connected)(board_ctx *end, const eb_run_item *it, eb_error *err);
    bool connects; /* its apply connects the end (the tier): the radio's rows before it; a kind
                    * that brings its own image (own_tier) skips it */
} run_dim;

/* The checks of the sweep variables (sweep_vars) or of the other
 * dimensions for every board: EB_ECONFIG with one line. */
int run_dims_check(const eb_run_opts *o, bool sweep_vars, eb_error *err);
/* Applies every dimension's value of the item to an end (own_tier: not the
 * tier); on a connected board, each row's value then goes to the board's
 * fixtures that set it (their config_set). */
int run_dims_apply(board_ctx *end, const eb_run_item *it, bool own_tier, eb_error *err);
/* run_plan.c: every dimension's value of the item into k (the rows' loop:
 * the tier's and repeat's fields, the provenance's: eb_dims_key). */
void run_dims_key(const eb_run_opts *o, const eb_run_item *it, run_key *k);
/* Whether board/chip finished the item (status ok) in the results so far:
 * its whole key (a board-to-board test only against the same peer). */
bool run_item_done(run_shared *sh, const eb_run_board *b, const char *chip, const eb_run_item *it);
/* run_plan.c: "-POINT-TIER[-TEST]-rREPEAT", the key as a log file's part
 * naming the item (test NULL: none). */
void run_dims_tag(const eb_run_opts *o, const eb_run_item *it, const char *test, char *out, size_t cap);

/* ------------------------------------------------------------ run_iperf.c */

/* An end's iperf settings: config_set of the ends that run iperf (the
 * rows flagged EB_DIM_IPERF); those away from their defaults as the
 * board's command's options (" -l 1470") or as iperf2's arguments (args
 * and their values in bufs, at most max; returns how many). */
int run_iperf_set(board_ctx *end, const eb_dim_desc *d, double v, eb_error *err);
void run_iperf_options(const board_ctx *end, char *out, size_t cap);
int run_iperf_argv(const board_ctx *end, const char **args, char (*bufs)[16], int max);

/* ------------------------------------------------------------ what ends and kinds do */

/* run_pair.c: resolve --peer-*; a throughput test between the board and
 * its peer; the peer's part of a result. */
int run_pair_resolve(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
int run_pair_test(board_ctx *bc, const eb_run_item *it, eb_entry *e, eb_error *err);
void run_pair_stamp(board_ctx *peer, const eb_run_item *it, run_result *r);

/* run_hosted.c: resolve --coprocessor, the --sim images, their free; the
 * co-processor's firmware before the host opens; the raw transport test;
 * the pair's part of a result. */
int run_hosted_resolve(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
int run_hosted_images(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
void run_hosted_setup_free(eb_run_setup *st);
int run_hosted_flash_coprocessor(board_ctx *bc, eb_error *err);
int run_hosted_raw(board_ctx *bc, const eb_run_item *it, eb_entry *e, eb_error *err);
void run_hosted_stamp(board_ctx *bc, const eb_run_item *it, run_result *r);

/* run_latency.c: a latency set's key and start, the round trips from the
 * PC, its record and failure. */
void run_latency_start(board_ctx *bc, const eb_run_item *it, run_result *r);
int run_latency_test(board_ctx *bc, const eb_run_item *it, eb_latency *l, eb_error *err);
int run_latency_record(board_ctx *bc, const eb_run_item *it, run_result *r, eb_error *err);
void run_latency_failed(run_result *r, const char *why);
/* --latency-under-load: runs test (a throughput test) with round trips
 * probed beside its traffic into r->lat (under_load: the test's name; left
 * without a status when the traffic never started); its return is test's. */
int run_latency_under_load(board_ctx *bc, const eb_run_item *it, run_result *r,
                           int (*test)(board_ctx *, const eb_run_item *, run_result *, eb_error *), eb_error *err);
/* Stores and reports r->lat when probes ran under load; 0 otherwise. */
int run_latency_record_loaded(board_ctx *bc, const eb_run_item *it, run_result *r, eb_error *err);

/* ------------------------------------------------------------ run-level services */

/* A service of the whole run, called by the core at fixed points
 * (run_job.c, run_board.c): begun once the boards' ends are made (a
 * failure: nothing runs, every test said not run) and ended after the run;
 * before each item a board meets the other boards (meet), and leaves at
 * the end of its plan; done: whether an item counts done for --resume
 * (instead of the board's own result); stamp: its part of every result. A
 * NULL entry: nothing to do. The run's services are chosen once, by
 * run_job.c's rows: a run without --aggregate has no meeting. */
typedef struct run_service {
    const char *name;
    int (*begin)(run_shared *sh, board_ctx *bcs, int n, eb_error *err);
    void (*end)(run_shared *sh);
    void (*meet)(board_ctx *bc);
    void (*leave)(board_ctx *bc);
    bool (*done)(board_ctx *bc, const eb_run_item *it);
    void (*stamp)(board_ctx *bc, run_result *r);
} run_service;

/* run_aggregate.c: --aggregate's barrier (the boards start each item
 * together; an item counts done only when every board finished it).
 * run_instruments.c: the lab's power switches and AP set before the run. */
extern const run_service run_service_meet, run_service_lab;

/* run_instruments.c: the lab instruments (docs/instruments.md): resolve
 * (--ap, --ap-set, an AP sweep); the fixtures run_end_atten (a board's
 * attenuator) and run_end_lab (the lab's AP, the instruments' facts in
 * every result); the run-level service run_service_lab (the AP powered and
 * set before the run). */
int run_instr_resolve(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);

/* run_radio.c: the radio dimensions' check (the chip's facts, a console
 * that can set them) and apply functions (their keys and file names are
 * the rows' own: run_dims.c's loop over the list rows), and the link as
 * negotiated into the board's facts (the band row's connected step). */
bool run_radio_check(const eb_run_opts *o, const eb_run_board *b, char *why, size_t cap);
bool run_radio_tx_power_check(const eb_run_opts *o, const eb_run_board *b, char *why, size_t cap);
int run_radio_tx_power_apply(board_ctx *end, const eb_run_item *it, eb_error *err);
/* One radio row's value of the item sent through the console's radio_set
 * (when it differs from what the board took last). */
int run_radio_apply(board_ctx *end, int dim, const eb_run_item *it, eb_error *err);
int run_radio_link(board_ctx *end, const eb_run_item *it, eb_error *err);

/* run_pattern.c: --pattern's console driver for a board. */
const eb_console_driver *run_pattern_driver(board_ctx *bc);

/* run_board.c */
int run_board(board_ctx *bc);
/* A board whose plan never started (the run stopped before its boards ran):
 * every item counted and said as not run, with why. */
void run_board_not_run(board_ctx *bc, const char *why);

#endif
