/* espbench bisect (jobs/bisect.h): the walk over a commit range with a
 * driver, the journal after every step, and the real driver (git worktree,
 * idf_build, the run job). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "espbench/adapters/proc_run.h"
#include "espbench/adapters/results_file.h"
#include "espbench/base/buf.h"
#include "espbench/base/fs.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/stats.h"
#include "espbench/jobs/bisect.h"
#include "espbench/jobs/idf_build.h"
#include "espbench/jobs/run_idf.h"
#include "espbench/formats/idf_version.h"

static void say(const eb_bisect_req *rq, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const eb_bisect_req *rq, const char *fmt, ...)
{
    if (!rq->progress)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    rq->progress(rq->user, line);
}

static int save_journal(const eb_bisect_req *rq, const eb_bisect_journal *j, eb_error *err)
{
    if (!rq->journal)
        return 0;
    eb_buf b;
    eb_buf_init(&b);
    eb_bisect_journal_to_json(j, &b);
    int rc = eb_file_write_atomic(rq->journal, b.data, b.len, err);
    eb_buf_free(&b);
    return rc;
}

/* The journal of an earlier run of this bisect, or a new one. */
static int open_journal(const eb_bisect_req *rq, eb_bisect_journal *j, eb_error *err)
{
    eb_bisect_journal want = {0};
    snprintf(want.good, sizeof want.good, "%s", rq->commits[0]);
    snprintf(want.bad, sizeof want.bad, "%s", rq->commits[rq->n - 1]);
    snprintf(want.chip, sizeof want.chip, "%s", rq->chip);
    snprintf(want.tier, sizeof want.tier, "%s", rq->tier);
    snprintf(want.test, sizeof want.test, "%s", rq->test);
    want.threshold_pct = rq->threshold_pct;
    struct stat sb;
    if (!rq->journal || stat(rq->journal, &sb) != 0) {
        *j = want;
        return 0;
    }
    eb_buf b;
    eb_buf_init(&b);
    int rc = eb_file_read(rq->journal, 16u << 20, NULL, &b, err);
    if (!rc)
        rc = eb_bisect_journal_parse((const char *)b.data, b.len, rq->journal, j, err);
    eb_buf_free(&b);
    if (!rc && (rc = eb_bisect_journal_matches(j, &want, rq->journal, err)) != 0)
        eb_bisect_journal_free(j);
    return rc;
}

/* Builds and measures commit i until its verdict is clear (the good end: its
 * first repeats, the baseline), journalled. */
static int measure_commit(const eb_bisect_req *rq, const eb_bisect_driver *d, eb_bisect_journal *j,
                          const double *good, int n_good, int i, int *mark, eb_error *err)
{
    const char *commit = rq->commits[i];
    const eb_bisect_step *done = eb_bisect_journal_find(j, commit);
    if (done) {
        *mark = done->mark;
        return 0;
    }
    char image[1200], version[48] = "";
    int b = d->build(d->user, commit, image, sizeof image, version, sizeof version, err);
    eb_bisect_step st = {0};
    snprintf(st.commit, sizeof st.commit, "%s", commit);
    if (b == 1) {
        st.mark = EB_BISECT_SKIP;
        say(rq, "%.10s: does not build: skipped (%s)", commit, err->msg);
    } else if (b) {
        return b;
    } else {
        snprintf(st.version, sizeof st.version, "%s", version);
        int want = rq->repeats;
        bool clear = false;
        while (st.n < want) {
            if (rq->stop && *rq->stop)
                return eb_fail(err, EB_EINTR, "interrupted");
            int rc = d->measure(d->user, image, want - st.n, st.mbps + st.n, err);
            if (rc)
                return rc;
            st.n = want;
            if (!good) { /* the good end: its figures are the baseline */
                st.mark = EB_BISECT_GOOD;
                clear = true;
                break;
            }
            st.mark = eb_bisect_verdict(good, n_good, st.mbps, st.n, rq->threshold_pct, &clear);
            if (clear || want >= rq->max_repeats)
                break;
            want = want + 2 > rq->max_repeats ? rq->max_repeats : want + 2;
        }
        st.unclear = !clear;
        eb_sample_stats s;
        eb_sample_stats_compute(st.mbps, st.n, &s);
        say(rq, "%.10s %s: %.1f Mbit/s (%d repeats) %s%s", commit, version, s.mean, st.n,
            eb_bisect_mark_name(st.mark), st.unclear ? " (unclear: decided on the threshold)" : "");
    }
    eb_bisect_step *slot = eb_bisect_journal_add(j);
    if (!slot)
        return eb_fail(err, EB_EIO, "out of memory");
    *slot = st;
    *mark = st.mark;
    if (save_journal(rq, j, err))
        return err->code;
    return st.mark == EB_BISECT_SKIP ? 0 : -2; /* -2: measured now */
}

int eb_bisect(const eb_bisect_req *rq0, const eb_bisect_driver *d, eb_bisect_result *res, eb_error *err)
{
    eb_bisect_req rq = *rq0;
    if (rq.threshold_pct <= 0)
        rq.threshold_pct = 5;
    if (rq.repeats <= 1)
        rq.repeats = 3;
    if (rq.max_repeats < rq.repeats)
        rq.max_repeats = rq.repeats > 8 ? rq.repeats : 8;
    if (rq.max_repeats > EB_BISECT_MAX_REPEATS)
        rq.max_repeats = EB_BISECT_MAX_REPEATS;
    memset(res, 0, sizeof *res);
    res->first_bad = res->amb_lo = res->amb_hi = -1;
    if (rq.n < 2)
        return eb_fail(err, EB_ECONFIG, "the range has no commit after the good one: is --good an ancestor of --bad?");
    int rc = open_journal(&rq, &res->journal, err);
    if (rc)
        return rc;
    eb_bisect_journal *j = &res->journal;
    int *marks = calloc((size_t)rq.n, sizeof *marks);
    if (!marks)
        return eb_fail(err, EB_EIO, "out of memory");
    int mark;
    /* The ends first: the good end's figures are every verdict's baseline. */
    rc = measure_commit(&rq, d, j, NULL, 0, 0, &mark, err);
    if (rc == -2)
        res->measured++, rc = 0;
    const eb_bisect_step *g = rc ? NULL : eb_bisect_journal_find(j, rq.commits[0]);
    if (!rc && (!g || g->mark != EB_BISECT_GOOD))
        rc = eb_fail(err, EB_ECONFIG, "the good end %.10s does not build; give a --good that does", rq.commits[0]);
    double good[EB_BISECT_MAX_REPEATS];
    int n_good = 0;
    if (!rc) {
        n_good = g->n;
        memcpy(good, g->mbps, sizeof good);
        marks[0] = EB_BISECT_GOOD;
        rc = measure_commit(&rq, d, j, good, n_good, rq.n - 1, &mark, err);
        if (rc == -2)
            res->measured++, rc = 0;
        if (!rc && mark != EB_BISECT_BAD)
            rc = eb_fail(err, EB_ESHORT,
                         "the bad end %.10s is not worse than the good end %.10s by more than %.1f %% "
                         "(%s): nothing to bisect",
                         rq.commits[rq.n - 1], rq.commits[0], rq.threshold_pct, eb_bisect_mark_name(mark));
        marks[rq.n - 1] = EB_BISECT_BAD;
    }
    for (int i = 1; !rc && i < rq.n - 1; i++) {
        const eb_bisect_step *s = eb_bisect_journal_find(j, rq.commits[i]);
        if (s)
            marks[i] = s->mark;
    }
    int first_bad = -1, lo, hi;
    while (!rc) {
        int next = eb_bisect_next(marks, rq.n, &first_bad, &lo, &hi);
        if (next < 0)
            break;
        if (rq.stop && *rq.stop) {
            rc = eb_fail(err, EB_EINTR, "interrupted");
            break;
        }
        rc = measure_commit(&rq, d, j, good, n_good, next, &marks[next], err);
        if (rc == -2)
            res->measured++, rc = 0;
    }
    if (!rc) {
        res->first_bad = first_bad;
        res->amb_lo = lo;
        res->amb_hi = hi;
    }
    for (int i = 0; i < j->n_steps; i++)
        if (j->steps[i].mark != EB_BISECT_SKIP)
            res->measured_total++;
    free(marks);
    return rc;
}

/* The commit of rev in repo, 40 hex; EB_ECONFIG naming the flag. */
static int commit_of(const char *repo, const char *rev, const char *flag, char out[41], eb_error *err)
{
    char spec[200], o[64];
    snprintf(spec, sizeof spec, "%s^{commit}", rev);
    const char *pg[] = {"git", "-C", repo, "rev-parse", "--verify", "--quiet", spec, NULL};
    if (eb_proc_output(pg, NULL, 60, o, sizeof o, err) || strlen(o) != 40)
        return eb_fail(err, EB_ECONFIG, "%s %s: not a commit of %s; check the revision", flag, rev, repo);
    memcpy(out, o, 41);
    return 0;
}

int eb_bisect_rev_list(const char *repo, const char *good, const char *bad, char ***out, int *n,
                       eb_bisect_range *info, eb_error *err)
{
    *out = NULL;
    *n = 0;
    memset(info, 0, sizeof *info);
    if (commit_of(repo, good, "--good", info->good, err) || commit_of(repo, bad, "--bad", info->bad, err))
        return err->code;
    memcpy(info->start, info->good, 41);
    eb_error ig;
    char o[64];
    const char *anc[] = {"git", "-C", repo, "merge-base", "--is-ancestor", info->good, info->bad, NULL};
    if (eb_proc_output(anc, NULL, 60, o, sizeof o, &ig) != 0) {
        const char *mb[] = {"git", "-C", repo, "merge-base", info->good, info->bad, NULL};
        if (eb_proc_output(mb, NULL, 60, o, sizeof o, &ig) || strlen(o) != 40)
            return eb_fail(err, EB_ECONFIG, "--good %s and --bad %s have no common ancestor in %s", good, bad, repo);
        if (!strcmp(o, info->bad))
            return eb_fail(err, EB_ECONFIG, "--bad %s is an ancestor of --good %s in %s; swap them", bad, good, repo);
        memcpy(info->start, o, 41);
        info->from_merge_base = true;
    }
    char who[160];
    int rc = eb_idf_version_at(repo, info->start, info->start_version, sizeof info->start_version, err);
    if (!rc)
        rc = eb_idf_version_at(repo, info->bad, info->bad_version, sizeof info->bad_version, err);
    if (!rc) {
        if (info->from_merge_base)
            snprintf(who, sizeof who, "the merge base %.10s of --good %s and --bad %s", info->start, good, bad);
        else
            snprintf(who, sizeof who, "--good %s", good);
        rc = eb_idf_version_check(info->start_version, who, err);
    }
    if (rc)
        return rc;
    char range[100];
    snprintf(range, sizeof range, "%s..%s", info->start, info->bad);
    const char *rl[] = {"git", "-C", repo, "rev-list", "--first-parent", "--reverse", range, NULL};
    size_t cap = 8u << 20;
    char *txt = malloc(cap);
    if (!txt)
        return eb_fail(err, EB_EIO, "out of memory");
    if (eb_proc_output(rl, NULL, 120, txt, cap, err)) {
        free(txt);
        return err->code;
    }
    int count = 1;
    for (char *p = txt; *p; p++)
        count += *p == '\n';
    char **v = calloc((size_t)count + 1, sizeof *v);
    v[0] = strdup(info->start);
    int k = 1;
    for (char *t = strtok(txt, "\n"); t; t = strtok(NULL, "\n"))
        v[k++] = strdup(t);
    free(txt);
    if (k < 2 || strcmp(v[k - 1], info->bad)) {
        for (int i = 0; i < k; i++)
            free(v[i]);
        free(v);
        return eb_fail(err, EB_ECONFIG,
                       "--bad %s is not a first-parent descendant of --good %s in %s; give --good an ancestor", bad,
                       good, repo);
    }
    *out = v;
    *n = k;
    return 0;
}

void eb_bisect_commit_subject(const char *repo, const char *commit, char *out, size_t cap)
{
    const char *argv[] = {"git", "-C", repo, "log", "-1", "--format=%s", commit, NULL};
    eb_error err;
    if (eb_proc_output(argv, NULL, 60, out, cap, &err))
        out[0] = 0;
}

int eb_bisect_most_measured(int n)
{
    int steps = 0;
    for (int range = n - 1; range > 1; range = (range + 1) / 2)
        steps++;
    return 2 + steps;
}

/* The real driver. */
static int git_in(const char *dir, const char *const *args, const char *what, eb_error *err)
{
    const char *argv[16] = {"git", "-C", dir};
    int k = 3;
    for (int i = 0; args[i] && k < 15; i++)
        argv[k++] = args[i];
    argv[k] = NULL;
    char o[2048];
    if (eb_proc_output(argv, NULL, 1800, o, sizeof o, err)) {
        if (err->code == EB_EINTR)
            return EB_EINTR;
        return eb_fail(err, EB_EIO, "%s in %s: %s", what, dir, o);
    }
    return 0;
}

/* The worktree at commit, its submodules at the commit's: a plain checkout
 * leaves them where they were (git checkout does not recurse by default). */
static int checkout_at(eb_bisect_real *r, const char *commit, eb_error *err)
{
    struct stat sb;
    int rc;
    snprintf(r->worktree, sizeof r->worktree, "%s/idf-worktree", r->work_dir);
    if (stat(r->worktree, &sb) != 0) {
        const char *add[] = {"worktree", "add", "--detach", "--force", r->worktree, commit, NULL};
        rc = git_in(r->repo, add, "git worktree add", err);
    } else {
        const char *co[] = {"checkout", "--detach", "--force", "--quiet", commit, NULL};
        rc = git_in(r->worktree, co, "git checkout", err);
    }
    if (rc)
        return rc;
    /* protocol.file.allow: submodules cloned from local repositories (a
     * mirror beside the user's checkout) are refused by git >= 2.38.1 without it. */
    const char *sub[] = {"-c", "protocol.file.allow=always", "submodule", "update", "--init", "--recursive", "--force",
                         NULL};
    return git_in(r->worktree, sub, "git submodule update --init --recursive", err);
}

int eb_bisect_real_cleanup(eb_bisect_real *r, eb_error *err)
{
    if (!r->worktree[0])
        return 0;
    const char *rm[] = {"worktree", "remove", "--force", r->worktree, NULL};
    int rc = git_in(r->repo, rm, "git worktree remove", err);
    if (!rc)
        r->worktree[0] = 0;
    return rc;
}

static int real_build(void *user, const char *commit, char *image, size_t cap, char *version, size_t vcap,
                      eb_error *err)
{
    eb_bisect_real *r = user;
    int rc = checkout_at(r, commit, err);
    if (rc)
        return rc;
    eb_idf_checkout idf;
    if (eb_idf_probe(r->worktree, &idf, err))
        return 1; /* no ESP-IDF at this commit: skipped as one that does not build */
    eb_idf_build_req req = {.idf = &idf, .chip = r->chip, .firmware = EB_IDF_FW_ESPBENCH, .cache_dir = r->cache_dir,
                            .stop = r->stop};
    eb_idf_build_result res;
    rc = eb_idf_build_firmware(&req, &res, err);
    if (rc == EB_EINTR || (rc && res.env_error))
        return rc; /* the environment's failure is not the commit's: no skip */
    if (rc)
        return 1;
    snprintf(image, cap, "%s/espbench.bin", res.dir);
    snprintf(version, vcap, "%.47s", idf.describe[0] ? idf.describe : idf.version);
    return 0;
}

static int real_measure(void *user, const char *image, int n, double *mbps, eb_error *err)
{
    eb_bisect_real *r = user;
    char out[1100];
    struct stat sb;
    do /* a fresh folder: a resumed bisect continues the numbering */
        snprintf(out, sizeof out, "%s/run-%03d", r->work_dir, ++r->step);
    while (stat(out, &sb) == 0);
    eb_run_request rq = r->rq;
    eb_run_opts o = r->o;
    if (rq.sim)
        rq.sim_image = image;
    rq.out_dir = out;
    o.repeat = n;
    o.stop = r->stop;
    eb_run_setup st;
    eb_run_summary sum = {0};
    int rc = eb_run_resolve(&rq, &o, &st, err);
    if (!rc && !rq.sim) { /* a board: the build flashed as `espbench flash --build-dir` does */
        char dir[1200];
        snprintf(dir, sizeof dir, "%s", image);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
        rc = eb_run_flash_build(&o, &st.profiles, dir, rq.chip, NULL, NULL, err);
    }
    if (!rc)
        rc = eb_run(&o, &sum, err);
    eb_run_setup_free(&st);
    if (rc && rc != EB_ESHORT)
        return rc;
    char path[1200];
    snprintf(path, sizeof path, "%s/results.json", out);
    eb_results res;
    eb_results_init(&res);
    if ((rc = eb_results_load(&res, path, err)) != 0)
        return rc;
    int k = 0;
    for (int i = 0; i < res.n_entries && k < n; i++)
        if (!strcmp(res.entries[i].status, "ok") && isfinite(res.entries[i].mean_mbps))
            mbps[k++] = res.entries[i].mean_mbps;
    eb_results_free(&res);
    if (k < n)
        return eb_fail(err, EB_EIO, "%s: %d of %d repeats measured; see its logs", out, k, n);
    return 0;
}

eb_bisect_driver eb_bisect_real_driver(eb_bisect_real *r)
{
    eb_bisect_driver d = {.build = real_build, .measure = real_measure, .user = r};
    return d;
}
