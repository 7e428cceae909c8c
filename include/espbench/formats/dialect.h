/* Board console dialects: which firmware speaks on the console. The same
 * names are used by the parsers, the host-side console drivers, the vboard
 * and results.json. See ../docs/console-dialects.md.
 *
 * The rows are data: the files of profiles/dialects/ (espbench-profiles(5)),
 * compiled in, plus the dialects/ of the profile directories
 * (eb_dialects_load_default). The enum names the built-in rows whose output
 * grammar and behaviour code knows; a row loaded from YAML gets the next free
 * id and names the built-in grammar it prints (its `grammar`). */
#ifndef ESPBENCH_DIALECT_H
#define ESPBENCH_DIALECT_H

enum eb_dialect {
    EB_DIALECT_UNKNOWN = -1,
    EB_DIALECT_IDF_LEGACY,    /* ESP-IDF v3.x–v4.3 iperf example ("esp32>" ≤v4.1, "iperf>" v4.2+) */
    EB_DIALECT_ESP8266,       /* ESP8266_RTOS_SDK iperf example */
    EB_DIALECT_IDF_V44,       /* ESP-IDF v4.4–v5.0 */
    EB_DIALECT_IDF_V51,       /* ESP-IDF v5.1–v5.2 ("Mbits" = 2^20 bits) */
    EB_DIALECT_IPERF_CMD_01,  /* ESP-IDF v5.3–v6.0: iperf-cmd 0.1.x + wifi-cmd (2^20 bits) */
    EB_DIALECT_IPERF_CMD_10,  /* ESP-IDF v6.1+: iperf-cmd 1.0.x */
    EB_DIALECT_ESPBENCH,      /* espbench firmware: runtime tiers, machine-readable replies */
    EB_DIALECT_COUNT         /* built-in ids; loaded rows follow */
};

#define EB_DIALECT_MAX 64         /* ids in all: built-in and loaded rows */
#define EB_DIALECT_PROMPTS_MAX 4  /* prompts in one row */

#include <stdbool.h>

#include "espbench/base/error.h"

/* The espbench firmware's UDP echo port (firmware/main/fw_echo.c; the
 * vboard's vb_echo.c plays it): above 1024, so no privilege is needed. */
#define EB_UDP_ECHO_PORT 5007

/* A dialect as one descriptor row (dialect.c): what the parsers, the host's
 * console drivers and the vboard all read, so a fact about a firmware is
 * written once. Output grammar (interval and mode line formats) is the line
 * parser's (board_parse.c); behaviour beyond these facts is the driver's. */
typedef struct eb_dialect_desc {
    int dialect;                 /* enum eb_dialect, or a loaded row's id (>= EB_DIALECT_COUNT) */
    int grammar;                 /* the built-in dialect whose output grammar and console
                                  * behaviour it shares (its own id for a built-in) */
    const char *name;            /* "idf-v5.1": results.json, --dialect */
    double mbit_base;            /* bits per "Mbit" in its default interval lines */
    int idf_from, idf_to;        /* ESP-IDF releases (major*100+minor) whose example speaks it;
                                  * 0/0: chosen otherwise (ESP8266 SDK, espbench firmware) */
    const char *const *prompts;  /* NULL-terminated, with the trailing blank */
    const char *connect_cmd;     /* "sta" (<= v5.2) or "sta_connect" */
    const char *scan_cmd;        /* "scan" or "sta_scan" */
    const char *abort_cmd;       /* "iperf -a" or "iperf --abort" */
    const char *bw_fmt;          /* client -b for a rate in Mbit/s ("-b %d", "-b %gm"); NULL: none */
    bool bw_integer;             /* bw_fmt takes whole Mbit/s (%d) */
    unsigned short udp_echo_port;/* UDP port the firmware echoes datagrams on once it has an
                                  * address (the latency test); 0: none, ICMP ping instead */
    /* The largest -t and -i (seconds) the firmware's iperf command takes, from
     * its sources (`time_max`, `interval_max`); a run asking more is refused
     * before its first test instead of retried. 0: not known. */
    double time_max_s, interval_max_s;
    const char *file;            /* where the row came from ("dialects/idf-v5.1.yaml") */
} eb_dialect_desc;

/* The row of a dialect; NULL for EB_DIALECT_UNKNOWN or out of range. A row
 * stays valid for the life of the process (a replaced row is kept). */
const eb_dialect_desc *eb_dialect_desc_get(int dialect);

const char *eb_dialect_name(int dialect);      /* "idf-v5.1"; "unknown" */
int eb_dialect_from_name(const char *name);    /* EB_DIALECT_UNKNOWN if none */
int eb_dialect_count(void);                    /* ids 0..count-1 are in use */

/* The dialect an application speaks, from its app descriptor: project name
 * "espbench" selects EB_DIALECT_ESPBENCH; chip "esp8266" selects ESP8266;
 * otherwise the ESP-IDF version ("v5.2.1", "v6.1-beta1", "5.3") decides:
 * the row with the narrowest idf_from..idf_to range holding it (the later
 * loaded row on a tie), so a new release's row needs no edit of an open one. */
int eb_dialect_from_app(const char *project_name, const char *idf_version, const char *chip);

/* The run's -t and -i against the dialect's limits: 0, or EB_ECONFIG "LABEL:
 * --duration 1e+09 s is more than the NAME firmware's iperf takes (-t at most
 * 86400 s, FILE); shorten --duration" (the same for --interval). */
int eb_dialect_check_timing(int dialect, double duration_s, double interval_s, const char *label, eb_error *err);

/* Bits per "Mbit" in the dialect's default interval lines (1e6 or 1048576). */
double eb_dialect_mbit_base(int dialect);

/* Every distinct prompt of the table, NULL-terminated in out (cap entries
 * with the NULL); what a console listens for before it knows the dialect. */
int eb_dialect_prompts(const char **out, int cap);

/* ---- loading rows (formats/dialect_load.c; files: adapters/dialect_files.c) ---- */

#include <stddef.h>

#include "espbench/base/error.h"

/* One dialect file's bytes; dir orders the directories it came from. */
typedef struct eb_dialect_text {
    const char *name;  /* the file's path, for messages */
    const char *text;
    size_t len;
    int dir;
} eb_dialect_text;

/* Loads the files into the table: a later directory's row replaces a row of
 * the same name (a built-in one too), a name twice in one directory is an
 * error. All or nothing: on an error nothing is added, and err holds
 * "FILE:LINE:COL: message" (EB_ECONFIG). */
int eb_dialects_load_buffers(const eb_dialect_text *files, int n, eb_error *err);

/* Parses and checks one dialect file from memory against the table, adding
 * nothing (the fuzz target; `base` may name only rows already in the table). */
int eb_dialect_check_buffer(const char *text, size_t len, const char *name, eb_error *err);

/* 0, or the error that kept a compiled-in row (profiles/dialects/) out. */
int eb_dialects_builtin_status(eb_error *err);

#endif
