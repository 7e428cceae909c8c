/* `run --sim`: a virtual board (espbench-vboard) started for a chip, flashed
 * with the espbench firmware image through the ROM loader like real
 * hardware, then handed to the run job as an ordinary port URL. */
#ifndef ESPBENCH_SIM_H
#define ESPBENCH_SIM_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "espbench/base/error.h"
#include "espbench/formats/model.h"
#include "espbench/formats/profile.h"

#define EB_SIM_SSID "espbench-sim"
#define EB_SIM_MAX_FAULTS 8

typedef struct eb_sim_opts {
    const eb_profiles *profiles;
    const char *chip;
    const char *name;          /* board name for file names ("sim", "sim-2") */
    const char *out_dir;       /* flash file, image, logs, pid file */
    const char *vboard;        /* program; NULL = $ESPBENCH_VBOARD, next to espbench, or PATH */
    const char *ssid;          /* the virtual AP; NULL = EB_SIM_SSID */
    const char *ap_password;   /* the virtual AP's password (given to the vboard via its env) */
    int rssi;                  /* 0 = -40 */
    double noise_pct;          /* 0 = noise off */
    uint32_t seed;
    const char *project;       /* image project; NULL = "espbench" (another name = the stock iperf example) */
    const char *idf;           /* IDF version of the image; NULL = "v5.3" */
    const char *app_image;     /* an app image to flash (e.g. built by eb_idf_build_firmware); NULL = mkimage's */
    const char *faults[EB_SIM_MAX_FAULTS]; /* --fault specs for the vboard */
    int n_faults;
    const char *profiles_dir;  /* --profiles overlay for the vboard too; NULL = none */
    bool force_model;          /* vboard --model */
    eb_model_link link;        /* vboard --rssi/--phy/--rtt/--loss (NAN/0 = published conditions) */
    const char *coprocessor;   /* an ESP-Hosted pair: vboard --coprocessor/--transport; NULL = none */
    const char *transport;
} eb_sim_opts;

typedef struct eb_sim eb_sim;

int eb_sim_start(eb_sim **out, const eb_sim_opts *o, eb_error *err);
const char *eb_sim_port(const eb_sim *s);  /* the pty path */
const char *eb_sim_app_sha256(const eb_sim *s); /* of the image flashed, hex */
const char *eb_sim_control(const eb_sim *s);    /* the vboard's control socket path */
/* Stops the vboard (SIGTERM, then SIGKILL), reaps it and frees. NULL is fine. */
void eb_sim_stop(eb_sim *s);

/* The vboard program: $ESPBENCH_VBOARD, else next to /proc/self/exe, else "espbench-vboard". */
void eb_sim_vboard_path(char *out, size_t cap);
/* A 127.X.Y.Z address no socket on this host uses (from /proc/net). */
int eb_sim_free_address(char *out, size_t cap, uint32_t salt, eb_error *err);

#endif
