/* run --idf (run_idf.h): build per ESP-IDF, one run folder per IDF, and the
 * merge of their results into the run's own results.json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "espbench/adapters/results_file.h"
#include "espbench/base/fs.h"
#include "espbench/jobs/firmware_source.h"
#include "espbench/jobs/flash.h"
#include "espbench/jobs/merge.h"
#include "espbench/jobs/run_idf.h"

/* A folder name from a version: anything but [A-Za-z0-9._-] becomes '_'. */
static void safe_name(char *out, size_t cap, const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                 c == '-' || c == '_';
        out[i] = ok ? c : '_';
    }
    out[i] = 0;
}

int eb_run_idf_prepare(const char *idf_path, const char *chip, const char *out_dir, eb_idf_build_req *req,
                       eb_run_idf_step *step, eb_error *err)
{
    memset(step, 0, sizeof *step);
    if (eb_idf_probe(idf_path, &step->idf, err))
        return err->code;
    req->idf = &step->idf;
    req->chip = chip;
    if (eb_idf_build_firmware(req, &step->build, err))
        return err->code;
    snprintf(step->image, sizeof step->image, "%s/espbench.bin", step->build.dir);
    struct stat sb;
    if (stat(step->image, &sb) != 0 || !S_ISREG(sb.st_mode))
        return eb_fail(err, EB_EIO, "build %s with ESP-IDF %s (%s): no espbench.bin in %s; see %s", chip,
                       step->idf.version, step->idf.path, step->build.dir, step->build.log);
    char ver[64];
    safe_name(ver, sizeof ver, step->idf.version);
    snprintf(step->out_dir, sizeof step->out_dir, "%s/idf-%s-%.7s", out_dir, ver,
             step->idf.commit[0] ? step->idf.commit : "nogit");
    return 0;
}

int eb_run_idf_collect(const char *out_dir, const eb_run_idf_step *steps, int n, eb_error *err)
{
    eb_results all;
    eb_results_init(&all);
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        char path[1100];
        snprintf(path, sizeof path, "%s/results.json", steps[i].out_dir);
        struct stat sb;
        if (stat(path, &sb) != 0)
            continue; /* that IDF's run never started (its build failed) */
        eb_results one;
        eb_results_init(&one);
        if ((rc = eb_results_load(&one, path, err)) == 0) {
            for (int k = 0; k < one.n_entries; k++) {
                eb_provenance *pv = eb_entry_prov_mut(&one.entries[k]);
                if (!pv)
                    continue;
                if (!pv->idf_version[0])
                    snprintf(pv->idf_version, sizeof pv->idf_version, "%.47s", steps[i].idf.version);
                if (!pv->idf_commit[0])
                    snprintf(pv->idf_commit, sizeof pv->idf_commit, "%.47s", steps[i].idf.commit);
            }
            rc = eb_results_merge(&all, &one, path, EB_MERGE_REFUSE, err);
        }
        eb_results_free(&one);
    }
    if (!rc) {
        char path[1100];
        snprintf(path, sizeof path, "%s/results.json", out_dir);
        rc = eb_results_save_json(&all, path, err);
        if (!rc) {
            snprintf(path, sizeof path, "%s/results.csv", out_dir);
            rc = eb_results_save_csv(&all, path, err);
        }
    }
    eb_results_free(&all);
    return rc;
}

static void emit(const eb_run_idf_req *req, eb_run_idf_event ev)
{
    if (req->event)
        req->event(req->user, &ev);
}

static int usage_error(bool *usage, eb_error *err, const char *msg)
{
    *usage = true;
    return eb_fail(err, EB_ECONFIG, "%s", msg);
}

/* Every checkout read, its version checked against the firmware's lowest
 * and its environment against its export.sh, before anything is built. */
static int check_all(const eb_run_idf_req *req, eb_run_idf_step *steps, eb_error *err)
{
    for (int i = 0; i < req->n_idf; i++) {
        char who[1100];
        snprintf(who, sizeof who, "--idf %s", req->idf_paths[i]);
        eb_idf_env env;
        if (eb_idf_probe(req->idf_paths[i], &steps[i].idf, err) ||
            eb_idf_version_check(steps[i].idf.version, who, err) ||
            eb_idf_env_probe(&steps[i].idf, req->rq->chip, &env, err))
            return err->code;
        if (steps[i].idf.stale_submodules)
            emit(req, (eb_run_idf_event){.kind = EB_RUN_IDF_STALE, .index = i, .n = req->n_idf, .step = &steps[i]});
    }
    return 0;
}

int eb_run_flash_build(const eb_run_opts *o, const eb_profiles *profiles, const char *build_dir, const char *chip,
                       void (*flashed)(void *user, const char *port), void *user, eb_error *err)
{
    eb_image_set set = {0};
    int rc = eb_image_set_from_build_dir(&set, build_dir, err);
    for (int b = 0; !rc && b < o->n_boards; b++) {
        eb_flash_opts fo = {.profiles = profiles, .expect_chip = chip, .stub = o->stub ? o->stub : "auto"};
        eb_flash_session *s = NULL;
        rc = eb_flash_open(&s, o->boards[b].port, &fo, err);
        if (!rc)
            rc = eb_flash_write(s, set.regions, set.n, NULL, err);
        if (!rc)
            rc = eb_flash_reset_after(s, err);
        eb_flash_close(s);
        if (rc)
            eb_error_prefix(err, "flash %s with %s: ", o->boards[b].port, build_dir);
        else if (flashed)
            flashed(user, o->boards[b].port);
    }
    eb_image_set_free(&set);
    return rc;
}

typedef struct flashed_ctx {
    const eb_run_idf_req *req;
    const eb_run_idf_step *step;
    int index;
} flashed_ctx;

static void on_flashed(void *user, const char *port)
{
    flashed_ctx *c = user;
    emit(c->req, (eb_run_idf_event){.kind = EB_RUN_IDF_FLASHED, .index = c->index, .n = c->req->n_idf,
                                    .step = c->step, .board = port});
}

/* One step's run: resolved from the request with the step's image. */
static int run_step(const eb_run_idf_req *req, eb_run_idf_step *step, int i, bool *usage, eb_error *err)
{
    eb_run_request one = *req->rq;
    if (one.sim)
        one.sim_image = step->image;
    one.out_dir = step->out_dir;
    eb_run_opts o = *req->o;
    o.stop = req->stop;
    emit(req, (eb_run_idf_event){.kind = EB_RUN_IDF_RUN, .index = i, .n = req->n_idf, .step = step,
                                 .out = step->out_dir});
    eb_run_setup st;
    eb_run_summary sum = {0};
    int rc = eb_run_resolve(&one, &o, &st, err);
    *usage = rc && st.bad_request;
    flashed_ctx fc = {.req = req, .step = step, .index = i};
    if (!rc && !one.sim)
        rc = eb_run_flash_build(&o, &st.profiles, step->build.dir, one.chip, on_flashed, &fc, err);
    if (!rc)
        rc = req->stop && *req->stop ? eb_fail(err, EB_EINTR, "interrupted") : eb_run(&o, &sum, err);
    emit(req, (eb_run_idf_event){.kind = EB_RUN_IDF_RUN_END, .index = i, .n = req->n_idf, .step = step,
                                 .sum = &sum, .n_boards = o.n_boards, .rc = rc, .err = rc ? err : NULL,
                                 .out = st.out_dir});
    eb_run_setup_free(&st);
    return rc;
}

static int check_request(const eb_run_idf_req *req, bool *usage, eb_error *err)
{
    const eb_run_request *rq = req->rq;
    if (!rq->chip || strchr(rq->chip, ','))
        return usage_error(usage, err, "--idf needs one --chip to build the firmware for");
    if (rq->sim_image)
        return usage_error(usage, err, "--idf and --sim-image both name the firmware: give one");
    if (req->n_idf < 1 || req->n_idf > 32)
        return usage_error(usage, err, "--idf: one to 32 checkouts");
    return 0;
}

/* Builds (events BUILD, BUILT, BUILD_FAILED); EB_EINTR stops, other
 * failures are counted. */
static int build_step(const eb_run_idf_req *req, const char *out, eb_run_idf_step *step, int i, eb_error *err)
{
    emit(req, (eb_run_idf_event){.kind = EB_RUN_IDF_BUILD, .index = i, .n = req->n_idf, .step = step});
    eb_idf_build_req b = {.firmware = EB_IDF_FW_ESPBENCH, .cache_dir = req->cache_dir, .stop = req->stop};
    eb_idf_checkout idf = step->idf;
    int rc = eb_run_idf_prepare(idf.path, req->rq->chip, out, &b, step, err);
    emit(req, (eb_run_idf_event){.kind = rc ? EB_RUN_IDF_BUILD_FAILED : EB_RUN_IDF_BUILT, .index = i,
                                 .n = req->n_idf, .step = step, .err = rc ? err : NULL, .rc = rc});
    if (rc) {
        step->idf = idf;
        step->out_dir[0] = 0;
    }
    return rc;
}

int eb_run_idf(const eb_run_idf_req *req, char *out, size_t cap, bool *usage, eb_error *err)
{
    *usage = false;
    int rc = check_request(req, usage, err);
    if (rc)
        return rc;
    if (req->rq->out_dir)
        snprintf(out, cap, "%s", req->rq->out_dir);
    else {
        char stamp[32];
        time_t now = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
        snprintf(out, cap, "espbench-%s-idf-%s", req->rq->chip, stamp);
    }
    eb_run_idf_step *steps = calloc((size_t)req->n_idf, sizeof *steps);
    if (!steps)
        return eb_fail(err, EB_EIO, "out of memory");
    if ((rc = check_all(req, steps, err)) != 0) {
        free(steps);
        return rc;
    }
    emit(req, (eb_run_idf_event){.kind = EB_RUN_IDF_CHECKED, .n = req->n_idf});
    if (eb_mkdir_p(out) != 0) {
        free(steps);
        return eb_fail(err, EB_EIO, "--out %s: cannot create the folder; check the path and its permissions", out);
    }
    int failed = 0, env_failed = 0;
    for (int i = 0; i < req->n_idf; i++) {
        eb_error e = {0};
        int b = build_step(req, out, &steps[i], i, &e);
        if (b == EB_EINTR) {
            *err = e;
            rc = EB_EINTR;
            break;
        }
        if (b) {
            failed++;
            env_failed += steps[i].build.env_error;
            continue;
        }
        int r = run_step(req, &steps[i], i, usage, &e);
        if (*usage || r == EB_EINTR || r == EB_ECONFIG) {
            *err = e;
            rc = r;
            break;
        }
        if (r && (!rc || r == EB_EIO)) /* an I/O error outranks a test that fell short */
            *err = e, rc = r;
    }
    int kept = 0;
    for (int i = 0; i < req->n_idf; i++)
        if (steps[i].out_dir[0])
            steps[kept++] = steps[i];
    if (!*usage && kept) {
        eb_error m = {0};
        if (eb_run_idf_collect(out, steps, kept, &m)) {
            if (!rc)
                *err = m, rc = m.code;
        } else
            emit(req, (eb_run_idf_event){.kind = EB_RUN_IDF_MERGED, .merged = kept, .n = req->n_idf, .out = out});
    }
    free(steps);
    if (!rc && failed) /* the environment's failures (export, network) are configuration errors */
        rc = eb_fail(err, env_failed ? EB_ECONFIG : EB_EIO, "%d of %d ESP-IDF builds failed (see the lines above)",
                     failed, req->n_idf);
    return rc;
}
