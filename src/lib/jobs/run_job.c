/* The run job's entry point (run.h), part of the core: checks the options,
 * loads a run to resume, makes the boards' ends (run_ends.c), begins the
 * run-level services (the lab's AP, --aggregate's meeting), probes the PC's iperf2, then runs each
 * board's plan (run_board.c) in a thread of its own and keeps the first
 * board error. The parts: run_internal.h. */
#include "espbench/base/fs.h"
#include "espbench/jobs/run.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "espbench/base/clock.h"
#include "espbench/adapters/iperf_proc.h"
#include "espbench/base/version.h"
#include "espbench/adapters/results_file.h"
#include "run_internal.h"

static const char *const step_names[EB_STEP_COUNT] = {
    "open", "tier", "wifi", "setup", "traffic", "teardown", "memory", "save",
};

const char *eb_run_step_name(int step)
{
    return step >= 0 && step < EB_STEP_COUNT ? step_names[step] : "?";
}

static void *board_thread(void *arg)
{
    board_ctx *bc = arg;
    bc->err.code = run_board(bc);
    return NULL;
}

/* One thread per board (none for a lone board). */
static void run_boards(board_ctx *bcs, int n)
{
    if (n <= 1) {
        if (n == 1)
            board_thread(&bcs[0]);
        return;
    }
    pthread_t *th = calloc((size_t)n, sizeof *th);
    bool *started = calloc((size_t)n, sizeof *started);
    /* Out of memory for the thread table: boards run one after another instead. */
    for (int i = 0; i < n; i++)
        if (th && started)
            started[i] = pthread_create(&th[i], NULL, board_thread, &bcs[i]) == 0;
    for (int i = 0; i < n; i++) {
        if (started && started[i])
            pthread_join(th[i], NULL);
        else
            board_thread(&bcs[i]);
    }
    free(started);
    free(th);
}

/* The first board error is the run's; EB_EINTR wins (exit 4). */
static int first_board_error(const board_ctx *bcs, int n, eb_error *err)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (bcs[i].err.code == EB_EINTR) {
            *err = bcs[i].err;
            return EB_EINTR;
        }
        if (bcs[i].err.code && !rc) {
            *err = bcs[i].err;
            rc = bcs[i].err.code;
        }
    }
    return rc;
}

static void free_boards(board_ctx *bcs, int n)
{
    for (int i = 0; bcs && i < n; i++)
        run_end_free_far(&bcs[i]);
    free(bcs);
}

/* Board contexts with their chips and far ends; the plan of each is checked
 * (unknown tiers) before any board is touched. */
static int make_boards(run_shared *sh, board_ctx **out, eb_error *err)
{
    const eb_run_opts *o = sh->o;
    board_ctx *bcs = calloc((size_t)o->n_boards, sizeof *bcs);
    if (!bcs)
        abort();
    for (int i = 0; i < o->n_boards; i++) {
        const run_end_ops *own, *far;
        run_end_rows(&o->boards[i], &own, &far);
        eb_run_item probe[1];
        if (run_end_init(&bcs[i], sh, &o->boards[i], own, err) || eb_run_plan(o, bcs[i].chip, probe, 0, err) < 0 ||
            run_end_make_far(&bcs[i], err)) {
            free_boards(bcs, o->n_boards);
            return err->code;
        }
    }
    *out = bcs;
    return 0;
}

/* The output folder: created, and a previous run in it resumed or refused. */
static int prepare_out(run_shared *sh, eb_error *err)
{
    const eb_run_opts *o = sh->o;
    if (eb_mkdir_p(o->out_dir) != 0)
        return eb_fail(err, EB_EIO, "cannot create %s: %s; check --out and its permissions", o->out_dir,
                       strerror(errno));
    snprintf(sh->json_path, sizeof sh->json_path, "%s/results.json", o->out_dir);
    snprintf(sh->csv_path, sizeof sh->csv_path, "%s/results.csv", o->out_dir);
    int rc = eb_run_check_out(o, err);
    if (rc || access(sh->json_path, F_OK) != 0)
        return rc;
    rc = eb_results_load(&sh->results, sh->json_path, err);
    if (rc)
        eb_error_prefix(err, "--resume: ");
    return rc;
}

/* The run-level services, each taken when its predicate wants the run, in
 * the order they begin. */
static bool every_run(const eb_run_opts *o) { return (void)o, true; }
static bool aggregating(const eb_run_opts *o) { return o->aggregate; }
static const struct service_row {
    const run_service *svc;
    bool (*wanted)(const eb_run_opts *o);
} service_rows[] = {{&run_service_lab, every_run}, {&run_service_meet, aggregating}};

static void choose_services(run_shared *sh)
{
    int n = 0;
    for (size_t i = 0; i < sizeof service_rows / sizeof service_rows[0]; i++)
        if (service_rows[i].wanted(sh->o))
            sh->services[n++] = service_rows[i].svc;
    sh->services[n] = NULL;
}

static int begin_services(run_shared *sh, board_ctx *bcs, int n, eb_error *err)
{
    int rc = 0;
    for (const run_service *const *s = sh->services; *s && !rc; s++)
        rc = (*s)->begin ? (*s)->begin(sh, bcs, n, err) : 0;
    return rc;
}

static void end_services(run_shared *sh)
{
    for (const run_service *const *s = sh->services; *s; s++)
        if ((*s)->end)
            (*s)->end(sh);
}

static int check_opts(const eb_run_opts *o, eb_error *err)
{
    if (!o->out_dir || !o->n_boards)
        return eb_fail(err, EB_ECONFIG, "run: no output directory or no board");
    if (!o->ssid || !*o->ssid)
        return eb_fail(err, EB_ECONFIG, "run: no AP SSID: pass --ssid or set ap.ssid in the lab file");
    int rc = eb_run_check_timing(o, err);
    if (!rc)
        rc = eb_run_check_sweep(o, err);
    if (!rc)
        rc = run_dims_check(o, false, err);
    return rc ? rc : run_kinds_check(o, err);
}

int eb_run(const eb_run_opts *o_in, eb_run_summary *sum, eb_error *err)
{
    eb_run_opts o = *o_in;
    eb_run_opts_defaults(&o);
    memset(sum, 0, sizeof *sum);
    uint64_t t_start = eb_now_us();
    int rc = check_opts(&o, err);
    if (rc)
        return rc;
    run_shared sh = {.o = &o, .pc = o.pc ? o.pc : eb_pc_host(), .sum = sum};
    choose_services(&sh);
    pthread_mutex_init(&sh.lock, NULL);
    eb_results_init(&sh.results);
    if (gethostname(sh.host, sizeof sh.host) != 0)
        snprintf(sh.host, sizeof sh.host, "unknown");
    sh.host[sizeof sh.host - 1] = 0;
    board_ctx *bcs = NULL;
    if ((rc = prepare_out(&sh, err)) != 0 || (rc = make_boards(&sh, &bcs, err)) != 0)
        goto out;
    if ((rc = begin_services(&sh, bcs, o.n_boards, err)) != 0)
        goto unrun;
    snprintf(sh.results.espbench_version, sizeof sh.results.espbench_version, "%s", eb_version());
    /* The PC side first: no iperf2, no run (eb_run_resolve may have probed it). */
    if (o.iperf_version) {
        snprintf(sh.iperf_version, sizeof sh.iperf_version, "%.63s", o.iperf_version);
    } else {
        eb_iperf_version v;
        if ((rc = sh.pc->ops->iperf_probe(sh.pc, o.iperf ? o.iperf : eb_iperf_program(), &v, err)) != 0)
            goto unrun;
        snprintf(sh.iperf_version, sizeof sh.iperf_version, "%.63s", v.text);
    }
    snprintf(sum->iperf_version, sizeof sum->iperf_version, "%s", sh.iperf_version);
    run_boards(bcs, o.n_boards);
    rc = first_board_error(bcs, o.n_boards, err);
    if (!rc && sum->failed)
        rc = eb_fail(err, EB_EIO, "%d of %d tests failed (see the error column of %s)", sum->failed, sum->planned,
                     sh.csv_path);
    pthread_mutex_lock(&sh.lock);
    eb_error serr;
    if (run_save_locked(&sh, &serr) && !rc) {
        *err = serr;
        rc = serr.code;
    }
    pthread_mutex_unlock(&sh.lock);
    goto out;
unrun: /* nothing ran: the whole plan is said as not run, with why */
    for (int i = 0; i < o.n_boards; i++)
        run_board_not_run(&bcs[i], err->msg);
out:
    free_boards(bcs, o.n_boards);
    sum->wall_s = (double)(eb_now_us() - t_start) / 1e6;
    sum->test_s = (sum->done) * o.duration_s;
    eb_results_free(&sh.results);
    pthread_mutex_destroy(&sh.lock);
    end_services(&sh);
    return rc;
}
