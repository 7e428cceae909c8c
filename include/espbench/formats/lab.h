/* The lab file (`run --lab lab.yaml`): the AP, the PC address and the boards
 * of a bench. The Wi-Fi password is never in the file itself: the file names
 * an environment variable (ap.password_env) or a file (ap.password_file,
 * relative to the lab file) that holds it. Format: docs/run.md. */
#ifndef ESPBENCH_LAB_H
#define ESPBENCH_LAB_H

#include <stdbool.h>

#include "espbench/base/error.h"
#include "espbench/formats/board_spec.h"

#define EB_LAB_MAX_BOARDS 64
#define EB_LAB_MAX_INSTRUMENTS 16
#define EB_INSTR_MAX_SERVED 8
#define EB_LAB_DEFAULT_PASSWORD_ENV "ESPBENCH_WIFI_PASSWORD"

/* A lab instrument (docs/instruments.md): what it is, how to reach it and
 * what it serves. The password is never in the file: password_env or
 * password_file names its source, read when the instrument is opened
 * (adapters/instrument.h). */
enum eb_instr_kind { EB_INSTR_NONE, EB_INSTR_ATTENUATOR, EB_INSTR_AP, EB_INSTR_POWER, EB_INSTR_KIND_COUNT };

typedef struct eb_instr_spec {
    char name[48];
    int kind;                  /* enum eb_instr_kind */
    char driver[32];           /* "idf-serial", "minicircuits-http", "weinschel-telnet", "openwrt", "apc", ... */
    char address[256];         /* port URL, http://host[:port], host[:port] or a control socket path */
    char user[64];             /* "" = the driver's default */
    char password_env[128];    /* "" if none */
    char password_file[600];   /* resolved against the lab file's folder, "" if none */
    int channel;               /* attenuator: its path (1-based, 0 = the only one) */
    char radio[32];            /* AP: OpenWrt's wifi-device section ("radio0") or hostapd's interface */
    char ssid[33];             /* AP: the SSID it serves ("" = the lab's ap.ssid) */
    char power[48];            /* AP: the power switch instrument feeding it ("" = none) */
    int outlet;                /* AP: that switch's outlet (1-based) */
    char serves[EB_INSTR_MAX_SERVED][48]; /* attenuator: the boards it sits in front of (none = all) */
    int n_serves;
    char at[320];              /* "lab.yaml:LINE:COL" of the entry, for messages */
} eb_instr_spec;

typedef struct eb_lab {
    char ssid[33];
    char password[65];      /* zeroed by eb_lab_free */
    bool has_password;
    char password_source[300]; /* "env LAB_PASS" / "file /path", for messages */
    char password_env[128];    /* ap.password_env, "" if none */
    char password_file[600];   /* ap.password_file resolved against the lab file's folder, "" if none */
    int password_line, password_col; /* where the file names the source, for errors */
    char pc_ip[48];
    eb_run_board boards[EB_LAB_MAX_BOARDS];
    int n_boards;
    eb_instr_spec instruments[EB_LAB_MAX_INSTRUMENTS];
    int n_instruments;
    char file[512];
} eb_lab;

/* Parses lab YAML text, pure (formats/lab_parse.c): the password's source
 * is recorded, not read; base_dir resolves password_file. */
int eb_lab_parse(eb_lab *lab, const char *text, size_t len, const char *name, const char *base_dir,
                 eb_error *err);
void eb_lab_free(eb_lab *lab);

/* "attenuator", "ap", "power"; "" out of range. */
const char *eb_instr_kind_name(int kind);
/* The instrument of that name, or NULL. */
const eb_instr_spec *eb_lab_instrument(const eb_lab *lab, const char *name);
/* The attenuator in front of a board (by the board's name): the one whose
 * serves: lists it, else the one that serves every board; NULL when none. */
const eb_instr_spec *eb_lab_attenuator_of(const eb_lab *lab, const char *board);
/* The access points, in file order, into out; returns how many. */
int eb_lab_access_points(const eb_lab *lab, const eb_instr_spec **out, int cap);

#endif
