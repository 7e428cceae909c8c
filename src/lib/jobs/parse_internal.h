/* `espbench parse` inside: a log as a line source (streamed from its file
 * in bounded memory, or held in memory), the segments a log is cut into (one
 * per test), and the steps between the files of the job:
 * parse_job.c (entry points, sources, side detection) → parse_segment.c
 * (board and PC logs into segments) or parse_patterns.c (pattern files) →
 * parse_entries.c (segments into entries, pairing the sides). */
#ifndef ESPBENCH_PARSE_INTERNAL_H
#define ESPBENCH_PARSE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "espbench/base/buf.h"
#include "espbench/base/fs.h"
#include "espbench/jobs/parse_job.h"

/* A log: in memory (data, len) or streamed from a file (rd); each pass over
 * it starts again at its first line. */
typedef struct pj_src {
    const char *data;
    size_t len;
    eb_line_reader *rd;  /* NULL: in memory */
    const char *path;    /* the file, to read it whole when a step needs all of it */
    eb_buf whole;        /* the file read whole (pattern files, ESP-Hosted's raw report) */
} pj_src;

typedef struct line_iter {
    pj_src *src;
    const char *p, *e;
    long lineno;
} line_iter;

void pj_iter_start(line_iter *it, pj_src *src);
bool pj_next_line(line_iter *it, const char **line, size_t *len);
/* The whole log in memory (a file read whole, at most the log cap): for the
 * steps that need all of it at once. */
int pj_src_whole(pj_src *src, eb_error *err);

/* The budget that bounds memory: what the results file will take, counted
 * low (an interval's JSON is at least PJ_JSON_INTERVAL_MIN bytes, a test's at
 * least PJ_JSON_ENTRY_MIN). Past EB_RESULTS_MAX_BYTES, the most espbench
 * reads back, parse stops: memory stays below that many bytes' worth of
 * intervals (32 bytes held per 80 written; a UDP test's 56). */
#define PJ_JSON_INTERVAL_MIN 80
#define PJ_JSON_ENTRY_MIN 1000
bool pj_over_budget(eb_parse_out *out, long long add);
int pj_budget_error(const char *name, long lineno, eb_error *err);

/* One test found in one log. */
typedef struct seg {
    int test;            /* -1 unknown */
    long line;           /* where it starts */
    bool receiver;       /* the intervals are the receiving side's */
    eb_ivs iv;           /* compact (intervals.h): the entry takes it over */
    bool has_summary;
    eb_interval summary;
    char summary_printed[32]; /* the board's summary as printed ("37.93 Mbits/sec") */
    double interval_s, time_s;
    char *error;         /* why it failed, NULL if it did not (rare: held out of line) */
    long free_heap, min_free_heap, largest_block;
    bool running;        /* intervals seen, no end yet */
    bool has_report;     /* PC UDP client: receiver's final */
    eb_interval report;
    char *cut;           /* the error line that ended the running test ("board.log:41: board: tcp client
                          * send error, ..."), NULL if none */
    bool cut_ends;       /* the cut's error ends a test in every version (not a receive timeout) */
    bool guessed;        /* test guessed (a CSV log without banner or client final row): --test wins */
    int waited;          /* intervals of a server waiting for its client, left out (they belong to no test) */
} seg;

typedef struct seg_list {
    seg *v;
    int n, cap;
} seg_list;

seg *pj_seg_new(seg_list *l, long line);
void pj_seg_set_error(seg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pj_seg_list_free(seg_list *l);
void pj_add_warning(eb_parse_out *out, const char *text);

/* Truncating copies: messages and names are cut, never overflowed. */
static inline void copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

static inline int test_of(bool udp, bool board_receives)
{
    return udp ? (board_receives ? EB_TEST_UDP_RX : EB_TEST_UDP_TX)
               : (board_receives ? EB_TEST_TCP_RX : EB_TEST_TCP_TX);
}

static inline bool test_board_receives(int test) { return test == EB_TEST_TCP_RX || test == EB_TEST_UDP_RX; }

/* The board log's segments; unit_note gets how its rates were converted
 * when that needs saying (docs/results.md, unit base), else "". */
int pj_parse_board(eb_parse_out *out, const char *name, pj_src *src, const eb_parse_opts *o, seg_list *segs,
                   char *unit_note, size_t note_cap, eb_error *err);
int pj_parse_pc(eb_parse_out *out, const char *name, pj_src *src, seg_list *segs, eb_error *err);
/* Side and dialect detection's lines (parse_job.c). */
int pj_detect_side(pj_src *src);

const eb_pattern *pj_pattern_for(pj_src *src, const eb_parse_opts *o, eb_error *err, int *rc);
int pj_parse_pattern(eb_parse_out *out, const char *name, pj_src *src, const eb_pattern *p, seg_list *segs,
                     eb_error *err);

int pj_add_segments(eb_parse_out *out, const char *name, seg_list *segs, const eb_parse_opts *o, bool board_side,
                    const char *unit_note, eb_error *err);
int pj_raw_tp_entries(eb_parse_out *out, const char *data, size_t len, const eb_parse_opts *o);

#endif
