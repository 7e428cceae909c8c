/* Pattern files: a console dialect described without C (espbench-patterns(5)).
 *
 * A pattern file (YAML) gives PCRE2 regular expressions for the lines of a
 * team's own test firmware -- the test start, interval lines, the summary
 * block, errors -- and says which named groups carry the start and end of an
 * interval, its bytes and rate and their units; the unit base (1000 or 1024);
 * the protocol and which side of the test the log is (sender or receiver);
 * and, optionally, the console commands that start a test on the board.
 *
 * pattern_file.c loads and checks a file (every error is one line with
 * FILE:LINE:COL; a broken regex points at the offending character inside the
 * YAML file); pattern_parse.c is the matcher, a pure function over bytes that
 * gives the same intervals (decimal Mbit/s) the built-in parsers give. The
 * built-in pattern files live in the profiles directory's patterns/ folder. */
#ifndef ESPBENCH_PATTERN_H
#define ESPBENCH_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/error.h"
#include "espbench/formats/results.h"

/* What a rule's named groups may carry. */
enum eb_pat_field {
    EB_PF_START,       /* interval start (time unit: units.time, default s) */
    EB_PF_END,         /* interval end */
    EB_PF_DURATION,    /* summary: the test's length */
    EB_PF_BYTES,       /* bytes moved, scaled by bytes_unit */
    EB_PF_BYTES_UNIT,  /* "B", "KB", "MB", "GB", "KiB", "MBytes" ... */
    EB_PF_RATE,        /* rate, scaled by rate_unit */
    EB_PF_RATE_UNIT,   /* "bps", "Kbps", "Mbps", "Gbits/sec", "MB/s" ... */
    EB_PF_LOST,        /* UDP receiver: datagrams lost */
    EB_PF_TOTAL,       /* UDP receiver: datagrams expected */
    EB_PF_JITTER,      /* UDP receiver: jitter in ms */
    EB_PF_DIRECTION,   /* a word the file's directions: map turns into sender/receiver */
    EB_PF_MESSAGE,     /* errors: the text to report (default: the whole line) */
    EB_PF_COUNT
};

enum eb_pat_kind { EB_PAT_NONE, EB_PAT_START, EB_PAT_INTERVAL, EB_PAT_SUMMARY, EB_PAT_ERROR };

#define EB_PAT_MAX_RULES 16
#define EB_PAT_MAX_DIRECTIONS 8
#define EB_PAT_MAX_COMMANDS 8

typedef struct eb_pattern_rule {
    int kind;                    /* enum eb_pat_kind */
    void *code;                  /* pcre2_code_8 *, owned */
    int group[EB_PF_COUNT];      /* capture group number per field; 0 = the rule has none */
    double bytes_scale;          /* bytes per unit when the line has no bytes_unit group (0: none given) */
    double rate_scale;           /* bit/s per unit when the line has no rate_unit group (0: none given) */
    double time_scale;           /* seconds per time unit (1 or 0.001) */
    int line, col;               /* where the regex is in the file */
} eb_pattern_rule;

/* Console commands for `espbench run --pattern` (all optional but the test
 * commands). Placeholders: {peer} {port} {time} {interval} {rate} (Mbit/s)
 * and, for connect, {ssid} {password}. */
typedef struct eb_pattern_commands {
    char prompt[32];                       /* "" = the firmware prints none */
    char *connect[EB_PAT_MAX_COMMANDS];    /* join the AP; NULL-terminated */
    void *connected;                       /* pcre2 code: the line that says it joined; group ip */
    int connected_ip;                      /* its group number */
    char *sender[EB_PAT_MAX_COMMANDS];     /* start a test where the board sends */
    char *receiver[EB_PAT_MAX_COMMANDS];   /* start a test where the board receives */
    void *started;                         /* pcre2 code: the line that says a test started; NULL = the prompt */
    char *abort_cmd;                       /* stops a running test; NULL = none */
} eb_pattern_commands;

typedef struct eb_pattern {
    char name[64];
    char description[200];
    char path[512];              /* where it was loaded from (messages) */
    bool udp;                    /* protocol: udp or tcp */
    bool receiver;               /* side: the log is the receiving end's (default) */
    double unit_base;            /* 1000 or 1024: what K, M, G mean (KiB etc. are always 1024) */
    int min_intervals;           /* auto-detection: interval lines needed (detect.min_intervals, default 3) */
    eb_pattern_rule rules[EB_PAT_MAX_RULES];
    int n_rules;
    struct {
        char value[32];
        bool receiver;
    } directions[EB_PAT_MAX_DIRECTIONS];
    int n_directions;
    int max_groups;              /* the largest capture count of any rule */
    bool has_commands;
    eb_pattern_commands cmd;
} eb_pattern;

/* pattern_file.c: loading. name is used in messages ("udp.yaml:4:17: ...").
 * Errors (EB_ECONFIG, one line): YAML syntax, unknown keys, wrong values, a
 * rule without a group it needs, a group name the regex lacks, and a regex
 * PCRE2 refuses ("FILE:LINE:COL: interval regex: PCRE2: MESSAGE; fix the
 * regular expression (PCRE2 syntax, see espbench-patterns(5))", LINE:COL the
 * offending character's position in the file). */
int eb_pattern_load_buffer(eb_pattern *p, const char *text, size_t len, const char *name, eb_error *err);
void eb_pattern_free(eb_pattern *p);

/* The built-in pattern files: the *.yaml files in patterns/ of the installed or
 * source profiles directory, then $ESPBENCH_PROFILES, then user_dir
 * (--profiles; may be NULL); a later file of the same name replaces one. */
typedef struct eb_pattern_set {
    eb_pattern *v;
    int n;
} eb_pattern_set;

void eb_patterns_free(eb_pattern_set *s);
const eb_pattern *eb_patterns_find(const eb_pattern_set *s, const char *name);

/* pattern_parse.c: the matcher. One line (no newline; CR and ANSI colour
 * codes are ignored): which rule kind matched and what it carried. */
typedef struct eb_pattern_line {
    int kind;                    /* enum eb_pat_kind */
    eb_interval iv;              /* INTERVAL, SUMMARY: start/end s, bytes, decimal Mbit/s (NAN unknown) */
    bool has[EB_PF_COUNT];       /* which fields the line carried */
    int side;                    /* -1: no direction; 0 sender, 1 receiver */
    char message[200];           /* ERROR */
} eb_pattern_line;

void eb_pattern_match_line(const eb_pattern *p, const char *line, size_t len, eb_pattern_line *out);

/* One test found in a log. */
typedef struct eb_pattern_test {
    int test;                    /* enum eb_test: the protocol and the side */
    bool receiver;               /* the intervals are the receiving end's */
    long line;                   /* where it starts (1-based) */
    eb_interval *iv;             /* owned */
    int n, cap;
    bool has_summary;
    eb_interval summary;         /* start 0 (or its start), end = duration; bytes, rate */
    char error[256];             /* "NAME:LINE: board: MESSAGE" of the first error; "" none */
} eb_pattern_test;

typedef struct eb_pattern_log {
    eb_pattern_test *tests;
    int n, cap;
    long n_intervals, n_summaries; /* lines of each kind matched */
} eb_pattern_log;

/* The whole log: lines are cut into tests at each start line, and at an
 * interval line after a summary. Pure; never fails (a log with no matching
 * line gives no tests). */
void eb_pattern_parse_log(const eb_pattern *p, const char *name, const char *data, size_t len,
                          eb_pattern_log *out);
void eb_pattern_log_free(eb_pattern_log *l);

/* Auto-detection: whether the log reads as p's dialect -- at least
 * p->min_intervals interval lines in the first 5000 lines, or an interval
 * line and a summary. */
bool eb_pattern_detect(const eb_pattern *p, const char *data, size_t len);

/* A unit's scale: bytes per unit ("MB" = base^2) or bit/s per unit ("Mbps" =
 * base^2, "MB/s" = 8 base^2). 0 when the text is no unit of that kind. */
double eb_pattern_bytes_unit(const char *s, size_t n, double base);
double eb_pattern_rate_unit(const char *s, size_t n, double base);

#endif
