/* iperf2 output on the PC: a line classifier and a stateful collector.
 *
 * Accepts every output style of iperf 2.0.x–2.2.x (see
 * ../shared/reference/iperf2.md): any -f unit (adaptive, b k m g K M G, bits
 * and Bytes, "no decimals" at >= 999.5), -e enhanced columns (ignored), -y C
 * CSV (9 and 14+ fields), [SUM]/[SUM-N]/[FDn], reverse ids ([ *1], [*12]),
 * interval styles "0.0- 1.0", "0.00-1.00" and "0.0000-1.0000", UDP Server
 * Report, "Sent N datagrams", out-of-order lines, and the failure lines of a
 * run that exits 0 without measuring anything. iperf3's output (3.x: its
 * banners, "Reverse mode", the summary rows ending "sender"/"receiver",
 * "iperf3: error - ...") is read too, for `espbench parse`; `run` drives
 * iperf2 only.
 *
 * Rates are always decimal Mbit/s. Byte counts are exact when the output
 * carries them (CSV, -f b / -f B); otherwise they are the printed value times
 * the unit (KBytes = 1024). Pure functions over bytes: no I/O, no printing,
 * no allocation per line. */
#ifndef ESPBENCH_IPERF_PARSE_H
#define ESPBENCH_IPERF_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/base/error.h"
#include "espbench/formats/results.h"

enum eb_iperf_kind {
    EB_IPL_NONE,          /* blank, banner filler or unrecognised */
    EB_IPL_SERVER_BANNER, /* "Server listening on TCP|UDP port N" */
    EB_IPL_CLIENT_BANNER, /* "Client connecting to HOST, TCP|UDP port N" */
    EB_IPL_HEADER,        /* "[ ID] Interval ..." / "[SUM-cnt] Interval ..." */
    EB_IPL_CONNECTED,     /* "[  1] local A port P connected with B port Q" */
    EB_IPL_DATA,          /* an interval or final line (human or CSV) */
    EB_IPL_SENT,          /* "[  1] Sent N datagrams" */
    EB_IPL_SERVER_REPORT, /* "[  1] Server Report:" — the next data line of that id is the receiver's final */
    EB_IPL_OUT_OF_ORDER,  /* "[  1] 0.0000-0.5509 sec  1 datagrams received out-of-order" */
    EB_IPL_ERROR,         /* the run failed: connect failed, unknown host, bind failed, bad option */
    EB_IPL_WARNING,       /* "read failed: ...", "WARNING: did not receive ack ...", other WARNING lines */
    EB_IPL_INTERRUPTED,   /* "Waiting for server threads to complete. Interrupt again to force quit." (SIGINT) */
    EB_IPL_REVERSE_MODE,  /* iperf3 -R client: "Reverse mode, remote host H is sending" */
};

enum eb_iperf_error {
    EB_IPERR_NONE,
    EB_IPERR_CONNECT,      /* "tcp connect failed: Connection refused", 2.2 "tcp connect to ... failed (...)" */
    EB_IPERR_UNKNOWN_HOST, /* "HOST: Unknown host" */
    EB_IPERR_BIND,         /* "listener bind failed: ...", "bind failed" */
    EB_IPERR_OPTION,       /* "ERROR: -t value ...", "Invalid value ...", usage text */
    EB_IPERR_NULL_ID,      /* "(null)local ..." — glibc printing a NULL id after a refused connection */
    EB_IPERR_NO_ACK,       /* warning: "did not receive ack of last datagram" (no UDP Server Report) */
    EB_IPERR_READ,         /* warning: "read failed: ..." */
    EB_IPERR_OTHER_WARNING,
    EB_IPERR_OTHER,        /* iperf3: "iperf3: error - ..." (other than a refused connection) */
};

/* One classified line. Fields beyond kind are valid only for the kinds named. */
typedef struct eb_iperf_line {
    int kind;            /* enum eb_iperf_kind */
    int id;              /* stream id (DATA, CONNECTED, SENT, SERVER_REPORT, OUT_OF_ORDER); 0 for sums; -1 none */
    bool sum;            /* [SUM], [SUM-N], [FDn], CSV id -1 */
    bool reverse;        /* [ *1]: role-reversed stream */
    bool csv;            /* a CSV row */
    bool udp;            /* banner says UDP, or the data line carries datagram counts */
    bool bytes_exact;    /* bytes is an exact integer (CSV, Bytes unit) */
    int port;            /* banners: the port */
    eb_interval iv;      /* DATA, OUT_OF_ORDER (start/end) */
    int64_t bits_per_s;  /* DATA: exact when csv, else -1 */
    int64_t count;       /* SENT: datagrams; OUT_OF_ORDER: datagrams; CSV: out-of-order column (-1 absent) */
    int error;           /* enum eb_iperf_error for ERROR, WARNING and the (null) CONNECTED line */
    bool iperf3;         /* banners: iperf3's "Connecting to host H, port N" / "Server listening on N (test #1)";
                          * ERROR: "iperf3: error - ..." */
    int end_word;        /* DATA: iperf3's summary rows end "sender" (1) or "receiver" (2); 0 none */
} eb_iperf_line;

/* Classifies one line (without or with its trailing newline). Never fails:
 * anything unrecognised is EB_IPL_NONE. */
void eb_iperf_parse_line(const char *line, size_t len, eb_iperf_line *out);

/* ---- collector: feed a whole run's output, then read the result ---- */

enum eb_iperf_role { EB_IPERF_ROLE_UNKNOWN, EB_IPERF_ROLE_SERVER, EB_IPERF_ROLE_CLIENT };
enum eb_iperf_proto { EB_IPERF_PROTO_UNKNOWN, EB_IPERF_PROTO_TCP, EB_IPERF_PROTO_UDP };

enum eb_iperf_status {
    EB_IPERF_OK,          /* at least one data line */
    EB_IPERF_NO_DATA,     /* nothing measured and no error line explains why */
    EB_IPERF_FAILED,      /* an error line (connect failed, unknown host, ...): see message */
};

/* One data line as collected, with its stream. */
typedef struct eb_iperf_sample {
    int id;
    bool sum, reverse, csv, bytes_exact;
    bool final;          /* the whole-test line of its stream */
    bool server_report;  /* the receiver's final relayed to the UDP client */
    long line;           /* 1-based line number in the fed output */
    eb_interval iv;
} eb_iperf_sample;

typedef struct eb_iperf_stream {
    int id;
    bool sum, reverse;
    int n;
    double last_end;
    bool last_final;
} eb_iperf_stream;

typedef struct eb_iperf_run {
    /* what the output says about the run */
    int role;                 /* enum eb_iperf_role */
    int proto;                /* enum eb_iperf_proto */
    bool csv;
    int port;
    int n_streams;            /* distinct non-sum stream ids seen */

    /* After eb_iperf_finish(): the test's intervals in time order, one per
     * report period. With one stream that stream's lines; with several the
     * [SUM] lines, or (CSV has no sums) the per-stream rows added up. Final
     * lines are not included. Reverse streams are used only when no forward
     * stream printed data (a -R client). */
    eb_interval *intervals;
    int n_intervals;
    bool has_final;
    eb_interval final;        /* whole-test line (sum over streams) */
    bool has_server_report;
    eb_interval server_report;/* UDP receiver's final, relayed to the client (sum over streams) */
    int64_t sent_datagrams;   /* "Sent N datagrams" (sum); -1 none */
    int64_t out_of_order;     /* receiver out-of-order datagrams; 0 none */
    int n_read_failed;        /* "read failed" warnings (UDP client, nothing listening) */
    bool no_ack;              /* "did not receive ack of last datagram" */
    /* SIGINT seen ("Waiting for server threads to complete"): a server that
     * got no end marker (the boards' UDP clients send none) then flushes the
     * period it was in as a whole one, with what little or nothing arrived;
     * interval lines after it are left out (a final line is kept). */
    bool interrupted;

    /* iperf3 output (its banners; docs/results.md): the same interval lines,
     * then a summary section whose rows end "sender" / "receiver". Those rows
     * are not intervals: after eb_iperf_finish() final is the row of this
     * log's own end and server_report the far end's; pc_sends says which
     * end this log's host was (a client unless -R, a server whose rows say
     * "sender"). */
    bool iperf3;
    bool reverse_mode;        /* "Reverse mode, remote host H is sending" */
    bool pc_sends;
    eb_interval i3_rows[2][2];/* [sender, receiver][streams added up, [SUM]] */
    bool i3_has[2][2];

    int status;               /* enum eb_iperf_status, after eb_iperf_finish() */
    int error;                /* enum eb_iperf_error of the first error line */
    long error_line;          /* its line number */
    char message[256];        /* one line: what failed, quoting iperf */

    /* every data line, in input order */
    eb_iperf_sample *samples;
    int n_samples, cap_samples;

    /* internal */
    long lineno;
    int cap_intervals;
    char partial[512];
    size_t partial_len;
    bool partial_overflow;
    int report_pending[8];    /* ids awaiting their Server Report data line */
    int n_report_pending;
    int stream_ids[16];
    int n_stream_ids;
    eb_iperf_stream streams[32];
    int n_streams_state;
} eb_iperf_run;

void eb_iperf_run_init(eb_iperf_run *r);
void eb_iperf_run_free(eb_iperf_run *r);
/* Feeds bytes in any chunking; lines end with \n (\r is ignored). */
void eb_iperf_feed(eb_iperf_run *r, const void *data, size_t len);
/* Feeds one complete line (no newline needed). */
void eb_iperf_feed_line(eb_iperf_run *r, const char *line, size_t len);
/* Flushes a partial last line, builds intervals/final and sets status. Idempotent. */
void eb_iperf_finish(eb_iperf_run *r);

/* ---- version check ---- */

typedef struct eb_iperf_version {
    int major, minor, patch;  /* 2.1.8 */
    char text[64];            /* "iperf version 2.1.8 (12 August 2022) pthreads" */
} eb_iperf_version;

/* Parses `iperf -v` output (iperf2 prints it on stderr and exits 1).
 * Returns 0 for iperf2; EB_ECONFIG with a clear message for iperf3 ("iperf
 * 3.x"), for an iperf2 older than 2.0.5, or for text that is not iperf's. */
int eb_iperf_version_parse(const char *text, size_t len, eb_iperf_version *out, eb_error *err);

#endif
