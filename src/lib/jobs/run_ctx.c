/* The run context: what the board threads share — progress events to the
 * caller, step timing, and the results store saved after every test. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/dims.h"
#include "espbench/base/clock.h"
#include "espbench/formats/dialect.h"
#include "espbench/adapters/results_file.h"
#include "run_internal.h"

void run_emit(board_ctx *bc, int event, const eb_run_item *it, const char *msg, double elapsed, double mbps,
              const eb_entry *e)
{
    const eb_run_opts *o = bc->sh->o;
    if (!o->progress)
        return;
    eb_run_progress p = {
        .event = event, .board = bc->b->name, .chip = bc->chip->name,
        .tier = it ? eb_run_item_tier(it)->name : "", .test = it ? it->test : -1, .repeat = it ? eb_run_item_repeat(it) : 0,
        .index = bc->index, .total = bc->total, .elapsed_s = elapsed, .duration_s = o->duration_s,
        .current_mbps = mbps, .entry = e, .message = msg,
    };
    pthread_mutex_lock(&bc->sh->lock);
    o->progress(o->user, &p);
    pthread_mutex_unlock(&bc->sh->lock);
}

void run_emit_latency(board_ctx *bc, const eb_run_item *it, const eb_latency *l)
{
    const eb_run_opts *o = bc->sh->o;
    if (!o->progress)
        return;
    eb_run_progress p = {
        .event = EB_RUN_EV_LATENCY_DONE, .board = bc->b->name, .chip = bc->chip->name, .tier = eb_run_item_tier(it)->name,
        .test = it->test, .repeat = eb_run_item_repeat(it), .index = bc->index, .total = bc->total,
        .current_mbps = NAN, .latency = l,
    };
    pthread_mutex_lock(&bc->sh->lock);
    o->progress(o->user, &p);
    pthread_mutex_unlock(&bc->sh->lock);
}

void run_infof(board_ctx *bc, int event, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    run_emit(bc, event, NULL, msg, 0, NAN, NULL);
}

void run_step_done(board_ctx *bc, int step, uint64_t t0_us)
{
    double ms = (double)(eb_now_us() - t0_us) / 1000.0;
    pthread_mutex_lock(&bc->sh->lock);
    bc->sh->sum->step_ms[step] += ms;
    pthread_mutex_unlock(&bc->sh->lock);
    if (bc->sh->o->step)
        bc->sh->o->step(bc->sh->o->user, bc->b->name, step, ms);
}

void run_count(board_ctx *bc, int *field, int n)
{
    pthread_mutex_lock(&bc->sh->lock);
    *field += n;
    pthread_mutex_unlock(&bc->sh->lock);
}

bool run_stopped(const board_ctx *bc)
{
    return bc->sh->o->stop && *bc->sh->o->stop;
}

const char *run_file_label(const board_ctx *bc)
{
    return bc->file_label[0] ? bc->file_label : bc->b->name[0] ? bc->b->name : "board";
}

void run_file_label_init(board_ctx *bc)
{
    const char *name = bc->b->name, *chip = bc->b->chip;
    size_t ln = strlen(name), lc = strlen(chip);
    bool ends = lc && ln > lc && name[ln - lc - 1] == '-' && !strcmp(name + ln - lc, chip);
    if (!name[0] || !strcmp(name, chip) || ends || !chip[0])
        snprintf(bc->file_label, sizeof bc->file_label, "%s", name[0] ? name : chip[0] ? chip : "board");
    else
        snprintf(bc->file_label, sizeof bc->file_label, "%s-%s", name, chip);
}

void run_console_capture(void *user, const char *line)
{
    board_ctx *bc = user;
    eb_prov_track_line(&bc->prov, line);
    if (bc->console_log) {
        fprintf(bc->console_log, "%s\n", line);
        fflush(bc->console_log);
    }
}

/* ------------------------------------------------------------ results store */

/* Entries in a stable order whatever the boards' pace: board (lab order),
 * tier (profile order), test, repeat. Concurrent and sequential runs then
 * write the same file. */
static const eb_run_opts *sort_opts; /* qsort has no user pointer; set under the lock */

static int rank_of(const eb_entry *e, int *tier_rank)
{
    const eb_run_opts *o = sort_opts;
    int b = o->n_boards;
    for (int i = 0; i < o->n_boards; i++)
        if (!strcmp(o->boards[i].name, e->board)) {
            b = i;
            break;
        }
    *tier_rank = 1 << 20;
    const eb_chip *c = eb_profiles_chip(o->profiles, e->chip);
    for (int i = 0; c && i < c->n_tiers; i++)
        if (!strcmp(c->tiers[i].name, e->tier))
            *tier_rank = i;
    return b;
}

static int entry_cmp(const void *pa, const void *pb)
{
    const eb_entry *a = pa, *b = pb;
    int ta, tb;
    int ba = rank_of(a, &ta), bb = rank_of(b, &tb);
    if (ba != bb)
        return ba - bb;
    int c = strcmp(a->board, b->board);
    if (!c)
        c = strcmp(a->chip, b->chip);
    if (c)
        return c;
    if (ta != tb)
        return ta < tb ? -1 : 1;
    if (ta == 1 << 20 && (c = strcmp(a->tier, b->tier)) != 0)
        return c;
    if (a->test != b->test)
        return a->test - b->test;
    return a->repeat - b->repeat;
}

int run_save_locked(run_shared *sh, eb_error *err)
{
    sort_opts = sh->o;
    if (sh->results.n_entries > 1)
        qsort(sh->results.entries, (size_t)sh->results.n_entries, sizeof *sh->results.entries, entry_cmp);
    eb_iso8601_utc(sh->results.generated);
    int rc = eb_results_save_json(&sh->results, sh->json_path, err);
    if (!rc)
        rc = eb_results_save_csv(&sh->results, sh->csv_path, err);
    return rc;
}

static void copy_if(char *dst, size_t cap, const char *src)
{
    if (src[0])
        snprintf(dst, cap, "%s", src);
}

void run_fill_meta(board_ctx *bc)
{
    run_shared *sh = bc->sh;
    pthread_mutex_lock(&sh->lock);
    eb_board_meta *m = eb_results_board(&sh->results, bc->b->name, true);
    snprintf(m->board, sizeof m->board, "%s", bc->b->name);
    snprintf(m->chip, sizeof m->chip, "%s", bc->chip->name);
    copy_if(m->mac, sizeof m->mac, bc->ident.mac);
    snprintf(m->port, sizeof m->port, "%s", bc->b->port);
    if (bc->drv)
        snprintf(m->dialect, sizeof m->dialect, "%s", bc->drv->name);
    copy_if(m->fw_project, sizeof m->fw_project, bc->ident.project);
    copy_if(m->fw_version, sizeof m->fw_version, bc->ident.app_version);
    copy_if(m->idf_version, sizeof m->idf_version, bc->ident.idf_version);
    copy_if(m->fw_sha256, sizeof m->fw_sha256, bc->fw_sha256);
    if (bc->wifi.ssid[0]) {
        snprintf(m->ap_ssid, sizeof m->ap_ssid, "%s", bc->wifi.ssid);
        m->rssi = bc->wifi.rssi;
    }
    copy_if(m->board_ip, sizeof m->board_ip, bc->wifi.ip);
    snprintf(m->pc_ip, sizeof m->pc_ip, "%s", bc->b->pc_ip);
    snprintf(m->host, sizeof m->host, "%s", sh->host);
    /* The iperf2 of the board's far end: its host's when the end has a PC
     * side of its own (an SSH host, probed at its open), else this PC's. */
    const board_ctx *far = bc->far && bc->far->pc ? bc->far : NULL;
    snprintf(m->iperf_version, sizeof m->iperf_version, "%s",
             far ? far->prov.seen.pc_iperf_version : sh->iperf_version);
    if (!m->started[0])
        eb_iso8601_utc(m->started);
    eb_iso8601_utc(m->finished);
    pthread_mutex_unlock(&sh->lock);
}

int run_record_latency(board_ctx *bc, const eb_latency *l, eb_error *err)
{
    uint64_t t0 = eb_now_us();
    pthread_mutex_lock(&bc->sh->lock);
    eb_latency *stored = eb_results_put_latency(&bc->sh->results, l);
    eb_prov_track_stamp(&bc->prov, bc->drv ? eb_dialect_mbit_base(bc->drv->dialect) : NAN, &stored->prov);
    if (bc->sh->o->finished)
        eb_results_put_latency(bc->sh->o->finished, stored);
    if (!l->under_load[0]) /* a set under load is part of its throughput test, counted there */
        *(strcmp(l->status, "ok") == 0 ? &bc->sh->sum->done : &bc->sh->sum->failed) += 1;
    int rc = run_save_locked(bc->sh, err);
    pthread_mutex_unlock(&bc->sh->lock);
    run_step_done(bc, EB_STEP_SAVE, t0);
    return rc;
}

int run_record(board_ctx *bc, const eb_entry *e, eb_error *err)
{
    uint64_t t0 = eb_now_us();
    pthread_mutex_lock(&bc->sh->lock);
    eb_entry *stored = eb_results_put(&bc->sh->results, e);
    eb_prov_track_stamp(&bc->prov, bc->drv ? eb_dialect_mbit_base(bc->drv->dialect) : NAN, eb_entry_prov_mut(stored));
    if (bc->sh->o->finished && !eb_results_add(bc->sh->o->finished, stored))
        abort();
    if (strcmp(e->status, "ok") == 0)
        bc->sh->sum->done++;
    else
        bc->sh->sum->failed++;
    int rc = run_save_locked(bc->sh, err);
    pthread_mutex_unlock(&bc->sh->lock);
    run_step_done(bc, EB_STEP_SAVE, t0);
    return rc;
}
