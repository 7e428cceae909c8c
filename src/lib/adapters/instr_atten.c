/* Programmable attenuators (instrument.h eb_atten_ops):
 *  - idf-serial: the serial attenuator of ESP-IDF's shield-box throughput
 *    test (esp-idf tools/ci/python_packages/idf_iperf_test_util/
 *    Attenuator.py): 9600 baud, 7E 7E 10 <att> <0x10+att>, the answer
 *    7E 7E 20 <att> 00 <0x20+att>; 0..62 dB in 1 dB steps. The unit has no
 *    query: its read-back is the answer's value, which echoes what it set.
 *    Attenuator.py reads up to five times 100 ms for the answer; the driver
 *    waits one deadline for it.
 *  - minicircuits-http / minicircuits-telnet: Mini-Circuits RCDAT/RUDAT
 *    Ethernet units (Mini-Circuits "Programmable Attenuators Programming
 *    Manual"; Google Mobly's attenuator_lib/minicircuits.py drives the same
 *    commands): http://IP/SETATT=12.25 and http://IP/ATT? (with a
 *    password, http://IP/PWD=xxx;SETATT=12.25); over Telnet (port 23) the
 *    same commands, one per CR LF line. SETATT answers 1 (done), 0
 *    (failed), 2 (above the maximum: set to the maximum). MN? names the
 *    model, whose last field is its maximum ("RCDAT-6000-90": 90 dB);
 *    0.25 dB steps.
 *  - weinschel-telnet: Aeroflex/Weinschel 8320/8321 and 833x attenuator
 *    units over Telnet (Weinschel IM-608 "Models 8320 & 8321", as the
 *    Android ACTS attenuator_lib/aeroflex driver speaks it): CR LF lines,
 *    each answer ended by the ">" prompt; "*CLS" clears, "RFCONFIG? ATTN N"
 *    answers "MODEL, MAX_DB, STEP_DB, ..." for path N, "ATTN N DB" sets
 *    (no answer but the prompt), "ATTN? N" answers the attenuation. */
#include "instr_internal.h"

#include "espbench/formats/instr_proto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- idf-serial ---- */

typedef struct idf_att {
    eb_port *port;
    double last;       /* what the last answer said */
} idf_att;

static int idf_open(eb_instr *in, eb_error *err)
{
    idf_att *a = calloc(1, sizeof *a);
    if (!a)
        return eb_instr_fail(in, EB_EIO, err, "out of memory");
    a->last = NAN;
    int rc = eb_port_open(&a->port, in->spec->address, EB_IDF_ATT_BAUD, err);
    if (rc) {
        free(a);
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return eb_instr_fail(in, EB_EIO, err, "cannot open its port: %s", msg);
    }
    in->impl = a;
    return 0;
}

static int idf_set(eb_instr *in, double db, eb_error *err)
{
    idf_att *a = in->impl;
    int att = (int)lround(db);
    uint8_t cmd[5], got[32];
    size_t len = 0;
    eb_idf_att_command(att, cmd);
    eb_port_flush_input(a->port);
    eb_deadline d = eb_deadline_in(EB_INSTR_TIMEOUT_MS);
    if (eb_port_write(a->port, cmd, sizeof cmd, d, err))
        return eb_instr_fail(in, EB_EIO, err, "cannot send the command for %d dB", att);
    for (;;) {
        int v = eb_idf_att_answer(att, got, len);
        if (v == 1) {
            a->last = att;
            return 0;
        }
        char q[100] = ""; /* a binary protocol: the bytes in hex */
        for (size_t i = 0, n = 0; i < len && n + 4 < sizeof q; i++)
            n += (size_t)snprintf(q + n, sizeof q - n, "%s%02X", i ? " " : "", got[i]);
        if (v < 0)
            return eb_instr_fail(in, EB_EIO, err, "set %d dB: answered %s, not 7E 7E 20 %02X 00 %02X", att, q, att,
                                 0x20 + att);
        long n = eb_port_read(a->port, got + len, sizeof got - len, d, err);
        if (n <= 0)
            return eb_instr_fail(in, EB_EIO, err, "set %d dB: %s%s", att,
                                 len ? "the answer stopped after " : "no answer within 5 s (is it powered and on this port?)",
                                 len ? q : "");
        len += (size_t)n;
    }
}

static int idf_get(eb_instr *in, double *db, eb_error *err)
{
    (void)err;
    *db = ((idf_att *)in->impl)->last;
    return 0;
}

static void idf_close(eb_instr *in)
{
    idf_att *a = in->impl;
    if (a)
        eb_port_close(a->port);
    free(a);
}

const eb_atten_ops eb_atten_idf_serial = {
    .driver = "idf-serial", .max_db = EB_IDF_ATT_MAX, .step_db = 1,
    .open = idf_open,       .set = idf_set,           .get = idf_get, .close = idf_close,
};

/* ---- Mini-Circuits: the command over HTTP or Telnet ---- */

typedef struct mc_att {
    eb_port *tn;       /* Telnet; NULL over HTTP */
    eb_buf acc;
    double max_db;
} mc_att;

/* One command, its answer (one line) into reply. */
static int mc_cmd(eb_instr *in, const char *cmd, char *reply, size_t cap, eb_error *err)
{
    mc_att *m = in->impl;
    int rc;
    if (!m->tn) {
        char path[460], pwd[300] = "";
        if (in->has_password) {
            char esc[260];
            instr_url_escape(in->password, esc, sizeof esc);
            snprintf(pwd, sizeof pwd, "PWD=%s;", esc);
        }
        char esc_cmd[120];
        snprintf(esc_cmd, sizeof esc_cmd, "%s", cmd);
        snprintf(path, sizeof path, "%s%s", pwd, esc_cmd);
        rc = instr_http(in, path, NULL, &m->acc, err);
        memset(path, 0, sizeof path);
        memset(pwd, 0, sizeof pwd);
        if (!rc)
            snprintf(reply, cap, "%s", eb_buf_cstr(&m->acc));
        return rc;
    }
    eb_buf_reset(&m->acc);
    rc = instr_tn_send(in, m->tn, cmd, err);
    static const char *const eol[] = {"\n"};
    if (!rc)
        rc = instr_tn_expect(in, m->tn, &m->acc, eol, 1, eb_deadline_in(EB_INSTR_TIMEOUT_MS), err);
    if (!rc)
        snprintf(reply, cap, "%.*s", (int)strcspn(eb_buf_cstr(&m->acc), "\r\n"), eb_buf_cstr(&m->acc));
    return rc;
}

static int mc_open_common(eb_instr *in, bool telnet, eb_error *err)
{
    mc_att *m = calloc(1, sizeof *m);
    if (!m)
        return eb_instr_fail(in, EB_EIO, err, "out of memory");
    eb_buf_init(&m->acc);
    in->impl = m;
    int rc = 0;
    if (telnet) {
        if (in->has_password) /* the HTTP form of a protected unit's commands is the documented one */
            rc = eb_instr_fail(in, EB_ECONFIG, err, "a password-protected unit is driven over HTTP here: use "
                               "driver minicircuits-http");
        else
            rc = instr_tcp_open(in, 23, &m->tn, err);
    }
    char model[80];
    if (!rc)
        rc = mc_cmd(in, "MN?", model, sizeof model, err);
    if (!rc) {
        m->max_db = eb_mc_model_max(strncmp(model, "MN=", 3) ? model : model + 3);
        in->max_db = fmin(m->max_db, in->ops.atten->max_db);
        if (!isfinite(m->max_db)) {
            char q[100];
            eb_instr_quote(model, strlen(model), q, sizeof q);
            rc = eb_instr_fail(in, EB_EIO, err, "MN? answered \"%s\", not a model name (MN=RCDAT-6000-90)", q);
        }
    }
    if (rc) {
        if (m->tn)
            eb_port_close(m->tn);
        eb_buf_free(&m->acc);
        free(m);
        in->impl = NULL;
    }
    return rc;
}

static int mc_open_http(eb_instr *in, eb_error *err) { return mc_open_common(in, false, err); }
static int mc_open_telnet(eb_instr *in, eb_error *err) { return mc_open_common(in, true, err); }

static int mc_set(eb_instr *in, double db, eb_error *err)
{
    char cmd[64], reply[80]; /* db is within the unit's range (eb_atten_set) */
    eb_mc_set_command(in->spec->channel, db, cmd, sizeof cmd);
    int rc = mc_cmd(in, cmd, reply, sizeof reply, err);
    if (rc)
        return rc;
    int v = eb_mc_setatt_reply(reply);
    if (v == 1)
        return 0;
    char q[100];
    eb_instr_quote(reply, strlen(reply), q, sizeof q);
    return eb_instr_fail(in, EB_EIO, err, "%s answered \"%s\"%s", cmd, q,
                         v == 2   ? " (above the unit's maximum: it set its maximum)"
                         : v == 0 ? " (the command failed)"
                                  : ", not 0, 1 or 2");
}

static int mc_get(eb_instr *in, double *db, eb_error *err)
{
    char cmd[32], reply[80];
    eb_mc_get_command(in->spec->channel, cmd, sizeof cmd);
    int rc = mc_cmd(in, cmd, reply, sizeof reply, err);
    if (!rc && !eb_mc_att_reply(reply, db)) {
        char q[100];
        eb_instr_quote(reply, strlen(reply), q, sizeof q);
        rc = eb_instr_fail(in, EB_EIO, err, "%s answered \"%s\", not an attenuation", cmd, q);
    }
    return rc;
}

static void mc_close(eb_instr *in)
{
    mc_att *m = in->impl;
    if (!m)
        return;
    if (m->tn)
        eb_port_close(m->tn);
    eb_buf_free(&m->acc);
    free(m);
}

/* ---- Weinschel 8320: a command, its answer up to the ">" prompt ---- */

typedef struct wein_att {
    eb_port *tn;
    eb_buf acc;
    double step;
} wein_att;

static int wein_cmd(eb_instr *in, const char *cmd, char *reply, size_t cap, eb_error *err)
{
    wein_att *w = in->impl;
    static const char *const prompt[] = {">"};
    eb_buf_reset(&w->acc);
    int rc = instr_tn_send(in, w->tn, cmd, err);
    if (!rc && instr_tn_expect(in, w->tn, &w->acc, prompt, 1, eb_deadline_in(EB_INSTR_TIMEOUT_MS), err) < 0)
        rc = err->code;
    if (rc)
        return rc;
    /* the text before the prompt, its lines' ends and an echo of the command left out */
    const char *t = eb_buf_cstr(&w->acc), *end = strchr(t, '>');
    size_t n = end ? (size_t)(end - t) : strlen(t), cl = strlen(cmd);
    if (n >= cl && !strncmp(t, cmd, cl))
        t += cl, n -= cl;
    while (n > 0 && (*t == '\r' || *t == '\n' || *t == ' '))
        t++, n--;
    while (n > 0 && (t[n - 1] == '\r' || t[n - 1] == '\n' || t[n - 1] == ' '))
        n--;
    snprintf(reply, cap, "%.*s", (int)n, t);
    return 0;
}

static int wein_path(const eb_instr *in) { return in->spec->channel > 0 ? in->spec->channel : 1; }

static int wein_open(eb_instr *in, eb_error *err)
{
    wein_att *w = calloc(1, sizeof *w);
    if (!w)
        return eb_instr_fail(in, EB_EIO, err, "out of memory");
    eb_buf_init(&w->acc);
    in->impl = w;
    char cmd[32], reply[160];
    int rc = instr_tcp_open(in, 23, &w->tn, err);
    if (!rc)
        rc = wein_cmd(in, "*CLS", reply, sizeof reply, err);
    snprintf(cmd, sizeof cmd, "RFCONFIG? ATTN %d", wein_path(in));
    if (!rc)
        rc = wein_cmd(in, cmd, reply, sizeof reply, err);
    double max = NAN, step = NAN;
    char model[40];
    if (!rc && (sscanf(reply, "%39[^,], %lf, %lf", model, &max, &step) != 3 || !(max > 0) || !(step > 0))) {
        char q[120];
        eb_instr_quote(reply, strlen(reply), q, sizeof q);
        rc = eb_instr_fail(in, EB_EIO, err, "%s answered \"%s\", not MODEL, MAX, STEP", cmd, q);
    }
    if (rc) {
        if (w->tn)
            eb_port_close(w->tn);
        eb_buf_free(&w->acc);
        free(w);
        in->impl = NULL;
        return rc;
    }
    in->max_db = fmin(max, in->ops.atten->max_db);
    w->step = step;
    return 0;
}

static int wein_set(eb_instr *in, double db, eb_error *err)
{
    wein_att *w = in->impl;
    char cmd[48], reply[120];
    snprintf(cmd, sizeof cmd, "ATTN %d %g", wein_path(in), round(db / w->step) * w->step);
    int rc = wein_cmd(in, cmd, reply, sizeof reply, err);
    if (!rc && reply[0]) { /* a set answers nothing but the prompt: anything else is the unit's complaint */
        char q[100];
        eb_instr_quote(reply, strlen(reply), q, sizeof q);
        rc = eb_instr_fail(in, EB_EIO, err, "%s answered \"%s\"", cmd, q);
    }
    return rc;
}

static int wein_get(eb_instr *in, double *db, eb_error *err)
{
    char cmd[32], reply[120];
    snprintf(cmd, sizeof cmd, "ATTN? %d", wein_path(in));
    int rc = wein_cmd(in, cmd, reply, sizeof reply, err);
    if (!rc && !eb_mc_att_reply(reply, db)) {
        char q[100];
        eb_instr_quote(reply, strlen(reply), q, sizeof q);
        rc = eb_instr_fail(in, EB_EIO, err, "%s answered \"%s\", not an attenuation", cmd, q);
    }
    return rc;
}

static void wein_close(eb_instr *in)
{
    wein_att *w = in->impl;
    if (!w)
        return;
    eb_port_close(w->tn);
    eb_buf_free(&w->acc);
    free(w);
}

const eb_atten_ops eb_atten_weinschel = {
    .driver = "weinschel-telnet", .max_db = 127, .step_db = 0.25,
    .open = wein_open,              .set = wein_set, .get = wein_get, .close = wein_close,
};

/* 120 dB: the family's largest range; the unit's own maximum (MN?) is checked in mc_set */
const eb_atten_ops eb_atten_mc_http = {
    .driver = "minicircuits-http", .max_db = 120, .step_db = 0.25,
    .open = mc_open_http,          .set = mc_set,  .get = mc_get, .close = mc_close,
};

const eb_atten_ops eb_atten_mc_telnet = {
    .driver = "minicircuits-telnet", .max_db = 120, .step_db = 0.25,
    .open = mc_open_telnet,          .set = mc_set,  .get = mc_get, .close = mc_close,
};
