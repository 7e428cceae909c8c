/* The radio dimensions' functions (run_dims.c rows; names, values and chip
 * rules: formats/dims.c): band, the board's bandwidth, PHY mode, power save
 * (with its listen interval) and a BLE activity, set through the espbench
 * console's radio_set (docs/console-protocol.md "Radio settings"), and the
 * link as the board reports it after connecting (`link`) into provenance.
 * A stock example has no command for any of them: refused up front when
 * the board's dialect is known, else when its console opens. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "espbench/formats/dialect.h"
#include "espbench/formats/dims.h"
#include "run_internal.h"

static bool asked(const eb_run_opts *o)
{
    for (int d = 0; d < EB_DIM_COUNT; d++)
        if (eb_dim(d) && (eb_dim(d)->flags & EB_DIM_RADIO) && o->radio.n[d] > 0)
            return true;
    for (int d = 0; d < EB_DIM_COUNT; d++)
        if (o->radio.extra[d] > 0)
            return true;
    return false;
}

/* What stops a firmware from taking radio settings ("" when it can). */
static const char *no_radio_command(const eb_run_opts *o, const char *dialect)
{
    if (o->pattern)
        return "a --pattern firmware has no radio command";
    if (dialect[0] && strcmp(dialect, "espbench"))
        return "the stock iperf examples' consoles have no command to set the band, bandwidth, PHY mode, power "
               "save or a BLE activity (each is a build or code change there)";
    return "";
}

bool run_radio_check(const eb_run_opts *o, const eb_run_board *b, char *why, size_t cap)
{
    if (!b || !asked(o))
        return true;
    const char *who = b->name[0] ? b->name : b->port;
    const char *no = no_radio_command(o, b->dialect);
    if (no[0]) {
        snprintf(why, cap, "board %s (dialect %s): %s; run the espbench firmware (docs/dimensions.md)", who,
                 o->pattern ? "pattern" : b->dialect, no);
        return false;
    }
    const eb_chip *c = o->profiles && b->chip[0] ? eb_profiles_chip(o->profiles, b->chip) : NULL;
    return !c || eb_radio_chip_can(&o->radio, c, why, cap);
}

/* The item's band (none asked: the board's own, 2.4 GHz). */
static bool five_ghz(const eb_run_item *it)
{
    char band[8];
    eb_dim_value_text(eb_dim(EB_DIM_BAND), it->at[EB_DIM_BAND], band, sizeof band);
    return !strcmp(band, "5");
}

/* One radio row's setting as radio_set spells it ("" when not asked):
 * the row's tag, per band where it is set per band, its value as the row
 * spells it, and the number that goes with it in the key (power save's
 * listen interval: "ps=max_modem listen_interval=10"). */
static void setting(const eb_run_opts *o, const eb_run_item *it, int dim, char *out, size_t cap)
{
    const eb_dim_desc *row = eb_dim(dim);
    char v[16] = "";
    if (isfinite(it->at[dim]))
        eb_dim_value_text(row, it->at[dim], v, sizeof v);
    bool five = five_ghz(it);
    out[0] = 0;
    if (!v[0])
        return;
    int n = snprintf(out, cap, "%s%s=%s", row->tag ? row->tag : row->name,
                     five && (row->flags & EB_DIM_BAND5) ? "5" : "", row->spell ? row->spell(v, five) : v);
    eb_provenance key;
    eb_prov_init(&key);
    eb_dims_key(it->at, EB_DIM_NONE, o->radio.extra, &key);
    double extra = NAN;
    if (row->extra_off)
        memcpy(&extra, (const char *)&key + row->extra_off, sizeof extra);
    char name[32];
    snprintf(name, sizeof name, "%s", row->extra_name ? row->extra_name : "");
    for (char *c = name; *c; c++) /* the console's keys spell words with '_' */
        *c = *c == '-' ? '_' : *c;
    if (isfinite(extra) && n > 0 && (size_t)n < cap)
        snprintf(out + n, cap - (size_t)n, " %s=%g", name, extra);
}

/* Sends a dimension's radio_set setting when it differs from what the
 * board took last (a board whose tier is to be redone may have rebooted:
 * everything again). The firmware reconnects itself when a setting needs it. */
static int send_setting(board_ctx *end, int dim, const char *want, eb_error *err)
{
    const eb_run_opts *o = end->sh->o;
    if (!want[0] || (end->tier && !strcmp(end->radio_sent[dim], want)))
        return 0;
    if (!end->drv || !end->drv->radio_set) {
        const char *no = no_radio_command(o, end->drv ? end->drv->name : "stock");
        return eb_fail(err, EB_ECONFIG, "%s: %s cannot take '%s': %s; run the espbench firmware (docs/dimensions.md)",
                       end->label, end->drv ? end->drv->name : "this firmware", want,
                       no[0] ? no : "it has no radio command");
    }
    char why[300];
    if (end->chip && !eb_radio_chip_can(&o->radio, end->chip, why, sizeof why))
        return eb_fail(err, EB_ECONFIG, "%s: %s", end->label, why);
    char now[EB_CONSOLE_LINE_MAX];
    int rc = end->drv->radio_set(end->drv, end->con, want, now, sizeof now, eb_deadline_in(EB_RUN_WIFI_MS), err);
    if (rc) {
        end->radio_sent[dim][0] = 0;
        eb_error_prefix(err, "%s: radio_set %s: ", end->label, want);
        return rc;
    }
    snprintf(end->radio_sent[dim], sizeof end->radio_sent[dim], "%s", want);
    end->link_for = NULL; /* a new association to record */
    run_infof(end, EB_RUN_EV_INFO, "%s: radio %s (%s)", end->label, want, now);
    return 0;
}

int run_radio_apply(board_ctx *end, int dim, const eb_run_item *it, eb_error *err)
{
    char want[64];
    setting(end->sh->o, it, dim, want, sizeof want);
    return send_setting(end, dim, want, err);
}

/* --sweep tx-power: the espbench firmware's radio_set tx_power= (ESP-IDF's
 * esp_wifi_set_max_tx_power, which takes quarter-dBm units [8, 84], that is
 * 2 to 21 dBm; docs/console-protocol.md). A stock example's console has no
 * such command (the iperf examples set it only in code). */
bool run_radio_tx_power_check(const eb_run_opts *o, const eb_run_board *b, char *why, size_t cap)
{
    if (o->sweep.var != EB_DIM_TX_POWER || o->sweep.n <= 0)
        return true;
    for (int i = 0; i < o->sweep.n; i++) {
        double q = o->sweep.values[i] * 4;
        if (q != (double)(long)q) {
            snprintf(why, cap, "--sweep tx-power: %g dBm is not a step of ESP-IDF's transmit power (0.25 dBm: "
                     "esp_wifi_set_max_tx_power takes quarter dBm); give e.g. %.2f", o->sweep.values[i],
                     (double)(long)q / 4);
            return false;
        }
    }
    if (!b)
        return true;
    if (o->pattern || (b->dialect[0] && strcmp(b->dialect, "espbench"))) {
        snprintf(why, cap, "--sweep tx-power: board %s (dialect %s) has no command to set the transmit power (the "
                 "stock iperf examples set it only in code); run the espbench firmware (docs/dimensions.md)",
                 b->name[0] ? b->name : b->port, o->pattern ? "pattern" : b->dialect);
        return false;
    }
    return true;
}

int run_radio_tx_power_apply(board_ctx *end, const eb_run_item *it, eb_error *err)
{
    if (!isfinite(it->at[EB_DIM_TX_POWER]))
        return 0;
    char want[64];
    snprintf(want, sizeof want, "tx_power=%.2f", it->at[EB_DIM_TX_POWER]);
    return send_setting(end, EB_DIM_TX_POWER, want, err);
}

/* After every dimension is applied and the board connected: the link as
 * negotiated (channel, bandwidth, PHY mode, power save) into the facts
 * every result of the board carries. */
int run_radio_link(board_ctx *end, const eb_run_item *it, eb_error *err)
{
    (void)it;
    if (!end->drv || !end->drv->link || !end->con || (end->link_for && end->link_for == end->tier))
        return 0; /* once per association: after a tier (connect) or a radio setting (reconnect) */
    end->link_for = end->tier;
    eb_link_info l = {0};
    eb_error e = {0};
    if (end->drv->link(end->drv, end->con, &l, eb_deadline_in(EB_RUN_CMD_MS), &e)) {
        if (e.kind == EB_KIND_REBOOT || e.kind == EB_KIND_PORT_LOST) {
            *err = e;
            return e.code;
        }
        return 0; /* not associated yet or no answer: the test says what it can */
    }
    eb_provenance *p = &end->prov.seen;
    snprintf(p->band, sizeof p->band, "%s", l.band);
    snprintf(p->phy_mode, sizeof p->phy_mode, "%s", l.phy);
    snprintf(p->power_save, sizeof p->power_save, "%s", l.ps);
    if (l.channel > 0)
        p->channel = l.channel;
    if (l.bw_mhz > 0)
        p->bandwidth_mhz = l.bw_mhz;
    return 0;
}
