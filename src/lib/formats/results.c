/* The results store: an in-memory matrix of entries and per-board metadata,
 * serialised as results.json (schema "espbench-results", docs/results-schema.json)
 * and results.csv (RFC 4180, columns documented in docs/results.md).
 *
 * JSON conventions: NAN figures are written as null and null reads back as NAN;
 * unknown memory (-1) and unknown UDP counters (-1) are null too. Unknown keys
 * are ignored on load (later schema versions may add keys); every known key
 * is type-checked and errors name the JSON path. */
#include "espbench/formats/results.h"
#include "espbench/formats/dims.h"
#include "espbench/base/fs.h"
#include "espbench/base/str.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "espbench/base/clock.h"
#include "espbench/formats/stats.h"
#include "espbench/base/version.h"
#include "json_writer.h"

#include "results_internal.h"

/* ---------------------------------------------------------------- store */

void eb_results_init(eb_results *r) { memset(r, 0, sizeof *r); }

void eb_entry_free(eb_entry *e)
{
    if (!e)
        return;
    eb_ivs_free(&e->receiver);
    eb_ivs_free(&e->sender);
    free(e->provenance);
    free(e->tier_note);
    free(e->error_text);
    free(e->summary_printed);
    free(e->unit_note);
    e->summary_printed = e->unit_note = NULL;
    e->error_text = NULL;
    e->provenance = NULL;
    e->tier_note = NULL;
}

void eb_results_free(eb_results *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_entries; i++)
        eb_entry_free(&r->entries[i]);
    free(r->entries);
    free(r->boards);
    free(r->lat);
    memset(r, 0, sizeof *r);
}

static void stats_init(eb_stats *s)
{
    s->n = 0;
    s->mean = s->median = s->min = s->max = s->stddev = s->peak_1s = NAN;
}

void eb_entry_init(eb_entry *e)
{
    memset(e, 0, sizeof *e);
    snprintf(e->status, sizeof e->status, "ok");
    stats_init(&e->rx_stats);
    stats_init(&e->tx_stats);
    e->mean_mbps = e->peak_mbps = e->loss_pct = e->jitter_ms = e->ref_mbps = NAN;
    e->free_heap = e->min_free_heap = e->largest_block = -1;
    e->duration_s = e->interval_s = e->warmup_s = e->udp_rate_mbps = NAN;
    e->summary_mbps = NAN;
    e->interval_loss_pct = NAN;
}

const eb_provenance *eb_entry_prov(const eb_entry *e)
{
    return e->provenance ? e->provenance : eb_prov_unknown();
}

eb_provenance *eb_entry_prov_mut(eb_entry *e)
{
    if (!e->provenance) {
        e->provenance = malloc(sizeof *e->provenance);
        if (!e->provenance)
            abort();
        eb_prov_init(e->provenance);
    }
    return e->provenance;
}

void eb_entry_set_tier_note(eb_entry *e, const char *note)
{
    free(e->tier_note);
    e->tier_note = note && note[0] ? strdup(note) : NULL;
    if (note && note[0] && !e->tier_note)
        abort();
}

const char *eb_entry_tier_note(const eb_entry *e) { return e->tier_note ? e->tier_note : ""; }

void eb_entry_set_text(char **slot, const char *s)
{
    free(*slot);
    *slot = s && s[0] ? strdup(s) : NULL;
    if (s && s[0] && !*slot)
        abort();
}

const char *eb_entry_error(const eb_entry *e) { return e->error_text ? e->error_text : ""; }

void eb_entry_set_error(eb_entry *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(e->error_text);
    e->error_text = eb_vstrdup_cut(256, fmt, ap);
    va_end(ap);
}

void eb_entry_set_tier_params(eb_entry *e, const eb_tier *t)
{
    for (int f = 0; f < EB_F_COUNT; f++) {
        e->param_set[f] = t->set[f];
        e->param[f] = t->set[f] ? t->value[f] : 0;
    }
}

void eb_entry_copy(eb_entry *dst, const eb_entry *src)
{
    *dst = *src;
    dst->provenance = NULL;
    if (src->provenance)
        *eb_entry_prov_mut(dst) = *src->provenance;
    dst->tier_note = NULL;
    eb_entry_set_tier_note(dst, src->tier_note);
    dst->summary_printed = dst->unit_note = NULL;
    eb_entry_set_text(&dst->summary_printed, src->summary_printed);
    eb_entry_set_text(&dst->unit_note, src->unit_note);
    dst->error_text = src->error_text ? strdup(src->error_text) : NULL;
    if (src->error_text && !dst->error_text)
        abort();
    dst->receiver = eb_ivs_dup(&src->receiver);
    dst->sender = eb_ivs_dup(&src->sender);
}

void eb_entry_own_intervals(eb_entry *e)
{
    e->receiver = eb_ivs_dup(&e->receiver);
    e->sender = eb_ivs_dup(&e->sender);
}

/* Room for one more entry; capacity doubles so a large log adds in amortised O(1). */
void eb_results_reserve_entry(eb_results *r)
{
    if (r->n_entries < r->cap_entries)
        return;
    int cap = r->cap_entries ? r->cap_entries * 2 : 16;
    eb_entry *p = realloc(r->entries, sizeof *p * (size_t)cap);
    if (!p)
        abort();
    r->entries = p;
    r->cap_entries = cap;
}

eb_entry *eb_results_add(eb_results *r, const eb_entry *e)
{
    eb_results_reserve_entry(r);
    eb_entry *ne = &r->entries[r->n_entries++];
    eb_entry_copy(ne, e);
    return ne;
}

void eb_results_take(eb_results *r, eb_entry **entries, int *n, int *cap)
{
    if (r->n_entries == 0) { /* the common case: hand the array over */
        free(r->entries);
        r->entries = *entries;
        r->n_entries = *n;
        r->cap_entries = *cap;
    } else {
        for (int i = 0; i < *n; i++) {
            eb_results_reserve_entry(r);
            r->entries[r->n_entries++] = (*entries)[i];
        }
        free(*entries);
    }
    *entries = NULL;
    *n = *cap = 0;
}

eb_result_key eb_entry_key(const eb_entry *e)
{
    return (eb_result_key){e->board, e->chip, e->tier, e->test, e->repeat, eb_entry_prov(e)};
}

static bool same_key(const eb_entry *a, const eb_result_key *b, bool any_idf)
{
    const eb_provenance *ap = eb_entry_prov(a), *bp = b->prov;
    return !strcmp(a->board, b->board) && !strcmp(a->chip, b->chip) && !strcmp(a->tier, b->tier) &&
           a->test == b->test && a->repeat == b->repeat && !strcmp(ap->sweep_var, bp->sweep_var) &&
           (!ap->sweep_var[0] || ap->sweep_value == bp->sweep_value) &&
           !strcmp(ap->peer_chip, bp->peer_chip) && !strcmp(ap->peer_tier, bp->peer_tier) &&
           eb_dims_same_point(ap, bp) && /* the radio dimensions among them */
           /* The ESP-IDF version the firmware was built with: the same cell
            * measured with two IDFs is two entries (an unset version, as in
            * every file before the IDF matrix, matches only unset). */
           (any_idf || !strcmp(ap->idf_version, bp->idf_version));
}

bool eb_entry_same_key(const eb_entry *a, const eb_entry *b)
{
    eb_result_key k = eb_entry_key(b);
    return same_key(a, &k, false);
}

eb_entry *eb_results_find_done(eb_results *r, const eb_result_key *key)
{
    bool any_idf = !key->prov->idf_version[0];
    for (int i = 0; i < r->n_entries; i++)
        if (same_key(&r->entries[i], key, any_idf))
            return &r->entries[i];
    return NULL;
}

eb_entry *eb_results_find_same(eb_results *r, const eb_entry *key)
{
    for (int i = 0; i < r->n_entries; i++)
        if (eb_entry_same_key(&r->entries[i], key))
            return &r->entries[i];
    return NULL;
}

void eb_entry_pair_label(const eb_entry *e, char *out, size_t cap)
{
    if (eb_entry_prov(e)->peer_chip[0])
        snprintf(out, cap, "%s/%s", eb_entry_prov(e)->peer_chip, eb_entry_prov(e)->peer_tier[0] ? eb_entry_prov(e)->peer_tier : "?");
    else if (cap)
        out[0] = 0;
}

bool eb_entry_in_pair(const eb_entry *e, const char *pair)
{
    char label[64];
    eb_entry_pair_label(e, label, sizeof label);
    return !strcmp(label, pair);
}

eb_entry *eb_results_put(eb_results *r, const eb_entry *e)
{
    eb_entry *old = eb_results_find_same(r, e);
    if (!old)
        return eb_results_add(r, e);
    eb_entry tmp;
    eb_entry_copy(&tmp, e);
    eb_entry_free(old);
    *old = tmp;
    return old;
}

eb_latency *eb_results_find_latency(eb_results *r, const char *board, const char *chip, const char *tier,
                                    int repeat, const char *sweep_var, double sweep_value)
{
    for (int i = 0; i < r->n_lat; i++) {
        eb_latency *l = &r->lat[i];
        if ((!board || !strcmp(l->board, board)) && !strcmp(l->chip, chip) && !strcmp(l->tier, tier) &&
            l->repeat == repeat && !l->under_load[0] && !strcmp(l->prov.sweep_var, sweep_var) &&
            (!sweep_var[0] || l->prov.sweep_value == sweep_value))
            return l;
    }
    return NULL;
}

static eb_latency *latency_at(eb_results *r, const eb_result_key *key, const char *under_load)
{
    for (int i = 0; i < r->n_lat; i++) {
        eb_latency *l = &r->lat[i];
        if (!strcmp(l->board, key->board) && !strcmp(l->chip, key->chip) && !strcmp(l->tier, key->tier) &&
            l->repeat == key->repeat && eb_dims_same_point(&l->prov, key->prov) &&
            !strcmp(l->under_load, under_load))
            return l;
    }
    return NULL;
}

eb_latency *eb_results_find_latency_key(eb_results *r, const eb_latency *key)
{
    eb_result_key k = {key->board, key->chip, key->tier, 0, key->repeat, &key->prov};
    return latency_at(r, &k, key->under_load);
}

eb_latency *eb_results_find_latency_done(eb_results *r, const eb_result_key *key)
{
    return latency_at(r, key, "");
}

eb_latency *eb_results_put_latency(eb_results *r, const eb_latency *l)
{
    eb_latency *old = eb_results_find_latency_key(r, l);
    if (old) {
        *old = *l;
        return old;
    }
    eb_latency *p = realloc(r->lat, sizeof *p * (size_t)(r->n_lat + 1));
    if (!p)
        abort();
    r->lat = p;
    r->lat[r->n_lat] = *l;
    return &r->lat[r->n_lat++];
}

eb_board_meta *eb_results_board(eb_results *r, const char *board, bool create)
{
    const char *name = board ? board : "";
    for (int i = 0; i < r->n_boards; i++)
        if (strcmp(r->boards[i].board, name) == 0)
            return &r->boards[i];
    if (!create)
        return NULL;
    eb_board_meta *p = realloc(r->boards, sizeof *p * (size_t)(r->n_boards + 1));
    if (!p)
        abort();
    r->boards = p;
    eb_board_meta *b = &r->boards[r->n_boards++];
    memset(b, 0, sizeof *b);
    snprintf(b->board, sizeof b->board, "%s", name);
    return b;
}

/* board NULL matches any board. */
eb_entry *eb_results_find(eb_results *r, const char *board, const char *chip, const char *tier,
                          int test, int repeat)
{
    return eb_results_find_point(r, board, chip, tier, test, repeat, NULL, NAN);
}

eb_entry *eb_results_find_point(eb_results *r, const char *board, const char *chip, const char *tier, int test,
                                int repeat, const char *sweep_var, double sweep_value)
{
    for (int i = 0; i < r->n_entries; i++) {
        eb_entry *e = &r->entries[i];
        if ((!board || strcmp(e->board, board) == 0) && strcmp(e->chip, chip) == 0 &&
            strcmp(e->tier, tier) == 0 && e->test == test && e->repeat == repeat &&
            (!sweep_var || (strcmp(eb_entry_prov(e)->sweep_var, sweep_var) == 0 &&
                            (!sweep_var[0] || eb_entry_prov(e)->sweep_value == sweep_value))))
            return e;
    }
    return NULL;
}

