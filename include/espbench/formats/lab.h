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
#define EB_LAB_DEFAULT_PASSWORD_ENV "ESPBENCH_WIFI_PASSWORD"

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
    char file[512];
} eb_lab;

/* Parses lab YAML text, pure (formats/lab_parse.c): the password's source
 * is recorded, not read; base_dir resolves password_file. */
int eb_lab_parse(eb_lab *lab, const char *text, size_t len, const char *name, const char *base_dir,
                 eb_error *err);
void eb_lab_free(eb_lab *lab);

#endif
