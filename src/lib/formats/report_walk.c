/* The walk over a report's sections shared by the Markdown, RST and HTML
 * renderers (report_internal.h): which sections there are, in which order,
 * for a chip or for the whole run, and which table each one shows. */
#include <stdbool.h>

#include "report_internal.h"

typedef struct rep_section {
    bool per_chip;  /* else once for the run */
    bool per_group; /* once per REP_GROUP (plain, PSRAM) */
    bool always;    /* rendered even without rows */
    void (*make)(const rep_walk *w, rep_table *t);
} rep_section;

static void make_tiers(const rep_walk *w, rep_table *t) { rep_tier_table(w->r, w->p, w->o, w->chip, w->group, t); }
static void make_rank(const rep_walk *w, rep_table *t) { rep_rank_table(w->r, w->p, w->o, w->chip, w->group, t); }
static void make_summary(const rep_walk *w, rep_table *t) { rep_summary_table(w->r, w->p, w->o, w->chip, t); }
static void make_spread(const rep_walk *w, rep_table *t) { rep_spread_table(w->r, w->p, w->o, w->chip, t); }
static void make_latency(const rep_walk *w, rep_table *t) { rep_latency_table(w->r, w->p, w->o, w->chip, t); }
/* The IDF section's tables are per chip and come from the format (rep_idf_table). */
static void make_idf(const rep_walk *w, rep_table *t)
{
    (void)w;
    rep_table_init(t, 0, 0);
}
static void make_aggregate(const rep_walk *w, rep_table *t) { rep_aggregate_table(w->r, w->o, t); }
static void make_pair(const rep_walk *w, rep_table *t) { rep_pair_table(w->r, w->o, t); }

static void make_band24(const rep_walk *w, rep_table *t) { rep_band_table(w->r, w->p, w->o, w->chip, REP_SEC_BAND_24, t); }
static void make_band5(const rep_walk *w, rep_table *t) { rep_band_table(w->r, w->p, w->o, w->chip, REP_SEC_BAND_5, t); }

static const rep_section rep_sections[REP_SEC_COUNT] = {
    [REP_SEC_TIERS] = {.per_chip = true, .per_group = true, .make = make_tiers},
    [REP_SEC_RANK] = {.per_chip = true, .per_group = true, .make = make_rank},
    [REP_SEC_SUMMARY] = {.per_chip = true, .always = true, .make = make_summary},
    [REP_SEC_SPREAD] = {.per_chip = true, .make = make_spread},
    [REP_SEC_LATENCY] = {.per_chip = true, .make = make_latency},
    [REP_SEC_IDF] = {.always = true, .make = make_idf},
    [REP_SEC_AGGREGATE] = {.make = make_aggregate},
    [REP_SEC_PAIR] = {.make = make_pair},
    [REP_SEC_BAND_24] = {.per_chip = true, .make = make_band24},
    [REP_SEC_BAND_5] = {.per_chip = true, .make = make_band5},
};

static void walk_sections(const rep_format *f, rep_walk *w, bool per_chip)
{
    for (int s = 0; s < REP_SEC_COUNT; s++) {
        const rep_section *sec = &rep_sections[s];
        if (sec->per_chip != per_chip || !f->section[s])
            continue;
        for (int g = 0; g < (sec->per_group ? REP_GROUP_COUNT : 1); g++) {
            w->group = g;
            rep_table t;
            sec->make(w, &t);
            if (t.n_rows || sec->always)
                f->section[s](w, &t);
            rep_table_free(&t);
        }
    }
    w->group = REP_GROUP_PLAIN;
}

int rep_walk_report(const rep_format *f, const eb_results *r, const eb_profiles *p, const eb_report_opts *o,
                    eb_buf *out, eb_error *err)
{
    const char *chips[REP_MAX_CHIPS];
    int n = rep_select_chips(r, p, o, chips, REP_MAX_CHIPS, err);
    if (n == 0 && !rep_has_pairs(r, o->chip))
        return err ? err->code : EB_ECONFIG;
    rep_walk w = {.r = r, .p = p, .o = o, .out = out, .chips = chips, .n_chips = n};
    if (f->begin)
        f->begin(&w);
    if (f->hosted)
        f->hosted(&w);
    for (int i = 0; i < n; i++) {
        if (f->skip_hosted_hosts && rep_chip_all_hosted(r, chips[i]))
            continue; /* an ESP-Hosted host: the pair's tables above are its own */
        w.chip = chips[i];
        if (f->chip_begin)
            f->chip_begin(&w);
        walk_sections(f, &w, true);
        if (f->chip_end)
            f->chip_end(&w);
    }
    w.chip = NULL;
    walk_sections(f, &w, false);
    return 0;
}
