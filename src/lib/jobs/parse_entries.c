/* `espbench parse`: segments into entries — pairing a test's board side
 * with its PC side, the figures (one rule with run: eb_entry_figures), the
 * partial-test rule — and ESP-Hosted's raw throughput report. */
#include "espbench/jobs/parse_job.h"
#include "espbench/base/str.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/board_parse.h"
#include "espbench/formats/dialect.h"
#include "espbench/formats/iperf_parse.h"
#include "espbench/formats/pattern.h"
#include "parse_internal.h"
#include "espbench/formats/hosted.h"

static double median_span(const eb_ivs *iv)
{
    int n = iv->n;
    if (n <= 0)
        return NAN;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        abort();
    for (int i = 0; i < n; i++) {
        eb_interval x = eb_ivs_at(iv, i);
        s[i] = x.end_s - x.start_s;
    }
    for (int i = 1; i < n; i++) /* insertion sort: n is small */
        for (int j = i; j > 0 && s[j] < s[j - 1]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    double m = s[n / 2];
    free(s);
    return m;
}

/* The occurrence-th entry of a test, if its side's slot is still empty. */
static eb_entry *find_slot(eb_parse_out *out, int test, int occurrence, bool receiver)
{
    if (occurrence >= out->n_per_test[test]) /* the common case: a new entry */
        return NULL;
    int seen = 0;
    for (int i = 0; i < out->n_entries; i++) {
        eb_entry *e = &out->entries[i];
        if (e->test != test)
            continue;
        if (seen++ == occurrence) {
            bool free_slot = receiver ? e->receiver.n == 0 : e->sender.n == 0;
            return free_slot ? e : NULL;
        }
    }
    return NULL;
}

static void reserve_entries(eb_parse_out *out, int more)
{
    if (out->n_entries + more <= out->cap_entries)
        return;
    int cap = out->n_entries + more;
    eb_entry *p = realloc(out->entries, (size_t)cap * sizeof *p);
    if (!p)
        abort();
    out->entries = p;
    eb_interval *q = realloc(out->udp_reports, (size_t)cap * sizeof *q);
    if (!q)
        abort();
    out->udp_reports = q;
    out->cap_entries = cap;
}

static eb_entry *new_entry(eb_parse_out *out, int test, const eb_parse_opts *o)
{
    if (out->n_entries == out->cap_entries)
        reserve_entries(out, out->cap_entries ? out->cap_entries : 8);
    out->udp_reports[out->n_entries] = (eb_interval){.lost = -1, .total = -1, .jitter_ms = NAN};
    eb_entry *e = &out->entries[out->n_entries++];
    eb_entry_init(e);
    e->test = test;
    e->repeat = out->n_per_test[test]++;
    copy_str(e->tier, sizeof e->tier, o->tier ? o->tier : "unknown");
    e->warmup_s = o->warmup_s;
    return e;
}

/* A partial test (docs/run.md: never a figure): an error line ended it, or
 * the board's intervals cover less than the -t its log asked for (the rule
 * run applies, eb_intervals_cover; a PC log states no -t). Not ok, no
 * headline; the message names the error line (else the test's first line)
 * and the seconds covered. */
static void judge_partial(eb_parse_out *out, int idx, const seg *s, const char *name, bool board_side)
{
    eb_entry *e = &out->entries[idx];
    double req = board_side && s->time_s > 0 ? s->time_s : NAN;
    const char *side = s->receiver ? "receiver" : "sender";
    char why[160];
    bool covers = eb_intervals_cover(&s->iv, req, e->interval_s, side, e->test, why, sizeof why);
    if (strcmp(e->status, "ok") == 0 && board_side && (!covers || (s->cut && s->cut_ends && !(req > 0)))) {
        if (covers) /* no -t to measure against: the seconds the test ran */
            snprintf(why, sizeof why, "the %s reported %.1f s of %s", side,
                     s->iv.n > 0 ? eb_ivs_at(&s->iv, s->iv.n - 1).end_s : 0.0, eb_test_name(e->test));
        if (s->cut)
            eb_entry_set_error(e, "%s; %s", s->cut, why);
        else
            eb_entry_set_error(e, "%s:%ld: %s", name, s->line, why);
        copy_str(e->status, sizeof e->status, "failed");
    }
    if (strcmp(e->status, "ok") != 0)
        eb_entry_drop_headline(e);
}

int pj_add_segments(eb_parse_out *out, const char *name, seg_list *segs, const eb_parse_opts *o, bool board_side,
                    const char *unit_note, eb_error *err)
{
    int occurrences[EB_TEST_COUNT] = {0};
    int n_listed = 0;
    reserve_entries(out, segs->n); /* one allocation for a long log's entries, not a doubling series */
    for (int i = 0; i < segs->n; i++) {
        seg *s = &segs->v[i];
        if (s->iv.n == 0 && !s->has_summary && !s->error)
            continue;
        /* --test: the tests nothing in the log tells, in order (one name: all of them) */
        int given = s->test >= 0 && !s->guessed ? -1
                    : o->n_test_list > 0       ? (n_listed < o->n_test_list ? o->test_list[n_listed++] : -2)
                                               : o->test;
        if (given >= 0) {
            s->test = given;
            s->receiver = board_side ? test_board_receives(given) : !test_board_receives(given);
        }
        if (given == -2)
            return eb_fail(err, EB_ECONFIG,
                           "%s:%ld: interval lines with nothing to tell which test ran, and --test lists only %d "
                           "tests; name one per such test, in the log's order", name, s->line, o->n_test_list);
        if (s->test < 0)
            return eb_fail(err, EB_ECONFIG,
                           "%s:%ld: interval lines with nothing to tell which test ran (no mode= line, echoed iperf "
                           "command or socket role line); pass --test", name,
                           s->line);
        eb_entry *e = find_slot(out, s->test, occurrences[s->test], s->receiver);
        if (!e)
            e = new_entry(out, s->test, o);
        occurrences[s->test]++;
        /* The entry takes the segment's intervals: a long log's are not
         * copied, and the room beyond them goes back. */
        eb_ivs_trim(&s->iv);
        bool take = s->iv.n > 0;
        if (take) {
            eb_ivs *side = s->receiver ? &e->receiver : &e->sender;
            eb_ivs_free(side); /* empty: find_slot gives a free side only */
            *side = s->iv;
        }
        double interval = o->interval_s > 0 ? o->interval_s : s->interval_s > 0 ? s->interval_s : NAN;
        if (isnan(interval) && isnan(e->interval_s))
            interval = median_span(&s->iv);
        if (!isnan(interval))
            e->interval_s = interval;
        double dur = s->time_s > 0 ? s->time_s
                     : s->has_summary ? s->summary.end_s - s->summary.start_s
                     : s->iv.n > 0 ? eb_ivs_at(&s->iv, s->iv.n - 1).end_s : NAN;
        if (isnan(e->duration_s) || (board_side && s->time_s > 0))
            e->duration_s = dur;
        if (board_side && s->has_summary && s->summary.mbps > 0) {
            e->summary_mbps = s->summary.mbps;
            eb_entry_set_text(&e->summary_printed, s->summary_printed);
        }
        if (board_side && unit_note && unit_note[0])
            eb_entry_set_text(&e->unit_note, unit_note);
        if (s->free_heap >= 0)
            e->free_heap = s->free_heap;
        if (s->min_free_heap >= 0)
            e->min_free_heap = s->min_free_heap;
        if (s->largest_block >= 0)
            e->largest_block = s->largest_block;
        if (s->error && (s->iv.n == 0 || !e->error_text)) {
            if (s->iv.n == 0 || strstr(s->error, "during the test"))
                copy_str(e->status, sizeof e->status, "failed");
            free(e->error_text); /* the entry takes the message */
            e->error_text = s->error;
            s->error = NULL;
        }
        int idx = (int)(e - out->entries);
        if (s->has_report && s->report.total > 0)
            out->udp_reports[idx] = s->report;
        else if (!board_side && s->receiver && s->has_summary && s->summary.total > 0)
            out->udp_reports[idx] = s->summary; /* the PC server's whole-test line (docs/results.md) */
        eb_entry_figures(e, &out->udp_reports[idx]);
        judge_partial(out, idx, s, name, board_side);
        if (take)
            s->iv = EB_IVS_EMPTY; /* the entry owns it now */
    }
    return 0;
}

/* ESP-Hosted's raw transport throughput report (hosted_raw_tp.c): the
 * host's "stats: A-B sec Tx:X Rx:Y kbps" lines give a raw_tx entry (host to
 * co-processor) and a raw_rx entry, each from its direction's first to last
 * interval with traffic. Returns the number of entries added. */
int pj_raw_tp_entries(eb_parse_out *out, const char *data, size_t len, const eb_parse_opts *o)
{
    eb_raw_tp_result *res = calloc(1, sizeof *res);
    if (!res)
        abort();
    eb_error ignored = {0};
    int made = 0;
    for (int d = 0; d < 2 && eb_raw_tp_parse(data, len, res, &ignored) == 0; d++) {
        int first = -1, last = -1;
        for (int i = 0; i < res->n; i++)
            if ((d ? res->iv[i].rx_mbps : res->iv[i].tx_mbps) > 0)
                last = i, first = first < 0 ? i : first;
        if (first < 0)
            continue;
        eb_entry *e = new_entry(out, d ? EB_TEST_RAW_RX : EB_TEST_RAW_TX, o);
        for (int i = first; i <= last; i++) {
            const eb_raw_tp_interval *r = &res->iv[i];
            double mbps = d ? r->rx_mbps : r->tx_mbps;
            eb_ivs_push(&e->receiver, &(eb_interval){r->start_s, r->end_s, mbps * 1e6 / 8 * (r->end_s - r->start_s),
                                                     mbps, NAN, -1, -1});
        }
        eb_ivs_trim(&e->receiver);
        e->interval_s = o->interval_s > 0 ? o->interval_s : res->iv[first].end_s - res->iv[first].start_s;
        e->duration_s = res->iv[last].end_s - res->iv[first].start_s;
        eb_entry_figures(e, NULL);
        made++;
    }
    free(res);
    return made;
}

