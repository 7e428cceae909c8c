/* Power switches (instrument.h eb_power_ops):
 *  - apc: an APC Switched Rack PDU's Telnet control console, walked as
 *    ESP-IDF's shield-box test walks it (esp-idf tools/ci/python_packages/
 *    idf_iperf_test_util/PowerControl.py; the menus are the APC Switched
 *    Rack PDU User's Guide's "Control Console"): "User Name :", "Password
 *    :", then each menu ends in its "Event Log" line and a ">" prompt:
 *    1 Device Manager, 2 Outlet Management, 1 Outlet Control/Configuration,
 *    the outlet, 1 Control Outlet, 1 Immediate On / 2 Immediate Off, "YES"
 *    at "... cancel :", ENTER at "... continue...", ESC twice back to the
 *    outlet list; ESC to the main menu and 4 logs out. The outlet's menu
 *    shown again after the command ("State        : ON") is the read-back.
 *    A wrong password
 *    brings "User Name :" back. Outlets 1..8 (PowerControl.py's range).
 *  - tasmota: Tasmota's web command interface (Tasmota documentation,
 *    "Commands" over HTTP): GET /cm?user=U&password=P&cmnd=Power<N> On,
 *    answered {"POWER<N>":"ON"} ({"POWER":"ON"} on a one-relay device);
 *    Power<N> without an argument reads the relay back. */
#include "instr_internal.h"

#include "espbench/formats/instr_proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- APC ---- */

/* Waits for a menu (its "Event Log" line, then its prompt) and chooses;
 * the menu's text into seen when wanted. */
static int apc_choose(eb_instr *in, eb_port *p, eb_buf *acc, const char *choice, const char *what, char *seen,
                      size_t seen_cap, eb_error *err)
{
    static const char *const menu[] = {"Event Log", "User Name :"};
    static const char *const prompt[] = {">"};
    eb_deadline d = eb_deadline_in(EB_INSTR_TIMEOUT_MS);
    int k = instr_tn_expect(in, p, acc, menu, 2, d, err);
    if (k == 1)
        return eb_instr_fail(in, EB_ECONFIG, err, "login refused (it asked for the user name again): check the "
                             "user and the password in %s", in->spec->password_env[0] ? in->spec->password_env : "its password_file");
    if (k < 0)
        return eb_error_prefix(err, "before %s: ", what), err->code;
    /* the prompt after the menu's last line */
    char *text = (char *)eb_buf_cstr(acc);
    if (seen_cap)
        snprintf(seen, seen_cap, "%s", text);
    size_t keep = strlen(strstr(text, "Event Log") + 9);
    eb_buf_consume(acc, acc->len - keep);
    k = instr_tn_expect(in, p, acc, prompt, 1, d, err);
    eb_buf_reset(acc);
    return k < 0 ? err->code : instr_tn_send(in, p, choice, err);
}

static int apc_step(eb_instr *in, eb_port *p, eb_buf *acc, const char *wait, const char *send, eb_error *err)
{
    const char *const pats[] = {wait};
    int k = instr_tn_expect(in, p, acc, pats, 1, eb_deadline_in(EB_INSTR_TIMEOUT_MS), err);
    eb_buf_reset(acc);
    return k < 0 ? err->code : instr_tn_send(in, p, send, err);
}

/* The outlet's state as its menu showed it after the last change. */
typedef struct apc_seen {
    int outlet;
    int state;          /* eb_apc_outlet_state */
} apc_seen;

static int apc_open(eb_instr *in, eb_error *err)
{
    if (!in->has_password)
        return eb_instr_fail(in, EB_ECONFIG, err, "needs a password: give password_env or password_file");
    apc_seen *a = calloc(1, sizeof *a);
    if (!a)
        return eb_instr_fail(in, EB_EIO, err, "out of memory");
    a->state = -1;
    in->impl = a;
    return 0; /* a session per change, as PowerControl.py: the console logs idle users out */
}

static int apc_set(eb_instr *in, int outlet, bool on, eb_error *err)
{
    eb_port *p;
    int rc = instr_tcp_open(in, 23, &p, err);
    if (rc)
        return rc;
    eb_buf acc;
    eb_buf_init(&acc);
    char num[8];
    snprintf(num, sizeof num, "%d", outlet);
    rc = apc_step(in, p, &acc, "User Name :", in->user[0] ? in->user : "apc", err);
    if (!rc)
        rc = apc_step(in, p, &acc, "Password  :", in->password, err);
    static const struct {
        const char *choice, *what;
    } path[] = {{"1", "Device Manager"}, {"2", "Outlet Management"}, {"1", "Outlet Control/Configuration"}};
    for (size_t i = 0; !rc && i < sizeof path / sizeof path[0]; i++)
        rc = apc_choose(in, p, &acc, path[i].choice, path[i].what, NULL, 0, err);
    if (!rc)
        rc = apc_choose(in, p, &acc, num, "the outlet", NULL, 0, err);
    if (!rc)
        rc = apc_choose(in, p, &acc, "1", "Control Outlet", NULL, 0, err);
    if (!rc)
        rc = apc_choose(in, p, &acc, on ? "1" : "2", on ? "Immediate On" : "Immediate Off", NULL, 0, err);
    if (!rc)
        rc = apc_step(in, p, &acc, "cancel :", "YES", err);
    if (!rc)
        rc = apc_step(in, p, &acc, "continue...", "", err);
    /* the outlet's menu again, with its state ("State        : ON"): the read-back; then back to the
     * outlet list, the main menu, log out */
    char menu[2048] = "";
    if (!rc)
        rc = apc_choose(in, p, &acc, "\033", "going back", menu, sizeof menu, err);
    if (!rc)
        rc = apc_choose(in, p, &acc, "\033", "going back", NULL, 0, err);
    apc_seen *a = in->impl;
    a->outlet = outlet;
    a->state = rc ? -1 : eb_apc_outlet_state(menu);
    if (!rc) {
        eb_error e;
        static const char bye[] = "\033\r\n\033\r\n\033\r\n4\r\n";
        eb_port_write(p, bye, sizeof bye - 1, eb_deadline_in(1000), &e);
    }
    eb_buf_free(&acc);
    eb_port_close(p);
    return rc;
}

static int apc_get(eb_instr *in, int outlet, bool *on, eb_error *err)
{
    const apc_seen *a = in->impl;
    if (a->outlet != outlet || a->state < 0)
        return eb_instr_fail(in, EB_EIO, err, "outlet %d's menu showed no \"State : ON|OFF\" line", outlet);
    *on = a->state == 1;
    return 0;
}

static void apc_close(eb_instr *in) { free(in->impl); }

const eb_power_ops eb_power_apc = {
    .driver = "apc", .max_outlet = 8, .open = apc_open, .set = apc_set, .get = apc_get, .close = apc_close,
};

/* ---- Tasmota ---- */

static int tas_open(eb_instr *in, eb_error *err)
{
    (void)in, (void)err;
    return 0; /* stateless HTTP */
}

/* One command (Power<N>, Power<N> On|Off); *state = the relay's state it answers. */
static int tas_cmd(eb_instr *in, int outlet, const char *act, int *state, eb_error *err)
{
    char path[400] = "cm?", esc[300];
    size_t n = 3;
    if (in->has_password) {
        instr_url_escape(in->user[0] ? in->user : "admin", esc, sizeof esc);
        n += (size_t)snprintf(path + n, sizeof path - n, "user=%s&", esc);
        instr_url_escape(in->password, esc, sizeof esc);
        n += (size_t)snprintf(path + n, sizeof path - n, "password=%s&", esc);
        memset(esc, 0, sizeof esc);
    }
    snprintf(path + n, sizeof path - n, "cmnd=Power%d%s%s", outlet, act[0] ? "%20" : "", act);
    eb_buf body;
    eb_buf_init(&body);
    int rc = instr_http(in, path, NULL, &body, err);
    memset(path, 0, sizeof path);
    if (!rc) {
        char why[160];
        *state = eb_tasmota_power_reply(eb_buf_cstr(&body), outlet, why, sizeof why);
        if (*state < 0) {
            char q[160];
            eb_instr_quote(body.data, body.len > 140 ? 140 : body.len, q, sizeof q);
            rc = eb_instr_fail(in, strstr(why, "WARNING") ? EB_ECONFIG : EB_EIO, err, "Power%d%s%s answered %s",
                               outlet, act[0] ? " " : "", act, q);
        }
    }
    eb_buf_free(&body);
    return rc;
}

static int tas_set(eb_instr *in, int outlet, bool on, eb_error *err)
{
    int state;
    return tas_cmd(in, outlet, on ? "On" : "Off", &state, err);
}

/* "Power<N>" without an argument answers the relay's state. */
static int tas_get(eb_instr *in, int outlet, bool *on, eb_error *err)
{
    int state = -1;
    int rc = tas_cmd(in, outlet, "", &state, err);
    *on = state == 1;
    return rc;
}

static void tas_close(eb_instr *in) { (void)in; }

const eb_power_ops eb_power_tasmota = {
    .driver = "tasmota", .max_outlet = 8, .open = tas_open, .set = tas_set, .get = tas_get, .close = tas_close,
};
