/* What `run` shows of a run, rendered here and printed by the CLI: a
 * progress event as a line, the summary tables of the tests the run
 * finished (the difference to the docs' figure, the board-to-board
 * footnote), and ESP-IDF CI's performance lines and the OpenMetrics text
 * of the run's results.json. The run keeps what it finished in
 * eb_run_opts.finished (run_ctx.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "espbench/adapters/profile_dirs.h"
#include "espbench/adapters/results_file.h"
#include "espbench/base/fs.h"
#include "espbench/formats/dims.h"
#include "espbench/formats/report.h"
#include "espbench/jobs/run.h"

static const char *who(const eb_run_progress *p, char *buf, size_t cap)
{
    if (p->board && p->board[0])
        snprintf(buf, cap, "%s %s/%s", p->board, p->chip, p->tier);
    else
        snprintf(buf, cap, "%s/%s", p->chip, p->tier);
    return buf;
}

static const char *num(char *buf, size_t cap, double v, const char *fmt)
{
    if (isfinite(v))
        snprintf(buf, cap, fmt, v);
    else
        snprintf(buf, cap, "-");
    return buf;
}

static void latency_line(const eb_run_progress *p, const char *w, eb_buf *out)
{
    const eb_latency *l = p->latency;
    char mn[16], avg[16], mx[16], p99[16];
    const char *under = l->under_load[0] ? " under " : "";
    if (strcmp(l->status, "ok")) {
        eb_buf_printf(out, "[%d/%d] %s latency%s%s FAILED: %s\n", p->index, p->total, w, under, l->under_load,
                      l->error);
        return;
    }
    eb_buf_printf(out, "[%d/%d] %s latency%s%s %s %d/%d replies, min/avg/max/p99 %s/%s/%s/%s ms, loss %.1f%%\n",
                  p->index, p->total, w, under, l->under_load, l->method, l->received, l->sent, num(mn, sizeof mn, l->min_ms, "%.2f"),
                  num(avg, sizeof avg, l->avg_ms, "%.2f"), num(mx, sizeof mx, l->max_ms, "%.2f"),
                  num(p99, sizeof p99, l->p99_ms, "%.2f"), l->loss_pct);
}

static void test_line(const eb_run_progress *p, const char *w, eb_buf *out)
{
    const eb_entry *e = p->entry;
    const eb_provenance *pv = eb_entry_prov(e);
    const char *test = eb_run_test_name(p->test);
    if (strcmp(e->status, "ok")) {
        eb_buf_printf(out, "[%d/%d] %s %-6s FAILED: %s\n", p->index, p->total, w, test, eb_entry_error(e));
    } else if (pv->peer_chip[0]) {
        eb_buf_printf(out, "[%d/%d] %s %-6s mean %.2f Mbit/s, peak 1-s %.2f, board to board with %s (%s/%s)\n",
                      p->index, p->total, w, test, e->mean_mbps, e->peak_mbps, pv->peer_board, pv->peer_chip,
                      pv->peer_tier);
    } else {
        char docs[48] = ", no published figure"; /* a custom tier, a pair's iperf tests */
        if (isfinite(e->ref_mbps))
            snprintf(docs, sizeof docs, ", docs %.1f", e->ref_mbps);
        eb_buf_printf(out, "[%d/%d] %s %-6s mean %.2f Mbit/s, peak 1-s %.2f%s\n", p->index, p->total, w, test,
                      e->mean_mbps, e->peak_mbps, docs);
    }
}

int eb_run_progress_text(const eb_run_progress *p, int n_boards, bool tty, eb_buf *out)
{
    char w[160];
    switch (p->event) {
    case EB_RUN_EV_INFO:
        eb_buf_printf(out, "%s\n", p->message);
        return EB_RUN_TEXT_LINE;
    case EB_RUN_EV_WARN:
        eb_buf_printf(out, "espbench: warning: %s\n", p->message);
        return EB_RUN_TEXT_WARN;
    case EB_RUN_EV_TEST_START:
        if (tty)
            return EB_RUN_TEXT_NONE;
        eb_buf_printf(out, "[%d/%d] %s %s: started\n", p->index, p->total, who(p, w, sizeof w),
                      eb_run_test_name(p->test));
        return EB_RUN_TEXT_LINE;
    case EB_RUN_EV_PROGRESS: {
        /* One live line per test on a terminal (only one board: lines of
         * concurrent boards would overwrite each other). */
        if (!tty || n_boards != 1)
            return EB_RUN_TEXT_NONE;
        char rate[32] = "";
        if (isfinite(p->current_mbps))
            snprintf(rate, sizeof rate, "  %7.2f Mbit/s", p->current_mbps);
        eb_buf_printf(out, "\r\033[K[%d/%d] %s %-6s %5.1f/%g s%s", p->index, p->total, who(p, w, sizeof w),
                      eb_run_test_name(p->test), p->elapsed_s, p->duration_s, rate);
        return EB_RUN_TEXT_LIVE;
    }
    case EB_RUN_EV_SKIP:
        eb_buf_printf(out, "[%d/%d] %s %s: done before, skipped\n", p->index, p->total, who(p, w, sizeof w),
                      eb_run_test_name(p->test));
        return EB_RUN_TEXT_LINE;
    case EB_RUN_EV_NOT_RUN:
        eb_buf_printf(out, "[%d/%d] %s %s: not run: %s\n", p->index, p->total, who(p, w, sizeof w),
                      eb_run_test_name(p->test), p->message);
        return EB_RUN_TEXT_LINE;
    case EB_RUN_EV_LATENCY_DONE:
        latency_line(p, who(p, w, sizeof w), out);
        return EB_RUN_TEXT_LINE;
    case EB_RUN_EV_TEST_DONE:
        test_line(p, who(p, w, sizeof w), out);
        return EB_RUN_TEXT_LINE;
    }
    return EB_RUN_TEXT_NONE;
}

/* ------------------------------------------------------------ the summary */

/* "board:tier" when the run had several boards, else the tier; then the
 * radio's dimensions away from their defaults ("band=5 ps=min_modem"). */
static const char *tier_cell(const char *board, const char *tier, const eb_provenance *p, int n_boards, char *buf,
                             size_t cap)
{
    bool named = board[0] && n_boards > 1;
    char radio[64];
    eb_radio_label(p, radio, sizeof radio);
    snprintf(buf, cap, "%s%s%s%s%s", named ? board : "", named ? ":" : "", tier, radio[0] ? " " : "", radio);
    return buf;
}

static void latency_table(const eb_results *f, int n_boards, eb_buf *out)
{
    eb_buf_printf(out, "\n%-10s %-18s %-9s %9s %8s %8s %8s %8s %7s\n", "chip", "tier", "method", "replies", "min ms",
                  "avg ms", "max ms", "p99 ms", "loss");
    for (int i = 0; i < f->n_lat; i++) {
        const eb_latency *l = &f->lat[i];
        char tier[192], mn[16], avg[16], mx[16], p99[16], rep[24], loss[16];
        snprintf(rep, sizeof rep, "%d/%d", l->received, l->sent);
        bool ok = !strcmp(l->status, "ok");
        tier_cell(l->board, l->tier, &l->prov, n_boards, tier, sizeof tier);
        if (l->under_load[0]) /* probed beside a throughput test: "iperf @tcp_rx" */
            snprintf(tier + strlen(tier), sizeof tier - strlen(tier), " @%s", l->under_load);
        eb_buf_printf(out, "%-10s %-18s %-9s %9s %8s %8s %8s %8s %7s%s%s\n", l->chip,
                      tier, l->method, rep,
                      num(mn, sizeof mn, l->min_ms, "%.2f"), num(avg, sizeof avg, l->avg_ms, "%.2f"),
                      num(mx, sizeof mx, l->max_ms, "%.2f"), num(p99, sizeof p99, l->p99_ms, "%.2f"),
                      num(loss, sizeof loss, l->loss_pct, "%.1f%%"), ok ? "" : "  FAILED: ", ok ? "" : l->error);
    }
}

double eb_run_docs_diff_pct(const eb_entry *e)
{
    return isfinite(e->ref_mbps) && e->ref_mbps > 0 ? (e->mean_mbps / e->ref_mbps - 1) * 100 : NAN;
}

/* An emulated board's figures (run --qemu) are no hardware's: said under the table. */
static void emulated_note(const eb_results *f, eb_buf *out)
{
    for (int i = 0; i < f->n_entries; i++)
        if (!strcmp(f->entries[i].figure_source, "emulator")) {
            eb_buf_printf(out, "(emulated: QEMU's ESP32-C3 with Ethernet in place of Wi-Fi, not measured on hardware; "
                               "the docs column is a chip's over Wi-Fi)\n");
            return;
        }
}

/* The board-to-board footnote: docs figures are against a PC, none for a pair. */
static void pair_note(const eb_results *f, eb_buf *out)
{
    for (int i = 0; i < f->n_entries; i++) {
        const eb_provenance *pv = eb_entry_prov(&f->entries[i]);
        if (pv->peer_chip[0]) {
            eb_buf_printf(out, "(board to board with %s %s/%s: no PC in the data path; TX = the board sends to its "
                          "peer, RX = the peer sends; no docs figure applies)\n", pv->peer_board, pv->peer_chip,
                          pv->peer_tier);
            return;
        }
    }
}

static void throughput_table(const eb_results *f, int n_boards, eb_buf *out)
{
    eb_buf_printf(out, "\n%-10s %-18s %-7s %10s %10s %8s %7s %7s %9s\n", "chip", "tier", "test", "mean", "peak 1-s",
                  "docs", "diff", "loss", "free KB");
    for (int i = 0; i < f->n_entries; i++) {
        const eb_entry *r = &f->entries[i];
        char mean[16], peak[16], ref[16], diff[16], loss[16], mem[16], tier[192];
        tier_cell(r->board, r->tier, eb_entry_prov(r), n_boards, tier, sizeof tier);
        if (strcmp(r->status, "ok")) {
            eb_buf_printf(out, "%-10s %-18s %-7s FAILED: %s\n", r->chip, tier, eb_run_test_name(r->test),
                          eb_entry_error(r));
            continue;
        }
        eb_buf_printf(out, "%-10s %-18s %-7s %10s %10s %8s %7s %7s %9s\n", r->chip, tier, eb_run_test_name(r->test),
                      num(mean, sizeof mean, r->mean_mbps, "%.2f"), num(peak, sizeof peak, r->peak_mbps, "%.2f"),
                      num(ref, sizeof ref, r->ref_mbps, "%.1f"),
                      num(diff, sizeof diff, eb_run_docs_diff_pct(r), "%+.1f%%"),
                      num(loss, sizeof loss, r->loss_pct, "%.1f%%"),
                      num(mem, sizeof mem, r->free_heap >= 0 ? r->free_heap / 1024.0 : NAN, "%.1f"));
    }
    eb_buf_printf(out, "(Mbit/s, receiver side, mean of the steady intervals; peak 1-s = the largest 1-second\n"
                  " interval, the figure Espressif's CI reports)\n");
    pair_note(f, out);
    emulated_note(f, out);
}

void eb_run_summary_text(const eb_results *finished, const eb_run_summary *s, const char *out_dir, int n_boards,
                         bool step_times, eb_buf *out)
{
    if (finished && finished->n_lat)
        latency_table(finished, n_boards, out);
    if (finished && finished->n_entries)
        throughput_table(finished, n_boards, out);
    if (step_times && s->planned) {
        eb_buf_printf(out, "time per step (s):");
        for (int i = 0; i < EB_STEP_COUNT; i++)
            eb_buf_printf(out, " %s %.2f", eb_run_step_name(i), s->step_ms[i] / 1000.0);
        eb_buf_printf(out, "\n");
    }
    char unrun[32] = ""; /* said when there are any: the counts add up to the plan */
    if (s->not_run)
        snprintf(unrun, sizeof unrun, ", %d not run", s->not_run);
    eb_buf_printf(out, "%d tests done, %d skipped, %d failed%s of %d; %.1f s (%.1f s of traffic). Results: "
                  "%s/results.json\n", s->done, s->skipped, s->failed, unrun, s->planned, s->wall_s, s->test_s,
                  out_dir);
}

/* ------------------------------------------------------------ CI figures */

int eb_run_figures(const char *out_dir, const char *profiles_dir, bool perf_lines, const char *metrics,
                   eb_buf *lines, eb_error *err)
{
    if (!perf_lines && !metrics)
        return 0;
    char path[1100];
    snprintf(path, sizeof path, "%s/results.json", out_dir);
    eb_results r;
    eb_profiles p = {0};
    int rc = eb_results_load(&r, path, err);
    if (rc)
        return rc;
    rc = eb_profiles_load_default(&p, profiles_dir, err);
    if (!rc && perf_lines)
        eb_report_performance_lines(&r, &p, lines);
    if (!rc && metrics) {
        eb_buf b;
        eb_buf_init(&b);
        eb_report_openmetrics(&r, &p, EB_STAT_MEAN, &b);
        rc = eb_file_write_atomic(metrics, b.data, b.len, err);
        eb_buf_free(&b);
    }
    eb_profiles_free(&p);
    eb_results_free(&r);
    return rc;
}
