/* The virtual board's console internals shared by vb_console.c (line editor,
 * boot log, iperf plumbing, faults) and the dialect drivers
 * (vb_dialect_stock.c: the stock iperf example per ESP-IDF version;
 * vb_dialect_espbench.c: the espbench firmware over espbench_core).
 * A dialect is one vb_dialect_driver; see docs/console-dialects.md. */
#ifndef VB_DIALECT_H
#define VB_DIALECT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "espbench_core.h"
#include "vb_board.h"
#include "vb_traffic.h"
#include "vb_wifi.h"

/* The traffic engine as the console uses it; tests substitute a fake. */
typedef struct vb_traffic_ops {
    int (*start)(vb_iperf **out, const vb_iperf_cfg *cfg, vb_iperf_report_fn fn, void *user, eb_error *err);
    bool (*running)(vb_iperf *ip);
    void (*abort)(vb_iperf *ip);
    void (*free)(vb_iperf *ip);
    uint64_t (*total_bytes)(vb_iperf *ip);
} vb_traffic_ops;

typedef struct vb_dialect_driver vb_dialect_driver;

/* What one iperf run asks of the engine, in dialect-neutral terms. */
typedef struct vb_iperf_req {
    bool server, udp;
    char host[64];
    uint16_t port;
    int len;
    double interval_s, time_s, bw_mbps;
} vb_iperf_req;

/* Per-run state the report callback keeps (guarded by run_lock). */
typedef struct vb_iperf_run {
    vb_iperf_req req;
    int test;                /* enum eb_test */
    int id;                  /* iperf-cmd 1.0 instance id */
    char fmt;                /* -f unit ('m', 'k', 'M', 'K') */
    bool connected;
    bool done;
    bool no_stop;            /* the no-stop fault: an abort leaves it running (vb_faults.c) */
    double sum_mbps;         /* interval rates summed (decimal Mbit/s), for mean-of-intervals */
    int n_intervals;
    uint64_t bytes;
    double last_end_s;       /* the last interval's end */
    uint64_t t0_ms;          /* when the run connected (its engine's time 0), 0 before */
    int source;                 /* enum eb_figure_source of the shaped rate */
    double queue_ms;            /* the echo's model wait behind this run's traffic (vb_console_load_queue_ms) */
} vb_iperf_run;

struct vb_console {
    vb_board *b;
    pthread_mutex_t lock;       /* console state (commands); never held by the report thread */
    pthread_mutex_t run_lock;   /* iperf run state and output ordering of reports */
    const vb_dialect_driver *drv;
    int dialect;                /* enum eb_dialect */
    int idf_key;                /* ESP-IDF major*100+minor of the app, 0 if unknown */
    double test_efficiency;     /* the image's test-only factor on shaped rates; 1 = none */
    int idf_patch;
    char project[33], idf[33], app_version[33];
    char build_tier[32];        /* the image's test-only build tier ("" = none; esp_image.h) */
    uint64_t boot_ms;
    unsigned long boot_bias_ms;
    bool running_app;           /* booted and taking commands */
    bool dead;                  /* panicked: no more output until the next boot */
    /* line editor */
    char line[EBC_LINE_MAX];
    size_t len;
    int esc;                    /* inside an escape sequence */
    bool last_cr;
    bool overflow;
    /* Wi-Fi */
    bool connected;
    bool no_ap;                 /* `no-ap` fault fired: APs gone until the next boot */
    bool no_wifi_start;         /* `wifi-start` fault fired: esp_wifi_start fails until the next boot */
    char ssid[33];
    char ip[16], mask[16], gw[16];
    /* the tier the board runs (profile row, NULL for settings without one),
     * the settings it runs with (runs: the espbench image's build-time
     * fields), its memory figures and where they come from */
    const eb_tier *tier;
    eb_tier runs;
    bool have_runs;
    eb_tier as_built;   /* runs with the image's default build (eb_model_as_built), before the build's settings */
    uint32_t heap_free, heap_min;
    int heap_source;            /* enum eb_figure_source */
    /* iperf */
    vb_traffic_ops traffic;
    vb_iperf *iperf;
    vb_iperf_run run;
    int next_id;
    pthread_t aborter;
    bool aborter_active;
    /* ESP-Hosted raw throughput report of a raw-tp image (vb_hosted.c) */
    struct vb_rawtp *rawtp;
    /* espbench firmware */
    ebc_core core;
    ebc_build build;
    ebc_ops ops;
    char build_fw[33], build_idf[33], build_chip[24], build_mac[18];
    char build_sdkconfig[120];  /* fw_provenance.c: < 120 characters */
};

/* Applies runtime settings that match no profile row (espbench firmware). */
void vb_con_set_custom_tier(vb_console *c, const bool *set, const int *value, int n_fields);

struct vb_dialect_driver {
    int dialect;
    /* After the app start-up lines: app logs, banner, REPL probe and banner
     * (prompt excluded). */
    void (*banner)(vb_console *c);
    const char *(*prompt)(vb_console *c);
    /* One complete line typed by the host (without line end). */
    void (*line)(vb_console *c, char *line);
    /* An engine report for the current run (called with run_lock held). */
    void (*report)(vb_console *c, const vb_iperf_report *r);
    /* Wi-Fi dropped (fault): print what the firmware prints. */
    void (*wifi_lost)(vb_console *c, int reason);
};

/* Drivers (vb_dialect_stock.c, vb_dialect_espbench.c). */
const vb_dialect_driver *vb_dialect_stock_driver(int dialect);
const vb_dialect_driver *vb_dialect_espbench_driver(void);
/* espbench: sets up c->build/ops/core for the chip and emits the boot event. */
void vb_dialect_espbench_boot(vb_console *c);

/* --- services of vb_console.c for the drivers --- */

/* "I (1234) tag: text\r\n" with the time since boot; level 'I', 'W' or 'E'. */
void vb_con_log(vb_console *c, char level, const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Raw text (drivers write "\r\n" line ends themselves). */
void vb_con_printf(vb_console *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vb_con_write(vb_console *c, const char *s, size_t n);
/* Scans the emulated APs (none after a `no-ap` fault). */
int vb_con_wifi_scan(vb_console *c, const char *ssid, vb_wifi_scan_entry *out, int max);
/* Connects to an emulated AP (0 or a reason code); on success c->connected,
 * c->ssid and the address fields are set. */
int vb_con_wifi_connect(vb_console *c, const char *ssid, const char *pass, int wrong_pass_reason);
/* Starts iperf for the current run (c->run.req filled by the driver). Returns
 * 0, or -1 with msg. Reports arrive at drv->report. */
int vb_con_iperf_start(vb_console *c, char *msg, size_t msg_len);
bool vb_con_iperf_running(vb_console *c);
void vb_con_iperf_abort(vb_console *c);
/* Selects the tier the board runs (memory and throughput model follow it). */
void vb_con_set_tier(vb_console *c, const eb_tier *t);
const eb_tier *vb_con_find_tier(vb_console *c, const char *name);
/* The tier a freshly booted image runs: the tier its descriptor names (app
 * version = tier name, or project/version = the tier's manifest image), else
 * the chip's "iperf" tier (the stock example's sdkconfig), else its first. */
const eb_tier *vb_con_boot_tier(vb_console *c);
void vb_con_restart(vb_console *c);
/* The SPI flash clock (MHz) an image for this chip gets by default: the boot
 * log's "SPI Speed" and the espbench firmware's `version` flash_mhz. */
unsigned vb_con_flash_mhz(const vb_console *c);

/* Test hook: replace the traffic engine (NULL restores vb_iperf_*). */
void vb_console_set_traffic(vb_console *c, const vb_traffic_ops *ops);

/* vb_radio.c: the radio settings' models (docs/dimensions.md): the PHY
 * ceiling of the mode into the link (true when it changes it), the 5 GHz
 * figure and a BLE activity's share on a figure, modem sleep's wait. */
bool vb_radio_link(const vb_console *c, eb_model_link *l);
void vb_radio_figure(const vb_console *c, int test, int *src, double *value);
double vb_radio_echo_wait_ms(const vb_console *c);

#endif
