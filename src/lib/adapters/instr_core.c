/* Lab instruments (instrument.h): the driver tables, opening with the
 * password from its source, the checked calls and one-line failures. */
#include "espbench/adapters/instrument.h"
#include "instr_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const eb_atten_ops *const atten_rows[] = {&eb_atten_idf_serial, &eb_atten_mc_http, &eb_atten_mc_telnet,
                                                  &eb_atten_weinschel};
static const eb_ap_ops *const ap_rows[] = {&eb_ap_openwrt, &eb_ap_hostapd};
static const eb_power_ops *const power_rows[] = {&eb_power_apc, &eb_power_tasmota};

#define FIND(rows, name)                                                                                          \
    do {                                                                                                          \
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)                                                 \
            if (!strcmp(rows[i]->driver, name))                                                                   \
                return rows[i];                                                                                   \
        return NULL;                                                                                              \
    } while (0)

const eb_atten_ops *eb_atten_driver(const char *name) { FIND(atten_rows, name); }
const eb_ap_ops *eb_ap_driver(const char *name) { FIND(ap_rows, name); }
const eb_power_ops *eb_power_driver(const char *name) { FIND(power_rows, name); }

void eb_ap_settings_init(eb_ap_settings *s)
{
    memset(s, 0, sizeof *s);
    s->txpower_dbm = NAN;
}

void eb_instr_label(const eb_instr *in, char *out, size_t cap)
{
    const eb_instr_spec *s = in->spec;
    snprintf(out, cap, "%s %s (%s %s)", eb_instr_kind_name(s->kind), s->name, s->driver, s->address);
}

int eb_instr_fail(const eb_instr *in, int code, eb_error *err, const char *fmt, ...)
{
    char msg[400], label[360];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    eb_instr_label(in, label, sizeof label);
    return eb_fail(err, code, "%s: %s", label, msg);
}

void eb_instr_quote(const void *data, size_t len, char *out, size_t cap)
{
    const unsigned char *p = data;
    size_t n = 0;
    if (!cap)
        return;
    for (size_t i = 0; i < len && n + 5 < cap; i++) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
            out[n++] = (char)p[i];
        else
            n += (size_t)snprintf(out + n, cap - n, "\\x%02X", p[i]);
    }
    out[n] = 0;
}

/* The password from the environment or the first line of a file; messages
 * name the source, never the value. */
static int read_password(eb_instr *in, eb_error *err)
{
    const eb_instr_spec *s = in->spec;
    char line[sizeof in->password + 2] = "";
    if (s->password_env[0]) {
        const char *v = getenv(s->password_env);
        if (!v)
            return eb_fail(err, EB_ECONFIG, "%s: instrument '%s' reads its password from the environment variable "
                           "%s, which is not set", s->at, s->name, s->password_env);
        snprintf(line, sizeof line, "%s", v);
    } else if (s->password_file[0]) {
        FILE *f = fopen(s->password_file, "re");
        if (!f)
            return eb_fail(err, EB_ECONFIG, "%s: instrument '%s': cannot read its password file %s: %s", s->at,
                           s->name, s->password_file, strerror(errno));
        if (!fgets(line, sizeof line, f))
            line[0] = 0;
        fclose(f);
        line[strcspn(line, "\r\n")] = 0;
    } else {
        return 0;
    }
    if (strlen(line) >= sizeof in->password) {
        memset(line, 0, sizeof line);
        return eb_fail(err, EB_ECONFIG, "%s: instrument '%s': its password is longer than %zu characters", s->at,
                       s->name, sizeof in->password - 1);
    }
    memcpy(in->password, line, strlen(line) + 1);
    memset(line, 0, sizeof line);
    in->has_password = true;
    return 0;
}

int eb_instr_open(eb_instr *in, const eb_instr_spec *spec, eb_error *err)
{
    memset(in, 0, sizeof *in);
    in->spec = spec;
    int (*open)(eb_instr *, eb_error *) = NULL;
    switch (spec->kind) {
    case EB_INSTR_ATTENUATOR:
        in->ops.atten = eb_atten_driver(spec->driver);
        open = in->ops.atten ? in->ops.atten->open : NULL;
        break;
    case EB_INSTR_AP:
        in->ops.ap = eb_ap_driver(spec->driver);
        open = in->ops.ap ? in->ops.ap->open : NULL;
        break;
    case EB_INSTR_POWER:
        in->ops.power = eb_power_driver(spec->driver);
        open = in->ops.power ? in->ops.power->open : NULL;
        break;
    default: break;
    }
    if (!open)
        return eb_fail(err, EB_ECONFIG, "%s: instrument '%s': no %s driver '%s'", spec->at, spec->name,
                       eb_instr_kind_name(spec->kind), spec->driver);
    snprintf(in->user, sizeof in->user, "%s", spec->user);
    int rc = read_password(in, err);
    if (spec->kind == EB_INSTR_ATTENUATOR)
        in->max_db = in->ops.atten->max_db;
    if (!rc)
        rc = open(in, err);
    if (rc) {
        memset(in->password, 0, sizeof in->password);
        in->ops.atten = NULL;
    }
    return rc;
}

void eb_instr_close(eb_instr *in)
{
    if (!in->spec || !in->ops.atten)
        return;
    switch (in->spec->kind) {
    case EB_INSTR_ATTENUATOR: in->ops.atten->close(in); break;
    case EB_INSTR_AP: in->ops.ap->close(in); break;
    case EB_INSTR_POWER: in->ops.power->close(in); break;
    default: break;
    }
    memset(in->password, 0, sizeof in->password);
    in->ops.atten = NULL;
    in->impl = NULL;
}

int eb_atten_set(eb_instr *in, double db, double *got, eb_error *err)
{
    const eb_atten_ops *o = in->ops.atten;
    if (!(db >= 0 && db <= in->max_db))
        return eb_instr_fail(in, EB_ECONFIG, err, "%g dB is outside its range 0..%g dB", db, in->max_db);
    double step = round(db / o->step_db) * o->step_db;
    int rc = o->set(in, step, err);
    double back = NAN;
    if (!rc)
        rc = o->get(in, &back, err);
    if (!rc && fabs(back - step) > o->step_db / 2)
        rc = eb_instr_fail(in, EB_EIO, err, "set to %g dB, it reads back %g dB", step, back);
    if (got)
        *got = back;
    return rc;
}

int eb_ap_check(const eb_instr *in, const eb_ap_settings *s, eb_error *err)
{
    return in->ops.ap->check ? in->ops.ap->check(in, s, err) : 0;
}

int eb_ap_apply(eb_instr *in, const eb_ap_settings *s, eb_ap_settings *got, eb_error *err)
{
    eb_ap_settings_init(got); /* a failure before the read-back: nothing reported */
    int rc = eb_ap_check(in, s, err);
    if (!rc)
        rc = in->ops.ap->apply(in, s, err);
    if (!rc)
        rc = eb_ap_read(in, got, err);
    char why[300];
    if (!rc && !eb_ap_settings_match(s, got, why, sizeof why))
        rc = eb_instr_fail(in, EB_EIO, err, "%s", why);
    return rc;
}

int eb_ap_read(eb_instr *in, eb_ap_settings *out, eb_error *err)
{
    eb_ap_settings_init(out);
    return in->ops.ap->read(in, out, err);
}

int eb_power_set(eb_instr *in, int outlet, bool on, eb_error *err)
{
    const eb_power_ops *o = in->ops.power;
    if (outlet < 1 || outlet > o->max_outlet)
        return eb_instr_fail(in, EB_ECONFIG, err, "no outlet %d (1..%d)", outlet, o->max_outlet);
    bool now = !on;
    int rc = o->set(in, outlet, on, err);
    if (!rc)
        rc = o->get(in, outlet, &now, err);
    if (!rc && now != on)
        rc = eb_instr_fail(in, EB_EIO, err, "switched outlet %d %s; it reports it %s", outlet, on ? "on" : "off",
                           now ? "on" : "off");
    return rc;
}
