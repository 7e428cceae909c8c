/* The board's console output: one classifier for every dialect of
 * dialect.h, turning a line into an event (interval, mode header, socket
 * progress, got-IP, scan result, heap, prompt, boot markers, app identity,
 * panic, errors, Wi-Fi disconnects, the espbench firmware's #EB: lines).
 *
 * ANSI colour codes, NUL bytes (v5.1 prints a NUL unit char) and CR are
 * stripped first; the ESP log prefix ("I (12345) tag: ") is skipped. Interval
 * rates are converted to decimal Mbit/s with the dialect's unit base
 * (v5.1–v6.0 "Mbits" = 2^20 bits, iperf-cmd 1.0 'm' = 1e6, ...). Formats:
 * ../shared/reference/board-console-dialects.md. Pure functions over bytes;
 * no allocation. */
#ifndef ESPBENCH_BOARD_PARSE_H
#define ESPBENCH_BOARD_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/formats/dialect.h"
#include "espbench/formats/results.h"

enum eb_board_event {
    EB_BEV_NONE,
    EB_BEV_INTERVAL,        /* iv (+ id for iperf-cmd 1.0) */
    EB_BEV_SUMMARY,         /* whole-test line (set by the stateful parser, or #EB iperf.summary) */
    EB_BEV_TABLE_HEADER,    /* "Interval Bandwidth", "[ ID] Interval\t\tTransfer\tBandwidth" */
    EB_BEV_MODE,            /* "mode=tcp-server sip=..., interval=3, time=30" / #EB iperf.started */
    EB_BEV_SOCKET_CREATED,  /* "Socket created", "iperf tcp server create successfully", "[TCP Server] Socket created" */
    EB_BEV_SOCKET_BOUND,    /* "Socket bound, port N" */
    EB_BEV_ACCEPTED,        /* "accept: IP,PORT" (peer, port) */
    EB_BEV_CONNECTED,       /* "Successfully connected", "[  1] local A:P connected to B:Q", #EB iperf.connected */
    EB_BEV_SOCKET_CLOSED,   /* "TCP Socket server is closed.", "Udp socket server is closed.", ... */
    EB_BEV_IPERF_DONE,      /* "iperf exit", "DONE.IPERF_STOP,OK", #EB iperf.done */
    EB_BEV_GOT_IP,          /* ip, mask, gw */
    EB_BEV_WIFI_CONNECTED,  /* "wifi:connected with SSID", #EB wifi.connected */
    EB_BEV_WIFI_DISCONNECTED, /* "WIFI_EVENT_STA_DISCONNECTED! reason: N", "wifi:state: run -> init", #EB */
    EB_BEV_SCAN,            /* ssid, rssi (, channel, mac) */
    EB_BEV_SCAN_DONE,       /* "sta scan done", "SCAN_DONE: Found N APs" (value = N) */
    EB_BEV_HEAP_MIN,        /* "min heap size: N" (value) */
    EB_BEV_FREE_HEAP,       /* `free` reply: a bare integer line (value) */
    EB_BEV_PROMPT,          /* a line that is only a prompt: "esp32>", "iperf>", "espbench>" */
    EB_BEV_BOOT,            /* reboot marker: "rst:0x..", "ESP-ROM:chip-date", "ets Jun  8 2016" (text = chip if known) */
    EB_BEV_BOOTLOADER,      /* "boot: ESP-IDF v5.2.1 2nd stage bootloader" (text = version) */
    EB_BEV_APP_PROJECT,     /* "Project name:     iperf" (text) */
    EB_BEV_APP_IDF,         /* "ESP-IDF:          v5.2.1" (text) */
    EB_BEV_APP_VERSION,     /* "App version:      1.0" (text) */
    EB_BEV_PANIC,           /* "Guru Meditation Error", "abort() was called", "Backtrace:" */
    EB_BEV_ERROR,           /* error (enum eb_board_error), value = errno/code where printed */
    EB_BEV_EB_OK,           /* #EB:OK [k=v ...] */
    EB_BEV_EB_ERR,          /* #EB:ERR code=NAME msg="text" (text = msg, name = code) */
    EB_BEV_EB_EVENT,        /* #EB:EV with an event name not mapped above */
    EB_BEV_IPERF_COMMAND,   /* the typed command echoed: "iperf> iperf -c 192.168.1.2 -u -i 1 -t 4"
                             * (udp, server, interval_s, time_s; role_known) */
    EB_BEV_COUNT
};

enum eb_board_error {
    EB_BERR_NONE,
    EB_BERR_NO_IP,           /* "sta has no IP" */
    EB_BERR_CONNECT,         /* "Socket unable to connect: errno N" */
    EB_BERR_ALREADY_RUNNING, /* "iperf is already running" */
    EB_BERR_UNRECOGNIZED,    /* "Unrecognized command" */
    EB_BERR_COMMAND_FAILED,  /* "Command returned non-zero error code: 0x1 (ESP_FAIL)", "Internal error: ..." */
    EB_BERR_RECV,            /* "tcp server recv error, error code: 11, reason: ..." */
    EB_BERR_DONE_FAIL,       /* wifi-cmd "DONE.X,FAIL.N,REASON" */
    EB_BERR_IPERF,           /* #EB:EV iperf.error msg=".." */
    EB_BERR_SEND,            /* "tcp client send error, error code: 104, reason: Connection reset by peer" */
};

enum eb_board_iv_style {
    EB_IVS_INT,      /* "   0-   3 sec       8.43 Mbits/sec" (IDF <= v5.2, ESP8266) */
    EB_IVS_DECIMAL,  /* " 0.0- 2.0 sec  24.36 Mbits/sec" (iperf-cmd 0.1) */
    EB_IVS_ID_BYTES, /* "[  1]  1.0- 2.0 sec\t2.95 MBytes\t23.63 Mbits/sec" (iperf-cmd 1.0) */
    EB_IVS_EB,       /* #EB:EV iperf.interval */
};

/* An #EB: line, tokenized. Values are unescaped. */
#define EB_EBLINE_MAX_KV 40 /* a full tier (26 fields) plus its name and the link facts (issue 17) */
typedef struct eb_ebline {
    char status[4];          /* "OK", "ERR", "EV" */
    char name[32];           /* event name for EV ("iperf.interval"), "" otherwise */
    int n_kv;
    struct {
        char key[24];
        char value[128];
    } kv[EB_EBLINE_MAX_KV];
} eb_ebline;

/* Parses "#EB:..." (after ANSI stripping). Returns false if the line is not
 * an #EB: line or is malformed (unterminated quote, bad token). */
bool eb_ebline_parse(const char *line, size_t len, eb_ebline *out);
/* Value of key k, or NULL. */
const char *eb_ebline_get(const eb_ebline *l, const char *k);

/* One classified line. Only the fields of the event are set. */
typedef struct eb_board_line {
    int event;               /* enum eb_board_event */
    bool after_prompt;       /* the line began with a prompt ("iperf> I (87967) iperf: accept: ...") */
    /* INTERVAL / SUMMARY */
    eb_interval iv;
    int id;                  /* iperf-cmd 1.0 "[  1]" id; 0 none */
    int style;               /* enum eb_board_iv_style: how the line was printed (dialect evidence) */
    bool bytes_exact;        /* #EB lines carry exact byte counts */
    double printed;          /* the rate as the line printed it ("37.93"), before any conversion */
    char unit[12];           /* its unit as printed ("Mbits/sec"; "bits/sec" when a NUL was the prefix) */
    /* MODE */
    bool udp;
    bool server;
    int interval_s, time_s;  /* 0 when not printed */
    bool mode_spaced;        /* the v5.1–v5.2 / iperf-cmd 0.1.1 mode line with runs of spaces */
    bool mode_localhost;     /* iperf-cmd 0.1.3+: "sip=localhost:5001" */
    bool role_known;         /* udp/server say which test: MODE, IPERF_COMMAND, and the socket role
                              * lines of Espressif's iperf (SOCKET_CREATED "sending to" / "[UDP Server]",
                              * SOCKET_BOUND, ACCEPTED, CONNECTED "Successfully connected",
                              * SOCKET_CLOSED, and the socket ERRORs "tcp client send", "udp server recv") */
    /* GOT_IP (ip), ACCEPTED / CONNECTED / SOCKET_CREATED (ip = peer), SCAN (mac) */
    char ip[48], mask[20], gw[20];
    int port;
    char ssid[36];
    int rssi;
    int channel;
    char mac[20];
    /* HEAP_MIN, FREE_HEAP, SCAN_DONE, WIFI_DISCONNECTED (reason), ERROR (errno / code) */
    long value;
    int error;               /* enum eb_board_error */
    char name[32];           /* EB_ERR code, DONE.X command */
    char text[96];           /* identity strings, error/panic text, boot chip */
    /* BOOT: a reset line ("rst:0x1 (POWERON_RESET),boot:..", the ESP8266's
     * "ets Jan  8 2013,rst cause:2, ..."), with the reason up to the comma */
    bool reset;
    char reason[64];
    /* #EB: lines */
    const eb_ebline *eb;     /* points into the parser's scratch; valid until the next call */
} eb_board_line;

/* Classifies one line for a dialect (EB_DIALECT_UNKNOWN: rates converted
 * with 1e6). scratch holds the #EB: tokens (may be NULL: #EB lines then give
 * only the event). Never fails. */
void eb_board_parse_line(int dialect, const char *line, size_t len, eb_board_line *out, eb_ebline *scratch);
/* The same with the bits per "Mbit" given (1e6 or 1048576; 0: the dialect's):
 * `parse --unit-base`. */
void eb_board_parse_line_base(int dialect, double mbit_base, const char *line, size_t len, eb_board_line *out,
                              eb_ebline *scratch);

/* The ANSI/NUL/CR-stripped text of a line, as classified; returns its length. */
size_t eb_board_clean_line(const char *line, size_t len, char *out, size_t cap);

/* ---- dialect detection from a log's lines ---- */

typedef struct eb_board_detect {
    char project[64];
    char idf[32];            /* app "ESP-IDF:" line, else the bootloader's */
    char chip[24];
    bool espbench;           /* #EB: lines */
    bool iperf_cmd_10;       /* "[  1]  0.0- 1.0 sec ... Bytes" */
    bool iperf_cmd_01;       /* " 0.0- 2.0 sec  24.36 Mbits/sec", +SCAN:, IP_EVENT_STA_GOT_IP */
    bool int_intervals;      /* "   0-   3 sec       8.43 Mbits/sec" */
    bool mode_spaced;        /* v5.1–v5.2 mode line */
    bool mode_plain;
    bool socket_created;     /* v4.4+ "Socket created" */
    bool nul_unit;           /* a NUL byte before "bits/sec" (v5.1–v5.2 / iperf-cmd 0.1) */
    bool esp8266;            /* "ets Jan  8 2013" ROM banner */
    bool wifi_cmd;           /* wifi-cmd output (v5.3+): "+SCAN:", "IP_EVENT_STA_GOT_IP", "DONE.X,OK" */
    bool iperf_cmd_tag;      /* "iperf(id=1):" log tag (iperf-cmd 1.0) */
    bool prompt_espbench;    /* an "espbench>" prompt: the espbench firmware, definitively */
    bool prompt_esp32;       /* an "esp32>" prompt: the ESP-IDF <= v5.0 iperf example */
    /* Where the unit-base evidence stood (1-based lines fed; 0 none): the
     * version line, the first mode= line of each layout, the first NUL unit. */
    long lines;
    long idf_line, mode_spaced_line, mode_plain_line, nul_line;
} eb_board_detect;

void eb_board_detect_init(eb_board_detect *d);
/* Feeds one raw line (before or after classification). */
void eb_board_detect_line(eb_board_detect *d, const char *line, size_t len);
/* The same for a line eb_board_parse_line has classified already (with any
 * dialect: the detector looks at events and interval styles only). */
void eb_board_detect_parsed(eb_board_detect *d, const char *line, size_t len, const eb_board_line *l);
/* True when dialects a and b classify every line alike, figures included:
 * the dialect changes only what an interval's bit prefix is worth (1e6 or
 * 2^20 bits per Mbit). */
bool eb_board_dialects_read_alike(int a, int b);
/* The dialect the evidence points to, or EB_DIALECT_UNKNOWN when the lines
 * do not tell 1e6 from 2^20 units; why (one line) goes into why. The one
 * detector: `parse` feeds it a log's lines, the console session (run) its
 * boot facts and the prompt that answered. */
int eb_board_detect_result(const eb_board_detect *d, char *why, size_t why_cap);
/* The unit base of a detected dialect, checked against the log's other
 * evidence (name is the log's name for FILE:LINE). Returns true when the
 * evidence conflicts (a boot log's ESP-IDF version says one base, the mode=
 * line's layout or a NUL unit char the other) or the base rests on the mode=
 * line's whitespace alone (blanks collapsed in a pasted log read as <= v5.0);
 * warn then gets one line: the base chosen, the line it came from, the line
 * against it, what settles it. note always gets the base and its source
 * ("2^20 bits per Mbit, from board.log:3 (ESP-IDF v5.1.2)"). */
bool eb_board_detect_unit_check(const eb_board_detect *d, int dialect, const char *name, char *note,
                                size_t note_cap, char *warn, size_t warn_cap);

/* ---- stateful parser: adds SUMMARY recognition and per-test context ---- */

typedef struct eb_board_parser {
    int dialect;
    int interval_s, time_s;  /* from the last MODE line */
    bool have_interval;      /* an interval was seen since the last MODE line */
    double last_end;
    eb_ebline scratch;
    eb_provenance prov;      /* facts the log states (provenance.h: #EB: replies, boot log, connect/scan lines) */
    eb_board_detect *detect; /* when set, fed every line as classified (before SUMMARY): one pass parses and detects */
    double mbit_base;        /* bits per "Mbit" (parse --unit-base); 0: the dialect's */
} eb_board_parser;

void eb_board_parser_init(eb_board_parser *p, int dialect);
/* Classifies a line; an interval starting at 0 that spans the whole test
 * (the -t of the mode line, or at least as far as the previous interval)
 * becomes EB_BEV_SUMMARY. */
void eb_board_parser_line(eb_board_parser *p, const char *line, size_t len, eb_board_line *out);

#endif
