/* The run job: for each board, each tier and each test, drive the board's
 * console and the PC's iperf2, and write the results as each test completes.
 * The same code path serves hardware and --sim (sim.h only starts the
 * virtual board and flashes it, then hands its port here). Boards of a lab
 * run concurrently, one thread each. The CLI only parses flags and prints. */
#ifndef ESPBENCH_RUN_H
#define ESPBENCH_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/base/buf.h"
#include "espbench/formats/board_spec.h"
#include "espbench/formats/dims.h"
#include "espbench/base/error.h"
#include "espbench/formats/model.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/results.h"
#include "espbench/jobs/sweep.h"

/* The tier the peer runs for a test in tier `tier` of the board: its fixed
 * --peer-tier, else the tier of the same name (jobs/run_pair.c). */
const char *eb_run_peer_tier(const eb_run_board *b, const char *tier);

#define EB_RUN_MAX_TIERS 32

/* The latency test's plan id, after the four throughput tests (enum
 * eb_test); its bit in eb_run_opts.tests is 1u << EB_RUN_LATENCY. */
#define EB_RUN_LATENCY EB_TEST_COUNT
#define EB_RUN_LATENCY_COUNT 20        /* probes per latency test */
#define EB_RUN_LATENCY_INTERVAL 0.2    /* s; the least iputils ping allows without privileges */
/* "tcp_tx" ... "udp_rx", or "latency"; NULL otherwise. */
const char *eb_run_test_name(int test);
/* The inverse; -1 when unknown. */
int eb_run_test_from_name(const char *name);

/* Orchestration steps, timed for the overhead benchmark. */
enum eb_run_step {
    EB_STEP_OPEN,     /* open port and console, detect dialect */
    EB_STEP_TIER,     /* tier_set, or flash the tier's image */
    EB_STEP_WIFI,     /* scan and connect */
    EB_STEP_SETUP,    /* start both iperf ends */
    EB_STEP_TRAFFIC,  /* the configured test time, as observed */
    EB_STEP_TEARDOWN, /* wait for the ends to finish, stop them */
    EB_STEP_MEMORY,   /* read free memory */
    EB_STEP_SAVE,     /* write results.json and results.csv */
    EB_STEP_COUNT
};
const char *eb_run_step_name(int step);

enum eb_run_event {
    EB_RUN_EV_INFO,       /* message: a board step ("esp32/iperf: connected, RSSI -40 dBm") */
    EB_RUN_EV_TEST_START, /* a test begins */
    EB_RUN_EV_PROGRESS,   /* an interval arrived: elapsed_s, current_mbps */
    EB_RUN_EV_TEST_DONE,  /* entry set (ok or failed) */
    EB_RUN_EV_SKIP,       /* already done (--resume) */
    EB_RUN_EV_WARN,       /* message: a retry, a recoverable problem */
    EB_RUN_EV_LATENCY_DONE, /* latency set (ok or failed) */
    EB_RUN_EV_NOT_RUN,    /* message: why the item will not run (the board or the run stopped) */
};

typedef struct eb_run_progress {
    int event;            /* enum eb_run_event */
    const char *board, *chip, *tier;
    int test, repeat;
    int index, total;     /* 1-based position of this test in the board's plan */
    double elapsed_s, duration_s, current_mbps;
    const eb_entry *entry;/* TEST_DONE */
    const eb_latency *latency; /* LATENCY_DONE */
    const char *message;  /* INFO / WARN */
} eb_run_progress;

/* Called from board threads: the callee serialises. */
typedef void (*eb_run_progress_fn)(void *user, const eb_run_progress *p);
typedef void (*eb_run_step_fn)(void *user, const char *board, int step, double ms);

typedef struct eb_run_opts {
    const eb_profiles *profiles;
    eb_run_board *boards;
    int n_boards;
    /* Tier names; "all" = the chip's tiers without PSRAM (the docs' main
     * table), "psram" = its PSRAM tiers; none = "all". */
    const char *tiers[EB_RUN_MAX_TIERS];
    int n_tiers;
    unsigned tests;         /* bit per enum eb_test and EB_RUN_LATENCY; 0 = the four throughput tests */
    int latency_count;      /* probes per latency test; 0 = EB_RUN_LATENCY_COUNT */
    double latency_interval_s; /* between probes; 0 = EB_RUN_LATENCY_INTERVAL */
    const char *latency_method; /* "udp-echo", "icmp"; NULL = the dialect's (udp-echo where the
                                 * firmware serves it, else icmp) */
    bool latency_under_load;    /* probe round trips during each throughput test too (a latency
                                 * set tagged with the test: eb_latency.under_load) */
    double duration_s;      /* default 10 */
    double interval_s;      /* default 1 */
    double warmup_s;        /* < 0: one interval (default) */
    int repeat;             /* default 1 */
    double udp_rate_mbps;   /* 0: per test and chip, see eb_run_udp_rate */
    eb_sweep sweep;         /* --sweep: the tests run at each point (n = 0: no sweep) */
    /* --band, --bandwidth, --phy, --power-save (--listen-interval), --coex:
     * the board's radio at each point of their product (dims.h), crossed
     * with the tiers; none asked: the board keeps what it runs. */
    eb_radio_values radio;
    /* --aggregate: the boards start each test together, into one AP (every
     * board needs the same plan); under --sim their virtual boards share the
     * AP's medium (model link "stations"). */
    bool aggregate;
    const char *ssid;
    const char *password;   /* never printed; redacted from console logs */
    const char *out_dir;    /* results.json, results.csv, logs */
    bool resume;            /* keep finished tests of out_dir/results.json */
    int shard_index, shard_total; /* 0/0 = no sharding */
    int retries;            /* per test after a reboot or a lost connection; < 0 → 2 */
    /* How long past its end a test's traffic may go on before the test
     * counts as stalled; 0 = 5 s + 2 intervals (eb_run_grace_s). */
    double grace_s;
    uint32_t baud;          /* console baud; 0 = 115200 */
    const char *stub;       /* --stub for tier images flashed by the run (flash.h); NULL = "off" */
    const char *manifest;   /* for stock firmware: flash each tier's image; NULL = default */
    const char *firmware;   /* manifest firmware name for stock tiers; NULL = "iperf-example" */
    const char *iperf;      /* PC iperf program; NULL = eb_iperf_program() */
    const char *iperf_version; /* already probed (eb_run_resolve); NULL = eb_run probes it */
    /* The PC side: iperf2, ping, UDP echo (pc.h); NULL = this computer's
     * (eb_pc_host). Tests pass a scripted PC (eb_pc_fake_load). */
    struct eb_pc *pc;
    const char *env;        /* --env: the setting (shield-box, air, cable, free text); NULL = unknown */
    /* --pattern: every board runs a firmware of its own, described by a
     * pattern file with a commands: block (pattern.h); NULL = a built-in
     * dialect. See eb_run_apply_pattern. */
    const struct eb_pattern *pattern;
    /* Lab instruments (docs/instruments.md): the lab file whose instruments:
     * the run drives (set by eb_run_resolve); --ap NAME, the access point to
     * power (every other AP on a switch is powered off) and set; --ap-set
     * "band=5g,channel=36,bandwidth=40,txpower=15", its settings for the
     * whole run. NULL = none. */
    const struct eb_lab *lab;
    const char *ap_name;
    const char *ap_set;
    double settle_s;        /* --settle: after an attenuation change, before the board's RSSI is read; 0 = 2 s */
    /* When set: a copy of each entry and latency set this run finished
     * (ok or failed), in the order they finished — the summary's
     * (eb_run_summary_text). The caller frees it. */
    eb_results *finished;
    volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM: stop cleanly, keep results */
    eb_run_progress_fn progress;
    eb_run_step_fn step;
    void *user;
} eb_run_opts;

/* The stall allowance of a test (opts grace_s, or its default). */
double eb_run_grace_s(const eb_run_opts *o);

typedef struct eb_run_summary {
    int planned, done, skipped, failed, not_run; /* the last four add up to planned */
    double step_ms[EB_STEP_COUNT]; /* summed over boards */
    double wall_s, test_s;         /* wall time, configured test time */
    char iperf_version[64];
} eb_run_summary;

/* The four throughput tests (tcp/udp tx/rx): the tests of a run that names none. */
#define EB_RUN_THROUGHPUT_TESTS ((1u << EB_TEST_COUNT) - 1)
/* Fills defaults into o (0 fields): the one place a run's defaults are set. */
void eb_run_opts_defaults(eb_run_opts *o);
/* The tests o asks for, its default when it names none (as eb_run_opts_defaults). */
unsigned eb_run_tests(const eb_run_opts *o);
/* Duration, interval and warm-up leave at least one full steady interval
 * (defaults applied as eb_run_opts_defaults would); EB_ECONFIG otherwise. */
int eb_run_check_timing(const eb_run_opts *o, eb_error *err);
/* Refuses to overwrite a previous run: out_dir/results.json exists and not
 * o->resume → EB_ECONFIG. */
int eb_run_check_out(const eb_run_opts *o, eb_error *err);

/* UDP offered rate for a test: o->udp_rate_mbps; else for UDP RX (the PC
 * sends) the chip's udp_rx_rate_mbps (ESP-IDF's iperf test utility caps the
 * PC's rate per chip: C2 60, C3/C6 70, S2 85, others 100 Mbit/s); else for
 * UDP TX 1.3 × the tier's reference figure, 100 Mbit/s when none. chip may
 * be NULL (100). */
double eb_run_udp_rate(const eb_run_opts *o, const eb_chip *chip, const eb_tier *t, int test);

/* One point of a board's plan: the test and every dimension row's value
 * there, indexed by row (dims.h): a number, or for a row of names the
 * index of its name (the tier's: in the chip's tiers); NAN where the row
 * has none (not asked, or its value does not reach the test). The UDP
 * offered rate is there for a UDP test: the sweep point's, --udp-rate, else
 * eb_run_udp_rate. */
typedef struct eb_run_item {
    const eb_chip *chip; /* whose plan it is (the tier row's names) */
    int test;
    double at[EB_DIM_MAX];
} eb_run_item;
/* The item's tier (its row's value in the chip's tiers) and repeat. */
const eb_tier *eb_run_item_tier(const eb_run_item *it);
int eb_run_item_repeat(const eb_run_item *it);
/* Checks a sweep against the run, through the swept dimension's row
 * (jobs/run_dims.c): a link variable needs every board under --sim (rssi:
 * or a lab attenuator), attenuation an attenuator, udp-rate a UDP test and
 * no --udp-rate; tx-power is refused (no console command sets it yet).
 * EB_ECONFIG with one line. */
int eb_run_check_sweep(const eb_run_opts *o, eb_error *err);
/* The ordered plan of one board (jobs/run_dims.c): the cross product of
 * every row's values for this run (the rows asked as lists, outermost: one
 * association each; the tier; the swept row; the test; the repeat) after
 * sharding. Returns the count; items are written to out (up to cap). */
int eb_run_plan(const eb_run_opts *o, const eb_chip *chip, eb_run_item *out, int cap, eb_error *err);

/* CI shards: the planner keeps the matrix cells of one shard. */
/* Stable 32-bit hash (FNV-1a) of a matrix cell key "chip/tier/test". */
uint32_t eb_shard_hash(const char *key);
/* True if the cell `key` ("chip/tier/test", e.g. "esp32/iperf/tcp_tx") belongs
 * to shard `index` of `total` (index 1..total, like GitLab's CI_NODE_INDEX).
 * Every key belongs to exactly one shard; the split depends only on the key. */
bool eb_shard_select(int index, int total, const char *key);
/* Writes the cell key into out ("chip/tier/test"). */
void eb_shard_key(char *out, size_t size, const char *chip, const char *tier, int test);
/* Parses "i/N" (1 <= i <= N); EB_ECONFIG with a message otherwise. */
int eb_shard_parse(const char *s, int *index, int *total, eb_error *err);
/* pytest-embedded's --parallel-count N --parallel-index I (1-based) as the
 * shard I/N; EB_ECONFIG when one is missing or out of range. */
int eb_shard_from_parallel(const char *count, const char *index, int *shard_index, int *shard_total, eb_error *err);

/* ---- resolve: from what the user asked for to the boards of a run ---- */

#define EB_RUN_MAX_SIM_FAULTS 8

/* What the command line (or another front end) asked for. */
typedef struct eb_run_request {
    const char *chip;         /* --chip; with a lab file: keep that chip's boards */
    const char *port;         /* --port URL of a lone board */
    const char *lab_file;     /* --lab FILE */
    const char *dialect;      /* --dialect: forced on every board */
    const char *ssid;         /* --ssid; else the lab file's, else EB_SIM_SSID with --sim */
    const char *password_env; /* --password-env VAR; NULL = EB_LAB_DEFAULT_PASSWORD_ENV if set */
    const char *pc_address;   /* --pc-address */
    uint16_t iperf_port;      /* 0 = 5001 */
    const char *out_dir;      /* --out; NULL = espbench-CHIP-YYYYMMDD-HHMMSS */
    const char *profiles_dir; /* NULL = the default search path */
    bool sim;                 /* start a virtual board per board */
    double sim_noise_pct;
    const char *sim_project, *sim_idf;
    const char *sim_image;    /* --sim-image: the app image the virtual boards get; NULL = made by mkimage */
    bool sim_model;           /* --sim-model: the tier model everywhere (docs/model.md) */
    eb_model_link sim_link;   /* --sim-rssi/--sim-phy/--sim-rtt/--sim-loss */
    bool sim_link_set;        /* sim_link was given (else the model's default link) */
    const char *sim_faults[EB_RUN_MAX_SIM_FAULTS];
    int n_sim_faults;
    /* ESP-Hosted: --coprocessor CHIP, --transport BUS, --coprocessor-port URL. */
    const char *coprocessor, *transport, *coprocessor_port;
    /* Board to board: --peer-port URL (hardware), --peer-chip CHIP (default
     * --chip; with --sim a second virtual board), --peer-tier T. */
    const char *peer_port, *peer_chip, *peer_tier;
    /* --far-end URL: every board's far end is the end driver that claims
     * the URL (docs/architecture.md "Adding an end"); NULL = the PC. */
    const char *far_end;
    /* --qemu: an emulated ESP32-C3 (docs/emulator.md); --qemu-bin PATH (NULL =
     * $ESPBENCH_QEMU or PATH), --qemu-image DIR (NULL = $ESPBENCH_QEMU_IMAGE),
     * and --qemu-image TIER=DIR, a tier's own image (its build-time settings),
     * as given ("TIER=DIR"). */
    bool qemu;
    const char *qemu_bin, *qemu_image;
    const char *qemu_tier_images[EB_RUN_MAX_TIERS];
    int n_qemu_tier_images;
} eb_run_request;

/* What resolving owns for the run's lifetime (eb_run_setup_free). */
typedef struct eb_run_setup {
    eb_profiles profiles;
    struct eb_lab *lab;        /* the lab file, when one was given */
    eb_run_board single;       /* a lone board */
    char password[65];         /* zeroed by eb_run_setup_free */
    char out_dir[256];
    char iperf_version[64];
    struct eb_sim **sims;      /* one per board with --sim */
    int n_sims;
    struct eb_sim **peer_sims; /* --sim board to board: one per board's peer */
    int n_peer_sims;
    struct eb_hosted_set *hosted; /* ESP-Hosted pair profiles, with --coprocessor */
    char hosted_manifest[448];    /* --sim: the pair's images, made by run_hosted.c */
    bool bad_request;          /* the error is the request's own (a usage error) */
    struct eb_dir_lock *out_lock; /* one writer per results folder (dir_lock.h), held to eb_run_setup_free */
    struct eb_run_qemu *qemu;  /* --qemu: the emulated board and its images (run_qemu.c) */
} eb_run_setup;

/* One step from request to a runnable eb_run_opts: loads the profiles and
 * the lab file, keeps the --chip boards of a lab, applies --dialect, takes
 * the Wi-Fi password from the lab file's source or the environment (never a
 * flag), defaults the SSID and output folder, checks every chip has a
 * profile and that a previous run is not overwritten, probes the PC's
 * iperf2, and with --sim starts a virtual board per board (announced through
 * o->progress) and points the board at it. o keeps its test options
 * (tiers, tests, timing, callbacks) and gets profiles, boards, ssid,
 * password, out_dir and iperf_version, which point into st. Errors: EB_ECONFIG
 * (one line: what the request lacks), EB_EIO (iperf2, vboard). st must be
 * freed with eb_run_setup_free whatever the result. */
int eb_run_resolve(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
/* Stops the virtual boards, zeroes the password, frees. */
void eb_run_setup_free(eb_run_setup *st);

/* --pattern (run_pattern.c): sets o->pattern after checking that p has a
 * commands: block with both test commands, and limits the tests to the
 * pattern's protocol (its two tests when none were asked for; a test of
 * the other protocol is refused). EB_ECONFIG with one line otherwise. */
int eb_run_apply_pattern(eb_run_opts *o, const struct eb_pattern *p, eb_error *err);

/* --pattern for a run: refused with --sim (the virtual board speaks the
 * built-in dialects only) or --dialect (*usage set), else
 * eb_run_apply_pattern (p NULL: the request's checks only, before the
 * pattern is loaded). EB_ECONFIG with one line. */
int eb_run_use_pattern(const eb_run_request *rq, eb_run_opts *o, const struct eb_pattern *p, bool *usage,
                       eb_error *err);
/* --parallel-count / --parallel-index (pytest-embedded's spelling of a
 * shard; NULL, NULL = not given) into o's shard, refused beside --shard. */
int eb_run_parallel_shard(eb_run_opts *o, const char *count, const char *index, eb_error *err);

/* ---- what `run` shows (run_summary.c): rendered here, printed by the CLI ---- */

enum eb_run_text { EB_RUN_TEXT_NONE, EB_RUN_TEXT_LINE, EB_RUN_TEXT_WARN, EB_RUN_TEXT_LIVE };
/* A progress event as text appended to out, and where it goes: a line for
 * stdout, a warning line for stderr, a live line overwriting the last
 * (a terminal with one board), or nothing. */
int eb_run_progress_text(const eb_run_progress *p, int n_boards, bool tty, eb_buf *out);
/* The summary after a run: the latency and throughput tables of what it
 * finished (eb_run_opts.finished; NULL = none), with each figure's
 * difference to the docs and the board-to-board footnote; the time per step
 * (step_times); the count line naming out_dir/results.json. */
void eb_run_summary_text(const eb_results *finished, const eb_run_summary *s, const char *out_dir, int n_boards,
                         bool step_times, eb_buf *out);
/* mean / docs' figure - 1, in %; NAN without a figure. */
double eb_run_docs_diff_pct(const eb_entry *e);
/* After a run: ESP-IDF CI's performance lines of out_dir/results.json into
 * lines (perf_lines), and its OpenMetrics text into the file metrics (NULL
 * = none), rendered as `report` does. */
int eb_run_figures(const char *out_dir, const char *profiles_dir, bool perf_lines, const char *metrics,
                   eb_buf *lines, eb_error *err);

/* Runs everything. Results so far are saved after each test; returns 0,
 * EB_EINTR when stopped, or the first board error (one line). */
int eb_run(const eb_run_opts *o, eb_run_summary *sum, eb_error *err);

#endif
