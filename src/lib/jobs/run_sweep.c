/* Sweeps (sweep.h): the spec parser and the link of a point. The
 * variables are rows of the dimension table (formats/dims.c), with their
 * names, units and ranges. */
#include "espbench/jobs/sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const eb_dim_desc *var_of(int v)
{
    const eb_dim_desc *d = eb_dim(v);
    return d && (d->flags & EB_DIM_SWEEPS) ? d : NULL;
}

const char *eb_sweep_var_name(int v) { return var_of(v) ? var_of(v)->name : NULL; }
const char *eb_sweep_var_key(int v) { return var_of(v) ? var_of(v)->key : NULL; }
const char *eb_sweep_var_unit(int v) { return var_of(v) ? var_of(v)->unit : ""; }
bool eb_sweep_var_sim_only(int v) { return var_of(v) && (var_of(v)->flags & EB_DIM_LINK); }
int eb_sweep_var_instrument(int v) { return var_of(v) ? var_of(v)->instrument : 0; }

int eb_sweep_var_from_name(const char *name)
{
    int v = eb_dim_from_name(name);
    return var_of(v) ? v : EB_DIM_NONE;
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
    const eb_dim_desc *v = var_of(out->var);
    for (int i = 0; i < out->n; i++)
        if (out->values[i] < v->lo || out->values[i] > v->hi) {
            char why[160];
            snprintf(why, sizeof why, "%s %g %s is outside %g..%g %s", v->name, out->values[i], v->unit, v->lo,
                     v->hi, v->unit);
            return bad(err, spec, why);
        }
    return 0;
}

void eb_sweep_link_at(const double *at, const eb_model_link *base, eb_model_link *out)
{
    *out = *base;
    for (int i = EB_DIM_NONE + 1; i < eb_dim_count(); i++) {
        const eb_dim_desc *d = eb_dim(i); /* a link row says where its value lives */
        if ((d->flags & EB_DIM_LINK) && isfinite(at[i]))
            memcpy((char *)out + d->link_off, &at[i], sizeof(double));
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
