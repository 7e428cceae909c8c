/* Names in a run request as people type them (run_request.h): chips and
 * tiers in the spellings reports print ("ESP32-C3", "Iperf") taken as the
 * profile's names, a typo answered with the nearest name, a tier named
 * twice refused, and every missing required option listed at once. */
#include <stdio.h>
#include <string.h>

#include "espbench/base/names.h"
#include "espbench/formats/dialect.h"
#include "run_internal.h"
#include "run_request.h"

int run_missing_options(const eb_run_request *rq, eb_run_setup *st, eb_error *err)
{
    char miss[256] = "";
    int n = 0;
#define MISSING(text)                                                                                            \
    do {                                                                                                         \
        size_t l_ = strlen(miss);                                                                                \
        snprintf(miss + l_, sizeof miss - l_, "%s%s", n++ ? ", " : "", text);                                    \
    } while (0)
    if (!run_sources_chosen(rq))
        MISSING("a board (--port URL, --sim or --lab FILE)");
    /* The flags the source's boards need (a lab file names its own); a
     * board-to-board test has no PC end to give an address. */
    unsigned lacks = run_sources_needs(rq) & ~run_sources_given(rq);
    if (rq->peer_port || rq->peer_chip)
        lacks &= ~RUN_OPT(PC_ADDRESS);
    static const struct {
        unsigned opt;
        const char *text;
    } needs[] = {
        {RUN_OPT(CHIP), "--chip CHIP"}, {RUN_OPT(SSID), "--ssid SSID"}, {RUN_OPT(PC_ADDRESS), "--pc-address IP"}};
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
        if (lacks & needs[i].opt)
            MISSING(needs[i].text);
#undef MISSING
    if (rq->out_dir && !rq->out_dir[0])
        return run_bad_request(st, err, "--out '': an empty folder name; give the folder of the run, or leave out "
                                        "--out for espbench-CHIP-DATE");
    if (n == 0)
        return 0;
    return run_bad_request(st, err, "missing %s: %s", n == 1 ? "a required option" : "required options", miss);
}

/* A chip name to the profile's spelling, or the error with the nearest name. */
static int canon_chip(eb_run_setup *st, char *chip, size_t cap, const char *what, eb_error *err)
{
    const eb_chip *c = eb_profiles_chip(&st->profiles, chip);
    if (c) {
        snprintf(chip, cap, "%s", c->name);
        return 0;
    }
    const char *near = eb_profiles_chip_nearest(&st->profiles, chip);
    char hint[64] = "";
    if (near)
        snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
    return run_bad_request(st, err, "no profile for %s '%s'%s (see 'espbench profiles')", what, chip, hint);
}

/* Each tier of the request known to the chip, named once. */
static int check_tiers(const eb_run_opts *o, const eb_chip *c, eb_run_setup *st, eb_error *err)
{
    for (int t = 0; t < o->n_tiers; t++) {
        const char *name = o->tiers[t];
        if (!name[0])
            return run_bad_request(st, err, "--tier: an empty tier name (tiers of %s: see 'espbench profiles show %s')",
                                   c->name, c->name);
        for (int u = 0; u < t; u++)
            if (eb_name_same(o->tiers[u], name))
                return run_bad_request(st, err, "--tier names '%s' twice ('%s' and '%s'): each tier runs once; "
                                                "use --repeat N for repeats",
                                       name, o->tiers[u], name);
        if (eb_name_same(name, "all") || eb_name_same(name, "psram") || eb_chip_tier(c, name))
            continue;
        const char *near = eb_chip_tier_nearest(c, name);
        char names[1024];
        eb_chip_tier_names(c, names, sizeof names);
        char hint[64] = "";
        if (near)
            snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
        return run_bad_request(st, err, "chip %s has no tier '%s'%s (tiers: %s; or all, psram)", c->name, name, hint,
                               names);
    }
    return 0;
}

int run_names_resolve(eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    int rc = 0;
    for (int i = 0; i < o->n_boards && !rc; i++) {
        eb_run_board *b = &o->boards[i];
        rc = canon_chip(st, b->chip, sizeof b->chip, "chip", err);
        if (!rc && b->peer.chip[0])
            rc = canon_chip(st, b->peer.chip, sizeof b->peer.chip, "peer chip", err);
    }
    return rc;
}

int run_tiers_resolve(eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    int rc = 0;
    const eb_profiles *p = o->profiles ? o->profiles : &st->profiles;
    for (int i = 0; i < o->n_boards && !rc; i++) {
        const eb_chip *c = eb_profiles_chip(p, o->boards[i].chip);
        if (c)
            rc = check_tiers(o, c, st, err);
    }
    /* "all" and "psram" as typed ("ALL") to the planner's spelling. */
    for (int t = 0; t < o->n_tiers && !rc; t++)
        if (eb_name_same(o->tiers[t], "all") && strcmp(o->tiers[t], "all"))
            o->tiers[t] = "all";
        else if (eb_name_same(o->tiers[t], "psram") && strcmp(o->tiers[t], "psram"))
            o->tiers[t] = "psram";
    return rc;
}

/* The dialect a board will speak when it is known before it opens: a forced
 * --dialect (or the lab file's), else its source's firmware's (a virtual
 * board's espbench firmware). */
static int known_dialect(const eb_run_request *rq, const eb_run_board *b)
{
    if (b->dialect[0])
        return eb_dialect_from_name(b->dialect);
    return run_sources_dialect(rq);
}

int run_limits_precheck(const eb_run_request *rq, const eb_run_opts *in, eb_run_setup *st, eb_error *err)
{
    eb_run_opts o = *in;
    eb_run_opts_defaults(&o);
    for (int i = 0; i < o.n_boards; i++) {
        const eb_run_board *b = &o.boards[i];
        int rc = eb_dialect_check_timing(known_dialect(rq, b), o.duration_s, o.interval_s, NULL, err);
        if (rc) {
            st->bad_request = true;
            return rc;
        }
    }
    return 0;
}
