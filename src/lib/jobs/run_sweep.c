/* Sweeps (sweep.h): the variable table, the spec parser and the link of a
 * point. The ranges are what the board or the model accepts: the iperf -b
 * option takes any positive rate (1..1000 Mbit/s here), ESP-IDF's
 * esp_wifi_set_max_tx_power takes 2..20 dBm (in 0.25 dBm steps), and the
 * model's link ranges are eb_model_link_check's. */
#include "espbench/jobs/sweep.h"
#include "espbench/formats/lab.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct sweep_var {
    const char *name, *key, *unit;
    double lo, hi;
    bool sim_only;
    int instrument; /* enum eb_instr_kind */
} vars[EB_SWEEP_COUNT] = {
    [EB_SWEEP_UDP_RATE] = {"udp-rate", "udp_rate", "Mbit/s", 0.1, 1000, false},
    [EB_SWEEP_TX_POWER] = {"tx-power", "tx_power", "dBm", 2, 20, false},
    [EB_SWEEP_RSSI] = {"rssi", "rssi", "dBm", -100, -10, true, EB_INSTR_ATTENUATOR},
    [EB_SWEEP_LOSS] = {"loss", "loss", "%", 0, 50, true},
    [EB_SWEEP_RTT] = {"rtt", "rtt", "ms", 0, 2000, true},
    /* 120 dB: the largest programmable attenuator range of the drivers (instrument.h) */
    [EB_SWEEP_ATTEN] = {"attenuation", "attenuation", "dB", 0, 120, false, EB_INSTR_ATTENUATOR},
    /* 2.4 GHz channels 1..14, 5 GHz 36..177 (IEEE 802.11 channel numbering) */
    [EB_SWEEP_CHANNEL] = {"channel", "channel", "", 1, 177, false, EB_INSTR_AP},
    [EB_SWEEP_BANDWIDTH] = {"bandwidth", "bandwidth", "MHz", 20, 160, false, EB_INSTR_AP},
};

static bool var_ok(int v) { return v > EB_SWEEP_NONE && v < EB_SWEEP_COUNT; }

const char *eb_sweep_var_name(int v) { return var_ok(v) ? vars[v].name : NULL; }
const char *eb_sweep_var_key(int v) { return var_ok(v) ? vars[v].key : NULL; }
const char *eb_sweep_var_unit(int v) { return var_ok(v) ? vars[v].unit : ""; }
bool eb_sweep_var_sim_only(int v) { return var_ok(v) && vars[v].sim_only; }
int eb_sweep_var_instrument(int v) { return var_ok(v) ? vars[v].instrument : 0; }

int eb_sweep_var_from_name(const char *name)
{
    for (int v = EB_SWEEP_NONE + 1; v < EB_SWEEP_COUNT; v++)
        if (!strcmp(name, vars[v].name) || !strcmp(name, vars[v].key))
            return v;
    return EB_SWEEP_NONE;
}

static int bad(eb_error *err, const char *spec, const char *why)
{
    return eb_fail(err, EB_ECONFIG, "--sweep %s: %s", spec, why);
}

/* One number ending at one of `ends` (or the end of the text). */
static bool number(const char **p, const char *ends, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(*p, &end);
    if (end == *p || errno || !isfinite(*v) || (*end && !strchr(ends, *end)))
        return false;
    *p = end;
    return true;
}

static int parse_range(const char *spec, const char *p, eb_sweep *out, eb_error *err)
{
    double a, b, step;
    if (!number(&p, ":", &a) || *p++ != ':' || !number(&p, ":", &b) || *p++ != ':' || !number(&p, "", &step))
        return bad(err, spec, "expected VAR=START:STOP:STEP (e.g. udp-rate=40:120:10) or VAR=V1,V2,...");
    if (step <= 0 || b < a)
        return bad(err, spec, "the range has no points: STEP must be > 0 and START <= STOP");
    double span = (b - a) / step;
    if (span + 1 > EB_SWEEP_MAX_POINTS + 1e-9) {
        char why[128];
        snprintf(why, sizeof why, "%.0f points; at most %d (use a larger STEP)", floor(span + 1e-9) + 1,
                 EB_SWEEP_MAX_POINTS);
        return bad(err, spec, why);
    }
    /* points from integer multiples of STEP: no drift from repeated adding */
    for (int i = 0; a + i * step <= b + step * 1e-9; i++)
        out->values[out->n++] = round((a + i * step) * 1e9) / 1e9;
    return 0;
}

static int parse_list(const char *spec, const char *p, eb_sweep *out, eb_error *err)
{
    while (*p) {
        if (out->n == EB_SWEEP_MAX_POINTS) {
            char why[64];
            snprintf(why, sizeof why, "more than %d points", EB_SWEEP_MAX_POINTS);
            return bad(err, spec, why);
        }
        double v;
        if (!number(&p, ",", &v))
            return bad(err, spec, "expected VAR=START:STOP:STEP (e.g. udp-rate=40:120:10) or VAR=V1,V2,...");
        out->values[out->n++] = v;
        if (*p == ',' && !*++p)
            return bad(err, spec, "a list ends with a value, not a comma");
    }
    return 0;
}

int eb_sweep_parse(const char *spec, eb_sweep *out, eb_error *err)
{
    memset(out, 0, sizeof *out);
    const char *eq = strchr(spec, '=');
    char name[32];
    snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - spec) : (int)strlen(spec), spec);
    out->var = eb_sweep_var_from_name(name);
    if (!out->var)
        return eb_fail(err, EB_ECONFIG,
                       "--sweep %s: unknown sweep variable '%s' (udp-rate, tx-power; under --sim also rssi, "
                       "loss, rtt; with lab instruments attenuation, rssi, channel, bandwidth)", spec, name);
    if (!eq || !eq[1])
        return bad(err, spec, "no points: give VAR=START:STOP:STEP or VAR=V1,V2,...");
    int rc = strchr(eq + 1, ':') ? parse_range(spec, eq + 1, out, err) : parse_list(spec, eq + 1, out, err);
    if (rc)
        return rc;
    if (out->n == 0)
        return bad(err, spec, "no points");
    const struct sweep_var *v = &vars[out->var];
    for (int i = 0; i < out->n; i++)
        if (out->values[i] < v->lo || out->values[i] > v->hi) {
            char why[160];
            snprintf(why, sizeof why, "%s %g %s is outside %g..%g %s", v->name, out->values[i], v->unit, v->lo,
                     v->hi, v->unit);
            return bad(err, spec, why);
        }
    return 0;
}

void eb_sweep_link_at(const eb_sweep *s, int point, const eb_model_link *base, eb_model_link *out)
{
    *out = *base;
    if (!s || point < 0 || point >= s->n)
        return;
    double v = s->values[point];
    switch (s->var) {
    case EB_SWEEP_RSSI: out->rssi_dbm = v; break;
    case EB_SWEEP_LOSS: out->loss_pct = v; break;
    case EB_SWEEP_RTT: out->rtt_ms = v; break;
    default: break;
    }
}

void eb_sweep_link_command(const eb_model_link *l, char *out, size_t cap)
{
    /* vb_control.c "link": NAN fields are left out (the published bench's value) */
    size_t n = (size_t)snprintf(out, cap, "link");
    if (isfinite(l->rssi_dbm) && n < cap)
        n += (size_t)snprintf(out + n, cap - n, " rssi=%g", l->rssi_dbm);
    if (isfinite(l->phy_mbps) && n < cap)
        n += (size_t)snprintf(out + n, cap - n, " phy=%g", l->phy_mbps);
    if (isfinite(l->rtt_ms) && n < cap)
        n += (size_t)snprintf(out + n, cap - n, " rtt=%g", l->rtt_ms);
    if (isfinite(l->loss_pct) && n < cap)
        n += (size_t)snprintf(out + n, cap - n, " loss=%g", l->loss_pct);
    if (l->stations > 1 && n < cap)
        snprintf(out + n, cap - n, " stations=%g", l->stations);
}
