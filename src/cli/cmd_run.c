/* espbench run: the flow — flags read (cmd_run_flags.c), --pattern loaded,
 * the boards resolved (eb_run_resolve), run (eb_run, or eb_run_idf per
 * ESP-IDF checkout), ESP-IDF CI's figures after — and the printing of what
 * the library renders (run_summary.c: progress lines, the summary). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_run.h"
#include "commands.h"
#include "espbench/formats/pattern.h"
#include "espbench/jobs/run.h"
#include "espbench/jobs/run_idf.h"

/* ------------------------------------------------------------ display */

typedef struct display {
    bool tty;
    bool line_open;    /* a progress line without newline is on screen */
    int n_boards;
    eb_results finished; /* what the run finished (eb_run_opts.finished), for the summary */
} display;

static void end_line(display *d)
{
    if (d->line_open) {
        fputs("\r\033[K", stdout);
        d->line_open = false;
    }
}

static void on_progress(void *user, const eb_run_progress *p)
{
    display *d = user;
    eb_buf b;
    eb_buf_init(&b);
    int where = eb_run_progress_text(p, d->n_boards, d->tty, &b);
    if (where == EB_RUN_TEXT_LINE || where == EB_RUN_TEXT_WARN)
        end_line(d);
    if (b.len)
        fwrite(b.data, 1, b.len, where == EB_RUN_TEXT_WARN ? stderr : stdout);
    d->line_open = d->line_open || where == EB_RUN_TEXT_LIVE;
    eb_buf_free(&b);
    fflush(stdout);
}

static void print_summary(display *d, const eb_run_summary *s, const char *out_dir)
{
    eb_buf b;
    eb_buf_init(&b);
    eb_run_summary_text(&d->finished, s, out_dir, d->n_boards, cli_verbose, &b);
    end_line(d);
    if (b.len)
        fwrite(b.data, 1, b.len, stdout);
    eb_buf_free(&b);
}

/* A fresh display for a run (run --idf: one per ESP-IDF). */
static void display_reset(display *d, eb_run_opts *o)
{
    eb_results_free(&d->finished);
    *d = (display){.tty = cli_stdout_is_tty()};
    eb_results_init(&d->finished);
    o->finished = &d->finished;
    o->progress = on_progress;
    o->user = d;
}

static run_args args; /* what the flags left for after the options are read */

/* ------------------------------------------------------------ running */

/* One run: the request resolved into boards, run, its summary printed; out
 * gets the run folder. A wrong request sets *usage. */
static int run_once(const eb_run_request *rq, eb_run_opts *o, char *out, size_t cap, eb_error *err, bool *usage)
{
    display disp = {0};
    display_reset(&disp, o);
    o->stop = &cli_stop_flag;
    eb_run_setup st;
    eb_run_summary sum = {0};
    int rc = eb_run_resolve(rq, o, &st, err);
    disp.n_boards = o->n_boards;
    *usage = rc && st.bad_request;
    if (!rc) {
        rc = cli_stop_flag ? eb_fail(err, EB_EINTR, "interrupted") : eb_run(o, &sum, err);
        if (rc != EB_ECONFIG || sum.planned)
            print_summary(&disp, &sum, st.out_dir);
    }
    snprintf(out, cap, "%s", st.out_dir);
    eb_run_setup_free(&st);
    eb_results_free(&disp.finished);
    return rc;
}

/* run --idf prints the library's events (eb_run_idf, run_idf.h). */
typedef struct idf_display {
    display disp;
    eb_run_opts *o;
    const char *chip;
    bool sim;
} idf_display;

static void on_idf_event(void *user, const eb_run_idf_event *ev)
{
    idf_display *d = user;
    const eb_run_idf_step *st = ev->step;
    switch (ev->kind) {
    case EB_RUN_IDF_STALE:
        fprintf(stderr, "espbench run: warning: ESP-IDF %s (%s): %d submodule%s not at the commit's, e.g. %s; built "
                        "as checked out (git submodule update --init --recursive to follow HEAD)\n",
                st->idf.version, st->idf.path, st->idf.stale_submodules, st->idf.stale_submodules == 1 ? "" : "s",
                st->idf.stale_first);
        break;
    case EB_RUN_IDF_CHECKED:
        if (d->sim)
            fprintf(stderr, "espbench run: --idf --sim: %s\n", EB_SIM_IDF_NOTE);
        break;
    case EB_RUN_IDF_BUILD:
        fprintf(stderr, "build %d/%d: %s with ESP-IDF %s... ", ev->index + 1, ev->n, d->chip, st->idf.path);
        fflush(stderr);
        break;
    case EB_RUN_IDF_BUILT:
        if (st->build.cached)
            fprintf(stderr, "%s (%.7s) cached\n", st->idf.version, st->idf.commit);
        else
            fprintf(stderr, "%s (%.7s) built in %.1f s\n", st->idf.version, st->idf.commit, st->build.seconds);
        break;
    case EB_RUN_IDF_BUILD_FAILED:
        if (ev->rc == EB_EINTR)
            fprintf(stderr, "interrupted\n");
        else
            fprintf(stderr, "FAILED: %s\n", ev->err->msg);
        break;
    case EB_RUN_IDF_FLASHED:
        fprintf(stderr, "ESP-IDF %s: %s flashed\n", st->idf.version, ev->board);
        break;
    case EB_RUN_IDF_RUN:
        display_reset(&d->disp, d->o);
        printf("ESP-IDF %s (%s): run in %s\n", st->idf.version, st->idf.path, st->out_dir);
        fflush(stdout);
        break;
    case EB_RUN_IDF_RUN_END:
        d->disp.n_boards = ev->n_boards;
        if (ev->rc != EB_ECONFIG || ev->sum->planned)
            print_summary(&d->disp, ev->sum, ev->out);
        if (ev->rc && ev->rc != EB_ECONFIG && ev->rc != EB_EINTR)
            fprintf(stderr, "espbench: ESP-IDF %s: %s\n", st->idf.version, ev->err->msg);
        break;
    case EB_RUN_IDF_MERGED:
        printf("%d ESP-IDF run%s merged into %s/results.json\n", ev->merged, ev->merged == 1 ? "" : "s", ev->out);
        break;
    }
}

static int run_idf(const eb_run_request *rq, eb_run_opts *tmpl, char *out, size_t cap, eb_error *err, bool *usage)
{
    const char *paths[33];
    int n = 0;
    for (char *t = strtok(args.idf, ","); t && n < 33; t = strtok(NULL, ","))
        paths[n++] = t;
    idf_display d = {.o = tmpl, .chip = rq->chip, .sim = rq->sim};
    display_reset(&d.disp, tmpl);
    eb_run_idf_req req = {.idf_paths = paths, .n_idf = n, .cache_dir = args.idf_cache, .rq = rq, .o = tmpl,
                          .stop = &cli_stop_flag, .event = on_idf_event, .user = &d};
    int rc = eb_run_idf(&req, out, cap, usage, err);
    eb_results_free(&d.disp.finished);
    return rc;
}

/* --pattern: the request's checks, the pattern loaded (a file or a
 * built-in name), then applied to the options. */
static int load_pattern(const eb_run_request *rq, eb_run_opts *o, eb_pattern *pat, eb_pattern_set *builtin)
{
    eb_error err = {0};
    bool usage = false;
    int rc = eb_run_use_pattern(rq, o, NULL, &usage, &err);
    if (!rc && !(rc = cli_load_patterns(args.pattern, pat, builtin, &err)) &&
        (rc = eb_run_use_pattern(rq, o, pat, &usage, &err)) != 0) {
        eb_pattern_free(pat);
        eb_patterns_free(builtin);
    }
    return !rc ? 0 : usage ? cli_usage_error("run", "%s", err.msg) : cli_error(&err);
}

int cmd_run(int argc, char **argv)
{
    eb_run_opts o = {.stub = "auto", .warmup_s = -1, .retries = -1};
    eb_run_request rq = {.profiles_dir = cli_profiles_dir};
    int rc = run_read_options(argc, argv, &rq, &o, &args);
    if (rc)
        return rc;
    eb_pattern pat = {0};
    eb_pattern_set builtin = {0};
    if (args.pattern && (rc = load_pattern(&rq, &o, &pat, &builtin)) != 0)
        return rc;

    cli_catch_stop_signals();
    eb_error err = {0};
    char out[1024];
    bool usage = false;
    rc = args.idf ? run_idf(&rq, &o, out, sizeof out, &err, &usage) : run_once(&rq, &o, out, sizeof out, &err, &usage);
    eb_pattern_free(&pat);
    eb_patterns_free(&builtin);
    if (usage)
        return cli_usage_error("run", "%s", err.msg);
    if (!rc) { /* --performance-lines / --metrics: the run's figures as `report` renders them */
        eb_buf lines;
        eb_buf_init(&lines);
        rc = eb_run_figures(out, cli_profiles_dir, args.perf_lines, args.metrics, &lines, &err);
        if (lines.len)
            fwrite(lines.data, 1, lines.len, stdout);
        fflush(stdout);
        eb_buf_free(&lines);
    }
    if (rc == EB_EINTR) {
        fprintf(stderr, "espbench: interrupted; finished tests are kept in %s (continue with --resume)\n", out);
        return EB_EINTR;
    }
    if (rc)
        return cli_error(&err);
    return 0;
}
