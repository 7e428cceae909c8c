/* Lab instruments in a run (docs/instruments.md), drivers of the same kind
 * as a board's ends (run_internal.h run_end_ops, fixtures): a board's
 * attenuator (run_end_atten: attenuation, rssi on hardware) and the lab's
 * AP with the instruments' facts (run_end_lab: the AP's channel and
 * bandwidth), opened when made, prepared before the board connects, reset,
 * stamped and closed by the core as any end; and the run-level service
 * that powers and sets the AP before the run (run_service_lab).
 *  - run begin: --ap NAME powers that AP's outlet on and every other AP's
 *    off (one AP at a time, as ESP-IDF's shield-box test does with its APC
 *    switch), waits for the AP to answer, and applies --ap-set;
 *  - a board: its attenuator (the lab file's serves:) opened for an
 *    attenuation or, on hardware, an rssi sweep;
 *  - before each point's first attempt: an AP point (channel, bandwidth) is
 *    applied and the board reconnects; an attenuation point is set, the
 *    link given --settle (EB_RUN_SETTLE_MS) to settle and the board's RSSI read with a
 *    scan; an rssi point steers the attenuator until the board reports the
 *    RSSI within EB_RUN_RSSI_TOL_DB, or fails the point saying how close it
 *    came;
 *  - every result: the attenuation read back, the AP's channel, band and
 *    bandwidth as it reports them, and the instruments' names. */
#include "run_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "espbench/adapters/instrument.h"
#include "espbench/formats/lab.h"

#define EB_RUN_SETTLE_MS 2000      /* after an attenuation change, before the RSSI is read */
#define EB_RUN_RSSI_TOL_DB 2.0     /* an rssi point is reached within this */
#define EB_RUN_RSSI_STEPS 8        /* attenuator settings tried per rssi point */
#define EB_RUN_AP_BOOT_MS 180000   /* a powered-on AP answers within this */

typedef struct run_instr {
    eb_instr ap;
    bool ap_open;
    eb_ap_settings base;           /* --ap-set */
    eb_ap_settings now;            /* what the AP reports */
    int ap_point;                  /* the sweep point the AP has, -1 = none */
    char names[160];               /* provenance: "att1=idf-serial ap1=openwrt" */
} run_instr;

/* A board's attenuator: the fixture's own state (board_ctx.priv). */
typedef struct run_instr_board {
    eb_instr att;
    double db;                     /* read back, NAN = not set yet */
    int point;                     /* the sweep point set, -1 = none */
    int pending;                   /* the item's point, steered to once the board is connected */
} run_instr_board;

static bool ap_var(int var) { return eb_sweep_var_instrument(var) == EB_INSTR_AP; }

/* The run's instruments, made by the first that needs them. */
static run_instr *shared_instr(run_shared *sh)
{
    if (sh->instr)
        return sh->instr;
    run_instr *ri = calloc(1, sizeof *ri);
    if (!ri)
        abort();
    ri->ap_point = -1;
    eb_ap_settings_init(&ri->base);
    eb_ap_settings_init(&ri->now);
    return sh->instr = ri;
}


static void add_name(run_instr *ri, const eb_instr_spec *s)
{
    size_t n = strlen(ri->names);
    snprintf(ri->names + n, sizeof ri->names - n, "%s%s=%s", n ? " " : "", s->name, s->driver);
}

/* --ap-set "band=5g,channel=36,bandwidth=40,txpower=15" */
static int parse_ap_set(const char *spec, eb_ap_settings *s, eb_error *err)
{
    eb_ap_settings_init(s);
    char buf[160];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '='), *end = NULL;
        double v = eq ? strtod(eq + 1, &end) : NAN;
        bool num = eq && end != eq + 1 && !*end;
        if (eq && !strncmp(tok, "band=", 5) && (!strcmp(eq + 1, "2g") || !strcmp(eq + 1, "5g")))
            snprintf(s->band, sizeof s->band, "%s", eq + 1);
        else if (num && !strncmp(tok, "channel=", 8) && v >= 1 && v <= 177)
            s->channel = (int)v;
        else if (num && !strncmp(tok, "bandwidth=", 10) && (v == 20 || v == 40 || v == 80 || v == 160))
            s->bandwidth_mhz = (int)v;
        else if (num && !strncmp(tok, "txpower=", 8) && v >= 0 && v <= 30)
            s->txpower_dbm = v;
        else
            return eb_fail(err, EB_ECONFIG, "--ap-set %s: '%s' is not band=2g|5g, channel=1..177, "
                           "bandwidth=20|40|80|160 or txpower=0..30 (dBm)", spec, tok);
    }
    if (!s->band[0] && s->channel)
        snprintf(s->band, sizeof s->band, "%s", s->channel >= 36 ? "5g" : "2g");
    return 0;
}

/* The AP the run sets: --ap, else the lab's only one. */
static const eb_instr_spec *run_ap(const eb_run_opts *o, eb_error *err)
{
    const eb_instr_spec *aps[EB_LAB_MAX_INSTRUMENTS];
    int n = eb_lab_access_points(o->lab, aps, EB_LAB_MAX_INSTRUMENTS);
    if (o->ap_name) {
        const eb_instr_spec *s = eb_lab_instrument(o->lab, o->ap_name);
        if (!s || s->kind != EB_INSTR_AP)
            return eb_fail(err, EB_ECONFIG, "--ap %s: no access point of that name in %s", o->ap_name,
                           o->lab->file), NULL;
        return s;
    }
    if (n == 1)
        return aps[0];
    eb_fail(err, EB_ECONFIG, "%s: %s access points: choose one with --ap NAME", o->lab->file, n ? "several" : "no");
    return NULL;
}

int run_instr_resolve(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    (void)rq;
    o->lab = st->lab;
    bool needs_ap = o->ap_name || o->ap_set || (o->sweep.n > 0 && ap_var(o->sweep.var));
    if (!needs_ap)
        return 0;
    if (!st->lab)
        return run_bad_request(st, err, "--ap, --ap-set and an AP sweep drive the lab file's access point: give "
                               "--lab FILE with an instruments: entry of kind ap (docs/instruments.md)");
    eb_ap_settings s;
    char msg[sizeof err->msg];
    if ((o->ap_set && parse_ap_set(o->ap_set, &s, err)) || !run_ap(o, err)) {
        snprintf(msg, sizeof msg, "%s", err->msg); /* run_bad_request writes err */
        return run_bad_request(st, err, "%s", msg);
    }
    if (o->sweep.n > 0 && ap_var(o->sweep.var) && o->n_boards > 1)
        return run_bad_request(st, err, "--sweep %s changes the AP every board uses: run one board at a time",
                               eb_sweep_var_name(o->sweep.var));
    if (o->ap_name && !st->lab->ssid[0] && !eb_lab_instrument(st->lab, o->ap_name)->ssid[0] && !o->ssid)
        return run_bad_request(st, err, "--ap %s: the AP has no ssid: in the lab file", o->ap_name);
    if (o->ap_name && eb_lab_instrument(st->lab, o->ap_name)->ssid[0] && (!rq->ssid))
        o->ssid = eb_lab_instrument(st->lab, o->ap_name)->ssid;
    return 0;
}

/* The AP's settings at a sweep point: the run's (--ap-set) with the point's channel or width. */
static void ap_point_settings(const run_instr *ri, const eb_sweep *sw, int point, eb_ap_settings *s)
{
    *s = ri->base;
    double v = sw->values[point];
    if (sw->var == EB_DIM_CHANNEL) {
        s->channel = (int)v;
        snprintf(s->band, sizeof s->band, "%s", v >= 36 ? "5g" : "2g");
    } else {
        s->bandwidth_mhz = (int)v;
    }
}

/* Powers the chosen AP on and every other AP with a switch off, the others
 * first: one AP on the air at a time. */
static int power_aps(board_ctx *bc0, run_instr *ri, const eb_instr_spec *chosen, eb_error *err)
{
    const eb_lab *lab = bc0->sh->o->lab;
    const eb_instr_spec *aps[EB_LAB_MAX_INSTRUMENTS];
    int n = eb_lab_access_points(lab, aps, EB_LAB_MAX_INSTRUMENTS);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            bool on = aps[i] == chosen;
            if (!aps[i]->power[0] || on != (pass == 1))
                continue;
            const eb_instr_spec *sw = eb_lab_instrument(lab, aps[i]->power);
            eb_instr p;
            int rc = eb_instr_open(&p, sw, err);
            if (!rc)
                rc = eb_power_set(&p, aps[i]->outlet, on, err);
            eb_instr_close(&p);
            if (rc)
                return rc;
            if (!strstr(ri->names, sw->name))
                add_name(ri, sw);
            run_infof(bc0, EB_RUN_EV_INFO, "%s: outlet %d %s (access point %s)", sw->name, aps[i]->outlet,
                      on ? "on" : "off", aps[i]->name);
        }
    return 0;
}

/* Opens the AP, waiting for a freshly powered one to answer. */
static int open_ap(board_ctx *bc0, run_instr *ri, const eb_instr_spec *s, bool powered, eb_error *err)
{
    eb_deadline d = eb_deadline_in(powered ? EB_RUN_AP_BOOT_MS : 0);
    for (;;) {
        int rc = eb_instr_open(&ri->ap, s, err);
        if (!rc || rc == EB_ECONFIG || !powered || eb_deadline_left_ms(d) <= 0 || run_stopped(bc0))
            return rc;
        usleep(500 * 1000);
    }
}

/* The AP powered (one on the air at a time), opened and set for the run;
 * the boards' attenuators are named already (opened as they were made). */
static int instr_begin(run_shared *sh, board_ctx *bcs, int n, eb_error *err)
{
    const eb_run_opts *o = sh->o;
    if (!o->lab || !o->lab->n_instruments || !n)
        return 0;
    run_instr *ri = shared_instr(sh);
    bool needs_ap = o->ap_name || o->ap_set || (o->sweep.n > 0 && ap_var(o->sweep.var));
    if (!needs_ap)
        return 0;
    const eb_instr_spec *s = run_ap(o, err);
    int rc = s ? 0 : err->code;
    if (!rc && o->ap_set)
        rc = parse_ap_set(o->ap_set, &ri->base, err);
    if (!rc && o->ap_name)
        rc = power_aps(&bcs[0], ri, s, err);
    if (!rc)
        rc = open_ap(&bcs[0], ri, s, o->ap_name && s->power[0], err);
    if (rc)
        return rc;
    ri->ap_open = true;
    add_name(ri, s);
    /* every point the driver can take, said before anything runs (as an attenuator's range) */
    for (int i = 0; !rc && o->sweep.n > 0 && ap_var(o->sweep.var) && i < o->sweep.n; i++) {
        eb_ap_settings p;
        ap_point_settings(ri, &o->sweep, i, &p);
        rc = eb_ap_check(&ri->ap, &p, err);
    }
    if (!rc && o->ap_set) {
        rc = eb_ap_apply(&ri->ap, &ri->base, &ri->now, err);
    } else if (!rc && (rc = eb_ap_read(&ri->ap, &ri->now, err)) == 0 && !ri->now.on_air) {
        char why[300]; /* left as it is, it must still be on the air */
        eb_ap_settings none;
        eb_ap_settings_init(&none);
        eb_ap_settings_match(&none, &ri->now, why, sizeof why);
        rc = eb_instr_fail(&ri->ap, EB_EIO, err, "%s", why);
    }
    if (rc)
        return rc;
    run_infof(&bcs[0], EB_RUN_EV_INFO, "%s: band %s, channel %d, %d MHz", s->name, ri->now.band[0] ? ri->now.band : "?",
              ri->now.channel, ri->now.bandwidth_mhz);
    return 0;
}

static void instr_end(run_shared *sh)
{
    run_instr *ri = sh->instr;
    if (!ri)
        return;
    if (ri->ap_open)
        eb_instr_close(&ri->ap);
    free(ri);
    sh->instr = NULL;
}

/* ------------------------------------------------------------ a board's attenuator */

/* Opened as it is made (the lab file's serves: names it for the board),
 * and named in every result of the run; every point within this unit's
 * range, said before anything runs. */
static int att_open(board_ctx *end, eb_error *err)
{
    const eb_instr_spec *s = eb_lab_attenuator_of(end->sh->o->lab, end->b->name);
    if (!s)
        return eb_fail(err, EB_ECONFIG, "%s: --sweep %s needs an attenuator in front of the board: an instruments: "
                       "entry of kind attenuator that serves it (docs/instruments.md)", end->label,
                       eb_sweep_var_name(end->sh->o->sweep.var));
    run_instr_board *bi = calloc(1, sizeof *bi);
    if (!bi)
        abort();
    bi->db = NAN;
    bi->point = bi->pending = -1;
    int rc = eb_instr_open(&bi->att, s, err);
    if (rc) {
        free(bi);
        return rc;
    }
    end->priv = bi;
    add_name(shared_instr(end->sh), s);
    const eb_sweep *sw = &end->sh->o->sweep;
    for (int i = 0; sw->var == EB_DIM_ATTEN && i < sw->n; i++)
        if (sw->values[i] > bi->att.max_db)
            return eb_instr_fail(&bi->att, EB_ECONFIG, err, "the sweep's %g dB is above this unit's %g dB",
                                 sw->values[i], bi->att.max_db);
    return 0;
}

static void att_close(board_ctx *end)
{
    run_instr_board *bi = end->priv;
    if (!bi)
        return;
    eb_instr_close(&bi->att);
    free(bi);
    end->priv = NULL;
}

/* The board's RSSI now: a scan for the run's SSID (stock and espbench
 * firmware alike); its line also reaches the provenance tracker. */
static int read_rssi(board_ctx *bc, int *rssi, eb_error *err)
{
    eb_wifi_info w;
    memset(&w, 0, sizeof w);
    int rc = bc->drv->scan(bc->drv, bc->con, bc->sh->o->ssid, &w, eb_deadline_in(EB_RUN_CMD_MS), err);
    *rssi = w.rssi;
    if (!rc && w.rssi) /* the point's reading is the next test's RSSI before (whatever the dialect's scan line) */
        bc->prov.seen.rssi_before = w.rssi;
    if (!rc && !w.rssi) /* a firmware whose scan lines carry none (a pattern file's) */
        return eb_fail(err, EB_ECONFIG, "%s: the board's firmware reports no RSSI (%s)", bc->label,
                       bc->drv->name);
    return rc;
}

static int set_att(board_ctx *bc, run_instr_board *bi, double db, eb_error *err)
{
    double got = NAN;
    int rc = eb_atten_set(&bi->att, db, &got, err);
    bi->db = rc ? NAN : got;
    if (!rc && bc->tier) /* connected: give the link (rate control) time to follow */
        usleep((useconds_t)(bc->sh->o->settle_s > 0 ? bc->sh->o->settle_s * 1e6 : EB_RUN_SETTLE_MS * 1000.0));
    return rc;
}

/* Steers the attenuator until the board reports target within the
 * tolerance: one dB of attenuation is one dB of RSSI, so each step moves by
 * the difference; an AP out of sight means too much, so back off 10 dB. */
static int steer_rssi(board_ctx *bc, run_instr_board *bi, double target, eb_error *err)
{
    const eb_atten_ops *ops = bi->att.ops.atten;
    double a = isfinite(bi->db) ? bi->db : 0;
    char last[160] = "";
    for (int step = 0; step < EB_RUN_RSSI_STEPS; step++) {
        int rc = step == 0 && a == bi->db ? 0 : set_att(bc, bi, a, err), rssi = 0;
        if (rc)
            return rc;
        if ((rc = read_rssi(bc, &rssi, err)) == EB_ECONFIG)
            return eb_error_prefix(err, "--sweep rssi: "), rc; /* nothing to steer by */
        if (rc) {
            snprintf(last, sizeof last, "at %g dB the board does not see the AP", bi->db);
            if (bi->db <= 0)
                break;
            a = fmax(0, bi->db - 10);
            continue;
        }
        snprintf(last, sizeof last, "at %g dB the board reports %d dBm", bi->db, rssi);
        double diff = target - rssi;
        if (fabs(diff) <= EB_RUN_RSSI_TOL_DB) {
            run_infof(bc, EB_RUN_EV_INFO, "%s: sweep rssi = %g dBm: with %s %s", bc->label, target,
                      bi->att.spec->name, last);
            return 0;
        }
        double next = fmin(fmax(bi->db - diff, 0), ops->max_db);
        next = round(next / ops->step_db) * ops->step_db;
        if (next == bi->db)
            break; /* at the end of the attenuator's range */
        a = next;
    }
    bi->point = -1;
    return eb_fail(err, EB_EIO, "%s: RSSI %g dBm not reached with %s: %s (tolerance %g dB, range 0..%g dB)", bc->label,
                   target, bi->att.spec->name, last[0] ? last : "no reading", EB_RUN_RSSI_TOL_DB, ops->max_db);
}

/* The board's attenuator at sweep point `point` (bc: the board). */
static int att_point(board_ctx *bc, run_instr_board *bi, int point, eb_error *err)
{
    const eb_sweep *sw = &bc->sh->o->sweep;
    if (point < 0 || bi->point == point)
        return 0;
    double v = sw->values[point];
    int rc;
    if (sw->var == EB_DIM_RSSI) {
        if (!bc->tier) /* it connects next: with the least attenuation; steered once it reports an RSSI */
            return set_att(bc, bi, 0, err);
        rc = steer_rssi(bc, bi, v, err);
    } else {
        rc = set_att(bc, bi, v, err);
        int rssi = 0;
        if (!rc && !bc->tier)
            run_infof(bc, EB_RUN_EV_INFO, "%s: sweep attenuation = %g dB (%s reads %g dB); the board connects next",
                      bc->label, v, bi->att.spec->name, bi->db);
        else if (!rc && !read_rssi(bc, &rssi, err))
            run_infof(bc, EB_RUN_EV_INFO, "%s: sweep attenuation = %g dB (%s reads %g dB), RSSI %d dBm", bc->label, v,
                      bi->att.spec->name, bi->db, rssi);
        else if (!rc)
            run_infof(bc, EB_RUN_EV_WARN, "%s: sweep attenuation = %g dB: no RSSI: %s", bc->label, v, err->msg);
    }
    if (!rc)
        bi->point = point;
    return rc;
}

/* Before the board connects: an attenuation point set (and, on a
 * connected board, its RSSI read); an rssi point, on a board about to
 * connect, the least attenuation. */
static int att_prepare(board_ctx *end, const eb_run_item *it, bool own_tier, eb_error *err)
{
    (void)own_tier;
    run_instr_board *bi = end->priv;
    bi->pending = run_sweep_point(end->sh->o, it);
    if (end->sh->o->sweep.var == EB_DIM_RSSI && end->dut->tier)
        return 0; /* steered once connected (config_set) */
    return att_point(end->dut, bi, bi->pending, err);
}

/* The board connected: an rssi point steered to (an attenuation point is set already). */
static int att_config_set(board_ctx *end, const eb_dim_desc *d, double v, eb_error *err)
{
    (void)d, (void)v;
    return att_point(end->dut, end->priv, ((run_instr_board *)end->priv)->pending, err);
}

/* A failed attempt: the point is set again before the next one. */
static int att_reset(board_ctx *end, bool retry, eb_error *err)
{
    (void)retry, (void)err;
    ((run_instr_board *)end->priv)->point = -1;
    return 0;
}

/* What the attenuator read back, in every result of the board. */
static void att_stamp(board_ctx *end, const eb_run_item *it, run_result *r)
{
    (void)it;
    run_instr_board *bi = end->priv;
    if (isfinite(bi->db))
        r->prov->attenuation_db = bi->db;
}

/* The attenuator sets the rows of its instrument kind: attenuation, and
 * rssi steered by the board's report (dims.h eb_dim_desc.instrument). */
static const run_end_decl att_decl = {
    .instrument = EB_INSTR_ATTENUATOR,
    .needs = "needs a lab attenuator in front of board %s: an instruments: entry of kind attenuator in the lab "
             "file (docs/instruments.md)%s",
    .also = " or a lab attenuator in front of the board (docs/instruments.md)",
};

const run_end_ops run_end_atten = {
    .name = "attenuator",
    .decl = &att_decl,
    .open = att_open,
    .prepare = att_prepare,
    .config_set = att_config_set,
    .reset = att_reset,
    .close = att_close,
    .stamp = att_stamp,
};

/* ------------------------------------------------------------ the lab's AP */

static int ap_point(board_ctx *bc, const eb_run_item *it, eb_error *err)
{
    run_instr *ri = bc->sh->instr;
    const eb_sweep *sw = &bc->sh->o->sweep;
    int point = run_sweep_point(bc->sh->o, it);
    if (point < 0 || !ri || !ri->ap_open || ri->ap_point == point)
        return 0;
    eb_ap_settings s;
    double v = sw->values[point];
    ap_point_settings(ri, sw, point, &s);
    int rc = eb_ap_apply(&ri->ap, &s, &ri->now, err);
    if (rc) { /* the AP is in no known point: the next item sets it again */
        ri->ap_point = -1;
        return rc;
    }
    ri->ap_point = point;
    run_infof(bc, EB_RUN_EV_INFO, "%s: sweep %s = %g: %s reports band %s, channel %d, %d MHz", bc->label,
              eb_sweep_var_name(sw->var), v, ri->ap.spec->name, ri->now.band, ri->now.channel,
              ri->now.bandwidth_mhz);
    return 0;
}

/* Before the board connects: an AP point applied; the radio restarted,
 * so the board forgets its association and connects again, under the tier. */
static int lab_prepare(board_ctx *end, const eb_run_item *it, bool own_tier, eb_error *err)
{
    (void)own_tier;
    run_instr *ri = end->sh->instr;
    int point = ri ? ri->ap_point : -1, rc = 0;
    if (ap_var(end->sh->o->sweep.var))
        rc = ap_point(end->dut, it, err);
    if (!rc && ri && ri->ap_point != point && end->dut->ops->reset)
        rc = end->dut->ops->reset(end->dut, false, err);
    return rc;
}

/* Every result: the instruments' names, the AP as it reports itself. */
static void lab_stamp(board_ctx *end, const eb_run_item *it, run_result *r)
{
    (void)it;
    run_instr *ri = end->sh->instr;
    if (!ri)
        return;
    snprintf(r->prov->instruments, sizeof r->prov->instruments, "%s", ri->names);
    if (ri->ap_open) { /* what the AP reports it runs; the board's own report (if any) fills band and channel */
        size_t n = strlen(r->prov->instruments);
        snprintf(r->prov->instruments + n, sizeof r->prov->instruments - n, " (%s: %s channel %d %d MHz)",
                 ri->ap.spec->name, ri->now.band[0] ? ri->now.band : "?", ri->now.channel, ri->now.bandwidth_mhz);
        if (ri->now.band[0])
            snprintf(r->prov->band, sizeof r->prov->band, "%s", !strcmp(ri->now.band, "5g") ? "5GHz" : "2.4GHz");
        if (ri->now.channel)
            r->prov->channel = ri->now.channel;
        if (ri->now.bandwidth_mhz)
            r->prov->bandwidth_mhz = ri->now.bandwidth_mhz;
    }
}

/* The AP sets the rows of its instrument kind: channel, bandwidth. */
static const run_end_decl lab_decl = {
    .instrument = EB_INSTR_AP,
    .needs = "needs the lab's access point%.0s: --lab FILE with an instruments: entry of kind ap "
             "(docs/instruments.md)%s",
    .also = " or the lab's access point",
};

const run_end_ops run_end_lab = {
    .name = "lab",
    .decl = &lab_decl,
    .prepare = lab_prepare,
    .stamp = lab_stamp,
};

const run_service run_service_lab = {
    .name = "lab",
    .begin = instr_begin,
    .end = instr_end,
};
