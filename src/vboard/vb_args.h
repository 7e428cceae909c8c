/* espbench-vboard's command line (docs/vboard.md). */
#ifndef VB_ARGS_H
#define VB_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "espbench/base/error.h"
#include "vb_board.h"

typedef struct vb_opts {
    const char *chip;
    const char *link;
    const char *flash;
    const char *control;
    const char *profiles;
    char ip[16];
    vb_ap aps[VB_MAX_APS];
    int n_aps;
    bool baud_timing;
    bool flash_timing;
    bool forgiving;
    bool sync_resets;
    bool ethernet;          /* --ethernet: the espbench image is its Ethernet (open_eth) build */
    uint32_t seed;
    double noise_pct;
    vb_fault faults[VB_MAX_FAULTS];
    int n_faults;
    bool force_model;       /* --model */
    eb_model_link model_link; /* --rssi, --phy, --rtt, --loss */
    const char *coprocessor, *transport; /* an ESP-Hosted pair (vb_hosted.c) */
    const char *sdkconfig_json; /* --sdkconfig-json: the build's settings (build/config/sdkconfig.json) */
} vb_opts;

extern const char vb_usage[];

/* Parses the board's options (argv[0] is the program). EB_ECONFIG on error. */
int vb_args_parse(int argc, char **argv, vb_opts *o, eb_error *err);
/* "SSID:PASS:RSSI" or "SSID:env:VAR:RSSI" (password from the environment). */
int vb_parse_ap(const char *spec, vb_ap *ap, eb_error *err);
/* A loopback address 127.X.Y.Z. */
int vb_parse_ip(const char *s, char out[16], eb_error *err);

#endif
