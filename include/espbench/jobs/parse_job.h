/* `espbench parse`: captured board console logs and PC iperf2 logs (from a
 * run done by hand) into the same results entries as `run`.
 *
 * Each log's side (board console or PC iperf2) and the board's dialect are
 * detected unless given. A log is cut into tests: on the board at each mode
 * line ("mode=tcp-server ...", #EB:EV iperf.started), on the PC at each
 * banner ("Server listening on UDP port ..."). The test (tcp/udp, tx/rx) is
 * inferred from those lines unless --test is given. Tests of several logs
 * with the same name are paired in order (the first tcp_tx of the board log
 * with the first tcp_tx of the PC log), so one entry holds both sides.
 *
 * A server's intervals of zeros before its "accept:" line (older ESP-IDF
 * servers report while they wait for the client) belong to no test: the
 * test starts at "accept:" with its mode line's -t. A board log's rates are
 * converted with its dialect's unit base; when the evidence for that base
 * conflicts or rests on the mode= line's whitespace alone, out->warnings
 * says so and the entries carry unit_note (docs/results.md, unit base).
 *
 * A log no built-in parser reads (no interval, mode or iperf2 data line) is
 * tried against the built-in pattern files (pattern.h); the first whose
 * lines it has is its dialect, and the board's side. */
#ifndef ESPBENCH_PARSE_JOB_H
#define ESPBENCH_PARSE_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/error.h"
#include "espbench/formats/results.h"

enum eb_log_side { EB_SIDE_AUTO, EB_SIDE_BOARD, EB_SIDE_PC };

typedef struct eb_parse_opts {
    int dialect;          /* enum eb_dialect; EB_DIALECT_UNKNOWN = detect */
    int side;             /* enum eb_log_side */
    int test;             /* enum eb_test; -1 = infer from the log; else the test of every test the log
                           * does not tell (no mode= line, command echo or socket role line) */
    int test_list[16];    /* --test A,B,...: the tests the log does not tell, in its order (n_test_list > 0) */
    int n_test_list;
    const char *chip;     /* NULL: from the boot log, else "unknown" */
    const char *tier;     /* NULL: "unknown" */
    double interval_s;    /* 0: from the board's mode line, else the median interval length */
    double warmup_s;      /* seconds left out of the statistics (default 1) */
    double unit_base;     /* bits per "Mbit" of a board log's rates (--unit-base 1e6 | 2^20); 0: the
                           * dialect's (docs/results.md, unit base) */
    /* Pattern files (pattern.h): pattern = the log is in that dialect (--pattern);
     * patterns = the built-in ones, tried on a log no built-in parser reads
     * (no dialect, side or pattern given). */
    const struct eb_pattern *pattern;
    const struct eb_pattern_set *patterns;
} eb_parse_opts;

void eb_parse_opts_init(eb_parse_opts *o);

typedef struct eb_parse_out {
    eb_entry *entries;    /* owned; intervals malloc'd */
    eb_interval *udp_reports; /* per entry: iperf's UDP whole-test line (the PC server's final, the receiver's
                               * relayed to a PC client; total < 0: none) */
    int n_entries, cap_entries;
    int n_per_test[EB_TEST_ALL_COUNT]; /* entries per test (the next repeat number); raw_tx/raw_rx too */
    eb_board_meta meta;   /* chip, dialect, firmware project / IDF version, board IP, AP and RSSI */
    int n_logs;           /* logs parsed successfully */
    int n_failed;         /* entries with status "failed" */
    eb_provenance prov;   /* what the board log stated about firmware, chip and link (every entry gets it) */
    char **warnings;      /* one line each, for the caller to print (the library never prints): a unit
                           * base chosen on conflicting or whitespace-only evidence */
    int n_warnings;
    long long json_bytes; /* what the results file will take at least, so far (the memory bound) */
} eb_parse_out;

void eb_parse_out_init(eb_parse_out *out);
void eb_parse_out_free(eb_parse_out *out);

/* Parses one log held in memory; name is used in messages ("board.log:12: ...").
 * Errors: EB_ECONFIG for input that cannot be understood (no interval lines,
 * unknown dialect, test not inferable). */
int eb_parse_log_buffer(eb_parse_out *out, const char *name, const char *data, size_t len,
                        const eb_parse_opts *o, eb_error *err);
/* Reads and parses a file (EB_EIO if unreadable), streamed: the file's
 * size is checked before it is read (EB_PARSE_LOG_MAX_BYTES), its lines are
 * read through a bounded buffer, and parsing stops once the results would
 * be larger than EB_RESULTS_MAX_BYTES (docs/results.md, memory). A pipe is
 * read whole, up to the same cap. */
#define EB_PARSE_LOG_MAX_BYTES (256u << 20)
int eb_parse_log_file(eb_parse_out *out, const char *path, const eb_parse_opts *o, eb_error *err);

/* Copies the entries and board metadata into r (eb_results_add). */
int eb_parse_to_results(const eb_parse_out *out, eb_results *r, eb_error *err);
/* The same, moving the entries instead of copying them (out is left empty):
 * a long log's entries are not duplicated on their way to the JSON writer. */
int eb_parse_move_to_results(eb_parse_out *out, eb_results *r, eb_error *err);

#endif
