/* `espbench tune` on a board (tune.h): the board or vboard from the run
 * job's resolver, a refusal of stock firmware, one eb_run() per probe with
 * the candidate as a tier defined on the fly (the espbench firmware's
 * tier_set switches it at run time), and a journal of the probes so a
 * killed tune resumes without measuring a finished probe again.
 *
 * Each probe is repeat k of tier "tune-s6-d16-t28-b8" in results.json
 * (run's own resume skips what is there), so report, compare and merge read
 * every probe. The journal (tune-journal.json) keeps what the search needs
 * — figures, free heap, wall time — so the replay takes the same path. */
#include "espbench/jobs/tune.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "espbench/base/buf.h"
#include "espbench/base/clock.h"
#include "espbench/protocols/console.h"
#include "espbench/protocols/console_driver.h"
#include "espbench/base/fs.h"
#include "espbench/adapters/port.h"
#include "espbench/formats/results.h"
#include "espbench/jobs/run.h"
#include "espbench/adapters/results_file.h"

#define JOURNAL "tune-journal.json"
#define JOURNAL_MAX (64u << 20)
#define DETECT_MS 15000

typedef struct job {
    const eb_tune_request *rq;
    const eb_tune_space *s;
    eb_run_opts o;             /* from eb_run_resolve */
    eb_profiles probe_profiles;/* the loaded profiles with one more tier on the chip */
    eb_chip *chip_copy;
    cJSON *journal;            /* {"settings": {...}, "probes": [...]} */
    char journal_path[512];
    char want_tier[64];
    int want_repeat;
} job;

/* ------------------------------------------------------------ journal */

static cJSON *journal_settings(const eb_tune_request *rq, const eb_tune_space *s)
{
    cJSON *j = cJSON_CreateObject();
    char obj[128];
    cJSON_AddStringToObject(j, "chip", s->chip->name);
    cJSON_AddStringToObject(j, "objective", eb_tune_objective_format(&rq->obj, obj, sizeof obj));
    cJSON_AddNumberToObject(j, "min_free_kb", rq->cfg.min_free_kb);
    cJSON_AddNumberToObject(j, "budget_s", rq->cfg.budget_s);
    cJSON *fx = cJSON_AddArrayToObject(j, "fix");
    for (int i = 0; i < rq->n_fix; i++)
        cJSON_AddItemToArray(fx, cJSON_CreateString(rq->fix[i].text));
    return j;
}

static int journal_save(job *jb, eb_error *err)
{
    char *text = cJSON_Print(jb->journal);
    if (!text)
        return eb_fail(err, EB_EIO, "out of memory writing %s", jb->journal_path);
    int rc = eb_file_write_atomic(jb->journal_path, text, strlen(text), err);
    free(text);
    return rc;
}

/* A new journal, or the one a killed tune left (same settings only). */
static int journal_open(job *jb, eb_error *err)
{
    snprintf(jb->journal_path, sizeof jb->journal_path, "%s/%s", jb->rq->out_dir, JOURNAL);
    cJSON *want = journal_settings(jb->rq, jb->s);
    if (access(jb->journal_path, F_OK) == 0) {
        eb_buf b = {0};
        int rc = eb_file_read(jb->journal_path, JOURNAL_MAX, NULL, &b, err);
        if (rc) {
            cJSON_Delete(want);
            return rc;
        }
        jb->journal = cJSON_ParseWithLength((const char *)b.data, b.len);
        eb_buf_free(&b);
        cJSON *have = cJSON_GetObjectItemCaseSensitive(jb->journal, "settings");
        if (!jb->journal || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(jb->journal, "probes")) ||
            !cJSON_Compare(have, want, true)) {
            cJSON_Delete(want);
            return eb_fail(err, EB_ECONFIG,
                           "%s: a tune with other settings (chip, objective, floor, budget or --fix) is there; "
                           "resume it with the same flags or give another --out",
                           jb->journal_path);
        }
        cJSON_Delete(want);
        return 0;
    }
    jb->journal = cJSON_CreateObject();
    cJSON_AddItemToObject(jb->journal, "settings", want);
    cJSON_AddArrayToObject(jb->journal, "probes");
    return journal_save(jb, err);
}

static double num_or_nan(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static bool journal_find(job *jb, const char *tier, int k, eb_tune_measure *m)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(jb->journal, "probes"))
    {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "tier");
        double pk = num_or_nan(p, "k");
        if (!cJSON_IsString(t) || strcmp(t->valuestring, tier) || !(pk == k))
            continue;
        const cJSON *mb = cJSON_GetObjectItemCaseSensitive(p, "mbps");
        const cJSON *se = cJSON_GetObjectItemCaseSensitive(p, "se");
        for (int i = 0; i < EB_TEST_COUNT; i++) {
            m->mbps[i] = num_or_nan(mb, eb_test_name(i));
            m->se[i] = num_or_nan(se, eb_test_name(i));
        }
        m->free_kb = num_or_nan(p, "free_kb");
        m->cost_s = num_or_nan(p, "cost_s");
        return true;
    }
    return false;
}

static int journal_add(job *jb, const char *tier, int k, double d, const eb_tune_measure *m, eb_error *err)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "tier", tier);
    cJSON_AddNumberToObject(p, "k", k);
    cJSON_AddNumberToObject(p, "duration_s", d);
    cJSON_AddNumberToObject(p, "cost_s", m->cost_s);
    if (isfinite(m->free_kb))
        cJSON_AddNumberToObject(p, "free_kb", m->free_kb);
    cJSON *mb = cJSON_AddObjectToObject(p, "mbps"), *se = cJSON_AddObjectToObject(p, "se");
    for (int i = 0; i < EB_TEST_COUNT; i++) {
        if (isfinite(m->mbps[i]))
            cJSON_AddNumberToObject(mb, eb_test_name(i), m->mbps[i]);
        if (isfinite(m->se[i]))
            cJSON_AddNumberToObject(se, eb_test_name(i), m->se[i]);
    }
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(jb->journal, "probes"), p);
    return journal_save(jb, err);
}

/* ------------------------------------------------------------ probes */

/* The run's profiles with the candidate as one more tier of the chip
 * (the search has checked it against the validation rules). */
static void free_probe_profiles(job *jb)
{
    if (jb->chip_copy)
        free(jb->chip_copy->tiers);
    jb->chip_copy = NULL;
    free(jb->probe_profiles.chips);
    jb->probe_profiles.chips = NULL;
}

static int probe_profiles(job *jb, const eb_profiles *base, const eb_tier *t, eb_error *err)
{
    free_probe_profiles(jb);
    jb->probe_profiles = *base;
    jb->probe_profiles.chips = malloc(sizeof *base->chips * (size_t)base->n_chips);
    if (!jb->probe_profiles.chips)
        return eb_fail(err, EB_EIO, "out of memory");
    memcpy(jb->probe_profiles.chips, base->chips, sizeof *base->chips * (size_t)base->n_chips);
    for (int i = 0; i < base->n_chips; i++) {
        eb_chip *c = &jb->probe_profiles.chips[i];
        if (strcmp(c->name, jb->s->chip->name))
            continue;
        eb_tier *tiers = malloc(sizeof *tiers * (size_t)(c->n_tiers + 1));
        if (!tiers)
            return eb_fail(err, EB_EIO, "out of memory");
        memcpy(tiers, c->tiers, sizeof *tiers * (size_t)c->n_tiers);
        tiers[c->n_tiers] = *t;
        c->tiers = tiers;
        c->n_tiers++;
        jb->chip_copy = c;
    }
    return 0;
}

static void on_run_progress(void *user, const eb_run_progress *p)
{
    job *jb = user;
    if ((p->event == EB_RUN_EV_INFO || p->event == EB_RUN_EV_WARN) && jb->rq->info)
        jb->rq->info(jb->rq->user, p->message);
}

/* Figures of one test of the probe: from the run just made, or (a probe a
 * killed tune finished but did not journal) from results.json. */
static int probe_entry(job *jb, const char *tier, int test, int k, eb_tune_measure *m, eb_error *err)
{
    eb_results res;
    eb_results_init(&res);
    char path[600];
    snprintf(path, sizeof path, "%s/results.json", jb->rq->out_dir);
    int rc = eb_results_load(&res, path, err);
    if (rc) {
        eb_results_free(&res);
        return rc;
    }
    const char *board = jb->o.boards[0].name;
    const eb_entry *e = eb_results_find(&res, board, jb->s->chip->name, tier, test, k);
    if (e && strcmp(e->status, "ok") == 0) {
        m->mbps[test] = e->mean_mbps;
        m->se[test] = e->rx_stats.n > 1 ? e->rx_stats.stddev / sqrt(e->rx_stats.n) : NAN;
        double kb = e->free_heap >= 0 ? e->free_heap / 1024.0 : NAN;
        m->free_kb = isfinite(m->free_kb) ? fmin(m->free_kb, kb) : kb;
    }
    eb_results_free(&res);
    return 0;
}

static int do_probe(void *user, int cand, double d, int k, eb_tune_measure *m, eb_error *err)
{
    job *jb = user;
    eb_tier t;
    eb_tune_cand_tier(jb->s, cand, &t);
    if (journal_find(jb, t.name, k, m))
        return 0;
    int rc = probe_profiles(jb, jb->o.profiles, &t, err);
    if (rc)
        return rc;
    eb_run_opts o = jb->o;
    o.profiles = &jb->probe_profiles;
    o.tiers[0] = t.name;
    o.n_tiers = 1;
    o.tests = 0;
    for (int i = 0; i < EB_TEST_COUNT; i++)
        if (jb->s->obj.w[i] > 0)
            o.tests |= 1u << i;
    o.duration_s = d;
    o.interval_s = jb->rq->cfg.interval_s > 0 ? jb->rq->cfg.interval_s : 0.5;
    o.warmup_s = o.interval_s;
    o.repeat = k + 1;
    o.resume = true;
    o.progress = on_run_progress;
    o.user = jb;
    uint64_t t0 = eb_now_us();
    eb_run_summary sum;
    rc = eb_run(&o, &sum, err);
    m->cost_s = (double)(eb_now_us() - t0) / 1e6;
    if (rc == EB_EINTR || (rc && rc != EB_EIO) || (rc == EB_EIO && !sum.failed))
        return rc;
    /* A failed test leaves the candidate without figures (the search drops it). */
    for (int i = 0; i < EB_TEST_COUNT && !rc; i++)
        if (o.tests & (1u << i))
            rc = probe_entry(jb, t.name, i, k, m, err);
    if (rc)
        return rc;
    return journal_add(jb, t.name, k, d, m, err);
}

/* ------------------------------------------------------------ the board */

/* Stock firmware cannot switch tiers at run time: refuse before the search. */
static int check_firmware(const eb_run_board *b, eb_error *err)
{
    eb_port *port = NULL;
    eb_console *con = NULL;
    const eb_console_driver *drv = NULL;
    int rc = eb_port_open(&port, b->port, 115200, err);
    if (!rc)
        rc = eb_console_open(&con, port, err);
    if (!rc)
        rc = eb_console_detect(con, b->chip, &drv, eb_deadline_in(DETECT_MS), err);
    if (!rc && !drv->runtime_tiers)
        rc = eb_fail(err, EB_ECONFIG,
                     "tune: the board on %s runs %s (stock firmware), which cannot switch tiers at run time; "
                     "flash the espbench firmware (espbench flash --firmware espbench; docs/firmware.md) and tune again",
                     b->port, drv->name);
    eb_console_free(con);
    eb_port_close(port);
    return rc;
}

static int resolve_board(const eb_tune_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    eb_run_request rr = {.chip = rq->chip, .port = rq->port, .sim = rq->sim, .sim_noise_pct = rq->sim_noise_pct,
                         .sim_project = rq->sim_project,
                         /* The espbench image runs every candidate with its own build-time
                          * settings, which no published row has: the model everywhere. */
                         .sim_model = true, .sim_link = rq->sim_link, .sim_link_set = rq->sim_link_set, .ssid = rq->ssid, .password_env = rq->password_env,
                         .pc_address = rq->pc_address, .out_dir = rq->out_dir, .profiles_dir = rq->profiles_dir};
    memset(o, 0, sizeof *o);
    o->resume = rq->resume;
    o->retries = -1;
    o->warmup_s = -1;
    o->stop = rq->stop;
    int rc = eb_run_resolve(&rr, o, st, err);
    if (!rc && o->n_boards != 1)
        rc = eb_fail(err, EB_ECONFIG, "tune: one board at a time (--port or --sim)");
    return rc;
}

int eb_tune_run(const eb_tune_request *rq, const eb_tune_space *s, const eb_tune_plan *plan,
                eb_tune_result *r, eb_error *err)
{
    memset(r, 0, sizeof *r);
    if (!rq->out_dir || !*rq->out_dir)
        return eb_fail(err, EB_ECONFIG, "tune: give --out DIR");
    job jb = {.rq = rq, .s = s};
    eb_run_setup st;
    int rc = resolve_board(rq, &jb.o, &st, err);
    if (!rc)
        rc = check_firmware(&jb.o.boards[0], err);
    if (!rc)
        rc = journal_open(&jb, err);
    if (!rc)
        rc = eb_tune_search(s, &rq->cfg, plan, do_probe, &jb, rq->progress, rq->user, rq->stop, r, err);
    if (!rc || rc == EB_EINTR) {
        eb_error e2;
        int wrc = eb_tune_write_outputs(s, plan, r, rq->cfg.min_free_kb, rq->cfg.max_cost_pct, rq->out_dir, &e2);
        if (wrc && !rc) {
            *err = e2;
            rc = wrc;
        }
    }
    cJSON_Delete(jb.journal);
    free_probe_profiles(&jb);
    eb_run_setup_free(&st);
    return rc;
}
