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

#include "espbench/error.h"
#include "espbench/profile.h"
#include "espbench/results.h"

#define EB_RUN_MAX_TIERS 32

/* One board of the run. */
typedef struct eb_run_board {
    char name[48];          /* lab board name; "sim" for --sim; "" for a lone board */
    char port[256];         /* port URL (port.h) */
    char chip[24];          /* profile chip name */
    char pc_ip[48];         /* the PC address this board talks to */
    uint16_t iperf_port;    /* the port both iperf ends use for this board */
    char dialect[32];       /* force a console dialect; "" = detect */
    char fw_sha256[72];     /* SHA-256 (hex) of the application image when known (--sim) */
} eb_run_board;

/* Lower-case hex SHA-256 of data into out (65 bytes). */
void eb_sha256_hex(const void *data, size_t len, char out[65]);

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
};

typedef struct eb_run_progress {
    int event;            /* enum eb_run_event */
    const char *board, *chip, *tier;
    int test, repeat;
    int index, total;     /* 1-based position of this test in the board's plan */
    double elapsed_s, duration_s, current_mbps;
    const eb_entry *entry;/* TEST_DONE */
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
    unsigned tests;         /* bit per enum eb_test; 0 = all four */
    double duration_s;      /* default 10 */
    double interval_s;      /* default 1 */
    double warmup_s;        /* < 0: one interval (default) */
    int repeat;             /* default 1 */
    double udp_rate_mbps;   /* 0: 1.3 × the tier's reference figure (100 when none) */
    const char *ssid;
    const char *password;   /* never printed; redacted from console logs */
    const char *out_dir;    /* results.json, results.csv, logs */
    bool resume;            /* keep finished tests of out_dir/results.json */
    int shard_index, shard_total; /* 0/0 = no sharding */
    int retries;            /* per test after a reboot or a lost connection; < 0 → 2 */
    uint32_t baud;          /* console baud; 0 = 115200 */
    const char *manifest;   /* for stock firmware: flash each tier's image; NULL = default */
    const char *firmware;   /* manifest firmware name for stock tiers; NULL = "iperf-example" */
    const char *iperf;      /* PC iperf program; NULL = eb_iperf_program() */
    const char *env;        /* --env: the setting (shield-box, air, cable, free text); NULL = unknown */
    volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM: stop cleanly, keep results */
    eb_run_progress_fn progress;
    eb_run_step_fn step;
    void *user;
} eb_run_opts;

typedef struct eb_run_summary {
    int planned, done, skipped, failed;
    double step_ms[EB_STEP_COUNT]; /* summed over boards */
    double wall_s, test_s;         /* wall time, configured test time */
    char iperf_version[64];
} eb_run_summary;

/* Fills defaults into o (0 fields). */
void eb_run_opts_defaults(eb_run_opts *o);

/* UDP offered rate for a test: o->udp_rate_mbps, else 1.3 × the reference
 * figure, else 100 Mbit/s. */
double eb_run_udp_rate(const eb_run_opts *o, const eb_tier *t, int test);

/* The ordered plan of one board: tier × test × repeat after sharding.
 * Returns the count; items are written to out (up to cap). */
typedef struct eb_run_item {
    const eb_tier *tier;
    int test, repeat;
} eb_run_item;
int eb_run_plan(const eb_run_opts *o, const eb_chip *chip, eb_run_item *out, int cap, eb_error *err);

/* Runs everything. Results so far are saved after each test; returns 0,
 * EB_EINTR when stopped, or the first board error (one line). */
int eb_run(const eb_run_opts *o, eb_run_summary *sum, eb_error *err);

#endif
