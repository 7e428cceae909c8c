/* Console dialect drivers: one per firmware dialect (dialect.h), in a table.
 * A driver knows which commands to send and how to read the replies; the run
 * job only calls the operations below. Stock iperf-example dialects share
 * one engine parameterised by a row of data (prompt, command names, markers,
 * unit base); the espbench firmware has its own machine-readable protocol
 * (docs/console-protocol.md). */
#ifndef ESPBENCH_CONSOLE_DRIVER_H
#define ESPBENCH_CONSOLE_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/protocols/console.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/results.h"

typedef struct eb_wifi_info {
    char ssid[33];
    int rssi;          /* dBm; 0 unknown */
    int channel;       /* 0 unknown */
    char ip[48], mask[48], gw[48];
} eb_wifi_info;

typedef struct eb_mem_info {
    long free_internal;     /* bytes, -1 unknown */
    long min_free_internal; /* low-water mark since boot, -1 unknown */
    long largest_block;     /* -1 unknown */
} eb_mem_info;

/* The association as the firmware reports it (the espbench console's
 * `link`): "" / 0 where it says nothing. */
typedef struct eb_link_info {
    int rssi, channel, bw_mhz;
    char second[8];  /* HT40 secondary: above, below, none */
    char band[12];   /* "2.4GHz", "5GHz" */
    char phy[16];    /* negotiated: "11n", "11ax" ... */
    char ps[16];
    char net[8];     /* "eth": the Ethernet image's link (docs/console-protocol.md) */
    char ip[48];     /* the board's address, where the reply gives it */
} eb_link_info;

/* One board-side iperf run. */
typedef struct eb_board_iperf {
    bool board_sends;       /* board is the client (TX test) */
    bool udp;
    char peer[64];          /* PC address when the board sends */
    uint16_t port;
    double time_s, interval_s;
    double udp_rate_mbps;   /* board client -b (decimal Mbit/s), 0 = none */
    char options[64];       /* more options of the run's dimensions (" -l 1470"), appended as given */
} eb_board_iperf;

/* What the board printed about a running iperf. Intervals are in decimal
 * Mbit/s whatever the dialect's unit base. */
typedef struct eb_board_run {
    eb_interval *iv;
    int n, cap;
    bool started;           /* socket created / listening / connecting */
    bool connected;
    bool done;              /* the board's iperf finished */
    bool failed;            /* the board reported an error */
    char msg[256];          /* the board's error text */
    double summary_mbps;    /* NAN when none */
} eb_board_run;

void eb_board_run_reset(eb_board_run *r);
void eb_board_run_free(eb_board_run *r);

typedef struct eb_console_driver eb_console_driver;

struct eb_console_driver {
    int dialect;               /* enum eb_dialect */
    const char *name;          /* eb_dialect_name() */
    const char *const *prompts;/* NULL-terminated */
    bool runtime_tiers;        /* set_tier works without flashing */
    const void *row;           /* dialect data for shared engines */

    /* Waits for the prompt after boot or reset. */
    int (*ready)(const eb_console_driver *drv, eb_console *c, eb_deadline d, eb_error *err);
    /* Asks the firmware who it is (project, versions, chip, MAC) into b;
     * NULL when the boot log is all there is. */
    int (*identify)(const eb_console_driver *drv, eb_console *c, eb_console_boot_info *b,
                    eb_deadline d, eb_error *err);
    /* Switches the tier at run time (NULL: the tier needs its own image). */
    int (*set_tier)(const eb_console_driver *drv, eb_console *c, const eb_tier *t, eb_deadline d,
                    eb_error *err);
    /* After set_tier: which of t's build-time settings the board runs with other
     * values (one image serves every tier, built with the largest lwIP buffers),
     * as "key=board (tier value)" pairs in note, "" when all match. NULL when
     * the firmware is built per tier. */
    int (*tier_built)(const eb_console_driver *drv, eb_console *c, const eb_tier *t, char *note,
                      size_t cap, eb_deadline d, eb_error *err);
    /* Scans for ssid; fills rssi/channel. EB_EIO "AP ... not found" if absent. */
    int (*scan)(const eb_console_driver *drv, eb_console *c, const char *ssid, eb_wifi_info *w,
                eb_deadline d, eb_error *err);
    /* Connects and waits for the IP address. */
    int (*connect)(const eb_console_driver *drv, eb_console *c, const char *ssid, const char *pass,
                   eb_wifi_info *w, eb_deadline d, eb_error *err);
    int (*memory)(const eb_console_driver *drv, eb_console *c, eb_mem_info *m, eb_deadline d,
                  eb_error *err);
    /* Sends the iperf command and waits until it started (server listening or
     * client connecting); lines read meanwhile are fed to run. */
    int (*iperf_start)(const eb_console_driver *drv, eb_console *c, const eb_board_iperf *cfg,
                       eb_board_run *run, eb_deadline d, eb_error *err);
    /* Interprets one console line during a run. Pure. */
    void (*iperf_line)(const eb_console_driver *drv, const eb_board_iperf *cfg, const char *line,
                       eb_board_run *run);
    /* Stops a running iperf (or does nothing when it already finished). */
    int (*iperf_abort)(const eb_console_driver *drv, eb_console *c, eb_deadline d, eb_error *err);
    /* Stops a running iperf and waits, up to d, for the board's line that
     * it ended (run->done; every line on the way goes to iperf_line). 0 when
     * the abort was answered, done or not: the caller reads run->done. NULL:
     * the dialect prints no such line (iperf_abort alone). */
    int (*iperf_stop)(const eb_console_driver *drv, eb_console *c, const eb_board_iperf *cfg, eb_board_run *run,
                      eb_deadline d, eb_error *err);
    /* Radio settings (dims.h's radio dimensions), "band=5 bw5=40" in the
     * espbench console's spelling; the board's reply (what it runs now) in
     * now. A setting the firmware refuses is EB_ECONFIG with its reason.
     * NULL: the firmware cannot set them (the stock examples). */
    int (*radio_set)(const eb_console_driver *drv, eb_console *c, const char *settings, char *now, size_t cap,
                     eb_deadline d, eb_error *err);
    /* The association now (NULL: the firmware does not say). */
    int (*link)(const eb_console_driver *drv, eb_console *c, eb_link_info *l, eb_deadline d, eb_error *err);
};

/* The driver of a firmware of one's own, described by a pattern file with a
 * commands: block (pattern.h, drv_pattern.c): its commands start a test, its
 * rules read the lines. The caller keeps the storage (one per board) and the
 * pattern alive while the driver is used. */
struct eb_pattern;
typedef struct eb_pattern_driver {
    eb_console_driver drv;
    const char *prompts[2];
} eb_pattern_driver;
void eb_pattern_driver_init(eb_pattern_driver *pd, const struct eb_pattern *p);

/* The table, in enum eb_dialect order. */
const eb_console_driver *eb_console_driver_get(int dialect); /* NULL if none */
const eb_console_driver *eb_console_driver_by_name(const char *name);

/* Dialect from what the boot log said (project, IDF version, chip), then from
 * the prompt seen; EB_DIALECT_UNKNOWN if it cannot tell. */
int eb_console_guess_dialect(const eb_console_boot_info *b, const char *prompt_seen);

/* Waits for the board to be ready in whatever dialect it speaks: syncs on a
 * prompt, asks `version` when the boot log was missed, returns the driver. */
int eb_console_detect(eb_console *c, const char *chip, const eb_console_driver **out,
                      eb_deadline d, eb_error *err);

#endif
