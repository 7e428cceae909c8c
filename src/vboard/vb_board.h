/* The virtual board's shared state and the contracts between its modules:
 *   vb_main / vb_pty / vb_rom / vb_control (download mode, reset, faults, output pacing)
 *   vb_console (application mode: boot log, console dialects, Wi-Fi emulation)
 *   vb_traffic (iperf engine on loopback, see vb_traffic.h) */
#ifndef VB_BOARD_H
#define VB_BOARD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/formats/esp_image.h"
#include "espbench/formats/model.h"
#include "espbench/formats/profile.h"

#define VB_MAX_APS 8
#define VB_MAX_FAULTS 16

typedef struct vb_ap {
    char ssid[33];
    char pass[65];
    int rssi;
} vb_ap;

/* A fault spec from --fault or the control socket, "KIND[:ARG][@WHEN]".
 * Kinds and their meaning are documented in docs/vboard.md. */
typedef struct vb_fault {
    char kind[24];   /* "reboot", "stall", "zero", "garbage", "rom-checksum", "flash-write",
                        "wifi-disconnect", "slow-boot", "no-ap", ... */
    char arg[64];    /* kind-specific argument ("3" intervals, "500" ms, ...) */
    char when[32];   /* "" = next chance; "tcp_tx" = during that test; "2s" = 2 s into a test */
    bool armed;      /* cleared once the fault has fired (one-shot) */
} vb_fault;

enum vb_mode { VB_MODE_DOWNLOAD, VB_MODE_APP, VB_MODE_NO_APP };

typedef struct vb_console vb_console;

typedef struct vb_board {
    const eb_profiles *profiles;
    const eb_chip *chip;
    /* Flash, mapped from the flash file (MAP_SHARED) so it survives restarts. */
    uint8_t *flash;
    size_t flash_size;
    char ip[16];              /* the board's loopback address, "127.X.Y.Z" */
    vb_ap aps[VB_MAX_APS];
    int n_aps;
    uint32_t seed;
    double noise_pct;         /* throughput noise, percent of the model rate */
    /* The tier model (docs/model.md): published figures for published tiers
     * under published conditions, model figures otherwise or with
     * force_model. model is NULL without a constants file. link and
     * force_model change through the control socket: guarded by lock. */
    const eb_model *model;
    bool force_model;
    /* --sdkconfig-json: the build-time fields the flashed build got; the
     * figures follow them through the model (vb_console.c figure()). */
    eb_tier build;
    bool have_build;
    eb_model_link link;
    /* An attenuator between the APs and the board (control socket "atten"):
     * hundredths of a dB, -1 = none. Scans see each AP that much weaker and
     * the link model takes the board's AP's RSSI less it (vb_wifi.c). */
    int atten_cdb;
    bool baud_timing;
    bool flash_timing;        /* erase, program and MD5 take the flash part's time (vb_flash.h) */
    bool forgiving;           /* --forgiving: the old lenient loader (docs/vboard.md) */
    bool sync_resets;         /* --sync-resets: a SYNC while the app runs resets into the loader */
    bool ethernet;            /* --ethernet: the espbench image is its Ethernet build (docs/vboard.md) */
    uint32_t baud;            /* current host baud (follows termios and CHANGE_BAUDRATE) */
    vb_fault faults[VB_MAX_FAULTS];
    int n_faults;
    pthread_mutex_t lock;     /* guards faults and mode */
    enum vb_mode mode;
    vb_console *console;
    /* --coprocessor: the ESP-Hosted pair the board plays (vb_hosted.c), NULL otherwise. */
    const struct eb_hosted_pair *hosted;
    /* Output to the host through the pty, paced at the baud when baud_timing.
     * Safe from any thread; implemented by vb_pty.c. */
    void (*write)(struct vb_board *b, const void *data, size_t len);
    /* Requests a reset (from a panic, `restart` or a fault): the main loop
     * reboots into application mode (download=false) or download mode. */
    void (*request_reset)(struct vb_board *b, bool download, const char *reason);
    void *impl;
} vb_board;

void vb_board_printf(vb_board *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Takes (and disarms) an armed fault of this kind whose `when` matches
 * (NULL when = any). Returns true and copies it to out if one fired. */
bool vb_board_take_fault(vb_board *b, const char *kind, const char *when, vb_fault *out);

/* Sets link conditions / model forcing from "KEY=VALUE ..." (rssi, phy, rtt,
 * loss, model=on|off) or "published"; describes the state in reply. */
struct eb_buf;
int vb_board_link_cmd(vb_board *b, const char *spec, struct eb_buf *reply, eb_error *err);

/* The RSSI the board sees of AP i: its --ap RSSI less the attenuation. */
int vb_board_ap_rssi(const vb_board *b, int i);
/* Below this an ESP32 hears no beacon (ESP32 datasheet, receiver
 * sensitivity at 802.11b 1 Mbit/s, the rate beacons go at): a scan lists no
 * such AP and a connection finds none. */
#define VB_BEACON_SENS_DBM (-98)

/* --- vb_console.c (application mode) --- */
vb_console *vb_console_new(vb_board *b);
void vb_console_free(vb_console *c);
/* Prints the second-stage bootloader and app start-up lines for the app in
 * flash (info parsed from it), the console banner and the first prompt, in
 * the dialect the app's descriptor selects, and starts taking commands. */
void vb_console_boot(vb_console *c, const eb_image_info *app, const char *reset_reason);
/* Bytes typed by the host while in application mode. */
void vb_console_feed(vb_console *c, const uint8_t *data, size_t len);
/* Stops everything the app runs (iperf, Wi-Fi) before a reset. */
void vb_console_halt(vb_console *c);
/* The UDP port the running app echoes on (its dialect row's udp_echo_port),
 * 0 when it offers none, has not booted, panicked or has no address: a
 * board answers only what its firmware serves. */
unsigned vb_console_echo_port(vb_console *c);
/* While an iperf run's traffic flows: the model's wait of an echo behind it
 * (ms, >= 0; the station never sleeps then); -1 when no traffic runs. */
double vb_console_load_queue_ms(vb_console *c);

#endif
