/* Access points (instrument.h eb_ap_ops):
 *  - openwrt: OpenWrt's JSON-RPC over HTTP (uhttpd-mod-ubus at /ubus,
 *    rpcd; OpenWrt's "ubus" and "rpcd" documentation): session.login gives
 *    a session id; uci.set on the wifi-device section (channel, band,
 *    htmode, txpower: OpenWrt's wireless configuration), uci.commit, then
 *    network.reload, which is what `wifi reload` runs. Nothing to install
 *    on the AP beyond the stock web interface's packages (LuCI uses the same
 *    path). netifd's network.wireless status reads back what the radio runs
 *    (up, pending, its config; netifd wireless.c), polled while pending. A session that expired answers
 *    JSON-RPC error -32002 "Access denied": logged in again once.
 *  - hostapd: hostapd's control interface, the protocol hostapd_cli speaks
 *    (wpa_ctrl.c: a Unix datagram socket per interface,
 *    /var/run/hostapd/IFACE, one command per datagram, "OK"/"FAIL" or
 *    the answer's text; hostapd_cli's `set` and `disable`/`enable`): SET
 *    hw_mode, channel, ieee80211n, ht_capab, vht_oper_chwidth, then DISABLE
 *    and ENABLE so the interface restarts with them (RELOAD would read the
 *    configuration file again and lose them). STATUS reads back (state=,
 *    polled while hostapd is on its way to ENABLED: HT_SCAN, DFS, ACS,
 *    COUNTRY_UPDATE; a DISABLE refused because the interface is already
 *    down is let pass). A FAIL is the device refusing (EB_EIO). hostapd
 *    has no transmit power setting (that is the driver's, through iw).
 *    A hostapd on another machine built with CONFIG_CTRL_IFACE_UDP
 *    (ctrl_interface=udp:8877) takes "udp:HOST:PORT": the same commands as
 *    UDP datagrams, each after "COOKIE=<hex> " where the cookie is
 *    GET_COOKIE's answer (hostapd ctrl_iface.c; a request without the right
 *    cookie is dropped unanswered). */
#include "instr_internal.h"

#include "espbench/formats/instr_proto.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <netdb.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* ---- OpenWrt ---- */

typedef struct owrt {
    char sid[40];
    int id;
    eb_buf body;
} owrt;

#define OWRT_NO_SESSION "00000000000000000000000000000000"
#define RPC_ACCESS_DENIED (-32002)

/* One call; *obj gets the result object's JSON (caller frees) when wanted. */
static int owrt_call_once(eb_instr *in, const char *sid, const char *object, const char *method, cJSON *args,
                          int *status, char *obj, size_t cap, eb_error *err)
{
    owrt *o = in->impl;
    cJSON *req = cJSON_CreateObject(), *params = cJSON_CreateArray();
    cJSON_AddStringToObject(req, "jsonrpc", "2.0");
    cJSON_AddNumberToObject(req, "id", ++o->id);
    cJSON_AddStringToObject(req, "method", "call");
    cJSON_AddItemToArray(params, cJSON_CreateString(sid));
    cJSON_AddItemToArray(params, cJSON_CreateString(object));
    cJSON_AddItemToArray(params, cJSON_CreateString(method));
    cJSON_AddItemToArray(params, cJSON_Duplicate(args, 1));
    cJSON_AddItemToObject(req, "params", params);
    char *text = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    int rc = instr_http(in, "ubus", text, &o->body, err);
    memset(text, 0, strlen(text)); /* may hold the password */
    cJSON_free(text);
    if (rc)
        return rc;
    int kind = eb_ubus_reply(eb_buf_cstr(&o->body), status, obj, cap);
    if (kind < 0) {
        char q[120];
        eb_instr_quote(o->body.data, o->body.len > 100 ? 100 : o->body.len, q, sizeof q);
        return eb_instr_fail(in, EB_EIO, err, "%s.%s: not a JSON-RPC answer: \"%s\"", object, method, q);
    }
    if (kind == 1 && *status != RPC_ACCESS_DENIED)
        return eb_instr_fail(in, EB_EIO, err, "%s.%s: JSON-RPC error %d \"%s\"", object, method, *status, obj);
    return 0;
}

static int owrt_login(eb_instr *in, eb_error *err)
{
    owrt *o = in->impl;
    cJSON *args = cJSON_CreateObject();
    cJSON_AddStringToObject(args, "username", in->user[0] ? in->user : "root");
    cJSON_AddStringToObject(args, "password", in->password);
    char obj[2048];
    int status = 0;
    int rc = owrt_call_once(in, OWRT_NO_SESSION, "session", "login", args, &status, obj, sizeof obj, err);
    cJSON *pw = cJSON_GetObjectItemCaseSensitive(args, "password");
    if (cJSON_IsString(pw))
        memset(pw->valuestring, 0, strlen(pw->valuestring));
    cJSON_Delete(args);
    if (rc)
        return rc;
    if (status == 6 || status == RPC_ACCESS_DENIED)
        return eb_instr_fail(in, EB_ECONFIG, err, "session.login as %s: Permission denied (user or password wrong; "
                             "the password comes from %s)", in->user[0] ? in->user : "root",
                             in->spec->password_env[0] ? in->spec->password_env : "its password_file");
    cJSON *r = cJSON_Parse(obj);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "ubus_rpc_session");
    if (status || !cJSON_IsString(s) || strlen(s->valuestring) >= sizeof o->sid) {
        cJSON_Delete(r);
        return eb_instr_fail(in, EB_EIO, err, "session.login answered status %d (%s) without a session", status,
                             eb_ubus_status_name(status));
    }
    snprintf(o->sid, sizeof o->sid, "%s", s->valuestring);
    cJSON_Delete(r);
    return 0;
}

/* A call under the session, logged in again once when it expired. */
static int owrt_call(eb_instr *in, const char *object, const char *method, cJSON *args, char *obj, size_t cap,
                     eb_error *err)
{
    owrt *o = in->impl;
    for (int attempt = 0;; attempt++) {
        int status = 0;
        int rc = owrt_call_once(in, o->sid, object, method, args, &status, obj, cap, err);
        if (rc)
            return rc;
        if (status == RPC_ACCESS_DENIED && attempt == 0) {
            if ((rc = owrt_login(in, err)) != 0)
                return rc;
            continue;
        }
        if (status)
            return eb_instr_fail(in, EB_EIO, err, "%s.%s answered status %d (%s)", object, method, status,
                                 status == RPC_ACCESS_DENIED ? "Access denied" : eb_ubus_status_name(status));
        return 0;
    }
}

static int owrt_open(eb_instr *in, eb_error *err)
{
    owrt *o = calloc(1, sizeof *o);
    if (!o)
        return eb_instr_fail(in, EB_EIO, err, "out of memory");
    eb_buf_init(&o->body);
    in->impl = o;
    int rc = owrt_login(in, err);
    if (rc) {
        eb_buf_free(&o->body);
        free(o);
        in->impl = NULL;
    }
    return rc;
}

static const char *radio_of(const eb_instr *in) { return in->spec->radio[0] ? in->spec->radio : "radio0"; }

static int owrt_check(const eb_instr *in, const eb_ap_settings *s, eb_error *err)
{
    if (s->bandwidth_mhz && !eb_openwrt_htmode(s->band, s->bandwidth_mhz))
        return eb_instr_fail(in, EB_ECONFIG, err, "no htmode for %d MHz on band %s", s->bandwidth_mhz,
                             s->band[0] ? s->band : "2g");
    return 0;
}

static int owrt_status(eb_instr *in, eb_ap_settings *out, bool *pending, eb_error *err)
{
    cJSON *args = cJSON_CreateObject();
    char obj[8192];
    int rc = owrt_call(in, "network.wireless", "status", args, obj, sizeof obj, err);
    cJSON_Delete(args);
    if (!rc && eb_openwrt_wireless_status(obj, radio_of(in), out, pending) < 0)
        rc = eb_instr_fail(in, EB_EIO, err, "network.wireless status has no radio %s", radio_of(in));
    return rc;
}

static int owrt_apply(eb_instr *in, const eb_ap_settings *s, eb_error *err)
{
    cJSON *args = cJSON_CreateObject(), *values = cJSON_CreateObject();
    char v[16];
    if (s->band[0])
        cJSON_AddStringToObject(values, "band", s->band);
    if (s->channel) {
        snprintf(v, sizeof v, "%d", s->channel);
        cJSON_AddStringToObject(values, "channel", v);
    }
    if (s->bandwidth_mhz) /* owrt_check found it */
        cJSON_AddStringToObject(values, "htmode", eb_openwrt_htmode(s->band, s->bandwidth_mhz));
    if (isfinite(s->txpower_dbm)) {
        snprintf(v, sizeof v, "%.0f", s->txpower_dbm);
        cJSON_AddStringToObject(values, "txpower", v);
    }
    cJSON_AddStringToObject(args, "config", "wireless");
    cJSON_AddStringToObject(args, "section", radio_of(in));
    cJSON_AddItemToObject(args, "values", values);
    char obj[256];
    int rc = owrt_call(in, "uci", "set", args, obj, sizeof obj, err);
    cJSON_Delete(args);
    if (rc)
        return rc;
    args = cJSON_CreateObject();
    cJSON_AddStringToObject(args, "config", "wireless");
    rc = owrt_call(in, "uci", "commit", args, obj, sizeof obj, err);
    cJSON_Delete(args);
    if (rc)
        return rc;
    args = cJSON_CreateObject();
    rc = owrt_call(in, "network", "reload", args, obj, sizeof obj, err);
    cJSON_Delete(args);
    /* netifd sets the radio up again in the background: wait while it says pending */
    eb_deadline d = eb_deadline_in(EB_AP_SETTLE_MS);
    for (bool pending = true; !rc && pending && eb_deadline_left_ms(d) > 0;) {
        eb_ap_settings now;
        eb_ap_settings_init(&now);
        rc = owrt_status(in, &now, &pending, err);
        if (!rc && pending)
            usleep(EB_AP_POLL_MS * 1000);
    }
    return rc;
}

/* What netifd runs (network.wireless status), not what uci holds: a radio
 * that did not come up says so. */
static int owrt_read(eb_instr *in, eb_ap_settings *out, eb_error *err)
{
    bool pending;
    return owrt_status(in, out, &pending, err);
}

static void owrt_close(eb_instr *in)
{
    owrt *o = in->impl;
    if (!o)
        return;
    eb_buf_free(&o->body);
    memset(o->sid, 0, sizeof o->sid);
    free(o);
}

const eb_ap_ops eb_ap_openwrt = {
    .driver = "openwrt", .open = owrt_open, .check = owrt_check, .apply = owrt_apply, .read = owrt_read, .close = owrt_close,
};

/* ---- hostapd ---- */

typedef struct hapd {
    int fd;
    char local[108];      /* the Unix client socket's path, "" over UDP */
    char cookie[48];      /* "COOKIE=<hex>" over UDP, "" otherwise */
} hapd;

static int hapd_cmd(eb_instr *in, const char *cmd, char *reply, size_t cap, eb_error *err);

/* "udp:HOST:PORT": a connected UDP socket and GET_COOKIE's cookie. */
static int hapd_open_udp(eb_instr *in, hapd *h, eb_error *err)
{
    char host[200];
    const char *a = in->spec->address + 4, *colon = strrchr(a, ':');
    if (!colon || colon == a || !colon[1] || (size_t)(colon - a) >= sizeof host)
        return eb_instr_fail(in, EB_ECONFIG, err, "a UDP control interface is udp:HOST:PORT");
    snprintf(host, sizeof host, "%.*s", (int)(colon - a), a);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM}, *res = NULL;
    int g = getaddrinfo(host, colon + 1, &hints, &res);
    if (g)
        return eb_instr_fail(in, EB_ECONFIG, err, "cannot resolve %s: %s", host, gai_strerror(g));
    h->fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int rc = h->fd < 0 || connect(h->fd, res->ai_addr, res->ai_addrlen) ? errno : 0;
    freeaddrinfo(res);
    if (rc)
        return eb_instr_fail(in, EB_EIO, err, "cannot reach its control interface: %s", strerror(rc));
    char reply[64];
    in->impl = h;
    rc = hapd_cmd(in, "GET_COOKIE", reply, sizeof reply, err);
    in->impl = NULL;
    if (rc)
        return rc;
    reply[strcspn(reply, "\r\n")] = 0;
    if (strncmp(reply, "COOKIE=", 7) || strlen(reply) < 8 || strlen(reply) >= sizeof h->cookie) {
        char q[80];
        eb_instr_quote(reply, strlen(reply), q, sizeof q);
        return eb_instr_fail(in, EB_EIO, err, "GET_COOKIE answered \"%s\", not COOKIE=<hex>", q);
    }
    memcpy(h->cookie, reply, strlen(reply) + 1); /* fits: checked above */
    return 0;
}

static int hapd_open(eb_instr *in, eb_error *err)
{
    static unsigned counter;
    hapd *h = calloc(1, sizeof *h);
    if (!h)
        return eb_instr_fail(in, EB_EIO, err, "out of memory");
    h->fd = -1;
    if (!strncmp(in->spec->address, "udp:", 4)) {
        int rc = hapd_open_udp(in, h, err);
        if (rc) {
            if (h->fd >= 0)
                close(h->fd);
            free(h);
            return rc;
        }
        in->impl = h;
        return 0;
    }
    struct sockaddr_un me = {.sun_family = AF_UNIX}, ap = {.sun_family = AF_UNIX};
    const char *path = in->spec->address;
    if (strlen(path) >= sizeof ap.sun_path) {
        free(h);
        return eb_instr_fail(in, EB_ECONFIG, err, "the control socket path is too long");
    }
    /* the client's own socket, as wpa_ctrl_open names it */
    snprintf(h->local, sizeof h->local, "/tmp/espbench_ctrl_%d-%u", (int)getpid(), __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
    snprintf(me.sun_path, sizeof me.sun_path, "%s", h->local);
    memcpy(ap.sun_path, path, strlen(path) + 1);
    h->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    unlink(h->local);
    if (h->fd < 0 || bind(h->fd, (struct sockaddr *)&me, sizeof me) || connect(h->fd, (struct sockaddr *)&ap, sizeof ap)) {
        int e = errno;
        if (h->fd >= 0)
            close(h->fd);
        unlink(h->local);
        free(h);
        return eb_instr_fail(in, EB_EIO, err, "cannot reach its control interface: %s (is hostapd running with "
                             "ctrl_interface there?)", strerror(e));
    }
    in->impl = h;
    return 0;
}

/* One command, its answer (unsolicited "<N>..." event datagrams skipped). */
static int hapd_cmd(eb_instr *in, const char *cmd, char *reply, size_t cap, eb_error *err)
{
    hapd *h = in->impl;
    char out[320];
    int len = snprintf(out, sizeof out, "%s%s%s", h->cookie, h->cookie[0] ? " " : "", cmd);
    if (send(h->fd, out, (size_t)len, 0) < 0)
        return eb_instr_fail(in, EB_EIO, err, "%s: cannot send: %s", cmd, strerror(errno));
    eb_deadline d = eb_deadline_in(EB_INSTR_TIMEOUT_MS);
    for (;;) {
        struct pollfd p = {.fd = h->fd, .events = POLLIN};
        int ms = eb_deadline_left_ms(d);
        if (ms <= 0 || poll(&p, 1, ms) <= 0)
            return eb_instr_fail(in, EB_EIO, err, "%s: no answer within %d s", cmd, EB_INSTR_TIMEOUT_MS / 1000);
        ssize_t n = recv(h->fd, reply, cap - 1, 0);
        if (n < 0)
            return eb_instr_fail(in, EB_EIO, err, "%s: %s", cmd, strerror(errno));
        reply[n] = 0;
        if (reply[0] != '<')
            return 0;
    }
}

/* A command answered OK; FAIL is the device refusing it (EB_EIO, as any
 * answer other than its protocol's). */
static int hapd_ok(eb_instr *in, const char *cmd, eb_error *err)
{
    char reply[256];
    int rc = hapd_cmd(in, cmd, reply, sizeof reply, err);
    if (rc || !strncmp(reply, "OK", 2))
        return rc;
    char q[120];
    eb_instr_quote(reply, strcspn(reply, "\n"), q, sizeof q);
    return eb_instr_fail(in, EB_EIO, err, "%s answered \"%s\"", cmd, q);
}

static int hapd_read(eb_instr *in, eb_ap_settings *out, eb_error *err)
{
    char reply[4096];
    int rc = hapd_cmd(in, "STATUS", reply, sizeof reply, err);
    if (rc)
        return rc;
    if (!strstr(reply, "state=")) {
        char q[120];
        eb_instr_quote(reply, strcspn(reply, "\n"), q, sizeof q);
        return eb_instr_fail(in, EB_EIO, err, "STATUS answered \"%s\", not hostapd's status", q);
    }
    eb_hostapd_status(reply, out);
    return 0;
}

static int hapd_check(const eb_instr *in, const eb_ap_settings *s, eb_error *err)
{
    if (isfinite(s->txpower_dbm))
        return eb_instr_fail(in, EB_ECONFIG, err, "hostapd has no transmit power setting (it is the radio "
                             "driver's: iw dev IFACE set txpower)");
    return 0;
}

static int hapd_apply(eb_instr *in, const eb_ap_settings *s, eb_error *err)
{
    char cmd[96];
    int rc = 0;
    if (s->band[0]) {
        snprintf(cmd, sizeof cmd, "SET hw_mode %s", !strcmp(s->band, "5g") ? "a" : "g");
        rc = hapd_ok(in, cmd, err);
    }
    if (!rc && s->channel) {
        snprintf(cmd, sizeof cmd, "SET channel %d", s->channel);
        rc = hapd_ok(in, cmd, err);
    }
    if (!rc && s->bandwidth_mhz) {
        rc = hapd_ok(in, "SET ieee80211n 1", err);
        if (!rc) { /* HT40+ above a lower primary channel; HT40- from channel 8 on 2.4 GHz */
            bool minus = s->channel >= 8 && s->channel <= 13;
            snprintf(cmd, sizeof cmd, "SET ht_capab %s", s->bandwidth_mhz >= 40 ? (minus ? "[HT40-]" : "[HT40+]") : "");
            rc = hapd_ok(in, cmd, err);
        }
        if (!rc && (s->bandwidth_mhz >= 80 || !strcmp(s->band, "5g"))) {
            snprintf(cmd, sizeof cmd, "SET vht_oper_chwidth %d", s->bandwidth_mhz == 160 ? 2 : s->bandwidth_mhz == 80);
            rc = hapd_ok(in, cmd, err);
        }
    }
    eb_ap_settings now;
    eb_ap_settings_init(&now);
    if (!rc && (rc = hapd_ok(in, "DISABLE", err)) != 0) {
        /* hostapd refuses to disable an interface that is down (a point
         * before did not come up): that one is ready to be enabled */
        eb_error e;
        if (!hapd_read(in, &now, &e) && (!strcmp(now.state, "DISABLED") || !strcmp(now.state, "UNINITIALIZED")))
            rc = 0;
    }
    if (!rc)
        rc = hapd_ok(in, "ENABLE", err);
    /* on its way up: HT_SCAN (20/40 coexistence), DFS (the channel availability check), ACS */
    eb_deadline d = eb_deadline_in(EB_AP_SETTLE_MS);
    while (!rc && !(rc = hapd_read(in, &now, err)) && eb_hostapd_state_settling(now.state) &&
           eb_deadline_left_ms(d) > 0)
        usleep(EB_AP_POLL_MS * 1000);
    return rc;
}

static void hapd_close(eb_instr *in)
{
    hapd *h = in->impl;
    if (!h)
        return;
    close(h->fd);
    if (h->local[0])
        unlink(h->local);
    free(h);
}

const eb_ap_ops eb_ap_hostapd = {
    .driver = "hostapd", .open = hapd_open, .check = hapd_check, .apply = hapd_apply, .read = hapd_read, .close = hapd_close,
};
